"""Compile backend-neutral `Filters` into a PostgreSQL WHERE clause with bound parameters.

The same contract as `sqlite_filters`: columns come from a fixed map, metadata paths are
validated by `lethe.common.filters` and bound as `text[]` paths into the `jsonb` column, and every
value is a parameter. Metadata comparisons are made between `jsonb` values, so numbers
compare as numbers and strings as strings, as `json_extract` does in SQLite.
"""

from __future__ import annotations

import json
from typing import Any

from lethe.common.filters import COLUMNS, Condition, Filters, to_epoch
from lethe.errors import InvalidFilter

_OPS = {"=": "=", "!=": "IS DISTINCT FROM", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def compile_filters(filters: Filters, alias: str = "m") -> tuple[str, list[Any]]:
    clauses = [f"{alias}.namespace = %s", f"{alias}.status = 'active'"]
    params: list[Any] = [filters.namespace]
    for column in ("agent", "layer"):
        value = getattr(filters, column)
        if value:
            clauses.append(f"{alias}.{column} = %s")
            params.append(value)
    if filters.category is not None:
        clauses.append(f"{alias}.category = %s")
        params.append(filters.category)
    if filters.tags:
        tags = list(filters.tags)
        if filters.tags_mode == "any":
            clauses.append(
                f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = {alias}.id "
                "AND t.tag = ANY(%s))"
            )
        else:
            clauses.append(
                f"(SELECT count(DISTINCT t.tag) FROM memory_tags t "
                f"WHERE t.memory_id = {alias}.id AND t.tag = ANY(%s)) = {len(set(tags))}"
            )
        params.append(tags)
    if filters.since:
        clauses.append(f"{alias}.created_at >= %s")
        params.append(filters.since.timestamp())
    if filters.until:
        clauses.append(f"{alias}.created_at < %s")
        params.append(filters.until.timestamp())
    if filters.not_accessed_since:
        # Never recalled counts from creation: a memory made a minute ago is not "stale".
        clauses.append(f"coalesce({alias}.last_accessed_at, {alias}.created_at) < %s")
        params.append(filters.not_accessed_since.timestamp())
    for condition in filters.conditions:
        sql, values = _condition(condition, alias)
        clauses.append(sql)
        params.extend(values)
    return " AND ".join(clauses), params


def _jsonb(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _condition(c: Condition, alias: str) -> tuple[str, list[Any]]:
    path = c.metadata_path
    if path is None:
        target = f"{alias}.{c.field}"
        value = c.value
        if COLUMNS.get(c.field) == "time":
            value = [to_epoch(v) for v in value] if c.op == "in" else to_epoch(value)
        if c.op == "in":
            return f"{target} = ANY(%s)", [list(value)]
        if c.op == "contains":
            return f"strpos({target}::text, %s) > 0", [str(value)]
        if c.op not in _OPS:
            raise InvalidFilter(f"unknown operator {c.op!r}")
        if value is None:
            return f"{target} {'IS' if c.op == '=' else 'IS NOT'} NULL", []
        return f"{target} {_OPS[c.op]} %s", [value]

    parts = path.split(".")
    target = f"({alias}.metadata #> %s)"
    if c.op == "contains":
        return (
            f"(CASE jsonb_typeof({alias}.metadata #> %s) "
            f"WHEN 'array' THEN ({alias}.metadata #> %s) @> %s::jsonb "
            f"WHEN 'string' THEN strpos({alias}.metadata #>> %s, %s) > 0 ELSE false END)",
            [parts, parts, _jsonb([c.value]), parts, str(c.value)],
        )
    if c.op == "in":
        return f"{target} = ANY(%s::jsonb[])", [parts, [_jsonb(v) for v in c.value]]
    if c.op not in _OPS:
        raise InvalidFilter(f"unknown operator {c.op!r}")
    if c.value is None:
        # A missing field and a JSON null both count as null, as in SQLite.
        null = f"coalesce({target}, 'null'::jsonb) = 'null'::jsonb"
        return (null if c.op == "=" else f"NOT {null}"), [parts]
    return f"{target} {_OPS[c.op]} %s::jsonb", [parts, _jsonb(c.value)]
