"""Reading a request once (planner/ask.py): the record of a subject ("Dana profile
information", 「田中の医療記録」) is a whole subject, whatever words ask for it; one attribute
("Dana employer") is not."""

from __future__ import annotations

import pytest

from lethe.planner.ask import Record, read_request


@pytest.mark.parametrize(
    ("request_text", "record"),
    [
        ("Dana profile information", Record("Dana", "")),
        ("Frank's details", Record("Frank", "")),
        ("Dana Kim medical record", Record("Dana Kim", "medical")),
        ("Frank's contact details", Record("Frank", "contact")),
        ("alice@example.com customer history", Record("alice@example.com", "customer")),
        ("田中のプロフィール情報", Record("田中", "")),
        ("田中の医療記録", Record("田中", "医療")),
        ("王芳的病历", Record("王芳", "")),
        ("please delete Nina's data", Record("Nina", "")),
    ],
)
def test_a_record_of_a_name_or_an_identifier_is_a_whole_subject(
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
        "my medical records",  # the user's: a careful person asks which
        "user profile information",
        "the Lisbon trip details",  # a thing, not a name or an identifier
        "Dana's favourite colour",
    ],
)
def test_an_attribute_or_a_record_without_a_named_subject_is_no_record(request_text: str) -> None:
    reading = read_request(request_text)
    assert reading.record is None
    assert reading.request.scope == "fact"
