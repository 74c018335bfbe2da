"""The reads both SQL stores answer with the same statements, in their dialect (`dialect.py`).

A store gives `_read()`, a connection to read on (SQLite's one connection under its lock;
inside a PostgreSQL transaction that transaction's connection, else one of the pool), and
`_dialect`. What is not here differs in machinery, not spelling: vector and full-text search,
the decay columns, id prefixes and compaction stay in `sqlite.py` and `postgres.py`.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import Any, TypeVar

from lethe.common.filters import Filters
from lethe.model import Episode, Event, Gist, Link, Memory, MemoryVersion, Pending
from lethe.store.dialect import Connected
from lethe.store.event_query import EventQuery
from lethe.store.filters import where as filter_where
from lethe.store.rows import (
    GIST_COLUMNS,
    VERSION_COLUMNS,
    episode_from_row,
    event_from_row,
    gist_from_row,
    link_from_row,
    memory_from_row,
    pending_from_row,
    ts,
    version_from_row,
    version_reads,
)
from lethe.store.vectors import Vector

_CHUNK = 500
_PAST_CHUNK = 400
_Read = TypeVar("_Read")


class SqlReads(Connected):
    """Mixed into `SQLiteStore` and `PostgresStore`."""

    def _rows(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        with self._read() as conn:
            return list(self._dialect.run(conn, sql, params).fetchall())

    def _row(self, sql: str, params: Sequence[Any] = ()) -> Any:
        with self._read() as conn:
            return self._dialect.run(conn, sql, params).fetchone()

    @abstractmethod
    def transaction(self) -> AbstractContextManager[Any]:
        """The store's write transaction (each store's own)."""

    # -- memories -----------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory | None:
        row = self._row(
            f"SELECT {self._dialect.memory_columns} FROM memories m WHERE m.id = ?", (memory_id,)
        )
        return None if row is None else memory_from_row(row)

    def get_many(self, ids: Sequence[str], *, active_only: bool = True) -> dict[str, Memory]:
        """Memories by id; with `active_only` this is the live re-check of search results."""
        columns = self._dialect.memory_columns
        return self._by_ids(ids, columns, memory_from_row, active_only=active_only)

    def gists(self, ids: Sequence[str]) -> dict[str, Gist]:
        return self._by_ids(ids, GIST_COLUMNS, gist_from_row, active_only=True)

    def _by_ids(
        self,
        ids: Sequence[str],
        columns: str,
        build: Callable[[Any], _Read],
        *,
        active_only: bool,
    ) -> dict[str, _Read]:
        """`columns` of the memories with these ids, each row built by `build`, by id; a few
        hundred ids a statement."""
        found: dict[str, _Read] = {}
        status = "AND m.status = 'active'" if active_only else ""
        with self._read() as conn:
            for start in range(0, len(ids), _CHUNK):
                which, params = self._dialect.any_of("m.id", list(ids[start : start + _CHUNK]))
                sql = f"SELECT {columns} FROM memories m WHERE {which} {status}"
                for row in self._dialect.run(conn, sql, params).fetchall():
                    found[row["id"]] = build(row)
        return found

    def vector_of(self, memory_id: str) -> Vector | None:
        row = self._row("SELECT embedding FROM memories WHERE id = ?", (memory_id,))
        return None if row is None else self._dialect.read_vector(row["embedding"])

    def containing(self, needles: Sequence[str], filters: Filters, n: int) -> list[str]:
        if not needles:
            return []
        where, params = filter_where(filters, self._dialect)
        found = " OR ".join(self._dialect.holds("m.content") for _ in needles)
        sql = f"SELECT m.id FROM memories m WHERE ({found}) AND {where} ORDER BY m.num LIMIT ?"
        return [r["id"] for r in self._rows(sql, [*needles, *params, n])]

    def list_memories(
        self, filters: Filters, *, limit: int, offset: int
    ) -> tuple[list[Memory], int]:
        where, params = filter_where(filters, self._dialect)
        return self._page(where, params, "created_at", limit, offset)

    def trash(
        self, namespace: str | None, *, limit: int, offset: int, before: datetime | None = None
    ) -> tuple[list[Memory], int]:
        """Forgotten memories, most recently forgotten first."""
        clauses, params = ["m.status = 'forgotten'"], list[Any]()
        if namespace is not None:
            clauses.append("m.namespace = ?")
            params.append(namespace)
        if before is not None:
            clauses.append("m.forgotten_at < ?")
            params.append(ts(before))
        return self._page(" AND ".join(clauses), params, "forgotten_at", limit, offset)

    def _page(
        self, where: str, params: list[Any], newest: str, limit: int, offset: int
    ) -> tuple[list[Memory], int]:
        """One page of the memories matching `where`, newest by `newest` first, and how many
        match in all."""
        with self._read() as conn:
            run = self._dialect.run
            total = run(conn, f"SELECT count(*) AS n FROM memories m WHERE {where}", params)
            counted = total.fetchone()
            rows = run(
                conn,
                f"SELECT {self._dialect.memory_columns} FROM memories m WHERE {where} "
                f"ORDER BY m.{newest} DESC, m.num DESC LIMIT ? OFFSET ?",
                [*params, limit, offset],
            ).fetchall()
        return [memory_from_row(r) for r in rows], int(counted["n"]) if counted else 0

    def due_expiries(self, now: datetime, *, limit: int) -> list[Memory]:
        rows = self._rows(
            f"SELECT {self._dialect.memory_columns} FROM memories m "
            f"{self._dialect.indexed_by('memories_expiry')} "
            "WHERE m.status = 'active' AND m.expires_at IS NOT NULL AND m.expires_at <= ? "
            "ORDER BY m.expires_at LIMIT ?",
            (ts(now), limit),
        )
        return [memory_from_row(r) for r in rows]

    def ids_with_prefixes(
        self, prefixes: Sequence[str], *, namespace: str | None, status: str
    ) -> list[str]:
        sql, scanned, namespace_column = self._dialect.prefix_scan(prefixes)
        params: list[Any] = [scanned, status]
        if namespace is not None:
            sql += f" AND {namespace_column} = ?"
            params.append(namespace)
        return [r["id"] for r in self._rows(sql, params)]

    def memory_ids(self) -> list[str]:
        """Ids of live memories in insertion order."""
        rows = self._rows("SELECT id FROM memories WHERE status = 'active' ORDER BY num")
        return [r["id"] for r in rows]

    def working_set(self, agent: str, namespace: str) -> list[tuple[Memory, int, datetime]]:
        """An agent's working memory: live memories with their token counts and when they
        entered it. Forgotten memories drop out here, without touching the rows."""
        sql = f"""
            SELECT {self._dialect.memory_columns}, w.tokens AS w_tokens, w.added_at AS w_added
            FROM working_set w JOIN memories m ON m.id = w.memory_id
            WHERE w.agent = ? AND w.namespace = ? AND m.status = 'active'
            ORDER BY w.added_at"""
        return [
            (memory_from_row(r), int(r["w_tokens"]), datetime.fromtimestamp(r["w_added"], UTC))
            for r in self._rows(sql, (agent, namespace))
        ]

    def working_entries(
        self, agent: str, namespace: str
    ) -> list[tuple[str, int, datetime, float, int]]:
        """`working_set` without the memories: what admitting one more memory weighs, read
        without building every memory of the set (their text, tags and metadata)."""
        sql = """
            SELECT w.memory_id, w.tokens, w.added_at, m.importance, m.access_count
            FROM working_set w JOIN memories m ON m.id = w.memory_id
            WHERE w.agent = ? AND w.namespace = ? AND m.status = 'active'
            ORDER BY w.added_at"""
        return [
            (
                r["memory_id"],
                int(r["tokens"]),
                datetime.fromtimestamp(r["added_at"], UTC),
                float(r["importance"]),
                int(r["access_count"]),
            )
            for r in self._rows(sql, (agent, namespace))
        ]

    # -- links and episodes -------------------------------------------------------------

    def links_of(self, memory_id: str) -> list[Link]:
        """Links whose other end is a live memory, strongest first."""
        sql = """
            SELECT l.* FROM links l JOIN memories o ON o.id = l.b
            WHERE l.a = ? AND o.status = 'active'
            UNION ALL
            SELECT l.* FROM links l JOIN memories o ON o.id = l.a
            WHERE l.b = ? AND o.status = 'active'
            ORDER BY confidence DESC"""
        return [link_from_row(r) for r in self._rows(sql, (memory_id, memory_id))]

    def get_link(self, a: str, b: str, kind: str) -> Link | None:
        a, b = sorted((a, b))
        row = self._row("SELECT * FROM links WHERE a = ? AND b = ? AND kind = ?", (a, b, kind))
        return None if row is None else link_from_row(row)

    def fresh_links_close_in_time(self, namespace: str, window_s: float, limit: int) -> list[Link]:
        """Up to `limit` links between live memories of a namespace written within `window_s`
        of each other, never changed since they were made; the newest first."""
        sql = """
            SELECT l.* FROM links l
            JOIN memories ma ON ma.id = l.a JOIN memories mb ON mb.id = l.b
            WHERE ma.status = 'active' AND mb.status = 'active' AND ma.namespace = ?
              AND abs(ma.created_at - mb.created_at) <= ? AND l.updated_at = l.created_at
            ORDER BY l.created_at DESC LIMIT ?"""
        return [link_from_row(r) for r in self._rows(sql, (namespace, window_s, limit))]

    def episode(self, episode_id: str) -> tuple[Episode, list[Memory], int] | None:
        row = self._row("SELECT * FROM episodes WHERE id = ?", (episode_id,))
        if row is None:
            return None
        members = self.episode_member_ids(episode_id)
        live = self.get_many([m for m in members if m is not None])
        ordered = [live[m] for m in members if m is not None and m in live]
        return episode_from_row(row), ordered, len(members) - len(ordered)

    def episode_member_ids(self, episode_id: str) -> list[str | None]:
        rows = self._rows(
            "SELECT memory_id FROM episode_members WHERE episode_id = ? ORDER BY position",
            (episode_id,),
        )
        return [r["memory_id"] for r in rows]

    def episodes_of(self, memory_id: str) -> list[Episode]:
        rows = self._rows(
            """SELECT DISTINCT e.* FROM episodes e
               JOIN episode_members m ON m.episode_id = e.id
               WHERE m.memory_id = ? ORDER BY e.start_at, e.id""",
            (memory_id,),
        )
        return [episode_from_row(r) for r in rows]

    def iter_rows(self, table: str) -> Iterator[dict[str, Any]]:
        """A relation table's rows for export, in a stable order."""
        order = self._dialect.export_order[table]
        yield from (dict(r) for r in self._rows(f"SELECT * FROM {table} ORDER BY {order}"))

    # -- export and import ---------------------------------------------------------------

    def trash_ids(self) -> list[str]:
        """Ids of forgotten memories in insertion order."""
        rows = self._rows("SELECT id FROM memories WHERE status = 'forgotten' ORDER BY num")
        return [r["id"] for r in rows]

    def events_between(self, start: datetime, end: datetime) -> list[Event]:
        """Events whose time lies in [start, end], in seq order."""
        rows = self._rows(
            "SELECT * FROM events WHERE at >= ? AND at <= ? ORDER BY seq", (ts(start), ts(end))
        )
        return [event_from_row(r) for r in rows]

    # -- events, accesses, confirmations ------------------------------------------------

    def events(self, query: EventQuery) -> list[Event]:
        sql, params = query.sql("?")
        return [event_from_row(r) for r in self._rows(sql, params)]

    def touch(self, ids: Sequence[str], at: datetime) -> None:
        """Record that memories were recalled. Access statistics are not audited changes."""
        if ids:
            with self.transaction() as tx:
                tx.touch(ids, at)

    def recent_accesses(self, memory_id: str, now: datetime) -> tuple[int, int]:
        """How often a memory was recalled in the last 30 and 90 days (the access log)."""
        today = int(ts(now) // 86400)
        row = self._row(
            """SELECT coalesce(sum(CASE WHEN day > ? THEN count ELSE 0 END), 0) AS last30,
                      coalesce(sum(count), 0) AS last90
               FROM access_days WHERE memory_id = ? AND day > ?""",
            (today - 30, memory_id, today - 90),
        )
        return int(row["last30"]), int(row["last90"])

    def pending_all(self, session: str | None = None) -> list[Pending]:
        sql, params = "SELECT * FROM pending_confirmations", list[Any]()
        if session is not None:
            sql += " WHERE session = ?"
            params.append(session)
        rows = self._rows(sql + " ORDER BY last_requested_at", params)
        return [pending_from_row(r) for r in rows]

    def event_counts(
        self, ops: Sequence[str], *, since: datetime | None, namespace: str | None
    ) -> list[tuple[str, str, str, str, int]]:
        """(day, op, actor, namespace, count) of the given ops, for the deletion report."""
        which, params = self._dialect.any_of("op", list(ops))
        clauses = [which]
        if since is not None:
            clauses.append("at >= ?")
            params.append(ts(since))
        if namespace is not None:
            clauses.append("namespace = ?")
            params.append(namespace)
        sql = f"""SELECT {self._dialect.day("at")} AS day, op, actor,
                         coalesce(namespace, '') AS ns, count(*) AS n
                  FROM events WHERE {" AND ".join(clauses)}
                  GROUP BY day, op, actor, ns ORDER BY day, op"""
        return [
            (r["day"], r["op"], r["actor"], r["ns"], int(r["n"])) for r in self._rows(sql, params)
        ]

    # -- versions and texts' hashes -----------------------------------------------------

    def versions(self, memory_id: str) -> list[MemoryVersion]:
        """Every state of a memory, the current one first, then the earlier ones newest
        first; empty when there is no such memory (live or forgotten)."""
        current_sql, earlier_sql = version_reads(self._dialect.tags, self._dialect.metadata, "?")
        with self._read() as conn:
            current = self._dialect.run(conn, current_sql, (memory_id,)).fetchone()
            if current is None:
                return []
            earlier = self._dialect.run(conn, earlier_sql, (memory_id,)).fetchall()
        return [version_from_row(current), *(version_from_row(r) for r in earlier)]

    def versions_replaced_since(
        self, ids: Sequence[str], since: datetime
    ) -> dict[str, list[MemoryVersion]]:
        """The earlier states of these memories that stopped being current at or after
        `since`, newest first."""
        found: dict[str, list[MemoryVersion]] = {}
        with self._read() as conn:
            for start in range(0, len(ids), _CHUNK):
                which, params = self._dialect.any_of("memory_id", list(ids[start : start + _CHUNK]))
                rows = self._dialect.run(
                    conn,
                    f"""SELECT {VERSION_COLUMNS} FROM memory_versions
                        WHERE {which} AND valid_until >= ? ORDER BY version DESC""",
                    [*params, ts(since)],
                ).fetchall()
                for row in rows:
                    found.setdefault(row["memory_id"], []).append(version_from_row(row))
        return found

    def live_ids_with_earlier_text(self, namespace: str, needle: str, limit: int) -> list[str]:
        """Live memories of the namespace an earlier version of which contains `needle`
        (case folded). The versions table holds only changed memories: a scan is small."""
        rows = self._rows(
            f"""SELECT DISTINCT v.memory_id FROM memory_versions v
               JOIN memories m ON m.id = v.memory_id
               WHERE m.namespace = ? AND m.status = 'active'
               AND {self._dialect.holds("lower(v.content)", "lower(?)")}
               LIMIT ?""",
            (namespace, needle, limit),
        )
        return [r["memory_id"] for r in rows]

    def namespaces(self) -> list[str]:
        """Every namespace that holds a memory, live or in the trash."""
        rows = self._rows("SELECT DISTINCT namespace FROM memories ORDER BY namespace")
        return [r["namespace"] for r in rows]

    def live_ids_by_hash(self, namespace: str, hashes: Sequence[str]) -> list[str]:
        """Live memories of the namespace whose text has one of these SHA-256 hashes."""
        if not hashes:
            return []
        which, params = self._dialect.any_of("content_sha256", list(hashes))
        rows = self._rows(
            f"""SELECT id FROM memories WHERE namespace = ? AND status = 'active'
                AND {which} ORDER BY num""",
            [namespace, *params],
        )
        return [r["id"] for r in rows]

    # -- the past -----------------------------------------------------------------------

    def earlier_states(
        self, keys: Sequence[tuple[str, int]]
    ) -> dict[tuple[str, int], MemoryVersion]:
        """These earlier states of live memories, by (id, version)."""
        wanted = set(keys)
        ids = list(dict.fromkeys(i for i, _ in keys))
        found: dict[tuple[str, int], MemoryVersion] = {}
        with self._read() as conn:
            for start in range(0, len(ids), _PAST_CHUNK):
                which, params = self._dialect.any_of(
                    "v.memory_id", ids[start : start + _PAST_CHUNK]
                )
                # By memory id (the primary key's prefix): a row-value IN would scan the table.
                rows = self._dialect.run(
                    conn,
                    f"""SELECT {VERSION_COLUMNS} FROM memory_versions v WHERE {which}
                        AND EXISTS (SELECT 1 FROM memories m
                                    WHERE m.id = v.memory_id AND m.status = 'active')""",
                    params,
                ).fetchall()
                for row in rows:
                    if (row["memory_id"], row["version"]) in wanted:
                        version = version_from_row(row)
                        found[(version.memory_id, version.version)] = version
        return found

    def unembedded_versions(self, limit: int) -> list[tuple[str, int, str]]:
        """Earlier states without a vector (kept before vectors were, or imported)."""
        rows = self._rows(
            """SELECT memory_id, version, content FROM memory_versions
               WHERE embedding IS NULL LIMIT ?""",
            (limit,),
        )
        return [(r["memory_id"], int(r["version"]), r["content"]) for r in rows]

    def began(self, namespace: str) -> datetime | None:
        """When the record of a namespace begins: the store's first audit event, or the
        namespace's oldest live memory if older (an import keeps when a memory was made)."""
        row = self._row(
            """SELECT (SELECT min(at) FROM events) AS first,
                      (SELECT min(created_at) FROM memories
                       WHERE namespace = ? AND status = 'active') AS oldest""",
            (namespace,),
        )
        times = [t for t in (row["first"], row["oldest"]) if t is not None] if row else []
        return datetime.fromtimestamp(min(times), UTC) if times else None
