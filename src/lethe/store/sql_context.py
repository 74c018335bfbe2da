"""Keeping conversational memories' contexts (lethe/common/context.py) in step with the rows,
on either SQL store.

Triggers mark a conversation in `conversation_dirty` whenever one of its memories is
inserted, changed, forgotten, restored or deleted; `rebuild` runs inside the same
transaction, just before it commits, and rewrites the contexts of every marked conversation
from its live memories. A purged turn therefore leaves its neighbours' contexts (text and
vector) in the purge's own transaction, and a second process sees contexts that always
match the rows. How each store searches the contexts stays with it (`sqlite_context.py`,
`postgres_context.py`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

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
from lethe.store.dialect import Dialect

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


def rebuild(conn: Any, dialect: Dialect) -> int:
    """Remake the contexts a marked conversation's change touched, with the window the store
    records (the last one a process opened it with: every process builds alike); returns how
    many conversations were marked.

    Triggers note every turn whose change marked its conversation (`context_changed`); only
    the windows those changes touched are read whole and rewritten (each rewrite is logged
    for every process's index), so a change costs its window, not its conversation."""

    def run(sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return list(dialect.run(conn, sql, params).fetchall())

    marked = run("SELECT namespace, conversation FROM conversation_dirty")
    if not marked:
        return 0
    row = run("SELECT value FROM lethe_meta WHERE key = 'context_window'")
    window = parse_window(row[0]["value"] if row else None)
    changed = {r["memory_id"] for r in run("SELECT memory_id FROM context_changed")}
    for mark in marked:
        namespace, conversation = mark["namespace"], mark["conversation"]
        episode = conversation.removeprefix(EPISODE) if conversation.startswith(EPISODE) else None
        order = [
            r["id"]
            for r in run(
                _EPISODE_ORDER if episode is not None else _SESSION_ORDER,
                (episode,) if episode is not None else (namespace, conversation),
            )
        ]
        kept = {
            r["memory_id"]
            for r in run(
                "SELECT memory_id FROM memory_context WHERE namespace = ? AND conversation = ?",
                (namespace, conversation),
            )
        }
        remake = _to_remake(run, dialect, namespace, conversation, order, kept, changed, window)
        live = set(order)
        dialect.run_many(
            conn,
            "DELETE FROM memory_context WHERE memory_id = ? AND namespace = ? AND conversation = ?",
            [(i, namespace, conversation) for i in kept if i not in live],
        )
        if not remake:
            continue
        wanted = {m for members in remake.values() for m, _ in members}
        turns, nums = _turns(run, dialect, wanted)
        # A turn that moved here from another conversation may still have its context there
        # (that conversation is rebuilt too, maybe later in this loop): it is replaced here.
        dialect.run_many(
            conn, "DELETE FROM memory_context WHERE memory_id = ?", [(i,) for i in remake]
        )
        made = {i: context_of(members, turns) for i, members in remake.items()}
        # A SQLite context row takes its memory's row number (its full-text entry's rowid).
        numbered = dialect.name == "sqlite"
        dialect.run_many(
            conn,
            f"""INSERT INTO memory_context
               ({"num, " if numbered else ""}memory_id, namespace, conversation, embedding,
                content, members)
               VALUES ({"?, " if numbered else ""}?, ?, ?, ?, ?, ?)""",
            [
                (
                    *((nums[i],) if numbered else ()),
                    i,
                    namespace,
                    conversation,
                    dialect.vector(c.vector),
                    c.text,
                    members_json(c.members),
                )
                for i, c in made.items()
            ],
        )
    dialect.run(conn, "DELETE FROM conversation_dirty")
    dialect.run(conn, "DELETE FROM context_changed")
    return len(marked)


def _to_remake(
    run: Callable[[str, Sequence[Any]], list[Any]],
    dialect: Dialect,
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
            r["memory_id"]: parse_members(r["members"])
            for r in run(
                f"SELECT memory_id, members FROM memory_context WHERE {where}",
                (namespace, conversation),
            )
        }
        return to_recompute(order, windows, changed, window)
    # A changed turn may have left (forgotten, purged, moved): the stored windows naming it
    # are found by their text, whether or not its own context is still here.
    holders: set[str] = set()
    holds = dialect.holds("members")
    for memory_id in changed:
        holders.update(
            r["memory_id"]
            for r in run(
                f"SELECT memory_id FROM memory_context WHERE {where} AND {holds}",
                (namespace, conversation, json.dumps(memory_id)),
            )
        )
    return around_changes(order, kept, changed, holders, window)


def _turns(
    run: Callable[[str, Sequence[Any]], list[Any]], dialect: Dialect, ids: set[str]
) -> tuple[dict[str, Turn], dict[str, int]]:
    """The turns with these ids read whole (words, vector, speaker), and their row numbers
    (a context row takes its memory's)."""
    wanted = sorted(ids)
    out: dict[str, Turn] = {}
    nums: dict[str, int] = {}
    for start in range(0, len(wanted), _CHUNK):
        which, params = dialect.any_of("m.id", wanted[start : start + _CHUNK])
        for r in run(
            f"""SELECT m.num, m.id, m.content, m.embedding, {dialect.metadata} AS metadata
                FROM memories m WHERE {which}""",
            params,
        ):
            out[r["id"]] = Turn(
                memory_id=r["id"],
                content=r["content"],
                vector=dialect.read_vector(r["embedding"]),
                speaker=speaker_of(json.loads(r["metadata"])),
            )
            nums[r["id"]] = int(r["num"])
    return out, nums


def mark_window(conn: Any, dialect: Dialect, window: Window) -> bool:
    """Record the window contexts are built with, in the caller's transaction; a store built
    with another one has every conversation marked, to be rebuilt. False when it was the
    window already recorded (nothing was written)."""
    text = window_text(window)
    row = dialect.run(conn, "SELECT value FROM lethe_meta WHERE key = 'context_window'").fetchone()
    if row is not None and row["value"] == text:
        return False
    dialect.run(
        conn,
        """INSERT INTO lethe_meta (key, value) VALUES ('context_window', ?)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value""",
        (text,),
    )
    if row is not None:  # every window changes: every turn counts as changed
        dialect.run(
            conn,
            """INSERT INTO conversation_dirty SELECT DISTINCT namespace, conversation
               FROM memories WHERE conversation IS NOT NULL ON CONFLICT DO NOTHING""",
        )
        dialect.run(
            conn,
            """INSERT INTO conversation_dirty SELECT DISTINCT e.namespace, ' episode:' || e.id
               FROM episodes e JOIN episode_members em ON em.episode_id = e.id
               WHERE em.memory_id IS NOT NULL ON CONFLICT DO NOTHING""",
        )
        dialect.run(
            conn,
            """INSERT INTO context_changed SELECT id FROM memories
               WHERE conversation IS NOT NULL UNION SELECT memory_id FROM episode_members
               WHERE memory_id IS NOT NULL ON CONFLICT DO NOTHING""",
        )
    return True
