"""The JSONL interchange format of `lethe export` / `lethe import`: a whole memory, moved
between stores (SQLite or PostgreSQL, either way) with its ids, links, episodes, trash and
audit log.

One JSON object per line, with a `type`, in this order, so a reader can stream the file:

- `memory`: every live memory, then every memory in the trash, in the order they were
  stored. A memory in the trash carries `"status": "forgotten"` with `forgotten_at` (ISO-8601),
  `forgotten_by` and `forget_reason` (or null); import puts it straight back into the trash
  with those values, so its retention clock keeps running from the original `forgotten_at`.
  A live memory has no `status` (or `"active"`). A memory record needs only `content`; every
  other field (`id` and timestamps included, which import keeps) is optional, but a
  forgotten one needs its `id`.
- `version`: right after the record of a memory that was updated, each of its earlier
  states, newest first: `memory_id`, `version`, the state's fields (`agent`, `content`,
  `layer`, `category`, `tags`, `metadata`, `importance`, `private`), `valid_from` and
  `valid_until` (ISO-8601), and who made that state (`actor`, `op`, `reason`). The memory
  record itself then says who made its current state: `changed_by`, `change_op`,
  `change_reason`. Import keeps them, so `history` reads the same on both sides; a version
  whose memory is not imported (the target holds that id already) is skipped with it.
- `link`: `a`, `b`, `kind`, `confidence`, `created_at`, `updated_at`: every link between two
  exported memories, those touching the trash included, so a restore after import brings
  them back.
- `episode`: `id`, `namespace`, `summary`, `start_at`, `end_at`, `importance`, `created_at`,
  `members` in order: ids of live or forgotten memories, and null where a member was purged
  (the episode still says that one is gone).
- `event`: the audit log in order: `seq`, `at`, `op`, `memory_id`, `namespace`, `actor`,
  `reason`, `details`, `content_sha256`. Events hold hashes, never content; a purged
  memory's events come already redacted.

`seq` is the source's number and is not reused: imported events are appended after whatever
the target holds, in file order, and numbered by the target (events are append-only, so a
number once given is never rewritten). Into an empty store the numbers run 1, 2, 3…, the
source's own unless its log has gaps (PostgreSQL skips the numbers of rolled-back writes).

Importing a file twice must not double anything, so import (`engine/records.py`) skips the
ids, links and episodes the target holds, and every event the target holds already: same
time, op, memory, namespace, actor and hash, and the same details and reason unless a purge
has redacted one of the two copies. Events of another store never match all of these.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from lethe.common import validate
from lethe.errors import InvalidInput
from lethe.model import Draft, Event, Memory, MemoryVersion
from lethe.store.base import Store
from lethe.store.event_query import EventQuery
from lethe.store.rows import Provenance

_MEMORY_FIELDS = set(Draft.model_fields) - {"validated"}
_TRASH_FIELDS = {"status", "forgotten_at", "forgotten_by", "forget_reason"}
_PROVENANCE_FIELDS = {"changed_by", "change_op", "change_reason"}
_EXPIRY_FIELDS = {"expires_at", "expiry_set_by", "expiry_set_at", "expiry_held"}
_VERSION_FIELDS = (set(MemoryVersion.model_fields) - {"current"}) | {"type"}
# Fields an export carries that import re-derives rather than trusts.
_DERIVED_FIELDS = {"type", "content_sha256", "access_count", "last_accessed_at"}
_EVENT_FIELDS = set(Event.model_fields) | {"type"}
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_CHUNK = 500
_EVENT_PAGE = 10_000


@dataclass(frozen=True)
class Forgotten:
    """Who put a memory in the trash, when and why."""

    at: datetime
    by: str
    reason: str | None


@dataclass(frozen=True)
class MemoryRecord:
    draft: Draft
    forgotten: Forgotten | None = None
    made: Provenance | None = None
    """Who made the current state, when the record says (an updated memory)."""


@dataclass(frozen=True)
class LinkRecord:
    a: str
    b: str
    kind: str
    confidence: float
    created_at: datetime | None
    updated_at: datetime | None


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def _when(value: Any, what: str, line: int) -> datetime:
    """An ISO-8601 time; one without a zone is taken as UTC, as everywhere in lethe."""
    if not isinstance(value, str):
        raise InvalidInput(f"line {line}: {what} must be an ISO-8601 time")
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(f"line {line}: {what} must be an ISO-8601 time") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _text(record: dict[str, Any], key: str, line: int, *, kind: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip() or "\n" in value:
        raise InvalidInput(f"line {line}: {kind} record needs a one-line text {key!r}")
    return value


def _optional_text(record: dict[str, Any], key: str, line: int) -> str | None:
    value = record.get(key)
    if value is not None and not isinstance(value, str):
        raise InvalidInput(f"line {line}: {key} must be text or null")
    return value


def _kind(record: Any, line: int) -> str:
    if not isinstance(record, dict):
        raise InvalidInput(f"line {line}: expected a JSON object, got {type(record).__name__}")
    kind = record.get("type", "memory")
    if not isinstance(kind, str):
        raise InvalidInput(f"line {line}: type must be text")
    return kind


def parse_record(record: Any, line: int) -> MemoryRecord:
    """A memory record: a draft, plus who forgot it when it comes from the trash; a mistake
    names the line it is on."""
    kind = _kind(record, line)
    if kind != "memory":
        raise InvalidInput(f"line {line}: expected a memory record, got type {kind!r}")
    unknown = set(record) - _MEMORY_FIELDS - _DERIVED_FIELDS - _TRASH_FIELDS - _PROVENANCE_FIELDS
    if unknown:
        raise InvalidInput(f"line {line}: unknown field(s) {', '.join(sorted(unknown))}")
    fields = {k: v for k, v in record.items() if k in _MEMORY_FIELDS and v is not None}
    try:
        draft = Draft(**fields)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"line {line}: {problems}") from None
    return MemoryRecord(draft, _forgotten(record, line), _made(record, line))


def _made(record: dict[str, Any], line: int) -> Provenance | None:
    if record.get("changed_by") is None:
        return None
    return Provenance(
        actor=_text(record, "changed_by", line, kind="a memory"),
        op=_text(record, "change_op", line, kind="a memory")
        if record.get("change_op")
        else "update",
        reason=_optional_text(record, "change_reason", line),
    )


def parse_version(record: dict[str, Any], line: int) -> MemoryVersion:
    """An earlier state of a memory; its hash is derived from its text, never trusted."""
    unknown = set(record) - _VERSION_FIELDS
    if unknown:
        raise InvalidInput(f"line {line}: unknown version field(s) {', '.join(sorted(unknown))}")
    content = record.get("content")
    if not isinstance(content, str):
        raise InvalidInput(f"line {line}: a version record needs its text 'content'")
    fields = {k: v for k, v in record.items() if k != "type" and v is not None}
    if not isinstance(fields.get("private", False), bool):
        raise InvalidInput(f"line {line}: version private must be true or false")
    for key in ("importance", "version"):
        value = fields.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidInput(f"line {line}: version {key} must be a number")
    fields["content_sha256"] = hashlib.sha256(content.encode("utf-8")).hexdigest()
    fields["current"] = False
    if "valid_until" not in fields:
        raise InvalidInput(f"line {line}: a version record needs valid_until")
    for key in ("valid_from", "valid_until"):
        fields[key] = _when(fields.get(key), f"version {key}", line)
    try:
        return MemoryVersion(**fields)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"line {line}: {problems}") from None


def _forgotten(record: dict[str, Any], line: int) -> Forgotten | None:
    status = record.get("status") or "active"
    if status == "active":
        stray = sorted(k for k in _TRASH_FIELDS - {"status"} if record.get(k) is not None)
        if stray:
            raise InvalidInput(
                f"line {line}: {', '.join(stray)} given for a memory whose status is not "
                "'forgotten'"
            )
        return None
    if status != "forgotten":
        raise InvalidInput(f"line {line}: status must be 'active' or 'forgotten', not {status!r}")
    if record.get("id") is None:
        raise InvalidInput(f"line {line}: a forgotten memory record needs its id")
    return Forgotten(
        at=_when(record.get("forgotten_at"), "forgotten_at", line),
        by=_text(record, "forgotten_by", line, kind="a forgotten memory"),
        reason=_optional_text(record, "forget_reason", line),
    )


def parse_link(record: dict[str, Any], line: int) -> LinkRecord:
    a, b = record.get("a"), record.get("b")
    kind, confidence = record.get("kind", "related"), record.get("confidence", 1.0)
    if not isinstance(a, str) or not isinstance(b, str) or not isinstance(kind, str):
        raise InvalidInput(f"line {line}: a link record needs text fields a, b and kind")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise InvalidInput(f"line {line}: link confidence must be a number")
    created, updated = record.get("created_at"), record.get("updated_at")
    return LinkRecord(
        a=a,
        b=b,
        kind=kind,
        confidence=float(confidence),
        created_at=None if created is None else _when(created, "created_at", line),
        updated_at=None if updated is None else _when(updated, "updated_at", line),
    )


def parse_episode(record: dict[str, Any], line: int) -> tuple[dict[str, Any], list[str | None]]:
    """Check an episode record's shape; the engine validates its values. A null member is
    one the source had purged."""
    members = record.get("members", [])
    if not isinstance(members, list) or not all(m is None or isinstance(m, str) for m in members):
        raise InvalidInput(f"line {line}: episode members must be a list of memory ids")
    for key in ("id", "summary", "start_at", "end_at"):
        if not isinstance(record.get(key), str):
            raise InvalidInput(f"line {line}: episode record needs a text {key!r}")
    created = record.get("created_at")
    fields = {
        "id": record["id"],
        "namespace": record.get("namespace", "default"),
        "summary": record["summary"],
        "start_at": _when(record["start_at"], "episode start_at", line),
        "end_at": _when(record["end_at"], "episode end_at", line),
        "importance": record.get("importance", 0.5),
        "created_at": None if created is None else _when(created, "created_at", line),
    }
    return fields, members


def parse_event(record: dict[str, Any], line: int) -> dict[str, Any]:
    """An audit event as the keyword arguments of `StoreTx.append_event`. The source's `seq`
    is checked but not kept: the target numbers the events it appends."""
    unknown = set(record) - _EVENT_FIELDS
    if unknown:
        raise InvalidInput(f"line {line}: unknown event field(s) {', '.join(sorted(unknown))}")
    seq = record.get("seq")
    if seq is not None and (isinstance(seq, bool) or not isinstance(seq, int) or seq < 1):
        raise InvalidInput(f"line {line}: event seq must be a whole number >= 1")
    details = record.get("details", {})
    if not isinstance(details, dict):
        raise InvalidInput(f"line {line}: event details must be a JSON object")
    digest = record.get("content_sha256")
    if digest is not None and (not isinstance(digest, str) or not _SHA256.match(digest)):
        raise InvalidInput(f"line {line}: event content_sha256 must be 64 hex digits or null")
    for key in ("memory_id", "namespace"):
        _optional_text(record, key, line)
    return {
        "at": _when(record.get("at"), "event at", line),
        "op": _text(record, "op", line, kind="an event"),
        "actor": _text(record, "actor", line, kind="an event"),
        "memory_id": record.get("memory_id"),
        "namespace": record.get("namespace"),
        "reason": _optional_text(record, "reason", line),
        "details": details,
        "content_sha256": digest,
    }


class Export:
    """The records of one export, streamed; iterate it to get them.

    The ids are read once, up front, so `memories` is known before the first record: a face
    can size a progress bar without a second pass over the store. A memory forgotten or
    restored while the export runs is written once, as it is when its turn comes.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._ids = store.memory_ids() + store.trash_ids()

    @property
    def memories(self) -> int:
        """How many memory records the export holds, trash included (the other records come
        after them)."""
        return len(self._ids)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return _records(self._store, self._ids)


def memory_record(memory: Memory, made: MemoryVersion | None = None) -> dict[str, Any]:
    """A memory as its export record: the trash fields only for a forgotten one, and who
    made its current state when it has been changed (`made`, its current version)."""
    trash = memory.status == "forgotten"
    left_out = (set() if trash else _TRASH_FIELDS) | (
        set() if memory.expires_at else _EXPIRY_FIELDS
    )
    record = memory.model_dump(mode="json", exclude=left_out or None)
    if made is not None:
        record |= {"changed_by": made.actor, "change_op": made.op, "change_reason": made.reason}
    return {"type": "memory", **record}


def version_record(version: MemoryVersion) -> dict[str, Any]:
    left_out = {"current", "content_sha256"} | (set() if version.expires_at else {"expires_at"})
    record = version.model_dump(mode="json", exclude=left_out)
    return {"type": "version", **record}


def _records(store: Store, ids: list[str]) -> Iterator[dict[str, Any]]:
    exported = set(ids)
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        found = store.get_many(chunk, active_only=False)
        for memory_id in chunk:
            memory = found.get(memory_id)
            if memory is None:
                continue
            if memory.version == 1:
                yield memory_record(memory)
                continue
            current, *earlier = store.versions(memory_id)
            yield memory_record(memory, current)
            yield from (version_record(v) for v in earlier)
    for row in store.iter_rows("links"):
        if row["a"] in exported and row["b"] in exported:
            yield {
                "type": "link",
                "a": row["a"],
                "b": row["b"],
                "kind": row["kind"],
                "confidence": row["confidence"],
                "created_at": _iso(row["created_at"]),
                "updated_at": _iso(row["updated_at"]),
            }
    for row in store.iter_rows("episodes"):
        members = store.episode_member_ids(row["id"])
        yield {
            "type": "episode",
            "id": row["id"],
            "namespace": row["namespace"],
            "summary": row["summary"],
            "start_at": _iso(row["start_at"]),
            "end_at": _iso(row["end_at"]),
            "importance": row["importance"],
            "created_at": _iso(row["created_at"]),
            "members": [m for m in members if m is None or m in exported],
        }
    yield from _events(store)


def _events(store: Store) -> Iterator[dict[str, Any]]:
    after = 0
    while True:
        page = store.events(EventQuery(after_seq=after, limit=_EVENT_PAGE))
        for event in page:
            yield {"type": "event", **event.model_dump(mode="json")}
        if len(page) < _EVENT_PAGE:
            return
        after = page[-1].seq


def read_jsonl(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"line {number}: not valid JSON ({exc.msg})") from None
        except (RecursionError, ValueError) as exc:
            raise InvalidInput(f"line {number}: {validate.unreadable_json(exc)}") from None
        if not isinstance(record, dict):
            raise InvalidInput(f"line {number}: expected a JSON object")
        yield record
