"""Backend-neutral access to a store's tables for the contract tests.

A test names its database by a target: a SQLite file path or a `postgresql://` DSN. These
helpers read and write the tables under the engine's feet (as another process would), so
one test body checks the same guarantee on both stores.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

BACKENDS = ("sqlite", "postgres")
# For what only a SQLite file has (its bytes on disk, its in-process vector cache).
sqlite_only = pytest.mark.parametrize("db", ["sqlite"], indirect=True)
# For what only a PostgreSQL server has (its files under another user, VACUUM).
postgres_only = pytest.mark.parametrize("db", ["postgres"], indirect=True)
# A face test whose point is the store under it (the faces' tests run on SQLite otherwise).
both_stores = pytest.mark.parametrize("db", BACKENDS, indirect=True)

SNAPSHOT_TABLES = (
    "memories",
    "memory_tags",
    "memory_versions",
    "links",
    "episodes",
    "episode_members",
    "events",
)

# Rows in a stable order. PostgreSQL has no rowid; every table has a key to order by.
_PG_ORDER = {
    "memories": "num",
    "memory_tags": "memory_id, tag",
    "memory_versions": "memory_id, version",
    "links": "a, b, kind",
    "episodes": "id",
    "episode_members": "episode_id, position",
    "events": "seq",
}


# SQLite orders by rowid, except in tables that have none.
_SQLITE_ORDER = {"memory_versions": "memory_id, version"}


def is_postgres(db: Path | str) -> bool:
    return str(db).startswith(("postgresql://", "postgres://"))


def snapshot(db: Path | str) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every lethe table, to assert that a failed call changed nothing."""
    if is_postgres(db):
        import psycopg

        with psycopg.connect(str(db)) as conn:
            # A row as its text form: vectors and jsonb compare by value, and `==` works.
            return {
                t: conn.execute(
                    f"SELECT t::text FROM {t} t ORDER BY {_PG_ORDER[t]}".encode()
                ).fetchall()
                for t in SNAPSHOT_TABLES
            }
    conn = sqlite3.connect(db)
    try:
        return {
            t: conn.execute(
                f"SELECT * FROM {t} ORDER BY {_SQLITE_ORDER.get(t, 'rowid')}"
            ).fetchall()
            for t in SNAPSHOT_TABLES
        }
    finally:
        conn.close()


def run_sql(db: Path | str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """One statement in its own committed transaction, written with `?` placeholders."""
    if is_postgres(db):
        import psycopg

        with psycopg.connect(str(db)) as conn:
            cursor = conn.execute(re.sub(r"\?", "%s", sql).encode(), params)
            return list(cursor.fetchall()) if cursor.description else []
    from lethe.store.sqlite_grams import register

    conn = sqlite3.connect(db)
    register(conn)  # the gram index's triggers call it on any write to the memories
    try:
        with conn:
            conn.execute("PRAGMA foreign_keys = ON")
            return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def live_ids(db: Path | str) -> set[str]:
    return {r[0] for r in run_sql(db, "SELECT id FROM memories WHERE status = 'active'")}


def events(db: Path | str) -> list[tuple[str, str | None]]:
    """(op, memory id) of every audit event, oldest first."""
    return [(r[0], r[1]) for r in run_sql(db, "SELECT op, memory_id FROM events ORDER BY seq")]


def created(db: Path | str) -> bool:
    """Whether lethe has made its store there: the file, or the tables in the database."""
    if is_postgres(db):
        return run_sql(db, "SELECT to_regclass('memories')::text") != [(None,)]
    return Path(db).exists()
