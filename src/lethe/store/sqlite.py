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
from datetime import datetime
from pathlib import Path

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
from lethe.store import sqlite_grams
from lethe.store.base import F64, DecayColumns
from lethe.store.dialect import SQLITE
from lethe.store.reembed_base import check_model
from lethe.store.rows import (
    ts,
)
from lethe.store.sql_owed import SqlOwedWork
from lethe.store.sql_reads import SqlReads
from lethe.store.sql_receipts import SqlReceipts
from lethe.store.sqlite_context import SQLiteContextReads, adopt_window
from lethe.store.sqlite_context import rebuild as rebuild_contexts
from lethe.store.sqlite_index import IndexSync
from lethe.store.sqlite_lexical import LexicalSearch
from lethe.store.sqlite_open import check_application, check_path, enter_wal, migrate
from lethe.store.sqlite_past import SQLitePastReads
from lethe.store.sqlite_proof import SQLiteProof
from lethe.store.sqlite_reembed import SQLiteReembedding
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
    SqlReads,
    SQLiteVersionReads,
    SQLitePastReads,
    SQLiteContextReads,
    SqlOwedWork,
    SQLiteProof,
    SqlReceipts,
):
    """Persistence for the engine. Every method is safe to call from several threads."""

    _dialect = SQLITE

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

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """The one connection, under the store's lock."""
        with self._lock:
            yield self._conn

    @contextmanager
    def _small_write(self) -> Iterator[sqlite3.Connection]:
        """A write of its own outside the engine's transactions (owed work, meta marks)."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

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

    def namespace_vectors(self, namespace: str) -> tuple[list[str], Vector]:
        """Every live memory's vector in one namespace (for all-pairs work such as
        consolidation), straight from the synced index: no BLOB is read."""
        with self._lock:
            self._sync.sync()
            return self._sync.index.namespace_matrix(namespace)

    def similarities(self, query: Vector, ids: Sequence[str]) -> dict[str, float]:
        with self._lock:
            self._sync.sync()
            return self._sync.index.similarities(query, ids)

    def lexical_search(self, text: str, filters: Filters, n: int) -> list[str]:
        return self._lexical.search(text, filters, n)

    def lexical_search_soon(self, text: str, filters: Filters, n: int) -> Future[list[str]]:
        """The full-text search on its own thread and connection (see `sqlite_lexical`)."""
        return self._lexical.submit(text, filters, n)

    # -- reads --------------------------------------------------------------------------

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

    # -- erasure ------------------------------------------------------------------------------

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
