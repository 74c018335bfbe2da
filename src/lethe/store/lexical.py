"""Turning free text into a full-text query both backends can run safely.

User text is never passed to the full-text engine as syntax: it is split into word tokens,
common function words are dropped (they match most rows, cost time and add no signal), and
each remaining token is quoted, so `AND`, `NEAR`, `*` or a stray quote cannot change the query.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"\w+", re.UNICODE)
_MAX_TOKENS = 16
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "do",
        "does",
        "did",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)


def query_tokens(text: str) -> list[str]:
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    kept = [t for t in tokens if t not in STOPWORDS]
    return list(dict.fromkeys(kept or tokens))[:_MAX_TOKENS]


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression: any of the query's words, each quoted."""
    return " OR ".join(f'"{token}"' for token in query_tokens(text))
