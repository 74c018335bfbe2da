"""Search and list filters, and the small expression language the faces accept.

A `Filters` value is backend-neutral: each store compiles it to its own SQL. Expressions such
as `@metadata.date < "2024-01-01" AND layer = semantic` are parsed here once, so the CLI, the
MCP server and the Python API all accept the same spelling (seed 002's `@metadata.` prefix
included) and reject the same mistakes with the same message.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator, model_validator

from lethe.common.identifiers import DEFAULT_NAMESPACE, LAYERS, NAMESPACE_RE, Layer
from lethe.errors import InvalidFilter

Op = Literal["=", "!=", "<", "<=", ">", ">=", "in", "contains"]
OPS: tuple[str, ...] = get_args(Op)

# Columns a condition may name directly; everything else must be spelled `@metadata.<field>`.
COLUMNS: dict[str, Literal["text", "number", "time"]] = {
    "agent": "text",
    "layer": "text",
    "category": "text",
    "importance": "number",
    "access_count": "number",
    "created_at": "time",
    "updated_at": "time",
    "last_accessed_at": "time",
}
_FIELD_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")
_EXPR_RE = re.compile(
    r"^\s*(?P<field>@?[A-Za-z_][\w.-]*)\s*"
    r"(?P<op>!=|<=|>=|==|=|<|>|\s(?:in|contains)\s)\s*(?P<value>.*?)\s*$",
    re.IGNORECASE | re.DOTALL,
)
_AND_RE = re.compile(r"\s+AND\s+", re.IGNORECASE)


class Condition(BaseModel):
    """`field op value`, where field is a column name or `metadata.<path>`."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    field: str
    op: Op
    value: Any

    @property
    def metadata_path(self) -> str | None:
        return self.field.removeprefix("metadata.") if self.field.startswith("metadata.") else None


class Filters(BaseModel):
    """What a recall or list may return. Unset fields do not filter."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    namespace: str = DEFAULT_NAMESPACE
    agent: str | None = None
    layer: Layer | None = None
    category: str | None = None
    tags: tuple[str, ...] = ()
    tags_mode: Literal["any", "all"] = "any"
    since: datetime | None = None
    until: datetime | None = None
    not_accessed_since: datetime | None = None
    conditions: tuple[Condition, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _check(cls, data: Any) -> Any:
        """Refuse bad values with an `InvalidFilter` that reads as one line, not a pydantic dump."""
        if not isinstance(data, dict):
            return data
        layer = data.get("layer")
        if layer is not None and layer not in LAYERS:
            raise InvalidFilter(f"unknown layer {layer!r}", hint=f"layers are {', '.join(LAYERS)}")
        mode = data.get("tags_mode", "any")
        if mode not in ("any", "all"):
            raise InvalidFilter(f"tags_mode must be 'any' or 'all', got {mode!r}")
        namespace = data.get("namespace", DEFAULT_NAMESPACE)
        if not isinstance(namespace, str) or not NAMESPACE_RE.match(namespace):
            raise InvalidFilter(f"invalid namespace {namespace!r}")
        for key in ("since", "until", "not_accessed_since"):
            value = data.get(key)
            if value is not None and not isinstance(value, datetime):
                data = {**data, key: datetime.fromtimestamp(to_epoch(value), UTC)}
        tags = data.get("tags")
        if isinstance(tags, str):
            data = {**data, "tags": (tags,)}
        return data

    @field_validator("since", "until", "not_accessed_since")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value

    def narrows_beyond_namespace(self) -> bool:
        """Whether anything other than the namespace restricts the result."""
        return bool(
            self.agent
            or self.layer
            or self.category is not None
            or self.tags
            or self.since
            or self.until
            or self.not_accessed_since
            or self.conditions
        )

    def with_expressions(self, expressions: Iterable[str]) -> Filters:
        extra = [c for expr in expressions for c in parse_expression(expr)]
        return self.model_copy(update={"conditions": (*self.conditions, *extra)})


def parse_expression(text: str) -> list[Condition]:
    """Parse `a = 1 AND @metadata.b in ["x", "y"]` into conditions."""
    if not text or not text.strip():
        raise InvalidFilter(
            "empty filter expression", hint='write FIELD OP VALUE, e.g. "layer=semantic"'
        )
    return [_parse_one(part) for part in _split_and(text)]


def _split_and(text: str) -> list[str]:
    """Split on AND outside of quotes, so quoted values may contain the word."""
    parts: list[str] = []
    buf: list[str] = []
    quote: str | None = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = None
            i += 1
            continue
        if ch in "\"'":
            quote = ch
            buf.append(ch)
            i += 1
            continue
        match = _AND_RE.match(text, i)
        if match:
            parts.append("".join(buf))
            buf = []
            i = match.end()
            continue
        buf.append(ch)
        i += 1
    parts.append("".join(buf))
    return parts


def _parse_one(text: str) -> Condition:
    match = _EXPR_RE.match(text)
    if not match or not match.group("value"):
        raise InvalidFilter(
            f"cannot parse filter {text.strip()!r}",
            hint="write FIELD OP VALUE with OP one of = != < <= > >= in contains, "
            'e.g. "@metadata.topic = pricing"',
        )
    op = match.group("op").strip().lower()
    op = "=" if op == "==" else op
    return make_condition(match.group("field"), op, _parse_value(match.group("value"), op))


def make_condition(field: str, op: str, value: Any) -> Condition:
    """Validate one condition; the single place field names and operators are checked."""
    name = normalise_field(field)
    if op not in OPS:
        raise InvalidFilter(f"unknown operator {op!r}", hint=f"use one of {' '.join(OPS)}")
    if op == "in" and not isinstance(value, list):
        value = [value]
    for item in value if op == "in" else [value]:
        if item is not None and not isinstance(item, str | int | float | bool):
            raise InvalidFilter(
                f"filter value for {name} must be a string, number or boolean, got {item!r}"
            )
    if name in COLUMNS:
        kind = COLUMNS[name]
        if op == "contains" and kind != "text":
            raise InvalidFilter(f"'contains' does not apply to {name}", hint="use = < > instead")
        if kind == "time":
            value = [to_epoch(v) for v in value] if op == "in" else to_epoch(value)
        elif kind == "number":
            value = [_number(name, v) for v in value] if op == "in" else _number(name, value)
        if name == "layer":
            for v in value if op == "in" else [value]:
                if v not in LAYERS:
                    raise InvalidFilter(
                        f"unknown layer {v!r}", hint=f"layers are {', '.join(LAYERS)}"
                    )
    return Condition(field=name, op=op, value=value)


def normalise_field(field: str) -> str:
    name = field.strip()
    if name.startswith("@"):
        name = name[1:]
        if not name.startswith("metadata."):
            raise InvalidFilter(
                f"unknown filter field {field!r}", hint="the @ prefix is for @metadata.<field>"
            )
    if name.startswith("metadata."):
        if not _FIELD_RE.match(name.removeprefix("metadata.")):
            raise InvalidFilter(
                f"invalid metadata field {field!r}",
                hint="metadata fields are letters, digits, _ and -, nested with dots",
            )
        return name
    if name not in COLUMNS:
        raise InvalidFilter(
            f"unknown filter field {field!r}",
            hint=f"use @metadata.{name} for a metadata field, or one of {', '.join(COLUMNS)}",
        )
    return name


def _parse_value(raw: str, op: str) -> Any:
    raw = raw.strip()
    try:
        value = json.loads(raw)
    except ValueError:
        if len(raw) >= 2 and raw[0] == raw[-1] == "'":
            return raw[1:-1]
        if op == "in":
            return [_parse_value(part, "=") for part in raw.split(",") if part.strip()]
        return raw
    return value


def _number(field: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        try:
            return float(value)
        except (TypeError, ValueError):
            raise InvalidFilter(f"{field} needs a number, got {value!r}") from None
    return float(value)


def to_epoch(value: Any) -> float:
    """Accept datetimes, ISO-8601 strings (a bare date means midnight UTC) and epoch seconds."""
    if isinstance(value, datetime):
        when = value
    elif isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    elif isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise InvalidFilter(
                f"cannot read {value!r} as a time",
                hint="use ISO-8601, e.g. 2024-01-31 or 2024-01-31T12:00",
            ) from None
    else:
        raise InvalidFilter(
            f"cannot read {value!r} as a time", hint="use ISO-8601, e.g. 2024-01-31"
        )
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


_MAPPING_KEYS = {
    "namespace",
    "agent",
    "layer",
    "category",
    "tags",
    "tag",
    "tags_mode",
    "since",
    "until",
    "not_accessed_since",
}


def filters_from_mapping(mapping: Mapping[str, Any], *, namespace: str | None = None) -> Filters:
    """Build filters from a JSON object such as seed 002's `{"tags": "test", "sourcePath": …}`.

    Known keys set the named filters; any other key is a metadata equality (`@metadata.` prefix
    optional). Empty values (None, "", [], {}) are ignored, so `{}` means no filter at all.
    """
    fields: dict[str, Any] = {}
    conditions: list[Condition] = []
    for key, value in mapping.items():
        if value is None or value == "" or value == [] or value == {}:
            continue
        if key in _MAPPING_KEYS:
            if key in ("tags", "tag"):
                fields["tags"] = tuple([value] if isinstance(value, str) else value)
            else:
                fields[key] = value
        else:
            field = key if key.startswith("@") or key.startswith("metadata.") else f"metadata.{key}"
            op = "in" if isinstance(value, list) else "="
            conditions.append(make_condition(field, op, value))
    if namespace is not None:
        fields.setdefault("namespace", namespace)
    try:
        return Filters(**fields, conditions=tuple(conditions))
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'filters'}: {e['msg']}" for e in exc.errors()
        )
        raise InvalidFilter(f"invalid filters: {problems}") from None
