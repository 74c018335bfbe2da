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

from typing import TYPE_CHECKING, Any

from lethe.errors import NotALetheDatabase
from lethe.store.postgres_context import rebuild as rebuild_contexts
from lethe.store.reembed_base import model_in
from lethe.store.sql_reembed import SqlReembedding, staging_table

if TYPE_CHECKING:
    from lethe.store.postgres import PostgresStore

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
    return model_in(meta, describe(dsn))


class PostgresReembedding(SqlReembedding):
    create = staging_table("vector")

    def __init__(self, store: PostgresStore) -> None:
        super().__init__(store)

    def _set_aside(self, conn: Any, dim: int, old_dim: int) -> Any:
        if dim == old_dim:
            return None
        kept = _set_aside(conn)
        _retype(conn, None)
        _restore(conn, kept, indexes=False)
        return kept

    def _put_back(self, conn: Any, kept: Any, dim: int) -> None:
        if kept is not None:
            _drop_triggers(conn, kept[0])
            _retype(conn, dim)
            _restore(conn, kept, indexes=True)

    def _rebuild_contexts(self, conn: Any) -> int:
        return rebuild_contexts(conn)


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
