"""What the SQLite store reads of the summaries made from memories: JSON machinery of its
own (the shared version reads are in `sql_reads.py`)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence

from lethe.model import Memory
from lethe.store.rows import MEMORY_COLUMNS, memory_from_row

_CHUNK = 500


class SQLiteVersionReads:
    _conn: sqlite3.Connection
    _lock: threading.RLock

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
