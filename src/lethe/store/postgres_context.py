"""Conversational memories' contexts on PostgreSQL (see `sqlite_context.py` for the rule):
triggers mark a changed conversation in `conversation_dirty`, and the writing transaction
rebuilds it before it commits; recall reads the contexts by SQL."""

from __future__ import annotations

import json
from collections.abc import Iterable
from concurrent.futures import Future
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from lethe.common.context import (
    EPISODE,
    SPARSE_CHANGES,
    Members,
    Turn,
    Window,
    around_changes,
    context_of,
    members_json,
    parse_members,
    parse_window,
    speaker_of,
    to_recompute,
    window_text,
)
from lethe.common.filters import Filters
from lethe.store import postgres_grams
from lethe.store.lexical import merge_lists, query_tokens
from lethe.store.postgres_filters import compile_filters
from lethe.store.vectors import Vector

if TYPE_CHECKING:
    import psycopg


_SESSION_ORDER = """SELECT id FROM memories
    WHERE namespace = %s AND conversation = %s AND status = 'active' ORDER BY created_at, num"""
_EPISODE_ORDER = """SELECT m.id
    FROM episodes e JOIN episode_members em ON em.episode_id = e.id
    JOIN memories m ON m.id = em.memory_id
    WHERE e.id = %s AND m.status = 'active' AND m.conversation IS NULL
    AND NOT EXISTS (
        SELECT 1 FROM episode_members o JOIN episodes oe ON oe.id = o.episode_id
        WHERE o.memory_id = m.id
        AND (oe.created_at < e.created_at OR (oe.created_at = e.created_at AND oe.id < e.id)))
    ORDER BY m.created_at, m.num"""


def rebuild(conn: psycopg.Connection[dict[str, Any]]) -> int:
    """Remake the contexts a marked conversation's change touched, with the window the
    database records (see `sqlite_context.rebuild`); returns how many were marked."""
    from lethe.store.postgres import _vector

    marked = conn.execute(
        "DELETE FROM conversation_dirty RETURNING namespace, conversation"
    ).fetchall()
    if not marked:
        return 0
    row = conn.execute("SELECT value FROM lethe_meta WHERE key = 'context_window'").fetchone()
    window = parse_window(row["value"] if row else None)
    changed = {
        r["memory_id"]
        for r in conn.execute("DELETE FROM context_changed RETURNING memory_id").fetchall()
    }
    for mark in marked:
        namespace, conversation = mark["namespace"], mark["conversation"]
        episode = conversation.removeprefix(EPISODE) if conversation.startswith(EPISODE) else None
        order = [
            r["id"]
            for r in conn.execute(
                _EPISODE_ORDER if episode is not None else _SESSION_ORDER,
                (episode,) if episode is not None else (namespace, conversation),
            ).fetchall()
        ]
        kept = {
            r["memory_id"]
            for r in conn.execute(
                """SELECT memory_id FROM memory_context
                   WHERE namespace = %s AND conversation = %s""",
                (namespace, conversation),
            ).fetchall()
        }
        remake = _to_remake(conn, namespace, conversation, order, kept, changed, window)
        live = set(order)
        gone = [(i, namespace, conversation) for i in kept if i not in live]
        wanted = sorted({m for members in remake.values() for m, _ in members})
        turns = {
            r["id"]: Turn(
                memory_id=r["id"],
                content=r["content"],
                vector=_vector(r["embedding"]),
                speaker=speaker_of(json.loads(r["metadata"])),
            )
            for r in conn.execute(
                """SELECT id, content, embedding, metadata::text AS metadata FROM memories
                   WHERE id = ANY(%s)""",
                (wanted,),
            ).fetchall()
        }
        made = {i: context_of(members, turns) for i, members in remake.items()}
        with conn.cursor() as cursor:
            cursor.executemany(
                """DELETE FROM memory_context
                   WHERE memory_id = %s AND namespace = %s AND conversation = %s""",
                gone,
            )
            # A turn that moved here may still have its context in its old conversation.
            cursor.executemany(
                "DELETE FROM memory_context WHERE memory_id = %s", [(i,) for i in made]
            )
            cursor.executemany(
                """INSERT INTO memory_context
                   (memory_id, namespace, conversation, embedding, content, members)
                   VALUES (%s, %s, %s, %s, %s, %s)""",
                [
                    (i, namespace, conversation, c.vector, c.text, members_json(c.members))
                    for i, c in made.items()
                ],
            )
    return len(marked)


def _to_remake(
    conn: psycopg.Connection[dict[str, Any]],
    namespace: str,
    conversation: str,
    order: list[str],
    kept: set[str],
    changed: set[str],
    window: Window,
) -> dict[str, Members]:
    """The windows of this conversation to remake (see `sqlite_context._to_remake`)."""
    where = "namespace = %s AND conversation = %s"
    if len(changed) > SPARSE_CHANGES:
        windows = {
            r["memory_id"]: parse_members(r["members"])
            for r in conn.execute(
                f"SELECT memory_id, members FROM memory_context WHERE {where}".encode(),
                (namespace, conversation),
            ).fetchall()
        }
        return to_recompute(order, windows, changed, window)
    holders = {
        r["memory_id"]
        for r in conn.execute(
            f"""SELECT memory_id FROM memory_context WHERE {where}
                AND EXISTS (SELECT 1 FROM unnest(%s::text[]) c WHERE strpos(members, c) > 0)
            """.encode(),
            (namespace, conversation, [json.dumps(i) for i in changed]),
        ).fetchall()
    }
    return around_changes(order, kept, changed, holders, window)


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
    if row is not None:  # every window changes: every turn counts as changed
        conn.execute(
            """INSERT INTO conversation_dirty SELECT DISTINCT namespace, conversation
               FROM memories WHERE conversation IS NOT NULL ON CONFLICT DO NOTHING"""
        )
        conn.execute(
            """INSERT INTO conversation_dirty SELECT DISTINCT e.namespace, ' episode:' || e.id
               FROM episodes e JOIN episode_members em ON em.episode_id = e.id
               WHERE em.memory_id IS NOT NULL ON CONFLICT DO NOTHING"""
        )
        conn.execute(
            """INSERT INTO context_changed SELECT id FROM memories
               WHERE conversation IS NOT NULL UNION SELECT memory_id FROM episode_members
               WHERE memory_id IS NOT NULL ON CONFLICT DO NOTHING"""
        )


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
