"""A read-only look at a store, for `lethe doctor`: what schema it is at, what this lethe
reads up to, whose tables they are, its meta and its memories by status. Nothing is created,
migrated or written: a SQLite file is opened `mode=ro` with `query_only` on (so not even the
checkpoint that closing a killed writer's log would run), a PostgreSQL database in one
read-only transaction that is rolled back.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lethe.store.migrations import APPLICATION_ID, LATEST_VERSION, postgres_version


class SurveyFailed(Exception):
    """The store could not be opened or read; the message says why."""

    def __init__(self, message: str, *, opening: bool) -> None:
        super().__init__(message)
        self.opening = opening


@dataclass(frozen=True)
class Survey:
    """What a store holds, as read without changing it."""

    location: str
    latest_version: int
    application_id: str
    schema_version: int = 0
    tables: int = 0
    has_meta: bool = False
    meta: dict[str, str] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    server: str | None = None
    pgvector_installed: str | None = None
    pgvector_available: str | None = None

    @property
    def application_matches(self) -> bool:
        return self.meta.get("application") == self.application_id


SQLITE_LATEST = POSTGRES_LATEST = LATEST_VERSION
"""Both stores are numbered by the one list of migrations."""
SQLITE_HEADER = b"SQLite format 3\x00"


def survey_sqlite(path: Path) -> Survey:
    """A SQLite file's schema version, meta and counts; raises `SurveyFailed`."""
    try:
        # mode=ro never creates the file and never writes it: not even the checkpoint that
        # closing the last read-write connection would run on a write-ahead log a killed
        # writer left.
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=2.0)
    except sqlite3.Error as exc:
        raise SurveyFailed(f"cannot open {path}: {exc}", opening=True) from None
    try:
        conn.execute("PRAGMA query_only = 1")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
        meta = (
            dict(conn.execute("SELECT key, value FROM lethe_meta").fetchall())
            if "lethe_meta" in tables
            else {}
        )
        counts = (
            dict(conn.execute("SELECT status, count(*) FROM memories GROUP BY status").fetchall())
            if "memories" in tables
            else {}
        )
    except sqlite3.Error as exc:
        raise SurveyFailed(f"cannot read {path}: {exc}", opening=False) from None
    finally:
        conn.close()
    return Survey(
        location=str(path),
        latest_version=SQLITE_LATEST,
        application_id=APPLICATION_ID,
        schema_version=int(version),
        tables=len(tables),
        has_meta="lethe_meta" in tables,
        meta=meta,
        counts=counts,
    )


def describe_postgres(dsn: str) -> str:
    """The server and database a DSN names, without its password."""
    from lethe.store.postgres_open import describe

    return describe(dsn)


def survey_postgres(dsn: str, *, timeout_s: float) -> Survey:
    """The server (version, pgvector) and the store in it. Raises the store's `LetheError`
    when the server cannot be reached, `SurveyFailed` when it cannot be read."""
    from lethe.store.postgres_open import connect, describe

    conn = connect(dsn, timeout_s=timeout_s)
    try:
        return _read_postgres(conn, describe(dsn))
    except Exception as exc:  # psycopg.Error, or the connection dropping half-way
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise SurveyFailed(text, opening=False) from None
    finally:
        conn.close()


def _read_postgres(conn: Any, where: str) -> Survey:
    """What the server and the database hold, read in one read-only transaction."""
    conn.read_only = True
    try:
        server = str(_scalar(conn, "SHOW server_version"))
        installed = _scalar(conn, "SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        available = _scalar(
            conn, "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
        )
        has_meta = bool(_scalar(conn, "SELECT to_regclass('lethe_meta') IS NOT NULL"))
        tables = int(
            _scalar(conn, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()") or 0
        )
        meta: dict[str, str] = {}
        counts: dict[str, int] = {}
        if has_meta:
            meta = {str(k): str(v) for k, v in conn.execute(b"SELECT key, value FROM lethe_meta")}
            if _scalar(conn, "SELECT to_regclass('memories') IS NOT NULL"):
                rows = conn.execute(b"SELECT status, count(*) FROM memories GROUP BY status")
                counts = {str(s): int(n) for s, n in rows}
    finally:
        conn.rollback()
    return Survey(
        location=where,
        latest_version=POSTGRES_LATEST,
        application_id=APPLICATION_ID,
        schema_version=postgres_version(meta),
        tables=tables,
        has_meta=has_meta,
        meta=meta,
        counts=counts,
        server=server,
        pgvector_installed=installed,
        pgvector_available=available,
    )


def _scalar(conn: Any, sql: str) -> Any:
    row = conn.execute(sql.encode()).fetchone()
    return row[0] if row else None
