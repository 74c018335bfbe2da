"""Engine behaviour on a real SQLite file with the real MiniLM model."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from lethe import Filters, Lethe
from lethe.common.identifiers import MEMORY_ID_RE
from lethe.embed import Embedder
from lethe.errors import InvalidInput, LinkNotFound, MemoryNotFound
from tests.backends import run_sql, snapshot, sqlite_only

FACTS = [
    "User lives in San Francisco",
    "User visited San Francisco last year",
    "The user's favourite colour is blue",
    "We decided to use PostgreSQL for the storage layer",
    "The cat is called Miso and sleeps on the keyboard",
    "User prefers green tea over coffee in the morning",
]


def test_remember_stores_every_field_and_audits_it(mem: Lethe) -> None:
    memory = mem.remember(
        "User prefers dark mode in every editor",
        namespace="work",
        agent="claude",
        layer="semantic",
        category="preference",
        tags=["ui", "editor"],
        metadata={"source": "chat", "turn": 3},
        importance=0.7,
    )
    assert MEMORY_ID_RE.match(memory.id) and memory.id.startswith("mem_")
    stored = mem.get(memory.id)
    assert stored == memory
    assert (stored.namespace, stored.agent, stored.layer, stored.category) == (
        "work",
        "claude",
        "semantic",
        "preference",
    )
    assert stored.tags == ("ui", "editor")
    assert stored.metadata == {"source": "chat", "turn": 3}
    assert stored.importance == 0.7 and stored.status == "active" and stored.access_count == 0
    [event] = mem.audit(memory_id=memory.id)
    assert event.op == "remember" and event.actor == "claude" and event.namespace == "work"
    assert event.content_sha256 == memory.content_sha256
    assert len(memory.content_sha256) == 64


def test_defaults(mem: Lethe) -> None:
    memory = mem.remember("A plain memory with defaults")
    assert (memory.namespace, memory.layer, memory.importance, memory.private) == (
        "default",
        "episodic",
        0.5,
        False,
    )


def test_exact_duplicate_is_idempotent_and_writes_nothing(mem: Lethe, db: str) -> None:
    first = mem.remember("User lives in San Francisco")
    before = snapshot(db)
    again = mem.remember("  User lives in   San Francisco ")
    assert again.existing and again.id == first.id
    assert again == mem.get(first.id)
    assert snapshot(db) == before, "nothing written, nothing audited twice"
    copy = mem.remember("User lives in San Francisco", allow_duplicate=True)
    assert copy.id != first.id and not copy.existing


def test_duplicates_are_only_checked_within_a_namespace(mem: Lethe) -> None:
    mem.remember("User lives in San Francisco", namespace="a")
    other = mem.remember("User lives in San Francisco", namespace="b")
    assert other.namespace == "b"


def test_auto_links_follow_similarity(mem: Lethe, embedder: Embedder) -> None:
    stored = [mem.remember(text) for text in FACTS]
    new_text = "User has lived in San Francisco for years"
    new = mem.remember(new_text)
    vectors = embedder.embed([m.content for m in stored])
    sims = vectors @ embedder.embed([new_text])[0]
    expected = {m.id: float(s) for m, s in zip(stored, sims, strict=True) if s >= 0.7}
    expected = dict(sorted(expected.items(), key=lambda kv: -kv[1])[:5])
    assert expected, "the fixture sentences must produce at least one auto-link"
    links = {link.other(new.id): link.confidence for link in mem.links(new.id)}
    assert links.keys() == expected.keys()
    for other, confidence in links.items():
        assert confidence == pytest.approx(expected[other], abs=1e-5)


def test_auto_links_are_capped_at_five(mem: Lethe) -> None:
    texts = [
        f"The weekly team meeting happens on {day} at ten"
        for day in ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    ]
    for text in texts:
        mem.remember(text, allow_duplicate=True)
    last = mem.remember("The weekly team meeting happens at ten", allow_duplicate=True)
    assert len(mem.links(last.id)) == 5


def test_recall_ranks_hybrid_and_reports_similarity(mem: Lethe, embedder: Embedder) -> None:
    ids = {text: mem.remember(text).id for text in FACTS}
    hits = mem.recall("Where does the user live?", k=3)
    assert hits[0].memory.id == ids["User lives in San Francisco"]
    assert len(hits) == 3
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    query = embedder.embed(["Where does the user live?"])[0]
    for hit in hits:
        expected = float(embedder.embed([hit.memory.content])[0] @ query)
        assert hit.similarity == pytest.approx(max(0.0, min(1.0, expected)), abs=1e-5)
        assert 0.0 <= hit.similarity <= 1.0 and 0.0 < hit.score <= 1.0


def test_recall_lexical_side_finds_rare_words(mem: Lethe) -> None:
    for text in FACTS:
        mem.remember(text)
    hit = mem.recall("Miso", k=1)[0]
    assert hit.memory.content.startswith("The cat is called Miso")
    assert hit.lexical_rank == 1


def test_recall_updates_access_stats(mem: Lethe) -> None:
    memory = mem.remember("User prefers green tea over coffee in the morning")
    mem.recall("tea", k=1)
    mem.recall("green tea", k=1)
    after = mem.get(memory.id)
    assert after.access_count == 2 and after.last_accessed_at is not None


def _seeded(mem: Lethe) -> dict[str, str]:
    spec = {
        "old": (
            "Pricing strategy for 2023 was cost-plus",
            "alice",
            "semantic",
            "work",
            ["pricing"],
            {"date": "2023-05-01", "topic": "pricing", "score": 3, "labels": ["old", "draft"]},
        ),
        "new": (
            "Pricing strategy for 2024 is value-based",
            "alice",
            "semantic",
            "work",
            ["pricing", "current"],
            {"date": "2024-02-01", "topic": "pricing", "score": 8, "labels": ["current"]},
        ),
        "talk": (
            "Pricing talk with the sales team went well",
            "bob",
            "episodic",
            "meeting",
            ["sales"],
            {"date": "2024-03-10", "topic": "sales", "sourcePath": "scripts/old/ep01.md"},
        ),
        "deploy": (
            "Never deploy pricing changes on Fridays",
            "bob",
            "caveat",
            "lesson",
            ["pricing", "ops"],
            {"topic": "ops"},
        ),
    }
    return {
        key: mem.remember(
            content, agent=agent, layer=layer, category=category, tags=tags, metadata=meta
        ).id
        for key, (content, agent, layer, category, tags, meta) in spec.items()
    }


def _recall_ids(
    mem: Lethe, filters: Filters | dict[str, object] | None = None, where: tuple[str, ...] = ()
) -> set[str]:
    return {h.memory.id for h in mem.recall("pricing", k=20, filters=filters, where=where)}


def test_recall_filters(mem: Lethe) -> None:
    ids = _seeded(mem)
    mem.remember("Pricing in another namespace entirely", namespace="other")
    assert _recall_ids(mem) == set(ids.values())
    assert _recall_ids(mem, Filters(agent="bob")) == {ids["talk"], ids["deploy"]}
    assert _recall_ids(mem, Filters(layer="caveat")) == {ids["deploy"]}
    assert _recall_ids(mem, Filters(category="work")) == {ids["old"], ids["new"]}
    assert _recall_ids(mem, Filters(tags=("current", "sales"))) == {ids["new"], ids["talk"]}
    assert _recall_ids(mem, Filters(tags=("pricing", "ops"), tags_mode="all")) == {ids["deploy"]}
    other = _recall_ids(mem, Filters(namespace="other"))
    assert len(other) == 1 and not other & set(ids.values())


def test_metadata_conditions_every_operator(mem: Lethe) -> None:
    ids = _seeded(mem)
    old, new, talk, deploy = ids["old"], ids["new"], ids["talk"], ids["deploy"]
    cases = {
        '@metadata.date < "2024-01-01"': {old},
        "@metadata.date <= 2024-02-01": {old, new},
        '@metadata.date > "2024-02-01"': {talk},
        "@metadata.date >= 2024-02-01": {new, talk},
        "@metadata.topic = pricing": {old, new},
        "metadata.topic != pricing": {talk, deploy},
        "@metadata.score > 5": {new},
        "@metadata.score <= 3": {old},
        '@metadata.topic in ["sales", "ops"]': {talk, deploy},
        "@metadata.topic in sales,ops": {talk, deploy},
        "@metadata.labels contains draft": {old},
        "@metadata.sourcePath contains scripts/old": {talk},
        "@metadata.sourcePath = scripts/old/ep01.md": {talk},
        '@metadata.topic = pricing AND @metadata.date < "2024-01-01"': {old},
        "importance >= 0.5": {old, new, talk, deploy},
        "layer = caveat": {deploy},
        "agent != alice": {talk, deploy},
    }
    for expr, expected in cases.items():
        assert _recall_ids(mem, where=(expr,)) == expected, expr
    assert _recall_ids(mem, {"sourcePath": "scripts/old/ep01.md"}) == {talk}
    assert _recall_ids(mem, {"@metadata.topic": "ops", "tags": []}) == {deploy}


def test_time_range_filters(db: str, embedder: Embedder) -> None:
    now = [datetime(2024, 1, 10, tzinfo=UTC)]
    with Lethe.open(db, embedder=embedder, clock=lambda: now[0]) as mem:
        early = mem.remember("Kickoff meeting for the garden project")
        now[0] += timedelta(days=30)
        late = mem.remember("Garden project harvest review")
        since = Filters(since=datetime(2024, 2, 1, tzinfo=UTC))
        assert _recall_ids_q(mem, "garden", since) == {late.id}
        until = Filters(until=datetime(2024, 2, 1, tzinfo=UTC))
        assert _recall_ids_q(mem, "garden", until) == {early.id}
        assert {h.memory.id for h in mem.recall("garden", where=("created_at < 2024-01-20",))} == {
            early.id
        }


def _recall_ids_q(mem: Lethe, query: str, filters: Filters) -> set[str]:
    return {h.memory.id for h in mem.recall(query, filters=filters)}


def test_update_reembeds_and_keeps_old_hash(mem: Lethe) -> None:
    memory = mem.remember("User lives in San Francisco")
    mem.remember("The cat is called Miso and sleeps on the keyboard")
    updated = mem.update(memory.id, content="User moved to Lisbon in Portugal", importance=0.8)
    assert updated.content == "User moved to Lisbon in Portugal" and updated.importance == 0.8
    assert updated.updated_at >= memory.updated_at
    assert mem.recall("Where in Portugal does the user live?", k=1)[0].memory.id == memory.id
    [_, event] = mem.audit(memory_id=memory.id)
    assert event.op == "update"
    assert event.details["old_sha256"] == memory.content_sha256
    assert event.content_sha256 == updated.content_sha256 != memory.content_sha256
    assert set(event.details["fields"]) == {"content", "importance"}
    unchanged = mem.update(memory.id, importance=0.8)
    assert unchanged.updated_at == updated.updated_at
    assert len(mem.audit(memory_id=memory.id)) == 2


def test_list_pages_newest_first(mem: Lethe) -> None:
    made = [
        mem.remember(f"Numbered note {n}: {word}", allow_duplicate=True).id
        for n, word in enumerate(["apple", "river", "violin", "glacier", "pepper"])
    ]
    first = mem.list_memories(limit=2)
    second = mem.list_memories(limit=2, offset=2)
    assert first.total == 5
    assert [m.id for m in first.items] == made[::-1][:2]
    assert [m.id for m in second.items] == made[::-1][2:4]


def test_links_unlink_and_bump(mem: Lethe) -> None:
    a = mem.remember("The cat is called Miso and sleeps on the keyboard")
    b = mem.remember("We decided to use PostgreSQL for the storage layer")
    link = mem.link(a.id, b.id, kind="reminds_of", confidence=0.4)
    assert (link.a, link.b) == tuple(sorted((a.id, b.id)))
    assert [lk.kind for lk in mem.links(b.id)] == ["reminds_of"]
    bumped = mem.bump(b.id, a.id, kind="reminds_of", delta=0.25)
    assert bumped.confidence == pytest.approx(0.65)
    assert mem.bump(a.id, b.id, kind="reminds_of", delta=0.9).confidence == 1.0
    mem.unlink(b.id, a.id, kind="reminds_of")
    assert mem.links(a.id) == []
    with pytest.raises(LinkNotFound):
        mem.unlink(a.id, b.id, kind="reminds_of")
    ops = [e.op for e in mem.audit(memory_id=b.id)]
    assert ops == ["remember", "bump", "unlink"]


def test_links_never_cross_namespaces(mem: Lethe, db: str) -> None:
    a = mem.remember("First memory in namespace one", namespace="one")
    b = mem.remember("Second memory in namespace two", namespace="two")
    before = snapshot(db)
    with pytest.raises(InvalidInput, match="namespace"):
        mem.link(a.id, b.id)
    with pytest.raises(InvalidInput, match="itself"):
        mem.link(a.id, a.id)
    assert snapshot(db) == before


def test_episode_lists_live_members_and_counts_missing(mem: Lethe, db: str) -> None:
    members = [mem.remember(text) for text in FACTS[:3]]
    episode = mem.create_episode(
        "Getting to know the user", [m.id for m in members], importance=0.6
    )
    view = mem.get_episode(episode.id)
    assert [m.id for m in view.members] == [m.id for m in members]
    assert view.missing == 0 and view.note is None
    assert view.episode.start_at == members[0].created_at
    assert view.episode.end_at == members[-1].created_at
    run_sql(db, "UPDATE memories SET status = 'forgotten' WHERE id = ?", (members[0].id,))
    run_sql(db, "DELETE FROM memories WHERE id = ?", (members[1].id,))
    view = mem.get_episode(episode.id)
    assert [m.id for m in view.members] == [members[2].id]
    assert view.missing == 2 and view.note == "2 memories no longer exist"


def test_get_unknown_and_malformed_ids(mem: Lethe) -> None:
    with pytest.raises(MemoryNotFound, match="Memory not found"):
        mem.get("mem_000000000000")
    with pytest.raises(InvalidInput, match="malformed memory id"):
        mem.get("f926ff7f")


def test_removed_rows_are_never_returned(mem: Lethe, db: str) -> None:
    """The vector index is a cache; a memory no longer live must not come back from it."""
    target = mem.remember("User lives in San Francisco")
    mem.remember("The cat is called Miso and sleeps on the keyboard")
    assert mem.recall("San Francisco", k=1)[0].memory.id == target.id
    run_sql(db, "UPDATE memories SET status = 'forgotten' WHERE id = ?", (target.id,))
    assert target.id not in {h.memory.id for h in mem.recall("San Francisco", k=10)}
    assert target.id not in {m.id for m in mem.list_memories().items}


@sqlite_only
def test_recall_rechecks_hits_against_live_rows_when_the_index_is_stale(
    mem: Lethe, db: str, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process forgets a memory; this one's index does not catch up (its change-log
    replay is switched off), so the vector side still offers the memory: the live-row
    re-check alone must keep it out."""
    target = mem.remember("User lives in San Francisco")
    mem.remember("The cat is called Miso and sleeps on the keyboard")
    assert mem.recall("San Francisco", k=1)[0].memory.id == target.id
    with Lethe.open(db, embedder=embedder) as other:
        other.execute(other.plan_forget([target.id]))
    monkeypatch.setattr(mem.store._sync, "sync", lambda: None)
    stale = mem.store.vector_search(embedder.embed(["San Francisco"])[0], Filters(), 5)
    assert target.id in {i for i, _ in stale}, "the index is stale, as intended"
    hits = mem.recall("San Francisco", k=10)
    assert hits and target.id not in {h.memory.id for h in hits}


def test_vector_matches_the_stored_blob(mem: Lethe, embedder: Embedder) -> None:
    memory = mem.remember("The cat is called Miso and sleeps on the keyboard")
    blob = mem.store.vector_of(memory.id)
    assert blob is not None
    np.testing.assert_allclose(blob, embedder.embed([memory.content])[0], atol=1e-6)


def test_merge_metadata_sets_only_named_keys(mem: Lethe) -> None:
    memory = mem.remember("User likes jazz", metadata={"source": "chat", "turn": 1})
    merged = mem.update(memory.id, merge_metadata={"turn": 2, "mood": "happy"})
    assert merged.metadata == {"source": "chat", "turn": 2, "mood": "happy"}
    replaced = mem.update(memory.id, metadata={"only": True})
    assert replaced.metadata == {"only": True}
    with pytest.raises(InvalidInput, match="not both"):
        mem.update(memory.id, metadata={}, merge_metadata={"a": 1})


def test_update_is_not_refused_because_a_recall_touched_the_memory(mem: Lethe) -> None:
    memory = mem.remember("User likes jazz")
    mem.recall("jazz", k=1)
    assert mem.update(memory.id, importance=0.9).importance == 0.9


def test_episode_view_dump_carries_the_note(mem: Lethe, db: str) -> None:
    a, b = mem.remember("User likes jazz"), mem.remember("The cat is called Miso")
    episode = mem.create_episode("Evening", [a.id, b.id])
    run_sql(db, "UPDATE memories SET status = 'forgotten' WHERE id = ?", (a.id,))
    dumped = mem.get_episode(episode.id).model_dump(mode="json")
    assert dumped["note"] == "1 memory no longer exists" and dumped["missing"] == 1


def test_lexical_terms_are_chosen_rarest_first_within_a_budget() -> None:
    from lethe.store.lexical import fts_query, query_tokens, select_terms

    tokens = query_tokens('The "user" AND sister NEAR(Lisbon)*')
    assert tokens == ["user", "sister", "near", "lisbon"]
    assert select_terms({"user": 49_000, "sister": 400, "lisbon": 200, "zzz": 0}) == [
        "lisbon",
        "sister",
    ]
    assert select_terms({"user": 49_000}) == []
    assert select_terms({"a": 3000, "b": 2500, "c": 100}) == ["c", "b"]
    assert fts_query(["it's", "x"]) == '"it\'s" OR "x"'
