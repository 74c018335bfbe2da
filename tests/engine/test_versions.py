"""Versions: an update never destroys. History, revert, purge of every version, export and
import of versions, bad input — on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import ChangedSincePlanned, InvalidInput, MemoryNotFound, VersionNotFound
from tests.backends import run_sql, snapshot
from tests.clocks import Clock


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tmem(db: str, embedder: Embedder, clock: Clock) -> Lethe:
    with Lethe.open(db, embedder=embedder, clock=clock) as lethe:
        yield lethe  # type: ignore[misc]


def test_update_keeps_the_old_state_and_history_says_who_when_why(
    tmem: Lethe, clock: Clock
) -> None:
    m = tmem.remember("Alice works at Acme", agent="bob", tags=["work"], importance=0.4)
    clock.advance(minutes=1)
    tmem.update(m.id, content="Alice works at Globex", actor="carol", reason="she moved")
    clock.advance(minutes=1)
    tmem.update(m.id, tags=["work", "alice"], importance=0.6, metadata={"since": 2026})
    current = tmem.get(m.id)
    assert current.version == 3 and current.content == "Alice works at Globex"
    history = tmem.history(m.id)
    assert [v.version for v in history] == [3, 2, 1], "newest first"
    assert [v.current for v in history] == [True, False, False]
    v3, v2, v1 = history
    assert (v1.content, v1.tags, v1.importance, v1.op, v1.actor) == (
        "Alice works at Acme",
        ("work",),
        0.4,
        "remember",
        "bob",
    )
    assert (v2.content, v2.actor, v2.reason, v2.op) == (
        "Alice works at Globex",
        "carol",
        "she moved",
        "update",
    )
    assert v1.valid_until == v2.valid_from == clock.now - timedelta(minutes=1)
    assert v2.valid_until == v3.valid_from == clock.now and v3.valid_until is None
    assert (v3.tags, v3.metadata, v3.importance) == (("work", "alice"), {"since": 2026}, 0.6)
    update_events = [e for e in tmem.audit(memory_id=m.id) if e.op == "update"]
    assert [e.details["version"] for e in update_events] == [2, 3]
    assert update_events[0].details["fields"] == ["content"]


def test_versions_are_never_read_back_as_memories(tmem: Lethe, db: str) -> None:
    m = tmem.remember("The door code is 4471")
    tmem.update(m.id, content="The garden shed is painted green")
    hits = tmem.recall("door code 4471", k=10)
    assert all("4471" not in h.memory.content for h in hits)
    assert [x.content for x in tmem.list_memories().items] == ["The garden shed is painted green"]
    assert "4471" not in json.dumps([h.memory.content for h in tmem.recall("4471", k=5)])
    assert tmem.consolidate(threshold=0.5).pairs == ()
    assert tmem.store.lexical_search("4471", tmem._core.filters(None, ()), 10) == []


def test_revert_makes_the_old_state_current_as_a_new_version(tmem: Lethe) -> None:
    m = tmem.remember("User's favourite colour is blue", tags=["prefs"])
    tmem.update(m.id, content="User's favourite colour is red", tags=[])
    back = tmem.revert(m.id, 1, actor="ui", reason="the change was a mistake")
    assert (back.version, back.content, back.tags) == (
        3,
        "User's favourite colour is blue",
        ("prefs",),
    )
    history = tmem.history(m.id)
    assert [v.content for v in history] == [
        "User's favourite colour is blue",
        "User's favourite colour is red",
        "User's favourite colour is blue",
    ]
    assert (history[0].op, history[0].actor, history[0].reason) == (
        "revert",
        "ui",
        "the change was a mistake",
    )
    assert tmem.recall("favourite colour", k=1)[0].memory.content.endswith("blue")
    event = tmem.audit(memory_id=m.id, op="revert")[0]
    assert event.details["reverted_to"] == 1 and event.details["version"] == 3
    same = tmem.plan_revert(m.id, 3)
    assert not same.changed, "reverting to the current values changes nothing"


def test_bad_reverts_are_clear_errors_and_change_nothing(tmem: Lethe, db: str) -> None:
    m = tmem.remember("Tea at four", namespace="home")
    tmem.update(m.id, content="Tea at five", namespace="home")
    gone = tmem.remember("Lunch at noon", namespace="home")
    tmem.update(gone.id, content="Lunch at one", namespace="home")
    tmem.execute(tmem.plan_forget([gone.id], filters={"namespace": "home"}))
    before = snapshot(db)
    with pytest.raises(VersionNotFound, match="no version 7") as caught:
        tmem.revert(m.id, 7)
    assert "1 to 2" in (caught.value.hint or "")
    for bad in (0, -1, "2", 2.0, True):
        with pytest.raises(InvalidInput, match="version"):
            tmem.revert(m.id, bad)  # type: ignore[arg-type]
    with pytest.raises(MemoryNotFound, match="in the trash") as trashed:
        tmem.revert(gone.id, 1)
    assert "restore" in (trashed.value.hint or "")
    with pytest.raises(MemoryNotFound):
        tmem.revert(m.id, 1, namespace="work"), "a version of another namespace"
    with pytest.raises(MemoryNotFound):
        tmem.history(m.id, namespace="work")
    with pytest.raises(MemoryNotFound):
        tmem.revert("mem_000000000000", 1)
    with pytest.raises(InvalidInput, match="malformed"):
        tmem.history("mem_x")
    with pytest.raises(InvalidInput, match="metadata"):
        tmem.update(m.id, metadata={"a": 1}, merge_metadata={"b": 2})
    assert snapshot(db) == before


def test_a_plan_made_before_another_change_never_applies(tmem: Lethe, db: str) -> None:
    m = tmem.remember("Meeting room is B12")
    plan = tmem.plan_update(m.id, content="Meeting room is C3")
    tmem.update(m.id, importance=0.7)
    before = snapshot(db)
    with pytest.raises(InvalidInput, match="changed since"):
        tmem.execute(plan)
    assert snapshot(db) == before


def test_a_failed_update_leaves_no_version_behind(tmem: Lethe, db: str) -> None:
    m = tmem.remember("Parking spot 17")
    before = snapshot(db)
    with pytest.raises(InvalidInput):
        tmem.update(m.id, content="  ")
    with pytest.raises(InvalidInput):
        tmem.update(m.id, importance=3)
    assert snapshot(db) == before
    assert tmem.update(m.id, importance=0.5) == tmem.get(m.id), "no change, no version"
    assert snapshot(db) == before


def test_purge_erases_every_version(tmem: Lethe, db: str) -> None:
    m = tmem.remember("My OTP backup code is 481920")
    tmem.update(m.id, content="My OTP backup code is 552211")
    tmem.update(m.id, content="Backup codes are in the drawer")
    keep = tmem.remember("Unrelated note about the garden")
    tmem.update(keep.id, content="Unrelated note about the garden shed")
    assert len(tmem.history(m.id)) == 3
    result = tmem.execute(tmem.plan_purge([m.id]))
    assert result.executed == (m.id,)
    rows = run_sql(db, "SELECT memory_id FROM memory_versions")
    assert [r[0] for r in rows] == [keep.id]
    assert tmem.store.versions(m.id) == []
    text = json.dumps([e.model_dump(mode="json") for e in tmem.audit(memory_id=m.id)])
    assert "481920" not in text and "552211" not in text


def test_purged_versions_leave_no_bytes_in_the_sqlite_files(
    db_path: Path, embedder: Embedder
) -> None:
    with Lethe.open(db_path, embedder=embedder) as mem:
        m = mem.remember("Alarm code zebra-quartz-7781")
        mem.update(m.id, content="Alarm code is in the password manager")
        mem.execute(mem.plan_purge([m.id]))
    for path in db_path.parent.iterdir():
        if path.is_file():
            assert b"zebra-quartz-7781" not in path.read_bytes(), path


def test_export_and_import_carry_versions(tmem: Lethe, tmp_path: Path, embedder: Embedder) -> None:
    m = tmem.remember("Alice works at Acme", agent="bob")
    tmem.update(m.id, content="Alice works at Globex", actor="carol", reason="moved")
    tmem.revert(m.id, 1, actor="dave")
    plain = tmem.remember("The cat is called Miso")
    records = [json.loads(json.dumps(r)) for r in tmem.export_records()]
    assert [r["type"] for r in records[:4]] == ["memory", "version", "version", "memory"]
    with Lethe.open(tmp_path / "copy.db", embedder=embedder) as target:
        report = target.import_records(records)
        assert (report.imported, report.versions) == (2, 2)
        assert target.history(m.id) == tmem.history(m.id)
        assert target.get(m.id).version == 3 and target.get(plain.id).version == 1
        again = target.import_records(records)
        assert (again.imported, again.versions) == (0, 0), "a re-import adds nothing"
        assert len(target.history(m.id)) == 3
        # the imported history still reverts
        assert target.revert(m.id, 2).content == "Alice works at Globex"


def test_import_refuses_a_bad_version_record_and_writes_nothing(tmem: Lethe, db: str) -> None:
    good = {"type": "memory", "id": "mem_aaaaaaaaaaaa", "content": "Now", "version": 2}
    base = {
        "type": "version",
        "memory_id": "mem_aaaaaaaaaaaa",
        "version": 1,
        "agent": "user",
        "content": "Before",
        "layer": "episodic",
        "importance": 0.5,
        "valid_from": "2026-01-01T00:00:00+00:00",
        "valid_until": "2026-02-01T00:00:00+00:00",
        "actor": "user",
        "op": "remember",
    }
    before = snapshot(db)
    for bad, message in [
        ({**base, "layer": "nonsense"}, "line 2"),
        ({**base, "valid_until": "yesterday"}, "ISO-8601"),
        ({**base, "memory_id": "mem_zz"}, "malformed"),
        ({**base, "extra": 1}, "unknown version field"),
        ({k: v for k, v in base.items() if k != "valid_until"}, "valid_until"),
        ({**base, "valid_until": "2025-01-01T00:00:00+00:00"}, "before"),
    ]:
        with pytest.raises(InvalidInput, match=message):
            tmem.import_records([good, bad])
    assert snapshot(db) == before
    report = tmem.import_records([good, base])
    assert report.versions == 1
    assert [v.content for v in tmem.history("mem_aaaaaaaaaaaa")] == ["Now", "Before"]


def test_a_version_7_sqlite_file_is_migrated_with_its_memories_at_version_1(
    db_path: Path, embedder: Embedder
) -> None:
    from lethe.store.sqlite_schema import MIGRATIONS

    conn = sqlite3.connect(db_path)
    for number in range(1, 8):
        conn.executescript(MIGRATIONS[number])
    conn.executemany(
        "INSERT INTO lethe_meta (key, value) VALUES (?, ?)",
        [("application", "lethe"), ("embedder", embedder.name), ("dim", str(embedder.dim))],
    )
    vector = embedder.embed(["User lives in San Francisco"])[0]
    conn.execute(
        """INSERT INTO memories (id, namespace, agent, content, content_sha256, layer,
               importance, created_at, updated_at, embedding)
           VALUES ('mem_aaaaaaaaaaaa', 'default', 'ann', 'User lives in San Francisco',
               'x', 'caveat', 0.5, 1.0, 1.0, ?)""",
        (vector.tobytes(),),
    )
    conn.execute(
        """INSERT INTO pending_confirmations VALUES
           ('s1', 'mem_aaaaaaaaaaaa', 'forget', 'x', 1.0, 1.0, 1, 9e9)"""
    )
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    with Lethe.open(db_path, embedder=embedder) as mem:
        [v1] = mem.history("mem_aaaaaaaaaaaa")
        assert (v1.version, v1.actor, v1.op, v1.current) == (1, "ann", "remember", True)
        [pending] = mem.pending_confirmations()
        assert pending.session == "s1", "pending confirmations survive the table's rebuild"
        plan = mem.plan_update("mem_aaaaaaaaaaaa", layer="semantic")
        assert plan.needs_confirmation
        mem.execute(plan)
        assert [v.layer for v in mem.history("mem_aaaaaaaaaaaa")] == ["semantic", "caveat"]


def test_versions_stay_out_of_the_workspace_and_the_working_context(
    db: str, tmp_path: Path, embedder: Embedder
) -> None:
    workspace = tmp_path / "ws"
    with Lethe.open(db, embedder=embedder, workspace_dir=workspace) as mem:
        m = mem.remember("Gate code is 7391", agent="claude", importance=0.8)
        mem.attend([m.id], agent="claude")
        mem.update(m.id, content="Gate code changed; ask the concierge")
        files = "".join(p.read_text() for p in workspace.rglob("*.md"))
        assert "Gate code changed" in files and "7391" not in files
        assert "7391" not in mem.context("claude").text
        mem.revert(m.id, 1)
        files = "".join(p.read_text() for p in workspace.rglob("*.md"))
        assert "7391" in files and "ask the concierge" not in files


@pytest.mark.parametrize(
    ("field", "old", "new"),
    [
        ("category", "health", "work"),
        ("category", "", "work"),
        ("private", False, True),
        ("private", True, False),
    ],
    ids=["category-changed", "category-set", "private-on", "private-off"],
)
def test_a_category_or_private_change_alone_keeps_a_version_and_reverts(
    tmem: Lethe, db: str, field: str, old: Any, new: Any
) -> None:
    """Category and privacy are versioned like the text: a change of either alone keeps the
    old value as a version, and a revert brings it back."""
    fields: dict[str, Any] = {"category": "health", "private": False, field: old}
    m = tmem.remember("The physiotherapy session is on Monday mornings", **fields)
    assert getattr(m, field) == old
    changed = tmem.update(m.id, **{field: new}, actor="carol")
    assert (changed.version, getattr(changed, field)) == (2, new)
    assert getattr(tmem.get(m.id), field) == new
    v2, v1 = tmem.history(m.id)
    assert (getattr(v1, field), getattr(v2, field)) == (old, new)
    others = ("content", "layer", "tags", "metadata", "importance", "agent")
    others += ("private",) if field == "category" else ("category",)
    assert [getattr(v1, f) for f in others] == [getattr(v2, f) for f in others]
    [event] = tmem.audit(memory_id=m.id, op="update")
    assert event.details["fields"] == [field] and event.actor == "carol"
    before = run_sql(db, "SELECT count(*) FROM memory_versions")
    back = tmem.revert(m.id, 1)
    assert (back.version, getattr(back, field)) == (3, old)
    assert getattr(tmem.get(m.id), field) == old
    assert [getattr(v, field) for v in tmem.history(m.id)] == [old, new, old]
    assert run_sql(db, "SELECT count(*) FROM memory_versions") == [(before[0][0] + 1,)]


def test_a_change_landing_between_the_plan_and_its_write_applies_nothing(
    db: str, mem: Lethe, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another writer changes the memory after the plan was checked against it but before
    the write's transaction opens: inside the transaction the state is checked again, and
    nothing of the plan is written (it would have overwritten the other writer's change)."""
    memory = mem.remember("The dentist is on Tuesday at 3pm.")
    plan = mem.plan_update(memory.id, content="The dentist is on Wednesday at 3pm.")
    opened = mem.store.transaction

    def another_writer_first() -> Any:
        monkeypatch.setattr(mem.store, "transaction", opened)
        with Lethe.open(db, embedder=embedder) as other:
            other.update(memory.id, content="The dentist is on Thursday at 3pm.", actor="bob")
        return opened()

    monkeypatch.setattr(mem.store, "transaction", another_writer_first)
    with pytest.raises(ChangedSincePlanned, match="changed while this change was applied"):
        mem.execute(plan)
    now = mem.get(memory.id)
    assert now.content == "The dentist is on Thursday at 3pm." and now.version == 2
    assert [v.content for v in mem.history(memory.id)] == [
        "The dentist is on Thursday at 3pm.",
        "The dentist is on Tuesday at 3pm.",
    ]
    assert [e.op for e in mem.audit(memory_id=memory.id)] == ["remember", "update"]
