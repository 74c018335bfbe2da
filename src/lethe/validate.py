"""Input checks shared by every entry point, each failing with an actionable `InvalidInput`.

The engine calls these before it touches the embedder or the store, so a bad argument costs
nothing and changes nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from lethe.errors import InvalidInput
from lethe.model import EPISODE_ID_RE, LAYERS, MEMORY_ID_RE, NAMESPACE_RE

MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_LABEL_CHARS = 128
MAX_METADATA_BYTES = 16 * 1024


def content(text: object, *, max_bytes: int, what: str = "content") -> str:
    if not isinstance(text, str):
        raise InvalidInput(f"{what} must be text, got {type(text).__name__}")
    if not text.strip():
        raise InvalidInput(f"{what} is empty", hint=f"give the {what} to store as text")
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise InvalidInput(
            f"{what} is {size} bytes, over the limit of {max_bytes}",
            hint="split it into several memories, or raise LETHE_MAX_CONTENT_BYTES",
        )
    return text.strip()


def memory_id(value: object) -> str:
    if not isinstance(value, str) or not MEMORY_ID_RE.match(value):
        raise InvalidInput(
            f"malformed memory id {value!r}",
            hint="memory ids look like mem_ followed by 12 hex digits, e.g. mem_0123456789ab",
        )
    return value


def episode_id(value: object) -> str:
    if not isinstance(value, str) or not EPISODE_ID_RE.match(value):
        raise InvalidInput(
            f"malformed episode id {value!r}",
            hint="episode ids look like ep_ followed by 12 hex digits",
        )
    return value


def namespace(value: object) -> str:
    if not isinstance(value, str) or not NAMESPACE_RE.match(value):
        raise InvalidInput(
            f"invalid namespace {value!r}",
            hint="use 1-64 letters, digits or _ . : @ -, starting with a letter or digit",
        )
    return value


def label(value: object, what: str, *, allow_empty: bool = False) -> str:
    """Agent names, categories, link kinds: short single-line text."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text, got {type(value).__name__}")
    text = value.strip()
    if not text and not allow_empty:
        raise InvalidInput(f"{what} is empty")
    if len(text) > MAX_LABEL_CHARS or "\n" in text:
        raise InvalidInput(f"{what} must be one line of at most {MAX_LABEL_CHARS} characters")
    return text


def layer(value: object) -> str:
    if value not in LAYERS:
        raise InvalidInput(f"unknown layer {value!r}", hint=f"layers are {', '.join(LAYERS)}")
    return str(value)


def unit_interval(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(f"{what} must be a number between 0 and 1, got {value!r}")
    try:
        number = float(value)
    except OverflowError:
        raise InvalidInput(f"{what} must be between 0 and 1, got a number too large") from None
    if math.isnan(number):
        raise InvalidInput(f"{what} must be a number between 0 and 1, got NaN")
    if not 0.0 <= number <= 1.0:
        raise InvalidInput(f"{what} must be between 0 and 1, got {value!r:.40}")
    return number


def tags(values: Iterable[object] | str | None) -> tuple[str, ...]:
    if values is None:
        return ()
    if isinstance(values, str):
        values = [values]
    if isinstance(values, Mapping) or not isinstance(values, Iterable):
        raise InvalidInput(
            f"tags must be a list of text, got {type(values).__name__}",
            hint='pass e.g. ["work", "travel"]',
        )
    out: list[str] = []
    for value in values:
        tag = label(value, "tag")
        if len(tag) > MAX_TAG_CHARS:
            raise InvalidInput(f"tag {tag[:20]!r}… is longer than {MAX_TAG_CHARS} characters")
        if tag not in out:
            out.append(tag)
    if len(out) > MAX_TAGS:
        raise InvalidInput(f"at most {MAX_TAGS} tags per memory, got {len(out)}")
    return tuple(out)


def metadata(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInput(
            f"metadata must be a JSON object, got {type(value).__name__}",
            hint='pass a mapping such as {"source": "chat"}',
        )
    try:
        encoded = json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"metadata is not JSON-serialisable: {exc}") from None
    if len(encoded.encode("utf-8")) > MAX_METADATA_BYTES:
        raise InvalidInput(f"metadata is over {MAX_METADATA_BYTES} bytes as JSON")
    result: dict[str, Any] = json.loads(encoded)
    return result


def positive_int(value: object, what: str, *, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise InvalidInput(f"{what} must be a whole number from 1 to {maximum}, got {value!r}")
    return value


def offset(value: object, what: str) -> int:
    """A position to page from: a whole number >= 0."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f"{what} must be a whole number >= 0, got {value!r}")
    return value


def aware_time(value: object, what: str) -> datetime:
    """A point in time that says its time zone (a naive one would be read differently by
    each machine)."""
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise InvalidInput(
            f"{what} must be a timezone-aware datetime, got {value!r}",
            hint="give a time with its offset, e.g. 2026-11-23T00:00:00+00:00",
        )
    return value
