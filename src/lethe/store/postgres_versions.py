"""What the PostgreSQL store reads of memories' versions and of their texts' hashes. Kept
apart from `postgres.py`, which `PostgresStore` mixes this into."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from lethe.model import Memory, MemoryVersion
from lethe.store.rows import (
    VERSION_COLUMNS,
    keep_version_sql,
    memory_from_row,
    ts,
    version_from_row,
    version_reads,
)

if TYPE_CHECKING:
    import psycopg

_TAGS = """(SELECT coalesce(json_agg(t.tag ORDER BY t.position), '[]'::json)::text
    FROM memory_tags t WHERE t.memory_id = m.id)"""
_CURRENT, _EARLIER = version_reads(_TAGS, "m.metadata::text", "%s")
KEEP_VERSION = keep_version_sql(_TAGS, "m.metadata::text", "%s")


class _Reads(Protocol):
    def _read(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...


class PostgresVersionReads:
    def versions(self: _Reads, memory_id: str) -> list[MemoryVersion]:
        """Every state of a memory, the current one first, then the earlier ones newest
        first; empty when there is no such memory (live or forgotten)."""
        with self._read() as conn:
            current = conn.execute(_CURRENT.encode(), (memory_id,)).fetchone()
            if current is None:
                return []
            earlier = conn.execute(_EARLIER.encode(), (memory_id,)).fetchall()
        return [version_from_row(current), *(version_from_row(r) for r in earlier)]

    def versions_replaced_since(
        self: _Reads, ids: Sequence[str], since: datetime
    ) -> dict[str, list[MemoryVersion]]:
        """The earlier states of these memories that stopped being current at or after
        `since`, newest first."""
        found: dict[str, list[MemoryVersion]] = {}
        if not ids:
            return found
        with self._read() as conn:
            rows = conn.execute(
                f"""SELECT {VERSION_COLUMNS} FROM memory_versions
                    WHERE memory_id = ANY(%s) AND valid_until >= %s
                    ORDER BY version DESC""".encode(),
                (list(ids), ts(since)),
            ).fetchall()
        for row in rows:
            found.setdefault(row["memory_id"], []).append(version_from_row(row))
        return found

    def derived_from(self: _Reads, ids: Sequence[str], namespace: str) -> list[Memory]:
        """Memories (live or in the trash) lethe made from any of these: a decay summary
        (agent `lethe`, category `summary`) lists the ids it was made from in
        `metadata.summarizes`. A person's own memory is never taken for one."""
        if not ids:
            return []
        from lethe.store.postgres import MEMORY_COLUMNS

        with self._read() as conn:
            rows = conn.execute(
                f"""SELECT {MEMORY_COLUMNS} FROM memories m
                    WHERE m.namespace = %s AND m.agent = 'lethe' AND m.category = 'summary'
                    AND jsonb_typeof(m.metadata -> 'summarizes') = 'array'
                    AND (m.metadata -> 'summarizes') ?| %s
                    ORDER BY m.num""".encode(),
                (namespace, list(ids)),
            ).fetchall()
        return [memory_from_row(r) for r in rows]

    def live_ids_with_earlier_text(
        self: _Reads, namespace: str, needle: str, limit: int
    ) -> list[str]:
        """Live memories of the namespace an earlier version of which contains `needle`
        (case folded). The versions table holds only changed memories: a scan is small."""
        with self._read() as conn:
            rows = conn.execute(
                """SELECT DISTINCT v.memory_id FROM memory_versions v
                   JOIN memories m ON m.id = v.memory_id
                   WHERE m.namespace = %s AND m.status = 'active'
                   AND strpos(lower(v.content), lower(%s)) > 0
                   LIMIT %s""",
                (namespace, needle, limit),
            ).fetchall()
        return [r["memory_id"] for r in rows]

    def namespaces(self: _Reads) -> list[str]:
        """Every namespace that holds a memory, live or in the trash."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT namespace FROM memories ORDER BY namespace"
            ).fetchall()
        return [r["namespace"] for r in rows]

    def live_ids_by_hash(self: _Reads, namespace: str, hashes: Sequence[str]) -> list[str]:
        """Live memories of the namespace whose text has one of these SHA-256 hashes."""
        if not hashes:
            return []
        with self._read() as conn:
            rows = conn.execute(
                """SELECT id FROM memories WHERE namespace = %s AND status = 'active'
                   AND content_sha256 = ANY(%s) ORDER BY num""",
                (namespace, list(hashes)),
            ).fetchall()
        return [r["id"] for r in rows]
