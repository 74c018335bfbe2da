"""Confirming a forget or purge asked through a face, in the engine once (issue 46): the
plan put to the person is kept until they answer; only a yes executes it; any other answer
is recorded and deletes nothing; a client that cannot ask confirms by the two-call rule."""

from __future__ import annotations

import pytest

from lethe import Lethe
from lethe.forget.results import Answer

TEXT = "The hotel door code is 4471."


def test_a_yes_executes_the_plan_the_person_was_shown(mem: Lethe) -> None:
    made = mem.remember(TEXT)
    plan = mem.ask_forget([made.id], session="s1")
    assert plan is not None and [t.id for t in plan.targets] == [made.id]
    assert [p.via for p in mem.pending_confirmations()] == ["elicitation"]
    outcome = mem.answer_forget([made.id], Answer(said="yes"), session="s1")
    assert outcome.result is not None and outcome.result.executed == (made.id,)
    assert outcome.result.plan_id == plan.id  # the very plan shown, not another one
    assert mem.pending_confirmations() == []


@pytest.mark.parametrize("said", ["decline", "cancel", "accept_without_content"])
def test_anything_but_a_yes_deletes_nothing_and_is_recorded(mem: Lethe, said: str) -> None:
    made = mem.remember(TEXT)
    mem.ask_forget([made.id], session="s1")
    outcome = mem.answer_forget([made.id], Answer(said=said), session="s1")  # type: ignore[arg-type]
    assert outcome.declined == said and outcome.result is None
    assert mem.get(made.id).status == "active"
    [event] = mem.audit(op="forget_declined")
    assert event.details["answer"] == said
    assert mem.pending_confirmations() == []


def test_not_asked_falls_back_to_the_two_calls(mem: Lethe) -> None:
    made = mem.remember(TEXT)
    first = mem.answer_forget([made.id], Answer(said="not_asked"), session="s1")
    assert first.confirmation is not None and first.confirmation.status == "pending"
    other = mem.answer_forget([made.id], Answer(said="not_asked"), session="s2")
    assert other.confirmation is not None and other.confirmation.status == "pending"
    again = mem.answer_forget([made.id], Answer(said="not_asked"), session="s1")
    assert again.confirmation is not None and again.confirmation.status == "executed"


def test_nothing_to_ask_about_asks_nothing(mem: Lethe) -> None:
    pinned = mem.remember(TEXT, importance=0.95)
    assert mem.ask_forget([pinned.id], session="s1") is None
    assert mem.pending_confirmations() == []


PIN = "Never give the user peanuts."


def test_a_weakening_change_needs_the_role_that_may_forget(mem: Lethe) -> None:
    from lethe.forget.change import Change

    made = mem.remember(PIN, layer="caveat")
    change = Change(layer="episodic")
    assert mem.ask_change(made.id, change, session="s1", role="write") is None
    refused = mem.answer_change(
        made.id, change, Answer(said="not_asked"), session="s1", role="write"
    )
    assert refused.status == "role" and mem.get(made.id).layer == "caveat"
    first = mem.answer_change(
        made.id, change, Answer(said="not_asked"), session="s1", role="forget"
    )
    assert first.status == "pending"
    again = mem.answer_change(
        made.id, change, Answer(said="not_asked"), session="s1", role="forget"
    )
    assert again.status == "executed" and mem.get(made.id).layer == "episodic"


def test_a_yes_makes_the_change_the_person_was_shown(mem: Lethe) -> None:
    from lethe.forget.change import Change

    made = mem.remember(PIN, layer="caveat")
    change = Change(layer="episodic", expected_sha256=made.content_sha256)
    plan = mem.ask_change(made.id, change, session="s1", role="forget")
    assert plan is not None and plan.needs_confirmation
    other = Change(layer="semantic")  # a yes confirms only the change its question showed
    assert (
        mem.answer_change(made.id, other, Answer(said="yes"), session="s1", role="forget").status
        == "not_open"
    )
    done = mem.answer_change(made.id, change, Answer(said="yes"), session="s1", role="forget")
    assert done.status == "confirmed" and done.memory is not None
    assert done.memory.layer == "episodic"


def test_a_change_that_weakens_nothing_is_made_at_once(mem: Lethe) -> None:
    from lethe.forget.change import Change

    made = mem.remember(TEXT)
    change = Change(tags=("door",))
    assert mem.ask_change(made.id, change, session="s1", role="forget") is None
    done = mem.answer_change(made.id, change, Answer(said="not_asked"), session="s1", role="write")
    assert done.status == "updated" and done.memory is not None and done.memory.tags == ("door",)
