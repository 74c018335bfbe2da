"""Who lent to whom: one debt said from either side.

"Tom lent Alice £250", "Alice owes Tom £250", "Alice borrowed £250 from Tom" and "Loan: £250
from Tom to Alice" are one fact, read from the lender's or the borrower's side; "Alice lent
Tom £250" is its opposite. The description planner compares the two parties, lender first,
instead of whose sentence it is (its subject) and which verb it uses: the same pair says the
same debt, the pair reversed says the other direction, which is never the fact meant.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lethe.forget.evidence import USER, fold

_PARTY = r"(?:[A-Z][a-zA-Z\u00c0-\u024f-]+|I|me|[Tt]he\s+user|[Uu]ser)"
_FORMS = (
    # (pattern, index of the lender's group, index of the borrower's group)
    (
        re.compile(
            rf"(?<![\w-])({_PARTY})\s+(?:has\s+|had\s+|now\s+|also\s+)?(?:lent|lends|loaned)\s+({_PARTY})\b"
        ),
        1,
        2,
    ),
    (
        re.compile(
            rf"(?<![\w-])({_PARTY})\s+(?:still\s+|now\s+|also\s+)?(?:owes|owed|owe)\s+({_PARTY})\b"
        ),
        2,
        1,
    ),
    (
        re.compile(
            rf"(?<![\w-])({_PARTY})\s+(?:has\s+|had\s+)?borrowed\b[^.;]*?\bfrom\s+({_PARTY})\b"
        ),
        2,
        1,
    ),
    (re.compile(rf"(?i:\bloan\b)[^.;]*?\bfrom\s+({_PARTY})\s+to\s+({_PARTY})\b"), 1, 2),
)
_SELF = frozenset(("i", "me", "the user", "user"))


def _party(word: str) -> str:
    folded = re.sub(r"\s+", " ", fold(word))
    return USER if folded in _SELF else folded.removesuffix("'s")


@lru_cache(maxsize=65536)
def parties(text: str) -> tuple[str, str] | None:
    """(lender, borrower) of the one debt a text states, or None (no debt, or two that
    disagree)."""
    found = {
        (_party(m.group(lender)), _party(m.group(borrower)))
        for pattern, lender, borrower in _FORMS
        for m in pattern.finditer(text)
    }
    return found.pop() if len(found) == 1 else None
