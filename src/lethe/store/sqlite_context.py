"""Keeping conversational memories' contexts (lethe/common/context.py) in step with the SQLite file.

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
from collections.abc import Iterable
from concurrent.futures import Future

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
from lethe.store.sqlite_filters import compile_filters
from lethe.store.sqlite_index import IndexSync
from lethe.store.sqlite_lexical import LexicalSearch
from lethe.store.vectors import Vector, VectorIndex

_SESSION_ORDER = """SELECT id FROM memories
    WHERE namespace = ? AND conversation = ? AND status = 'active' ORDER BY created_at, num"""
_EPISODE_ORDER = """SELECT m.id
    FROM episodes e JOIN episode_members em ON em.episode_id = e.id
    JOIN memories m ON m.id = em.memory_id
    WHERE e.id = ? AND m.status = 'active' AND m.conversation IS NULL
    AND NOT EXISTS (
        SELECT 1 FROM episode_members o JOIN episodes oe ON oe.id = o.episode_id
        WHERE o.memory_id = m.id
        AND (oe.created_at < e.created_at OR (oe.created_at = e.created_at AND oe.id < e.id)))
    ORDER BY m.created_at, m.num"""
_CHUNK = 500


def rebuild(conn: sqlite3.Connection) -> int:
    """Remake the contexts a marked conversation's change touched, with the window the store
    records (the last one a process opened it with: every process builds alike); returns how
    many conversations were marked.

    Triggers note every turn whose change marked its conversation (`context_changed`); only
    the windows those changes touched are read whole and rewritten (each rewrite is logged
    for every process's index), so a change costs its window, not its conversation."""
    marked = conn.execute("SELECT namespace, conversation FROM conversation_dirty").fetchall()
    if not marked:
        return 0
    row = conn.execute("SELECT value FROM lethe_meta WHERE key = 'context_window'").fetchone()
    window = parse_window(row[0] if row else None)
    changed = {r[0] for r in conn.execute("SELECT memory_id FROM context_changed")}
    for namespace, conversation in marked:
        episode = conversation.removeprefix(EPISODE) if conversation.startswith(EPISODE) else None
        order = [
            r[0]
            for r in conn.execute(
                _EPISODE_ORDER if episode is not None else _SESSION_ORDER,
                (episode,) if episode is not None else (namespace, conversation),
            )
        ]
        kept = {
            r[0]
            for r in conn.execute(
                "SELECT memory_id FROM memory_context WHERE namespace = ? AND conversation = ?",
                (namespace, conversation),
            )
        }
        remake = _to_remake(conn, namespace, conversation, order, kept, changed, window)
        live = set(order)
        conn.executemany(
            "DELETE FROM memory_context WHERE memory_id = ? AND namespace = ? AND conversation = ?",
            [(i, namespace, conversation) for i in kept if i not in live],
        )
        if not remake:
            continue
        turns, nums = _turns(conn, {m for members in remake.values() for m, _ in members})
        # A turn that moved here from another conversation may still have its context there
        # (that conversation is rebuilt too, maybe later in this loop): it is replaced here.
        conn.executemany("DELETE FROM memory_context WHERE memory_id = ?", [(i,) for i in remake])
        made = {i: context_of(members, turns) for i, members in remake.items()}
        conn.executemany(
            """INSERT INTO memory_context
               (num, memory_id, namespace, conversation, embedding, content, members)
               VALUES (?, ?, ?, ?, ?, ?, ?)""",
            [
                (
                    nums[i],
                    i,
                    namespace,
                    conversation,
                    c.vector.astype("<f4").tobytes(),
                    c.text,
                    members_json(c.members),
                )
                for i, c in made.items()
            ],
        )
    conn.execute("DELETE FROM conversation_dirty")
    conn.execute("DELETE FROM context_changed")
    return len(marked)


def _to_remake(
    conn: sqlite3.Connection,
    namespace: str,
    conversation: str,
    order: list[str],
    kept: set[str],
    changed: set[str],
    window: Window,
) -> dict[str, Members]:
    """The windows of this conversation to remake (`lethe.common.context`): found from the few
    changed turns, or by comparing every stored window when there are many."""
    where = "namespace = ? AND conversation = ?"
    if len(changed) > SPARSE_CHANGES:
        windows = {
            r[0]: parse_members(r[1])
            for r in conn.execute(
                f"SELECT memory_id, members FROM memory_context WHERE {where}",
                (namespace, conversation),
            )
        }
        return to_recompute(order, windows, changed, window)
    # A changed turn may have left (forgotten, purged, moved): the stored windows naming it
    # are found by their text, whether or not its own context is still here.
    holders: set[str] = set()
    for memory_id in changed:
        holders.update(
            r[0]
            for r in conn.execute(
                f"SELECT memory_id FROM memory_context WHERE {where} AND instr(members, ?) > 0",
                (namespace, conversation, json.dumps(memory_id)),
            )
        )
    return around_changes(order, kept, changed, holders, window)


def _turns(conn: sqlite3.Connection, ids: set[str]) -> tuple[dict[str, Turn], dict[str, int]]:
    """The turns with these ids read whole (words, vector, speaker), and their row numbers
    (a context row takes its memory's)."""
    wanted = sorted(ids)
    out: dict[str, Turn] = {}
    nums: dict[str, int] = {}
    for start in range(0, len(wanted), _CHUNK):
        chunk = wanted[start : start + _CHUNK]
        marks = ", ".join("?" for _ in chunk)
        for num, memory_id, content, embedding, metadata in conn.execute(
            f"SELECT num, id, content, embedding, metadata FROM memories WHERE id IN ({marks})",
            chunk,
        ):
            out[memory_id] = Turn(
                memory_id=memory_id,
                content=content,
                vector=np.frombuffer(embedding, dtype="<f4"),
                speaker=speaker_of(json.loads(metadata)),
            )
            nums[memory_id] = num
    return out, nums


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
        conn.execute(
            "INSERT OR REPLACE INTO lethe_meta (key, value) VALUES ('context_window', ?)", (text,)
        )
        if row is not None:  # every window changes: every turn counts as changed
            conn.execute(
                """INSERT OR IGNORE INTO conversation_dirty SELECT DISTINCT namespace,
                   conversation FROM memories WHERE conversation IS NOT NULL"""
            )
            conn.execute(
                """INSERT OR IGNORE INTO conversation_dirty SELECT DISTINCT e.namespace,
                   ' episode:' || e.id FROM episodes e
                   JOIN episode_members em ON em.episode_id = e.id
                   WHERE em.memory_id IS NOT NULL"""
            )
            conn.execute(
                """INSERT OR IGNORE INTO context_changed SELECT id FROM memories
                   WHERE conversation IS NOT NULL UNION SELECT memory_id FROM episode_members
                   WHERE memory_id IS NOT NULL"""
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
