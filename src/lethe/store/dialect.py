"""What really differs between the two SQL stores, held in one small object per engine.

The shared statements (`sql_tx.py`, `sql_reads.py`, the versions, context and past reads) are
written once, in SQLite's terms with `?` for a parameter; a dialect runs them on its
connection. Everything else that differs is a named piece here: how a vector travels, a list
parameter, a text search for a needle, whether a table exists, a memory's columns (its tags
and metadata as JSON text), the expression of a day, and the export order of relation rows.
Full-text, vector and gram search, and what erasure compacts, stay with each store: they are
different machinery, not different spellings.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from lethe.store.rows import MEMORY_COLUMNS as SQLITE_MEMORY_COLUMNS

POSTGRES_TAGS = """(SELECT coalesce(json_agg(t.tag ORDER BY t.position), '[]'::json)::text
    FROM memory_tags t WHERE t.memory_id = m.id)"""
SQLITE_TAGS = """(SELECT json_group_array(tag) FROM
    (SELECT t.tag FROM memory_tags t WHERE t.memory_id = m.id ORDER BY t.rowid))"""

POSTGRES_MEMORY_COLUMNS = """m.id, m.namespace, m.agent, m.content, m.content_sha256, m.layer,
    m.category, m.metadata::text AS metadata, m.importance, m.private, m.created_at,
    m.updated_at, m.last_accessed_at, m.access_count, m.status, m.forgotten_at,
    m.forgotten_by, m.forget_reason, m.version, m.expires_at, m.expiry_set_by,
    m.expiry_set_at, m.expiry_held,
    (SELECT coalesce(json_agg(t.tag ORDER BY t.position), '[]'::json)::text
       FROM memory_tags t WHERE t.memory_id = m.id) AS tags"""


class Dialect:
    """SQLite's spelling; `PostgresDialect` overrides what PostgreSQL spells otherwise."""

    name = "sqlite"
    mark = "?"
    memory_columns = SQLITE_MEMORY_COLUMNS
    tags = SQLITE_TAGS
    metadata = "m.metadata"
    export_order: ClassVar[dict[str, str]] = {"links": "rowid", "episodes": "rowid"}
    now = "strftime('%s', 'now')"
    """The time now, in epoch seconds."""

    def run(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        """Run one statement written with `?` marks; returns the cursor."""
        return conn.execute(sql, params)

    def run_many(self, conn: Any, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        conn.executemany(sql, rows)

    def vector(self, vector: Any) -> Any:
        """A vector as its column takes it (a float32 BLOB here)."""
        return np.asarray(vector, dtype="<f4").tobytes()

    def text(self, column: str) -> str:
        """A JSON column as its text."""
        return column

    def read_vector(self, value: Any) -> Any:
        """A vector column's value as a float32 array of its own."""
        return np.frombuffer(value, dtype="<f4").copy()

    def any_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """`column` is one of `values` (not empty), with its parameters."""
        return f"{column} IN ({', '.join('?' for _ in values)})", list(values)

    def holds(self, column: str, needle: str = "?") -> str:
        """`column`'s text holds `needle` (the next parameter)."""
        return f"instr({column}, {needle}) > 0"

    def day(self, column: str) -> str:
        """The UTC day (YYYY-MM-DD) of an epoch-seconds column."""
        return f"date({column}, 'unixepoch')"

    def indexed_by(self, index: str) -> str:
        """A hint naming the index a scan must take (SQLite's planner needs it)."""
        return f"INDEXED BY {index}"

    def prefix_scan(self, prefixes: Sequence[str]) -> tuple[str, Any, str]:
        """Ids that start with one of `prefixes` and have the status of the second parameter
        (the first is the returned prefixes' value), and the namespace column to narrow by.

        A prefix of hex digits is the range [prefix, prefix + "g") of the id index ("g"
        follows every hex digit). The unary + keeps the planner on that index."""
        sql = (
            "SELECT m.id FROM json_each(?) AS p CROSS JOIN memories AS m "
            "ON m.id >= p.value AND m.id < p.value || 'g' WHERE +m.status = ?"
        )
        return sql, json.dumps(list(prefixes)), "+m.namespace"

    def has_table(self, conn: Any, name: str) -> bool:
        found = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).fetchone()
        return found is not None


@lru_cache(maxsize=1024)
def _postgres_sql(sql: str) -> bytes:
    return sql.replace("%", "%%").replace("?", "%s").encode()


class PostgresDialect(Dialect):
    name = "postgres"
    mark = "%s"
    memory_columns = POSTGRES_MEMORY_COLUMNS
    tags = POSTGRES_TAGS
    metadata = "m.metadata::text"
    export_order: ClassVar[dict[str, str]] = {
        "links": "created_at, a, b, kind",
        "episodes": "created_at, id",
    }
    now = "extract(epoch from now())"

    def run(self, conn: Any, sql: str, params: Sequence[Any] = ()) -> Any:
        return conn.execute(_postgres_sql(sql), params)

    def run_many(self, conn: Any, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        conn.cursor().executemany(_postgres_sql(sql), rows)

    def vector(self, vector: Any) -> Any:
        return np.asarray(vector, dtype=np.float32)

    def text(self, column: str) -> str:
        return f"{column}::text"

    def read_vector(self, value: Any) -> Any:
        to_numpy = getattr(value, "to_numpy", None)
        array = to_numpy() if callable(to_numpy) else value
        return np.asarray(array, dtype=np.float32).copy()

    def any_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{column} = ANY(?)", [list(values)]

    def holds(self, column: str, needle: str = "?") -> str:
        return f"strpos({column}, {needle}) > 0"

    def day(self, column: str) -> str:
        return f"to_char(to_timestamp({column}) AT TIME ZONE 'UTC', 'YYYY-MM-DD')"

    def indexed_by(self, index: str) -> str:
        return ""

    def prefix_scan(self, prefixes: Sequence[str]) -> tuple[str, Any, str]:
        # The range [prefix, prefix || 'g') of the primary key, read in its order (so the
        # planner walks that index, whatever the table's size) up to a bound far above what a
        # prefix of six hex digits holds.
        sql = (
            "SELECT m.id FROM unnest(?::text[]) AS p(prefix) CROSS JOIN LATERAL ("
            "SELECT id, status, namespace FROM memories WHERE id >= p.prefix "
            "AND id < p.prefix || 'g' ORDER BY id LIMIT 10000) AS m "
            "WHERE left(m.id, length(p.prefix)) = p.prefix AND m.status = ?"
        )
        return sql, list(prefixes), "m.namespace"

    def has_table(self, conn: Any, name: str) -> bool:
        found = conn.execute("SELECT to_regclass(%s) IS NOT NULL AS found", (name,)).fetchone()
        return bool(found and (found["found"] if isinstance(found, dict) else found[0]))


class Connected(ABC):
    """What the shared parts of a store (`sql_reads`, `sql_owed`, `sql_receipts`) need of it:
    its dialect, a connection to read on, and a small write of its own."""

    _dialect: Dialect

    @abstractmethod
    def _read(self) -> AbstractContextManager[Any]:
        """SQLite's one connection under the store's lock; on PostgreSQL the transaction's
        connection inside one on this thread, else one of the pool."""

    @abstractmethod
    def _small_write(self) -> AbstractContextManager[Any]:
        """A write outside the engine's transactions (owed work, receipts, meta marks)."""


SQLITE = Dialect()
POSTGRES = PostgresDialect()
