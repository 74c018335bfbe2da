"""`lethe reembed` on either SQL store (reembed_base.py says how it goes): the staging, the
progress and the switch, in the store's dialect. What differs is a hook of the store's thin
subclass: the staging table's vector column, what the switch must set aside around the swap
(PostgreSQL's typed vector columns), what it checks and what it drops after the commit
(SQLite's in-process index)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from lethe.errors import StoreError
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

_MEMORIES = f"""SELECT m.num, m.id, m.content, m.content_sha256 FROM memories m
    LEFT JOIN {TABLE} s ON s.memory_id = m.id AND s.version = 0
    WHERE m.num > ? AND (s.memory_id IS NULL OR s.content_sha256 != m.content_sha256)
    ORDER BY m.num LIMIT ?"""
_VERSIONS = f"""SELECT v.memory_id, v.version, v.content, v.content_sha256 FROM memory_versions v
    LEFT JOIN {TABLE} s ON s.memory_id = v.memory_id AND s.version = v.version
    WHERE v.embedding IS NOT NULL AND (v.memory_id, v.version) > (?, ?)
    AND (s.memory_id IS NULL OR s.content_sha256 != v.content_sha256)
    ORDER BY v.memory_id, v.version LIMIT ?"""


def staging_table(vector_type: str, options: str = "") -> str:
    """The staging table, its vectors in the store's column type (one row per memory, version
    0, and per earlier state that holds a vector)."""
    return f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    memory_id      TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    version        INTEGER NOT NULL,
    content_sha256 TEXT NOT NULL,
    embedding      {vector_type} NOT NULL,
    PRIMARY KEY (memory_id, version)
) {options}""".rstrip()


class SqlReembedding(ABC):
    """Moving a store to another embedding model; `create` is the staging table."""

    create = ""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._d = store._dialect

    def _run(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        return self._d.run(conn, sql, params)

    def _meta(self, conn: Any) -> dict[str, str]:
        rows = self._run(conn, "SELECT key, value FROM lethe_meta").fetchall()
        return {str(r["key"]): str(r["value"]) for r in rows}

    def recorded(self) -> tuple[str, int, str | None, int | None]:
        with self._store._read() as conn:
            meta = self._meta(conn)
        dim = meta.get(DIM_KEY)
        return meta["embedder"], int(meta["dim"]), meta.get(TARGET_KEY), int(dim) if dim else None

    def begin(self, target: str, dim: int) -> None:
        with self._store.transaction(), self._store._read() as conn:
            row = self._run(
                conn, "SELECT value FROM lethe_meta WHERE key = ?", (TARGET_KEY,)
            ).fetchone()
            if row is not None and row["value"] != target:
                self._run(conn, f"DROP TABLE IF EXISTS {TABLE}")
            self._run(conn, self.create)
            for key, value in ((TARGET_KEY, target), (DIM_KEY, str(dim))):
                self._run(
                    conn,
                    "INSERT INTO lethe_meta (key, value) VALUES (?, ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )

    def unstaged(self, after: tuple[int, str, int] | None, limit: int) -> list[Unstaged]:
        with self._store._read() as conn:
            return self._unstaged(conn, after, limit)

    def stage(self, rows: Sequence[Unstaged], vectors: F32) -> None:
        with self._store.transaction(), self._store._read() as conn:
            self._put(conn, rows, vectors)

    def progress(self) -> Progress:
        with self._store._read() as conn:
            row = self._run(
                conn,
                f"""SELECT (SELECT count(*) FROM memories)
                      + (SELECT count(*) FROM memory_versions WHERE embedding IS NOT NULL)
                      AS total,
                    (SELECT count(*) FROM {TABLE} s JOIN memories m
                      ON m.id = s.memory_id AND s.version = 0
                      AND m.content_sha256 = s.content_sha256)
                    + (SELECT count(*) FROM {TABLE} s JOIN memory_versions v
                      ON v.memory_id = s.memory_id AND v.version = s.version
                      AND v.embedding IS NOT NULL AND v.content_sha256 = s.content_sha256)
                      AS staged""",
            ).fetchone()
        if row is None:
            raise StoreError("the store did not answer how many vectors it holds")
        return Progress(staged=int(row["staged"]), total=int(row["total"]))

    def switch(self, embed: Embed, *, actor: str) -> Switched:
        with self._store.transaction() as tx, self._store._read() as conn:
            meta = self._meta(conn)
            target, dim = meta.get(TARGET_KEY), int(meta.get(DIM_KEY) or 0)
            if target is None:
                raise StoreError("no reembed is under way in this store; nothing was changed")
            late = self._late(conn, embed)
            kept = self._set_aside(conn, dim, int(meta["dim"]))
            memories = self._run(
                conn,
                f"""UPDATE memories SET embedding = s.embedding FROM {TABLE} s
                    WHERE s.memory_id = memories.id AND s.version = 0""",
            ).rowcount
            versions = self._run(
                conn,
                f"""UPDATE memory_versions SET embedding = s.embedding FROM {TABLE} s
                    WHERE s.memory_id = memory_versions.memory_id
                    AND s.version = memory_versions.version
                    AND memory_versions.embedding IS NOT NULL""",
            ).rowcount
            self._check_all_replaced(conn, memories, versions, dim)
            contexts = self._rebuild_contexts(conn)
            self._put_back(conn, kept, dim)
            self._run(conn, f"DROP TABLE {TABLE}")
            self._run(
                conn,
                "UPDATE lethe_meta SET value = CASE key WHEN 'embedder' THEN ? ELSE ? END "
                "WHERE key IN ('embedder', 'dim')",
                (target, str(dim)),
            )
            self._run(conn, "DELETE FROM lethe_meta WHERE key IN (?, ?)", (TARGET_KEY, DIM_KEY))
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
        self._switched()
        return Switched(memories=memories, versions=versions, contexts=contexts, late=late)

    def abandon(self) -> None:
        with self._store.transaction(), self._store._read() as conn:
            self._run(conn, f"DROP TABLE IF EXISTS {TABLE}")
            self._run(conn, "DELETE FROM lethe_meta WHERE key IN (?, ?)", (TARGET_KEY, DIM_KEY))

    # -- the hooks of each store ----------------------------------------------------------

    def _set_aside(self, conn: Any, dim: int, old_dim: int) -> Any:
        """Make room for vectors of `dim` before the swap; what to put back after."""
        return None

    def _put_back(self, conn: Any, kept: Any, dim: int) -> None:
        """After the swap and the contexts: check them, and restore what was set aside
        (nothing, unless the store set something aside)."""
        return None

    def _wrong_size(self, conn: Any, dim: int) -> int | None:
        """Memory vectors not of `dim` (None: the column's type checks them)."""
        return None

    @abstractmethod
    def _rebuild_contexts(self, conn: Any) -> int:
        """Build every conversation's context again from the new vectors; how many."""

    def _switched(self) -> None:
        """After the switch committed (nothing, unless the store caches vectors)."""
        return None

    # -- steps ----------------------------------------------------------------------------

    def _unstaged(
        self, conn: Any, after: tuple[int, str, int] | None, limit: int
    ) -> list[Unstaged]:
        out: list[Unstaged] = []
        phase, key, n = after or (0, "", -1)
        if phase == 0:
            for r in self._run(conn, _MEMORIES, (n, limit)).fetchall():
                out.append(
                    Unstaged(r["id"], 0, r["content"], r["content_sha256"], (0, "", int(r["num"])))
                )
            key, n = "", -1
        if len(out) < limit:
            for r in self._run(conn, _VERSIONS, (key, n, limit - len(out))).fetchall():
                memory_id, version = r["memory_id"], int(r["version"])
                out.append(
                    Unstaged(
                        memory_id,
                        version,
                        r["content"],
                        r["content_sha256"],
                        (1, memory_id, version),
                    )
                )
        return out

    def _put(self, conn: Any, rows: Sequence[Unstaged], vectors: F32) -> None:
        self._d.run_many(
            conn,
            f"""INSERT INTO {TABLE} (memory_id, version, content_sha256, embedding)
                VALUES (?, ?, ?, ?)
                ON CONFLICT (memory_id, version) DO UPDATE
                SET content_sha256 = excluded.content_sha256, embedding = excluded.embedding""",
            [
                (r.memory_id, r.version, r.content_sha256, self._d.vector(v))
                for r, v in zip(rows, vectors, strict=True)
            ],
        )

    def _late(self, conn: Any, embed: Embed) -> int:
        """Embed, inside the switch, what was written since the last batch."""
        late = 0
        after: tuple[int, str, int] | None = None
        while rows := self._unstaged(conn, after, 256):
            self._put(conn, rows, embed([r.content for r in rows]))
            late += len(rows)
            after = rows[-1].after
        return late

    def _check_all_replaced(self, conn: Any, memories: int, versions: int, dim: int) -> None:
        """Refuse to commit a store with a vector of the old model left in it."""
        row = self._run(
            conn,
            """SELECT (SELECT count(*) FROM memories) AS have,
               (SELECT count(*) FROM memory_versions WHERE embedding IS NOT NULL) AS kept""",
        ).fetchone()
        have, kept = int(row["have"]), int(row["kept"])
        wrong = self._wrong_size(conn, dim)
        if memories != have or versions != kept or wrong:
            sizes = "" if wrong is None else f" ({wrong} of the wrong size)"
            raise StoreError(
                f"the reembed replaced {memories} of {have} memory vectors and {versions} of "
                f"{kept} earlier states'{sizes}; nothing was changed",
                hint="run `lethe reembed` again",
            )
