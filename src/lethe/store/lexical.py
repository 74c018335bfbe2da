"""Turning free text into a full-text query both backends can run safely and quickly.

User text is never passed to the full-text engine as syntax: it is split into word tokens,
common function words are dropped, and each remaining token is quoted, so `AND`, `NEAR`, `*`
or a stray quote cannot change the query.

Ranking every document that contains a very common word ("user" is in half of a typical
agent's memories) costs tens of milliseconds and adds almost nothing to BM25, whose weight for
such a word is near zero. So the words are taken rarest first, within a budget of postings
(documents to score); the rare words — names, places, identifiers — are exactly where the
lexical side adds what vectors miss.
"""

from __future__ import annotations

import re
import unicodedata

from lethe.common.scripts import STOPWORDS

_TOKEN = re.compile(r"\w+", re.UNICODE)
_MAX_TOKENS = 16


def query_tokens(text: str) -> list[str]:
    # Full-width letters and digits (８１４９５) are the plain ones the index holds (81495).
    tokens = [t.lower() for t in _TOKEN.findall(unicodedata.normalize("NFKC", text))]
    kept = [t for t in tokens if t not in STOPWORDS]
    return list(dict.fromkeys(kept or tokens))[:_MAX_TOKENS]


POSTINGS_BUDGET = 5000
"""Most documents a lexical search may have to score, summed over its words."""


def select_terms(doc_freq: dict[str, int], budget: int = POSTINGS_BUDGET) -> list[str]:
    """The words worth searching: present in the index, rarest first, within the budget."""
    chosen: list[str] = []
    spent = 0
    for term, count in sorted(doc_freq.items(), key=lambda kv: kv[1]):
        if count == 0:
            continue
        if spent + count > budget:
            break
        chosen.append(term)
        spent += count
    return chosen


def fts_query(terms: list[str]) -> str:
    """An FTS5 MATCH expression: any of the words, each quoted."""
    return " OR ".join(f'"{term}"' for term in terms)


def merge_lists(lists: list[list[str]], k: int = 60) -> list[str]:
    """Ranked id lists of two indexes as one, by reciprocal rank (no BM25 value of one index
    compares with the other's); a single list is returned as it is."""
    if len(lists) == 1:
        return lists[0]
    score: dict[str, float] = {}
    for ids in lists:
        for rank, memory_id in enumerate(ids, 1):
            score[memory_id] = score.get(memory_id, 0.0) + 1.0 / (k + rank)
    return sorted(score, key=lambda memory_id: -score[memory_id])
