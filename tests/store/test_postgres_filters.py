"""Filters mean the same on PostgreSQL as on SQLite: the same memories (copied row for row
from a SQLite store into a real PostgreSQL database of schema version 1) are selected by the
same filters, for every operator, field kind and metadata shape."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import psycopg
import pytest

from lethe import Filters, Lethe
from lethe.embed import Embedder
from lethe.store import postgres_filters, sqlite_filters
from lethe.store.postgres_open import connect, prepare
from tests.engine.test_lethe import _seeded

COLUMNS = [
    "id",
    "namespace",
    "agent",
    "content",
    "content_sha256",
    "layer",
    "category",
    "metadata",
    "importance",
    "private",
    "created_at",
    "updated_at",
    "last_accessed_at",
    "access_count",
    "status",
]

EXPRESSIONS = [
    '@metadata.date < "2024-01-01"',
    "@metadata.date <= 2024-02-01",
    '@metadata.date > "2024-02-01"',
    "@metadata.date >= 2024-02-01",
    "@metadata.topic = pricing",
    "metadata.topic != pricing",
    "@metadata.score > 5",
    "@metadata.score <= 3",
    "@metadata.score = 8",
    '@metadata.topic in ["sales", "ops"]',
    "@metadata.topic in sales,ops",
    "@metadata.score in 3,8",
    "@metadata.labels contains draft",
    "@metadata.labels contains current",
    "@metadata.sourcePath contains scripts/old",
    "@metadata.sourcePath = scripts/old/ep01.md",
    "@metadata.missing = null",
    "@metadata.missing != null",
    "@metadata.date = null",
    '@metadata.topic = pricing AND @metadata.date < "2024-01-01"',
    "importance >= 0.5",
    "importance < 0.5",
    "layer = caveat",
    "agent != alice",
    "agent in alice,carol",
    "category contains eet",
    "created_at < 2100-01-01",
    "created_at > 2100-01-01",
    "access_count = 0",
]


@pytest.fixture
def stores(
    tmp_path: Path, embedder: Embedder, pg_dsn: str
) -> tuple[sqlite3.Connection, psycopg.Connection[tuple[object, ...]], dict[str, str]]:
    db = tmp_path / "m.db"
    with Lethe.open(db, embedder=embedder) as mem:
        ids = _seeded(mem)
    lite = sqlite3.connect(db)
    pg = connect(pg_dsn, timeout_s=5)
    prepare(pg, pg_dsn, embedder=embedder.name, dim=embedder.dim)
    rows = lite.execute(f"SELECT {', '.join(COLUMNS)}, embedding FROM memories").fetchall()
    tags = lite.execute("SELECT memory_id, tag, rowid FROM memory_tags").fetchall()
    with pg.transaction():
        for row in rows:
            values = list(row[:-1])
            values[COLUMNS.index("private")] = bool(values[COLUMNS.index("private")])
            vector = np.frombuffer(row[-1], dtype="<f4")
            pg.execute(
                f"INSERT INTO memories ({', '.join(COLUMNS)}, embedding) "
                f"VALUES ({', '.join(['%s'] * len(COLUMNS))}, %s::vector)",
                [*values, "[" + ",".join(map(str, vector.tolist())) + "]"],
            )
        pg.cursor().executemany(
            "INSERT INTO memory_tags (memory_id, tag, position) VALUES (%s, %s, %s)", tags
        )
    yield lite, pg, ids
    lite.close()
    pg.close()


def _select_sqlite(conn: sqlite3.Connection, flt: Filters) -> set[str]:
    where, params = sqlite_filters.compile_filters(flt)
    return {r[0] for r in conn.execute(f"SELECT m.id FROM memories m WHERE {where}", params)}


def _select_pg(conn: psycopg.Connection[tuple[object, ...]], flt: Filters) -> set[str]:
    where, params = postgres_filters.compile_filters(flt)
    query = f"SELECT m.id FROM memories m WHERE {where}".encode()
    return {str(r[0]) for r in conn.execute(query, params).fetchall()}


def test_every_expression_selects_the_same_memories(
    stores: tuple[sqlite3.Connection, psycopg.Connection[tuple[object, ...]], dict[str, str]],
) -> None:
    lite, pg, ids = stores
    assert _select_pg(pg, Filters()) == set(ids.values())
    nonempty = 0
    for expression in EXPRESSIONS:
        flt = Filters().with_expressions([expression])
        expected = _select_sqlite(lite, flt)
        assert _select_pg(pg, flt) == expected, expression
        nonempty += bool(expected) and expected != set(ids.values())
    assert nonempty >= 15, "most expressions must select a proper, non-empty subset"


@pytest.mark.parametrize(
    "filters",
    [
        Filters(agent="alice"),
        Filters(layer="caveat"),
        Filters(category="work"),
        Filters(category=""),
        Filters(tags=("pricing",)),
        Filters(tags=("pricing", "ops"), tags_mode="all"),
        Filters(tags=("sales", "ops"), tags_mode="any"),
        Filters(since=datetime(2000, 1, 1, tzinfo=UTC)),
        Filters(until=datetime(2000, 1, 1, tzinfo=UTC)),
        Filters(not_accessed_since=datetime(2100, 1, 1, tzinfo=UTC)),
        Filters(namespace="elsewhere"),
    ],
    ids=lambda f: json.dumps(f.model_dump(mode="json", exclude_defaults=True)),
)
def test_structured_filters_select_the_same_memories(
    stores: tuple[sqlite3.Connection, psycopg.Connection[tuple[object, ...]], dict[str, str]],
    filters: Filters,
) -> None:
    lite, pg, _ = stores
    assert _select_pg(pg, filters) == _select_sqlite(lite, filters)
