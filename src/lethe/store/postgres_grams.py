"""The PostgreSQL side of the gram index (`grams.py`; the `grams` columns and the
`lethe_grams` function of migration 11): the backfill of rows stored before it, and the
search."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lethe.common.progress import ProgressBar, no_progress
from lethe.store.grams import gram_query
from lethe.store.lexical import POSTINGS_BUDGET

if TYPE_CHECKING:
    import psycopg

    from lethe.store.postgres_lexical import TermStats

BATCH = 2000


def backfill(conn: psycopg.Connection[Any], progress: ProgressBar | None = None) -> int:
    """Compute the grams of every memory and context row already stored, in batches inside
    the migration's transaction (an interrupted backfill leaves the schema as it was).
    Returns how many rows held grams."""
    progress = progress or no_progress
    indexed = 0
    for table, key in (("memories", "num"), ("memory_context", "memory_id")):
        total = _one(conn, f"SELECT count(*) FROM {table}", ())
        last: Any = None
        with progress(f"indexing {table.replace('_', ' ')} for CJK search", total) as advance:
            while True:
                after = "" if last is None else f"WHERE {key} > %s"
                keys = [
                    _first(r)
                    for r in conn.execute(
                        f"SELECT {key} FROM {table} {after} ORDER BY {key} LIMIT %s".encode(),
                        (BATCH,) if last is None else (last, BATCH),
                    ).fetchall()
                ]
                if not keys:
                    break
                last = keys[-1]
                indexed += _one(
                    conn,
                    f"""WITH done AS (UPDATE {table} SET grams = lethe_grams(content)
                                      WHERE {key} = ANY(%s) RETURNING grams IS NOT NULL AS held)
                        SELECT count(*) FROM done WHERE held""",
                    (keys,),
                )
                advance(len(keys))
    return indexed


def _first(row: Any) -> Any:
    """A row's first value, whether the connection gives tuples or dicts."""
    return next(iter(row.values())) if isinstance(row, dict) else row[0]


def _one(conn: psycopg.Connection[Any], sql: str, params: tuple[Any, ...]) -> int:
    row = conn.execute(sql.encode(), params).fetchone()
    return int(_first(row)) if row is not None else 0


def tsquery(terms: list[str]) -> str:
    """Any of the grams, as tsquery text cast without the parser (which would cut them
    differently): each quoted, so no text is query syntax."""
    return " | ".join("'" + t.replace("\\", "\\\\").replace("'", "''") + "'" for t in terms)


def search(
    conn: psycopg.Connection[Any],
    text: str,
    where: str,
    params: list[Any],
    n: int,
    *,
    stats: TermStats | None = None,
    context: bool = False,
) -> list[str]:
    """Memory ids whose text (or, `context`, whose conversational context) holds the query's
    grams (or, a query without CJK, its words), best first. `stats` picks the grams worth
    ranking within the postings budget, as for words."""
    tokens = gram_query(text)
    if stats is not None:
        tokens = stats.searchable(conn, tokens, POSTINGS_BUDGET)
    if not tokens:
        return []
    if context:
        sql = f"""SELECT c.memory_id AS id FROM memory_context c
                  JOIN memories m ON m.id = c.memory_id, CAST(%s AS tsquery) q
                  WHERE c.grams @@ q AND {where}
                  ORDER BY ts_rank_cd(c.grams, q) DESC, m.num LIMIT %s"""
    else:
        sql = f"""SELECT m.id AS id FROM memories m, CAST(%s AS tsquery) q
                  WHERE m.grams @@ q AND {where}
                  ORDER BY ts_rank_cd(m.grams, q) DESC, m.num LIMIT %s"""
    rows = conn.execute(sql.encode(), [tsquery(tokens), *params, n]).fetchall()
    return [r["id"] for r in rows]
