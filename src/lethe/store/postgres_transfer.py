"""What export and import read of a PostgreSQL store beyond the engine's everyday queries:
the trash's ids, and the audit events of a span of time (to recognise events already
imported). Kept apart from `postgres.py`, which `PostgresStore` mixes this into."""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from lethe.model import Event
from lethe.store.rows import event_from_row, ts

if TYPE_CHECKING:
    import psycopg


class _Reads(Protocol):
    def _read(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...


class PostgresTransferReads:
    def trash_ids(self: _Reads) -> list[str]:
        """Ids of forgotten memories in insertion order."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id FROM memories WHERE status = 'forgotten' ORDER BY num"
            ).fetchall()
        return [r["id"] for r in rows]

    def events_between(self: _Reads, start: datetime, end: datetime) -> list[Event]:
        """Events whose time lies in [start, end], in seq order."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT * FROM events WHERE at >= %s AND at <= %s ORDER BY seq",
                (ts(start), ts(end)),
            ).fetchall()
        return [event_from_row(r) for r in rows]
