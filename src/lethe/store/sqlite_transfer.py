"""What export and import read of a SQLite store beyond the engine's everyday queries: the
trash's ids, and the audit events of a span of time (to recognise events already imported).
Kept apart from `sqlite.py`, which `SQLiteStore` mixes this into."""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime

from lethe.model import Event
from lethe.store.rows import event_from_row, ts


class SQLiteTransferReads:
    _conn: sqlite3.Connection
    _lock: threading.RLock

    def trash_ids(self) -> list[str]:
        """Ids of forgotten memories in insertion order."""
        with self._lock:
            return [
                r[0]
                for r in self._conn.execute(
                    "SELECT id FROM memories WHERE status = 'forgotten' ORDER BY num"
                )
            ]

    def events_between(self, start: datetime, end: datetime) -> list[Event]:
        """Events whose time lies in [start, end], in seq order."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT * FROM events WHERE at >= ? AND at <= ? ORDER BY seq",
                (ts(start), ts(end)),
            ).fetchall()
        return [event_from_row(r) for r in rows]
