"""Which ids a mistyped id may have meant (`lethe.engine.suggest`): exactly those within two edits,
found through the id index (never a scan of the table), on both stores."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from lethe import Lethe
from lethe.engine.suggest import (
    HEX,
    MAX_DISTANCE,
    close_ids,
    distance,
    neighbours,
    prefixes,
    whereabouts,
)
from tests.backends import is_postgres


def levenshtein(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


@pytest.mark.parametrize(
    "digits", ["0123", "aaaa", "abab", pytest.param("0f0f1", marks=pytest.mark.slow)]
)
def test_neighbours_are_exactly_the_ids_within_two_edits(digits: str) -> None:
    every = ("".join(p) for p in itertools.product(HEX, repeat=len(digits)))
    want = {f"mem_{d}" for d in every if 0 < levenshtein(digits, d) <= MAX_DISTANCE}
    assert set(neighbours(f"mem_{digits}")) == want


def test_the_distance_stops_past_the_limit_and_is_exact_below_it() -> None:
    assert distance("0123456789ab", "0123456789ab") == 0
    assert distance("0123456789ab", "1023456789ab") == 2
    assert distance("0123456789ab", "123456789ab0") == 2
    assert distance("0123456789ab", "fff3456789ab") == MAX_DISTANCE + 1


def test_the_prefixes_cover_every_neighbour() -> None:
    memory_id = "mem_0123456789ab"
    ranges = prefixes(memory_id)
    assert {n[:10] for n in neighbours(memory_id)} <= set(ranges)
    assert all(len(p) == 10 for p in ranges) and len(ranges) < 4_000


def test_not_an_id_has_no_neighbours() -> None:
    assert neighbours("mem_zz") == [] and neighbours("nothing") == []


def test_close_ids_on_the_store(mem: Lethe) -> None:
    home = mem.remember("User lives in San Francisco")
    mem.remember("User loves California wine")
    secret = mem.remember("The launch code is in the blue folder", namespace="private")
    one = home.id[:-1] + ("0" if home.id[-1] != "0" else "1")
    [found] = close_ids(mem.store, one, "default")
    assert (found.id, found.preview) == (home.id, "User lives in San Francisco")
    far = "mem_" + "".join("0" if c != "0" else "1" for c in home.id[4:])
    assert close_ids(mem.store, far, "default") == []
    near_secret = secret.id[:-1] + ("0" if secret.id[-1] != "0" else "1")
    assert close_ids(mem.store, near_secret, "default") == [], "not across namespaces"
    assert [s.id for s in close_ids(mem.store, near_secret, "private")] == [secret.id]
    mem.execute(mem.plan_forget([home.id]))
    assert close_ids(mem.store, one, "default") == []
    assert [s.id for s in close_ids(mem.store, one, "default", ("forgotten",))] == [home.id]
    where = whereabouts(mem.store, home.id, "default")
    assert where.state == "trash" and where.by is not None and where.at is not None
    assert whereabouts(mem.store, home.id, "private").state == "unknown"


def test_the_lookup_uses_the_id_index(mem: Lethe, db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's own query, explained: one range of the id index per prefix, never a scan
    of the memories."""
    mem.remember("User lives in San Francisco")
    seen: list[tuple[str, Any]] = []
    store: Any = mem.store
    if is_postgres(db):
        read = store._read

        @contextmanager
        def recording() -> Iterator[Any]:
            with read() as conn:
                yield Recorder(conn, seen)

        monkeypatch.setattr(store, "_read", recording)
    else:
        store._conn.set_trace_callback(lambda sql: seen.append((sql.encode(), None)))
    close_ids(store, "mem_0123456789ab", "default")
    [(sql, params)] = [(q, p) for q, p in seen if b"json_each" in q or b"unnest" in q]
    if is_postgres(db):
        import psycopg

        with psycopg.connect(db) as conn:
            # The planner as it sees a store of ten million memories (the table's statistics;
            # on a handful of rows any plan is as good).
            conn.execute(
                "UPDATE pg_class SET reltuples = 1e7, relpages = 1 "
                "WHERE oid IN ('memories'::regclass, 'memories_pkey'::regclass)"
            )
            plan = conn.execute(b"EXPLAIN (FORMAT JSON) " + sql, params).fetchone()
            conn.rollback()
        shown = json.dumps(plan)
        assert "memories_pkey" in shown and "Seq Scan" not in shown, shown
    else:
        store._conn.set_trace_callback(None)
        with sqlite3.connect(db) as conn:
            plan = conn.execute(f"EXPLAIN QUERY PLAN {sql.decode()}").fetchall()
        steps = " | ".join(str(row[-1]) for row in plan)
        assert "USING INDEX sqlite_autoindex_memories_1 (id>? AND id<?)" in steps, steps
        assert "SCAN memories" not in steps, steps


class Recorder:
    """A connection that notes each query and its parameters."""

    def __init__(self, conn: Any, seen: list[tuple[Any, Any]]) -> None:
        self.conn, self.seen = conn, seen

    def execute(self, sql: Any, params: Any = None) -> Any:
        self.seen.append((sql if isinstance(sql, bytes) else str(sql).encode(), params))
        return self.conn.execute(sql, params)
