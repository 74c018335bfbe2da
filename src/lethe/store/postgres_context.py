"""Conversational memories' contexts on PostgreSQL (see `sqlite_context.py` for the rule):
triggers mark a changed conversation in `conversation_dirty`, and the writing transaction
rebuilds it before it commits; recall reads the contexts by SQL."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import Future
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from lethe.common.context import Window
from lethe.common.filters import Filters
from lethe.store import postgres_grams, sql_context
from lethe.store.dialect import POSTGRES
from lethe.store.lexical import merge_lists, query_tokens
from lethe.store.postgres_filters import compile_filters
from lethe.store.vectors import Vector

if TYPE_CHECKING:
    import psycopg


def rebuild(conn: psycopg.Connection[dict[str, Any]]) -> int:
    """Remake the contexts a marked conversation's change touched (`sql_context.rebuild`)."""
    return sql_context.rebuild(conn, POSTGRES)


def adopt_window(conn: psycopg.Connection[dict[str, Any]], window: Window) -> None:
    """Record the window contexts are built with (in the caller's transaction); a database
    built with another one has every conversation marked, to be rebuilt."""
    sql_context.mark_window(conn, POSTGRES, window)


def _has_context(conn: psycopg.Connection[dict[str, Any]], namespace: str) -> bool:
    row = conn.execute(
        "SELECT 1 FROM memory_context WHERE namespace = %s LIMIT 1", (namespace,)
    ).fetchone()
    return row is not None


class _Reads(Protocol):
    def _read(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...


class PostgresContextReads:
    def vector_search_in_context(
        self: _Reads, query: Vector, filters: Filters, n: int
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]] | None]:
        """Own top-n and context top-n by the HNSW indexes; None for the second when the
        namespace holds no conversation."""
        from lethe.store.postgres import ef_search

        own: list[tuple[str, float]] = self.vector_search(query, filters, n)  # type: ignore[attr-defined]
        where, params = compile_filters(filters)
        vector = np.asarray(query, dtype=np.float32)
        with self._read() as conn, conn.transaction():
            if not _has_context(conn, filters.namespace):
                return own, None
            conn.execute(f"SET LOCAL hnsw.ef_search = {ef_search(n)}")
            rows = conn.execute(
                f"""SELECT c.memory_id, 1 - (c.embedding <=> %s) AS similarity
                    FROM memory_context c JOIN memories m ON m.id = c.memory_id
                    WHERE {where} ORDER BY c.embedding <=> %s LIMIT %s""".encode(),
                [vector, *params, vector, n],
            ).fetchall()
        return own, [(r["memory_id"], float(r["similarity"])) for r in rows]

    def context_lexical_soon(
        self: _Reads, text: str, filters: Filters, n: int
    ) -> Future[list[str]]:
        """The context texts' best full-text matches, answered now (the server runs it
        beside others)."""
        from lethe.store.postgres import _ts_word

        future: Future[list[str]] = Future()
        try:
            tokens = query_tokens(text)
            where, params = compile_filters(filters)
            with self._read() as conn:
                found = (
                    conn.execute(
                        f"""SELECT c.memory_id FROM memory_context c
                            JOIN memories m ON m.id = c.memory_id, to_tsquery('simple', %s) q
                            WHERE c.search @@ q AND {where}
                            ORDER BY ts_rank_cd(c.search, q) DESC, m.num LIMIT %s""".encode(),
                        [" | ".join(_ts_word(t) for t in tokens), *params, n],
                    ).fetchall()
                    if tokens
                    else []
                )
                grams = postgres_grams.search(conn, text, where, params, n, context=True)
            words = [r["memory_id"] for r in found]
            future.set_result(merge_lists([words, grams]) if grams else words)
        except BaseException as exc:
            future.set_exception(exc)
        return future

    def conversational(self: _Reads, ids: Iterable[str]) -> set[str]:
        """Which of these memories are ranked by a context."""
        wanted = list(ids)
        if not wanted:
            return set()
        with self._read() as conn:
            rows = conn.execute(
                "SELECT memory_id FROM memory_context WHERE memory_id = ANY(%s)", (wanted,)
            ).fetchall()
        return {r["memory_id"] for r in rows}
