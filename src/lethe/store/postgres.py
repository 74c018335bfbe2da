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
from lethe.model import Episode, Event, Link, Memory, Pending
from lethe.store import postgres_grams
from lethe.store.base import F64, DecayColumns
from lethe.store.event_query import EventQuery
from lethe.store.lexical import POSTINGS_BUDGET, merge_lists, query_tokens
from lethe.store.postgres_context import PostgresContextReads, adopt_window
from lethe.store.postgres_context import rebuild as rebuild_contexts
from lethe.store.postgres_filters import compile_filters
from lethe.store.postgres_lexical import TermStats
from lethe.store.postgres_open import connect, describe, prepare
from lethe.store.postgres_owed import PostgresOwedWork
from lethe.store.postgres_past import PostgresPastReads
from lethe.store.postgres_proof import PostgresProof
from lethe.store.postgres_reembed import PostgresReembedding
from lethe.store.postgres_schema import WRITE_LOCK
from lethe.store.postgres_transfer import PostgresTransferReads
from lethe.store.postgres_tx import PostgresTx
from lethe.store.postgres_versions import PostgresVersionReads
from lethe.store.reembed_base import check_model
from lethe.store.rows import (
    episode_from_row,
    event_from_row,
    link_from_row,
    memory_from_row,
    pending_from_row,
    ts,
)
from lethe.store.vectors import Vector

if TYPE_CHECKING:
    import psycopg
    from psycopg_pool import ConnectionPool

MEMORY_COLUMNS = """m.id, m.namespace, m.agent, m.content, m.content_sha256, m.layer, m.category,
    m.metadata::text AS metadata, m.importance, m.private, m.created_at, m.updated_at,
    m.last_accessed_at, m.access_count, m.status, m.forgotten_at, m.forgotten_by,
    m.forget_reason, m.version, m.expires_at, m.expiry_set_by, m.expiry_set_at,
    m.expiry_held,
    (SELECT coalesce(json_agg(t.tag ORDER BY t.position), '[]'::json)::text
       FROM memory_tags t WHERE t.memory_id = m.id) AS tags"""

EF_SEARCH_MIN = 400
"""HNSW candidates per search. At 100 the benchmark's top 10 agreed with exact search 95% of
the time and short keyword queries could miss entirely; 400 gave 98.5–99.5% for 4–7 ms more.
pgvector also filters after the index scan, so the list must be long enough for a namespace's
top k."""


def ef_search(n: int) -> int:
    """The `hnsw.ef_search` of a search for `n` candidates."""
    return max(EF_SEARCH_MIN, 2 * int(n))


class PostgresStore(
    PostgresTransferReads,
    PostgresVersionReads,
    PostgresPastReads,
    PostgresContextReads,
    PostgresOwedWork,
    PostgresProof,
):
    """Persistence for the engine on PostgreSQL. Every method is safe to call from several
    threads; each takes a connection from a small pool."""

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

    def vector_of(self, memory_id: str) -> Vector | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT embedding FROM memories WHERE id = %s", (memory_id,)
            ).fetchone()
        return None if row is None else _vector(row["embedding"])

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

    def containing(self, needles: Sequence[str], filters: Filters, n: int) -> list[str]:
        if not needles:
            return []
        where, params = compile_filters(filters)
        sql = (
            "SELECT m.id FROM memories m WHERE EXISTS (SELECT 1 FROM unnest(%s::text[]) AS "
            "needle WHERE strpos(m.content, needle) > 0) "
            f"AND {where} ORDER BY m.num LIMIT %s"
        )
        with self._read() as conn:
            rows = conn.execute(sql.encode(), [list(needles), *params, n]).fetchall()
        return [r["id"] for r in rows]

    def lexical_search_soon(self, text: str, filters: Filters, n: int) -> Future[list[str]]:
        """The full-text search, answered now: the server already runs it beside others."""
        future: Future[list[str]] = Future()
        try:
            future.set_result(self.lexical_search(text, filters, n))
        except BaseException as exc:
            future.set_exception(exc)
        return future

    # -- reads ------------------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory | None:
        with self._read() as conn:
            row = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = %s".encode(), (memory_id,)
            ).fetchone()
        return None if row is None else memory_from_row(row)

    def get_many(self, ids: Sequence[str], *, active_only: bool = True) -> dict[str, Memory]:
        if not ids:
            return {}
        status = "AND m.status = 'active'" if active_only else ""
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = ANY(%s) {status}".encode(),
                (list(ids),),
            ).fetchall()
        return {r["id"]: memory_from_row(r) for r in rows}

    def list_memories(
        self, filters: Filters, *, limit: int, offset: int
    ) -> tuple[list[Memory], int]:
        where, params = compile_filters(filters)
        return self._page(where, params, "created_at", limit, offset)

    def _page(
        self, where: str, params: list[Any], newest: str, limit: int, offset: int
    ) -> tuple[list[Memory], int]:
        """One page of the memories matching `where`, newest by `newest` first, and how many
        match in all."""
        with self._read() as conn:
            total = conn.execute(
                f"SELECT count(*) AS n FROM memories m WHERE {where}".encode(), params
            ).fetchone()
            rows = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE {where} "
                f"ORDER BY m.{newest} DESC, m.num DESC LIMIT %s OFFSET %s".encode(),
                [*params, limit, offset],
            ).fetchall()
        return [memory_from_row(r) for r in rows], int(total["n"]) if total else 0

    def links_of(self, memory_id: str) -> list[Link]:
        sql = """
            SELECT l.* FROM links l JOIN memories o ON o.id = l.b
            WHERE l.a = %s AND o.status = 'active'
            UNION ALL
            SELECT l.* FROM links l JOIN memories o ON o.id = l.a
            WHERE l.b = %s AND o.status = 'active'
            ORDER BY confidence DESC"""
        with self._read() as conn:
            return [link_from_row(r) for r in conn.execute(sql, (memory_id, memory_id))]

    def get_link(self, a: str, b: str, kind: str) -> Link | None:
        a, b = sorted((a, b))
        with self._read() as conn:
            row = conn.execute(
                "SELECT * FROM links WHERE a = %s AND b = %s AND kind = %s", (a, b, kind)
            ).fetchone()
        return None if row is None else link_from_row(row)

    def episode(self, episode_id: str) -> tuple[Episode, list[Memory], int] | None:
        with self._read() as conn:
            row = conn.execute("SELECT * FROM episodes WHERE id = %s", (episode_id,)).fetchone()
        if row is None:
            return None
        members = self.episode_member_ids(episode_id)
        live = self.get_many([m for m in members if m is not None])
        ordered = [live[m] for m in members if m is not None and m in live]
        return episode_from_row(row), ordered, len(members) - len(ordered)

    def episode_member_ids(self, episode_id: str) -> list[str | None]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT memory_id FROM episode_members WHERE episode_id = %s ORDER BY position",
                (episode_id,),
            ).fetchall()
        return [r["memory_id"] for r in rows]

    def episodes_of(self, memory_id: str) -> list[Episode]:
        with self._read() as conn:
            rows = conn.execute(
                """SELECT DISTINCT e.* FROM episodes e
                   JOIN episode_members m ON m.episode_id = e.id
                   WHERE m.memory_id = %s ORDER BY e.start_at, e.id""",
                (memory_id,),
            ).fetchall()
        return [episode_from_row(r) for r in rows]

    def events(self, query: EventQuery) -> list[Event]:
        sql, params = query.sql("%s")
        with self._read() as conn:
            return [event_from_row(r) for r in conn.execute(sql.encode(), params)]

    def touch(self, ids: Sequence[str], at: datetime) -> None:
        """Record that memories were recalled. Access statistics are not audited changes."""
        if ids:
            with self.transaction() as tx:
                tx.touch(ids, at)

    def recent_accesses(self, memory_id: str, now: datetime) -> tuple[int, int]:
        """How often a memory was recalled in the last 30 and 90 days (the access log)."""
        today = int(ts(now) // 86400)
        with self._read() as conn:
            row = conn.execute(
                """SELECT coalesce(sum(CASE WHEN day > %s THEN count ELSE 0 END), 0) AS last30,
                          coalesce(sum(count), 0) AS last90
                   FROM access_days WHERE memory_id = %s AND day > %s""",
                (today - 30, memory_id, today - 90),
            ).fetchone()
        assert row is not None  # an aggregate always answers one row
        return int(row["last30"]), int(row["last90"])

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

    def memory_ids(self) -> list[str]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id FROM memories WHERE status = 'active' ORDER BY num"
            ).fetchall()
        return [r["id"] for r in rows]

    def iter_rows(self, table: str) -> Iterator[dict[str, Any]]:
        """A relation table's rows for export, in a stable order."""
        order = {"links": "created_at, a, b, kind", "episodes": "created_at, id"}[table]
        with self._read() as conn:
            rows = conn.execute(f"SELECT * FROM {table} ORDER BY {order}".encode()).fetchall()
        yield from (dict(r) for r in rows)

    def working_set(self, agent: str, namespace: str) -> list[tuple[Memory, int, datetime]]:
        from datetime import UTC

        sql = f"""
            SELECT {MEMORY_COLUMNS}, w.tokens AS w_tokens, w.added_at AS w_added
            FROM working_set w JOIN memories m ON m.id = w.memory_id
            WHERE w.agent = %s AND w.namespace = %s AND m.status = 'active'
            ORDER BY w.added_at"""
        with self._read() as conn:
            rows = conn.execute(sql.encode(), (agent, namespace)).fetchall()
        return [
            (memory_from_row(r), int(r["w_tokens"]), datetime.fromtimestamp(r["w_added"], UTC))
            for r in rows
        ]

    def fresh_links_close_in_time(self, namespace: str, window_s: float, limit: int) -> list[Link]:
        sql = """
            SELECT l.* FROM links l
            JOIN memories ma ON ma.id = l.a JOIN memories mb ON mb.id = l.b
            WHERE ma.status = 'active' AND mb.status = 'active' AND ma.namespace = %s
              AND abs(ma.created_at - mb.created_at) <= %s AND l.updated_at = l.created_at
            ORDER BY l.created_at DESC LIMIT %s"""
        with self._read() as conn:
            return [link_from_row(r) for r in conn.execute(sql, (namespace, window_s, limit))]

    # -- trash, confirmations, reports ------------------------------------------------------

    def trash(
        self, namespace: str | None, *, limit: int, offset: int, before: datetime | None = None
    ) -> tuple[list[Memory], int]:
        clauses, params = ["m.status = 'forgotten'"], list[Any]()
        if namespace is not None:
            clauses.append("m.namespace = %s")
            params.append(namespace)
        if before is not None:
            clauses.append("m.forgotten_at < %s")
            params.append(ts(before))
        where = " AND ".join(clauses)
        return self._page(where, params, "forgotten_at", limit, offset)

    def due_expiries(self, now: datetime, *, limit: int) -> list[Memory]:
        with self._read() as conn:
            rows = conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories m "
                "WHERE m.status = 'active' AND m.expires_at IS NOT NULL AND m.expires_at <= %s "
                "ORDER BY m.expires_at LIMIT %s".encode(),
                (ts(now), limit),
            ).fetchall()
        return [memory_from_row(r) for r in rows]

    def ids_with_prefixes(
        self, prefixes: Sequence[str], *, namespace: str | None, status: str
    ) -> list[str]:
        # A prefix of hex digits is the range [prefix, prefix || 'g') of the primary key,
        # read in its order (so the planner walks that index, whatever the table's size)
        # up to a bound far above what a prefix of six hex digits holds.
        sql = (
            "SELECT m.id FROM unnest(%s::text[]) AS p(prefix) CROSS JOIN LATERAL ("
            "SELECT id, status, namespace FROM memories WHERE id >= p.prefix "
            "AND id < p.prefix || 'g' ORDER BY id LIMIT 10000) AS m "
            "WHERE left(m.id, length(p.prefix)) = p.prefix AND m.status = %s"
        )
        params: list[Any] = [list(prefixes), status]
        if namespace is not None:
            sql += " AND m.namespace = %s"
            params.append(namespace)
        with self._read() as conn:
            return [r["id"] for r in conn.execute(sql.encode(), params)]

    def pending_all(self, session: str | None = None) -> list[Pending]:
        sql, params = "SELECT * FROM pending_confirmations", list[Any]()
        if session is not None:
            sql += " WHERE session = %s"
            params.append(session)
        with self._read() as conn:
            rows = conn.execute((sql + " ORDER BY last_requested_at").encode(), params).fetchall()
        return [pending_from_row(r) for r in rows]

    def event_counts(
        self, ops: Sequence[str], *, since: datetime | None, namespace: str | None
    ) -> list[tuple[str, str, str, str, int]]:
        clauses, params = ["op = ANY(%s)"], list[Any]([list(ops)])
        if since is not None:
            clauses.append("at >= %s")
            params.append(ts(since))
        if namespace is not None:
            clauses.append("namespace = %s")
            params.append(namespace)
        sql = f"""SELECT to_char(to_timestamp(at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, op,
                         actor, coalesce(namespace, '') AS ns, count(*) AS n
                  FROM events WHERE {" AND ".join(clauses)}
                  GROUP BY day, op, actor, ns ORDER BY day, op"""
        with self._read() as conn:
            rows = conn.execute(sql.encode(), params).fetchall()
        return [(r["day"], r["op"], r["actor"], r["ns"], int(r["n"])) for r in rows]

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
