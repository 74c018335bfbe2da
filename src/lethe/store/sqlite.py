"""The embedded store: one SQLite file in WAL mode, with an in-process vector index.

Rows, tags, links, episodes, the full-text index (by trigger) and the audit event of one change
are written in one `BEGIN IMMEDIATE` transaction, so a failure leaves the file as it was.
Vectors live as float32 BLOBs in the memory rows; the numpy index is a cache rebuilt from them
and replayed from `vector_log`, which is how a second process's writes become visible here.
"""

from __future__ import annotations

import json
import math
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from lethe.common.context import WINDOW, Window
from lethe.common.filters import Filters
from lethe.common.progress import ProgressBar
from lethe.common.threads import resolve as resolve_threads
from lethe.errors import (
    DatabaseNotWritable,
    NotALetheDatabase,
    StoreBusy,
    StoreError,
)
from lethe.model import Episode, Event, Link, Memory, Pending
from lethe.store import sqlite_grams
from lethe.store.base import F64, DecayColumns
from lethe.store.event_query import EventQuery
from lethe.store.reembed_base import check_model
from lethe.store.rows import (
    MEMORY_COLUMNS,
    episode_from_row,
    event_from_row,
    link_from_row,
    memory_from_row,
    pending_from_row,
    ts,
)
from lethe.store.sqlite_context import SQLiteContextReads, adopt_window
from lethe.store.sqlite_context import rebuild as rebuild_contexts
from lethe.store.sqlite_filters import compile_filters
from lethe.store.sqlite_index import IndexSync
from lethe.store.sqlite_lexical import LexicalSearch
from lethe.store.sqlite_open import check_application, check_path, enter_wal, migrate
from lethe.store.sqlite_owed import SQLiteOwedWork
from lethe.store.sqlite_past import SQLitePastReads
from lethe.store.sqlite_proof import SQLiteProof
from lethe.store.sqlite_reembed import SQLiteReembedding
from lethe.store.sqlite_transfer import SQLiteTransferReads
from lethe.store.sqlite_tx import SQLiteTx
from lethe.store.sqlite_versions import SQLiteVersionReads
from lethe.store.vectors import Vector

_CHUNK = 500
_CHECKPOINT_TRIES = 50


def _store_error(path: Path, exc: sqlite3.Error) -> StoreError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return StoreBusy(
            f"{path} is locked by another writer: {text}",
            hint="retry, or raise LETHE_BUSY_TIMEOUT_MS",
        )
    return StoreError(f"database error in {path}: {text}; nothing was changed")


class SQLiteStore(
    SQLiteTransferReads,
    SQLiteVersionReads,
    SQLitePastReads,
    SQLiteContextReads,
    SQLiteOwedWork,
    SQLiteProof,
):
    """Persistence for the engine. Every method is safe to call from several threads."""

    def __init__(
        self,
        path: str | Path,
        *,
        embedder: str,
        dim: int,
        busy_timeout_ms: int = 5000,
        context_window: Window = WINDOW,
        threads: int | None = None,
        progress: ProgressBar | None = None,
    ):
        """`progress` shows a schema migration that goes through every row.

        The path is resolved (symbolic links, `..`, the working folder) before anything is
        read: the files lethe keeps beside the database (the purge claims, the receipt key,
        the vector snapshot) must be found beside the real file by every process, however it
        names the store, and stay put if the working folder changes."""
        given = Path(path).expanduser()
        try:
            self.path = given.resolve()
        except (OSError, RuntimeError) as exc:  # a loop of symbolic links
            raise DatabaseNotWritable(
                f"cannot open {given}: {exc}", hint="give the path of a file"
            ) from None
        self.dim = dim
        self._embedder = embedder
        self._busy_timeout_ms = int(busy_timeout_ms)
        check_path(self.path)
        try:
            self._conn = sqlite3.connect(
                self.path,
                isolation_level=None,
                check_same_thread=False,
                timeout=busy_timeout_ms / 1000,
            )
        except sqlite3.Error as exc:
            raise DatabaseNotWritable(f"cannot open {self.path}: {exc}") from None
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            # Before anything writes: another application's file is refused untouched (the
            # switch to WAL rewrites its header).
            check_application(self._conn, self.path)
            enter_wal(self._conn, busy_timeout_ms)
            self._conn.execute("PRAGMA synchronous = NORMAL")
            # Freed pages are zeroed, so a purged memory's text does not linger in the file.
            self._conn.execute("PRAGMA secure_delete = ON")
            sqlite_grams.register(self._conn)
            migrate(self._conn, self.path, embedder, dim, progress)
            db_id = self._conn.execute(
                "SELECT value FROM lethe_meta WHERE key = 'db_id'"
            ).fetchone()[0]
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            if "not a database" in str(exc) or "malformed" in str(exc):
                raise NotALetheDatabase(f"{self.path} is not a lethe database: {exc}") from None
            if "readonly" in str(exc) or "unable to open" in str(exc):
                raise DatabaseNotWritable(f"cannot write {self.path}: {exc}") from None
            raise StoreError(f"cannot open {self.path}: {exc}") from None
        except StoreError:
            self._conn.close()
            raise
        self._sync = IndexSync(self._conn, self.path, dim, db_id, threads=resolve_threads(threads))
        self._lexical = LexicalSearch(self.path, busy_timeout_ms, lambda: self._sync.seq)
        self._context_lexical = LexicalSearch(
            self.path, busy_timeout_ms, lambda: self._sync.seq, context=True
        )
        adopt_window(self._conn, context_window)
        with suppress(OSError):  # a file that cannot be removed now is tried at the next open
            self.clear_claims()
        if self._conn.execute("SELECT 1 FROM conversation_dirty LIMIT 1").fetchone():
            with self.transaction():  # conversations stored before contexts existed
                pass

    @property
    def connection(self) -> sqlite3.Connection:
        """The shared connection; only `SQLiteTx` writes through it, under the store's lock."""
        return self._conn

    @property
    def schema_version(self) -> int:
        with self._lock:
            return int(self._conn.execute("PRAGMA user_version").fetchone()[0])

    def close(self) -> None:
        self._lexical.close()
        self._context_lexical.close()
        with self._lock:
            self._conn.close()

    # -- transactions -------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[SQLiteTx]:
        """One atomic write. On any exception nothing is kept and the vector cache is rebuilt."""
        with self._lock:
            try:
                self._conn.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as exc:
                raise _store_error(self.path, exc) from None
            try:
                recorded = self._conn.execute(
                    "SELECT value FROM lethe_meta WHERE key = 'embedder'"
                ).fetchone()
                check_model(recorded[0] if recorded else None, self._embedder, str(self.path))
                yield SQLiteTx(self)
                rebuild_contexts(self._conn)
                self._conn.execute("COMMIT")
            except BaseException as exc:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                self._sync.invalidate()
                if isinstance(exc, sqlite3.Error):
                    raise _store_error(self.path, exc) from None
                raise

    def reembedding(self) -> SQLiteReembedding:
        """Moving this store to another embedding model (`lethe reembed`)."""
        return SQLiteReembedding(self)

    def drop_vector_cache(self) -> None:
        """Forget the in-process index and the snapshot files beside the database: after a
        reembed they hold the old model's vectors."""
        with self._lock:
            self._sync.invalidate()
            self._sync.drop_snapshot()

    # -- vector index -------------------------------------------------------------------

    def live_vector_ids(self) -> set[str]:
        """Ids the vector index holds after catching up (for consistency checks)."""
        with self._lock:
            self._sync.sync()
            return set(self._sync.index.export()[0])

    def vector_search(self, query: Vector, filters: Filters, n: int) -> list[tuple[str, float]]:
        """Top-n (id, cosine) among memories matching `filters`."""
        with self._lock:
            self._sync.sync()
            return self._within_search(self._sync.index, query, filters, n)

    def vector_search_many(
        self, queries: Vector, namespace: str, n: int, *, floor: float = -math.inf
    ) -> list[list[tuple[str, float]]]:
        with self._lock:
            self._sync.sync()
            return self._sync.index.search_many(queries, namespace=namespace, k=n, floor=floor)

    def working_set(self, agent: str, namespace: str) -> list[tuple[Memory, int, datetime]]:
        """An agent's working memory: live memories with their token counts and when they
        entered it. Forgotten memories drop out here, without touching the rows."""
        sql = f"""
            SELECT {MEMORY_COLUMNS}, w.tokens AS w_tokens, w.added_at AS w_added
            FROM working_set w JOIN memories m ON m.id = w.memory_id
            WHERE w.agent = ? AND w.namespace = ? AND m.status = 'active'
            ORDER BY w.added_at"""
        with self._lock:
            rows = self._conn.execute(sql, (agent, namespace)).fetchall()
        return [
            (memory_from_row(r), int(r["w_tokens"]), datetime.fromtimestamp(r["w_added"], UTC))
            for r in rows
        ]

    def namespace_vectors(self, namespace: str) -> tuple[list[str], Vector]:
        """Every live memory's vector in one namespace (for all-pairs work such as
        consolidation), straight from the synced index: no BLOB is read."""
        with self._lock:
            self._sync.sync()
            return self._sync.index.namespace_matrix(namespace)

    def fresh_links_close_in_time(self, namespace: str, window_s: float, limit: int) -> list[Link]:
        """Up to `limit` links between live memories of a namespace written within `window_s`
        of each other, never changed since they were made; the newest first."""
        sql = """
            SELECT l.* FROM links l
            JOIN memories ma ON ma.id = l.a JOIN memories mb ON mb.id = l.b
            WHERE ma.status = 'active' AND mb.status = 'active' AND ma.namespace = ?
              AND abs(ma.created_at - mb.created_at) <= ? AND l.updated_at = l.created_at
            ORDER BY l.created_at DESC LIMIT ?"""
        with self._lock:
            rows = self._conn.execute(sql, (namespace, window_s, limit))
            return [link_from_row(r) for r in rows]

    def similarities(self, query: Vector, ids: Sequence[str]) -> dict[str, float]:
        with self._lock:
            self._sync.sync()
            return self._sync.index.similarities(query, ids)

    def lexical_search(self, text: str, filters: Filters, n: int) -> list[str]:
        return self._lexical.search(text, filters, n)

    def containing(self, needles: Sequence[str], filters: Filters, n: int) -> list[str]:
        if not needles:
            return []
        where, params = compile_filters(filters)
        found = " OR ".join("instr(m.content, ?) > 0" for _ in needles)
        sql = f"SELECT m.id FROM memories m WHERE ({found}) AND {where} ORDER BY m.num LIMIT ?"
        with self._lock:
            rows = self._conn.execute(sql, [*needles, *params, n]).fetchall()
        return [r["id"] for r in rows]

    def lexical_search_soon(self, text: str, filters: Filters, n: int) -> Future[list[str]]:
        """The full-text search on its own thread and connection (see `sqlite_lexical`)."""
        return self._lexical.submit(text, filters, n)

    # -- reads --------------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id = ?", (memory_id,)
            ).fetchone()
        return None if row is None else memory_from_row(row)

    def get_many(self, ids: Sequence[str], *, active_only: bool = True) -> dict[str, Memory]:
        """Memories by id; with `active_only` this is the live re-check of search results."""
        found: dict[str, Memory] = {}
        status = "AND m.status = 'active'" if active_only else ""
        with self._lock:
            for start in range(0, len(ids), _CHUNK):
                chunk = list(ids[start : start + _CHUNK])
                marks = ", ".join("?" for _ in chunk)
                for row in self._conn.execute(
                    f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE m.id IN ({marks}) {status}",
                    chunk,
                ):
                    found[row["id"]] = memory_from_row(row)
        return found

    def vector_of(self, memory_id: str) -> Vector | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT embedding FROM memories WHERE id = ?", (memory_id,)
            ).fetchone()
        return None if row is None else np.frombuffer(row[0], dtype="<f4").copy()

    def list_memories(
        self, filters: Filters, *, limit: int, offset: int
    ) -> tuple[list[Memory], int]:
        where, params = compile_filters(filters)
        with self._lock:
            total = self._conn.execute(
                f"SELECT count(*) FROM memories m WHERE {where}", params
            ).fetchone()[0]
            rows = self._conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE {where} "
                "ORDER BY m.created_at DESC, m.num DESC LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
        return [memory_from_row(r) for r in rows], total

    def links_of(self, memory_id: str) -> list[Link]:
        """Links whose other end is a live memory, strongest first."""
        sql = """
            SELECT l.* FROM links l JOIN memories o ON o.id = l.b
            WHERE l.a = ? AND o.status = 'active'
            UNION ALL
            SELECT l.* FROM links l JOIN memories o ON o.id = l.a
            WHERE l.b = ? AND o.status = 'active'
            ORDER BY confidence DESC"""
        with self._lock:
            return [link_from_row(r) for r in self._conn.execute(sql, (memory_id, memory_id))]

    def get_link(self, a: str, b: str, kind: str) -> Link | None:
        a, b = sorted((a, b))
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM links WHERE a = ? AND b = ? AND kind = ?", (a, b, kind)
            ).fetchone()
        return None if row is None else link_from_row(row)

    def episode(self, episode_id: str) -> tuple[Episode, list[Memory], int] | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT * FROM episodes WHERE id = ?", (episode_id,)
            ).fetchone()
            if row is None:
                return None
            members = self.episode_member_ids(episode_id)
        live = self.get_many([m for m in members if m is not None])
        episode = episode_from_row(row)
        ordered = [live[m] for m in members if m is not None and m in live]
        return episode, ordered, len(members) - len(ordered)

    def episodes_of(self, memory_id: str) -> list[Episode]:
        with self._lock:
            rows = self._conn.execute(
                """SELECT DISTINCT e.* FROM episodes e
                   JOIN episode_members m ON m.episode_id = e.id
                   WHERE m.memory_id = ? ORDER BY e.start_at, e.id""",
                (memory_id,),
            ).fetchall()
        return [episode_from_row(r) for r in rows]

    def events(self, query: EventQuery) -> list[Event]:
        sql, params = query.sql("?")
        with self._lock:
            return [event_from_row(r) for r in self._conn.execute(sql, params)]

    def touch(self, ids: Sequence[str], at: datetime) -> None:
        """Record that memories were recalled. Access statistics are not audited changes."""
        if ids:
            with self.transaction() as tx:
                tx.touch(ids, at)

    def recent_accesses(self, memory_id: str, now: datetime) -> tuple[int, int]:
        """How often a memory was recalled in the last 30 and 90 days (the access log)."""
        today = int(ts(now) // 86400)
        with self._lock:
            row = self._conn.execute(
                """SELECT coalesce(SUM(CASE WHEN day > ? THEN count ELSE 0 END), 0),
                          coalesce(SUM(count), 0)
                   FROM access_days WHERE memory_id = ? AND day > ?""",
                (today - 30, memory_id, today - 90),
            ).fetchone()
        return int(row[0]), int(row[1])

    def decay_columns(
        self, namespace: str, now: datetime, protected_layers: Sequence[str]
    ) -> DecayColumns:
        """The columns a decay sweep needs for every live memory of a namespace.

        Python's sqlite3 builds a tuple per row, which alone would take seconds for a million
        memories; so each column comes back as one comma-separated string from a single scan
        of a covering index, and numpy parses it. Numbers travel as integers (importance in
        millionths, times in whole seconds), which SQLite writes as text much faster than
        floats and which are precise enough for scores measured in days. The access log of
        the last 90 days is small by nature and is read row by row.
        """
        today = int(ts(now) // 86400)
        with self._lock:
            row = self._conn.execute(
                """SELECT count(*), group_concat(id),
                          group_concat(CAST(round(importance * 1000000) AS INTEGER)),
                          group_concat(CAST(coalesce(last_accessed_at, created_at) AS INTEGER)),
                          group_concat(access_count),
                          group_concat(layer IN (SELECT value FROM json_each(?))
                                       OR id LIKE 'sys\\_%' ESCAPE '\\')
                   FROM memories INDEXED BY memories_decay
                   WHERE namespace = ? AND status = 'active'""",
                (json.dumps(list(protected_layers)), namespace),
            ).fetchone()
            recent = self._conn.execute(
                """SELECT memory_id, SUM(CASE WHEN day > ? THEN count ELSE 0 END), SUM(count)
                   FROM access_days WHERE day > ? GROUP BY memory_id""",
                (today - 30, today - 90),
            ).fetchall()
        n = int(row[0])

        def numbers(text: str | None) -> F64:
            return np.array(text.split(","), dtype=np.float64) if text else np.zeros(0)

        ids = row[1].split(",") if n else []
        position = dict(zip(ids, range(n), strict=True)) if recent else {}
        acc30, acc90 = np.zeros(n), np.zeros(n)
        for memory_id, last30, last90 in recent:
            i = position.get(memory_id)
            if i is not None:  # another namespace's, or forgotten: not part of this sweep
                acc30[i], acc90[i] = last30, last90
        return DecayColumns(
            ids=ids,
            importance=numbers(row[2]) / 1_000_000,
            last_access_at=numbers(row[3]),
            accesses_total=numbers(row[4]),
            accesses_30d=acc30,
            accesses_90d=acc90,
            always_kept=numbers(row[5]) > 0,
        )

    def memory_ids(self) -> list[str]:
        """Ids of live memories in insertion order."""
        with self._lock:
            return [
                r[0]
                for r in self._conn.execute(
                    "SELECT id FROM memories WHERE status = 'active' ORDER BY num"
                )
            ]

    def iter_rows(self, table: str) -> Iterator[dict[str, Any]]:
        """A relation table's rows for export, in insertion order."""
        order = {"links": "rowid", "episodes": "rowid"}[table]
        with self._lock:
            cursor = self._conn.execute(f"SELECT * FROM {table} ORDER BY {order}")
            rows = cursor.fetchall()
        for row in rows:
            yield dict(row)

    def episode_member_ids(self, episode_id: str) -> list[str | None]:
        with self._lock:
            return [
                r[0]
                for r in self._conn.execute(
                    "SELECT memory_id FROM episode_members WHERE episode_id = ? ORDER BY position",
                    (episode_id,),
                )
            ]

    # -- trash, confirmations, reports ------------------------------------------------------

    def trash(
        self, namespace: str | None, *, limit: int, offset: int, before: datetime | None = None
    ) -> tuple[list[Memory], int]:
        """Forgotten memories, most recently forgotten first."""
        clauses, params = ["m.status = 'forgotten'"], list[Any]()
        if namespace is not None:
            clauses.append("m.namespace = ?")
            params.append(namespace)
        if before is not None:
            clauses.append("m.forgotten_at < ?")
            params.append(ts(before))
        where = " AND ".join(clauses)
        with self._lock:
            total = self._conn.execute(
                f"SELECT count(*) FROM memories m WHERE {where}", params
            ).fetchone()[0]
            rows = self._conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories m WHERE {where} "
                "ORDER BY m.forgotten_at DESC, m.num DESC LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
        return [memory_from_row(r) for r in rows], total

    def due_expiries(self, now: datetime, *, limit: int) -> list[Memory]:
        with self._lock:
            rows = self._conn.execute(
                f"SELECT {MEMORY_COLUMNS} FROM memories m INDEXED BY memories_expiry "
                "WHERE m.status = 'active' AND m.expires_at IS NOT NULL AND m.expires_at <= ? "
                "ORDER BY m.expires_at LIMIT ?",
                (ts(now), limit),
            ).fetchall()
        return [memory_from_row(r) for r in rows]

    def ids_with_prefixes(
        self, prefixes: Sequence[str], *, namespace: str | None, status: str
    ) -> list[str]:
        # A prefix of hex digits is the range [prefix, prefix + "g") of the id index ("g"
        # follows every hex digit). The unary + keeps the planner on that index.
        sql = (
            "SELECT m.id FROM json_each(?) AS p CROSS JOIN memories AS m "
            "ON m.id >= p.value AND m.id < p.value || 'g' WHERE +m.status = ?"
        )
        params: list[Any] = [json.dumps(list(prefixes)), status]
        if namespace is not None:
            sql += " AND +m.namespace = ?"
            params.append(namespace)
        with self._lock:
            return [r[0] for r in self._conn.execute(sql, params)]

    def pending_all(self, session: str | None = None) -> list[Pending]:
        sql, params = "SELECT * FROM pending_confirmations", list[Any]()
        if session is not None:
            sql += " WHERE session = ?"
            params.append(session)
        with self._lock:
            rows = self._conn.execute(sql + " ORDER BY last_requested_at", params).fetchall()
        return [pending_from_row(r) for r in rows]

    def event_counts(
        self, ops: Sequence[str], *, since: datetime | None, namespace: str | None
    ) -> list[tuple[str, str, str, str, int]]:
        """(day, op, actor, namespace, count) of the given ops, for the deletion report."""
        marks = ", ".join("?" for _ in ops)
        clauses, params = [f"op IN ({marks})"], list[Any](ops)
        if since is not None:
            clauses.append("at >= ?")
            params.append(ts(since))
        if namespace is not None:
            clauses.append("namespace = ?")
            params.append(namespace)
        sql = f"""SELECT date(at, 'unixepoch') AS day, op, actor, coalesce(namespace, ''),
                         count(*)
                  FROM events WHERE {" AND ".join(clauses)}
                  GROUP BY day, op, actor, namespace ORDER BY day, op"""
        with self._lock:
            return [tuple(r) for r in self._conn.execute(sql, params)]

    def compact(self) -> bool:
        """After a purge: merge full-text segments (dropping erased terms) and empty the WAL,
        so the erased text survives neither in the index nor in old page images. A reader in
        another process can hold old frames for a moment: the checkpoint is tried for about
        a second, each try without waiting on the busy handler. Returns whether the WAL was
        emptied (if not, the caller keeps the work owed for later)."""
        self._lexical.release()
        self._context_lexical.release()
        done = False
        with self._lock:
            for table in ("memories_fts", "context_fts", "memories_grams", "context_grams"):
                self._conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
            self._conn.execute("PRAGMA busy_timeout = 0")
            try:
                for _ in range(_CHECKPOINT_TRIES):
                    busy = self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                    if not busy:
                        done = True
                        break
                    time.sleep(0.02)
            finally:
                self._conn.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
            self._sync.drop_snapshot()
        return done
