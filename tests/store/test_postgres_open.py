"""Opening a PostgreSQL database as a lethe store, against real servers: a clear error for
every bad configuration, and nothing half-created."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import EmbedderMismatch, NotALetheDatabase, SchemaTooNew, ServerUnavailable
from lethe.store.postgres_open import connect, prepare
from lethe.store.postgres_schema import LATEST_VERSION
from tests.pg_support import (
    PgServer,
    add_password_role,
    create_database,
    drop_database,
    start_server,
    stop_server,
    with_dbname,
)

EMBEDDER, DIM = "sentence-transformers/all-MiniLM-L6-v2", 384


def open_store(dsn: str, embedder: str = EMBEDDER, dim: int = DIM) -> None:
    conn = connect(dsn, timeout_s=5)
    try:
        prepare(conn, dsn, embedder=embedder, dim=dim)
    finally:
        conn.close()


def tables(dsn: str) -> set[str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        rows = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {str(r[0]) for r in rows.fetchall()}


def meta(dsn: str) -> dict[str, Any]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        return dict(conn.execute("SELECT key, value FROM lethe_meta").fetchall())


def test_a_new_database_gets_the_schema_once(pg_dsn: str) -> None:
    open_store(pg_dsn)
    first = meta(pg_dsn)
    assert first["schema_version"] == str(LATEST_VERSION) and first["application"] == "lethe"
    assert {"memories", "links", "episodes", "events", "memory_tags"} <= tables(pg_dsn)
    open_store(pg_dsn)
    assert meta(pg_dsn) == first, "opening again changes nothing (db_id included)"


def test_events_stay_append_only(pg_dsn: str) -> None:
    open_store(pg_dsn)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("INSERT INTO events (at, op, actor) VALUES (1, 'remember', 'test')")
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("UPDATE events SET actor = 'someone else'")
        with pytest.raises(psycopg.errors.RaiseException, match="append-only"):
            conn.execute("DELETE FROM events")
        conn.execute("""UPDATE events SET details = '{"redacted": true}', reason = NULL""")


def test_unreachable_server() -> None:
    dsn = f"postgresql://postgres@/lethe?host=/tmp/no-server-{uuid.uuid4().hex[:8]}"
    with pytest.raises(ServerUnavailable, match="cannot reach PostgreSQL") as caught:
        open_store(dsn)
    assert "is the server running" in str(caught.value)


def test_malformed_dsn() -> None:
    with pytest.raises(ServerUnavailable, match="postgresql://USER:PASSWORD@HOST"):
        open_store("postgresql://postgres@/lethe?host=/tmp&nonsense_option=1")


def test_missing_database_and_role(pg_server: PgServer) -> None:
    missing = with_dbname(pg_server.admin_dsn, f"nope_{uuid.uuid4().hex[:8]}")
    with pytest.raises(ServerUnavailable, match=r"does not exist.*createdb"):
        open_store(missing)
    ghost = pg_server.admin_dsn.replace("postgresql://postgres@", "postgresql://ghost_role@")
    with pytest.raises(ServerUnavailable, match='role "ghost_role" does not exist'):
        open_store(ghost)


def test_wrong_password(pg_managed_server: PgServer) -> None:
    name = f"pw_{uuid.uuid4().hex[:8]}"
    create_database(pg_managed_server, name, extensions=("vector",))
    try:
        template = add_password_role(pg_managed_server, "lethe_app", "right-secret", name)
        with pytest.raises(ServerUnavailable, match="refused the credentials") as caught:
            open_store(template.format(password="wrong-secret"))
        assert "wrong-secret" not in str(caught.value), "a password never reaches a message"
        assert "lethe_meta" not in tables(pg_managed_server.dsn_for(name))
        open_store(template.format(password="right-secret"))
        assert meta(pg_managed_server.dsn_for(name))["application"] == "lethe"
    finally:
        drop_database(pg_managed_server, name)


def test_a_server_without_pgvector_is_refused_and_nothing_is_created() -> None:
    srv = start_server("lethe_novector", with_vector=False)
    try:
        dsn = srv.dsn_for("lethe_novector")
        with pytest.raises(ServerUnavailable, match="no pgvector extension") as caught:
            open_store(dsn)
        assert "install pgvector" in str(caught.value)
        assert tables(dsn) == set(), "the failed open left no table behind"
    finally:
        stop_server(srv)


def test_a_newer_schema_is_refused_untouched(pg_dsn: str) -> None:
    open_store(pg_dsn)
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(
            "UPDATE lethe_meta SET value = %s WHERE key = 'schema_version'",
            (str(LATEST_VERSION + 1),),
        )
    before = meta(pg_dsn)
    with pytest.raises(SchemaTooNew, match="upgrade lethe"):
        open_store(pg_dsn)
    assert meta(pg_dsn) == before


def test_another_applications_database_is_refused_untouched(pg_dsn: str) -> None:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE customers (id integer)")
    with pytest.raises(NotALetheDatabase, match="another application"):
        open_store(pg_dsn)
    assert tables(pg_dsn) == {"customers"}


def test_another_embedder_is_refused(pg_dsn: str) -> None:
    open_store(pg_dsn)
    with pytest.raises(EmbedderMismatch, match="holds vectors of"):
        open_store(pg_dsn, embedder="another-model")
    with pytest.raises(EmbedderMismatch):
        open_store(pg_dsn, dim=768)


def test_a_version_1_database_is_migrated_in_place(pg_dsn: str, embedder: Embedder) -> None:
    """Migration 2 takes the access statistics out of the decay index (so a recall's touch
    stays a HOT update); a database made by migration 1 gets it on the next open."""
    import lethe.store.postgres_open as postgres_open

    with psycopg.connect(pg_dsn) as conn, conn.transaction():
        conn.execute(postgres_open.MIGRATIONS[1].format(dim=DIM).encode())
        conn.execute(
            "INSERT INTO lethe_meta (key, value) VALUES ('application', 'lethe'), "
            "('embedder', %s), ('dim', %s), ('db_id', 'x'), ('schema_version', '1')",
            (EMBEDDER, str(DIM)),
        )
        conn.execute(
            "INSERT INTO memories (id, namespace, agent, content, content_sha256, layer, "
            "category, metadata, importance, private, created_at, updated_at, status, embedding) "
            "VALUES ('mem_0123456789ab', 'default', 'ann', 'kept', 'h', 'episodic', '', '{}', "
            "0.5, false, 0, 0, 'active', %s)",
            ("[" + ",".join(["0.5"] * DIM) + "]",),
        )
    open_store(pg_dsn)
    # numbered the old way (1), it is renumbered by the one list (migrations.py)
    assert meta(pg_dsn)["schema_version"] == str(LATEST_VERSION) == "20"
    assert meta(pg_dsn)["schema_list"] == "1"
    with psycopg.connect(pg_dsn) as conn:
        index = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'memories_decay'"
        ).fetchone()
        assert index is not None and "access_count" not in index[0]
        assert conn.execute("SELECT content FROM memories").fetchall() == [("kept",)]
        # migration 3: versions, and pending confirmations of protected changes
        assert conn.execute("SELECT version FROM memories").fetchall() == [(1,)]
        assert conn.execute("SELECT count(*) FROM memory_versions").fetchone() == (0,)
        conn.execute(
            "INSERT INTO pending_confirmations VALUES "
            "('s', 'mem_0123456789ab', 'update', 'h', 0, 0, 1, 1)"
        )
        # migration 4: the work committed changes still owe
        assert conn.execute("SELECT count(*) FROM owed_work").fetchone() == (0,)
        # migration 7: conversations and their contexts
        assert conn.execute("SELECT conversation FROM memories").fetchall() == [(None,)]
        assert conn.execute("SELECT count(*) FROM memory_context").fetchone() == (0,)
        # migration 6: earlier states keep their vector
        assert conn.execute(
            "SELECT count(*) FROM memory_versions WHERE embedding IS NULL"
        ).fetchone() == (0,)
    # the row made before versions is its own version 1, made by its agent, and an update
    # keeps it so
    with Lethe.open(pg_dsn, embedder=embedder) as mem:
        [v1] = mem.history("mem_0123456789ab")
        assert (v1.version, v1.actor, v1.op, v1.current, v1.content) == (
            1,
            "ann",
            "remember",
            True,
            "kept",
        )
        mem.update("mem_0123456789ab", content="changed", actor="bob")
        v2, v1 = mem.history("mem_0123456789ab")
        assert (v2.version, v2.actor, v2.op, v2.content) == (2, "bob", "update", "changed")
        assert (v1.version, v1.actor, v1.op, v1.content) == (1, "ann", "remember", "kept")
