"""Compile backend-neutral `Filters` into a SQLite WHERE clause with bound parameters.

Field names never reach the SQL text unchecked: columns come from a fixed map and metadata
paths are validated by `lethe.common.filters` and passed as bound JSON paths.
"""

from __future__ import annotations

from typing import Any

from lethe.common.filters import COLUMNS, Condition, Filters, to_epoch
from lethe.errors import InvalidFilter

_OPS = {"=": "=", "!=": "IS NOT", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def compile_filters(filters: Filters, alias: str = "m") -> tuple[str, list[Any]]:
    clauses = [f"{alias}.namespace = ?", f"{alias}.status = 'active'"]
    params: list[Any] = [filters.namespace]
    if filters.agent:
        clauses.append(f"{alias}.agent = ?")
        params.append(filters.agent)
    if filters.layer:
        clauses.append(f"{alias}.layer = ?")
        params.append(filters.layer)
    if filters.category is not None:
        clauses.append(f"{alias}.category = ?")
        params.append(filters.category)
    if filters.tags:
        marks = ", ".join("?" for _ in filters.tags)
        if filters.tags_mode == "any":
            clauses.append(
                f"EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = {alias}.id "
                f"AND t.tag IN ({marks}))"
            )
        else:
            clauses.append(
                f"(SELECT count(DISTINCT t.tag) FROM memory_tags t WHERE t.memory_id = {alias}.id "
                f"AND t.tag IN ({marks})) = {len(set(filters.tags))}"
            )
        params.extend(filters.tags)
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
    for condition in filters.conditions:
        sql, values = _condition(condition, alias)
        clauses.append(sql)
        params.extend(values)
    return " AND ".join(clauses), params


def _condition(c: Condition, alias: str) -> tuple[str, list[Any]]:
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
