"""Reading a request's instruction and scope (planner/request.py)."""

from __future__ import annotations

import pytest

from lethe.planner.request import read


@pytest.mark.parametrize(
    ("text", "obj"),
    [
        ("everything about Frank the engineer", "Frank the engineer"),
        ("everything you know about Alice", "Alice"),
        ("anything on Dana", "Dana"),
        ("forget everything about Alice", "Alice"),
    ],
)
def test_a_scope_and_a_subject_without_a_verb_ask_for_the_whole_subject(text: str, obj: str) -> None:
    request = read(text)
    assert (request.object, request.scope) == (obj, "subject")


def test_a_fact_without_a_scope_word_stays_one_fact() -> None:
    assert read("Frank the engineer").scope == "fact"
    assert read("all-hands moved to Wednesday").scope == "fact"
