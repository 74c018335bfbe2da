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

from lethe.planner.evidence import USER, fold

_PARTY = r"(?:[A-Z][a-zA-Z\u00c0-\u024f-]+|I|me|[Tt]he\s+user|[Uu]ser)"
_CJK_PARTY = r"(?:[A-Z][a-zA-Z\u00c0-\u024f-]*|我|私|僕|俺)"
_FORMS = (
    # (pattern, index of the lender's group, index of the borrower's group; 0: the user)
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
    # Chinese: "Alice欠我35000元" (Alice owes me), "我借给Julia" (I lent Julia), "我向Tom借了"
    # (I borrowed from Tom).
    (re.compile(rf"({_CJK_PARTY})欠({_CJK_PARTY})"), 2, 1),
    (re.compile(rf"({_CJK_PARTY})借给({_CJK_PARTY})"), 1, 2),
    (re.compile(rf"({_CJK_PARTY})向({_CJK_PARTY})借"), 2, 1),
    # Japanese, the lender or borrower left unsaid being the one speaking: 「Aliceに48000円を
    # 貸した」 (I lent Alice), 「Tomから3万円借りた」 (I borrowed from Tom).
    (re.compile(rf"({_CJK_PARTY})(?:さん)?に[^。.]*?貸"), 0, 1),
    (re.compile(rf"({_CJK_PARTY})(?:さん)?から[^。.]*?借り"), 1, 0),
)
_SELF = frozenset(("i", "me", "the user", "user", "我", "私", "僕", "俺"))


def _party(word: str) -> str:
    folded = re.sub(r"\s+", " ", fold(word))
    return USER if folded in _SELF else folded.removesuffix("'s")


@lru_cache(maxsize=65536)
def parties(text: str) -> tuple[str, str] | None:
    """(lender, borrower) of the one debt a text states, or None (no debt, or two that
    disagree)."""
    found = {
        (
            _party(m.group(lender)) if lender else USER,
            _party(m.group(borrower)) if borrower else USER,
        )
        for pattern, lender, borrower in _FORMS
        for m in pattern.finditer(text)
    }
    return found.pop() if len(found) == 1 else None
