"""Conversational memories' contexts on PostgreSQL (see `sqlite_context.py` for the rule):
triggers mark a changed conversation in `conversation_dirty`, and the writing transaction
rebuilds it before it commits; recall reads the contexts by SQL."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from lethe.context import (
    EPISODE,
    Turn,
    Window,
    contexts,
    parse_window,
    speaker_of,
    window_text,
)
from lethe.filters import Filters
from lethe.store.lexical import query_tokens
from lethe.store.postgres_filters import compile_filters
from lethe.store.vectors import Vector

if TYPE_CHECKING:
    import psycopg


_SESSION_TURNS = """SELECT id, content, embedding, metadata::text AS metadata FROM memories
    WHERE namespace = %s AND conversation = %s AND status = 'active' ORDER BY created_at, num"""
_EPISODE_TURNS = """SELECT m.id, m.content, m.embedding, m.metadata::text AS metadata
    FROM episodes e JOIN episode_members em ON em.episode_id = e.id
    JOIN memories m ON m.id = em.memory_id
    WHERE e.id = %s AND m.status = 'active' AND m.conversation IS NULL
    AND NOT EXISTS (
        SELECT 1 FROM episode_members o JOIN episodes oe ON oe.id = o.episode_id
        WHERE o.memory_id = m.id
        AND (oe.created_at < e.created_at OR (oe.created_at = e.created_at AND oe.id < e.id)))
    ORDER BY m.created_at, m.num"""


def rebuild(conn: psycopg.Connection[dict[str, Any]]) -> int:
    """Rebuild every marked conversation's contexts, with the window the database records
    (see `sqlite_context.rebuild`); returns how many were rebuilt."""
    from lethe.store.postgres import _vector

    marked = conn.execute(
        "DELETE FROM conversation_dirty RETURNING namespace, conversation"
    ).fetchall()
    if not marked:
        return 0
    row = conn.execute("SELECT value FROM lethe_meta WHERE key = 'context_window'").fetchone()
    window = parse_window(row["value"] if row else None)
    for mark in marked:
        namespace, conversation = mark["namespace"], mark["conversation"]
        episode = conversation.removeprefix(EPISODE) if conversation.startswith(EPISODE) else None
        rows = conn.execute(
            _EPISODE_TURNS if episode is not None else _SESSION_TURNS,
            (episode,) if episode is not None else (namespace, conversation),
        ).fetchall()
        kept = {
            row["memory_id"]: (_vector(row["embedding"]).tobytes(), row["content"])
            for row in conn.execute(
                """SELECT memory_id, embedding, content FROM memory_context
                   WHERE namespace = %s AND conversation = %s""",
                (namespace, conversation),
            ).fetchall()
        }
        turns = [
            Turn(
                memory_id=row["id"],
                content=row["content"],
                vector=_vector(row["embedding"]),
                speaker=speaker_of(json.loads(row["metadata"])),
            )
            for row in rows
        ]
        fresh = {
            row["id"]: (np.asarray(vector, np.float32), text)
            for row, (vector, text) in zip(rows, contexts(turns, window), strict=True)
        }
        stale = [
            i for i in kept if i not in fresh or kept[i] != (fresh[i][0].tobytes(), fresh[i][1])
        ]
        moved = [i for i in fresh if i not in kept]  # its old conversation's row goes
        with conn.cursor() as cursor:
            cursor.executemany(
                "DELETE FROM memory_context WHERE memory_id = %s", [(i,) for i in stale + moved]
            )
            cursor.executemany(
                """INSERT INTO memory_context
                   (memory_id, namespace, conversation, embedding, content)
                   VALUES (%s, %s, %s, %s, %s)""",
                [
                    (memory_id, namespace, conversation, vector, text)
                    for memory_id, (vector, text) in fresh.items()
                    if memory_id not in kept or memory_id in stale
                ],
            )
    return len(marked)


def adopt_window(conn: psycopg.Connection[dict[str, Any]], window: Window) -> None:
    """Record the window contexts are built with (in the caller's transaction); a database
    built with another one has every conversation marked, to be rebuilt."""
    text = window_text(window)
    row = conn.execute("SELECT value FROM lethe_meta WHERE key = 'context_window'").fetchone()
    if row is not None and row["value"] == text:
        return
    conn.execute(
        """INSERT INTO lethe_meta (key, value) VALUES ('context_window', %s)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value""",
        (text,),
    )
    if row is not None:
        conn.execute(
            """INSERT INTO conversation_dirty SELECT DISTINCT namespace, conversation
               FROM memories WHERE conversation IS NOT NULL ON CONFLICT DO NOTHING"""
        )


class _Reads(Protocol):
    def _read(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...


class PostgresContextReads:
    def context_search(
        self: _Reads, query: Vector, text: str, filters: Filters, n: int
    ) -> tuple[list[tuple[str, float]], list[str]] | None:
        """The conversational memories matching `filters` ranked by their contexts; None
        when the namespace holds no conversation."""
        from lethe.store.postgres import _ts_word, ef_search

        where, params = compile_filters(filters)
        vector = np.asarray(query, dtype=np.float32)
        with self._read() as conn, conn.transaction():
            any_context = conn.execute(
                "SELECT 1 FROM memory_context WHERE namespace = %s LIMIT 1",
                (filters.namespace,),
            ).fetchone()
            if any_context is None:
                return None
            conn.execute(f"SET LOCAL hnsw.ef_search = {ef_search(n)}")
            rows = conn.execute(
                f"""SELECT c.memory_id, 1 - (c.embedding <=> %s) AS similarity
                    FROM memory_context c JOIN memories m ON m.id = c.memory_id
                    WHERE {where} ORDER BY c.embedding <=> %s LIMIT %s""".encode(),
                [vector, *params, vector, n],
            ).fetchall()
            tokens = query_tokens(text)
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
        return (
            [(r["memory_id"], float(r["similarity"])) for r in rows],
            [r["memory_id"] for r in found],
        )

    def context_search_soon(
        self: Any, query: Vector, text: str, filters: Filters, n: int
    ) -> Callable[[], tuple[list[tuple[str, float]], list[str]] | None]:
        """`context_search`, answered when called (the server runs it beside others)."""
        search: Callable[..., tuple[list[tuple[str, float]], list[str]] | None]
        search = self.context_search
        return lambda: search(query, text, filters, n)

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
