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
def test_a_scope_and_a_subject_without_a_verb_ask_for_the_whole_subject(
    text: str, obj: str
) -> None:
    request = read(text)
    assert (request.object, request.scope) == (obj, "subject")


def test_a_fact_without_a_scope_word_stays_one_fact() -> None:
    assert read("Frank the engineer").scope == "fact"
    assert read("all-hands moved to Wednesday").scope == "fact"


@pytest.mark.parametrize(
    ("text", "obj", "scope"),
    [
        ("Vergiss alles über Dana", "Dana", "subject"),
        ("Vergiss, dass ich Oliven mag", "ich Oliven mag", "fact"),
        ("Oublie tout sur Marie", "Marie", "subject"),
        ("Supprime le numéro de Marie", "le numéro de Marie", "fact"),
        ("Borra todo sobre Juan", "Juan", "subject"),
        ("Olvida que me gustan las aceitunas", "me gustan las aceitunas", "fact"),
    ],
)
def test_a_request_in_german_french_or_spanish_is_read_like_an_english_one(
    text: str, obj: str, scope: str
) -> None:
    request = read(text)
    assert (request.object, request.scope) == (obj, scope)
