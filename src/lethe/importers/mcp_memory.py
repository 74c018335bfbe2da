"""The knowledge graph of the MCP reference memory server (`@modelcontextprotocol/server-memory`).

Its file (`memory.jsonl`, `memory.json` before) holds one JSON object a line:
`{"type": "entity", "name", "entityType", "observations": [text, …]}` or
`{"type": "relation", "from", "to", "relationType"}`, relations naming entities by their exact
name. lethe stores facts, not nodes: each observation becomes a memory that carries its
entity (`entity`, `entity_type` in metadata), and a relation becomes links between the
memories of its two entities. The server skips a line it cannot parse; an import must not
lose data silently, so such a line refuses the file instead.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from lethe.common.validate import unreadable_json
from lethe.importers.names import link_kind
from lethe.importers.parsed import NOT_UTF8_HINT, Item, Parsed, Relation, decode, read_bytes

SOURCE = "mcp-memory"
_ENTITY_FIELDS = {"type", "name", "entityType", "observations"}
_RELATION_FIELDS = {"type", "from", "to", "relationType"}
_LINE_HINT = (
    'one JSON object a line: {"type": "entity", "name", "entityType", "observations": [...]} '
    'or {"type": "relation", "from", "to", "relationType"}'
)


def read(path: Path, *, namespace: str | None) -> Parsed:
    parsed = Parsed(SOURCE, str(path))
    text = decode(read_bytes(path, "memory.jsonl"))
    if isinstance(text, tuple):
        parsed.bad(f"line {text[0]}", text[1], NOT_UTF8_HINT)
        return parsed
    # Only "\n" ends a record: JSON.stringify leaves U+2028 and friends raw inside strings.
    known: set[str] = set()
    relations: list[tuple[str, str, str, str]] = []
    ignored: Counter[str] = Counter()
    first_seen: dict[str, str] = {}
    renamed: dict[str, tuple[str, str]] = {}
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        parsed.records += 1
        where = f"line {number}"
        try:
            record: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            parsed.bad(where, f"not valid JSON ({exc.msg} at column {exc.colno})", _LINE_HINT)
            continue
        except (RecursionError, ValueError) as exc:
            parsed.bad(where, unreadable_json(exc), _LINE_HINT)
            continue
        if not isinstance(record, dict):
            parsed.bad(where, f"expected a JSON object, got {type(record).__name__}", _LINE_HINT)
            continue
        kind = record.get("type")
        if kind == "entity":
            _entity(parsed, record, where, namespace, known)
            extra = set(record) - _ENTITY_FIELDS
        elif kind == "relation":
            fields = _relation(parsed, record, where)
            if fields is not None:
                relations.append((where, *fields))
                if fields[2] != record["relationType"]:
                    renamed.setdefault(record["relationType"], (where, fields[2]))
            extra = set(record) - _RELATION_FIELDS
        else:
            parsed.bad(where, f"type {kind!r} is neither 'entity' nor 'relation'", _LINE_HINT)
            continue
        ignored.update(extra)
        for name in extra:
            first_seen.setdefault(name, where)
    # Said once per field and per relation type, where first seen: a file repeats them.
    for name, count in sorted(ignored.items()):
        parsed.drop(
            first_seen[name], f"field {name!r} ({count} record(s)) is not in the format; ignored"
        )
    for relation_type, (where, kind) in renamed.items():
        parsed.drop(where, f"relationType {relation_type!r} is stored as link kind {kind!r}")
    _resolve(parsed, relations, known)
    return parsed


def _entity(
    parsed: Parsed,
    record: dict[str, Any],
    where: str,
    namespace: str | None,
    known: set[str],
) -> None:
    name, entity_type, observations = (
        record.get("name"),
        record.get("entityType"),
        record.get("observations"),
    )
    if not isinstance(name, str) or not name.strip():
        parsed.bad(where, "an entity needs its name as non-empty text", _LINE_HINT)
        return
    if not isinstance(entity_type, str):
        parsed.bad(where, f"entity {name!r} needs an entityType as text", _LINE_HINT)
        return
    if not isinstance(observations, list) or not all(isinstance(o, str) for o in observations):
        parsed.bad(where, f"entity {name!r} needs observations as a list of texts", _LINE_HINT)
        return
    kept = 0
    for n, observation in enumerate(observations, start=1):
        if not observation.strip():
            parsed.drop(where, f"observation {n} of entity {name!r} is empty")
            continue
        fields: dict[str, Any] = {
            "content": observation,
            "metadata": {"entity": name, "entity_type": entity_type},
        }
        if namespace is not None:
            fields["namespace"] = namespace
        parsed.items.append(Item(where, fields, entity=name))
        kept += 1
    if not kept and name not in known:
        parsed.drop(where, f"entity {name!r} has no observations: there is no fact to remember")
    known.add(name)


def _relation(parsed: Parsed, record: dict[str, Any], where: str) -> tuple[str, str, str] | None:
    ends = record.get("from"), record.get("to")
    relation_type = record.get("relationType")
    if not all(isinstance(e, str) and e.strip() for e in ends):
        parsed.bad(where, "a relation needs 'from' and 'to' as entity names (text)", _LINE_HINT)
        return None
    if not isinstance(relation_type, str):
        parsed.bad(where, "a relation needs its relationType as text", _LINE_HINT)
        return None
    return str(ends[0]), str(ends[1]), link_kind(relation_type)


def _resolve(parsed: Parsed, relations: list[tuple[str, str, str, str]], known: set[str]) -> None:
    """Keep the relations whose two entities have memories; say why each other one goes."""
    remembered = {item.entity for item in parsed.items}
    for where, source, target, kind in relations:
        missing = [end for end in (source, target) if end not in remembered]
        if not missing:
            parsed.relations.append(Relation(where, source, target, kind))
            continue
        why = "; ".join(
            f"entity {end!r} has no observations" if end in known else f"no entity {end!r}"
            for end in dict.fromkeys(missing)
        )
        parsed.drop(
            where, f"relation {source!r} {kind} {target!r} has no memory at one end ({why})"
        )
