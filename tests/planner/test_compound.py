"""A memory that holds two facts, of which the request forgets one: the plan proposes an edit
(the memory without that fact, cut from its own words), shown as a diff and executed as a
versioned update in the plan's transaction — on both stores, with the real embedder."""

from __future__ import annotations

import pytest

from lethe import Lethe
from lethe.forget.plan import ForgetPlan
from lethe.planner import compound, evidence
from tests.backends import snapshot

USER = frozenset({"user"})


def _cut(text: str, request: str) -> compound.Split | None:
    return compound.split(text, evidence.words(request) - USER, USER)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (
            "The user takes sertraline and is allergic to penicillin.",
            "The user is allergic to penicillin.",
        ),
        (
            "The user is allergic to penicillin and takes sertraline.",
            "The user is allergic to penicillin.",
        ),
        (
            "The user takes sertraline, and the user is allergic to penicillin too.",
            "The user is allergic to penicillin.",
        ),
        (
            "The user is allergic to penicillin; the user takes sertraline as well.",
            "The user is allergic to penicillin.",
        ),
        (
            "The user takes sertraline. The user is allergic to penicillin.",
            "The user is allergic to penicillin.",
        ),
        # A name after "and" that a verb follows starts a clause ("Marks and Spencer" does not).
        (
            "The user lives in Milan, and the user takes sertraline too.",
            "The user lives in Milan.",
        ),
    ],
)
def test_the_edit_keeps_the_other_fact_in_the_memorys_own_words(text: str, kept: str) -> None:
    found = _cut(text, "I take sertraline")
    assert found is not None and found.edit is not None
    assert found.edit.new_content == kept
    new = evidence.words(found.edit.new_content)
    assert new <= evidence.words(text), "no word of its own"
    assert not new & {"sertralin", "take"}, "nothing of the fact to forget"


@pytest.mark.parametrize(
    ("text", "request_text"),
    [
        # The clause without a subject is about the thing to forget (the parrot).
        ("Sofia's parrot is called Biscuit and is 8 years old.", "Sofia's parrot"),
        # A part that points back ("it costs") belongs to the part it points to.
        ("Hannah's gym membership number is 558865; it costs £32 a month.", "membership 558865"),
        # "this" standing for the fact said before it is a detail of that fact, not another.
        ("User does not have any pets and has stated this firmly.", "user pet ownership"),
        # One sentence, whatever the abbreviation's full stop.
        ("I am seeing Dr. Moreau on Monday.", "I see Dr. Moreau"),
    ],
)
def test_one_fact_is_not_cut(text: str, request_text: str) -> None:
    assert _cut(text, request_text) is None


@pytest.mark.parametrize(
    ("text", "request_text"),
    [
        # "live" after "and" may begin a clause or not: no grammar tells, so nothing is marked.
        ("I speak French and live in Paris.", "I live in Paris"),
        # A list inside one clause: the other item would be lost by a deletion.
        ("The user likes green tea and espresso.", "I like green tea"),
    ],
)
def test_an_uncertain_cut_marks_nothing(text: str, request_text: str) -> None:
    found = _cut(text, request_text)
    assert found is not None and found.edit is None and found.doubt


def test_the_diff_shows_the_words_cut() -> None:
    diff = compound.word_diff(
        "The user takes sertraline and is allergic to penicillin.",
        "The user is allergic to penicillin.",
    )
    assert diff == "The user [-takes sertraline and-] is allergic to penicillin."


def _plan_edit(mem: Lethe) -> tuple[str, ForgetPlan]:
    both = mem.remember("The user takes sertraline and is allergic to penicillin.").id
    mem.remember("Tom takes sertraline.")
    mem.remember("The user's penicillin allergy was confirmed by a test in 2019.")
    plan = mem.plan_forget(query="forget that I take sertraline")
    return both, plan


def test_a_compound_memory_is_edited_not_deleted_and_its_history_keeps_only_the_rest(
    mem: Lethe,
) -> None:
    """The version the edit replaces keeps its place (number, author, op) with the edit's
    text: the fact is forgotten in the past too, so no revert brings it back."""
    both, plan = _plan_edit(mem)
    assert plan.targets == ()
    [edit] = plan.edits
    assert edit.id == both and edit.new_content == "The user is allergic to penicillin."
    assert edit.diff is not None and "[-takes sertraline and-]" in edit.diff
    assert "Would edit 1 memory" in plan.notes and "revert cannot bring it back" in plan.notes
    result = mem.execute(plan)
    assert result.edited == (both,) and result.executed == ()
    assert mem.get(both).content == "The user is allergic to penicillin."
    hit = mem.recall("sertraline", k=5)
    assert both not in {h.memory.id for h in hit if "sertraline" in h.memory.content}
    history = mem.history(both)
    assert [(v.version, v.op) for v in history] == [(2, "edit"), (1, "remember")]
    assert [v.content for v in history] == ["The user is allergic to penicillin."] * 2
    [event] = [e for e in mem.audit(memory_id=both) if e.op == "edit"]
    assert event.details["plan"] == plan.id and event.details["versions_cut"] == [1]
    mem.revert(both, 1)
    assert "sertraline" not in mem.get(both).content


def test_an_edit_changed_since_the_preview_is_not_applied(mem: Lethe, db: str) -> None:
    both, plan = _plan_edit(mem)
    mem.update(both, content="The user takes sertraline daily and is allergic to penicillin.")
    before = snapshot(db)
    result = mem.execute(plan)
    assert result.edited == () and result.stale == (both,)
    assert result.fresh_plan is not None
    assert mem.get(both).content.startswith("The user takes sertraline daily")
    assert snapshot(db) == before


def test_a_protected_compound_memory_is_refused(mem: Lethe) -> None:
    both, plan = _plan_edit(mem)
    mem.update(both, importance=0.9)
    result = mem.execute(plan)
    assert result.edited == () and [i.id for i in result.refused] == [both]
    assert mem.get(both).content.startswith("The user takes sertraline")
    again = mem.plan_forget(query="forget that I take sertraline")
    assert again.edits == () and [i.id for i in again.refused] == [both]


@pytest.mark.parametrize(
    ("longer", "fact"),
    [
        ("I take omeprazole; I speak Spanish as well.", "The user speaks Spanish."),
        (
            "The user has a cat called Ziggy; the user is a member of Urban Gym too.",
            "The user is a member of Urban Gym.",
        ),
        ("Bob works at Atlassian, and Bob takes sertraline too.", "Bob works at Atlassian."),
    ],
)
def test_a_part_that_leans_on_another_with_too_or_as_well_is_the_fact_again(
    longer: str, fact: str
) -> None:
    """ "…; I speak Spanish as well" holds "The user speaks Spanish." stored again: the
    adverb leans on the other part, it is no word of this one. Otherwise the two would look
    like rivals the vector alone must tell apart, and neither would be forgotten."""
    owners = evidence.words("user bob")
    assert compound.holds_as_part(longer, fact, owners)
    assert not compound.holds_as_part(longer, "The user speaks French.", owners)


# -- the fact in earlier versions (engine/redaction.py cuts them) ------------------------------

EDITED = (
    "The user takes sertraline and is allergic to penicillin.",
    "The user is allergic to penicillin.",
)


@pytest.mark.parametrize(
    ("earlier", "after"),
    [
        # Cut the way the edit was: the other fact stays, in the version's own words.
        ("The user takes sertraline. The user lives in Milan.", "The user lives in Milan."),
        (
            "The user takes 50 mg of sertraline daily and is allergic to penicillin.",
            "The user is allergic to penicillin.",
        ),
        # Nothing but the fact, said in other words: the version keeps its place, not the fact.
        ("The user takes sertraline.", compound.FORGOTTEN),
        ("The user is on sertraline now.", compound.FORGOTTEN),
        # Not cleanly cut: the fact must not stay behind, so the whole text goes.
        ("The user is on sertraline and is allergic to penicillin.", compound.FORGOTTEN),
        # Another fact that shares only the fact's verb is not the fact.
        ("The user takes the bus to work.", None),
        ("The user is allergic to penicillin.", None),
        (compound.FORGOTTEN, None),
    ],
)
def test_an_earlier_version_loses_the_fact_an_edit_cut(earlier: str, after: str | None) -> None:
    fact = compound.fact_words(*EDITED)
    assert compound.without_fact(earlier, fact) == after


def test_the_facts_words_leave_out_the_verb_it_shares_with_other_facts() -> None:
    assert compound.fact_words(*EDITED) == evidence.words("sertraline")
    # Only a verb was cut: the verb is the fact.
    assert compound.fact_words("The user smokes and is allergic to penicillin.", EDITED[1]) == (
        evidence.words("smokes")
    )
