"""The gates (planner/gate.py): what a request names must be there. Polarity is one of them
only for a request that states a fact: a label ("user pet ownership") states neither that
the fact holds nor that it does not, so it means the memory either way."""

from __future__ import annotations

from lethe.planner import rules
from tests.planner.support import marked

NO_PETS = "User does not have any pets and has stated this firmly."
STORED = [(NO_PETS, 0.62), ("User's apartment has a small balcony.", 0.35)]


def test_a_label_means_the_fact_whichever_way_it_is_said() -> None:
    assert marked("user pet ownership", STORED) == [NO_PETS]


def test_a_statement_of_the_opposite_never_marks_it() -> None:
    assert marked("forget that I have pets", STORED) == []


def test_a_negated_label_still_needs_a_negated_memory() -> None:
    assert marked("user not a pet owner", [("User has two cats.", 0.6)]) == []


def test_without_the_polarity_gate_the_statement_would_mark_the_opposite() -> None:
    with rules.without("gate-polarity"):
        assert marked("forget that I have pets", STORED) == [NO_PETS]


def test_a_contracted_statement_keeps_its_polarity() -> None:
    stored = [("The user is not allergic to peanuts.", 0.7), ("The user likes tea.", 0.3)]
    assert marked("forget that I'm allergic to peanuts", stored) == []


def test_a_negation_in_german_french_or_spanish_is_the_opposite_fact() -> None:
    assert marked("Vergiss, dass ich Oliven mag", [("Ich mag keine Oliven.", 0.8)]) == []
    assert marked("Olvida que me gusta el fútbol", [("No me gusta el fútbol.", 0.8)]) == []
    assert (
        marked(
            "Oublie que je suis allergique aux arachides",
            [("Je ne suis pas allergique aux arachides.", 0.8)],
        )
        == []
    )


def test_a_relatives_fact_in_japanese_spanish_or_french_is_not_the_users_own() -> None:
    own = [("私の電話番号は090-1234-5678です", 0.8)]
    assert marked("母の電話番号を忘れて", own) == []
    birthday = [("Mi cumpleaños es el 4 de julio", 0.8)]
    assert marked("Olvida el cumpleaños de mi hermana", birthday) == []
