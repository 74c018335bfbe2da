"""`lethe reembed` on the SQLite file (store/reembed_base.py says how it goes).

The staging table is made on first use rather than by a migration: it exists only while a
reembed is under way, and the switch drops it. Vectors are BLOBs, so the columns do not
change with the dimension; the in-process index and its snapshot files beside the database are
what hold the old model after the switch, so the snapshot is deleted and every changed row is
in `vector_log` (its triggers), which any process replays.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lethe.errors import NotALetheDatabase, StoreError
from lethe.store.reembed_base import model_in
from lethe.store.sql_reembed import SqlReembedding, staging_table
from lethe.store.sqlite_context import rebuild as rebuild_contexts

if TYPE_CHECKING:
    from lethe.store.sqlite import SQLiteStore


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
    return model_in(meta, str(path))


class SQLiteReembedding(SqlReembedding):
    create = staging_table("BLOB", "WITHOUT ROWID")

    def __init__(self, store: SQLiteStore) -> None:
        super().__init__(store)
        self._sqlite = store

    def _wrong_size(self, conn: Any, dim: int) -> int | None:
        row = conn.execute(
            "SELECT count(*) FROM memories WHERE length(embedding) != ?", (4 * dim,)
        ).fetchone()
        return int(row[0])

    def _rebuild_contexts(self, conn: Any) -> int:
        return rebuild_contexts(conn)

    def _put_back(self, conn: Any, kept: Any, dim: int) -> None:
        wrong = conn.execute(
            "SELECT count(*) FROM memory_context WHERE length(embedding) != ?", (4 * dim,)
        ).fetchone()[0]
        if wrong:
            raise StoreError(f"{wrong} conversation contexts kept the old model's vectors")

    def _switched(self) -> None:
        self._sqlite.drop_vector_cache()
