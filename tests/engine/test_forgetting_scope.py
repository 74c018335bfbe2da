"""Forgetting within bounds: what widens a query deletion, namespaces as an isolation boundary,
suggestions for unknown ids, request counting, retention and the report's namespaces."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from tests.engine.test_forgetting import SEED_000, Clock, live_ids


@pytest.fixture
def seeded(mem: Lethe) -> dict[str, str]:
    """Seed 000's memories; the first three come from one source file."""
    ids = {}
    for n, text in enumerate(SEED_000):
        metadata = {"source": "notes.md"} if n < 3 else {"source": "other.md"}
        ids[text] = mem.remember(text, metadata=metadata).id
    return ids


def test_metadata_filter_widens_a_query_deletion(mem: Lethe, seeded: dict[str, str]) -> None:
    plan = mem.plan_forget(query="San Francisco", filters={"source": "notes.md"})
    assert not plan.ambiguous
    targets = {i.id for i in plan.targets}
    assert seeded[SEED_000[0]] in targets and seeded[SEED_000[1]] in targets
    assert seeded[SEED_000[3]] not in targets, "outside the filter: never a target"
    assert seeded[SEED_000[1]] in targets, "the runner-up a query alone would keep"
    assert all(i.tier == "filter" and (i.similarity or 0) >= 0.4 for i in plan.targets)
    for item in plan.targets:
        assert (item.warning is not None) == ((item.similarity or 0) < 0.5)
    mem.execute(plan)
    assert seeded[SEED_000[3]] in live_ids(mem)
    assert not targets & live_ids(mem)


@pytest.mark.parametrize(
    "filters",
    [
        {"agent": "user"},
        {"layer": "episodic"},
        {"since": "2000-01-01T00:00:00+00:00"},
        {"source": ""},
        {"source": None, "tags": []},
    ],
    ids=["agent", "layer", "since", "empty-metadata", "empty-values"],
)
def test_other_filters_do_not_widen_a_query_deletion(
    mem: Lethe, seeded: dict[str, str], filters: dict[str, object]
) -> None:
    """Every memory has agent `user`: a filter on it must not turn weak matches into targets.
    The plan must be exactly the query-only plan: the clear winner at most."""
    baseline = mem.plan_forget(query="San Francisco")
    assert seeded[SEED_000[1]] not in {i.id for i in baseline.targets}
    plan = mem.plan_forget(query="San Francisco", filters=filters)
    assert [(i.id, i.action) for i in plan.items] == [(i.id, i.action) for i in baseline.items]
    assert len(plan.targets) <= 1 and all(i.tier == "query" for i in plan.targets)
    mem.execute(plan)
    assert seeded[SEED_000[1]] in live_ids(mem)


def test_the_margin_is_configurable(db: str, embedder: Embedder) -> None:
    request = "forget that I live in San Francisco"
    with Lethe.open(db, embedder=embedder) as mem:
        home = mem.remember("User lives in San Francisco").id
        mem.remember("User visited San Francisco last year")
        default = mem.plan_forget(query=request)
    assert [i.id for i in default.targets] == [home]
    with Lethe.open(db, embedder=embedder, forget_margin=1.0) as mem:
        wide = mem.plan_forget(query=request)
    assert wide.ambiguous and wide.targets == ()
    assert "ambiguous" in wide.notes.lower()
    assert any("less than the margin 1.0" in i.reason for i in wide.items)


def test_ids_from_another_namespace_are_not_found(mem: Lethe) -> None:
    cat = mem.remember("The cat is called Miso", namespace="pets")
    plan = mem.plan_forget([cat.id])
    assert plan.targets == () and plan.not_found == (cat.id,)
    first = mem.forget(cat.id, session="chat")
    assert first.status != "pending" and [n.id for n in first.not_found] == [cat.id]
    assert mem.forget(cat.id, session="chat").executed is None
    assert cat.id in live_ids_in(mem, "pets")
    inside = mem.plan_forget([cat.id], filters={"namespace": "pets"})
    assert [i.id for i in inside.targets] == [cat.id] and inside.namespace == "pets"
    mem.forget(cat.id, session="chat", namespace="pets")
    done = mem.forget(cat.id, session="chat", namespace="pets")
    assert done.status == "executed" and cat.id not in live_ids_in(mem, "pets")


def live_ids_in(mem: Lethe, namespace: str) -> set[str]:
    return {m.id for m in mem.list_memories({"namespace": namespace}, limit=1000).items}


def typo_at(memory_id: str, position: int) -> str:
    chars = list(memory_id)
    chars[position] = "0" if chars[position] != "0" else "1"
    return "".join(chars)


@pytest.mark.parametrize("position", [4, 9, 15], ids=["first-hex", "middle", "last"])
def test_unknown_id_suggests_the_closest_ids(mem: Lethe, position: int) -> None:
    known = mem.remember("User likes jazz")
    for text in ("User likes tea", "User owns a bicycle", "User speaks Portuguese"):
        mem.remember(text)
    typo = typo_at(known.id, position)
    confirmation = mem.forget(typo, session="chat")
    [missing] = confirmation.not_found
    assert missing.id == typo and missing.suggestions[0] == known.id
    assert "Memory not found" in missing.message and known.id in missing.message


def test_suggestions_stay_inside_the_namespace(mem: Lethe) -> None:
    secret = mem.remember("The launch code is in the blue folder", namespace="private")
    mine = mem.remember("User likes jazz")
    typo = typo_at(secret.id, 15)
    [missing] = mem.forget(typo, session="chat").not_found
    assert secret.id not in missing.suggestions and secret.id not in missing.message
    assert missing.suggestions == () and missing.previews == ()
    [own] = mem.forget(typo_at(mine.id, 15), session="chat").not_found
    assert own.suggestions == (mine.id,), "an id of the caller's own namespace is suggested"
    [there] = mem.forget(typo, session="chat", namespace="private").not_found
    assert there.suggestions == (secret.id,) and there.previews == (secret.preview(60),)


def test_requests_are_counted(db: str, embedder: Embedder) -> None:
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        note = mem.remember("User likes jazz")
        mem.forget(note.id, session="chat")
        [pending] = mem.store.pending_all("chat")
        assert pending.request_count == 1
        mem.update(note.id, content="User likes cool jazz")
        changed = mem.forget(note.id, session="chat")
        assert changed.changed == (note.id,) and changed.executed is None
        [pending] = mem.store.pending_all("chat")
        assert pending.request_count == 2 and pending.first_requested_at == clock.now
        clock.advance(seconds=10)
        done = mem.forget(note.id, session="chat")
        assert done.status == "executed"
        [event] = [e for e in mem.audit(op="forget")]
        assert event.details["requests"] == 3 and event.details["session"] == "chat"
        assert mem.store.pending_all("chat") == []


def test_expired_confirmation_is_reported_under_its_namespace(db: str, embedder: Embedder) -> None:
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        cat = mem.remember("The cat is called Miso", namespace="pets")
        mem.forget(cat.id, session="chat", namespace="pets")
        clock.advance(minutes=6)
        again = mem.forget(cat.id, session="chat", namespace="pets")
        assert again.status == "pending", "an expired confirmation starts over"
        [expired] = mem.audit(op="confirmation_expired")
        assert expired.namespace == "pets" and expired.details["requests"] == 1
        report = mem.deletion_report(namespace="pets")
        assert report.by_op == {"confirmation_expired": 1}


def test_retention_none_keeps_the_trash_forever(db: str, embedder: Embedder) -> None:
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock, trash_retention_days=None) as mem:
        note = mem.remember("User likes jazz")
        mem.execute(mem.plan_forget([note.id]))
        [entry], _ = mem.list_trash()
        assert entry.purge_after is None
        clock.advance(days=3650)
        report = mem.maintain()
        assert report.expired == ()
        assert [t.memory.id for t in mem.list_trash()[0]] == [note.id]
        assert mem.restore(note.id).id == note.id


def test_purge_removes_workspace_lines(tmp_path: Path, embedder: Embedder) -> None:
    workspace = tmp_path / "ws"
    # A fixed clock (2026-11-20 12:00 UTC): the daily file's name cannot change at midnight.
    with Lethe.open(
        tmp_path / "m.db", embedder=embedder, workspace_dir=workspace, clock=Clock()
    ) as mem:
        gone = mem.remember("User's passport number is X1234567", importance=0.8)
        kept = mem.remember("User likes jazz", importance=0.8)
        daily, curated = workspace / "memory" / "2026-11-20.md", workspace / "MEMORY.md"
        assert gone.id in daily.read_text() and gone.id in curated.read_text()
        mem.execute(mem.plan_purge([gone.id]))
        for path in (daily, curated):
            text = path.read_text()
            assert gone.id not in text and "X1234567" not in text
            assert kept.id in text


def test_forget_then_restore_keeps_the_others_lines(tmp_path: Path, embedder: Embedder) -> None:
    workspace = tmp_path / "ws"
    with Lethe.open(
        tmp_path / "m.db", embedder=embedder, workspace_dir=workspace, clock=Clock()
    ) as mem:
        a, b, c = (
            mem.remember(t, importance=0.8)
            for t in ("User likes jazz", "User owns a bicycle", "User speaks Portuguese")
        )
        daily = workspace / "memory" / "2026-11-20.md"
        mem.execute(mem.plan_forget([a.id]))
        text = daily.read_text()
        assert a.id not in text and b.id in text and c.id in text
        mem.restore(a.id)
        assert all(m.id in daily.read_text() for m in (a, b, c))


@pytest.fixture
def ns_mem(db: str, embedder: Embedder) -> Iterator[Lethe]:
    with Lethe.open(db, embedder=embedder) as lethe:
        yield lethe


def test_decline_only_touches_its_namespace(ns_mem: Lethe) -> None:
    cat = ns_mem.remember("The cat is called Miso", namespace="pets")
    ns_mem.forget(cat.id, session="chat", namespace="pets")
    ns_mem.decline([cat.id], session="chat")  # default namespace: the cat is not there
    [declined] = ns_mem.audit(op="forget_declined")
    assert declined.memory_id is None and declined.namespace is None
    started = datetime.now(UTC)
    ns_mem.decline([cat.id], session="chat", namespace="pets")
    ended = datetime.now(UTC)
    events = ns_mem.audit(op="forget_declined")
    assert [e.memory_id for e in events if e.namespace == "pets"] == [cat.id]
    # Stamped by the real clock during the call (a timestamp round-trips within a microsecond).
    slack = timedelta(milliseconds=1)
    assert started - slack <= events[-1].at <= ended + slack


def test_every_id_operation_can_be_confined_to_a_namespace(mem: Lethe) -> None:
    from lethe.errors import EpisodeNotFound, MemoryNotFound

    cat = mem.remember("The cat is called Miso", namespace="pets")
    dog = mem.remember("The dog is called Rex", namespace="pets")
    episode = mem.create_episode("Pets", [cat.id], namespace="pets")
    calls = [
        lambda ns: mem.get(cat.id, namespace=ns),
        lambda ns: mem.update(cat.id, importance=0.6, namespace=ns),
        lambda ns: mem.link(cat.id, dog.id, namespace=ns),
        lambda ns: mem.links(cat.id, namespace=ns),
        lambda ns: mem.get_episode(episode.id, namespace=ns),
    ]
    for call in calls:
        with pytest.raises((MemoryNotFound, EpisodeNotFound)):
            call("default")
        call("pets")
        call(None)
    mem.execute(mem.plan_forget([cat.id], filters={"namespace": "pets"}))
    with pytest.raises(MemoryNotFound):
        mem.restore(cat.id, namespace="default")
    assert mem.restore(cat.id, namespace="pets").id == cat.id


@pytest.mark.parametrize(
    "where", [["agent = user"], ["importance >= 0"], ["created_at > 0"]], ids=str
)
def test_where_conditions_on_columns_do_not_widen(
    mem: Lethe, seeded: dict[str, str], where: list[str]
) -> None:
    baseline = mem.plan_forget(query="San Francisco")
    plan = mem.plan_forget(query="San Francisco", where=where)
    assert [(i.id, i.action) for i in plan.items] == [(i.id, i.action) for i in baseline.items]


def test_a_metadata_where_condition_widens(mem: Lethe, seeded: dict[str, str]) -> None:
    plan = mem.plan_forget(query="San Francisco", where=['@metadata.source = "notes.md"'])
    assert seeded[SEED_000[1]] in {i.id for i in plan.targets}
