"""The SQLite side of the gram index (`grams.py`): the function its triggers call, and the
backfill that indexes the rows written before the index existed (migration 18)."""

from __future__ import annotations

import sqlite3

from lethe.common.progress import ProgressBar, no_progress
from lethe.store.grams import index_text

BATCH = 2000


def register(conn: sqlite3.Connection) -> None:
    """Give a connection the function the gram triggers call. A connection that stores or
    changes a text needs it: without it SQLite refuses the write ("no such function"), which
    keeps a tool that does not know lethe from leaving the index behind the rows. Deleting
    needs nothing: the grams a text was indexed with are kept beside the index."""
    conn.create_function("lethe_grams", 1, index_text, deterministic=True)


def backfill(conn: sqlite3.Connection, progress: ProgressBar | None = None) -> int:
    """Index every memory and context row already stored; inside the migration's
    transaction, so an interrupted backfill leaves the file at the version before. Returns
    how many rows held grams."""
    progress = progress or no_progress
    indexed = 0
    for table, index in (("memories", "memory_gram_text"), ("memory_context", "context_gram_text")):
        total = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        last = -1
        with progress(f"indexing {table.replace('_', ' ')} for CJK search", total) as advance:
            while True:
                rows = conn.execute(
                    f"SELECT num, content FROM {table} WHERE num > ? ORDER BY num LIMIT ?",
                    (last, BATCH),
                ).fetchall()
                if not rows:
                    break
                last = rows[-1][0]
                found = [(num, text) for num, text in ((n, index_text(c)) for n, c in rows) if text]
                conn.executemany(f"INSERT INTO {index} (num, grams) VALUES (?, ?)", found)
                indexed += len(found)
                advance(len(rows))
    return indexed
