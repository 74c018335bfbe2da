"""What the SQLite store reads of memories' versions and of their texts' hashes. Kept apart
from `sqlite.py`, which `SQLiteStore` mixes this into."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from datetime import datetime

from lethe.model import Memory, MemoryVersion
from lethe.store.rows import (
    MEMORY_COLUMNS,
    VERSION_COLUMNS,
    keep_version_sql,
    memory_from_row,
    ts,
    version_from_row,
    version_reads,
)

_TAGS = """(SELECT json_group_array(tag) FROM
    (SELECT t.tag FROM memory_tags t WHERE t.memory_id = m.id ORDER BY t.rowid))"""
_CURRENT, _EARLIER = version_reads(_TAGS, "m.metadata", "?")
KEEP_VERSION = keep_version_sql(_TAGS, "m.metadata", "?")
_CHUNK = 500


class SQLiteVersionReads:
    _conn: sqlite3.Connection
    _lock: threading.RLock

    def versions(self, memory_id: str) -> list[MemoryVersion]:
        """Every state of a memory, the current one first, then the earlier ones newest
        first; empty when there is no such memory (live or forgotten)."""
        with self._lock:
            current = self._conn.execute(_CURRENT, (memory_id,)).fetchone()
            if current is None:
                return []
            earlier = self._conn.execute(_EARLIER, (memory_id,)).fetchall()
        return [version_from_row(current), *(version_from_row(r) for r in earlier)]

    def versions_replaced_since(
        self, ids: Sequence[str], since: datetime
    ) -> dict[str, list[MemoryVersion]]:
        """The earlier states of these memories that stopped being current at or after
        `since`, newest first."""
        found: dict[str, list[MemoryVersion]] = {}
        with self._lock:
            for start in range(0, len(ids), _CHUNK):
                chunk = list(ids[start : start + _CHUNK])
                marks = ", ".join("?" for _ in chunk)
                rows = self._conn.execute(
                    f"""SELECT {VERSION_COLUMNS} FROM memory_versions
                        WHERE memory_id IN ({marks}) AND valid_until >= ?
                        ORDER BY version DESC""",
                    [*chunk, ts(since)],
                ).fetchall()
                for row in rows:
                    found.setdefault(row["memory_id"], []).append(version_from_row(row))
        return found

    def derived_from(self, ids: Sequence[str], namespace: str) -> list[Memory]:
        """Memories (live or in the trash) lethe made from any of these: a decay summary
        (agent `lethe`, category `summary`) lists the ids it was made from in
        `metadata.summarizes`. A person's own memory is never taken for one."""
        found: dict[str, Memory] = {}
        with self._lock:
            for start in range(0, len(ids), _CHUNK):
                chunk = list(ids[start : start + _CHUNK])
                marks = ", ".join("?" for _ in chunk)
                rows = self._conn.execute(
                    f"""SELECT {MEMORY_COLUMNS} FROM memories m
                        WHERE m.namespace = ? AND m.agent = 'lethe' AND m.category = 'summary'
                        AND json_type(m.metadata, '$.summarizes') = 'array'
                        AND EXISTS (SELECT 1 FROM json_each(m.metadata, '$.summarizes') s
                                    WHERE s.value IN ({marks}))
                        ORDER BY m.num""",
                    [namespace, *chunk],
                ).fetchall()
                for row in rows:
                    found[row["id"]] = memory_from_row(row)
        return list(found.values())

    def live_ids_with_earlier_text(self, namespace: str, needle: str, limit: int) -> list[str]:
        """Live memories of the namespace an earlier version of which contains `needle`
        (case folded). The versions table holds only changed memories: a scan is small."""
        with self._lock:
            rows = self._conn.execute(
                """SELECT DISTINCT v.memory_id FROM memory_versions v
                   JOIN memories m ON m.id = v.memory_id
                   WHERE m.namespace = ? AND m.status = 'active'
                   AND instr(lower(v.content), lower(?)) > 0
                   LIMIT ?""",
                (namespace, needle, limit),
            ).fetchall()
        return [r[0] for r in rows]

    def namespaces(self) -> list[str]:
        """Every namespace that holds a memory, live or in the trash."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT DISTINCT namespace FROM memories ORDER BY namespace"
            ).fetchall()
        return [r[0] for r in rows]

    def live_ids_by_hash(self, namespace: str, hashes: Sequence[str]) -> list[str]:
        """Live memories of the namespace whose text has one of these SHA-256 hashes."""
        if not hashes:
            return []
        marks = ", ".join("?" for _ in hashes)
        with self._lock:
            rows = self._conn.execute(
                f"""SELECT id FROM memories WHERE namespace = ? AND status = 'active'
                    AND content_sha256 IN ({marks}) ORDER BY num""",
                [namespace, *hashes],
            ).fetchall()
        return [r[0] for r in rows]
