"""The PostgreSQL test harness itself: a real server, real pgvector, real failures."""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path
from urllib.parse import quote

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector
from psycopg import sql

from tests import pg_support
from tests.pg_support import (
    PgServer,
    PgStartError,
    add_password_role,
    create_database,
    drop_database,
    start_server,
    stop_server,
)


def _gone(pid: int, datadir: Path) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return not (datadir / "postmaster.pid").exists()  # exited, not yet reaped by init


def test_pg_dsn_database_has_pgvector(pg_server: PgServer, pg_dsn: str) -> None:
    with psycopg.connect(pg_dsn) as conn:
        row = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        assert row is not None and row[0], "vector extension not created in the pg_dsn database"
        assert conn.execute("SELECT current_database()").fetchone() != (pg_server.dbname,)
        if pg_server.managed:  # the pgserver wheel: PostgreSQL 16, pgvector 0.6.2, socket only
            assert conn.info.server_version // 10000 == 16
            assert row[0] == "0.6.2"
            assert conn.execute("SHOW listen_addresses").fetchone() == ("",)


def test_hnsw_index_and_knn_query(pg_dsn: str) -> None:
    vecs = {
        "east": [1.0, 0.0, 0.0],
        "north": [0.0, 1.0, 0.0],
        "up": [0.0, 0.0, 1.0],
        "mostly_east": [0.9, 0.1, 0.0],
        "west": [-1.0, 0.0, 0.0],
    }
    with psycopg.connect(pg_dsn) as conn:
        register_vector(conn)
        conn.execute("CREATE TABLE docs (name text PRIMARY KEY, embedding vector(3) NOT NULL)")
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO docs (name, embedding) VALUES (%s, %s)",
                [(k, np.array(v, dtype=np.float32)) for k, v in vecs.items()],
            )
        conn.execute("CREATE INDEX docs_hnsw ON docs USING hnsw (embedding vector_cosine_ops)")
        conn.execute("SET enable_seqscan = off")
        query = np.array([0.95, 0.05, 0.0], dtype=np.float32)
        knn = "SELECT name FROM docs ORDER BY embedding <=> %s LIMIT 3"
        plan = "\n".join(str(r[0]) for r in conn.execute("EXPLAIN " + knn, (query,)))
        assert "docs_hnsw" in plan, plan
        names = [r[0] for r in conn.execute(knn, (query,))]
        assert names[0] in ("east", "mostly_east")
        assert set(names[:2]) == {"east", "mostly_east"}
        assert "west" not in names
        # The adapter reads vectors back as numpy float32.
        (back,) = conn.execute("SELECT embedding FROM docs WHERE name = 'mostly_east'").fetchone()
        assert np.allclose(back.to_numpy(), vecs["mostly_east"])


def test_pg_dsn_databases_are_isolated(pg_server: PgServer, pg_dsn: str) -> None:
    other = f"t_isolation_{uuid.uuid4().hex[:8]}"
    other_dsn = create_database(pg_server, other, extensions=("vector",))
    try:
        with psycopg.connect(pg_dsn) as a, psycopg.connect(other_dsn) as b:
            a.execute("CREATE TABLE notes (body text)")
            a.execute("INSERT INTO notes VALUES ('only in a')")
            a.commit()
            with pytest.raises(psycopg.errors.UndefinedTable):
                b.execute("SELECT * FROM notes")
            b.rollback()
            b.execute("CREATE TABLE notes (body text)")
            b.execute("INSERT INTO notes VALUES ('only in b')")
            b.commit()
            assert a.execute("SELECT body FROM notes").fetchall() == [("only in a",)]
            assert b.execute("SELECT body FROM notes").fetchall() == [("only in b",)]
            b.commit()
        # Dropping it terminates connections still open on it (here: one left open on purpose).
        lingering = psycopg.connect(other_dsn)
        drop_database(pg_server, other)
        with psycopg.connect(pg_server.admin_dsn) as admin:
            count = admin.execute(
                "SELECT count(*) FROM pg_database WHERE datname = %s", (other,)
            ).fetchone()
            assert count == (0,)
        with pytest.raises(psycopg.OperationalError):
            lingering.execute("SELECT 1")
        lingering.close()
    finally:
        drop_database(pg_server, other)


def test_server_without_vector_refuses_the_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[str] = []
    real_mkdtemp = tempfile.mkdtemp

    def recording_mkdtemp(*args: str, **kwargs: str) -> str:
        made.append(real_mkdtemp(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(pg_support.tempfile, "mkdtemp", recording_mkdtemp)

    srv = start_server("novec", with_vector=False)
    try:
        assert srv.managed and srv.pid is not None and srv.bindir is not None
        assert srv.timings["copy_install"] > 0
        with psycopg.connect(srv.dsn, autocommit=True) as conn:
            assert conn.info.server_version // 10000 == 16
            avail = {r[0] for r in conn.execute("SELECT name FROM pg_available_extensions")}
            assert "plpgsql" in avail and "vector" not in avail
            with pytest.raises(psycopg.Error, match='extension "vector" is not available'):
                conn.execute("CREATE EXTENSION vector")

        # start_server on that vector-less installation fails, with the server log in the
        # error, and leaves no server and no temp dir behind.
        with pytest.raises(PgStartError) as err:
            start_server("wants_vector", install_dir=srv.bindir.parent)
        msg = str(err.value)
        assert 'extension "vector" is not available' in msg
        assert "--- server.log ---" in msg and "CREATE EXTENSION" in msg
        assert len(made) == 2 and not Path(made[1]).exists()
    finally:
        pid, datadir = srv.pid, srv.datadir
        stop_server(srv)
    assert pid is not None and datadir is not None
    assert _gone(pid, datadir)
    assert srv.base is not None and not srv.base.exists()


def test_wrong_password_is_refused(pg_managed_server: PgServer) -> None:
    srv = pg_managed_server
    suffix = uuid.uuid4().hex[:8]
    db, role, password = f"t_auth_{suffix}", f"app_{suffix}", "s3cret:/@?"
    create_database(srv, db)
    try:
        template = add_password_role(srv, role, password, db)
        ok = template.format(password=quote(password, safe=""))
        with psycopg.connect(ok) as conn:
            assert conn.execute("SELECT current_user").fetchone() == (role,)
            conn.execute("CREATE TABLE mine (x int)")  # the role may use the database
        with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
            psycopg.connect(template.format(password="wrong"))
        with pytest.raises(psycopg.OperationalError, match="no password supplied"):
            psycopg.connect(template.replace(":{password}", ""))
        with psycopg.connect(srv.dsn) as conn:  # the superuser still gets in without one
            assert conn.execute("SELECT current_user").fetchone() == ("postgres",)
    finally:
        drop_database(srv, db)
        with psycopg.connect(srv.admin_dsn, autocommit=True) as conn:
            conn.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(role)))
