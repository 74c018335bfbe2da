"""Expiry chosen by the person (issue 25, part 1): a memory stored with an expiry leaves every
read at that instant, goes to the trash audited as `expire` with who set it, is restorable
until purged, and bad input changes nothing — on both stores with the real MiniLM embedder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from lethe import Lethe
from lethe.common.expiry import parse_duration
from lethe.embed import Embedder
from lethe.errors import ConfirmationRequired, InvalidInput, MemoryNotFound
from lethe.forget.change import UpdatePlan
from tests.backends import run_sql, snapshot
from tests.clocks import Clock

CODE = "The hotel door code is 4471 until I check out."
TICK = timedelta(microseconds=1)


def _returns(mem: Lethe, read: str, memory_id: str) -> bool:
    """Whether one read returns the memory."""
    if read == "get":
        try:
            mem.get(memory_id)
        except MemoryNotFound:
            return False
        return True
    found = {
        "recall": lambda: [h.memory.id for h in mem.recall("hotel door code", k=5)],
        "list": lambda: [m.id for m in mem.list_memories().items],
        "context": lambda: [i.id for i in mem.context().items],
        "plan": lambda: [i.id for i in mem.plan_forget(query="hotel door code").items],
        "history": lambda: [v.memory_id for v in mem.history(memory_id)],
        "export": lambda: [
            r["id"]
            for r in mem.export_records()
            if r.get("type") == "memory" and r.get("status", "active") == "active"
        ],
    }[read]
    try:
        return memory_id in found()
    except MemoryNotFound:
        return False


READS = ("recall", "list", "get", "context", "plan", "history", "export")


@pytest.mark.parametrize("read", READS)
def test_an_expired_memory_leaves_every_read_at_its_expiry_exactly(
    cmem: Lethe, clock: Clock, read: str
) -> None:
    """Each read on its own (one read expires what is due for all the others): the instant
    before the expiry it returns the memory, at the expiry it does not, with nothing run in
    between."""
    memory = cmem.remember(CODE, expires_in="2d")
    other = cmem.remember("The user likes green tea.")
    cmem.attend([memory.id])
    assert memory.expires_at == clock.now + timedelta(days=2)
    assert (memory.expiry_set_by, memory.expiry_set_at) == ("user", clock.now)
    clock.now = memory.expires_at - TICK
    assert _returns(cmem, read, memory.id)
    clock.now = memory.expires_at
    assert not _returns(cmem, read, memory.id)
    assert cmem.get(other.id).status == "active"


def test_an_expiry_is_a_soft_delete_audited_with_who_set_it(cmem: Lethe, clock: Clock) -> None:
    set_at = clock.now
    memory = cmem.remember(CODE, expires_at="2026-11-21T18:00:00Z", agent="claude")
    clock.advance(days=3)
    items, total = cmem.list_trash()
    assert total == 1 and items[0].memory.id == memory.id
    gone = items[0].memory
    assert gone.forget_reason == "expired at 2026-11-21T18:00:00+00:00"
    # In the trash since the read that found it due; the expiry itself is in the audit.
    assert gone.forgotten_at == clock.now
    assert gone.forgotten_by == "claude"
    events = cmem.audit(memory_id=memory.id)
    assert [e.op for e in events] == ["remember", "expire"]
    assert events[0].details["expires_at"] == "2026-11-21T18:00:00+00:00"
    assert events[1].actor == "claude"
    assert events[1].details == {
        "expires_at": "2026-11-21T18:00:00+00:00",
        "set_by": "claude",
        "set_at": set_at.isoformat(),
    }
    assert cmem.deletion_report().by_op["expire"] == 1


def test_an_expired_memory_is_restored_without_its_past_expiry(cmem: Lethe, clock: Clock) -> None:
    memory = cmem.remember(CODE, expires_in="1h")
    clock.advance(hours=2)
    restored = cmem.restore(memory.id)
    assert restored.status == "active" and restored.expires_at is None
    clock.advance(days=1)
    assert cmem.get(memory.id).status == "active"
    assert cmem.audit(memory_id=memory.id)[-1].details["expiry_removed"] == (
        memory.expires_at.isoformat() if memory.expires_at else None
    )


def test_an_expired_memory_is_purged_like_any_forgotten_one(cmem: Lethe, clock: Clock) -> None:
    memory = cmem.remember(CODE, expires_in="1h")
    clock.advance(hours=2)
    result = cmem.execute(cmem.plan_purge([memory.id]))
    assert result.executed == (memory.id,)
    assert cmem.store.get(memory.id) is None


def test_open_and_maintain_turn_due_expiries_into_soft_deletes(
    db: str, embedder: Embedder, clock: Clock
) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        first = mem.remember(CODE, expires_in="1h").id
        second = mem.remember("Parking is on level 3 this week.", expires_in="2h").id
    clock.advance(minutes=90)
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        status = dict(run_sql(db, "SELECT id, status FROM memories"))
        assert (status[first], status[second]) == ("forgotten", "active")
        clock.advance(hours=1)
        assert mem.maintain().expiries == (second,)
        assert mem.maintain().expiries == ()


def test_a_memory_without_an_expiry_never_expires(cmem: Lethe, clock: Clock) -> None:
    memory = cmem.remember("The user was born in Porto.")
    clock.advance(days=36500)
    assert cmem.get(memory.id).expires_at is None


def test_the_same_text_with_another_expiry_is_stored_again_not_merged(cmem: Lethe) -> None:
    plain = cmem.remember(CODE)
    timed = cmem.remember(CODE, expires_in="1d")
    assert timed.id != plain.id and not timed.existing
    again = cmem.remember(CODE, expires_at=timed.expires_at)
    assert again.existing and again.id == timed.id


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"expires_in": "0d"}, "longer than zero"),
        ({"expires_in": "3 months"}, "months and years"),
        ({"expires_in": "P1Y"}, "months and years"),
        ({"expires_in": "soon"}, "is not a duration"),
        ({"expires_in": 7}, "must be a duration"),
        ({"expires_at": "2026-11-19T00:00:00Z"}, "not in the future"),
        ({"expires_at": "2026-11-20T12:00:00Z"}, "not in the future"),
        ({"expires_at": "next friday"}, "is not a date and time"),
        ({"expires_at": "2026-12-01", "expires_in": "1d"}, "not both"),
        ({"expires_in": "1000000d"}, "hundred years"),
    ],
)
def test_bad_expiry_input_is_refused_and_changes_nothing(
    cmem: Lethe, db: str, given: dict[str, object], message: str
) -> None:
    cmem.remember("The user likes green tea.")
    before = snapshot(db)
    with pytest.raises(InvalidInput, match=message):
        cmem.remember(CODE, **given)  # type: ignore[arg-type]
    assert snapshot(db) == before


def test_supersedes_with_an_expiry_is_refused_and_changes_nothing(cmem: Lethe, db: str) -> None:
    old = cmem.remember("The hotel door code is 1234.")
    before = snapshot(db)
    with pytest.raises(InvalidInput, match="confirmed like a forget"):
        cmem.remember(CODE, supersedes=old.id, expires_in="1d")
    assert snapshot(db) == before


def test_a_failure_while_expiring_leaves_every_due_memory_as_it_was(
    cmem: Lethe, db: str, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The due memories of one batch go to the trash together or not at all: a crash in the
    middle keeps them live in the database (and unreadable: the next read expires them)."""
    ids = [cmem.remember(f"Locker {n} code is 90{n}1.", expires_in="1h").id for n in range(3)]
    clock.advance(hours=2)
    before = snapshot(db)
    calls = {"n": 0}
    original = type(cmem.store).transaction

    def failing(store: object):  # type: ignore[no-untyped-def]
        ctx = original(store)  # type: ignore[arg-type]

        class Wrapped:
            def __enter__(self):  # type: ignore[no-untyped-def]
                tx = ctx.__enter__()
                append = tx.append_event

                def append_event(**kw):  # type: ignore[no-untyped-def]
                    calls["n"] += 1
                    if calls["n"] == 2:
                        raise RuntimeError("crash in the middle")
                    return append(**kw)

                tx.append_event = append_event
                return tx

            def __exit__(self, *exc):  # type: ignore[no-untyped-def]
                return ctx.__exit__(*exc)

        return Wrapped()

    monkeypatch.setattr(type(cmem.store), "transaction", failing)
    with pytest.raises(RuntimeError, match="crash in the middle"):
        cmem.expire_due()
    assert snapshot(db) == before
    monkeypatch.undo()
    assert sorted(cmem.expire_due()) == sorted(ids)
    assert {m.id for m in cmem.list_memories().items} == set()


def test_durations_are_read_in_every_written_form() -> None:
    assert parse_duration("30m") == timedelta(minutes=30)
    assert parse_duration("12h") == parse_duration("PT12H") == timedelta(hours=12)
    assert parse_duration("7d") == parse_duration("P7D") == parse_duration("1 week")
    assert parse_duration("P1DT12H") == timedelta(days=1, hours=12)
    assert parse_duration("PT1M") == timedelta(minutes=1)


def test_an_expiry_passing_between_a_plan_and_its_execution(cmem: Lethe, clock: Clock) -> None:
    """The memory expired after the preview: the plan finds it gone, and the record says it
    expired (not that the plan forgot it)."""
    memory = cmem.remember(CODE, expires_in="10m")
    plan = cmem.plan_forget([memory.id])
    assert [t.id for t in plan.targets] == [memory.id]
    clock.advance(minutes=11)
    result = cmem.execute(plan)
    assert result.executed == ()
    assert [e.op for e in cmem.audit(memory_id=memory.id)] == ["remember", "expire"]


def test_an_expiry_travels_through_export_and_import(
    db: str, embedder: Embedder, clock: Clock, tmp_path: Path
) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock) as source:
        memory = source.remember(CODE, expires_in="2d", agent="claude")
        plain = source.remember("The user likes green tea.")
        records = list(source.export_records())
    by_id = {r["id"]: r for r in records if r.get("type") == "memory"}
    assert by_id[memory.id]["expires_at"] == "2026-11-22T12:00:00Z"
    assert "expires_at" not in by_id[plain.id]
    with Lethe.open(tmp_path / "copy.db", embedder=embedder, clock=clock) as target:
        target.import_records(records)
        copied = target.get(memory.id)
        assert (copied.expires_at, copied.expiry_set_by, copied.expiry_set_at) == (
            memory.expires_at,
            "claude",
            memory.expiry_set_at,
        )
        clock.advance(days=2)
        assert [i.memory.id for i in target.list_trash()[0]] == [memory.id]


def test_a_sweep_never_folds_an_expiring_memory_into_a_summary_that_outlives_it(
    db: str, embedder: Embedder, clock: Clock
) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        timed = mem.remember("User tried a pottery class", expires_in="90d")
        mem.remember("User went to a jazz concert in spring")
        mem.remember("User watched a documentary about octopuses")
        clock.advance(days=55)
        plan = mem.sweep()
        assert plan.compress == 3
        result = mem.execute_sweep(plan)
        assert timed.id in result.skipped and timed.id not in result.compressed
        assert len(result.compressed) == 2
        assert all("pottery" not in mem.get(i).content for i in result.summary_ids)
        clock.advance(days=36)
        assert [i.memory.id for i in mem.list_trash()[0] if i.memory.id == timed.id] == [timed.id]


def test_extending_or_removing_an_expiry_is_an_ordinary_versioned_change(
    cmem: Lethe, clock: Clock
) -> None:
    memory = cmem.remember(CODE, expires_in="1d")
    longer = cmem.update(memory.id, expires_in="30d")
    assert longer.version == 2 and longer.expires_at == clock.now + timedelta(days=30)
    [now, before] = cmem.history(memory.id)
    assert (now.expires_at, before.expires_at) == (longer.expires_at, memory.expires_at)
    never = cmem.update(memory.id, no_expiry=True)
    assert never.expires_at is None and never.expiry_set_by is None
    clock.advance(days=365)
    assert cmem.get(memory.id).status == "active"


@pytest.mark.parametrize("start", [None, "7d"])
def test_setting_or_shortening_an_expiry_is_confirmed_like_a_forget(
    cmem: Lethe, db: str, clock: Clock, start: str | None
) -> None:
    """Otherwise "expire in one second" would be a forget without confirmation."""
    memory = cmem.remember(CODE, expires_in=start)
    before = snapshot(db)
    with pytest.raises(ConfirmationRequired) as asked:
        cmem.update(memory.id, expires_in="1s")
    assert snapshot(db) == before
    plan = asked.value.plan
    assert isinstance(plan, UpdatePlan) and plan.needs_confirmation
    assert plan.ends == clock.now + timedelta(seconds=1)
    assert "same confirmation as forgetting" in plan.notes
    changed = cmem.execute(plan)
    assert changed.expires_at == plan.ends and changed.expiry_set_by == "user"
    clock.advance(seconds=1)
    assert [e.op for e in cmem.audit(memory_id=memory.id)][-1] == "expire"


@pytest.mark.parametrize("protect", [{"layer": "caveat"}, {"importance": 0.95}])
def test_an_expiry_on_a_protected_memory_is_refused_like_a_forget(
    cmem: Lethe, db: str, protect: dict[str, object]
) -> None:
    memory = cmem.remember(CODE, **protect)  # type: ignore[arg-type]
    before = snapshot(db)
    with pytest.raises(InvalidInput, match="is protected") as refused:
        cmem.plan_update(memory.id, expires_in="1d")
    assert refused.value.hint and "first" in refused.value.hint
    assert snapshot(db) == before


def test_a_protected_memory_may_carry_an_expiry_from_its_creation(
    cmem: Lethe, clock: Clock
) -> None:
    """ "Never email Bob before the audit ends on Friday" is a caveat that ends on Friday."""
    caveat = cmem.remember(
        "Never email Bob before the audit ends.", layer="caveat", expires_in="3d"
    )
    clock.advance(days=3)
    assert [i.memory.id for i in cmem.list_trash()[0]] == [caveat.id]


def test_a_revert_to_an_earlier_expiry_is_confirmed_like_a_forget(cmem: Lethe) -> None:
    memory = cmem.remember(CODE, expires_in="1d")
    cmem.update(memory.id, expires_in="30d")
    plan = cmem.plan_revert(memory.id, 1)
    assert plan.needs_confirmation and plan.ends == memory.expires_at


def test_an_expiry_noticed_late_starts_its_trash_window_when_it_reaches_the_trash(
    cmem: Lethe, clock: Clock
) -> None:
    """Nothing ran for 40 days after the expiry: the memory left every read at its expiry,
    but its trash window (30 days) starts when it reaches the trash, so the next `maintain`
    keeps it restorable; the audit keeps the expiry that sent it there."""
    memory = cmem.remember(CODE, expires_in="1h")
    clock.advance(days=40)
    assert cmem.maintain().expired == ()
    [event] = [e for e in cmem.audit(memory_id=memory.id) if e.op == "expire"]
    assert event.details["expires_at"] == memory.expires_at.isoformat()
    gone = cmem.list_trash()[0][0].memory
    assert gone.forgotten_at == clock.now and gone.forget_reason.startswith("expired at ")
    assert cmem.restore(memory.id).status == "active"


def test_a_revert_to_a_past_expiry_goes_to_the_trash_now_not_past_its_window(
    cmem: Lethe, clock: Clock
) -> None:
    """Reverting (confirmed) to a version whose expiry passed 40 days ago: the plan says it
    expires at once, the memory goes to the trash now, and `maintain` does not erase it
    for good, though the expiry is older than the trash's retention."""
    memory = cmem.remember(CODE, expires_in="1h")
    cmem.update(memory.id, no_expiry=True)
    clock.advance(days=40)
    plan = cmem.plan_revert(memory.id, 1)
    assert plan.needs_confirmation and plan.ends == memory.expires_at
    assert "at once" in plan.notes
    cmem.execute(plan)
    assert cmem.maintain().expired == ()
    assert cmem.list_trash()[0][0].memory.forgotten_at == clock.now
    assert cmem.restore(memory.id).status == "active"


def test_a_confirmed_expiry_executed_after_its_time_starts_the_window_then(
    cmem: Lethe, clock: Clock
) -> None:
    """An expiry one second ahead, confirmed two seconds later: the memory reaches the trash
    at the execution, and keeps its whole retention window from then (not from the expiry)."""
    memory = cmem.remember(CODE)
    plan = cmem.plan_update(memory.id, expires_in="1s")
    assert plan.needs_confirmation
    clock.advance(seconds=2)
    cmem.execute(plan)
    sent = clock.now
    with pytest.raises(MemoryNotFound):
        cmem.get(memory.id)
    days = cmem.settings.trash_retention_days
    assert days is not None
    clock.now = sent + timedelta(days=days) - timedelta(milliseconds=500)
    assert cmem.maintain().expired == ()
    assert cmem.restore(memory.id).status == "active"


def test_times_without_an_offset_are_utc_on_the_python_api(
    cmem: Lethe, clock: Clock, far_from_utc: str
) -> None:
    """`expires_at` and `as_of` written without an offset mean UTC, not the machine's zone."""
    memory = cmem.remember(CODE, expires_at="2026-11-21T18:00:00")
    assert memory.expires_at == datetime(2026, 11, 21, 18, tzinfo=UTC)
    made = clock.now
    clock.advance(hours=1)
    cmem.update(memory.id, content=CODE + " Or 4472.")
    naive = made.astimezone(UTC).replace(tzinfo=None).isoformat()
    assert cmem.get(memory.id, as_of=naive).content == CODE


# -- a held expiry (the person's) --------------------------------------------------------------


def test_a_confirmed_expiry_is_held_and_loosened_only_by_a_confirmation(
    cmem: Lethe, db: str, clock: Clock
) -> None:
    """An expiry set through a confirmation is the person's: pushing it back or removing it
    raises `ConfirmationRequired` (nothing changed) and names the held expiry; confirmed, it
    applies and the new expiry is held too. Bringing it forward was already confirmed."""
    memory = cmem.remember(CODE)
    with pytest.raises(ConfirmationRequired) as asked:
        cmem.update(memory.id, expires_in="1d")
    held = cmem.execute(asked.value.plan)
    assert held.expiry_held and cmem.get(memory.id).expiry_held
    for loosen in ({"expires_in": "30d"}, {"no_expiry": True}):
        before = snapshot(db)
        with pytest.raises(ConfirmationRequired) as refused:
            cmem.update(memory.id, **loosen)  # type: ignore[arg-type]
        assert snapshot(db) == before
        plan = refused.value.plan
        assert isinstance(plan, UpdatePlan) and plan.needs_confirmation
        assert "set or confirmed by a person" in " ".join(plan.lost)
    plan = cmem.plan_update(memory.id, expires_in="30d")
    longer = cmem.execute(plan)
    assert longer.expires_at == clock.now + timedelta(days=30) and longer.expiry_held
    removed = cmem.execute(cmem.plan_update(memory.id, no_expiry=True))
    assert removed.expires_at is None and not removed.expiry_held
    again = cmem.update(memory.id, tags=["door"])  # nothing about the expiry: ordinary
    assert again.version == removed.version + 1


def test_an_agents_own_expiry_is_not_held_and_a_persons_remembered_one_is(
    cmem: Lethe, db: str, clock: Clock
) -> None:
    own = cmem.remember(CODE, expires_in="1d", agent="claude")
    assert not own.expiry_held
    assert cmem.update(own.id, expires_in="2d").expires_at == clock.now + timedelta(days=2)
    chosen = cmem.remember("Parking is on level 3 this week.", expires_in="7d", hold_expiry=True)
    assert chosen.expiry_held and cmem.get(chosen.id).expiry_held
    before = snapshot(db)
    with pytest.raises(ConfirmationRequired):
        cmem.update(chosen.id, expires_in="30d")
    with pytest.raises(ConfirmationRequired):
        cmem.update(chosen.id, no_expiry=True)
    assert snapshot(db) == before


def test_a_revert_that_would_drop_a_held_expiry_is_confirmed_like_a_forget(
    cmem: Lethe, clock: Clock
) -> None:
    memory = cmem.remember(CODE)
    cmem.execute(cmem.plan_update(memory.id, expires_in="3d"))
    plan = cmem.plan_revert(memory.id, 1)  # version 1 had no expiry
    assert plan.needs_confirmation and "set or confirmed by a person" in " ".join(plan.lost)
    with pytest.raises(ConfirmationRequired):
        cmem.revert(memory.id, 1)
    assert cmem.get(memory.id).expires_at == clock.now + timedelta(days=3)


def test_a_held_expiry_travels_through_export_and_import(
    db: str, embedder: Embedder, clock: Clock, tmp_path: Path
) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock) as source:
        memory = source.remember(CODE, expires_in="2d", hold_expiry=True)
        records = list(source.export_records())
    with Lethe.open(tmp_path / "copy.db", embedder=embedder, clock=clock) as target:
        target.import_records(records)
        assert target.get(memory.id).expiry_held
        with pytest.raises(ConfirmationRequired):
            target.update(memory.id, no_expiry=True)


def test_an_expiry_a_person_executes_is_held_and_an_agents_update_is_not(
    cmem: Lethe, clock: Clock
) -> None:
    """A plan executed is a plan the person saw (the CLI and the inspector execute theirs):
    the later expiry it sets is theirs. `update` is an agent's own change: not held."""
    memory = cmem.remember(CODE, expires_in="1d", agent="claude")
    agents = cmem.update(memory.id, expires_in="2d")
    assert not agents.expiry_held
    persons = cmem.execute(cmem.plan_update(memory.id, expires_in="30d"))
    assert persons.expiry_held and persons.expires_at == clock.now + timedelta(days=30)
    with pytest.raises(ConfirmationRequired):
        cmem.update(memory.id, no_expiry=True)


def test_a_program_bringing_a_held_expiry_forward_leaves_it_held(cmem: Lethe, clock: Clock) -> None:
    """Else a program could bring the person's date forward by a minute, unhold it, and then
    remove it with no confirmation."""
    memory = cmem.remember(CODE, expires_in="1d", hold_expiry=True)
    sooner = cmem.execute(
        cmem.plan_update(memory.id, expires_in="23h"), via="langgraph", hold_expiry=False
    )
    assert sooner.expires_at == clock.now + timedelta(hours=23) and sooner.expiry_held
    with pytest.raises(ConfirmationRequired):
        cmem.update(memory.id, no_expiry=True)


def test_one_text_with_a_held_and_an_unheld_expiry_is_two_memories_in_one_import(
    cmem: Lethe,
) -> None:
    """The person's hold is not merged away as a duplicate of an agent's same expiry."""
    ends = "2026-12-01T18:00:00Z"
    report = cmem.import_records(
        [
            {"content": CODE, "expires_at": ends},
            {"content": CODE, "expires_at": ends, "expiry_held": True},
        ]
    )
    assert report.imported == 2
    held = [m.expiry_held for m in cmem.list_memories().items]
    assert sorted(held) == [False, True]


def test_restoring_what_a_held_expiry_ended_is_the_persons_to_do(
    cmem: Lethe, db: str, clock: Clock
) -> None:
    """Restoring removes the passed expiry: for a held one that is loosening it, so a caller
    acting for an agent is refused and the memory stays in the trash; the person restores it."""
    held = cmem.remember(CODE, expires_in="1h", hold_expiry=True)
    own = cmem.remember("Parking is on level 3.", expires_in="1h")
    clock.advance(hours=2)
    assert cmem.list_trash()[1] == 2  # a read sends both to the trash
    before = snapshot(db)
    with pytest.raises(InvalidInput, match="set or confirmed") as refused:
        cmem.restore(held.id, drop_held_expiry=False)
    assert refused.value.hint and "forget role" in refused.value.hint
    assert snapshot(db) == before
    assert cmem.restore(own.id, drop_held_expiry=False).expires_at is None
    back = cmem.restore(held.id)
    assert back.status == "active" and back.expires_at is None and not back.expiry_held
