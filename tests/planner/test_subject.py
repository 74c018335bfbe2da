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


def test_an_identifiers_record_is_every_memory_holding_one_of_its_spellings() -> None:
    """An identifier names one subject: its record is every memory holding it, whatever
    else the memory says (a webhook's URL in the legacy docs is still that webhook)."""
    stored = [
        ("Customer alice@acme.org bought 3 items last week.", 0.6),
        ("Customer bob@acme.org placed an order yesterday.", 0.58),
        ("Ticket from alice@acme.org about the VPN.", 0.5),
    ]
    assert sorted(marked("alice@acme.org customer history", stored)) == [
        stored[0][0],
        stored[2][0],
    ]
    projects = [
        ("Project ID PRJ-ATLAS-2024 has 5 milestones.", 0.6),
        ("The shortcut ATLAS-2024 is in the slides.", 0.5),
        ("Project PRJ-HERMES-2024 has 2 milestones.", 0.55),
    ]
    assert sorted(marked("project ATLAS-2024 PRJ-ATLAS-2024 record", projects)) == sorted(
        t for t, _ in projects[:2]
    )


def test_a_person_named_in_two_scripts_or_without_diacritics_is_one_subject() -> None:
    stored = [
        ("Customer 张伟 placed an order in March.", 0.4),
        ("The same customer in pinyin: Zhang Wei subscribed to Plan A.", 0.6),
        ("Customer Wei Chen placed an order in May.", 0.5),
    ]
    assert sorted(marked("customer Zhang Wei aka 张伟", stored)) == sorted(t for t, _ in stored[:2])
    accents = [
        ("Client François Müller paid the September invoice.", 0.5),
        ("Same client Francois Muller (no accents) requested a refund.", 0.6),
        ("Client Frank Miller paid in August.", 0.5),
    ]
    assert sorted(marked("Francois Muller / François Müller client", accents)) == sorted(
        t for t, _ in accents[:2]
    )


def test_someone_elses_fact_that_mentions_the_subject_is_listed_not_marked() -> None:
    stored = [("Kim works with Dana on Fridays.", 0.6), ("Dana speaks French.", 0.5)]
    assert marked("Dana profile information", stored) == ["Dana speaks French."]


def test_a_japanese_record_is_every_memory_of_its_subject() -> None:
    stored = [
        ("田中はソニーで働いている。", 0.6),
        ("田中は東京に住んでいる。", 0.6),
        ("山本はトヨタで働いている。", 0.5),
    ]
    assert sorted(marked("田中のプロフィール情報", stored)) == sorted(t for t, _ in stored[:2])


def test_a_person_acting_in_a_memory_that_a_label_begins_is_that_persons_fact() -> None:
    stored = [
        ("Engineer Uma works in the platform team and ships Go services.", 0.55),
        ("Daniel's birthday party is on Monday; Uma is invited too.", 0.5),
    ]
    assert marked("forget everything about Uma", stored) == [stored[0][0]]


def test_a_description_that_is_only_its_scope_and_subject_is_the_whole_subject() -> None:
    stored = [
        ("Frank works at Notion as a backend engineer.", 0.62),
        ("Frank's favorite color is teal.", 0.46),
        ("Last quarter's all-hands had a frank discussion about layoffs.", 0.4),
    ]
    assert sorted(marked("everything about Frank the engineer", stored)) == sorted(
        t for t, _ in stored[:2]
    )


def test_all_of_a_kind_is_its_instances_not_the_word_in_another_sense() -> None:
    stored = [
        ("The user has a dentist appointment on Tuesday at 3pm.", 0.6),
        ("The user's optician appointment is on 12 June.", 0.55),
        ("The appointment book is blue.", 0.5),
        ("The user hates long appointments.", 0.5),
    ]
    assert sorted(marked("forget my appointments", stored)) == sorted(t for t, _ in stored[:2])


def test_a_name_in_chinese_is_the_whole_name_at_the_start_of_the_memory() -> None:
    stored = [
        ("王芳是医生。", 0.6),
        ("王芳芳喜欢唱歌。", 0.6),
        ("李强是王芳的同事。", 0.6),
    ]
    assert marked("把王芳的资料全部删掉", stored) == ["王芳是医生。"]


def test_someone_elses_fact_in_french_or_spanish_mentions_the_subject() -> None:
    stored = [("Léa habite à Rennes.", 0.6), ("Hugo travaille avec Léa.", 0.6)]
    assert marked("Oublie tout sur Léa", stored) == ["Léa habite à Rennes."]


def test_a_kinds_word_that_qualifies_another_noun_is_no_instance() -> None:
    stored = [
        ("The user's meeting room is 4B.", 0.7),
        ("The user's booking app is Kayak since 2021.", 0.6),
    ]
    assert marked("forget my meetings", stored[:1]) == []
    assert marked("forget my bookings", stored[1:]) == []
    kept = [("The user has a meeting with Ana on Monday at 10.", 0.6)]
    assert marked("forget my meetings", kept + stored[:1]) == [kept[0][0]]


def test_a_command_that_starts_with_a_name_is_no_persons_fact() -> None:
    stored = [
        ("Mark the calendar for the dentist on Friday.", 0.6),
        ("Mark the invoice 3312 as paid.", 0.6),
        ("Mark down the Q3 budget by 5%.", 0.6),
    ]
    assert marked("Mark's information", stored) == []


def test_a_chinese_request_for_a_person_is_their_memories_not_mentions() -> None:
    stored = [
        ("李明是医生。", 0.6),
        ("李明明喜欢画画。", 0.6),
        ("张三认识李明。", 0.6),
    ]
    assert marked("删除关于李明的所有信息", stored) == ["李明是医生。"]


def test_someone_who_shares_the_first_name_is_listed_when_the_one_meant_is_stored() -> None:
    stored = [
        ("Kim lives in Oslo.", 0.6),
        ("Kim Jong-un was in the news.", 0.5),
    ]
    assert marked("Forget everything about Kim", stored) == ["Kim lives in Oslo."]


def test_a_name_after_someone_elses_verb_is_a_mention_in_any_language() -> None:
    stored = [("Léa habite à Rennes.", 0.6), ("Hugo a invité Léa au cinéma.", 0.6)]
    assert marked("Oublie tout sur Léa", stored) == ["Léa habite à Rennes."]
