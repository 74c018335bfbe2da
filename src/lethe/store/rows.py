"""Conversions between database rows and lethe records (times are stored as epoch seconds).

Both stores select the same columns under the same names (metadata as JSON text, tags as a
JSON array), so one set of conversions serves SQLite's rows and PostgreSQL's dict rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from lethe.model import Episode, Event, Gist, Link, Memory, MemoryVersion, Pending


class Row(Protocol):
    """A row whose columns are read by name (sqlite3.Row, or a psycopg dict row)."""

    def __getitem__(self, key: str, /) -> Any: ...


MEMORY_COLUMNS = """m.id, m.namespace, m.agent, m.content, m.content_sha256, m.layer, m.category,
    m.metadata, m.importance, m.private, m.created_at, m.updated_at, m.last_accessed_at,
    m.access_count, m.status, m.forgotten_at, m.forgotten_by, m.forget_reason, m.version,
    m.expires_at, m.expiry_set_by, m.expiry_set_at, m.expiry_held,
    (SELECT json_group_array(tag) FROM
        (SELECT t.tag FROM memory_tags t WHERE t.memory_id = m.id ORDER BY t.rowid)) AS tags"""


MEMORY_INSERT_COLUMNS = """id, namespace, agent, content, content_sha256, layer, category,
    metadata, importance, private, created_at, updated_at, last_accessed_at, access_count,
    status, version, changed_by, change_op, change_reason, expires_at, expiry_set_by,
    expiry_set_at, expiry_held"""

VERSION_COLUMNS = """memory_id, version, agent, content, content_sha256, layer, category, tags,
    metadata, importance, private, valid_from, valid_until, actor, op, reason, expires_at"""


@dataclass(frozen=True)
class Provenance:
    """Who made a memory's current state, how (remember, update, revert, import) and why."""

    actor: str
    op: str
    reason: str | None = None


def memory_values(memory: Memory, made: Provenance | None = None) -> tuple[Any, ...]:
    """A memory's column values in the order of `MEMORY_INSERT_COLUMNS`, for either store
    (the embedding, stored differently by each, goes after them)."""
    return (
        memory.id,
        memory.namespace,
        memory.agent,
        memory.content,
        memory.content_sha256,
        memory.layer,
        memory.category,
        json.dumps(memory.metadata, ensure_ascii=False),
        memory.importance,
        memory.private,
        ts(memory.created_at),
        ts(memory.updated_at),
        None if memory.last_accessed_at is None else ts(memory.last_accessed_at),
        memory.access_count,
        memory.status,
        memory.version,
        made.actor if made else None,
        made.op if made else None,
        made.reason if made else None,
        None if memory.expires_at is None else ts(memory.expires_at),
        memory.expiry_set_by,
        None if memory.expiry_set_at is None else ts(memory.expiry_set_at),
        memory.expiry_held and memory.expires_at is not None,
    )


def version_values(v: MemoryVersion) -> tuple[Any, ...]:
    """An earlier state's column values in the order of `VERSION_COLUMNS`."""
    assert v.valid_until is not None, "only earlier states are stored as versions"
    return (
        v.memory_id,
        v.version,
        v.agent,
        v.content,
        v.content_sha256,
        v.layer,
        v.category,
        json.dumps(list(v.tags), ensure_ascii=False),
        json.dumps(v.metadata, ensure_ascii=False),
        v.importance,
        v.private,
        ts(v.valid_from),
        ts(v.valid_until),
        v.actor,
        v.op,
        v.reason,
        None if v.expires_at is None else ts(v.expires_at),
    )


def version_from_row(row: Row) -> MemoryVersion:
    """A `memory_versions` row, or a memory row selected as its current version (then
    `valid_until` is null)."""
    until = row["valid_until"]
    return MemoryVersion(
        memory_id=row["memory_id"],
        version=row["version"],
        current=until is None,
        agent=row["agent"],
        content=row["content"],
        content_sha256=row["content_sha256"],
        layer=row["layer"],
        category=row["category"],
        tags=tuple(json.loads(row["tags"])),
        metadata=json.loads(row["metadata"]),
        importance=row["importance"],
        private=bool(row["private"]),
        valid_from=datetime.fromtimestamp(row["valid_from"], UTC),
        valid_until=dt(until),
        actor=row["actor"],
        op=row["op"],
        reason=row["reason"],
        expires_at=dt(row["expires_at"]),
    )


def ts(value: datetime) -> float:
    return value.timestamp()


def dt(value: float | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value, UTC)


def memory_from_row(row: Row) -> Memory:
    return Memory(
        id=row["id"],
        namespace=row["namespace"],
        agent=row["agent"],
        content=row["content"],
        content_sha256=row["content_sha256"],
        layer=row["layer"],
        category=row["category"],
        tags=tuple(json.loads(row["tags"])),
        metadata=json.loads(row["metadata"]),
        importance=row["importance"],
        private=bool(row["private"]),
        created_at=datetime.fromtimestamp(row["created_at"], UTC),
        updated_at=datetime.fromtimestamp(row["updated_at"], UTC),
        last_accessed_at=dt(row["last_accessed_at"]),
        access_count=row["access_count"],
        status=row["status"],
        forgotten_at=dt(row["forgotten_at"]),
        forgotten_by=row["forgotten_by"],
        forget_reason=row["forget_reason"],
        version=row["version"],
        expires_at=dt(row["expires_at"]),
        expiry_set_by=row["expiry_set_by"],
        expiry_set_at=dt(row["expiry_set_at"]),
        expiry_held=bool(row["expiry_held"]),
    )


GIST_COLUMNS = (
    "m.id, m.namespace, m.content, m.content_sha256, m.layer, m.importance, m.private, m.version"
)
"""The columns `gist_from_row` reads (the same on both stores)."""


def gist_from_row(row: Row) -> Gist:
    return Gist(
        row["id"],
        row["namespace"],
        row["content"],
        row["content_sha256"],
        row["layer"],
        row["importance"],
        bool(row["private"]),
        row["version"],
    )


def link_from_row(row: Row) -> Link:
    return Link(
        a=row["a"],
        b=row["b"],
        kind=row["kind"],
        confidence=row["confidence"],
        created_at=datetime.fromtimestamp(row["created_at"], UTC),
        updated_at=datetime.fromtimestamp(row["updated_at"], UTC),
    )


def event_from_row(row: Row) -> Event:
    return Event(
        seq=row["seq"],
        at=datetime.fromtimestamp(row["at"], UTC),
        op=row["op"],
        memory_id=row["memory_id"],
        namespace=row["namespace"],
        actor=row["actor"],
        reason=row["reason"],
        details=json.loads(row["details"]),
        content_sha256=row["content_sha256"],
    )


def episode_from_row(row: Row) -> Episode:
    return Episode(
        id=row["id"],
        namespace=row["namespace"],
        summary=row["summary"],
        start_at=datetime.fromtimestamp(row["start_at"], UTC),
        end_at=datetime.fromtimestamp(row["end_at"], UTC),
        importance=row["importance"],
        created_at=datetime.fromtimestamp(row["created_at"], UTC),
    )


def pending_from_row(row: Row) -> Pending:
    return Pending(
        session=row["session"],
        memory_id=row["memory_id"],
        operation=row["operation"],
        content_sha256=row["content_sha256"],
        first_requested_at=datetime.fromtimestamp(row["first_requested_at"], UTC),
        last_requested_at=datetime.fromtimestamp(row["last_requested_at"], UTC),
        request_count=row["request_count"],
        expires_at=datetime.fromtimestamp(row["expires_at"], UTC),
    )


def keep_version_sql(tags: str, metadata: str, mark: str) -> str:
    """Copy a memory's current state, with who made it and its vector, into
    `memory_versions` (in one store's dialect; see `version_reads`). The first placeholder is
    the time it stopped being current, the second the memory's id. A state made before
    versions existed was made by its agent."""
    return f"""INSERT INTO memory_versions ({VERSION_COLUMNS}, embedding)
        SELECT m.id, m.version, m.agent, m.content, m.content_sha256, m.layer, m.category,
            {tags}, {metadata}, m.importance, m.private, m.updated_at, {mark},
            coalesce(m.changed_by, m.agent),
            coalesce(m.change_op, CASE WHEN m.version = 1 THEN 'remember' ELSE 'update' END),
            m.change_reason, m.expires_at, m.embedding
        FROM memories m WHERE m.id = {mark}"""


def placeholders(mark: str, count: int) -> str:
    return ", ".join([mark] * count)


def version_reads(tags: str, metadata: str, mark: str) -> tuple[str, str]:
    """The two selects of a memory's history, in one store's dialect: its current state (from
    the memory row) and its earlier states, both as `version_from_row` reads them. `tags` and
    `metadata` are the store's expressions for the memory row's JSON text; `mark` its
    placeholder."""
    current = f"""SELECT m.id AS memory_id, m.version, m.agent, m.content, m.content_sha256,
        m.layer, m.category, {tags} AS tags, {metadata} AS metadata, m.importance, m.private,
        m.updated_at AS valid_from, NULL AS valid_until, coalesce(m.changed_by, m.agent) AS actor,
        coalesce(m.change_op, CASE WHEN m.version = 1 THEN 'remember' ELSE 'update' END) AS op,
        m.change_reason AS reason, m.expires_at
        FROM memories m WHERE m.id = {mark}"""
    earlier = f"""SELECT {VERSION_COLUMNS} FROM memory_versions
        WHERE memory_id = {mark} ORDER BY version DESC"""
    return current, earlier
