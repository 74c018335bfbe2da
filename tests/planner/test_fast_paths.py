"""The readers' shortcuts find what their full patterns find (issue 47: speed only).

`evidence.negated` tries each alternative of `_NEGATION` alone, and in a text of ASCII
characters tries it in lower case without IGNORECASE, only where the text holds one of its
needles; `first_person` reads such a text in lower case too. Each shortcut must answer as the
whole pattern does, on every text: here on words in every case, glued, negated in five
languages and in Japanese, Chinese and Korean.
"""

from __future__ import annotations

import itertools
import re

import pytest

from lethe.planner import evidence

WORDS = """not never no longer nor neither cannot can't won't don't doesn't isn't wasn't
    couldn't dislikes disliked hates hated detests loathes nicht kein keine keinem nie niemals
    pas jamais aucun aucune nunca tampoco non mai ne plus no mine myself i'm i'll user user's ich
    meine mich mir je j'ai moi mon ma mes yo mi mis mio mia eu meu minha notice know knot nothing
    snow cannon hatch none nones ano nonstop email maintain paste amine""".split()  # noqa: SIM905
GLUE = ("", " ", ", ", ". ", " - ", "\n", "'")
OTHERS = (
    "ない",
    "ません",
    "食べず。",
    "않",
    "안 ",
    "못 ",
    "不",
    "没有",
    "沒有",
    "私",
    "ユーザー",
    "Ｎｏｔ",
)


def _cases() -> list[str]:
    forms = [*WORDS, *(w.upper() for w in WORDS), *(w.title() for w in WORDS)]
    texts = [*forms, *OTHERS]
    for a, b in itertools.product(WORDS[:40], WORDS[30:70]):
        texts.append(f"{a} {b}")
        texts.append(f"The user {a}{b} it")
    for glue, (a, b) in zip(itertools.cycle(GLUE), itertools.combinations(forms[::7], 2)):
        texts.append(f"{a}{glue}{b}")
    texts += [f"{w} {o}" for w in forms[::5] for o in OTHERS]
    return texts


CASES = _cases()


def test_negated_finds_what_the_whole_pattern_finds() -> None:
    wrong = [t for t in CASES if evidence.negated(t) != bool(evidence._NEGATION.search(t))]
    assert wrong == []


def test_first_person_finds_what_the_whole_pattern_finds() -> None:
    wrong = [
        t
        for t in CASES
        if evidence.first_person(t) != bool(evidence._FIRST_PERSON.search(t))
        or evidence._first_persons(t) != len(evidence._FIRST_PERSON.findall(t))
    ]
    assert wrong == []


@pytest.mark.parametrize(
    "pattern",
    [p.pattern for p, _ in evidence._NEGATION_LOWER] + [evidence._FIRST_PERSON_LOWER.pattern],
)
def test_a_pattern_read_in_lower_case_writes_no_capital(pattern: str) -> None:
    """A capital in a pattern matched against lower-case text would never match: the
    shortcut would miss what the whole pattern finds."""
    literal = re.sub(r"\\.", "", pattern)  # escapes (\b, \s, \S) are no letters
    assert not re.search(r"[A-Z]", literal)


def test_every_alternative_is_tried_where_a_text_may_hold_it() -> None:
    """Each word an alternative can match in ASCII holds one of its needles."""
    for pattern, needles in evidence._NEGATION_LOWER:
        for word in WORDS:
            if pattern.search(word) or pattern.search(f"{word} plus"):
                assert any(n in f"{word} plus" for n in needles), (pattern.pattern, word)


REWRITTEN = (
    "The user is called Not Anna",
    "Bob named the cat Never",
    "Her name is Nora and she is not here",
    "He is no longer 30 years old",
    "aged 4, not yet at school",
    "My e-mail address is not bob@example.com",
    "not my old email",
    "NAME: none",
    "Nobody CALLED",
)


def test_a_reading_says_not_where_negated_does() -> None:
    """`read` takes the negation from `words` when they read the text unchanged."""
    texts = [*CASES, *REWRITTEN]
    wrong = [t for t in texts if evidence._says_not(t, evidence.words(t)) != evidence.negated(t)]
    assert wrong == []
