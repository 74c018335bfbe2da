"""Words a memory says another way (planner/wording.py): the head word naming an identifier,
and words of one attribute — never a qualifier, a value or a word of the same kind."""

from __future__ import annotations

import pytest

from lethe.planner import evidence
from lethe.planner.wording import (
    identifier_names,
    names_identifiers,
    naming_words,
    said_by_holding,
    said_by_phrase,
    said_otherwise,
)


@pytest.mark.parametrize(
    ("request_text", "named"),
    [
        ("my mobile is +44 7700 900139", {"mobil"}),
        ("I drive a red Mazda 3 with plate EW-8478", {"plate"}),
        ("My tax portal verification code was 44762", {"code"}),
        ("the verification code for my bank login was 44762", {"code"}),
        ("the Wi-Fi password at Emma's parents' house is marble-35", {"password"}),
        ("Bob's flight to Austin is IB 6616 on Friday 10 December", {"flight"}),
        ("booking reference FDL9PS", {"refer"}),
        # A verb before a number is not what the number is; a name is a value; a date
        # names a day; a year says when.
        ("Hannah takes 200 mg of lisinopril", set()),
        ("Bob owes Nina $85", set()),
        ("my flight is on Friday 10 December", set()),
        ("my address from 2023", set()),
        # A date names a day, not the fact: any event may fall on it.
        ("my birthday is 3 May", set()),
        ("the office is room 214", {"room"}),
        # Only the head: "personal" qualifies the e-mail address it names.
        ("Lucas's personal e-mail address is lucas.novak@gmail.com", {"address"}),
    ],
)
def test_the_head_word_before_an_identifier_names_it(request_text: str, named: set[str]) -> None:
    assert naming_words(request_text) == named


@pytest.mark.parametrize(
    ("word", "memory"),
    [
        ("mobile", "I can be reached on +1 415 555 0689"),
        ("flight", "Bob flies to Austin on Friday"),
        ("works", "Bob's employer is Zalando"),
        ("owes", "Bob's debt to Nina"),
        ("medication", "Hannah is prescribed lisinopril"),
    ],
)
def test_a_word_of_the_same_attribute_is_said_otherwise(word: str, memory: str) -> None:
    lacking = evidence.words(word)
    assert said_otherwise(lacking, evidence.words(memory)) == lacking


@pytest.mark.parametrize(
    ("word", "memory"),
    [
        # Values and qualifiers of one kind are other facts.
        ("dog", "My rabbit is called Pepper"),
        ("personal", "Lucas uses it for work mail"),
        ("dentist", "The user sees the optician on Friday"),
        ("cabin", "The Wi-Fi at Emma's parents' house"),
        # A word in another common sense joins nothing.
        ("address", "The user prefers a flat white in the morning"),
        ("phone", "Nina lost her wedding ring"),
        ("medication", "The user would like to take up sourdough baking"),
        ("allergic", "Alice reacts angrily to cats on the table"),
        ("car", "My hard drive is broken"),
        ("car", "I sold my driving lessons voucher"),
        ("flight", "Bob's plane tree is 9 metres tall"),
        ("birthday", "Maria gave birth to Leo"),
        ("mobile", "Nina's landline"),
        ("address", "I work from home on Fridays"),
        ("mail", "My inbox is full"),
        # Who lent and who owes are two directions of a debt: not one word.
        ("lent", "I owe Bob $50"),
    ],
)
def test_a_value_a_qualifier_or_another_sense_is_not_said_otherwise(word: str, memory: str) -> None:
    assert said_otherwise(evidence.words(word), evidence.words(memory)) == frozenset()


@pytest.mark.parametrize(
    ("memory", "named"),
    [
        ("Nina can be reached on +49 151 2345 6421.", False),
        ("Julia drives a green Fiat 500 (HB-7017).", False),
        ("Maria lives at 110 Baker Street, Amsterdam.", False),
        ("My home phone is 020 7946 0000.", True),
        ("Bob's office is room 214.", True),
        ("I have $85,000 in savings.", True),
        # A date is named by no word: the request's word before a date is never explained.
        ("My dentist appointment is on 14 March.", False),
    ],
)
def test_a_memory_names_its_identifier_before_or_after_it(memory: str, named: bool) -> None:
    assert names_identifiers(memory) is named


@pytest.mark.parametrize(
    ("request_text", "lacking", "memory"),
    [
        ("I react to peanuts", "react", "The user is allergic to peanuts."),
        ("I am allergic to latex", "allergic", "Careful: the user reacts badly to latex."),
        ("my allergy to sesame", "allergy", "I react severely to sesame."),
        ("Hannah takes 200 mg of lisinopril", "takes", "Hannah's medication: lisinopril 200 mg."),
        ("Tom's medication is sertraline", "medication", "Tom takes 100 mg of sertraline daily."),
        ("what car I drive", "drive", "The user's car is a red Mazda 3."),
        ("Julia's old car", "car", "Julia drives a green Fiat 500."),
        ("Daniel's home address", "home address", "Daniel lives at 43 Maple Avenue, Porto."),
        ("Maria's address", "address", "Maria lives at 110 Baker Street."),
        ("where Maria lives", "lives", "Maria's address: 110 Baker Street."),
    ],
)
def test_a_construction_says_the_attribute_of_its_group(
    request_text: str, lacking: str, memory: str
) -> None:
    words = evidence.words(lacking)
    assert said_by_phrase(request_text, words, memory, evidence.words(memory)) == words


@pytest.mark.parametrize(
    ("request_text", "lacking", "memory"),
    [
        # Reacting angrily, or taking a train or twenty minutes, is no allergy or medication.
        ("I react to criticism", "react", "Alice reacts angrily to criticism."),
        ("I am allergic to cats", "allergic", "Alice reacts angrily to cats on the table."),
        ("I take the 8:15 train", "take", "My medication: the 8:15 pill."),
        ("my medication", "medication", "The commute takes 20 minutes."),
        ("my car", "car", "My hard drive is broken."),
        ("my car", "car", "We went for a drive to the coast."),
        # A construction's other word is said by it, never the construction by that word.
        ("I live at 5 Elm Street", "live", "I work from home."),
        ("Daniel's address", "address", "Daniel lived in Tokyo for two years."),
        ("my home address", "home address", "The user's cat lives in the garden shed."),
    ],
)
def test_the_same_verb_in_another_construction_says_nothing(
    request_text: str, lacking: str, memory: str
) -> None:
    words = evidence.words(lacking)
    assert said_by_phrase(request_text, words, memory, evidence.words(memory)) == frozenset()


@pytest.mark.parametrize(
    ("request_text", "names"),
    [
        ("order number 470-1234567", {"order", "number"}),
        ("Daniel ordered a blender from MediaMarkt, order 993-9364785", {"order"}),
        ("the password marble-50", {"password"}),
        ("verification code ２１３２", {"verif", "code"}),
        ("could you erase 712746?", set()),
    ],
)
def test_the_words_right_before_an_identifier_name_it(request_text: str, names: set[str]) -> None:
    assert identifier_names(request_text) == names


@pytest.mark.parametrize(
    ("memory", "said"),
    [
        ("Mobile of Alice: +351 912 822 199.", True),
        ("Call Nina on 020 7946 0958.", True),
        # A postcode, a PIN, a plate or an account named by its acronym is no "number".
        ("Daniel: 43 Maple Avenue, 10115 Berlin.", False),
        ("The user's bank PIN: 4821.", False),
        ("Tom's IBAN: DE89 3704 0044 0532 0130 00.", False),
        ("Alice's birthday: 3 May.", False),
        ("Maria's e-mail in 2020: maria.silva@fastmail.com.", False),
        ("The verification code for the user's phone carrier was 40804.", False),
        ("Bob owes me $50.", False),
        ("Alice's mobile phone is new.", False),
    ],
)
def test_a_memory_that_holds_a_number_says_number(memory: str, said: bool) -> None:
    words = evidence.words("number")
    assert said_by_holding(words, memory) == (words if said else frozenset())


def test_a_diet_the_languages_spoken_and_a_use_are_said_in_their_other_words() -> None:
    from lethe.planner.wording import said_otherwise

    said = evidence.words("User follows a vegan diet and speaks French; refuses to use Slack")
    assert said_otherwise(evidence.words("dietary language usage"), said) == evidence.words(
        "dietary language usage"
    )
