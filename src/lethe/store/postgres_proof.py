"""What the PostgreSQL store gives a proof of erasure: the cleanup of the server's pages
after a purge (VACUUM FULL), which memories still hold a string, and the receipts kept.
Kept apart from `postgres.py`, which mixes it in.

A deleted row stays in its heap page until vacuumed, and a plain VACUUM leaves the bytes of
the newest tuple of a page in the page's free space (measured: the erased text was still in
the heap file after `VACUUM`, gone after `VACUUM FULL`); a GIN index never drops a key it
once held. So a purge rewrites the tables it touched — heap, TOAST and every index. That
takes an exclusive lock on each table for the time of its rewrite.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from lethe.store.held import MEMORY_SOURCES, NOT_RECORDS
from lethe.store.postgres_open import connect

if TYPE_CHECKING:
    import psycopg

ERASED_TABLES = ("memories", "memory_versions", "memory_context", "memory_tags", "events")
"""Every table whose rows a purge deletes or rewrites and that holds a person's words (the
others it touches hold ids and numbers only); events: their details are redacted."""
CLAIM_CLASS = 0x6C657468
"""First key of the advisory locks that claim a purge being proved (the second is the
claim's own): the two-key space, apart from the store's one-key locks."""

_COLUMNS_SQL = """
SELECT table_name, column_name FROM information_schema.columns
WHERE table_schema = current_schema() AND data_type IN ('text', 'jsonb', 'character varying')
ORDER BY table_name, ordinal_position
"""


class _Reads(Protocol):
    dsn: str
    path: str
    _busy_timeout_ms: int

    def _read(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...


class PostgresProof:
    erasure_methods: tuple[tuple[str, str], ...] = (
        (
            "rows",
            "deleted, then every table the purge touched rewritten (VACUUM FULL): heap, "
            "TOAST and indexes hold no dead tuple or stale index key",
        ),
        ("lexical", "tsvector columns deleted with their rows; GIN indexes rebuilt by the rewrite"),
    )
    unreachable: tuple[str, ...] = (
        "the server's write-ahead log and its archives (WAL segments are recycled by the "
        "server on its own schedule)",
        "replicas and standbys of this database",
        "backups and dumps (pg_dump, base backups, snapshots)",
        "blocks the file system freed when the old table files were dropped",
        "the server's files themselves: this process cannot read them, so no byte scan of "
        "them is made (the workspace files are scanned)",
    )

    def owned_files(self: _Reads) -> list[Path]:
        """None on this machine: the server's files are the server's."""
        return []

    def signing_key_path(self: _Reads) -> Path:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        name = hashlib.sha256(self.path.encode()).hexdigest()[:16]
        return Path(base) / "lethe" / "receipt-keys" / f"{name}.key"

    def vacuum_erased(self: _Reads) -> bool:
        """Rewrite every table a purge touches. False when a table could not be locked in
        time (another session held it): the cleanup then stays owed."""
        import psycopg

        with self._read() as conn:
            conn.commit()
            previous = conn.autocommit
            conn.autocommit = True
            try:
                for table in ERASED_TABLES:
                    conn.execute(f"VACUUM (FULL, ANALYZE) {table}")
            except psycopg.errors.LockNotAvailable:
                return False
            finally:
                conn.autocommit = previous
        return True

    def held_texts(self: _Reads, *, memories: bool) -> Iterator[tuple[str, str]]:
        """As the SQLite store's: every live row that may hold a person's words."""
        from psycopg import sql

        with self._read() as conn:
            for table, owner, columns in MEMORY_SOURCES:
                if (table == "memories") != memories:
                    continue
                text = sql.SQL(" || chr(1) || ").join(
                    sql.SQL("coalesce({}::text, '')").format(sql.Identifier(c)) for c in columns
                )
                query = sql.SQL("SELECT {} AS owner, {} AS text FROM {}").format(
                    sql.Identifier(owner), text, sql.Identifier(table)
                )
                for row in conn.execute(query):
                    yield (row["owner"] if row["owner"] is not None else table), row["text"]
            if memories:
                return
            read = {t for t, _, _ in MEMORY_SOURCES} | NOT_RECORDS
            for c in conn.execute(_COLUMNS_SQL).fetchall():
                table, column = c["table_name"], c["column_name"]
                if table in read or table.startswith("pg_"):
                    continue
                query = sql.SQL("SELECT {}::text AS text FROM {}").format(
                    sql.Identifier(column), sql.Identifier(table)
                )
                for row in conn.execute(query):
                    if row["text"] is not None:
                        yield f"{table}.{column}", row["text"]

    def index_terms(self: _Reads, words: Sequence[str]) -> set[str]:
        """None to report: a tsvector goes with its row, and the rewrite rebuilds the GIN
        indexes (a stale key is not visible to SQL; it is gone with the old files)."""
        return set()

    @contextlib.contextmanager
    def claim(self: _Reads) -> Iterator[str]:
        """A session-level advisory lock on a connection of its own, open for as long as the
        purge is proved: the server drops it with the connection, when the process ends
        whatever way it ends (a pooled connection would outlive the claim)."""
        key = secrets.randbelow(2**31 - 1) + 1
        conn = connect(self.dsn, timeout_s=self._busy_timeout_ms / 1000)
        try:
            conn.autocommit = True
            conn.execute("SELECT pg_advisory_lock(%s, %s)", (CLAIM_CLASS, key))
            yield str(key)
        finally:
            conn.close()

    def claim_held(self: _Reads, token: str) -> bool:
        if not token.isdigit() or not 0 < int(token) < 2**31:
            return False
        with self._read() as conn:
            row = conn.execute(
                "SELECT pg_try_advisory_lock(%s, %s) AS free", (CLAIM_CLASS, int(token))
            ).fetchone()
            if row is not None and row["free"]:
                conn.execute("SELECT pg_advisory_unlock(%s, %s)", (CLAIM_CLASS, int(token)))
                return False
        return True
