"""Opening an SQLite file as a lethe store: refuse what is not one before anything is
written, switch to WAL, and bring the schema up to date (the one list of migrations,
`migrations.py`)."""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

from lethe.common.progress import ProgressBar
from lethe.errors import DatabaseNotWritable, NotALetheDatabase, SchemaTooNew
from lethe.store import sqlite_grams
from lethe.store.migrations import GRAMS_VERSION as _GRAMS_VERSION
from lethe.store.reembed_base import check_embedder
from lethe.store.sqlite_schema import APPLICATION_ID, LATEST_VERSION, MIGRATIONS

_SQLITE_MAGIC = b"SQLite format 3\x00"


def check_path(path: Path) -> None:
    """Refuse, before SQLite creates anything, a file that cannot be or is not a lethe store."""
    if path.is_dir():
        raise DatabaseNotWritable(f"{path} is a directory", hint="give the path of a file")
    if path.exists():
        with path.open("rb") as handle:
            header = handle.read(16)
        if header and header != _SQLITE_MAGIC:
            raise NotALetheDatabase(
                f"{path} is not a lethe database (not an SQLite file)",
                hint="point --db / LETHE_DB at a lethe database or at a new file name",
            )
        if not os.access(path, os.W_OK):
            raise DatabaseNotWritable(f"{path} is not writable", hint="check its permissions")
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatabaseNotWritable(
            f"cannot create the folder for {path}: {exc.strerror}",
            hint="choose a writable location with --db or LETHE_DB",
        ) from None
    if not os.access(path.parent, os.W_OK):
        raise DatabaseNotWritable(
            f"cannot create {path}: folder not writable", hint="choose a writable location"
        )


def check_application(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse, by reading only, an SQLite file that holds another application's tables: one
    without lethe's version stamp or without lethe's own `lethe_meta` row. A new or empty
    file passes (it becomes a lethe store)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    if not tables:
        return
    application = None
    if "lethe_meta" in tables:
        row = conn.execute("SELECT value FROM lethe_meta WHERE key = 'application'").fetchone()
        application = row[0] if row else None
    if application != APPLICATION_ID:
        raise NotALetheDatabase(
            f"{path} is an SQLite database of another application"
            + ("" if version == 0 else f" (schema version {version})")
            + "; it was left untouched",
            hint="point --db / LETHE_DB at a lethe database or at a new file name",
        )


def _statements(script: str) -> Iterator[str]:
    """The statements of a migration script one by one (`executescript` would commit the
    transaction they must run in), triggers' bodies kept whole."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""


def enter_wal(conn: sqlite3.Connection, busy_timeout_ms: int) -> None:
    """Switch a file to WAL. The switch needs the file to itself and SQLite answers "locked" at
    once rather than calling the busy handler, so processes opening a new file together retry
    here within the busy timeout."""
    deadline = time.monotonic() + busy_timeout_ms / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.01)


def migrate(
    conn: sqlite3.Connection,
    path: Path,
    embedder: str,
    dim: int,
    progress: ProgressBar | None = None,
) -> None:
    """Bring the file to the latest schema, or refuse it: newer than this lethe, another
    application's, or made with another embedder. `progress` shows a migration that has to
    go through every row (building a new index)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > LATEST_VERSION:
        raise SchemaTooNew(
            f"{path} has schema version {version}; this lethe reads up to {LATEST_VERSION}",
            hint="upgrade lethe (pip install -U lethe) to open it",
        )
    if version == 0 and conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
        raise NotALetheDatabase(
            f"{path} is an SQLite database of another application",
            hint="point --db / LETHE_DB at a lethe database or at a new file name",
        )
    if version > 0:
        meta = dict(conn.execute("SELECT key, value FROM lethe_meta").fetchall())
        if meta.get("application") != APPLICATION_ID:
            raise NotALetheDatabase(f"{path} is not a lethe database")
    if version < LATEST_VERSION:
        _apply_migrations(conn, embedder, dim, progress)
    meta = dict(conn.execute("SELECT key, value FROM lethe_meta").fetchall())
    check_embedder(meta, str(path), embedder, dim)


def _apply_migrations(
    conn: sqlite3.Connection, embedder: str, dim: int, progress: ProgressBar | None
) -> None:
    """Every missing migration in one write transaction. The version is read again under
    the write lock: two processes opening a new file at once must not both create it."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        for target in range(version + 1, LATEST_VERSION + 1):
            for statement in _statements(MIGRATIONS[target]):
                conn.execute(statement)
            if target == _GRAMS_VERSION:
                sqlite_grams.backfill(conn, progress)
            conn.execute(f"PRAGMA user_version = {target}")
            if target == 1:
                conn.executemany(
                    "INSERT INTO lethe_meta (key, value) VALUES (?, ?)",
                    [
                        ("application", APPLICATION_ID),
                        ("embedder", embedder),
                        ("dim", str(dim)),
                    ],
                )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
