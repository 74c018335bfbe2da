"""The work committed changes still owe (see `owed_work` in migration 4), read and settled
by the PostgreSQL store. Kept apart from `postgres.py`, which `PostgresStore` mixes this
into."""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import psycopg


class _Reads(Protocol):
    def _read(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...


class PostgresOwedWork:
    def owed(self: _Reads) -> list[tuple[int, dict[str, Any]]]:
        """Every piece of owed work, oldest first."""
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id, work::text AS work FROM owed_work ORDER BY id"
            ).fetchall()
        return [(int(r["id"]), json.loads(r["work"])) for r in rows]

    def settle(self: _Reads, ids: Sequence[int]) -> None:
        """The work is done: forget it."""
        if not ids:
            return
        with self._read() as conn, conn.transaction():
            conn.execute("DELETE FROM owed_work WHERE id = ANY(%s)", (list(ids),))

    def workspace_known(self: _Reads) -> bool:
        """Whether any process has projected this store to a workspace."""
        with self._read() as conn:
            row = conn.execute("SELECT 1 FROM lethe_meta WHERE key = 'workspace_seen'").fetchone()
        return row is not None

    def mark_workspace(self: _Reads) -> None:
        with self._read() as conn, conn.transaction():
            conn.execute(
                "INSERT INTO lethe_meta (key, value) VALUES ('workspace_seen', '1') "
                "ON CONFLICT (key) DO NOTHING"
            )

    def merge_owed(self: _Reads, ids: Sequence[int], work: dict[str, Any]) -> None:
        """Replace several pieces of owed work by one that does all of them."""
        with self._read() as conn, conn.transaction():
            conn.execute("DELETE FROM owed_work WHERE id = ANY(%s)", (list(ids),))
            conn.execute(
                "INSERT INTO owed_work (created_at, work) VALUES (extract(epoch from now()), %s)",
                (json.dumps(work, ensure_ascii=False),),
            )
