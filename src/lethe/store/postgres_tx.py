"""The write half of the PostgreSQL store: statements run inside
`PostgresStore.transaction()`, on the one connection that transaction holds.

The statements are the SQLite store's, in PostgreSQL's terms; the full-text entry is a
generated column and the vector a `vector` column, so both change with the row."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from lethe.model import Episode, Link, Memory, MemoryVersion, Pending
from lethe.store.postgres_versions import KEEP_VERSION
from lethe.store.reembed_base import TABLE as STAGED
from lethe.store.rows import (
    MEMORY_INSERT_COLUMNS,
    VERSION_COLUMNS,
    Provenance,
    memory_values,
    pending_from_row,
    placeholders,
    ts,
    version_values,
)
from lethe.store.vectors import Vector

_MEMORY_MARKS = placeholders("%s", len(MEMORY_INSERT_COLUMNS.split(",")) + 1)  # + embedding
_VERSION_MARKS = placeholders("%s", len(VERSION_COLUMNS.split(",")))

if TYPE_CHECKING:
    import psycopg

    from lethe.store.postgres import PostgresStore


class PostgresTx:
    """The write half of the store, only reachable inside `PostgresStore.transaction()`."""

    def __init__(self, store: PostgresStore, conn: psycopg.Connection[dict[str, Any]]) -> None:
        self._store = store
        self._conn = conn

    @property
    def store(self) -> PostgresStore:
        return self._store

    def insert_memory(self, memory: Memory, vector: Vector, made: Provenance | None = None) -> None:
        self._conn.execute(
            f"INSERT INTO memories ({MEMORY_INSERT_COLUMNS}, embedding) "
            "VALUES (" + _MEMORY_MARKS + ")",
            (*memory_values(memory, made), np.asarray(vector, dtype=np.float32)),
        )
        self._set_tags(memory.id, memory.tags)

    def update_memory(self, memory: Memory, vector: Vector | None, made: Provenance) -> None:
        """Make `memory` the current state (its `version` already the next one); the state it
        replaces must have been kept with `keep_version` first."""
        self._conn.execute(
            """UPDATE memories SET content = %s, content_sha256 = %s, layer = %s, category = %s,
                metadata = %s, importance = %s, private = %s, updated_at = %s, agent = %s,
                version = %s, changed_by = %s, change_op = %s, change_reason = %s,
                expires_at = %s, expiry_set_by = %s, expiry_set_at = %s,
                expiry_held = %s
               WHERE id = %s""",
            (
                memory.content,
                memory.content_sha256,
                memory.layer,
                memory.category,
                json.dumps(memory.metadata, ensure_ascii=False),
                memory.importance,
                memory.private,
                ts(memory.updated_at),
                memory.agent,
                memory.version,
                made.actor,
                made.op,
                made.reason,
                None if memory.expires_at is None else ts(memory.expires_at),
                memory.expiry_set_by if memory.expires_at else None,
                ts(memory.expiry_set_at) if memory.expires_at and memory.expiry_set_at else None,
                memory.expiry_held and memory.expires_at is not None,
                memory.id,
            ),
        )
        if vector is not None:
            self._conn.execute(
                "UPDATE memories SET embedding = %s WHERE id = %s",
                (np.asarray(vector, dtype=np.float32), memory.id),
            )
        self._set_tags(memory.id, memory.tags)

    def keep_version(self, memory_id: str, until: datetime) -> None:
        """Copy the memory's current state, with who made it, into `memory_versions`: it was
        current until `until`."""
        self._conn.execute(KEEP_VERSION, (ts(until), memory_id))

    def insert_version(self, version: MemoryVersion) -> None:
        """An earlier state carried by an import."""
        self._conn.execute(
            f"INSERT INTO memory_versions ({VERSION_COLUMNS}) VALUES ({_VERSION_MARKS})",
            version_values(version),
        )

    def set_version_vector(self, memory_id: str, version: int, vector: Vector) -> None:
        """The vector of an earlier state that had none (see `unembedded_versions`)."""
        self._conn.execute(
            """UPDATE memory_versions SET embedding = %s
               WHERE memory_id = %s AND version = %s AND embedding IS NULL""",
            (np.asarray(vector, dtype=np.float32), memory_id, version),
        )

    def redact_version(
        self, memory_id: str, version: int, content: str, content_sha256: str, vector: Vector
    ) -> bool:
        """An earlier state's text without a fact forgotten since: it keeps its number, times
        and author. Its vector is the new text's, so no search as of a past moment ranks by
        the old words (the changed vector logs the memory for every process's index), and a
        reembed under way loses what it staged of this memory (the next run embeds it again)."""
        self._drop_staged(memory_id)
        cursor = self._conn.execute(
            """UPDATE memory_versions SET content = %s, content_sha256 = %s, embedding = %s
               WHERE memory_id = %s AND version = %s""",
            (content, content_sha256, np.asarray(vector, dtype=np.float32), memory_id, version),
        )
        return cursor.rowcount == 1

    def drop_versions(self, memory_id: str, *, containing: Sequence[str] = ()) -> int:
        """Erase a memory's earlier states, or only those whose text holds one of
        `containing` (a summary losing an erased memory's line: its earlier states hold it)."""
        self._drop_staged(memory_id)
        if not containing:
            cursor = self._conn.execute(
                "DELETE FROM memory_versions WHERE memory_id = %s", (memory_id,)
            )
            return cursor.rowcount
        held = " OR ".join("strpos(content, %s) > 0" for _ in containing)
        cursor = self._conn.execute(
            f"DELETE FROM memory_versions WHERE memory_id = %s AND ({held})",
            (memory_id, *containing),
        )
        return cursor.rowcount

    def _drop_staged(self, memory_id: str) -> None:
        """A reembed under way staged vectors of this memory's texts, the erased ones among
        them: they go too (the next run embeds what is left again)."""
        row = self._conn.execute("SELECT to_regclass(%s) IS NOT NULL AS staged", (STAGED,))
        found = row.fetchone()
        if found and (found["staged"] if isinstance(found, dict) else found[0]):
            self._conn.execute(f"DELETE FROM {STAGED} WHERE memory_id = %s", (memory_id,))

    def _set_tags(self, memory_id: str, tags: Sequence[str]) -> None:
        self._conn.execute("DELETE FROM memory_tags WHERE memory_id = %s", (memory_id,))
        self._conn.cursor().executemany(
            "INSERT INTO memory_tags (memory_id, tag, position) VALUES (%s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            [(memory_id, tag, i) for i, tag in enumerate(tags)],
        )

    def upsert_link(self, link: Link) -> None:
        self._conn.execute(
            """INSERT INTO links (a, b, kind, confidence, created_at, updated_at)
               VALUES (%s, %s, %s, %s, %s, %s)
               ON CONFLICT (a, b, kind) DO UPDATE SET
                   confidence = excluded.confidence, updated_at = excluded.updated_at""",
            (
                link.a,
                link.b,
                link.kind,
                link.confidence,
                ts(link.created_at),
                ts(link.updated_at),
            ),
        )

    def delete_link(self, a: str, b: str, kind: str) -> bool:
        a, b = sorted((a, b))
        cursor = self._conn.execute(
            "DELETE FROM links WHERE a = %s AND b = %s AND kind = %s", (a, b, kind)
        )
        return cursor.rowcount > 0

    def insert_episode(self, episode: Episode, member_ids: Sequence[str | None]) -> None:
        self._conn.execute(
            """INSERT INTO episodes
                   (id, namespace, summary, start_at, end_at, importance, created_at)
               VALUES (%s, %s, %s, %s, %s, %s, %s)""",
            (
                episode.id,
                episode.namespace,
                episode.summary,
                ts(episode.start_at),
                ts(episode.end_at),
                episode.importance,
                ts(episode.created_at),
            ),
        )
        self._conn.cursor().executemany(
            "INSERT INTO episode_members (episode_id, position, memory_id) VALUES (%s, %s, %s)",
            [(episode.id, i, memory_id) for i, memory_id in enumerate(member_ids)],
        )

    def append_event(
        self,
        *,
        op: str,
        actor: str,
        at: datetime,
        memory_id: str | None = None,
        namespace: str | None = None,
        reason: str | None = None,
        details: dict[str, Any] | None = None,
        content_sha256: str | None = None,
    ) -> int:
        cursor = self._conn.execute(
            """INSERT INTO events (at, op, memory_id, namespace, actor, reason, details,
                content_sha256) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING seq""",
            (
                ts(at),
                op,
                memory_id,
                namespace,
                actor,
                reason,
                json.dumps(details or {}, ensure_ascii=False, default=str),
                content_sha256,
            ),
        )
        row = cursor.fetchone()
        return int(row["seq"]) if row else 0

    def owe(self, work: dict[str, Any], at: datetime) -> int:
        """Record work this change owes after its commit (see `Store.owed`)."""
        cursor = self._conn.execute(
            "INSERT INTO owed_work (created_at, work) VALUES (%s, %s) RETURNING id",
            (ts(at), json.dumps(work, ensure_ascii=False)),
        )
        row = cursor.fetchone()
        return int(row["id"]) if row else 0

    # -- forgetting ---------------------------------------------------------------------

    def touch(self, ids: Sequence[str], at: datetime) -> None:
        self._conn.execute(
            "UPDATE memories SET access_count = access_count + 1, last_accessed_at = %s "
            "WHERE id = ANY(%s)",
            [ts(at), list(ids)],
        )
        self._conn.cursor().executemany(
            "INSERT INTO access_days (memory_id, day, count) VALUES (%s, %s, 1) "
            "ON CONFLICT (memory_id, day) DO UPDATE SET count = access_days.count + 1",
            [(memory_id, int(ts(at) // 86400)) for memory_id in ids],
        )

    def working_put(
        self, agent: str, namespace: str, memory_id: str, tokens: int, at: datetime
    ) -> None:
        self._conn.execute(
            """INSERT INTO working_set (agent, namespace, memory_id, tokens, added_at)
               VALUES (%s, %s, %s, %s, %s)
               ON CONFLICT (agent, namespace, memory_id)
               DO UPDATE SET tokens = excluded.tokens, added_at = excluded.added_at""",
            (agent, namespace, memory_id, tokens, ts(at)),
        )

    def working_drop(self, agent: str, namespace: str, memory_id: str) -> None:
        self._conn.execute(
            "DELETE FROM working_set WHERE agent = %s AND namespace = %s AND memory_id = %s",
            (agent, namespace, memory_id),
        )

    def set_forgotten(
        self, memory_id: str, *, at: datetime, actor: str, reason: str | None
    ) -> bool:
        """Soft delete: the row, its links and memberships stay, hidden behind the status."""
        cursor = self._conn.execute(
            """UPDATE memories SET status = 'forgotten', forgotten_at = %s, forgotten_by = %s,
                   forget_reason = %s
               WHERE id = %s AND status = 'active'""",
            (ts(at), actor, reason, memory_id),
        )
        return cursor.rowcount == 1

    def set_expiry(
        self,
        memory_id: str,
        expires_at: datetime | None,
        *,
        by: str | None,
        at: datetime | None,
        held: bool = False,
    ) -> None:
        self._conn.execute(
            "UPDATE memories SET expires_at = %s, expiry_set_by = %s, expiry_set_at = %s, "
            "expiry_held = %s WHERE id = %s",
            (
                None if expires_at is None else ts(expires_at),
                None if expires_at is None else by,
                None if expires_at is None or at is None else ts(at),
                expires_at is not None and held,
                memory_id,
            ),
        )

    def set_restored(self, memory_id: str) -> bool:
        cursor = self._conn.execute(
            """UPDATE memories SET status = 'active', forgotten_at = NULL, forgotten_by = NULL,
                   forget_reason = NULL
               WHERE id = %s AND status = 'forgotten'""",
            (memory_id,),
        )
        return cursor.rowcount == 1

    def erase(self, memory_id: str) -> bool:
        """Hard erasure: the row and, by cascade and trigger, its tags, links, pending
        confirmations, full-text entry and episode membership (left as an anonymous gap).
        The memory's audit events lose their content-bearing parts."""
        cursor = self._conn.execute("DELETE FROM memories WHERE id = %s", (memory_id,))
        if cursor.rowcount != 1:
            return False
        self._conn.execute(
            """UPDATE events SET details = '{"redacted": true}', reason = NULL
               WHERE memory_id = %s AND details != '{"redacted": true}'""",
            (memory_id,),
        )
        return True

    def pending(self, session: str, operation: str, ids: Sequence[str]) -> dict[str, Pending]:
        if not ids:
            return {}
        rows = self._conn.execute(
            """SELECT * FROM pending_confirmations
                WHERE session = %s AND operation = %s AND memory_id = ANY(%s)""",
            [session, operation, list(ids)],
        )
        return {row["memory_id"]: pending_from_row(row) for row in rows}

    def put_pending(self, pending: Pending) -> None:
        self._conn.execute(
            """INSERT INTO pending_confirmations (session, memory_id, operation, content_sha256,
                   first_requested_at, last_requested_at, request_count, expires_at)
               VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
               ON CONFLICT (session, memory_id, operation) DO UPDATE SET
                   content_sha256 = excluded.content_sha256,
                   first_requested_at = excluded.first_requested_at,
                   last_requested_at = excluded.last_requested_at,
                   request_count = excluded.request_count,
                   expires_at = excluded.expires_at""",
            (
                pending.session,
                pending.memory_id,
                pending.operation,
                pending.content_sha256,
                ts(pending.first_requested_at),
                ts(pending.last_requested_at),
                pending.request_count,
                ts(pending.expires_at),
            ),
        )

    def drop_pending(self, session: str, operation: str, memory_id: str) -> None:
        self._conn.execute(
            """DELETE FROM pending_confirmations
               WHERE session = %s AND operation = %s AND memory_id = %s""",
            (session, operation, memory_id),
        )

    def drop_expired_pending(self, now: datetime) -> list[Pending]:
        rows = self._conn.execute(
            "DELETE FROM pending_confirmations WHERE expires_at <= %s RETURNING *", (ts(now),)
        ).fetchall()
        return [pending_from_row(r) for r in rows]
