"""What a memory says in any wording (planner/saying.py), including what it superseded: a
memory that replaced another (`remember(…, supersedes=…)`) states the same attribute of the
same subject, so a label request for that attribute still finds it after the chain moves on."""

from __future__ import annotations

from lethe.planner.pipeline import decide
from lethe.planner.port import Candidate
from lethe.planner.saying import label
from tests.planner.support import memory

FILLER = ("The print queue is down for maintenance.", 0.12)


def marked(request: str, stored: list[tuple[str, float, tuple[str, ...]]]) -> list[str]:
    candidates = [Candidate(memory(n, t), c, earlier) for n, (t, c, earlier) in enumerate(stored)]
    return [
        j.memory.content for j in decide(request, candidates).judgements if j.verdict == "delete"
    ]


def test_a_label_is_said_by_what_the_memory_superseded() -> None:
    chain = ("Dana switched to green.", 0.62, ("Dana's favorite color is blue.",))
    assert marked("Dana favorite color", [chain, (*FILLER, ())]) == ["Dana switched to green."]


def test_without_the_chain_the_same_text_says_nothing_of_the_label() -> None:
    alone = ("Dana switched to green.", 0.62, ())
    assert marked("Dana favorite color", [alone, (*FILLER, ())]) == []


def test_a_statement_of_the_old_value_is_not_said_by_the_memory_that_replaced_it() -> None:
    chain = ("Dana switched to green.", 0.62, ("Dana's favorite color is blue.",))
    assert marked("Dana's favorite color is blue", [chain, (*FILLER, ())]) == []


def test_a_reading_of_two_attributes_is_settled_by_what_the_memory_superseded() -> None:
    moved = "Dana moved to Stripe in 2022."
    settled = (moved, 0.55, ("Dana started at Google in 2020.",))
    assert marked("Dana employer", [settled, (*FILLER, ())]) == [moved]
    assert marked("Dana employer", [(moved, 0.55, ()), (*FILLER, ())]) == []
    lived = (moved, 0.55, ("Dana lives in Berlin.",))
    assert marked("Dana employer", [lived, (*FILLER, ())]) == []


def test_a_label_is_a_noun_phrase() -> None:
    assert label("Dana favorite color")
    assert label("user dietary preference")
    assert label("Kim job employer")
    assert not label("Dana's favorite color is blue")
    assert not label("Alice likes pizza")
    assert not label("I like olives")
    assert not label("the car I used to drive")
    assert not label("Dana moved to Berlin")


def test_a_label_in_japanese_or_chinese_ends_on_its_noun() -> None:
    assert label("田中の勤務先")
    assert label("田中の好きな色")
    assert not label("オリーブが好きなこと")
    assert label("王芳的工作单位")
    assert not label("我喜欢橄榄")
    assert not label("올리브 좋아해요")


def test_a_contraction_is_a_verb_so_a_request_with_one_states_a_fact() -> None:
    assert not label("I'm allergic to peanuts")
    assert not label("we've moved to Leeds")
    assert not label("Kim's not a smoker")
    assert label("Kim's address")


def test_a_memory_that_moved_on_to_another_attribute_no_longer_says_what_it_replaced() -> None:
    now_email = ("Frank's email is frank@x.io.", 0.6, ("Frank's phone number is 555 0134.",))
    assert marked("Frank phone number", [now_email, (*FILLER, ())]) == []
    now_leeds = ("Dana lives in Leeds.", 0.6, ("Dana's phone number is 555 0199.",))
    assert marked("Dana phone number", [now_leeds, (*FILLER, ())]) == []
