"""Forgetting: plans, the precision guard, confirmation, protection, trash, restore, purge."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import InvalidInput, MemoryNotFound
from lethe.forget.plan import ForgetPlan
from tests.backends import is_postgres, snapshot
from tests.clocks import Clock

SEED_000 = [
    "User lives in San Francisco",
    "User visited San Francisco last year",
    "User loves California wine",
    "The Golden Gate Bridge is in the Bay Area",
]


def live_ids(mem: Lethe) -> set[str]:
    return {m.id for m in mem.list_memories(limit=1000).items}


def test_seed_000_query_deletes_nothing_and_an_id_needs_two_calls(mem: Lethe, db: str) -> None:
    ids = {text: mem.remember(text).id for text in SEED_000}
    before = snapshot(db)
    plan = mem.plan_forget(query="San Francisco")
    assert snapshot(db) == before, "planning never changes the store"
    top_two = [item.id for item in plan.items[:2]]
    assert top_two == [ids[SEED_000[0]], ids[SEED_000[1]]]
    assert all(item.similarity is not None for item in plan.items)
    assert plan.items[0].similarity > plan.items[1].similarity  # type: ignore[operator]

    first = mem.forget(ids[SEED_000[0]], session="chat-1")
    assert first.status == "pending" and live_ids(mem) == set(ids.values())
    assert "Please confirm" in first.message and SEED_000[0] in first.message
    second = mem.forget(ids[SEED_000[0]], session="chat-1")
    assert second.status == "executed"
    assert second.executed is not None and second.executed.executed == (ids[SEED_000[0]],)
    assert live_ids(mem) == {ids[t] for t in SEED_000[1:]}
    for text in SEED_000[1:]:
        assert mem.recall(text, k=1)[0].memory.id == ids[text]


def test_seed_001_forget_hides_links_episode_and_workspace_then_restore(
    tmp_path: Path, embedder: Embedder
) -> None:
    workspace = tmp_path / "ws"
    # A fixed clock: all three are written on one day, so they share one daily file.
    with Lethe.open(
        tmp_path / "m.db", embedder=embedder, workspace_dir=workspace, clock=Clock()
    ) as mem:
        a = mem.remember("Blue Envelope number 14 arrived today", importance=0.8)
        b = mem.remember("The post office is closed on Sundays")
        c = mem.remember("We keep envelopes in the second drawer")
        mem.link(a.id, b.id, kind="about")
        mem.link(a.id, c.id, kind="about")
        episode = mem.create_episode("Mail day", [a.id, b.id])
        day = workspace / "memory" / "2026-11-20.md"
        curated = workspace / "MEMORY.md"
        assert a.id in day.read_text() and a.id in curated.read_text()
        links_before = {m: mem.links(m) for m in (b.id, c.id)}

        done = mem.execute(mem.plan_forget([a.id]))
        assert done.executed == (a.id,)
        for other in (b.id, c.id):
            assert all(a.id not in (lk.a, lk.b) for lk in mem.links(other))
        view = mem.get_episode(episode.id)
        assert [m.id for m in view.members] == [b.id] and view.note == "1 memory no longer exists"
        assert a.id not in day.read_text()
        assert not curated.exists() or a.id not in curated.read_text()
        assert a.id not in {h.memory.id for h in mem.recall("Blue Envelope", k=10)}
        with pytest.raises(MemoryNotFound):
            mem.get(a.id)

        restored = mem.restore(a.id)
        assert restored.status == "active" and restored.content == a.content
        assert {m: mem.links(m) for m in (b.id, c.id)} == links_before
        assert [m.id for m in mem.get_episode(episode.id).members] == [a.id, b.id]
        assert a.id in day.read_text() and a.id in curated.read_text()
        assert mem.recall("Blue Envelope", k=1)[0].memory.id == a.id
        ops = [e.op for e in mem.audit(memory_id=a.id)]
        assert ops[-2:] == ["forget", "restore"]


PROTECTED = [
    ("caveat", {"layer": "caveat"}, "caveat-layer"),
    ("goal", {"layer": "goal"}, "goal-layer"),
    ("pinned", {"importance": 0.95}, "pinned"),
    ("system", {"system": True}, "system memory"),
]


@pytest.mark.parametrize(("name", "fields", "reason"), PROTECTED)
def test_protection_on_every_path(
    mem: Lethe, db: str, name: str, fields: dict[str, object], reason: str
) -> None:
    memory = mem.remember("Never run migrations on Friday afternoons", tags=["ops"], **fields)  # type: ignore[arg-type]
    before = snapshot(db)
    plans: list[ForgetPlan] = [
        mem.plan_forget([memory.id]),
        mem.plan_forget(query="Never run migrations on Friday afternoons"),
        mem.plan_forget(query="migrations", filters={"tags": ["ops"]}),
        mem.plan_forget(filters={"tags": ["ops"]}),
        mem.plan_purge([memory.id]),
    ]
    for plan in plans:
        [item] = plan.items
        assert item.action == "refuse" and reason in (item.protection or "")
        assert item.hint
        result = mem.execute(plan)
        assert result.executed == () and result.refused[0].id == memory.id
    for _ in range(2):
        answer = mem.forget(memory.id, session="s")
        assert answer.status == "refused" and reason in answer.message
    after = snapshot(db)
    assert after["memories"] == before["memories"] and after["links"] == before["links"]
    if name == "pinned":
        assert "lower its importance below 0.9" in (plans[0].items[0].hint or "")


def test_pending_confirmation_expires(cmem: Lethe, clock: Clock) -> None:
    memory = cmem.remember("User lives in San Francisco")
    assert cmem.forget(memory.id, session="s").status == "pending"
    clock.advance(minutes=5, seconds=1)
    again = cmem.forget(memory.id, session="s")
    assert again.status == "pending", "an expired pending is a new first call"
    assert memory.id in live_ids(cmem)
    assert [e.op for e in cmem.audit(op="confirmation_expired")] == ["confirmation_expired"]
    clock.advance(minutes=4)
    assert cmem.forget(memory.id, session="s").status == "executed"


def test_expired_plan_executes_nothing_and_comes_back_fresh(cmem: Lethe, clock: Clock) -> None:
    memory = cmem.remember("User lives in San Francisco")
    plan = cmem.plan_forget([memory.id])
    clock.advance(minutes=6)
    result = cmem.execute(plan)
    assert result.executed == () and result.fresh_plan is not None
    assert result.fresh_plan.targets[0].id == memory.id
    assert cmem.execute(result.fresh_plan).executed == (memory.id,)


def test_a_session_cannot_confirm_another_sessions_pending(mem: Lethe) -> None:
    memory = mem.remember("User lives in San Francisco")
    assert mem.forget(memory.id, session="alice").status == "pending"
    assert mem.forget(memory.id, session="bob").status == "pending"
    assert memory.id in live_ids(mem)
    pendings = {(p.session, p.request_count) for p in mem.store.pending_all()}
    assert pendings == {("alice", 1), ("bob", 1)}
    assert mem.forget(memory.id, session="bob").status == "executed"


def test_different_ids_are_tracked_separately(mem: Lethe) -> None:
    a, b = mem.remember("User likes jazz"), mem.remember("The cat is called Miso")
    assert mem.forget(a.id, session="s").status == "pending"
    second = mem.forget(b.id, session="s")
    assert second.status == "pending", "a different id starts its own pending"
    both = mem.forget([a.id, b.id], session="s")
    assert both.status == "executed" and set(both.executed.executed) == {a.id, b.id}  # type: ignore[union-attr]


def test_pending_survives_a_restart(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        memory = mem.remember("User lives in San Francisco")
        mem.forget(memory.id, session="s")
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.forget(memory.id, session="s").status == "executed"


def test_changed_since_preview_is_not_executed(mem: Lethe) -> None:
    memory = mem.remember("User lives in San Francisco")
    plan = mem.plan_forget([memory.id])
    mem.update(memory.id, content="User lives in Oakland")
    result = mem.execute(plan)
    assert result.executed == () and result.stale == (memory.id,)
    assert result.fresh_plan is not None
    assert result.fresh_plan.targets[0].preview == "User lives in Oakland"

    mem.forget(memory.id, session="s")
    mem.update(memory.id, content="User lives in Berkeley")
    answer = mem.forget(memory.id, session="s")
    assert answer.status == "pending" and answer.changed == (memory.id,)
    assert memory.id in live_ids(mem)
    assert mem.forget(memory.id, session="s").status == "executed"


def test_already_forgotten_target_is_reported_not_found(mem: Lethe) -> None:
    memory = mem.remember("User lives in San Francisco")
    plan = mem.plan_forget([memory.id])
    mem.execute(mem.plan_forget([memory.id]))
    result = mem.execute(plan)
    assert result.executed == () and result.not_found == (memory.id,)


def test_unknown_id_gets_suggestions(mem: Lethe) -> None:
    """Only ids within two edits are suggested, each with the start of its content; an id
    that shares six digits (but differs in the other six) is no suggestion."""
    memory = mem.remember("User lives in San Francisco")
    hexpart = memory.id[4:]
    two = "".join("0" if c != "0" else "1" for c in hexpart[-2:])
    answer = mem.forget(f"mem_{hexpart[:10]}{two}", session="s")
    assert answer.status == "not_found"
    [missing] = answer.not_found
    assert missing.message.startswith("Memory not found") and missing.suggestions == (memory.id,)
    assert missing.previews == ("User lives in San Francisco",) and "recall" in missing.message
    six = "".join("0" if c != "0" else "1" for c in hexpart[6:])
    [far] = mem.forget(f"mem_{hexpart[:6]}{six}", session="s").not_found
    assert far.suggestions == () and memory.id not in far.message


def test_an_id_in_the_trash_is_said_to_be_there(mem: Lethe) -> None:
    memory = mem.remember("User lives in San Francisco")
    mem.execute(mem.plan_forget([memory.id]))
    [missing] = mem.forget(memory.id, session="s").not_found
    assert missing.state == "trash" and missing.suggestions == ()
    assert "already in the trash" in missing.message and "restore" in missing.message


def test_ambiguous_query_deletes_nothing(mem: Lethe) -> None:
    mem.remember("User's sister lives in Boston")
    mem.remember("User's brother lives in Boston")
    plan = mem.plan_forget(query="sibling in Boston")
    assert [i.similarity is not None and i.similarity >= 0.6 for i in plan.items] == [True, True]
    assert plan.ambiguous and plan.targets == ()
    assert "choose by id" in plan.notes.lower()
    assert all(i.hint and "memory_id=" in i.hint for i in plan.skipped)


def test_query_deletes_the_winner_and_its_near_copies(mem: Lethe, embedder: Embedder) -> None:
    first = mem.remember("User's favourite colour is blue")
    copy = mem.remember("User's favourite colour is blue", allow_duplicate=True)
    other = mem.remember("User painted the kitchen green last spring")
    plan = mem.plan_forget(query="What is the user's favourite colour?")
    assert {i.id for i in plan.targets} == {first.id, copy.id}
    result = mem.execute(plan)
    assert set(result.executed) == {first.id, copy.id}
    assert live_ids(mem) == {other.id}


def test_filter_scope_widens_and_criteria_delete_all_matches(mem: Lethe) -> None:
    a = mem.remember("Episode one intro script", metadata={"sourcePath": "scripts/old/ep01.md"})
    b = mem.remember("Episode one outro jokes", metadata={"sourcePath": "scripts/old/ep01.md"})
    keep = mem.remember("Episode two intro script", metadata={"sourcePath": "scripts/ep02.md"})
    scoped = mem.plan_forget(
        query="episode one script", filters={"sourcePath": "scripts/old/ep01.md"}
    )
    assert [i.id for i in scoped.targets] == [a.id, b.id], "every candidate inside the filter"
    assert all(i.tier == "filter" for i in scoped.items)
    assert scoped.targets[0].warning is None
    assert "deleted only because it is inside your filter" in (scoped.targets[1].warning or "")
    bulk = mem.plan_forget(where=["@metadata.sourcePath = scripts/old/ep01.md"])
    assert {i.id for i in bulk.targets} == {a.id, b.id}
    mem.execute(bulk)
    assert live_ids(mem) == {keep.id}


def test_bulk_criteria_and_many_matches_warning(cmem: Lethe, clock: Clock) -> None:
    old = [
        cmem.remember(f"Scratch note number {n} about {w}", tags=["scratch"], allow_duplicate=True)
        for n, w in enumerate(
            [
                "apples",
                "rivers",
                "violins",
                "glaciers",
                "peppers",
                "tigers",
                "lamps",
                "kites",
                "maps",
                "drums",
                "coins",
            ]
        )
    ]
    clock.advance(days=40)
    fresh = cmem.remember("Scratch note made today", tags=["scratch"])
    plan = cmem.plan_forget(filters={"tags": ["scratch"], "until": clock.now - timedelta(days=30)})
    assert {i.id for i in plan.targets} == {m.id for m in old}
    assert plan.warnings and "11 memories match" in plan.warnings[0]
    cmem.recall("Scratch note number 3 about glaciers", k=1)
    stale = cmem.plan_forget(filters={"not_accessed_since": clock.now - timedelta(days=1)})
    recalled = cmem.recall("Scratch note number 3 about glaciers", k=1, touch=False)[0].memory.id
    assert {i.id for i in stale.targets} == {m.id for m in old} - {recalled}
    assert fresh.id not in {i.id for i in stale.targets}, "never recalled counts from creation"
    with pytest.raises(InvalidInput, match="nothing to plan"):
        cmem.plan_forget()
    whole = cmem.plan_forget(whole_namespace=True)
    assert len(whole.targets) == 12


def test_trash_retention_and_maintenance(cmem: Lethe, clock: Clock) -> None:
    memory = cmem.remember("User lives in San Francisco")
    cmem.execute(cmem.plan_forget([memory.id], reason="user asked"))
    [item], total = cmem.list_trash()
    assert total == 1 and item.memory.forgotten_by == "user"
    assert item.memory.forget_reason == "user asked"
    assert item.purge_after == (clock.now + timedelta(days=30)).isoformat()
    clock.advance(days=29)
    assert cmem.maintain().expired == ()
    clock.advance(days=2)
    report = cmem.maintain()
    assert report.expired == (memory.id,)
    assert cmem.list_trash()[1] == 0
    assert cmem.store.get(memory.id) is None
    assert [e.op for e in cmem.audit(memory_id=memory.id)] == ["remember", "forget", "purge"]


def test_failure_midway_changes_nothing(
    mem: Lethe, db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b = mem.remember("User likes jazz"), mem.remember("The cat is called Miso")
    plan = mem.plan_forget([a.id, b.id])
    before = snapshot(db)
    from lethe.store.postgres_tx import PostgresTx
    from lethe.store.sqlite_tx import SQLiteTx

    tx_class: type[Any] = PostgresTx if is_postgres(db) else SQLiteTx
    calls = {"n": 0}
    real = tx_class.append_event

    def failing(self: Any, **kwargs: object) -> int:
        calls["n"] += 1
        if calls["n"] == 2:
            raise RuntimeError("disk on fire")
        return int(real(self, **kwargs))

    monkeypatch.setattr(tx_class, "append_event", failing)
    with pytest.raises(RuntimeError):
        mem.execute(plan)
    monkeypatch.undo()
    assert snapshot(db) == before
    assert live_ids(mem) == {a.id, b.id}
    assert {h.memory.id for h in mem.recall("jazz cat", k=5)} == {a.id, b.id}


def test_purge_erases_every_copy_of_the_content(mem: Lethe, db: str) -> None:
    secret = "Zanzibar-Quokka-7731 is the user's childhood nickname"
    target = mem.remember(secret, tags=["Zanzibar-Quokka-7731"], metadata={"note": "Quokka7731x"})
    other = mem.remember("The user's favourite fruit is mango")
    mem.link(target.id, other.id)
    episode = mem.create_episode("Childhood", [target.id, other.id])
    mem.execute(mem.plan_forget([target.id], reason="Zanzibar-Quokka-7731 request"))
    mem.update(other.id, importance=0.6)
    plan = mem.plan_purge([target.id])
    assert plan.targets[0].id == target.id
    result = mem.execute(plan)
    assert result.executed == (target.id,)

    assert mem.store.get(target.id) is None
    assert mem.links(other.id) == []
    assert mem.get_episode(episode.id).missing == 1
    events = mem.audit(memory_id=target.id)
    assert [e.op for e in events] == ["remember", "link", "forget", "purge"]
    for event in events:
        assert event.content_sha256 in (None, target.content_sha256)
        assert "Zanzibar" not in str(event.details) and not (event.reason or "").count("Zanzibar")

    # Distinctive words only: a 4-digit needle such as b"7731" also turns up, about once in
    # a hundred runs, inside a random hex id or a binary page of the file.
    needles = (b"Zanzibar", b"zanzibar", b"Quokka", b"quokka", b"Quokka7731x")
    if is_postgres(db):
        # No row of any table holds it. (Dead tuples wait for VACUUM, as in any PostgreSQL
        # deletion; docs/deploy.md says so.)
        rows = str(snapshot(db)).encode()
        for needle in needles:
            assert needle not in rows, f"{needle!r} survives in a row"
        return
    db_path = Path(db)
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("VACUUM")
    conn.close()
    for path in db_path.parent.iterdir():
        if path.name.startswith(db_path.name):
            data = path.read_bytes()
            for needle in needles:
                assert needle not in data, f"{needle!r} survives in {path.name}"


def test_deletion_report_counts(mem: Lethe) -> None:
    a, b = mem.remember("User likes jazz"), mem.remember("The cat is called Miso", namespace="pets")
    mem.execute(mem.plan_forget([a.id]))
    mem.restore(a.id)
    mem.forget(b.id, session="chat", namespace="pets")
    mem.forget(b.id, session="chat", namespace="pets")
    mem.decline([a.id], session="chat")
    report = mem.deletion_report()
    assert report.by_op == {"forget": 2, "restore": 1, "forget_declined": 1}
    assert report.by_namespace == {"default": 3, "pets": 1}
    assert report.by_actor == {"user": 2, "chat": 2}
    assert sum(report.by_day.values()) == 4


def test_restore_needs_a_trashed_memory(mem: Lethe) -> None:
    memory = mem.remember("User likes jazz")
    with pytest.raises(MemoryNotFound, match="not in the trash"):
        mem.restore(memory.id)
    with pytest.raises(MemoryNotFound, match="does not exist"):
        mem.restore("mem_0123456789ab")


def test_plans_and_results_follow_the_published_schema(mem: Lethe) -> None:
    import jsonschema

    from lethe.forget.plan import seed_json
    from lethe.forget.results import result_json
    from lethe.schemas import load

    validator = jsonschema.Draft202012Validator(load("forget-response"))
    validator.check_schema(load("forget-response"))
    ids = [mem.remember(text).id for text in SEED_000]
    mem.remember("Never drink and drive", layer="caveat")
    plans = [
        mem.plan_forget(query="San Francisco"),
        mem.plan_forget(query="Never drink and drive"),
        mem.plan_forget(query="quantum chromodynamics lecture"),
        mem.plan_forget([ids[2], "mem_0123456789ab"]),
        mem.plan_forget(filters={"agent": "user"}),
        mem.plan_purge([ids[3]]),
    ]
    for plan in plans:
        validator.validate(seed_json(plan))
    mem.update(ids[2], content="User loves Portuguese wine")
    for plan in plans:
        validator.validate(result_json(mem.execute(plan)))
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"status": "ok", "index": "default", "notes": "", "plan": [{"id": "x"}]})


def test_purge_of_old_trash_respects_the_namespace(cmem: Lethe, clock: Clock) -> None:
    a = cmem.remember("User likes jazz")
    b = cmem.remember("The cat is called Miso", namespace="pets")
    cmem.execute(cmem.plan_forget([a.id]))
    cmem.execute(cmem.plan_forget([b.id], filters={"namespace": "pets"}))
    clock.advance(days=2)
    pets = cmem.plan_purge(forgotten_before=clock.now - timedelta(days=1), namespace="pets")
    assert [i.id for i in pets.targets] == [b.id] and pets.namespace == "pets"
    everywhere = cmem.plan_purge(forgotten_before=clock.now - timedelta(days=1))
    assert {i.id for i in everywhere.targets} == {a.id, b.id} and everywhere.namespace == "*"
    cmem.execute(pets)
    assert [t.memory.id for t in cmem.list_trash()[0]] == [a.id]


def test_unknown_ids_in_a_plan_are_reported_with_suggestions(mem: Lethe) -> None:
    known = mem.remember("User likes jazz")
    typo = known.id[:14] + ("00" if known.id[14:] != "00" else "11")
    plan = mem.plan_forget([known.id, typo])
    assert plan.not_found == (typo,)
    assert f"Memory not found: {typo}" in plan.notes and known.id in plan.notes
    result = mem.execute(plan)
    assert result.executed == (known.id,) and result.not_found == (typo,)
