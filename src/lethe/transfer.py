"""The JSONL interchange format of `lethe export` / `lethe import`.

One JSON object per line, with a `type` of `memory`, `link` or `episode`. Memories come
first, so a reader can stream the file. A memory record needs only `content`; every other
field (including `id` and timestamps, which import keeps) is optional.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from pydantic import ValidationError

from lethe.errors import InvalidInput
from lethe.model import Draft
from lethe.store.base import Store

_MEMORY_FIELDS = set(Draft.model_fields) - {"validated"}
# Fields an export carries that import re-derives rather than trusts.
_DERIVED_FIELDS = {
    "type",
    "status",
    "content_sha256",
    "access_count",
    "last_accessed_at",
    "forgotten_at",
    "forgotten_by",
    "forget_reason",
}


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).isoformat()


def parse_record(record: Any, line: int) -> Draft:
    """A memory record as a draft; a mistake names the line it is on."""
    if not isinstance(record, dict):
        raise InvalidInput(f"line {line}: expected a JSON object, got {type(record).__name__}")
    kind = record.get("type", "memory")
    if kind != "memory":
        raise InvalidInput(f"line {line}: expected a memory record, got type {kind!r}")
    fields = {k: v for k, v in record.items() if k in _MEMORY_FIELDS and v is not None}
    unknown = set(record) - _MEMORY_FIELDS - _DERIVED_FIELDS
    if unknown:
        raise InvalidInput(f"line {line}: unknown field(s) {', '.join(sorted(unknown))}")
    try:
        return Draft(**fields)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise InvalidInput(f"line {line}: {problems}") from None


class Export:
    """The records of one export, streamed; iterate it to get them.

    The live ids are read once, up front, so `memories` is known before the first record: a
    face can size a progress bar without a second pass over the store.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._ids = store.memory_ids()

    @property
    def memories(self) -> int:
        """How many memory records the export holds (links and episodes come after them)."""
        return len(self._ids)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return _records(self._store, self._ids)


def _records(store: Store, ids: list[str]) -> Iterator[dict[str, Any]]:
    live = set(ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        found = store.get_many(chunk)
        for memory_id in chunk:
            if memory_id in found:
                record = found[memory_id].model_dump(
                    mode="json", exclude={"status", "forgotten_at", "forgotten_by", "forget_reason"}
                )
                yield {"type": "memory", **record}
    for row in store.iter_rows("links"):
        if row["a"] in live and row["b"] in live:
            yield {
                "type": "link",
                "a": row["a"],
                "b": row["b"],
                "kind": row["kind"],
                "confidence": row["confidence"],
            }
    for row in store.iter_rows("episodes"):
        members = [m for m in store.episode_member_ids(row["id"]) if m in live]
        yield {
            "type": "episode",
            "id": row["id"],
            "namespace": row["namespace"],
            "summary": row["summary"],
            "start_at": _iso(row["start_at"]),
            "end_at": _iso(row["end_at"]),
            "importance": row["importance"],
            "members": members,
        }


def parse_episode(record: dict[str, Any], line: int) -> tuple[dict[str, Any], list[str]]:
    """Check an episode record's shape; the engine validates its values."""
    members = record.get("members", [])
    if not isinstance(members, list) or not all(isinstance(m, str) for m in members):
        raise InvalidInput(f"line {line}: episode members must be a list of memory ids")
    for key in ("id", "summary", "start_at", "end_at"):
        if not isinstance(record.get(key), str):
            raise InvalidInput(f"line {line}: episode record needs a text {key!r}")
    try:
        start = datetime.fromisoformat(record["start_at"])
        end = datetime.fromisoformat(record["end_at"])
    except ValueError:
        raise InvalidInput(f"line {line}: episode times must be ISO-8601") from None
    fields = {
        "id": record["id"],
        "namespace": record.get("namespace", "default"),
        "summary": record["summary"],
        "start_at": start if start.tzinfo else start.replace(tzinfo=UTC),
        "end_at": end if end.tzinfo else end.replace(tzinfo=UTC),
        "importance": record.get("importance", 0.5),
    }
    return fields, members


def parse_link(record: dict[str, Any], line: int) -> tuple[str, str, str, float]:
    a, b = record.get("a"), record.get("b")
    kind, confidence = record.get("kind", "related"), record.get("confidence", 1.0)
    if not isinstance(a, str) or not isinstance(b, str) or not isinstance(kind, str):
        raise InvalidInput(f"line {line}: a link record needs text fields a, b and kind")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise InvalidInput(f"line {line}: link confidence must be a number")
    return a, b, kind, float(confidence)


def read_jsonl(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(f"line {number}: not valid JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise InvalidInput(f"line {number}: expected a JSON object")
        yield record
