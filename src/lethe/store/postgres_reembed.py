"""`lethe reembed` on PostgreSQL (store/reembed_base.py says how it goes).

Staged vectors are kept in a `vector` column without a dimension, which pgvector allows when
nothing indexes it. The store's own vector columns have a fixed one (`vector(384)`: the HNSW
indexes need it), so a move to a model of another dimension changes their type inside the
switch: the indexes and the triggers that name those columns are set aside (PostgreSQL
refuses to retype a column a trigger lists), the columns become dimensionless, every vector is
replaced and the contexts remade, then the columns take the new dimension — which checks
every row — and the indexes and triggers come back as they were. All of it is one
transaction: any failure leaves the store on its old model, untouched.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from lethe.errors import NotALetheDatabase, StoreError
from lethe.store.postgres_context import rebuild as rebuild_contexts
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

if TYPE_CHECKING:
    from lethe.store.postgres import PostgresStore

_CREATE = f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    memory_id      TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    version        INTEGER NOT NULL,
    content_sha256 TEXT NOT NULL,
    embedding      vector NOT NULL,
    PRIMARY KEY (memory_id, version)
)"""
_MEMORIES = f"""SELECT m.num, m.id, m.content, m.content_sha256 FROM memories m
    LEFT JOIN {TABLE} s ON s.memory_id = m.id AND s.version = 0
    WHERE m.num > %s AND (s.memory_id IS NULL OR s.content_sha256 != m.content_sha256)
    ORDER BY m.num LIMIT %s"""
_VERSIONS = f"""SELECT v.memory_id, v.version, v.content, v.content_sha256 FROM memory_versions v
    LEFT JOIN {TABLE} s ON s.memory_id = v.memory_id AND s.version = v.version
    WHERE v.embedding IS NOT NULL AND (v.memory_id, v.version) > (%s, %s)
    AND (s.memory_id IS NULL OR s.content_sha256 != v.content_sha256)
    ORDER BY v.memory_id, v.version LIMIT %s"""
_VECTOR_TABLES = ["memories", "memory_versions", "memory_context"]


def recorded_model(dsn: str, timeout_s: float) -> tuple[str, int]:
    """The model and dimension the database records, read without preparing it as a store."""
    from lethe.store.postgres_open import connect, describe

    conn = connect(dsn, timeout_s=timeout_s)
    try:
        found = conn.execute("SELECT to_regclass('lethe_meta') IS NOT NULL").fetchone()
        if not (found and found[0]):
            raise NotALetheDatabase(f"{describe(dsn)} holds no lethe store")
        meta = dict(conn.execute("SELECT key, value FROM lethe_meta").fetchall())
    finally:
        conn.close()
    if meta.get("application") != "lethe" or "embedder" not in meta:
        raise NotALetheDatabase(f"{describe(dsn)} is not a lethe database")
    return str(meta["embedder"]), int(meta.get("dim", 0))


class PostgresReembedding:
    def __init__(self, store: PostgresStore) -> None:
        self._store = store

    def recorded(self) -> tuple[str, int, str | None, int | None]:
        with self._store._read() as conn:
            rows = conn.execute("SELECT key, value FROM lethe_meta").fetchall()
        meta = {r["key"]: r["value"] for r in rows}
        dim = meta.get(DIM_KEY)
        return meta["embedder"], int(meta["dim"]), meta.get(TARGET_KEY), int(dim) if dim else None

    def begin(self, target: str, dim: int) -> None:
        with self._store.transaction(), self._store._read() as conn:
            row = conn.execute(
                "SELECT value FROM lethe_meta WHERE key = %s", (TARGET_KEY,)
            ).fetchone()
            if row is not None and row["value"] != target:
                conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
            conn.execute(_CREATE)
            for key, value in ((TARGET_KEY, target), (DIM_KEY, str(dim))):
                conn.execute(
                    "INSERT INTO lethe_meta (key, value) VALUES (%s, %s) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )

    def unstaged(self, after: tuple[int, str, int] | None, limit: int) -> list[Unstaged]:
        with self._store._read() as conn:
            return _unstaged(conn, after, limit)

    def stage(self, rows: Sequence[Unstaged], vectors: F32) -> None:
        with self._store.transaction(), self._store._read() as conn:
            _put(conn, rows, vectors)

    def progress(self) -> Progress:
        with self._store._read() as conn:
            row = conn.execute(
                f"""SELECT (SELECT count(*) FROM memories)
                      + (SELECT count(*) FROM memory_versions WHERE embedding IS NOT NULL)
                      AS total,
                    (SELECT count(*) FROM {TABLE} s JOIN memories m
                      ON m.id = s.memory_id AND s.version = 0
                      AND m.content_sha256 = s.content_sha256)
                    + (SELECT count(*) FROM {TABLE} s JOIN memory_versions v
                      ON v.memory_id = s.memory_id AND v.version = s.version
                      AND v.embedding IS NOT NULL AND v.content_sha256 = s.content_sha256)
                      AS staged"""
            ).fetchone()
        if row is None:
            raise StoreError("the store did not answer how many vectors it holds")
        return Progress(staged=int(row["staged"]), total=int(row["total"]))

    def switch(self, embed: Embed, *, actor: str) -> Switched:
        with self._store.transaction() as tx, self._store._read() as conn:
            meta = {r["key"]: r["value"] for r in conn.execute("SELECT key, value FROM lethe_meta")}
            target, dim = meta.get(TARGET_KEY), int(meta.get(DIM_KEY) or 0)
            if target is None:
                raise StoreError("no reembed is under way in this store; nothing was changed")
            late = _late(conn, embed)
            retype = dim != int(meta["dim"])
            kept = _set_aside(conn) if retype else None
            if kept is not None:
                _retype(conn, None)
                _restore(conn, kept, indexes=False)
            memories = conn.execute(
                f"""UPDATE memories m SET embedding = s.embedding FROM {TABLE} s
                    WHERE s.memory_id = m.id AND s.version = 0"""
            ).rowcount
            versions = conn.execute(
                f"""UPDATE memory_versions v SET embedding = s.embedding FROM {TABLE} s
                    WHERE s.memory_id = v.memory_id AND s.version = v.version
                    AND v.embedding IS NOT NULL"""
            ).rowcount
            _check_all_replaced(conn, memories, versions)
            contexts = rebuild_contexts(conn)
            if kept is not None:
                _drop_triggers(conn, kept[0])
                _retype(conn, dim)
                _restore(conn, kept, indexes=True)
            conn.execute(f"DROP TABLE {TABLE}")
            conn.execute(
                "UPDATE lethe_meta SET value = CASE key WHEN 'embedder' THEN %s ELSE %s END "
                "WHERE key IN ('embedder', 'dim')",
                (target, str(dim)),
            )
            conn.execute("DELETE FROM lethe_meta WHERE key IN (%s, %s)", (TARGET_KEY, DIM_KEY))
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
        return Switched(memories=memories, versions=versions, contexts=contexts, late=late)

    def abandon(self) -> None:
        with self._store.transaction(), self._store._read() as conn:
            conn.execute(f"DROP TABLE IF EXISTS {TABLE}")
            conn.execute("DELETE FROM lethe_meta WHERE key IN (%s, %s)", (TARGET_KEY, DIM_KEY))


def _unstaged(conn: Any, after: tuple[int, str, int] | None, limit: int) -> list[Unstaged]:
    out: list[Unstaged] = []
    phase, key, n = after or (0, "", -1)
    if phase == 0:
        for r in conn.execute(_MEMORIES, (n, limit)).fetchall():
            out.append(
                Unstaged(r["id"], 0, r["content"], r["content_sha256"], (0, "", int(r["num"])))
            )
        key, n = "", -1
    if len(out) < limit:
        for r in conn.execute(_VERSIONS, (key, n, limit - len(out))).fetchall():
            memory_id, version = r["memory_id"], int(r["version"])
            out.append(
                Unstaged(
                    memory_id, version, r["content"], r["content_sha256"], (1, memory_id, version)
                )
            )
    return out


def _put(conn: Any, rows: Sequence[Unstaged], vectors: F32) -> None:
    with conn.cursor() as cur:
        cur.executemany(
            f"""INSERT INTO {TABLE} (memory_id, version, content_sha256, embedding)
                VALUES (%s, %s, %s, %s)
                ON CONFLICT (memory_id, version) DO UPDATE
                SET content_sha256 = excluded.content_sha256, embedding = excluded.embedding""",
            [
                (r.memory_id, r.version, r.content_sha256, v.astype("float32"))
                for r, v in zip(rows, vectors, strict=True)
            ],
        )


def _late(conn: Any, embed: Embed) -> int:
    """Embed, inside the switch, what was written since the last batch."""
    late = 0
    after: tuple[int, str, int] | None = None
    while rows := _unstaged(conn, after, 256):
        _put(conn, rows, embed([r.content for r in rows]))
        late += len(rows)
        after = rows[-1].after
    return late


_Kept = tuple[list[tuple[str, str, str]], list[tuple[str, str]]]


def _set_aside(conn: Any) -> _Kept:
    """Drop the triggers on the vector tables and the indexes over their vectors, returning
    their definitions to make them again."""
    triggers = [
        (r["tgname"], r["relname"], r["def"])
        for r in conn.execute(
            """SELECT t.tgname, c.relname, pg_get_triggerdef(t.oid) AS def
               FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
               WHERE NOT t.tgisinternal AND c.oid = ANY(
                   SELECT to_regclass(x) FROM unnest(%s::text[]) AS x)
               ORDER BY c.relname, t.tgname""",
            (_VECTOR_TABLES,),
        )
    ]
    indexes = [
        (r["indexname"], r["indexdef"])
        for r in conn.execute(
            """SELECT indexname, indexdef FROM pg_indexes
               WHERE schemaname = current_schema() AND tablename = ANY(%s::text[])
               AND indexdef LIKE %s ORDER BY indexname""",
            (_VECTOR_TABLES, "%(embedding%"),
        )
    ]
    _drop_triggers(conn, triggers)
    for name, _ in indexes:
        conn.execute(f'DROP INDEX "{name}"')
    return triggers, indexes


def _drop_triggers(conn: Any, triggers: list[tuple[str, str, str]]) -> None:
    for name, table, _ in triggers:
        conn.execute(f'DROP TRIGGER "{name}" ON "{table}"')


def _restore(conn: Any, kept: _Kept, *, indexes: bool) -> None:
    for _, _, definition in kept[0]:
        conn.execute(definition)
    if indexes:
        for _, definition in kept[1]:
            conn.execute(definition)


def _retype(conn: Any, dim: int | None) -> None:
    """The vector columns without a dimension (None), or with `dim` (checking every row)."""
    kind = "vector" if dim is None else f"vector({int(dim)})"
    for table in _VECTOR_TABLES:
        conn.execute(
            f"ALTER TABLE {table} ALTER COLUMN embedding TYPE {kind} USING embedding::{kind}"
        )


def _check_all_replaced(conn: Any, memories: int, versions: int) -> None:
    row = conn.execute(
        """SELECT (SELECT count(*) FROM memories) AS have,
           (SELECT count(*) FROM memory_versions WHERE embedding IS NOT NULL) AS kept"""
    ).fetchone()
    if memories != row["have"] or versions != row["kept"]:
        raise StoreError(
            f"the reembed replaced {memories} of {row['have']} memory vectors and {versions} "
            f"of {row['kept']} earlier states'; nothing was changed",
            hint="run `lethe reembed` again",
        )
