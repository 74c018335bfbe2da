"""The full-text side of recall, on its own connection and thread.

A recall needs two candidate lists: the vector index's (numpy and SIMD work) and FTS5's BM25
ranking (work inside SQLite). Each takes a few milliseconds at 100k memories, and neither
holds the GIL for most of it, so they run side by side: the full-text query goes to a
worker thread with a read connection of its own while the caller searches vectors. The
read connection sees every committed write; what it returns are only candidates, which
the engine re-checks against live rows on the main connection as it does for vectors.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from lethe.common.filters import Filters
from lethe.store.grams import gram_query
from lethe.store.lexical import fts_query, merge_lists, query_tokens, select_terms
from lethe.store.sqlite_filters import compile_filters

_DF_REFRESH = 1000
"""Document counts are cost estimates; they are re-read after this many index changes."""


class LexicalSearch:
    def __init__(
        self,
        path: Path,
        busy_timeout_ms: int,
        changes: Callable[[], int],
        *,
        context: bool = False,
    ) -> None:
        """`context`: search conversational memories' contexts (`context_fts`) instead of
        the memories' own texts; a second instance, so both run at once."""
        self._indexes = (
            (
                _Index("context_fts", "context_vocab", query_tokens),
                _Index("context_grams", "context_grams_vocab", _folded_grams),
            )
            if context
            else (
                _Index("memories_fts", "memories_vocab", query_tokens),
                _Index("memories_grams", "memories_grams_vocab", _folded_grams),
            )
        )
        self._path = path
        self._busy_timeout_ms = busy_timeout_ms
        self._changes = changes
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._df_cache: dict[tuple[str, str], int] = {}
        self._df_seq = 0

    def submit(self, text: str, filters: Filters, n: int) -> Future[list[str]]:
        """Start a search on the worker thread."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lethe-fts")
            return self._pool.submit(self.search, text, filters, n)

    def search(self, text: str, filters: Filters, n: int) -> list[str]:
        """Ids of the best BM25 matches among memories matching `filters`, best first: the
        word index's and the gram index's (text without spaces, `grams.py`), each asked only
        for what the query holds of its kind, merged by rank."""
        lists = []
        for index in self._indexes:
            tokens = index.tokens(text)
            if tokens:
                lists.append(self._search(index, tokens, filters, n))
        return merge_lists(lists)[:n]

    def _search(self, index: _Index, tokens: list[str], filters: Filters, n: int) -> list[str]:
        where, params = compile_filters(filters)
        table = index.table
        # One row holding every hit: the query runs in a single step, so this thread asks
        # for the GIL back twice rather than once a hit. Beside a caller busy with numpy
        # (which holds it between releases), each ask could wait a whole switch interval.
        sql = (
            f"SELECT json_group_array(json_array(id, score)) FROM ("
            f"SELECT m.id AS id, f.rank AS score FROM {table} f JOIN memories m "
            f"ON m.num = f.rowid WHERE {table} MATCH ? AND {where} ORDER BY f.rank LIMIT ?)"
        )
        with self._lock:
            conn = self._connection()
            terms = select_terms(self._doc_freq(conn, index.vocab, tokens))
            if not terms:
                return []
            rows = conn.execute(sql, [fts_query(terms), *params, n]).fetchall()
        hits = json.loads(rows[0][0]) if rows and rows[0][0] else []
        return [memory_id for memory_id, _ in sorted(hits, key=lambda hit: hit[1])]

    def release(self) -> None:
        """Close the read connection (the next search opens another), so it holds no page of
        the file: a purge calls this before it empties the WAL."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
        self.release()

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = sqlite3.connect(
                self._path,
                isolation_level=None,
                check_same_thread=False,
                timeout=self._busy_timeout_ms / 1000,
            )
            conn.execute("PRAGMA query_only = ON")
            self._conn = conn
        return self._conn

    def _doc_freq(
        self, conn: sqlite3.Connection, vocab: str, tokens: Sequence[str]
    ) -> dict[str, int]:
        """Documents per word, from the FTS vocabulary; cached, since a cost estimate may be
        a little stale."""
        seq = self._changes()
        if seq - self._df_seq > _DF_REFRESH or seq < self._df_seq:
            self._df_cache.clear()
            self._df_seq = seq
        missing = [t for t in tokens if (vocab, t) not in self._df_cache]
        if missing:
            marks = ", ".join("?" for _ in missing)
            found = dict(
                conn.execute(
                    f"SELECT term, doc FROM {vocab} WHERE term IN ({marks})", missing
                ).fetchall()
            )
            for term in missing:
                self._df_cache[(vocab, term)] = int(found.get(term, 0))
        return {t: self._df_cache[(vocab, t)] for t in tokens}


@dataclass(frozen=True)
class _Index:
    """One FTS5 table, its vocabulary, and how a query's text becomes its tokens."""

    table: str
    vocab: str
    tokens: Callable[[str], list[str]]


def _folded_grams(text: str) -> list[str]:
    """A query's grams as FTS5's `unicode61` holds them: it folds every letter's case
    (École is école in the index), where the grams fold only ASCII (as PostgreSQL does)."""
    return list(dict.fromkeys(g.lower() for g in gram_query(text)))
