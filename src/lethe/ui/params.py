"""Reading a page's address and forms into the engine's arguments, with the engine's own
errors for anything malformed (the error page then says what was wrong)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request

from lethe.errors import InvalidInput

MAX_TEXT = 2000
MAX_MOMENT = 64
"""An instant (an expiry, an as-of moment) is ISO 8601 text: anything longer is not one."""
DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def text(request: Request, name: str, *, limit: int = MAX_TEXT) -> str | None:
    value = request.query_params.get(name, "").strip()
    if len(value) > limit:
        raise InvalidInput(f"{name} is over {limit} characters")
    return value or None


def field(form: dict[str, list[str]], name: str, *, limit: int = MAX_TEXT) -> str | None:
    values = form.get(name) or [""]
    value = values[0].strip()
    if len(value) > limit:
        raise InvalidInput(f"{name} is over {limit} characters")
    return value or None


def fields(form: dict[str, list[str]], name: str) -> list[str]:
    return [v.strip() for v in form.get(name, []) if v.strip()]


def number(request: Request, name: str, default: int, *, low: int = 1, high: int = 10**9) -> int:
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise InvalidInput(f"{name} must be a whole number from {low} to {high}, got {raw!r}")
    return int(raw)


def day(request: Request, name: str) -> datetime | None:
    """A calendar day (YYYY-MM-DD) as the start of that day in UTC."""
    raw = text(request, name, limit=10)
    if raw is None:
        return None
    try:
        if not DAY.match(raw):
            raise ValueError
        return datetime.strptime(raw, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        raise InvalidInput(f"{name} must be a day like 2026-11-23, got {raw!r}") from None


def memory_filters(request: Request) -> tuple[dict[str, Any], list[str]]:
    """The memory list's filters: the engine's filter mapping and `where` expressions."""
    until = day(request, "until")
    tags = [t.strip() for t in (text(request, "tags") or "").split(",") if t.strip()]
    filters: dict[str, Any] = {
        "namespace": text(request, "namespace") or "default",
        "agent": text(request, "agent"),
        "layer": text(request, "layer"),
        "category": text(request, "category"),
        "tags": tags,
        "tags_mode": "all" if request.query_params.get("tags_mode") == "all" else "any",
        "since": day(request, "since"),
        "until": until + timedelta(days=1) if until else None,  # the whole last day
    }
    where = text(request, "where")
    return filters, [where] if where else []
