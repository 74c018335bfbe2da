"""Shared fixtures (the real MiniLM embedder, loaded once; fresh stores) and the suite's tiers.

`db` is the store of one test. Below the faces it is the contract fixture: a test that takes
it (or `mem`) runs twice, on a real SQLite file and on a real PostgreSQL database. A face
(tests/cli, tests/mcp, tests/ui) parses, calls the engine and formats, so its tests run on
SQLite only; `--faces-on-postgres` runs them on both stores too, and a face test whose point
is the store says so with `@both_stores`. `db_path` is for what only the SQLite file has.

Markers name what a test needs beyond Python and a SQLite file: `pg` (the PostgreSQL test
server; set here for every test that gets one), `browser` (Chromium), `npm` (a client from
the npm registry), `slow` (over ~10 s alone). `make test-fast` leaves all four out.
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
from tests.backends import snapshot
from tests.clocks import Clock

__all__ = ["BACKENDS", "snapshot", "sqlite_only"]

BACKENDS = ["sqlite", "postgres"]
# For what only a SQLite file has (its bytes on disk, its in-process vector cache).
sqlite_only = pytest.mark.parametrize("db", ["sqlite"], indirect=True)

if TYPE_CHECKING:
    from tests.pg_support import PgServer


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return load_default_embedder()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


# The faces: their tests take the store as a given (the contract suite below them runs both).
FACE_DIRS = ("cli", "mcp", "ui")
# Fixtures that start or reach the PostgreSQL test server.
PG_FIXTURES = {"pg_server", "pg_managed_server", "pg_dsn"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--faces-on-postgres",
        action="store_true",
        help="run the CLI, MCP and inspector tests on PostgreSQL too (they run on SQLite only)",
    )


def _is_face(path: Path) -> bool:
    parts = path.relative_to(Path(__file__).parent).parts
    return len(parts) > 1 and parts[0] in FACE_DIRS


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """The stores a test that takes `db` runs on, unless it names them itself."""
    fixturedefs = metafunc._arg2fixturedefs.get("db")
    if not fixturedefs or fixturedefs[-1].func.__module__ != __name__:
        return  # no store, or a module's own `db`
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0]
        if "db" in (names.replace(" ", "").split(",") if isinstance(names, str) else names):
            return
    face_only_sqlite = _is_face(metafunc.definition.path) and not metafunc.config.getoption(
        "--faces-on-postgres"
    )
    metafunc.parametrize("db", ["sqlite"] if face_only_sqlite else BACKENDS, indirect=True)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """`pg` on every test that gets the PostgreSQL server, whichever way it asks for it."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_postgres = callspec is not None and callspec.params.get("db") == "postgres"
        if on_postgres or PG_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.pg)


@pytest.fixture
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The database of one test: a SQLite file, or a fresh PostgreSQL database. A test that
    only makes sense on one store says so with `@sqlite_only` (or `@postgres_only`)."""
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
    from tests.pg_support import external_server, start_server, stop_server

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
    from tests.pg_support import start_server, stop_server

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
    from tests.pg_support import create_database, drop_database

    name = f"t_{re.sub(r'[^a-z0-9]+', '_', request.node.name.lower())[:40]}_{uuid.uuid4().hex[:8]}"
    dsn = create_database(pg_server, name, extensions=("vector",))
    try:
        yield dsn
    finally:
        drop_database(pg_server, name)


@pytest.fixture
def far_from_utc() -> Iterator[str]:
    """This process's local time 9 hours ahead of UTC (a POSIX zone: no tz database needed),
    so a time read as local instead of UTC shows; subprocesses get it through `TZ` too."""
    import time

    saved = os.environ.get("TZ")
    os.environ["TZ"] = "JST-9"
    time.tzset()
    try:
        yield "JST-9"
    finally:
        if saved is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = saved
        time.tzset()
