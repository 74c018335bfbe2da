"""Stores made by an earlier lethe open, migrate and keep every memory (issue 46).

The files in fixtures/ were written by the store code before its two migration histories
became one list (fixtures/make_fixtures.py says how): SQLite files at schema 1, 12 and the
latest then, and PostgreSQL dumps at schema 6 and the latest then. Each is opened by today's
store, which must bring it to its latest schema and hold every memory as it was.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import psycopg
import pytest

from lethe.common.filters import Filters
from tests.store.fixtures.make_fixtures import DIM, FORGOTTEN, MEMORIES, MODEL, UPDATED

HERE = Path(__file__).parent / "fixtures"
SQLITE_FILES = ["sqlite_v1.db", "sqlite_v12.db", "sqlite_v20.db"]
POSTGRES_DUMPS = ["postgres_v6.sql", "postgres_v13.sql"]
THROUGH_THE_STORE = {"sqlite_v20.db", "postgres_v13.sql"}
"""Written through the store: they hold an earlier version and a link as well."""


def check(store: Any, name: str) -> None:
    live = [m for m in MEMORIES if m[0] != FORGOTTEN]
    assert store.memory_ids() == [m[0] for m in live]
    trash, total = store.trash("default", limit=10, offset=0)
    assert total == 1 and trash[0].id == FORGOTTEN
    updated = name in THROUGH_THE_STORE
    for memory_id, content, tags, meta in MEMORIES:
        memory = store.get(memory_id)
        assert memory is not None
        if updated and memory_id == UPDATED[0]:
            assert memory.content == UPDATED[1]
            assert [v.content for v in store.versions(memory_id)] == [UPDATED[1], content]
        else:
            assert memory.content == content
        assert list(memory.tags) == tags
        assert memory.metadata == meta
        vector = store.vector_of(memory_id)
        assert vector is not None and len(vector) == DIM
    if updated:
        assert [(x.a, x.b) for x in store.links_of(MEMORIES[0][0])] == [
            (MEMORIES[0][0], MEMORIES[1][0])
        ]
    everywhere = Filters(namespace="default")
    assert store.lexical_search("peanuts", everywhere, 5) == [MEMORIES[1][0]]
    assert store.lexical_search("東京", everywhere, 5) == [MEMORIES[2][0]]
    assert (
        store.vector_search(store.vector_of(MEMORIES[0][0]), everywhere, 1)[0][0]
        == (MEMORIES[0][0])
    )


@pytest.mark.parametrize("name", SQLITE_FILES)
def test_an_earlier_sqlite_file_opens_migrates_and_keeps_every_memory(
    name: str, tmp_path: Path
) -> None:
    from lethe.store.sqlite import SQLiteStore
    from lethe.store.sqlite_schema import LATEST_VERSION

    path = tmp_path / name
    shutil.copyfile(HERE / name, path)
    store = SQLiteStore(path, embedder=MODEL, dim=DIM)
    try:
        assert store.schema_version == LATEST_VERSION
        check(store, name)
    finally:
        store.close()
    again = SQLiteStore(path, embedder=MODEL, dim=DIM)  # and opens again, migrated
    try:
        check(again, name)
    finally:
        again.close()


@pytest.mark.parametrize("name", POSTGRES_DUMPS)
def test_an_earlier_postgres_dump_opens_migrates_and_keeps_every_memory(
    name: str, pg_dsn: str
) -> None:
    from lethe.store.postgres import PostgresStore
    from lethe.store.postgres_schema import LATEST_VERSION

    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute((HERE / name).read_text().encode())
    store = PostgresStore(pg_dsn, embedder=MODEL, dim=DIM)
    try:
        assert store.schema_version == LATEST_VERSION
        check(store, name)
    finally:
        store.close()
