"""Attacks on versions, confirmed protected changes, near-duplicates and the transfer of
versions, through the Python API, on SQLite and PostgreSQL (the purge test that reads the
SQLite files' bytes is SQLite's alone).

Tests marked `xfail(strict=True)` are bugs on record: each states the rule it breaks. The
others guard a rule the attack could not break (each was seen failing against a copy of the
code with that rule broken).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import InvalidInput, LetheError, MemoryNotFound
from lethe.model import Draft
from tests.backends import is_postgres, run_sql, snapshot
from tests.clocks import Clock


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def lm(db: str, embedder: Embedder, clock: Clock) -> Iterator[Lethe]:
    with Lethe.open(db, embedder=embedder, clock=clock) as lethe:
        yield lethe


def _texts(mem: Lethe, memory_id: str) -> list[str]:
    return [v.content for v in mem.history(memory_id)]


def _live_contents(db: str) -> list[str]:
    return [r[0] for r in run_sql(db, "SELECT content FROM memories WHERE status = 'active'")]


# --- exact duplicates: only the same text and fields are one memory ---------------------------


def test_a_superscript_number_is_not_the_same_fact_as_plain_digits(lm: Lethe, db: str) -> None:
    plain = lm.remember("The rent is 102 euros a month")
    power = lm.remember("The rent is 10² euros a month")
    assert not power.existing and power.id != plain.id
    assert "The rent is 10² euros a month" in _live_contents(db)


def test_remember_many_keeps_subscripts_apart_from_digits(lm: Lethe, db: str) -> None:
    report = lm.remember_many(
        [Draft(content="Valve x1 must stay closed"), Draft(content="Valve x₁ must stay closed")]
    )
    assert report.imported == 2 and report.skipped_duplicates == 0
    assert sorted(_live_contents(db)) == sorted(
        ["Valve x1 must stay closed", "Valve x₁ must stay closed"]
    )


def test_metadata_true_is_not_the_number_one(lm: Lethe) -> None:
    first = lm.remember("Renew the passport before June", metadata={"priority": True})
    second = lm.remember("Renew the passport before June", metadata={"priority": 1})
    assert not second.existing and second.metadata == {"priority": 1}
    assert first.id != second.id


def test_remember_many_never_takes_a_system_memory_for_a_plain_duplicate(lm: Lethe) -> None:
    system = lm.remember("Use metric units in every answer", system=True)
    report = lm.remember_many([Draft(content="Use metric units in every answer")])
    assert report.imported == 1 and report.skipped_duplicates == 0
    plain = [m for m in lm.list_memories().items if m.content == system.content and not m.is_system]
    assert len(plain) == 1


def test_codes_that_differ_by_spacing_or_case_are_different_memories(lm: Lethe, db: str) -> None:
    texts = [
        "Locker code is 48 21",
        "Locker code is 4821",
        "Locker code is ab-12",
        "Locker code is AB-12",
        "Locker code is 48\u200b21",
    ]
    ids = {lm.remember(t).id for t in texts}
    assert len(ids) == len(texts)
    assert sorted(_live_contents(db)) == sorted(texts)
    # the same text again, tags in another order, is the same memory: nothing written
    tagged = lm.remember("Bins go out on Thursday", tags=["home", "chores"])
    before = snapshot(db)
    again = lm.remember("Bins go out on Thursday", tags=["chores", "home", "home"])
    assert again.existing and again.id == tagged.id
    assert snapshot(db) == before
    other_importance = lm.remember(
        "Bins go out on Thursday", tags=["home", "chores"], importance=0.6
    )
    assert not other_importance.existing


# --- a plan edited after it was planned -------------------------------------------------------


def test_a_plan_whose_changes_were_edited_after_planning_applies_nothing(
    lm: Lethe, db: str
) -> None:
    caveat = lm.remember("Never give the dog chocolate", layer="caveat")
    plan = lm.plan_update(caveat.id, tags=["dog"])
    assert not plan.needs_confirmation
    plan.changes["content"] = "Chocolate is a fine treat for the dog"
    before = snapshot(db)
    with pytest.raises(LetheError):
        lm.execute(plan)
    assert snapshot(db) == before
    assert lm.get(caveat.id).content == "Never give the dog chocolate"


def test_a_plan_copied_with_other_changes_applies_nothing(lm: Lethe, db: str) -> None:
    caveat = lm.remember("Never give the dog chocolate", layer="caveat")
    plan = lm.plan_update(caveat.id, tags=["dog"])
    swapped = plan.model_copy(update={"changes": {"layer": "episodic"}})
    before = snapshot(db)
    with pytest.raises(LetheError):
        lm.execute(swapped)
    assert snapshot(db) == before


def test_a_forged_plan_cannot_overwrite_another_memory(lm: Lethe, db: str) -> None:
    plain = lm.remember("Apple pie recipe uses cinnamon")
    system = lm.remember("Operator rule: never share API keys", system=True)
    plan = lm.plan_update(plain.id, content="Apple pie recipe uses nutmeg")
    forged = plan.model_copy(update={"changes": {**plan.changes, "id": system.id}})
    with contextlib.suppress(LetheError):
        lm.execute(forged)
    assert lm.get(system.id).content == "Operator rule: never share API keys"
    assert "Operator rule: never share API keys" in _texts(lm, system.id)


@pytest.mark.parametrize(
    "changes",
    [
        {"content": ""},
        {"content_sha256": "0" * 64},
        {"tags": ("a\nb",)},
        {"category": "x" * 10_000},
    ],
    ids=["empty-content", "forged-hash", "tag-newline", "huge-category"],
)
def test_a_forged_plan_with_invalid_changes_writes_nothing(
    lm: Lethe, db: str, changes: dict[str, Any]
) -> None:
    m = lm.remember("Keys are in the blue bowl")
    plan = lm.plan_update(m.id, tags=["home"]).model_copy(update={"changes": changes})
    before = snapshot(db)
    with pytest.raises(LetheError):
        lm.execute(plan)
    assert snapshot(db) == before


def test_confirm_change_recomputes_whether_a_confirmation_is_needed(lm: Lethe, db: str) -> None:
    caveat = lm.remember("Never give the dog chocolate", layer="caveat")
    plan = lm.plan_update(caveat.id, layer="episodic")
    assert plan.needs_confirmation
    lied = plan.model_copy(update={"needs_confirmation": False})
    answer = lm.confirm_change(lied, session="s1")
    assert answer.status == "pending"
    assert lm.get(caveat.id).layer == "caveat"


def test_the_second_call_cannot_carry_a_change_the_first_did_not_preview(lm: Lethe) -> None:
    caveat = lm.remember("Never give the dog chocolate", layer="caveat")
    plan = lm.plan_update(caveat.id, layer="semantic")
    assert lm.confirm_change(plan, session="s1").status == "pending"
    plan.changes["content"] = "Chocolate is a fine treat for the dog"
    with contextlib.suppress(LetheError):
        lm.confirm_change(plan, session="s1")
    assert lm.get(caveat.id).content == "Never give the dog chocolate"


def test_a_pending_update_confirms_neither_a_revert_nor_another_memory(lm: Lethe, db: str) -> None:
    """The pending row is for one change of one memory: a revert with the same effect, or
    the same change on another memory, is previewed again, never executed."""
    pinned = lm.remember("Allergic to penicillin")
    lm.update(pinned.id, importance=0.95)
    twin = lm.remember("Allergic to latex", importance=0.95)
    asked = lm.confirm_change(lm.plan_update(pinned.id, importance=0.5), session="s1")
    assert asked.status == "pending"
    revert = lm.plan_revert(pinned.id, 1)
    assert revert.changes == {"importance": 0.5} and revert.needs_confirmation
    assert lm.confirm_change(revert, session="s1").status == "pending"
    other = lm.confirm_change(lm.plan_update(twin.id, importance=0.5), session="s1")
    assert other.status == "pending"
    assert lm.get(pinned.id).importance == 0.95 and lm.get(twin.id).importance == 0.95
    # a forged namespace or base never applies
    good = lm.plan_update(pinned.id, tags=["health"])
    before = snapshot(db)
    with pytest.raises(MemoryNotFound):
        lm.execute(good.model_copy(update={"namespace": "elsewhere"}))
    with pytest.raises(InvalidInput):
        lm.execute(good.model_copy(update={"base_sha256": "0" * 64}))
    assert snapshot(db) == before


# --- namespaces, the trash, stale plans -------------------------------------------------------


def test_versions_never_cross_a_namespace_or_leave_the_trash(lm: Lethe, db: str) -> None:
    m = lm.remember("Project Falcon budget is 40k", namespace="work")
    lm.update(m.id, content="Project Falcon budget is 55k", namespace="work")
    before = snapshot(db)
    for call in (
        lambda: lm.history(m.id, namespace="home"),
        lambda: lm.plan_update(m.id, content="x", namespace="home"),
        lambda: lm.plan_revert(m.id, 1, namespace="home"),
        lambda: lm.revert(m.id, 1, namespace="home"),
        lambda: lm.update(m.id, tags=["x"], namespace="home"),
    ):
        with pytest.raises(MemoryNotFound):
            call()
    assert snapshot(db) == before
    plan = lm.plan_revert(m.id, 1, namespace="work")
    lm.forget([m.id], session="s", namespace="work")
    lm.forget([m.id], session="s", namespace="work")
    before = snapshot(db)
    for call in (
        lambda: lm.history(m.id),
        lambda: lm.revert(m.id, 1),
        lambda: lm.execute(plan),
        lambda: lm.update(m.id, content="Project Falcon is cancelled"),
    ):
        with pytest.raises(MemoryNotFound):
            call()
    assert snapshot(db) == before
    lm.restore(m.id)
    assert _texts(lm, m.id) == ["Project Falcon budget is 55k", "Project Falcon budget is 40k"]


def test_a_plan_made_before_an_a_b_a_change_never_applies(lm: Lethe, db: str) -> None:
    m = lm.remember("Wifi password is swordfish")
    plan = lm.plan_update(m.id, content="Wifi password is marlin")
    lm.update(m.id, content="Wifi password is tuna")
    lm.revert(m.id, 1)
    assert lm.get(m.id).content == "Wifi password is swordfish"
    before = snapshot(db)
    with pytest.raises(InvalidInput, match="changed since"):
        lm.execute(plan)
    assert snapshot(db) == before


# --- unprotect, then forget --------------------------------------------------------------------


def test_unprotect_by_revert_or_two_calls_is_flagged_in_the_forget_preview(
    lm: Lethe, clock: Clock
) -> None:
    goal = lm.remember("Run a marathon in 2027")
    lm.update(goal.id, layer="goal")
    lm.execute(lm.plan_revert(goal.id, 1, actor="mallory"))
    pinned = lm.remember("Blood type is O negative", importance=0.95)
    plan = lm.plan_update(pinned.id, importance=0.1, actor="eve")
    lm.confirm_change(plan, session="s9")
    clock.advance(seconds=2)
    lm.confirm_change(lm.plan_update(pinned.id, importance=0.1, actor="eve"), session="s9")
    lm.update(pinned.id, tags=["health"])  # a later harmless change hides nothing
    clock.advance(seconds=5)
    items = {i.id: i.was_protected for i in lm.plan_forget([goal.id, pinned.id]).items}
    assert "goal-layer" in (items[goal.id] or "") and "mallory" in (items[goal.id] or "")
    assert "pinned" in (items[pinned.id] or "") and "eve" in (items[pinned.id] or "")
    first = lm.forget([goal.id], session="s1")
    assert first.status == "pending" and "was protected" in first.message


# --- the forget side of versions ----------------------------------------------------------------


def test_forgetting_an_old_text_by_its_words_finds_the_memory_that_keeps_it(lm: Lethe) -> None:
    m = lm.remember("Dentist appointment code is ZX-4821-Q")
    lm.update(m.id, content="Dentist appointment moved to Tuesday at 3pm")
    lm.remember("The garden needs watering on Sundays")
    assert "Dentist appointment code is ZX-4821-Q" in _texts(lm, m.id)
    plan = lm.plan_forget(query="ZX-4821-Q")
    assert m.id in {i.id for i in plan.items}, plan.notes
    [item] = [i for i in plan.items if i.id == m.id]
    assert item.action == "edit" and "earlier version(s) 1 hold" in item.reason
    assert [c.version for c in item.past] == [1]
    assert item.new_content == "Dentist appointment moved to Tuesday at 3pm", "it stays"


def test_a_query_with_another_number_does_not_pick_a_memory_to_delete(lm: Lethe) -> None:
    m = lm.remember("My bank PIN is 9034")
    lm.remember("The garden needs watering on Sundays")
    lm.remember("Alice likes green tea")
    plan = lm.plan_forget(query="my bank PIN 4821")
    assert m.id not in {i.id for i in plan.items if i.action == "delete"}


def test_purge_erases_every_field_of_every_version_from_every_file(
    db_path: Path, embedder: Embedder
) -> None:
    secrets = [b"walrus-9931", b"otter-0442", b"otter-3442", b"narwhal-5521", b"reason-otter"]
    with Lethe.open(db_path, embedder=embedder) as mem:
        filler = " ".join(f"filler{i}" for i in range(1500))  # overflow pages
        m = mem.remember(
            f"Vault combination walrus-9931 {filler}",
            tags=["tag-walrus-9931"],
            metadata={"hint": "meta-walrus-9931"},
        )
        for i in range(4):
            mem.update(
                m.id,
                content=f"Version {i} holds otter-{i}442",
                reason=f"reason-otter-{i}",
                tags=[f"tag-otter-{i}442"],
                metadata={"k": f"meta-otter-{i}442"},
            )
        mem.revert(m.id, 1)
        mem.update(m.id, content="Final text narwhal-5521")
        keep = mem.remember("Unrelated memory about trees")
        mem.update(keep.id, content="Unrelated memory about oak trees")
        assert mem.execute(mem.plan_purge([m.id])).executed == (m.id,)
        for path in db_path.parent.iterdir():
            if path.is_file():
                data = path.read_bytes()
                assert [s for s in secrets if s in data] == [], path
        assert run_sql(db_path, "SELECT DISTINCT memory_id FROM memory_versions") == [(keep.id,)]
        audit = json.dumps([e.model_dump(mode="json") for e in mem.audit(memory_id=m.id)])
        assert not any(s.decode() in audit for s in secrets)
    for path in db_path.parent.iterdir():
        if path.is_file():
            data = path.read_bytes()
            assert [s for s in secrets if s in data] == [], path


# --- concurrency and crashes ----------------------------------------------------------------------


def test_concurrent_updates_from_two_handles_lose_no_text(db: str, embedder: Embedder) -> None:
    with (
        Lethe.open(db, embedder=embedder) as one,
        Lethe.open(db, embedder=embedder) as two,
    ):
        m = one.remember("Counter note zero")
        done: list[str] = []
        failed: list[BaseException] = []

        def worker(mem: Lethe, name: int) -> None:
            for k in range(5):
                text = f"Counter note {name}-{k}"
                try:
                    done.append(mem.update(m.id, content=text).content)
                except BaseException as exc:  # recorded and checked below
                    failed.append(exc)

        threads = [
            threading.Thread(target=worker, args=(h, n)) for n, h in enumerate([one, two] * 2)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(isinstance(e, LetheError) for e in failed), failed
        history = two.history(m.id)
        assert [v.version for v in history] == list(range(len(done) + 1, 0, -1))
        assert {v.content for v in history} == {*done, "Counter note zero"}


def test_a_crash_while_recording_an_update_or_a_revert_leaves_no_trace(
    lm: Lethe, db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kept version, the changed memory (its text, vector, full-text entry, tags) and
    the audit event are one transaction: when the audit write fails, nothing of the update
    or the revert stays behind, on either store."""
    from lethe.store.postgres_tx import PostgresTx
    from lethe.store.sqlite_tx import SQLiteTx

    m = lm.remember("The spare key is with Mrs Patel", tags=["home"])
    lm.update(m.id, content="The spare key is with the neighbour", tags=["keys"])
    query = "spare key under the plant pot"

    def similarity() -> float:
        [hit] = [h for h in lm.recall(query, k=5) if h.memory.id == m.id]
        return hit.similarity

    def lexical(word: str) -> list[str]:
        return lm.store.lexical_search(word, lm._core.filters(None, ()), 10)

    was = similarity()
    assert lexical("neighbour") and not lexical("Patel")
    before = snapshot(db)
    tx_class: type[Any] = PostgresTx if is_postgres(db) else SQLiteTx
    real = tx_class.append_event

    def crash(self: Any, **kwargs: Any) -> int:
        if kwargs.get("op") in {"update", "revert"}:
            raise RuntimeError("power cut")
        return int(real(self, **kwargs))

    monkeypatch.setattr(tx_class, "append_event", crash)
    with pytest.raises(RuntimeError, match="power cut"):
        lm.update(m.id, content="The spare key is under the plant pot", tags=["garden"])
    assert snapshot(db) == before, "update"
    with pytest.raises(RuntimeError, match="power cut"):
        lm.revert(m.id, 1)
    assert snapshot(db) == before, "revert"
    monkeypatch.undo()
    current = lm.get(m.id)
    assert (current.version, current.content, current.tags) == (
        2,
        "The spare key is with the neighbour",
        ("keys",),
    )
    assert _texts(lm, m.id) == [
        "The spare key is with the neighbour",
        "The spare key is with Mrs Patel",
    ]
    assert similarity() == pytest.approx(was), "the vector is the current text's"
    assert lexical("neighbour") and not lexical("plant") and not lexical("Patel")
    assert lm.update(m.id, content="The spare key is under the plant pot").version == 3
    assert lm.revert(m.id, 1).version == 4
    assert _texts(lm, m.id)[0] == "The spare key is with Mrs Patel"


# --- export and import of versions ------------------------------------------------------------


def test_a_forgotten_memory_keeps_its_versions_through_export_and_import(
    lm: Lethe, tmp_path: Path, embedder: Embedder
) -> None:
    m = lm.remember("Old phone number 555-0101")
    lm.update(m.id, content="New phone number 555-0202")
    lm.forget([m.id], session="s")
    lm.forget([m.id], session="s")
    records = [json.loads(json.dumps(r)) for r in lm.export_records()]
    with Lethe.open(tmp_path / "copy.db", embedder=embedder) as target:
        report = target.import_records(records)
        assert (report.trashed, report.versions) == (1, 1)
        target.restore(m.id)
        assert _texts(target, m.id) == ["New phone number 555-0202", "Old phone number 555-0101"]


def test_crafted_versions_never_touch_an_existing_memory_or_the_future(lm: Lethe, db: str) -> None:
    held = lm.remember("Car is parked on level 3")
    lm.update(held.id, content="Car is parked on level 5")
    base = {
        "type": "version",
        "agent": "user",
        "layer": "episodic",
        "importance": 0.5,
        "valid_from": "2026-01-01T00:00:00+00:00",
        "valid_until": "2026-02-01T00:00:00+00:00",
        "actor": "user",
        "op": "remember",
    }
    new = {"type": "memory", "id": "mem_bbbbbbbbbbbb", "content": "Now", "version": 2}
    records = [
        {**base, "memory_id": held.id, "version": 1, "content": "Car was stolen"},
        new,
        {**base, "memory_id": new["id"], "version": 1, "content": "Before A"},
        {**base, "memory_id": new["id"], "version": 2, "content": "Same as current"},
        {**base, "memory_id": new["id"], "version": 7, "content": "From the future"},
    ]
    twice = {**base, "memory_id": new["id"], "version": 1, "content": "Before B"}
    before = snapshot(db)
    with pytest.raises(InvalidInput, match="given twice"):
        lm.import_records([*records, twice])
    assert snapshot(db) == before, "a file naming one version twice imports nothing"
    report = lm.import_records(records)
    # Not dropped silently (issue 43): the report names the versions it refused.
    assert [note.split(": ", 1)[1] for note in report.refused_versions] == [
        f"version 2 of {new['id']} is not earlier than the memory's own version 2",
        f"version 7 of {new['id']} is not earlier than the memory's own version 2",
    ]
    assert _texts(lm, held.id) == ["Car is parked on level 5", "Car is parked on level 3"]
    rows = run_sql(db, "SELECT version FROM memory_versions WHERE memory_id = ?", (new["id"],))
    assert rows == [(1,)]
    assert [v.version for v in lm.history(str(new["id"]))] == [2, 1]


_VERSION = {
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


@pytest.mark.parametrize(
    "bad",
    [
        {"importance": 7.0},
        {"importance": -3},
        {"importance": float("nan")},
        {"category": "a\nb"},
        {"tags": ["x\ny"]},
        {"agent": ""},
        {"reason": "r" * 100_000},
        {"metadata": {"a": float("inf")}},
    ],
    ids=[
        "importance-7",
        "importance-neg",
        "importance-nan",
        "category",
        "tags",
        "agent",
        "reason",
        "meta-inf",
    ],
)
def test_import_refuses_a_version_with_invalid_fields(
    lm: Lethe, db: str, bad: dict[str, Any]
) -> None:
    good = {"type": "memory", "id": "mem_aaaaaaaaaaaa", "content": "Now", "version": 2}
    before = snapshot(db)
    with pytest.raises(InvalidInput):
        lm.import_records([good, {**_VERSION, **bad}])
    assert snapshot(db) == before


def test_an_export_always_imports_even_after_the_clock_stepped_back(
    lm: Lethe, clock: Clock, tmp_path: Path, embedder: Embedder
) -> None:
    m = lm.remember("Meeting room is B12")
    clock.advance(hours=-1)
    lm.update(m.id, content="Meeting room is C7")
    records = [json.loads(json.dumps(r)) for r in lm.export_records()]
    with Lethe.open(tmp_path / "copy.db", embedder=embedder) as target:
        report = target.import_records(records)
        assert (report.imported, report.versions) == (1, 1)
        assert _texts(target, m.id) == ["Meeting room is C7", "Meeting room is B12"]


# --- bad input on the new entry points ------------------------------------------------------------

_BAD_CALLS: dict[str, Callable[[Lethe, str], object]] = {
    "plan_update-id-none": lambda mem, i: mem.plan_update(None, content="x"),  # type: ignore[arg-type]
    "plan_update-content-bytes": lambda mem, i: mem.plan_update(i, content=b"x"),  # type: ignore[arg-type]
    "plan_update-content-huge": lambda mem, i: mem.plan_update(i, content="a" * 5_000_000),
    "plan_update-tags-none-item": lambda mem, i: mem.plan_update(i, tags=[None]),  # type: ignore[list-item]
    "plan_update-importance-str": lambda mem, i: mem.plan_update(i, importance="0.5"),  # type: ignore[arg-type]
    "plan_update-importance-inf": lambda mem, i: mem.plan_update(i, importance=float("inf")),
    "plan_update-layer-list": lambda mem, i: mem.plan_update(i, layer=["caveat"]),  # type: ignore[arg-type]
    "plan_update-metadata-set": lambda mem, i: mem.plan_update(i, metadata={"a": {1}}),
    "plan_update-merge-list": lambda mem, i: mem.plan_update(i, merge_metadata=[("a", 1)]),  # type: ignore[arg-type]
    "plan_update-private-str": lambda mem, i: mem.plan_update(i, private="no"),  # type: ignore[arg-type]
    "plan_update-reason-newline": lambda mem, i: mem.plan_update(i, content="y", reason="a\nb"),
    "update-both-metadata": lambda mem, i: mem.update(i, metadata={}, merge_metadata={}),
    "plan_revert-str": lambda mem, i: mem.plan_revert(i, "1"),  # type: ignore[arg-type]
    "plan_revert-float": lambda mem, i: mem.plan_revert(i, 1.0),  # type: ignore[arg-type]
    "plan_revert-bool": lambda mem, i: mem.plan_revert(i, True),
    "plan_revert-huge": lambda mem, i: mem.plan_revert(i, 2**70),
    "plan_revert-missing": lambda mem, i: mem.plan_revert(i, 9),
    "revert-none": lambda mem, i: mem.revert(i, None),  # type: ignore[arg-type]
    "history-int": lambda mem, i: mem.history(5),  # type: ignore[arg-type]
    "history-namespace-int": lambda mem, i: mem.history(i, namespace=3),  # type: ignore[arg-type]
    "confirm_change-dict": lambda mem, i: mem.confirm_change(
        mem.plan_update(i, importance=0.1).model_dump(),  # type: ignore[arg-type]
        session="s",
    ),
    "confirm_change-session-none": lambda mem, i: mem.confirm_change(
        mem.plan_update(i, importance=0.1),
        session=None,  # type: ignore[arg-type]
    ),
    "execute-none": lambda mem, i: mem.execute(None),  # type: ignore[call-overload]
    "execute-via-int": lambda mem, i: mem.execute(mem.plan_update(i, tags=["a"]), via=3),  # type: ignore[call-overload]
    "execute-actor-empty": lambda mem, i: mem.execute(mem.plan_update(i, tags=["a"]), actor=""),
}


@pytest.mark.parametrize("name", sorted(_BAD_CALLS))
def test_bad_input_is_a_lethe_error_and_changes_nothing(lm: Lethe, db: str, name: str) -> None:
    m = lm.remember("Pinned note about bicycles", importance=0.95)
    before = snapshot(db)
    with pytest.raises(LetheError):
        _BAD_CALLS[name](lm, m.id)
    assert snapshot(db) == before


_CRASHING_CALLS: dict[str, Callable[[Lethe, str], object]] = {
    "plan_update-tags-int": lambda mem, i: mem.plan_update(i, tags=123),  # type: ignore[arg-type]
    "update-tags-int": lambda mem, i: mem.update(i, tags=123),  # type: ignore[arg-type]
    "plan_update-importance-huge-int": lambda mem, i: mem.plan_update(i, importance=10**400),
}


@pytest.mark.parametrize("name", sorted(_CRASHING_CALLS))
def test_bad_input_that_crashes_with_a_python_error(lm: Lethe, db: str, name: str) -> None:
    m = lm.remember("Note about bicycles")
    before = snapshot(db)
    with pytest.raises(LetheError):
        _CRASHING_CALLS[name](lm, m.id)
    assert snapshot(db) == before


@pytest.mark.parametrize("namespace", ["bad ns!", 5])
def test_plan_update_says_a_namespace_is_invalid(lm: Lethe, namespace: Any) -> None:
    m = lm.remember("Note about bicycles")
    with pytest.raises(InvalidInput, match="namespace"):
        lm.plan_update(m.id, content="Note about tricycles", namespace=namespace)
