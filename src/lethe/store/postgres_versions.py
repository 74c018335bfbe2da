"""What the PostgreSQL store reads of the summaries made from memories: JSON machinery of
its own (the shared version reads are in `sql_reads.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

from lethe.model import Memory
from lethe.store.rows import memory_from_row

if TYPE_CHECKING:
    import psycopg


class _Reads(Protocol):
    def _read(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...


class PostgresVersionReads:
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
