"""Conversational memories' contexts on the SQLite file: kept in step with the rows by
`sql_context.py`, searched through the in-process index and a full-text connection."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from concurrent.futures import Future

from lethe.common.context import Window, window_text
from lethe.common.filters import Filters
from lethe.store import sql_context
from lethe.store.dialect import SQLITE
from lethe.store.sqlite_filters import compile_filters
from lethe.store.sqlite_index import IndexSync
from lethe.store.sqlite_lexical import LexicalSearch
from lethe.store.vectors import Vector, VectorIndex


def rebuild(conn: sqlite3.Connection) -> int:
    """Remake the contexts a marked conversation's change touched (`sql_context.rebuild`)."""
    return sql_context.rebuild(conn, SQLITE)


class SQLiteContextReads:
    _conn: sqlite3.Connection
    _lock: threading.RLock
    _sync: IndexSync
    _context_lexical: LexicalSearch

    def vector_search_in_context(
        self, query: Vector, filters: Filters, n: int
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]] | None]:
        """Top-n (id, cosine) among memories matching `filters` by their own vectors, and
        top-n of the conversational ones by their context vectors (None when the namespace
        holds no conversation).

        With conversations, one search over the vectors recall ranks by
        (`ranking_vectors`) gives both, n in all: the other memories among its top n are
        the first list, its turns the second; the turns' own cosines (which count at a
        fifth) are added to the first list, which stays ordered by cosine."""
        with self._lock:
            self._sync.sync()
            own = self._sync.index
            ranking = self._sync.load_ranking()
            if not ranking.has_conversation(filters.namespace):
                return self._within_search(own, query, filters, n), None
            within = None
            if filters.narrows_beyond_namespace():
                within = ranking.index.slots_of(self._matching_ids(filters))
            # The top n, split by kind: recall's vector list is these n in this order (turns
            # by context, the others by their own vector), as deep as the list it had before
            # conversations were known. A kind that fills the top n leaves the other short:
            # a caller that judges own cosines searches own vectors too (`every_own`). (The
            # top 2n cost 0.85 ms more at 100k, a seventh of recall, for ranks that only
            # ever count below 50.)
            hits = ranking.index.search(query, namespace=filters.namespace, k=n, within=within)
            context = [hit for hit in hits if ranking.is_turn(hit[0])][:n]
            others = [hit for hit in hits if not ranking.is_turn(hit[0])][:n]
            turns = own.similarities(query, [memory_id for memory_id, _ in context])
            return sorted([*others, *turns.items()], key=lambda hit: -hit[1]), context

    def context_lexical_soon(self, text: str, filters: Filters, n: int) -> Future[list[str]]:
        """The best full-text matches of the context texts of conversational memories
        matching `filters`, started now on a thread and connection of its own (beside the
        memories' own full-text search); none when the namespace holds no conversation."""
        with self._lock:
            self._sync.sync()
            if not self._sync.load_ranking().has_conversation(filters.namespace):
                done: Future[list[str]] = Future()
                done.set_result([])
                return done
        return self._context_lexical.submit(text, filters, n)

    def _within_search(
        self, own: VectorIndex, query: Vector, filters: Filters, n: int
    ) -> list[tuple[str, float]]:
        within = None
        if filters.narrows_beyond_namespace():
            within = own.slots_of(self._matching_ids(filters))
        return own.search(query, namespace=filters.namespace, k=n, within=within)

    def _matching_ids(self, filters: Filters) -> list[str]:
        where, params = compile_filters(filters)
        return [
            r[0] for r in self._conn.execute(f"SELECT m.id FROM memories m WHERE {where}", params)
        ]

    def conversational(self, ids: Iterable[str]) -> set[str]:
        """Which of these memories are ranked by a context (live turns of a conversation)."""
        with self._lock:
            self._sync.sync()
            ranking = self._sync.load_ranking()
            return {i for i in ids if ranking.is_turn(i)}


def adopt_window(conn: sqlite3.Connection, window: Window) -> None:
    """Record the window contexts are built with; a store built with another one has every
    conversation marked, to be rebuilt (before anything is read)."""
    text = window_text(window)
    row = conn.execute("SELECT value FROM lethe_meta WHERE key = 'context_window'").fetchone()
    if row is not None and row[0] == text:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        sql_context.mark_window(conn, SQLITE, window)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
