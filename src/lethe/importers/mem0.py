"""A mem0 export: the JSON of `Memory.get_all()` / `MemoryClient.get_all()`.

That is a list of memories, or `{"results": [...]}` (with `relations` when mem0's graph store
is on; the hosted API adds `count`, `next`, `previous`). A memory is `{"id", "memory",
"hash", "metadata", "created_at", "updated_at"}` plus, when set, `user_id`, `agent_id`,
`run_id`, `actor_id`, `role` (the hosted API: `app_id`, `categories`, `immutable`,
`expiration_date`, …). mem0 scopes memories by user: `user_id` becomes the namespace, so
two users' memories stay apart in lethe too.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from lethe.common import validate
from lethe.errors import InvalidInput
from lethe.importers.names import agent_for, namespace_for
from lethe.importers.parsed import NOT_UTF8_HINT, Item, Parsed, decode, iso_time, read_bytes

SOURCE = "mem0"
_OWN = {"memory", "metadata", "created_at", "updated_at", "expiration_date", "categories"}
_DROPPED = {"score"}
"""What a search result adds to a memory: a property of that query, not of the memory."""
_SHAPE_HINT = (
    'export with m.get_all(...) and save the JSON: a list of memories, or {"results": [...]}'
)


def read(path: Path, *, namespace: str | None, now: datetime) -> Parsed:
    parsed = Parsed(SOURCE, str(path))
    text = decode(read_bytes(path, "mem0 export"))
    if isinstance(text, tuple):
        parsed.bad(f"line {text[0]}", text[1], NOT_UTF8_HINT)
        return parsed
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        parsed.bad(f"line {exc.lineno}", f"not valid JSON ({exc.msg} at column {exc.colno})")
        return parsed
    except (RecursionError, ValueError) as exc:
        parsed.bad("file", validate.unreadable_json(exc))
        return parsed
    prefix = ""
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        prefix, records = "results", data["results"]
        graph = data.get("relations")
        if isinstance(graph, list) and graph:
            parsed.drop(
                "relations",
                f"{len(graph)} graph relation(s) of mem0's graph store: they join entities "
                "mem0 extracted, not memories, so there is nothing to link",
            )
    elif isinstance(data, list):
        records = data
    else:
        parsed.bad("file", "expected a list of memories or an object with 'results'", _SHAPE_HINT)
        return parsed
    for index, record in enumerate(records):
        parsed.records += 1
        _memory(parsed, record, f"{prefix}[{index}]", namespace, now)
    return parsed


def _memory(parsed: Parsed, record: Any, where: str, namespace: str | None, now: datetime) -> None:
    if not isinstance(record, dict):
        parsed.bad(where, f"expected a memory object, got {type(record).__name__}", _SHAPE_HINT)
        return
    text = record.get("memory")
    if not isinstance(text, str) or not text.strip():
        parsed.bad(where, "the memory's text 'memory' is missing or empty", _SHAPE_HINT)
        return
    problems = len(parsed.problems)
    user = _name(parsed, record, "user_id", where)
    agent = _name(parsed, record, "agent_id", where)
    metadata = record.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        parsed.bad(where, f"metadata must be an object, got {type(metadata).__name__}")
    times = {k: iso_time(parsed, record.get(k), k, where) for k in ("created_at", "updated_at")}
    expires = iso_time(parsed, record.get("expiration_date"), "expiration_date", where)
    if len(parsed.problems) > problems:
        return
    if expires is not None and expires <= now:
        parsed.drop(where, f"expired in mem0 on {expires.date().isoformat()}")
        return
    fields: dict[str, Any] = {
        "content": text,
        "namespace": namespace or _namespace(parsed, user),
        "agent": agent_for(agent),
        "metadata": _metadata(parsed, record, metadata or {}, where),
        "created_at": times["created_at"],
        "updated_at": times["updated_at"] or times["created_at"],
        "expires_at": expires,
        "tags": _tags(parsed, record.get("categories"), where),
    }
    if agent is not None and fields["agent"] != agent:
        parsed.drop(where, f"agent_id {agent!r} is stored as agent {fields['agent']!r}")
    parsed.items.append(Item(where, fields))


def _name(parsed: Parsed, record: dict[str, Any], key: str, where: str) -> str | None:
    value = record.get(key)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    parsed.bad(where, f"{key} must be text, got {type(value).__name__}")
    return None


def _namespace(parsed: Parsed, user: str | None) -> str:
    namespace = namespace_for(user)
    if user and user.strip() and namespace != user:
        parsed.namespaces[user] = namespace
    return namespace


def _metadata(
    parsed: Parsed, record: dict[str, Any], given: dict[str, Any], where: str
) -> dict[str, Any]:
    """The memory's own metadata, plus every other mem0 field under `mem0` (its id first),
    so nothing mem0 knew is lost and `@metadata.mem0.id` finds a memory by its mem0 id."""
    ours = {
        k: v
        for k, v in record.items()
        if k not in _OWN and k not in _DROPPED and v is not None and v != ""
    }
    metadata = dict(given)
    if "mem0" in metadata and metadata["mem0"] != ours:
        metadata["mem0_original"] = metadata["mem0"]
        parsed.drop(where, "metadata.mem0 is kept as metadata.mem0_original")
    metadata["mem0"] = dict(sorted(ours.items(), key=lambda kv: kv[0] != "id"))
    if isinstance(record.get("categories"), list):
        metadata["mem0"]["categories"] = record["categories"]
    return metadata


def _tags(parsed: Parsed, categories: Any, where: str) -> list[str]:
    """mem0's categories are lethe's tags, when lethe's tag rules allow them."""
    if categories is None:
        return []
    try:
        return list(validate.tags(categories))
    except InvalidInput as exc:
        parsed.drop(where, f"categories are not tags ({exc.message}); kept in metadata.mem0")
        return []
