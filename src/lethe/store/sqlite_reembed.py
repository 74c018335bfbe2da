"""`lethe reembed` on the SQLite file (store/reembed_base.py says how it goes).

The staging table is made on first use rather than by a migration: it exists only while a
reembed is under way, and the switch drops it. Vectors are BLOBs, so the columns do not
change with the dimension; the in-process index and its snapshot files beside the database are
what hold the old model after the switch, so the snapshot is deleted and every changed row is
in `vector_log` (its triggers), which any process replays.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from lethe.errors import NotALetheDatabase, StoreError
from lethe.store.reembed_base import (
    DIM_KEY,
    F32,
    TABLE,
    TARGET_KEY,
    Embed,
    Progress,
    Switched,
    Unstaged,
)
from lethe.store.sqlite_context import rebuild as rebuild_contexts

if TYPE_CHECKING:
    from lethe.store.sqlite import SQLiteStore

_CREATE = f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    memory_id      TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    version        INTEGER NOT NULL,
    content_sha256 TEXT NOT NULL,
    embedding      BLOB NOT NULL,
    PRIMARY KEY (memory_id, version)
) WITHOUT ROWID"""

_MEMORIES = f"""SELECT m.num, m.id, m.content, m.content_sha256 FROM memories m
    LEFT JOIN {TABLE} s ON s.memory_id = m.id AND s.version = 0
    WHERE m.num > ? AND (s.memory_id IS NULL OR s.content_sha256 != m.content_sha256)
    ORDER BY m.num LIMIT ?"""
_VERSIONS = f"""SELECT v.memory_id, v.version, v.content, v.content_sha256 FROM memory_versions v
    LEFT JOIN {TABLE} s ON s.memory_id = v.memory_id AND s.version = v.version
    WHERE v.embedding IS NOT NULL AND (v.memory_id, v.version) > (?, ?)
    AND (s.memory_id IS NULL OR s.content_sha256 != v.content_sha256)
    ORDER BY v.memory_id, v.version LIMIT ?"""


def recorded_model(path: Path) -> tuple[str, int]:
    """The model and dimension a store file records, read without writing anything (the file
    is not opened as a store: that needs its model first)."""
    if not path.is_file():
        raise NotALetheDatabase(
            f"there is no memory store at {path}", hint="point --db / LETHE_DB at your store"
        )
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            meta = dict(conn.execute("SELECT key, value FROM lethe_meta").fetchall())
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise NotALetheDatabase(f"{path} is not a lethe database: {exc}") from None
    if meta.get("application") != "lethe" or "embedder" not in meta:
        raise NotALetheDatabase(f"{path} is not a lethe database")
    return str(meta["embedder"]), int(meta.get("dim", 0))


class SQLiteReembedding:
    def __init__(self, store: SQLiteStore) -> None:
        self._store = store

    def _meta(self) -> dict[str, str]:
        with self._store._lock:
            rows = self._store.connection.execute("SELECT key, value FROM lethe_meta")
            return {str(k): str(v) for k, v in rows.fetchall()}

    def recorded(self) -> tuple[str, int, str | None, int | None]:
        meta = self._meta()
        target = meta.get(TARGET_KEY)
        dim = meta.get(DIM_KEY)
        return meta["embedder"], int(meta["dim"]), target, int(dim) if dim else None

    def begin(self, target: str, dim: int) -> None:
        with self._store.transaction():
            conn = self._store.connection
            row = conn.execute(
                "SELECT value FROM lethe_meta WHERE key = ?", (TARGET_KEY,)
            ).fetchone()
            if row is not None and row[0] != target:
                conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
            conn.execute(_CREATE)
            conn.executemany(
                "INSERT OR REPLACE INTO lethe_meta (key, value) VALUES (?, ?)",
                [(TARGET_KEY, target), (DIM_KEY, str(dim))],
            )

    def unstaged(self, after: tuple[int, str, int] | None, limit: int) -> list[Unstaged]:
        with self._store._lock:
            return _unstaged(self._store.connection, after, limit)

    def stage(self, rows: Sequence[Unstaged], vectors: F32) -> None:
        with self._store.transaction():
            _put(self._store.connection, rows, vectors)

    def progress(self) -> Progress:
        with self._store._lock:
            conn = self._store.connection
            total = conn.execute(
                "SELECT (SELECT count(*) FROM memories) + (SELECT count(*) FROM memory_versions "
                "WHERE embedding IS NOT NULL)"
            ).fetchone()[0]
            staged = conn.execute(
                f"""SELECT (SELECT count(*) FROM {TABLE} s JOIN memories m
                    ON m.id = s.memory_id AND s.version = 0
                    AND m.content_sha256 = s.content_sha256)
                  + (SELECT count(*) FROM {TABLE} s JOIN memory_versions v
                    ON v.memory_id = s.memory_id AND v.version = s.version
                    AND v.embedding IS NOT NULL AND v.content_sha256 = s.content_sha256)"""
            ).fetchone()[0]
        return Progress(staged=int(staged), total=int(total))

    def switch(self, embed: Embed, *, actor: str) -> Switched:
        store = self._store
        with store.transaction() as tx:
            conn = store.connection
            meta = dict(conn.execute("SELECT key, value FROM lethe_meta").fetchall())
            target, dim = meta.get(TARGET_KEY), int(meta.get(DIM_KEY) or 0)
            if target is None:
                raise StoreError("no reembed is under way in this store; nothing was changed")
            late = _late(conn, embed)
            memories = conn.execute(
                f"""UPDATE memories SET embedding = s.embedding FROM {TABLE} s
                    WHERE s.memory_id = memories.id AND s.version = 0"""
            ).rowcount
            versions = conn.execute(
                f"""UPDATE memory_versions SET embedding = s.embedding FROM {TABLE} s
                    WHERE s.memory_id = memory_versions.memory_id
                    AND s.version = memory_versions.version
                    AND memory_versions.embedding IS NOT NULL"""
            ).rowcount
            _check_all_replaced(conn, memories, versions, dim)
            contexts = rebuild_contexts(conn)
            wrong = conn.execute(
                "SELECT count(*) FROM memory_context WHERE length(embedding) != ?", (4 * dim,)
            ).fetchone()[0]
            if wrong:
                raise StoreError(f"{wrong} conversation contexts kept the old model's vectors")
            conn.execute(f"DROP TABLE {TABLE}")
            conn.executemany(
                "UPDATE lethe_meta SET value = ? WHERE key = ?",
                [(target, "embedder"), (str(dim), "dim")],
            )
            conn.execute("DELETE FROM lethe_meta WHERE key IN (?, ?)", (TARGET_KEY, DIM_KEY))
            tx.append_event(
                op="reembed",
                actor=actor,
                at=datetime.now(UTC),
                details={
                    "from": meta.get("embedder"),
                    "to": target,
                    "dim": dim,
                    "memories": memories,
                    "versions": versions,
                },
            )
        store.drop_vector_cache()
        return Switched(memories=memories, versions=versions, contexts=contexts, late=late)

    def abandon(self) -> None:
        with self._store.transaction():
            conn = self._store.connection
            conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
            conn.execute("DELETE FROM lethe_meta WHERE key IN (?, ?)", (TARGET_KEY, DIM_KEY))


def _unstaged(
    conn: sqlite3.Connection, after: tuple[int, str, int] | None, limit: int
) -> list[Unstaged]:
    out: list[Unstaged] = []
    phase, key, n = after or (0, "", -1)
    if phase == 0:
        for num, memory_id, content, sha in conn.execute(_MEMORIES, (n, limit)).fetchall():
            out.append(Unstaged(memory_id, 0, content, sha, (0, "", int(num))))
        key, n = "", -1
    if len(out) < limit:
        rows = conn.execute(_VERSIONS, (key, n, limit - len(out))).fetchall()
        for memory_id, version, content, sha in rows:
            out.append(Unstaged(memory_id, int(version), content, sha, (1, memory_id, version)))
    return out


def _put(conn: sqlite3.Connection, rows: Sequence[Unstaged], vectors: F32) -> None:
    conn.executemany(
        f"""INSERT OR REPLACE INTO {TABLE} (memory_id, version, content_sha256, embedding)
            VALUES (?, ?, ?, ?)""",
        [
            (r.memory_id, r.version, r.content_sha256, v.astype("<f4").tobytes())
            for r, v in zip(rows, vectors, strict=True)
        ],
    )


def _late(conn: sqlite3.Connection, embed: Embed) -> int:
    """Embed, inside the switch, what was written since the last batch."""
    late = 0
    after: tuple[int, str, int] | None = None
    while rows := _unstaged(conn, after, 256):
        _put(conn, rows, embed([r.content for r in rows]))
        late += len(rows)
        after = rows[-1].after
    return late


def _check_all_replaced(conn: sqlite3.Connection, memories: int, versions: int, dim: int) -> None:
    """Refuse to commit a store with a vector of the old model left in it."""
    have = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    kept = conn.execute(
        "SELECT count(*) FROM memory_versions WHERE embedding IS NOT NULL"
    ).fetchone()[0]
    wrong = conn.execute(
        "SELECT count(*) FROM memories WHERE length(embedding) != ?", (4 * dim,)
    ).fetchone()[0]
    if memories != have or versions != kept or wrong:
        raise StoreError(
            f"the reembed replaced {memories} of {have} memory vectors and {versions} of "
            f"{kept} earlier states' ({wrong} of the wrong size); nothing was changed",
            hint="run `lethe reembed` again",
        )
