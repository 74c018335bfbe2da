"""How many memories hold each word, for the PostgreSQL store's full-text side.

The SQLite store reads exact document frequencies from FTS5's vocabulary and searches only
the words that fit the postings budget (`lexical.select_terms`): ranking every memory that
holds "user" costs far more than it adds. PostgreSQL keeps no per-word counts, but ANALYZE
(run by autovacuum) records the most common lexemes of a `tsvector` column with their
frequencies — the numbers its planner uses. A word missing from that list is rarer than
every word on it, so it is counted as rare. A table never analysed has no list; it is small
or new, and every word is searched, as before.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from lethe.store.lexical import select_terms

if TYPE_CHECKING:
    import psycopg

STATS_TTL_S = 60.0
"""How long one read of the statistics is used; ANALYZE itself runs far less often."""

_STATS_SQL = """
    SELECT s.most_common_elems::text::text[] AS words, s.most_common_elem_freqs AS freqs,
           c.reltuples AS rows
    FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename
        AND c.relnamespace = to_regnamespace(s.schemaname)
    WHERE s.schemaname = current_schema() AND s.tablename = 'memories' AND s.attname = %s
"""


class TermStats:
    """Estimated memories per word, read from the planner's statistics and kept a while."""

    def __init__(self, column: str = "search") -> None:
        """`column`: the memories' `tsvector` column (`search` for words, `grams`)."""
        self._column = column
        self._lock = threading.Lock()
        self._counts: dict[str, int] = {}
        self._read_at = -STATS_TTL_S

    def _load(self, conn: psycopg.Connection[Any]) -> dict[str, int]:
        with self._lock:
            if time.monotonic() - self._read_at < STATS_TTL_S:
                return self._counts
        row = conn.execute(_STATS_SQL.encode(), (self._column,)).fetchone()
        counts: dict[str, int] = {}
        if row is not None and row["words"]:
            rows = max(float(row["rows"]), 0.0)
            # The frequencies list ends with three summary numbers; zip stops at the words.
            counts = {w: int(f * rows) for w, f in zip(row["words"], row["freqs"], strict=False)}
        with self._lock:
            self._counts, self._read_at = counts, time.monotonic()
        return counts

    def searchable(
        self, conn: psycopg.Connection[Any], tokens: list[str], budget: int
    ) -> list[str]:
        """The query's words worth ranking: rarest first, within the postings budget."""
        counts = self._load(conn)
        return select_terms({t: max(1, counts.get(t, 1)) for t in tokens}, budget)
