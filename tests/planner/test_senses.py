"""Words that are also names (issue 24): "Dawn" the friend and "running at dawn", "Mark"
and "mark the calendar", "Turkey" the country and the turkey for Thanksgiving. Whether a
capitalised word that starts a sentence is a name is read from the sentence (a verb follows
it) and from the texts around it (they write it as a name somewhere), never from a list of
such words."""

from __future__ import annotations

import pytest

from lethe.planner import evidence
from tests.planner.support import marked


def _marked(request: str, texts: list[str]) -> list[str]:
    return marked(request, [(t, 0.6 - n * 0.01) for n, t in enumerate(texts)])


DAWN = [
    "Dawn has a GP appointment with Dr. Patel on Thursday 20 March at 11:15.",
    "Dawn's flight to Milan is IB 6429 on Saturday 9 March.",
    "Dawn lent Daniel $650 for a car repair.",
    "Dawn light wakes the user because the bedroom has no blinds.",
    "The user goes running at dawn on weekdays.",
]


def test_a_name_that_starts_a_sentence_before_its_verb_is_the_person() -> None:
    assert _marked("forget everything about Dawn", DAWN) == DAWN[:3]


def test_the_same_word_before_a_noun_or_as_a_command_is_not_the_person() -> None:
    texts = [
        "Mark flies to Munich on Thursday 24 December.",
        "Mark the calendar: the tax return is due in May.",
        "There is a coffee mark on the user's white sofa.",
        "Birthday of Mark: 19 June.",
    ]
    assert _marked("wipe every memory about my friend Mark", texts) == [texts[0], texts[3]]
    ginger = [
        "Ginger's phone number is +44 7700 900123.",
        "Ginger biscuits are on the shopping list.",
        "Ginger takes 50 mg of sertraline every morning.",
        "The user drinks ginger tea when feeling sick.",
    ]
    assert _marked("forget all about Ginger", ginger) == [ginger[0], ginger[2]]


def test_a_word_written_only_in_lower_case_elsewhere_is_no_name_at_a_sentence_start() -> None:
    """Without the texts around it writing it as a name, a verb after it does not make it
    one: "Coffee keeps the user awake" is nobody's fact."""
    texts = ["Coffee keeps the user awake.", "The user drinks coffee at noon."]
    common = evidence.lowercase_words(texts)
    named = evidence.named_words(texts)
    assert evidence.read(texts[0], common, named).owner == evidence.USER
    assert "coffee" not in evidence.read(texts[0], common, named).names


def test_a_request_that_starts_with_an_activity_is_not_about_a_person() -> None:
    assert _marked("Running at dawn", DAWN) == [DAWN[4]]


def test_a_feast_is_no_ones_fact() -> None:
    texts = [
        "The user is roasting a turkey for Thanksgiving.",
        "Turkey sandwiches were left over from the party.",
        "The user's trip to Turkey is booked for September.",
    ]
    assert _marked("forget about the turkey for Thanksgiving", texts) == [texts[0]]
    reading = evidence.read("Dinner for Christmas is at Anna's.", frozenset())
    assert reading.owner == "anna"


@pytest.mark.parametrize(
    ("text", "about_bill"),
    [
        ("Maria owes Bill $1750 (borrowed for a new laptop).", True),
        ("Loan: €300 from Bill to Kenji, for rent.", True),
        ("Nina met Bill at the conference in Vienna.", False),
        ("The electricity bill is due on Friday.", False),
    ],
)
def test_a_debt_is_a_fact_of_both_its_parties(text: str, about_bill: bool) -> None:
    texts = [text, "Bill's phone number is +49 151 2345 1968."]
    assert (text in _marked("delete what you know about Bill", texts)) is about_bill


def test_words_a_memory_holds_only_as_names_are_another_sense() -> None:
    """ "the ginger biscuits" against "Ginger's parrot is called Biscuit": the request's
    words in lower case are there only as names, so the parrot is no twin of the biscuits."""
    texts = [
        ("Ginger biscuits are the user's guilty pleasure.", 0.82),
        ("Ginger's parrot is called Biscuit and is 10 years old.", 0.57),
        ("The user drinks ginger tea when feeling sick.", 0.40),
    ]
    assert marked("Can you forget the ginger biscuits?", texts) == [texts[0][0]]
