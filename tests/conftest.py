"""Shared fixtures: the real MiniLM embedder (loaded once) and fresh stores on real files."""

from __future__ import annotations

import os
import re
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lethe import Lethe
from lethe.embed import Embedder, load_default_embedder

if TYPE_CHECKING:
    from .pg_support import PgServer


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return load_default_embedder()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def mem(db_path: Path, embedder: Embedder) -> Iterator[Lethe]:
    with Lethe.open(db_path, embedder=embedder) as lethe:
        yield lethe


def snapshot(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every lethe table, to assert that a failed call changed nothing."""
    conn = sqlite3.connect(path)
    try:
        tables = ["memories", "memory_tags", "links", "episodes", "episode_members", "events"]
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}
    finally:
        conn.close()


# --- PostgreSQL (tests/pg_support.py) --------------------------------------------------------
# One real PostgreSQL 16 + pgvector server per test session, from the pgserver wheel's
# binaries, or the server named by LETHE_TEST_PG_DSN (then nothing is started or stopped,
# and its role needs CREATEDB). When no server can be had the tests error with the reason:
# they are never skipped. Besides the try/finally teardown, pg_support stops any server a
# crashed session left running at interpreter exit (atexit) and on SIGTERM.


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    from .pg_support import external_server, start_server, stop_server

    dsn = os.environ.get("LETHE_TEST_PG_DSN")
    if dsn:
        yield external_server(dsn)
        return
    srv = start_server("lethe_test")
    try:
        yield srv
    finally:
        stop_server(srv)


@pytest.fixture(scope="session")
def pg_managed_server(pg_server: PgServer) -> Iterator[PgServer]:
    """A server whose files and superuser the tests own (pg_hba.conf edits): pg_server when
    we started it, else (LETHE_TEST_PG_DSN) one started for this session."""
    from .pg_support import start_server, stop_server

    if pg_server.managed:
        yield pg_server
        return
    srv = start_server("lethe_test")
    try:
        yield srv
    finally:
        stop_server(srv)


@pytest.fixture
def pg_dsn(pg_server: PgServer, request: pytest.FixtureRequest) -> Iterator[str]:
    """DSN of a fresh database, with the vector extension, for this test only."""
    from .pg_support import create_database, drop_database

    name = f"t_{re.sub(r'[^a-z0-9]+', '_', request.node.name.lower())[:40]}_{uuid.uuid4().hex[:8]}"
    dsn = create_database(pg_server, name, extensions=("vector",))
    try:
        yield dsn
    finally:
        drop_database(pg_server, name)
