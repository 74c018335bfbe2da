"""The work committed changes still owe (see `owed_work` in migration 9), read and settled
by the SQLite store. Kept apart from `sqlite.py`, which `SQLiteStore` mixes this into."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from typing import Any


class SQLiteOwedWork:
    _conn: sqlite3.Connection
    _lock: threading.RLock

    def owed(self) -> list[tuple[int, dict[str, Any]]]:
        """Every piece of owed work, oldest first."""
        with self._lock:
            rows = self._conn.execute("SELECT id, work FROM owed_work ORDER BY id").fetchall()
        return [(int(r[0]), json.loads(r[1])) for r in rows]

    def settle(self, ids: Sequence[int]) -> None:
        """The work is done: forget it (in a transaction of its own)."""
        if not ids:
            return
        marks = ", ".join("?" for _ in ids)
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(f"DELETE FROM owed_work WHERE id IN ({marks})", list(ids))
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def workspace_known(self) -> bool:
        """Whether any process has projected this store to a workspace (so work on its
        files is recorded even by processes that have none)."""
        with self._lock:
            row = self._conn.execute(
                "SELECT 1 FROM lethe_meta WHERE key = 'workspace_seen'"
            ).fetchone()
        return row is not None

    def mark_workspace(self) -> None:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "INSERT OR IGNORE INTO lethe_meta (key, value) VALUES ('workspace_seen', '1')"
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def merge_owed(self, ids: Sequence[int], work: dict[str, Any]) -> None:
        """Replace several pieces of owed work by one that does all of them."""
        marks = ", ".join("?" for _ in ids)
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(f"DELETE FROM owed_work WHERE id IN ({marks})", list(ids))
                self._conn.execute(
                    "INSERT INTO owed_work (created_at, work) VALUES (strftime('%s', 'now'), ?)",
                    (json.dumps(work, ensure_ascii=False),),
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
