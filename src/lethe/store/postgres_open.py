"""Opening a PostgreSQL database as a lethe store: reach it, check it, migrate it.

Every way this can fail says which server and database, what was wrong and what to do, and
changes nothing: the `vector` extension, the tables and the metadata are created in one
transaction (PostgreSQL's DDL is transactional), under an advisory lock so that several
servers opening a new database at once create it once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lethe.common.progress import ProgressBar
from lethe.errors import (
    NotALetheDatabase,
    SchemaTooNew,
    ServerUnavailable,
)
from lethe.store import postgres_grams
from lethe.store.migrations import GRAMS_VERSION as _GRAMS_VERSION
from lethe.store.migrations import ONE_LIST_KEY, postgres_version
from lethe.store.postgres_schema import APPLICATION_ID, LATEST_VERSION, MIGRATION_LOCK, MIGRATIONS
from lethe.store.reembed_base import check_embedder

if TYPE_CHECKING:
    import psycopg

INSTALL_HINT = "install PostgreSQL support: pip install 'lethe-mcp[postgres]'"


def describe(dsn: str) -> str:
    """The server and database of a DSN, without its password, for messages."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        info = conninfo_to_dict(dsn)
    except Exception:
        return "the PostgreSQL server"
    host = str(info.get("host") or "localhost")
    port = f":{info['port']}" if info.get("port") else ""
    user = f"{info['user']}@" if info.get("user") else ""
    database = info.get("dbname") or ""
    if host.startswith("/"):  # a unix socket directory
        return f"postgresql://{user}/{database} (socket in {host})"
    return f"postgresql://{user}{host}{port}/{database}"


def connect(dsn: str, *, timeout_s: float) -> psycopg.Connection[Any]:
    """A plain connection, with the reasons a connection fails turned into lethe errors."""
    try:
        import psycopg
    except ImportError:
        raise ServerUnavailable("PostgreSQL support is not installed", hint=INSTALL_HINT) from None
    where = describe(dsn)
    try:
        return psycopg.connect(dsn, connect_timeout=max(1, round(timeout_s)), autocommit=False)
    except psycopg.OperationalError as exc:
        raise _connect_error(where, str(exc)) from None
    except psycopg.ProgrammingError as exc:  # a malformed DSN
        raise ServerUnavailable(
            f"cannot use {where}: {_first_line(str(exc))}",
            hint="write the DSN as postgresql://USER:PASSWORD@HOST:PORT/DATABASE",
        ) from None


def _connect_error(where: str, text: str) -> ServerUnavailable:
    reason = _first_line(text.replace("connection failed: ", ""))
    if "password authentication failed" in text or "no password supplied" in text:
        return ServerUnavailable(
            f"PostgreSQL at {where} refused the credentials: {_fatal(text)}",
            hint="check the user and password in the DSN (or PGPASSWORD / ~/.pgpass)",
        )
    if "does not exist" in text and "database" in text:
        return ServerUnavailable(
            f"PostgreSQL at {where}: {_fatal(text)}",
            hint="create it first (createdb NAME) or name an existing database in the DSN",
        )
    if "role" in text and "does not exist" in text:
        return ServerUnavailable(
            f"PostgreSQL at {where}: {_fatal(text)}", hint="check the user name in the DSN"
        )
    return ServerUnavailable(
        f"cannot reach PostgreSQL at {where}: {reason}",
        hint="is the server running, and are host and port in the DSN right?",
    )


def _fatal(text: str) -> str:
    for line in text.splitlines():
        if "FATAL:" in line:
            return " ".join(line.split("FATAL:", 1)[1].split())
    return _first_line(text)


def _first_line(text: str) -> str:
    return " ".join(text.strip().splitlines()[0].split()) if text.strip() else "unknown error"


def prepare(
    conn: psycopg.Connection[Any],
    dsn: str,
    *,
    embedder: str,
    dim: int,
    progress: ProgressBar | None = None,
) -> None:
    """Check that the database is a lethe store this lethe can read (or an empty one), and
    bring its schema up to date. Nothing is left behind when any step fails."""
    import psycopg

    where = describe(dsn)
    try:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            version = _version(conn, where)
            if version > LATEST_VERSION:
                raise SchemaTooNew(
                    f"{where} has lethe schema version {version}; "
                    f"this lethe reads up to {LATEST_VERSION}",
                    hint="upgrade lethe (pip install -U lethe) to open it",
                )
            if version < LATEST_VERSION:
                _ensure_vector(conn, where)
            for target in range(version + 1, LATEST_VERSION + 1):
                if MIGRATIONS[target]:
                    conn.execute(MIGRATIONS[target].format(dim=int(dim)).encode())
                if target == _GRAMS_VERSION:
                    postgres_grams.backfill(conn, progress)
                if target == 1:
                    conn.cursor().executemany(
                        "INSERT INTO lethe_meta (key, value) VALUES (%s, %s)",
                        [
                            ("application", APPLICATION_ID),
                            ("embedder", embedder),
                            ("dim", str(dim)),
                            ("db_id", _random_id()),
                        ],
                    )
            meta = dict(conn.execute("SELECT key, value FROM lethe_meta").fetchall())
            if version < LATEST_VERSION or ONE_LIST_KEY not in meta:
                # Numbered by the one list from now on (an older database is renumbered).
                conn.cursor().executemany(
                    "INSERT INTO lethe_meta (key, value) VALUES (%s, %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [("schema_version", str(LATEST_VERSION)), (ONE_LIST_KEY, "1")],
                )
    except psycopg.Error as exc:
        raise ServerUnavailable(
            f"cannot prepare {where} as a lethe store: {_first_line(str(exc))}; nothing was changed"
        ) from None
    check_embedder(meta, where, embedder, dim)


def _version(conn: psycopg.Connection[Any], where: str) -> int:
    has_meta = conn.execute("SELECT to_regclass('lethe_meta') IS NOT NULL").fetchone()
    if not (has_meta and has_meta[0]):
        others = conn.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"
        ).fetchone()
        if others and others[0]:
            raise NotALetheDatabase(
                f"{where} holds tables of another application",
                hint="give lethe a database of its own (createdb lethe)",
            )
        return 0
    meta = dict(conn.execute("SELECT key, value FROM lethe_meta").fetchall())
    if meta.get("application") != APPLICATION_ID:
        raise NotALetheDatabase(f"{where} is not a lethe database")
    return postgres_version(meta)


def _ensure_vector(conn: psycopg.Connection[Any], where: str) -> None:
    import psycopg

    installed = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
    if installed:
        return
    try:
        with conn.transaction():  # a savepoint: the error below leaves the outer one usable
            conn.execute("CREATE EXTENSION vector")
    except psycopg.errors.FeatureNotSupported:
        raise ServerUnavailable(
            f"PostgreSQL at {where} has no pgvector extension (needed for vector search)",
            hint="install pgvector on the server (https://github.com/pgvector/pgvector), "
            "then open the database again",
        ) from None
    except psycopg.errors.InsufficientPrivilege:
        raise ServerUnavailable(
            f"the user of {where} may not create the pgvector extension",
            hint="have a superuser run CREATE EXTENSION vector in this database once",
        ) from None


def _random_id() -> str:
    import secrets

    return secrets.token_hex(8)
