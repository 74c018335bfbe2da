"""Changing what protects a memory is confirmed like forgetting it, and a forget right after
an unprotect says so — on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import ConfirmationRequired, InvalidInput
from lethe.forget.plan import seed_json
from lethe.schemas import load
from tests.backends import snapshot
from tests.clocks import Clock


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tmem(db: str, embedder: Embedder, clock: Clock) -> Lethe:
    with Lethe.open(db, embedder=embedder, clock=clock) as lethe:
        yield lethe  # type: ignore[misc]


PROTECTED_CHANGES = [
    ({"layer": "caveat"}, {"content": "Deploys are fine on Fridays"}, "caveat-layer"),
    ({"layer": "caveat"}, {"layer": "semantic"}, "caveat-layer"),
    ({"layer": "goal"}, {"layer": "episodic"}, "goal-layer"),
    ({"importance": 0.95}, {"importance": 0.1}, "pinned"),
    ({"importance": 0.9}, {"content": "Something else entirely"}, "pinned"),
    ({"layer": "caveat", "importance": 0.95}, {"importance": 0.5}, "pinned"),
]


@pytest.mark.parametrize(("stored", "change", "lost"), PROTECTED_CHANGES)
def test_a_change_that_weakens_protection_needs_confirmation(
    tmem: Lethe, db: str, stored: dict[str, object], change: dict[str, object], lost: str
) -> None:
    m = tmem.remember("Never deploy on Fridays", **stored)  # type: ignore[arg-type]
    before = snapshot(db)
    with pytest.raises(ConfirmationRequired) as caught:
        tmem.update(m.id, **change)  # type: ignore[arg-type]
    assert snapshot(db) == before, "nothing changed, nothing audited"
    plan = caught.value.plan
    assert plan.needs_confirmation and plan.memory_id == m.id
    assert lost in " ".join(plan.lost) + (plan.protection or "")
    assert "confirmation" in plan.notes
    new = tmem.execute(plan)
    assert new.version == 2
    event = tmem.audit(memory_id=m.id, op="update")[0]
    assert event.details["confirmed"] == "plan" and event.details["plan"] == plan.id
    assert event.details["protected_before"], "what protected it is on the record"
    for name in ("layer", "importance"):
        if name in change:
            assert event.details["protection_fields"][name] == {
                "old": stored.get(name, 0.5 if name == "importance" else "episodic"),
                "new": change[name],
            }


def test_changes_that_keep_protection_or_add_it_need_none(tmem: Lethe) -> None:
    caveat = tmem.remember("Never deploy on Fridays", layer="caveat")
    assert tmem.update(caveat.id, tags=["ops"], metadata={"team": "infra"}).version == 2
    assert tmem.update(caveat.id, importance=0.95).version == 3, "raising protection is free"
    assert tmem.update(caveat.id, layer="goal").version == 4, "one protected layer to another"
    plain = tmem.remember("Lunch is at noon")
    assert tmem.update(plain.id, content="Lunch is at one", layer="caveat").version == 2
    pinned = tmem.remember("Passport number is in the safe", importance=0.95)
    assert tmem.update(pinned.id, importance=0.92).version == 2, "still pinned"
    system = tmem.remember("Operator notes", system=True)
    assert tmem.update(system.id, tags=["ops"]).version == 2
    with pytest.raises(ConfirmationRequired, match="protected"):
        tmem.update(system.id, content="Something else")


def test_two_calls_from_one_session_confirm_a_protected_change(
    tmem: Lethe, db: str, clock: Clock
) -> None:
    m = tmem.remember("Allergic to penicillin", importance=0.95)
    plan = tmem.plan_update(m.id, importance=0.2, actor="claude")
    first = tmem.confirm_change(plan, session="s1")
    assert first.status == "pending" and tmem.get(m.id).importance == 0.95
    assert "Please confirm" in first.message
    other = tmem.confirm_change(tmem.plan_update(m.id, importance=0.2), session="s2")
    assert other.status == "pending", "another session cannot confirm s1's change"
    different = tmem.confirm_change(tmem.plan_update(m.id, importance=0.3), session="s1")
    assert different.status == "pending" and different.changed_since_preview
    assert tmem.get(m.id).importance == 0.95
    clock.advance(seconds=10)
    done = tmem.confirm_change(tmem.plan_update(m.id, importance=0.3, actor="claude"), session="s1")
    assert done.status == "executed" and done.memory.importance == 0.3
    event = tmem.audit(memory_id=m.id, op="update")[0]
    assert event.details["confirmed"] == "two_call" and event.actor == "claude"
    asked = [e for e in tmem.audit(memory_id=m.id) if e.op == "confirmation_requested"]
    assert [e.details["operation"] for e in asked] == ["update"] * 3


def test_a_confirmation_expires(tmem: Lethe, clock: Clock) -> None:
    m = tmem.remember("Keys are under the mat", layer="caveat")
    tmem.confirm_change(tmem.plan_update(m.id, layer="semantic"), session="s1")
    clock.advance(seconds=tmem.settings.confirm_ttl_seconds + 1)
    again = tmem.confirm_change(tmem.plan_update(m.id, layer="semantic"), session="s1")
    assert again.status == "pending" and tmem.get(m.id).layer == "caveat"
    assert tmem.audit(memory_id=m.id, op="confirmation_expired")


def test_an_expired_plan_of_a_protected_change_is_refused(
    tmem: Lethe, db: str, clock: Clock
) -> None:
    m = tmem.remember("Keys are under the mat", layer="caveat")
    plan = tmem.plan_update(m.id, layer="semantic")
    clock.advance(seconds=tmem.settings.confirm_ttl_seconds + 1)
    before = snapshot(db)
    with pytest.raises(InvalidInput, match="expired"):
        tmem.execute(plan)
    assert snapshot(db) == before


def test_unprotect_then_forget_says_it_was_protected_moments_ago(tmem: Lethe, clock: Clock) -> None:
    m = tmem.remember("Never email customers on weekends", layer="caveat")
    calm = tmem.remember("Buy oat milk")
    tmem.execute(tmem.plan_update(m.id, layer="semantic", actor="mallory"))
    clock.advance(seconds=3)
    plan = tmem.plan_forget([m.id, calm.id])
    flagged = {i.id: i.was_protected for i in plan.items}
    assert flagged[calm.id] is None
    assert "caveat-layer" in (flagged[m.id] or "") and "mallory" in (flagged[m.id] or "")
    assert "3 s ago" in (flagged[m.id] or "")
    assert seed_json(plan)["plan"][0]["wasProtected"] == flagged[m.id]
    Draft202012Validator(load("forget-response")).validate(seed_json(plan))
    first = tmem.forget([m.id], session="s1")
    assert first.status == "pending" and "was protected" in first.message
    clock.advance(seconds=tmem.settings.confirm_ttl_seconds + 1)
    assert tmem.plan_forget([m.id]).items[0].was_protected is None, "only within the window"


def test_revert_into_an_unprotected_state_is_confirmed_too(tmem: Lethe, db: str) -> None:
    m = tmem.remember("Medication list lives in the blue folder")
    tmem.update(m.id, importance=0.95)
    before = snapshot(db)
    with pytest.raises(ConfirmationRequired):
        tmem.revert(m.id, 1)
    assert snapshot(db) == before
    plan = tmem.plan_revert(m.id, 1)
    assert plan.op == "revert" and plan.revert_to == 1 and plan.needs_confirmation
    assert tmem.execute(plan).importance == 0.5


def test_a_question_about_a_protected_change_is_pending_until_answered(tmem: Lethe) -> None:
    m = tmem.remember("Passport is in the blue folder", importance=0.95)
    plan = tmem.plan_update(m.id, importance=0.3, actor="alice")
    tmem.ask(plan, session="s1")
    [pending] = tmem.pending_confirmations()
    assert (pending.operation, pending.via, pending.memory_id) == ("update", "elicitation", m.id)
    asked = tmem.audit(memory_id=m.id, op="confirmation_requested")[0]
    assert asked.actor == "alice" and asked.details["via"] == "elicitation"
    tmem.decline([m.id], session="s1", operation="update", actor="alice")
    assert tmem.pending_confirmations() == []
    declined = tmem.audit(memory_id=m.id, op="forget_declined")[0]
    assert declined.actor == "alice" and declined.details["operation"] == "update"
    assert tmem.get(m.id).importance == 0.95
