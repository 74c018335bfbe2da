"""Keeping conversational memories' contexts (lethe/context.py) in step with the SQLite file.

Triggers mark a conversation in `conversation_dirty` whenever one of its memories is
inserted, changed, forgotten, restored or deleted; `rebuild` runs inside the same
transaction, just before it commits, and rewrites the contexts of every marked conversation
from its live memories. A purged turn therefore leaves its neighbours' contexts (text and
vector) in the purge's own transaction, and a second process sees contexts that always
match the rows.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable, Iterable

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
from lethe.store.sqlite_filters import compile_filters
from lethe.store.sqlite_index import IndexSync
from lethe.store.sqlite_lexical import LexicalSearch
from lethe.store.vectors import Vector

_SESSION_TURNS = """SELECT num, id, content, embedding, metadata FROM memories
    WHERE namespace = ? AND conversation = ? AND status = 'active' ORDER BY created_at, num"""
_EPISODE_TURNS = """SELECT m.num, m.id, m.content, m.embedding, m.metadata
    FROM episodes e JOIN episode_members em ON em.episode_id = e.id
    JOIN memories m ON m.id = em.memory_id
    WHERE e.id = ? AND m.status = 'active' AND m.conversation IS NULL
    AND NOT EXISTS (
        SELECT 1 FROM episode_members o JOIN episodes oe ON oe.id = o.episode_id
        WHERE o.memory_id = m.id
        AND (oe.created_at < e.created_at OR (oe.created_at = e.created_at AND oe.id < e.id)))
    ORDER BY m.created_at, m.num"""


def rebuild(conn: sqlite3.Connection) -> int:
    """Rebuild every marked conversation's contexts, with the window the store records (the
    last one a process opened it with: every process builds alike); returns how many were
    rebuilt."""
    marked = conn.execute("SELECT namespace, conversation FROM conversation_dirty").fetchall()
    if not marked:
        return 0
    row = conn.execute("SELECT value FROM lethe_meta WHERE key = 'context_window'").fetchone()
    window = parse_window(row[0] if row else None)
    for namespace, conversation in marked:
        episode = conversation.removeprefix(EPISODE) if conversation.startswith(EPISODE) else None
        rows = conn.execute(
            _EPISODE_TURNS if episode is not None else _SESSION_TURNS,
            (episode,) if episode is not None else (namespace, conversation),
        ).fetchall()
        kept = {
            row[0]: (row[1], row[2])
            for row in conn.execute(
                """SELECT memory_id, embedding, content FROM memory_context
                   WHERE namespace = ? AND conversation = ?""",
                (namespace, conversation),
            )
        }
        turns = [
            Turn(
                memory_id=row[1],
                content=row[2],
                vector=np.frombuffer(row[3], dtype="<f4"),
                speaker=speaker_of(json.loads(row[4])),
            )
            for row in rows
        ]
        fresh = {
            row[1]: (row[0], vector.astype("<f4").tobytes(), text)
            for row, (vector, text) in zip(rows, contexts(turns, window), strict=True)
        }
        # Only the contexts that changed are rewritten: each rewrite is logged for every
        # process's index, and appending a turn changes two of them, not the conversation.
        stale = [i for i in kept if kept[i] != fresh.get(i, (None, None, None))[1:]]
        # A turn that moved here from another conversation may still have its context there
        # (that conversation is rebuilt too, maybe later in this loop): it is replaced here.
        moved = [i for i in fresh if i not in kept]
        conn.executemany(
            "DELETE FROM memory_context WHERE memory_id = ?", [(i,) for i in stale + moved]
        )
        conn.executemany(
            """INSERT INTO memory_context
               (num, memory_id, namespace, conversation, embedding, content)
               VALUES (?, ?, ?, ?, ?, ?)""",
            [
                (num, memory_id, namespace, conversation, blob, text)
                for memory_id, (num, blob, text) in fresh.items()
                if memory_id in moved or memory_id in stale
            ],
        )
    if marked:
        conn.execute("DELETE FROM conversation_dirty")
    return len(marked)


class SQLiteContextReads:
    _conn: sqlite3.Connection
    _lock: threading.RLock
    _sync: IndexSync
    _context_lexical: LexicalSearch

    def context_search(
        self, query: Vector, text: str, filters: Filters, n: int
    ) -> tuple[list[tuple[str, float]], list[str]] | None:
        """The conversational memories matching `filters` ranked by their contexts: the top-n
        (id, cosine) of the context vectors and the best full-text matches of the context
        texts; None when the namespace holds no conversation (recall then ranks as before)."""
        return self.context_search_soon(query, text, filters, n)()

    def context_search_soon(
        self, query: Vector, text: str, filters: Filters, n: int
    ) -> Callable[[], tuple[list[tuple[str, float]], list[str]] | None]:
        """`context_search` with its full-text half started now, on a thread and connection
        of its own (beside the memories' own full-text search); call the result for both
        halves."""
        with self._lock:
            self._sync.sync()
            index = self._sync.load_context()
            if not index.has_namespace(filters.namespace):
                return lambda: None
        words = self._context_lexical.submit(text, filters, n)

        def finish() -> tuple[list[tuple[str, float]], list[str]]:
            try:
                with self._lock:
                    within = None
                    if filters.narrows_beyond_namespace():
                        where, params = compile_filters(filters)
                        ids = [
                            r[0]
                            for r in self._conn.execute(
                                f"SELECT m.id FROM memories m WHERE {where}", params
                            )
                        ]
                        within = index.slots_of(ids)
                    hits = index.search(query, namespace=filters.namespace, k=n, within=within)
            finally:
                found = words.result()
            return hits, found

        return finish

    def conversational(self, ids: Iterable[str]) -> set[str]:
        """Which of these memories are ranked by a context (live turns of a conversation)."""
        with self._lock:
            self._sync.sync()
            index = self._sync.load_context()
            return {i for i in ids if i in index}


def adopt_window(conn: sqlite3.Connection, window: Window) -> None:
    """Record the window contexts are built with; a store built with another one has every
    conversation marked, to be rebuilt (before anything is read)."""
    text = window_text(window)
    row = conn.execute("SELECT value FROM lethe_meta WHERE key = 'context_window'").fetchone()
    if row is not None and row[0] == text:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "INSERT OR REPLACE INTO lethe_meta (key, value) VALUES ('context_window', ?)", (text,)
        )
        if row is not None:
            conn.execute(
                """INSERT OR IGNORE INTO conversation_dirty SELECT DISTINCT namespace,
                   conversation FROM memories WHERE conversation IS NOT NULL"""
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
