"""The server store: PostgreSQL with pgvector, for several processes and machines at once.

Rows, tags, links, episodes, the vector (a `vector` column with an HNSW index), the full-text
entry (a generated `tsvector` column) and the audit event of one change are written in one
transaction, like the SQLite store's. There is no in-process index to keep in step: every
server reads the same tables, so a memory forgotten through one is gone for all at once, and
search results are still re-checked against live rows by the engine.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from lethe.common.context import WINDOW, Window
from lethe.common.filters import Filters
from lethe.common.progress import ProgressBar
from lethe.errors import StoreBusy, StoreError
from lethe.store import postgres_grams
from lethe.store.base import F64, DecayColumns
from lethe.store.dialect import POSTGRES, POSTGRES_MEMORY_COLUMNS
from lethe.store.lexical import POSTINGS_BUDGET, merge_lists, query_tokens
from lethe.store.postgres_context import PostgresContextReads, adopt_window
from lethe.store.postgres_context import rebuild as rebuild_contexts
from lethe.store.postgres_filters import compile_filters
from lethe.store.postgres_lexical import TermStats
from lethe.store.postgres_open import connect, describe, prepare
from lethe.store.postgres_past import PostgresPastReads
from lethe.store.postgres_proof import PostgresProof
from lethe.store.postgres_reembed import PostgresReembedding
from lethe.store.postgres_schema import WRITE_LOCK
from lethe.store.postgres_tx import PostgresTx
from lethe.store.postgres_versions import PostgresVersionReads
from lethe.store.reembed_base import check_model
from lethe.store.rows import (
    ts,
)
from lethe.store.sql_owed import SqlOwedWork
from lethe.store.sql_reads import SqlReads
from lethe.store.sql_receipts import SqlReceipts
from lethe.store.vectors import Vector

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

MEMORY_COLUMNS = POSTGRES_MEMORY_COLUMNS

EF_SEARCH_MIN = 400
"""HNSW candidates per search. At 100 the benchmark's top 10 agreed with exact search 95% of
the time and short keyword queries could miss entirely; 400 gave 98.5–99.5% for 4–7 ms more.
pgvector also filters after the index scan, so the list must be long enough for a namespace's
top k."""


def ef_search(n: int) -> int:
    """The `hnsw.ef_search` of a search for `n` candidates."""
    return max(EF_SEARCH_MIN, 2 * int(n))


class PostgresStore(
    SqlReads,
    PostgresVersionReads,
    PostgresPastReads,
    PostgresContextReads,
    SqlOwedWork,
    PostgresProof,
    SqlReceipts,
):
    """Persistence for the engine on PostgreSQL. Every method is safe to call from several
    threads; each takes a connection from a small pool."""

    _dialect = POSTGRES

    def __init__(
        self,
        dsn: str,
        *,
        embedder: str,
        dim: int,
        busy_timeout_ms: int = 5000,
        pool_size: int = 4,
        context_window: Window = WINDOW,
        progress: ProgressBar | None = None,
    ) -> None:
        """`progress` shows a schema migration that goes through every row."""
        from psycopg.rows import dict_row
        from psycopg_pool import ConnectionPool

        self.dsn = dsn
        self.path = describe(dsn)
        self.dim = dim
        self._embedder = embedder
        self._busy_timeout_ms = busy_timeout_ms
        conn = connect(dsn, timeout_s=busy_timeout_ms / 1000)
        try:
            prepare(conn, dsn, embedder=embedder, dim=dim, progress=progress)
        finally:
            conn.close()

        def configure(c: psycopg.Connection[Any]) -> None:
            from pgvector.psycopg import register_vector

            register_vector(c)
            c.row_factory = dict_row
            c.execute(f"SET lock_timeout = {int(busy_timeout_ms)}")
            c.commit()

        self._pool: ConnectionPool[Any] = ConnectionPool(
            dsn,
            min_size=1,
            max_size=pool_size,
            configure=configure,
            timeout=max(1.0, busy_timeout_ms / 1000),
            open=True,
        )
        self._lexical_pool_lock = threading.Lock()
        self._active = threading.local()
        self._terms = TermStats()
        self._gram_terms = TermStats("grams")
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            adopt_window(conn, context_window)
        with self._read() as conn:
            stale = conn.execute("SELECT 1 FROM conversation_dirty LIMIT 1").fetchone()
        if stale:
            with self.transaction():  # conversations stored before contexts existed
                pass

    # -- connections and transactions ----------------------------------------------------

    @contextmanager
    def _read(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        """Inside a transaction on this thread, its own connection, so the engine's reads in
        a change see that change's writes (as the one SQLite connection does)."""
        active = getattr(self._active, "conn", None)
        if active is not None:
            yield active
            return
        with self._pool.connection() as conn:
            yield conn

    @contextmanager
    def _small_write(self) -> Iterator[psycopg.Connection[dict[str, Any]]]:
        """A write of its own outside the engine's transactions (owed work, meta marks)."""
        with self._read() as conn, conn.transaction():
            yield conn

    @contextmanager
    def transaction(self) -> Iterator[PostgresTx]:
        """One atomic write: everything in it is committed together or not at all."""
        import psycopg

        try:
            with self._pool.connection() as conn, conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                recorded = conn.execute(
                    "SELECT value FROM lethe_meta WHERE key = 'embedder'"
                ).fetchone()
                check_model(recorded["value"] if recorded else None, self._embedder, self.path)
                self._active.conn = conn
                try:
                    yield PostgresTx(self, conn)
                    rebuild_contexts(conn)
                finally:
                    self._active.conn = None
        except psycopg.errors.LockNotAvailable as exc:
            raise StoreBusy(
                f"{self.path} is locked by another writer: {exc}",
                hint="retry, or raise LETHE_BUSY_TIMEOUT_MS",
            ) from None
        except psycopg.Error as exc:
            raise StoreError(f"database error in {self.path}: {exc}; nothing was changed") from None

    def reembedding(self) -> PostgresReembedding:
        """Moving this database to another embedding model (`lethe reembed`)."""
        return PostgresReembedding(self)

    @property
    def schema_version(self) -> int:
        with self._read() as conn:
            row = conn.execute(
                "SELECT value FROM lethe_meta WHERE key = 'schema_version'"
            ).fetchone()
        return int(row["value"]) if row else 0

    def close(self) -> None:
        self._pool.close()

    # -- vectors ----------------------------------------------------------------------------

    def vector_search(self, query: Vector, filters: Filters, n: int) -> list[tuple[str, float]]:
        """Top-n (id, cosine) among memories matching `filters`, by the HNSW index."""
        where, params = compile_filters(filters)
        vector = np.asarray(query, dtype=np.float32)
        sql = (
            f"SELECT m.id, 1 - (m.embedding <=> %s) AS similarity FROM memories m "
            f"WHERE {where} ORDER BY m.embedding <=> %s LIMIT %s"
        )
        with self._read() as conn, conn.transaction():
            conn.execute(f"SET LOCAL hnsw.ef_search = {ef_search(n)}")
            rows = conn.execute(sql.encode(), [vector, *params, vector, n]).fetchall()
        return [(r["id"], float(r["similarity"])) for r in rows]

    def vector_search_many(
        self, queries: Vector, namespace: str, n: int, *, floor: float = -math.inf
    ) -> list[list[tuple[str, float]]]:
        flt = Filters(namespace=namespace)
        return [[h for h in self.vector_search(q, flt, n) if h[1] >= floor] for q in queries]

    def similarities(self, query: Vector, ids: Sequence[str]) -> dict[str, float]:
        if not ids:
            return {}
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id, 1 - (embedding <=> %s) AS similarity FROM memories "
                "WHERE id = ANY(%s) AND status = 'active'",
                [np.asarray(query, dtype=np.float32), list(ids)],
            ).fetchall()
        return {r["id"]: float(r["similarity"]) for r in rows}

    def namespace_vectors(self, namespace: str) -> tuple[list[str], Vector]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id, embedding FROM memories WHERE namespace = %s AND status = 'active' "
                "ORDER BY num",
                (namespace,),
            ).fetchall()
        if not rows:
            return [], np.empty((0, self.dim), dtype=np.float32)
        return [r["id"] for r in rows], np.stack([_vector(r["embedding"]) for r in rows])

    def live_vector_ids(self) -> set[str]:
        with self._read() as conn:
            rows = conn.execute("SELECT id FROM memories WHERE status = 'active'").fetchall()
        return {r["id"] for r in rows}

    # -- full text ----------------------------------------------------------------------------

    def lexical_search(self, text: str, filters: Filters, n: int) -> list[str]:
        """Best full-text matches, best first: the words' (any of them, ranked by
        ts_rank_cd) and the grams' of text without spaces (`grams.py`), merged by rank."""
        tokens = query_tokens(text)
        where, params = compile_filters(filters)
        sql = (
            "SELECT m.id FROM memories m, to_tsquery('simple', %s) q "
            f"WHERE m.search @@ q AND {where} "
            "ORDER BY ts_rank_cd(m.search, q) DESC, m.num LIMIT %s"
        )
        lists = []
        with self._read() as conn:
            terms = self._terms.searchable(conn, tokens, POSTINGS_BUDGET) if tokens else []
            if terms:
                query = " | ".join(_ts_word(t) for t in terms)
                rows = conn.execute(sql.encode(), [query, *params, n]).fetchall()
                lists.append([r["id"] for r in rows])
            grams = postgres_grams.search(conn, text, where, params, n, stats=self._gram_terms)
            if grams:
                lists.append(grams)
        return merge_lists(lists)[:n] if lists else []

    def lexical_search_soon(self, text: str, filters: Filters, n: int) -> Future[list[str]]:
        """The full-text search, answered now: the server already runs it beside others."""
        future: Future[list[str]] = Future()
        try:
            future.set_result(self.lexical_search(text, filters, n))
        except BaseException as exc:
            future.set_exception(exc)
        return future

    # -- reads ------------------------------------------------------------------------------

    def decay_columns(
        self, namespace: str, now: datetime, protected_layers: Sequence[str]
    ) -> DecayColumns:
        """The columns a decay sweep needs for every live memory of a namespace."""
        today = int(ts(now) // 86400)
        with self._read() as conn:
            rows = conn.execute(
                """SELECT m.id, m.importance, coalesce(m.last_accessed_at, m.created_at) AS last,
                          m.access_count, (m.layer = ANY(%s) OR m.id LIKE 'sys\\_%%') AS kept,
                          coalesce(a.last30, 0) AS last30, coalesce(a.last90, 0) AS last90
                   FROM memories m LEFT JOIN (
                       SELECT memory_id, sum(CASE WHEN day > %s THEN count ELSE 0 END) AS last30,
                              sum(count) AS last90
                       FROM access_days WHERE day > %s GROUP BY memory_id) a
                     ON a.memory_id = m.id
                   WHERE m.namespace = %s AND m.status = 'active' ORDER BY m.num""",
                (list(protected_layers), today - 30, today - 90, namespace),
            ).fetchall()

        def column(name: str) -> F64:
            return np.array([float(r[name]) for r in rows], dtype=np.float64)

        return DecayColumns(
            ids=[r["id"] for r in rows],
            importance=column("importance"),
            last_access_at=column("last"),
            accesses_total=column("access_count"),
            accesses_30d=column("last30"),
            accesses_90d=column("last90"),
            always_kept=np.array([bool(r["kept"]) for r in rows], dtype=bool),
        )

    # -- erasure ------------------------------------------------------------------------------

    def compact(self) -> bool:
        """After a purge: rewrite the tables it touched (see `postgres_proof`), so no dead
        tuple or stale index key keeps the erased text in the server's pages. False when a
        table was held by another session past the lock timeout (tried again later)."""
        return self.vacuum_erased()


def _vector(value: Any) -> Vector:
    to_numpy = getattr(value, "to_numpy", None)
    array = to_numpy() if callable(to_numpy) else value
    return np.asarray(array, dtype=np.float32).copy()


def _ts_word(token: str) -> str:
    """One query word as a quoted tsquery lexeme: its text can never be tsquery syntax."""
    return "'" + token.replace("\\", "\\\\").replace("'", "''") + "'"
