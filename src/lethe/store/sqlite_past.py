"""What the SQLite store reads of the past: the states live memories had at a given moment,
for recall and get `as_of`, by its in-process indexes. Kept apart from `sqlite.py`, which
`SQLiteStore` mixes this in; the plain reads of earlier states are in `sql_reads.py`.

A memory's state at T is its current one when that began at or before T (`updated_at`), else
the earlier state current then (`valid_from` <= T < `valid_until`). Only live memories are
read: one forgotten or purged since is absent for every T.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from lethe.common.filters import Filters
from lethe.store.earlier import words
from lethe.store.lexical import query_tokens
from lethe.store.rows import ts
from lethe.store.sqlite_index import IndexSync
from lethe.store.sqlite_lexical import LexicalSearch
from lethe.store.vectors import Vector

StateKey = tuple[str, int | None]
"""A memory's id and the version of its earlier state (None: its current state)."""


class SQLitePastReads:
    _conn: sqlite3.Connection
    _lock: threading.RLock
    _sync: IndexSync
    _lexical: LexicalSearch

    def search_at(
        self, query: Vector, text: str, namespace: str, at: datetime, n: int
    ) -> tuple[list[tuple[str, int | None, float]], list[StateKey]]:
        """Both sides of a recall among the states live memories of the namespace had at
        `at`: the top-n (memory id, version or None for the current state, cosine), and up to
        n full-text matches, best first: current texts ranked by BM25, earlier ones by the
        rarity of the words they hold, taken in turn. The full-text search of current texts
        runs on its own thread meanwhile, as in a plain recall."""
        moment = ts(at)
        lexical = self._lexical.submit(text, Filters(namespace=namespace), 2 * n)
        terms = [w for token in query_tokens(text) for w in sorted(words(token))]
        try:
            with self._lock:
                self._sync.sync()
                index, earlier = self._sync.index, self._sync.load_earlier()
                current = index.search(query, namespace=namespace, k=n, before=moment)
                past = earlier.search(query, namespace=namespace, at=moment, k=n)
                past_words = earlier.lexical(terms, namespace=namespace, at=moment, k=n)
        finally:
            found = lexical.result()
        with self._lock:
            since = self._sync.index.since_of(found)
        hits: list[tuple[str, int | None, float]] = [(i, None, s) for i, s in current]
        hits.extend(past)
        hits.sort(key=lambda h: -h[2])
        now_words: list[StateKey] = [(i, None) for i in found if since.get(i, np.inf) <= moment]
        merged: list[StateKey] = []
        for pair in zip(now_words, past_words, strict=False):
            merged.extend(pair)
        shorter = min(len(now_words), len(past_words))
        merged.extend(now_words[shorter:] or past_words[shorter:])
        return hits[:n], merged[:n]

    def similarities_at(self, query: Vector, keys: Sequence[StateKey]) -> dict[StateKey, float]:
        """The cosine to the query of each of these states (current or earlier)."""
        with self._lock:
            self._sync.sync()
            current = self._sync.index.similarities(query, [i for i, v in keys if v is None])
            earlier = self._sync.load_earlier().similarities(
                query, [(i, v) for i, v in keys if v is not None]
            )
        found: dict[StateKey, float] = {(i, None): s for i, s in current.items()}
        found.update({(i, v): s for (i, v), s in earlier.items()})
        return found
