"""Input checks shared by every entry point, each failing with an actionable `InvalidInput`.

The engine calls these before it touches the embedder or the store, so a bad argument costs
nothing and changes nothing.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from lethe.common.identifiers import EPISODE_ID_RE, LAYERS, MEMORY_ID_RE, NAMESPACE_RE
from lethe.errors import InvalidInput

MAX_TAGS = 32
MAX_TAG_CHARS = 64
MAX_LABEL_CHARS = 128
MAX_METADATA_BYTES = 16 * 1024


def text(value: str, what: str) -> str:
    """Refuse what no store keeps as text: a NUL character (PostgreSQL cannot store it, C
    tools read it as the end) or a lone surrogate (half a UTF-16 pair, which no encoder can
    write). Every string lethe stores passes here."""
    if "\x00" in value:
        raise InvalidInput(
            f"{what} contains a NUL character (\\0) at position {value.index(chr(0))}",
            hint="remove it: lethe stores text, not binary data",
        )
    if not value.isascii():
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InvalidInput(
                f"{what} contains a lone surrogate ({value[exc.start]!a}) at position "
                f"{exc.start}, which is not text",
                hint="send valid Unicode (UTF-8); a file or argument that is not UTF-8 shows up "
                "this way",
            ) from None
    return value


def content(text_: object, *, max_bytes: int, what: str = "content") -> str:
    if not isinstance(text_, str):
        raise InvalidInput(f"{what} must be text, got {type(text_).__name__}")
    text_ = text(text_, what)
    if not text_.strip():
        raise InvalidInput(f"{what} is empty", hint=f"give the {what} to store as text")
    size = len(text_.encode("utf-8"))
    if size > max_bytes:
        raise InvalidInput(
            f"{what} is {size} bytes, over the limit of {max_bytes}",
            hint="split it into several memories, or raise LETHE_MAX_CONTENT_BYTES",
        )
    return text_.strip()


_SHA256 = re.compile(r"[0-9a-f]{64}")


def sha256_hex(value: object, what: str = "expected_sha256") -> str:
    """A content hash as lethe shows it: 64 lowercase hex digits."""
    if not isinstance(value, str) or not _SHA256.fullmatch(value.strip().lower()):
        raise InvalidInput(
            f"{what} must be 64 hexadecimal digits (a content_sha256), got {value!r}",
            hint="copy content_sha256 from the memory as get or list shows it",
        )
    return value.strip().lower()


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


RESERVED_NAMESPACES = ("memory", "memory.md")
"""Names the workspace uses for its own files beside the namespace folders (`MEMORY.md`,
`memory/`), compared without case as on macOS and Windows file systems."""


def namespace(value: object) -> str:
    if not isinstance(value, str) or not NAMESPACE_RE.match(value):
        raise InvalidInput(
            f"invalid namespace {value!r}",
            hint="use 1-64 letters, digits or _ . : @ -, starting with a letter or digit",
        )
    return value


def new_namespace(value: object) -> str:
    """A namespace to store a memory in. Names the workspace uses for its own files are
    refused here, for writing only: a store that already holds such a namespace (made by an
    older lethe) can still be read, exported and forgotten from."""
    checked = namespace(value)
    if checked.lower() in RESERVED_NAMESPACES:
        raise InvalidInput(
            f"namespace {checked!r} is reserved: the workspace keeps its own MEMORY.md and "
            "memory/ under that name",
            hint=f"choose another name, e.g. {checked.split('.')[0].lower()}-notes",
        )
    return checked


def label(value: object, what: str, *, allow_empty: bool = False) -> str:
    """Agent names, categories, link kinds: short single-line text."""
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be text, got {type(value).__name__}")
    line = text(value, what).strip()
    if not line and not allow_empty:
        raise InvalidInput(f"{what} is empty")
    if len(line) > MAX_LABEL_CHARS or "\n" in line:
        raise InvalidInput(f"{what} must be one line of at most {MAX_LABEL_CHARS} characters")
    return line


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
    _strings_of(json.loads(encoded), "metadata")
    if len(encoded.encode("utf-8")) > MAX_METADATA_BYTES:
        raise InvalidInput(f"metadata is over {MAX_METADATA_BYTES} bytes as JSON")
    result: dict[str, Any] = json.loads(encoded)
    return result


def _strings_of(value: object, where: str) -> None:
    """Every key and string in a JSON value through `text`."""
    if isinstance(value, str):
        text(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            text(key, f"a key in {where}")
            _strings_of(item, f"{where}.{key}")
    elif isinstance(value, list):
        for n, item in enumerate(value):
            _strings_of(item, f"{where}[{n}]")


def positive_int(value: object, what: str, *, maximum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
        raise InvalidInput(f"{what} must be a whole number from 1 to {maximum}, got {value!r}")
    return value


MAX_OFFSET = 2**63 - 1
"""The largest integer both stores hold (SQLite INTEGER, PostgreSQL bigint)."""


def offset(value: object, what: str) -> int:
    """A position to page from: a whole number from 0 to `MAX_OFFSET`."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_OFFSET:
        raise InvalidInput(
            f"{what} must be a whole number from 0 to {MAX_OFFSET}, got {value!r:.40}"
        )
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


def unreadable_json(exc: RecursionError | ValueError) -> str:
    """Why Python's JSON parser gave up on text that may be well-formed: nesting deeper than
    it recurses (`[` x 100,000) or a number of thousands of digits. A hostile file must get
    the one-line error any other bad record gets, never a traceback."""
    if isinstance(exc, RecursionError):
        return "not readable JSON: arrays or objects nested deeper than lethe reads"
    return f"not readable JSON: {str(exc).split(';')[0]}"
