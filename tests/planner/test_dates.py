"""Dates and qualifiers (issue 24): "my 2018 address" is the memory that says where the user
lived in 2018, "my old car" the one they used to drive, "the e-mail Sofia used in 2023" the
one she had then — though the vector barely relates the wordings. The sentences here are not
the benchmark's."""

from __future__ import annotations

from lethe.forget.corrections import likely_superseded
from lethe.planner import wording
from lethe.planner.attributes import stated, stated_ever
from tests.planner.support import marked as _marked
from tests.planner.support import memory as _memory


def test_a_memory_that_states_the_named_attribute_needs_no_close_vector() -> None:
    lived = "Back in 2016 I lived at 9 Harbour Row, Cork."
    texts = [
        (lived, 0.33),
        ("My address in 2021: 4 Quay Street, Galway.", 0.47),
        ("My car in 2016: a silver Honda Jazz.", 0.30),
    ]
    assert _marked("forget my 2016 address", texts) == [lived]
    drove = "I used to drive a silver Honda Jazz (KD-1180)."
    cars = [(drove, 0.25), ("I drive a red Kia Picanto (LX-5521).", 0.22)]
    assert _marked("remove my old car", cars) == [drove]


def test_a_low_vector_alone_is_still_not_enough() -> None:
    """A memory that says the word but states no such attribute ("left an umbrella in the
    car") is not let past the floor."""
    texts = [("I left an umbrella in the old car.", 0.3)]
    assert _marked("remove my old car", texts) == []


def test_a_closer_memory_that_leaves_a_word_unsaid_is_no_rival() -> None:
    """ "my previous address": the old e-mail address is closer in meaning, but it is mail,
    not where the user lived."""
    lived = "I used to live at 10 Kastanienallee, London."
    texts = [
        ("My old e-mail address was sam.berg@mailbox.org.", 0.46),
        (lived, 0.31),
        ("I live at 28 Kastanienallee, Berlin.", 0.29),
    ]
    assert _marked("forget my previous address", texts) == [lived]


def test_a_number_with_a_country_code_is_a_phone_unless_called_something_else() -> None:
    assert wording.said_by_phone({"phone"}, "Maria's number in 2020: +44 7700 900707.")
    assert wording.said_by_phone({"phone"}, "Old number, no longer in use: +49 151 2345 7853.")
    assert not wording.said_by_phone({"phone"}, "Maria's fax: +44 20 7946 0000.")
    assert not wording.said_by_phone({"phone"}, "Maria's account is 0044 7700 9007.")
    older = "Maria's number in 2020: +44 7700 900707."
    texts = [(older, 0.89), ("Maria's phone number is +1 415 555 0428.", 0.87)]
    assert _marked("Please drop Maria's 2020 phone number", texts) == [older]


def test_a_verb_that_only_says_whose_it_was_is_said_by_their_memory() -> None:
    assert wording.said_by_having("the e-mail Sofia used in 2023", {"use"}) == {"use"}
    assert wording.said_by_having("the code I used to open the gate", {"open"}) == set()
    then = "In 2023 Sofia's e-mail address was sofia.schmidt@acme.io."
    texts = [
        (then, 0.79),
        ("Sofia uses sofia.novak@example.com for mail.", 0.71),
        ("Sofia's e-mail in 2018: sofia.silva@example.com.", 0.67),
    ]
    assert _marked("forget about the e-mail Sofia used in 2023", texts) == [then]


def test_a_past_statement_is_history_not_the_current_value() -> None:
    assert stated("In 2018 the user lived at 84 Rue Oberkampf, Milan.") == frozenset()
    assert stated_ever("In 2018 the user lived at 84 Rue Oberkampf, Milan.") == {"residence"}
    assert stated("Kenji worked at Nokia.") == frozenset()
    assert stated("Kenji works at Nokia.") == {"employer"}
    old = _memory(1, "In 2018 the user lived at 84 Rue Oberkampf, Milan.")
    named = likely_superseded("I relocated to Porto", [(old, 0.4)])
    assert all(s.confidence < 0.9 for s in named)
