"""Reading a request for a record (planner/record.py): a subject named in one spelling or
several, with what kind of record it is, is a whole subject; one attribute is not."""

from __future__ import annotations

import pytest

from lethe.planner.ask import read_request
from lethe.planner.record import Record, record_of


@pytest.mark.parametrize(
    ("request_text", "record"),
    [
        ("Dana profile information", Record(("Dana",), "")),
        ("Frank's details", Record(("Frank",), "")),
        ("Dana Kim medical record", Record(("Dana Kim",), "medical")),
        ("Frank's contact details", Record(("Frank",), "contact")),
        ("alice@example.com customer history", Record(("alice@example.com",), "customer", True)),
        ("田中のプロフィール情報", Record(("田中",), "")),
        ("田中の医療記録", Record(("田中",), "医療")),
        ("王芳的病历", Record(("王芳",), "")),
        ("王芳的个人信息", Record(("王芳",), "")),
        ("please delete Nina's data", Record(("Nina",), "")),
        ("Ivan Petrov / Иван Петров", Record(("Ivan Petrov", "Иван Петров"), "")),
        ("customer Zhang Wei aka 张伟", Record(("Zhang Wei", "张伟"), "")),
        ("Kim Minji 김민지 account", Record(("Kim Minji", "김민지"), "")),
        ("Mohammed Ali / محمد علي patient record", Record(("Mohammed Ali", "محمد علي"), "patient")),
        ("Grossmann / Großmann GmbH", Record(("Grossmann", "Großmann GmbH"), "")),
        (
            "project ATLAS-2024 PRJ-ATLAS-2024 record",
            Record(("ATLAS-2024", "PRJ-ATLAS-2024"), "", True),
        ),
        ("Alan Turing user account", Record(("Alan Turing",), "")),
    ],
)
def test_a_record_of_a_subject_in_one_spelling_or_several_is_a_whole_subject(
    request_text: str, record: Record
) -> None:
    reading = read_request(request_text)
    assert reading.record == record
    assert reading.request.scope == "subject"


@pytest.mark.parametrize(
    "request_text",
    [
        "Dana employer",  # one attribute
        "Dana job",
        "Dana's address",
        "my medical records",  # the user's: a careful person asks which
        "user profile information",
        "the Lisbon trip details",  # a thing, not a name or an identifier
        "Dana's favourite colour",
        "Daniel ordered a blender, order 993-114",  # a sentence
        "SSN 123-45-6789",  # one identifier: decided as one (every holder)
    ],
)
def test_an_attribute_or_a_record_without_a_named_subject_is_no_record(request_text: str) -> None:
    reading = read_request(request_text)
    assert reading.record is None
    assert reading.request.scope == "fact"


def test_a_whole_subject_request_reads_an_apposition_as_which_one_is_meant() -> None:
    assert record_of("Frank the engineer", whole=True) == Record(("Frank",), "")
    assert record_of("Charlie on the team", whole=True) == Record(("Charlie",), "")
    assert record_of("Frank the engineer") is None


def test_an_identifiers_record_in_japanese_is_every_holder() -> None:
    assert record_of("grace@mail.jpの顧客記録") == Record(("grace@mail.jp",), "顧客", True)
