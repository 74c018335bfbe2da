"""Compile backend-neutral `Filters` into a WHERE clause with bound parameters, for either
store.

Field names never reach the SQL text unchecked: columns come from a fixed map and metadata
paths are validated by `lethe.common.filters` and bound as parameters (a JSON path on SQLite,
a `text[]` path into the `jsonb` column on PostgreSQL). Metadata comparisons on PostgreSQL are
made between `jsonb` values, so numbers compare as numbers and strings as strings, as
`json_extract` does in SQLite. The clause is written with `?` marks (`where`), or with the
dialect's own (`compile_filters`).
"""

from __future__ import annotations

import json
from typing import Any

from lethe.common.filters import COLUMNS, Condition, Filters, to_epoch
from lethe.errors import InvalidFilter
from lethe.store.dialect import SQLITE, Dialect

_OPS = {"=": "=", "!=": "IS NOT", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_PG_OPS = {**_OPS, "!=": "IS DISTINCT FROM"}


def compile_filters(
    filters: Filters, dialect: Dialect = SQLITE, alias: str = "m"
) -> tuple[str, list[Any]]:
    """The clause in the dialect's own marks, for a statement run on the connection as is."""
    sql, params = where(filters, dialect, alias)
    return (sql if dialect.mark == "?" else sql.replace("?", dialect.mark)), params


def where(filters: Filters, dialect: Dialect = SQLITE, alias: str = "m") -> tuple[str, list[Any]]:
    """The clause with `?` marks, for a statement run through `dialect.run`."""
    clauses = [f"{alias}.namespace = ?", f"{alias}.status = 'active'"]
    params: list[Any] = [filters.namespace]
    for column in ("agent", "layer"):
        value = getattr(filters, column)
        if value:
            clauses.append(f"{alias}.{column} = ?")
            params.append(value)
    if filters.category is not None:
        clauses.append(f"{alias}.category = ?")
        params.append(filters.category)
    if filters.tags:
        which, tags = dialect.any_of("t.tag", list(filters.tags))
        if filters.tags_mode == "any":
            clauses.append(
                f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = {alias}.id AND {which})"
            )
        else:
            clauses.append(
                f"(SELECT count(DISTINCT t.tag) FROM memory_tags t "
                f"WHERE t.memory_id = {alias}.id AND {which}) = {len(set(filters.tags))}"
            )
        params.extend(tags)
    if filters.since:
        clauses.append(f"{alias}.created_at >= ?")
        params.append(filters.since.timestamp())
    if filters.until:
        clauses.append(f"{alias}.created_at < ?")
        params.append(filters.until.timestamp())
    if filters.not_accessed_since:
        # Never recalled counts from creation: a memory made a minute ago is not "stale".
        clauses.append(f"coalesce({alias}.last_accessed_at, {alias}.created_at) < ?")
        params.append(filters.not_accessed_since.timestamp())
    condition = _postgres_condition if dialect.name == "postgres" else _sqlite_condition
    for c in filters.conditions:
        sql, values = condition(c, alias)
        clauses.append(sql)
        params.extend(values)
    return " AND ".join(clauses), params


def _jsonb(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _sqlite_condition(c: Condition, alias: str) -> tuple[str, list[Any]]:
    path = c.metadata_path
    if path is None:
        target, target_params = f"{alias}.{c.field}", []
        value = c.value
        if COLUMNS.get(c.field) == "time":
            value = [to_epoch(v) for v in value] if c.op == "in" else to_epoch(value)
    else:
        json_path = "$." + ".".join(f'"{part}"' for part in path.split("."))
        target, target_params = f"json_extract({alias}.metadata, ?)", [json_path]
        value = c.value
        if c.op == "contains":
            return (
                f"(CASE json_type({alias}.metadata, ?) "
                f"WHEN 'array' THEN EXISTS (SELECT 1 FROM json_each({alias}.metadata, ?) "
                f"WHERE json_each.value = ?) "
                f"WHEN 'text' THEN instr(json_extract({alias}.metadata, ?), ?) > 0 ELSE 0 END)",
                [json_path, json_path, value, json_path, str(value)],
            )
    if c.op == "in":
        marks = ", ".join("?" for _ in value)
        return f"{target} IN ({marks})", [*target_params, *value]
    if c.op == "contains":
        return f"instr({target}, ?) > 0", [*target_params, str(value)]
    if c.op not in _OPS:
        raise InvalidFilter(f"unknown operator {c.op!r}")
    if value is None:
        return f"{target} {'IS' if c.op == '=' else 'IS NOT'} NULL", target_params
    return f"{target} {_OPS[c.op]} ?", [*target_params, value]


def _postgres_condition(c: Condition, alias: str) -> tuple[str, list[Any]]:
    path = c.metadata_path
    if path is None:
        target = f"{alias}.{c.field}"
        value = c.value
        if COLUMNS.get(c.field) == "time":
            value = [to_epoch(v) for v in value] if c.op == "in" else to_epoch(value)
        if c.op == "in":
            return f"{target} = ANY(?)", [list(value)]
        if c.op == "contains":
            return f"strpos({target}::text, ?) > 0", [str(value)]
        if c.op not in _OPS:
            raise InvalidFilter(f"unknown operator {c.op!r}")
        if value is None:
            return f"{target} {'IS' if c.op == '=' else 'IS NOT'} NULL", []
        return f"{target} {_PG_OPS[c.op]} ?", [value]

    parts = path.split(".")
    target = f"({alias}.metadata #> ?)"
    if c.op == "contains":
        return (
            f"(CASE jsonb_typeof({alias}.metadata #> ?) "
            f"WHEN 'array' THEN ({alias}.metadata #> ?) @> ?::jsonb "
            f"WHEN 'string' THEN strpos({alias}.metadata #>> ?, ?) > 0 ELSE false END)",
            [parts, parts, _jsonb([c.value]), parts, str(c.value)],
        )
    if c.op == "in":
        return f"{target} = ANY(?::jsonb[])", [parts, [_jsonb(v) for v in c.value]]
    if c.op not in _OPS:
        raise InvalidFilter(f"unknown operator {c.op!r}")
    if c.value is None:
        # A missing field and a JSON null both count as null, as in SQLite.
        null = f"coalesce({target}, 'null'::jsonb) = 'null'::jsonb"
        return (null if c.op == "=" else f"NOT {null}"), [parts]
    return f"{target} {_PG_OPS[c.op]} ?::jsonb", [parts, _jsonb(c.value)]
