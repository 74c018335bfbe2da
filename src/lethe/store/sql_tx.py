"""The write half of both SQL stores: statements run inside a store's `transaction()`, on
the connection that transaction holds, in the store's dialect (`dialect.py`).

On SQLite the full-text entry is kept by triggers; on PostgreSQL it is a generated column and
the vector a `vector` column: either way they change with the row."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from lethe.model import Episode, Link, Memory, MemoryVersion, Pending
from lethe.store.dialect import Dialect
from lethe.store.reembed_base import TABLE as STAGED
from lethe.store.rows import (
    MEMORY_INSERT_COLUMNS,
    VERSION_COLUMNS,
    Provenance,
    keep_version_sql,
    memory_values,
    pending_from_row,
    placeholders,
    ts,
    version_values,
)
from lethe.store.vectors import Vector

_MEMORY_MARKS = placeholders("?", len(MEMORY_INSERT_COLUMNS.split(",")) + 1)  # + embedding
_VERSION_MARKS = placeholders("?", len(VERSION_COLUMNS.split(",")))


class SqlTx:
    """The write half of a store, only reachable inside its `transaction()`."""

    def __init__(self, store: Any, conn: Any, dialect: Dialect) -> None:
        self._store = store
        self._conn = conn
        self._d = dialect

    @property
    def store(self) -> Any:
        return self._store

    def _run(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._d.run(self._conn, sql, params)

    def _run_many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._d.run_many(self._conn, sql, rows)

    def insert_memory(self, memory: Memory, vector: Vector, made: Provenance | None = None) -> None:
        self._run(
            f"INSERT INTO memories ({MEMORY_INSERT_COLUMNS}, embedding) "
            "VALUES (" + _MEMORY_MARKS + ")",
            (*memory_values(memory, made), self._d.vector(vector)),
        )
        self._set_tags(memory.id, memory.tags)

    def update_memory(self, memory: Memory, vector: Vector | None, made: Provenance) -> None:
        """Make `memory` the current state (its `version` already the next one); the state it
        replaces must have been kept with `keep_version` first."""
        self._run(
            """UPDATE memories SET content = ?, content_sha256 = ?, layer = ?, category = ?,
                metadata = ?, importance = ?, private = ?, updated_at = ?, agent = ?,
                version = ?, changed_by = ?, change_op = ?, change_reason = ?,
                expires_at = ?, expiry_set_by = ?, expiry_set_at = ?,
                expiry_held = ?
               WHERE id = ?""",
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
            self._run(
                "UPDATE memories SET embedding = ? WHERE id = ?",
                (self._d.vector(vector), memory.id),
            )
        self._set_tags(memory.id, memory.tags)

    def keep_version(self, memory_id: str, until: datetime) -> None:
        """Copy the memory's current state, with who made it, into `memory_versions`: it was
        current until `until`."""
        self._run(keep_version_sql(self._d.tags, self._d.metadata, "?"), (ts(until), memory_id))

    def insert_version(self, version: MemoryVersion) -> None:
        """An earlier state carried by an import."""
        self._run(
            f"INSERT INTO memory_versions ({VERSION_COLUMNS}) VALUES ({_VERSION_MARKS})",
            version_values(version),
        )

    def set_version_vector(self, memory_id: str, version: int, vector: Vector) -> None:
        """The vector of an earlier state that had none (see `unembedded_versions`)."""
        self._run(
            """UPDATE memory_versions SET embedding = ?
               WHERE memory_id = ? AND version = ? AND embedding IS NULL""",
            (self._d.vector(vector), memory_id, version),
        )

    def redact_version(
        self, memory_id: str, version: int, content: str, content_sha256: str, vector: Vector
    ) -> bool:
        """An earlier state's text without a fact forgotten since: it keeps its number, times
        and author. Its vector is the new text's, so no search as of a past moment ranks by
        the old words (the changed vector logs the memory for every process's index), and a
        reembed under way loses what it staged of this memory (the next run embeds it again)."""
        self._drop_staged(memory_id)
        cursor = self._run(
            """UPDATE memory_versions SET content = ?, content_sha256 = ?, embedding = ?
               WHERE memory_id = ? AND version = ?""",
            (
                content,
                content_sha256,
                self._d.vector(vector),
                memory_id,
                version,
            ),
        )
        return bool(cursor.rowcount == 1)

    def drop_versions(self, memory_id: str, *, containing: Sequence[str] = ()) -> int:
        """Erase a memory's earlier states, or only those whose text holds one of
        `containing` (a summary losing an erased memory's line: its earlier states hold it)."""
        self._drop_staged(memory_id)
        if not containing:
            cursor = self._run("DELETE FROM memory_versions WHERE memory_id = ?", (memory_id,))
            return int(cursor.rowcount)
        held = " OR ".join(self._d.holds("content") for _ in containing)
        cursor = self._run(
            f"DELETE FROM memory_versions WHERE memory_id = ? AND ({held})",
            (memory_id, *containing),
        )
        return int(cursor.rowcount)

    def _drop_staged(self, memory_id: str) -> None:
        """A reembed under way staged vectors of this memory's texts, the erased ones among
        them: they go too (the next run embeds what is left again)."""
        if self._d.has_table(self._conn, STAGED):
            self._run(f"DELETE FROM {STAGED} WHERE memory_id = ?", (memory_id,))

    def _set_tags(self, memory_id: str, tags: Sequence[str]) -> None:
        self._run("DELETE FROM memory_tags WHERE memory_id = ?", (memory_id,))
        if self._d.name == "postgres":  # its tags keep their order in a column
            self._run_many(
                "INSERT INTO memory_tags (memory_id, tag, position) VALUES (?, ?, ?) "
                "ON CONFLICT DO NOTHING",
                [(memory_id, tag, i) for i, tag in enumerate(tags)],
            )
        else:  # SQLite's, in the order of their rows
            self._run_many(
                "INSERT INTO memory_tags (memory_id, tag) VALUES (?, ?) ON CONFLICT DO NOTHING",
                [(memory_id, tag) for tag in tags],
            )

    def upsert_link(self, link: Link) -> None:
        self._run(
            """INSERT INTO links (a, b, kind, confidence, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?)
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
        cursor = self._run("DELETE FROM links WHERE a = ? AND b = ? AND kind = ?", (a, b, kind))
        return bool(cursor.rowcount > 0)

    def insert_episode(self, episode: Episode, member_ids: Sequence[str | None]) -> None:
        self._run(
            """INSERT INTO episodes
                   (id, namespace, summary, start_at, end_at, importance, created_at)
               VALUES (?, ?, ?, ?, ?, ?, ?)""",
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
        self._run_many(
            "INSERT INTO episode_members (episode_id, position, memory_id) VALUES (?, ?, ?)",
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
        cursor = self._run(
            """INSERT INTO events (at, op, memory_id, namespace, actor, reason, details,
                content_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq""",
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
        cursor = self._run(
            "INSERT INTO owed_work (created_at, work) VALUES (?, ?) RETURNING id",
            (ts(at), json.dumps(work, ensure_ascii=False)),
        )
        row = cursor.fetchone()
        return int(row["id"]) if row else 0

    # -- forgetting ---------------------------------------------------------------------

    def touch(self, ids: Sequence[str], at: datetime) -> None:
        which, params = self._d.any_of("id", ids)
        self._run(
            "UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? "
            f"WHERE {which}",
            [ts(at), *params],
        )
        self._run_many(
            "INSERT INTO access_days (memory_id, day, count) VALUES (?, ?, 1) "
            "ON CONFLICT (memory_id, day) DO UPDATE SET count = access_days.count + 1",
            [(memory_id, int(ts(at) // 86400)) for memory_id in ids],
        )

    def working_put(
        self, agent: str, namespace: str, memory_id: str, tokens: int, at: datetime
    ) -> None:
        self._run(
            """INSERT INTO working_set (agent, namespace, memory_id, tokens, added_at)
               VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (agent, namespace, memory_id)
               DO UPDATE SET tokens = excluded.tokens, added_at = excluded.added_at""",
            (agent, namespace, memory_id, tokens, ts(at)),
        )

    def working_drop(self, agent: str, namespace: str, memory_id: str) -> None:
        self._run(
            "DELETE FROM working_set WHERE agent = ? AND namespace = ? AND memory_id = ?",
            (agent, namespace, memory_id),
        )

    def set_forgotten(
        self, memory_id: str, *, at: datetime, actor: str, reason: str | None
    ) -> bool:
        """Soft delete: the row, its links and memberships stay, hidden behind the status."""
        cursor = self._run(
            """UPDATE memories SET status = 'forgotten', forgotten_at = ?, forgotten_by = ?,
                   forget_reason = ?
               WHERE id = ? AND status = 'active'""",
            (ts(at), actor, reason, memory_id),
        )
        return bool(cursor.rowcount == 1)

    def set_expiry(
        self,
        memory_id: str,
        expires_at: datetime | None,
        *,
        by: str | None,
        at: datetime | None,
        held: bool = False,
    ) -> None:
        self._run(
            "UPDATE memories SET expires_at = ?, expiry_set_by = ?, expiry_set_at = ?, "
            "expiry_held = ? WHERE id = ?",
            (
                None if expires_at is None else ts(expires_at),
                None if expires_at is None else by,
                None if expires_at is None or at is None else ts(at),
                expires_at is not None and held,
                memory_id,
            ),
        )

    def set_restored(self, memory_id: str) -> bool:
        cursor = self._run(
            """UPDATE memories SET status = 'active', forgotten_at = NULL, forgotten_by = NULL,
                   forget_reason = NULL
               WHERE id = ? AND status = 'forgotten'""",
            (memory_id,),
        )
        return bool(cursor.rowcount == 1)

    def erase(self, memory_id: str) -> bool:
        """Hard erasure: the row and, by cascade and trigger, its tags, links, pending
        confirmations, full-text entry and episode membership (left as an anonymous gap).
        The memory's audit events lose their content-bearing parts."""
        cursor = self._run("DELETE FROM memories WHERE id = ?", (memory_id,))
        if cursor.rowcount != 1:
            return False
        self._run(
            """UPDATE events SET details = '{"redacted": true}', reason = NULL
               WHERE memory_id = ? AND details != '{"redacted": true}'""",
            (memory_id,),
        )
        return True

    def pending(self, session: str, operation: str, ids: Sequence[str]) -> dict[str, Pending]:
        if not ids:
            return {}
        which, params = self._d.any_of("memory_id", ids)
        rows = self._run(
            f"""SELECT * FROM pending_confirmations
                WHERE session = ? AND operation = ? AND {which}""",
            [session, operation, *params],
        )
        return {row["memory_id"]: pending_from_row(row) for row in rows}

    def put_pending(self, pending: Pending) -> None:
        self._run(
            """INSERT INTO pending_confirmations (session, memory_id, operation, content_sha256,
                   first_requested_at, last_requested_at, request_count, expires_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?)
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
        self._run(
            """DELETE FROM pending_confirmations
               WHERE session = ? AND operation = ? AND memory_id = ?""",
            (session, operation, memory_id),
        )

    def drop_expired_pending(self, now: datetime) -> list[Pending]:
        rows = self._run(
            "DELETE FROM pending_confirmations WHERE expires_at <= ? RETURNING *", (ts(now),)
        ).fetchall()
        return [pending_from_row(r) for r in rows]
