"""Shared fixtures: the real MiniLM embedder (loaded once) and fresh stores.

`db` is the contract fixture: a test that takes it (or `mem`) runs twice, on a real SQLite
file and on a real PostgreSQL database. `db_path` is for what only the SQLite file has.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from lethe import Lethe
from lethe.embed import Embedder, load_default_embedder

from .backends import snapshot
from .clocks import Clock

__all__ = ["BACKENDS", "snapshot", "sqlite_only"]

BACKENDS = ["sqlite", "postgres"]
# For what only a SQLite file has (its bytes on disk, its in-process vector cache).
sqlite_only = pytest.mark.parametrize("db", ["sqlite"], indirect=True)

if TYPE_CHECKING:
    from .pg_support import PgServer


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return load_default_embedder()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database of one test: a SQLite file, or a fresh PostgreSQL database. A test that
    only makes sense on one store says so with `@sqlite_only`."""
    if request.param == "postgres":
        dsn: str = request.getfixturevalue("pg_dsn")
        return dsn
    return str(tmp_path / "memory.db")


@pytest.fixture
def clock() -> Clock:
    """A clock the test moves by hand (`clock.advance(days=1)`)."""
    return Clock()


@pytest.fixture
def cmem(db: str, embedder: Embedder, clock: Clock) -> Iterator[Lethe]:
    """`mem` on the test's own clock."""
    with Lethe.open(db, embedder=embedder, clock=clock) as lethe:
        yield lethe


@pytest.fixture
def mem(db: str, embedder: Embedder) -> Iterator[Lethe]:
    with Lethe.open(db, embedder=embedder) as lethe:
        yield lethe


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
