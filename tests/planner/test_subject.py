"""A whole subject (planner/subject.py): someone's record is every memory of theirs that
says what the record is of; someone else's fact that mentions them is listed, not deleted."""

from __future__ import annotations

from tests.planner.support import marked

DANA = [
    ("Dana works at Google.", 0.55),
    ("Dana lives in Berlin.", 0.52),
    ("Dana speaks French.", 0.50),
    ("Kim works at Meta.", 0.40),
    ("Kim works with Dana on Fridays.", 0.45),
    ("The print queue is down for maintenance.", 0.10),
]


def test_a_persons_profile_is_each_of_their_memories_and_no_one_elses() -> None:
    assert sorted(marked("Dana profile information", DANA)) == [
        "Dana lives in Berlin.",
        "Dana speaks French.",
        "Dana works at Google.",
    ]


def test_a_qualified_record_is_the_memories_that_say_its_qualifier() -> None:
    stored = [
        ("Patient Dana Kim, DOB 1970-04-12, diagnosed with asthma.", 0.50),
        ("Dana Kim likes sushi.", 0.50),
    ]
    assert marked("Dana Kim medical record", stored) == [stored[0][0]]


def test_a_qualified_record_that_is_not_stored_marks_nothing() -> None:
    assert marked("Kim medical record", [("Kim likes sushi.", 0.55)]) == []


def test_an_identifiers_record_is_every_memory_holding_it_that_says_its_qualifier() -> None:
    stored = [
        ("Customer alice@acme.org bought 3 items last week.", 0.6),
        ("Customer bob@acme.org placed an order yesterday.", 0.58),
        ("Ticket from alice@acme.org about the VPN.", 0.5),
    ]
    assert marked("alice@acme.org customer history", stored) == [stored[0][0]]


def test_a_japanese_record_is_every_memory_of_its_subject() -> None:
    stored = [
        ("田中はソニーで働いている。", 0.6),
        ("田中は東京に住んでいる。", 0.6),
        ("山本はトヨタで働いている。", 0.5),
    ]
    assert sorted(marked("田中のプロフィール情報", stored)) == sorted(t for t, _ in stored[:2])
