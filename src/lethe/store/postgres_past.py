"""What the PostgreSQL store reads of the past: the states live memories had at a given
moment, for recall and get `as_of` (see `sqlite_past.py` for the rule). Kept apart from
`postgres.py`, which `PostgresStore` mixes this in."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from lethe.store.lexical import query_tokens
from lethe.store.rows import ts
from lethe.store.vectors import Vector

if TYPE_CHECKING:
    import psycopg


class _Reads(Protocol):
    def _read(self) -> AbstractContextManager[psycopg.Connection[dict[str, Any]]]: ...


_VECTOR_AT = """
(SELECT m.id AS memory_id, NULL::integer AS version, 1 - (m.embedding <=> %(q)s) AS similarity
 FROM memories m
 WHERE m.namespace = %(ns)s AND m.status = 'active' AND m.updated_at <= %(at)s
 ORDER BY m.embedding <=> %(q)s LIMIT %(n)s)
UNION ALL
(SELECT v.memory_id, v.version, 1 - (v.embedding <=> %(q)s) AS similarity
 FROM memory_versions v JOIN memories m ON m.id = v.memory_id
 WHERE m.namespace = %(ns)s AND m.status = 'active' AND v.embedding IS NOT NULL
   AND v.valid_from <= %(at)s AND v.valid_until > %(at)s
 ORDER BY v.embedding <=> %(q)s LIMIT %(n)s)
ORDER BY similarity DESC LIMIT %(n)s"""

_LEXICAL_AT = """
SELECT memory_id, version FROM (
  (SELECT m.id AS memory_id, NULL::integer AS version, ts_rank_cd(m.search, q) AS rank
   FROM memories m, to_tsquery('simple', %(words)s) q
   WHERE m.search @@ q AND m.namespace = %(ns)s AND m.status = 'active'
     AND m.updated_at <= %(at)s
   ORDER BY rank DESC LIMIT %(n)s)
  UNION ALL
  (SELECT v.memory_id, v.version, ts_rank_cd(to_tsvector('simple', v.content), q) AS rank
   FROM memory_versions v JOIN memories m ON m.id = v.memory_id,
        to_tsquery('simple', %(words)s) q
   WHERE to_tsvector('simple', v.content) @@ q AND m.namespace = %(ns)s
     AND m.status = 'active' AND v.valid_from <= %(at)s AND v.valid_until > %(at)s
   ORDER BY rank DESC LIMIT %(n)s)
) found ORDER BY rank DESC LIMIT %(n)s"""


class PostgresPastReads:
    def search_at(
        self: _Reads, query: Vector, text: str, namespace: str, at: datetime, n: int
    ) -> tuple[list[tuple[str, int | None, float]], list[tuple[str, int | None]]]:
        """Both sides of a recall among the states live memories of the namespace had at
        `at`: the top-n (memory id, version or None for the current state, cosine), and up to
        n full-text matches, best first (ts_rank_cd)."""
        from lethe.store.postgres import _ts_word, ef_search

        params = {"q": np.asarray(query, dtype=np.float32), "ns": namespace, "at": ts(at), "n": n}
        with self._read() as conn, conn.transaction():
            conn.execute(f"SET LOCAL hnsw.ef_search = {ef_search(n)}")
            rows = conn.execute(_VECTOR_AT.encode(), params).fetchall()
            tokens = query_tokens(text)
            found = (
                conn.execute(
                    _LEXICAL_AT.encode(),
                    {**params, "words": " | ".join(_ts_word(t) for t in tokens)},
                ).fetchall()
                if tokens
                else []
            )
        vector_hits = [(r["memory_id"], r["version"], float(r["similarity"])) for r in rows]
        return vector_hits, [(r["memory_id"], r["version"]) for r in found]

    def similarities_at(
        self: _Reads, query: Vector, keys: Sequence[tuple[str, int | None]]
    ) -> dict[tuple[str, int | None], float]:
        """The cosine to the query of each of these states (current or earlier)."""
        if not keys:
            return {}
        vector = np.asarray(query, dtype=np.float32)
        current = [i for i, v in keys if v is None]
        earlier = [(i, v) for i, v in keys if v is not None]
        found: dict[tuple[str, int | None], float] = {}
        with self._read() as conn:
            for row in conn.execute(
                """SELECT id, 1 - (embedding <=> %s) AS similarity FROM memories
                   WHERE id = ANY(%s) AND status = 'active'""",
                (vector, current),
            ).fetchall():
                found[(row["id"], None)] = float(row["similarity"])
            for row in conn.execute(
                """SELECT v.memory_id, v.version, 1 - (v.embedding <=> %s) AS similarity
                   FROM memory_versions v
                   JOIN unnest(%s::text[], %s::integer[]) AS k(kid, kversion)
                     ON k.kid = v.memory_id AND k.kversion = v.version
                   WHERE v.embedding IS NOT NULL""",
                (vector, [i for i, _ in earlier], [v for _, v in earlier]),
            ).fetchall():
                found[(row["memory_id"], row["version"])] = float(row["similarity"])
        return found
