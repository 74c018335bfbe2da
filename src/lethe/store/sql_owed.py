"""The work committed changes still owe (see `owed_work`, migration 9), read and settled by
either SQL store; mixed into both. Each change runs in a small write of its own
(`_small_write`: SQLite's `BEGIN IMMEDIATE` under the store's lock, a PostgreSQL transaction)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from lethe.store.dialect import Connected


class SqlOwedWork(Connected):
    def owed(self) -> list[tuple[int, dict[str, Any]]]:
        """Every piece of owed work, oldest first."""
        with self._read() as conn:
            rows = self._dialect.run(
                conn, f"SELECT id, {self._dialect.text('work')} AS work FROM owed_work ORDER BY id"
            ).fetchall()
        return [(int(r["id"]), json.loads(r["work"])) for r in rows]

    def settle(self, ids: Sequence[int]) -> None:
        """The work is done: forget it (in a transaction of its own)."""
        if not ids:
            return
        which, params = self._dialect.any_of("id", list(ids))
        with self._small_write() as conn:
            self._dialect.run(conn, f"DELETE FROM owed_work WHERE {which}", params)

    def workspace_known(self) -> bool:
        """Whether any process has projected this store to a workspace (so work on its
        files is recorded even by processes that have none)."""
        with self._read() as conn:
            row = self._dialect.run(
                conn, "SELECT 1 FROM lethe_meta WHERE key = 'workspace_seen'"
            ).fetchone()
        return row is not None

    def mark_workspace(self) -> None:
        with self._small_write() as conn:
            self._dialect.run(
                conn,
                "INSERT INTO lethe_meta (key, value) VALUES ('workspace_seen', '1') "
                "ON CONFLICT (key) DO NOTHING",
            )

    def merge_owed(self, ids: Sequence[int], work: dict[str, Any]) -> None:
        """Replace several pieces of owed work by one that does all of them."""
        which, params = self._dialect.any_of("id", list(ids))
        with self._small_write() as conn:
            self._dialect.run(conn, f"DELETE FROM owed_work WHERE {which}", params)
            self._dialect.run(
                conn,
                f"INSERT INTO owed_work (created_at, work) VALUES ({self._dialect.now}, ?)",
                (json.dumps(work, ensure_ascii=False),),
            )
