"""The one list of migrations (store/migrations.py): SQLite's numbers as they always were, and
PostgreSQL's old numbers mapped onto the list once."""

from __future__ import annotations

import pytest

from lethe.store import migrations, postgres_schema, sqlite_schema
from lethe.store.migrations import (
    LATEST_VERSION,
    MIGRATIONS,
    ONE_LIST_KEY,
    POSTGRES_BEFORE_ONE_LIST,
    postgres_version,
)


def test_the_list_is_numbered_from_one_without_gaps_and_named() -> None:
    assert [m.version for m in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))
    assert len({m.name for m in MIGRATIONS}) == len(MIGRATIONS)
    assert sqlite_schema.LATEST_VERSION == postgres_schema.LATEST_VERSION == LATEST_VERSION


def test_every_version_changes_a_sqlite_file_as_its_number_always_did() -> None:
    """SQLite's numbering is the list's: each of its versions has a body, in order."""
    assert all(body.strip() for body in sqlite_schema.MIGRATIONS.values())
    assert list(sqlite_schema.MIGRATIONS) == list(range(1, LATEST_VERSION + 1))


def test_the_old_postgres_numbers_land_after_the_body_they_ran_and_before_the_next() -> None:
    """Old PostgreSQL version k ran the k-th PostgreSQL body of the list, and no later one:
    it maps to a version at or after that body and before the next one."""
    with_body = [m.version for m in MIGRATIONS if m.postgres.strip()]
    assert sorted(POSTGRES_BEFORE_ONE_LIST) == list(range(1, len(with_body) + 1))
    for k, mapped in POSTGRES_BEFORE_ONE_LIST.items():
        assert mapped >= with_body[k - 1]
        if k < len(with_body):
            assert mapped < with_body[k]
        else:
            assert mapped == LATEST_VERSION
    assert POSTGRES_BEFORE_ONE_LIST[13] == 20  # the last numbering before the list


@pytest.mark.parametrize(
    ("meta", "version"),
    [
        ({}, 0),
        ({"schema_version": "1"}, 6),
        ({"schema_version": "10"}, 17),
        ({"schema_version": "13"}, 20),
        ({"schema_version": "13", ONE_LIST_KEY: "1"}, 13),
        ({"schema_version": "999", ONE_LIST_KEY: "1"}, 999),
    ],
)
def test_a_postgres_database_is_placed_by_its_numbering(meta: dict[str, str], version: int) -> None:
    assert postgres_version(meta) == version


def test_the_grams_migration_is_one_version_on_both() -> None:
    gram = MIGRATIONS[migrations.GRAMS_VERSION - 1]
    assert "grams" in gram.sqlite and "grams" in gram.postgres
