"""Messages lethe refuses before the MCP SDK reads them: text that is not text.

JSON allows an escape of half a UTF-16 pair (`"\\ud800"`), which decodes to a lone surrogate:
no encoder can write it back, so over stdio the SDK's answer could never be sent and the
client waited forever; over HTTP its parser said "unexpected end of hex escape". Bytes that
are not UTF-8 were read over stdio as U+FFFD, silently changing what was stored. Each such
message is answered here instead, with a JSON-RPC error that says what is wrong and where.

Used by `lethe.mcp.stdio` (line by line) and `lethe.mcp.http` (body by body). Imports no SDK:
stdio checks its first line before the SDK has loaded. NUL characters are valid JSON text and
are refused per tool argument instead (`lethe.mcp.params`), as a tool error the model reads.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

# Only a body holding such an escape (or bytes that are not UTF-8) can carry a surrogate:
# the rest skip parsing.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF][0-9a-fA-F]{2}")


@dataclass(frozen=True)
class Refusal:
    """Why a message was refused, and the JSON-RPC error answering it."""

    problem: str
    request_id: str | int | None
    """The id of the refused request; None for a notification, a response or no id at all."""
    is_request: bool
    error: dict[str, Any]

    @property
    def line(self) -> bytes:
        return json.dumps(self.error, separators=(",", ":")).encode() + b"\n"


def refusal(raw: bytes | str) -> Refusal | None:
    """The refusal of a JSON-RPC message lethe cannot read as text, or None when it can (a
    message that is not JSON at all is left to the SDK, which says so itself)."""
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"byte 0x{data[exc.start]:02x} at offset {exc.start}"
        message = _parse(data.decode("utf-8", errors="replace"))
        problem = (
            f"the message is not valid UTF-8 ({where}); send JSON as UTF-8 text, nothing was done"
        )
        return _refuse(problem, message, PARSE_ERROR)
    if not _SURROGATE_ESCAPE.search(data):
        return None
    message = _parse(text)
    if message is None:
        return None
    for path, value in _strings(message, ""):
        if not _is_text(value):
            shown = next(f"\\u{ord(c):04x}" for c in value if 0xD800 <= ord(c) <= 0xDFFF)
            problem = (
                f"{path} holds a lone surrogate ({shown}), half of a UTF-16 pair that is not "
                "text; send valid Unicode (the whole pair, or the character itself), nothing "
                "was done"
            )
            code = INVALID_PARAMS if path.startswith("params") else INVALID_REQUEST
            return _refuse(problem, message, code)
    return None


def text_problem(value: object, what: str) -> str | None:
    """What makes a tool's argument unstorable text (a NUL or a lone surrogate in any string
    inside it), named by where it is; None when it is fine."""
    for path, text in _strings(value, what):
        if "\x00" in text:
            return (
                f"{path} contains a NUL character (\\u0000) at position {text.index(chr(0))}; "
                "remove it, nothing was done"
            )
        if not _is_text(text):
            return f"{path} contains a lone surrogate, which is not text; nothing was done"
    return None


def _is_text(value: str) -> bool:
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _strings(value: object, path: str) -> Iterator[tuple[str, str]]:
    """Every string in a JSON value, keys included, with where it is ("" is the whole)."""
    if isinstance(value, str):
        yield path or "the message", value
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                continue
            yield f"a key in {path or 'the message'}", key
            named = key if _is_text(key) else "?"
            yield from _strings(item, f"{path}.{named}" if path else named)
    elif isinstance(value, list | tuple):
        for n, item in enumerate(value):
            yield from _strings(item, f"{path}[{n}]")


def _refuse(problem: str, message: Any, code: int) -> Refusal:
    request_id: str | int | None = None
    is_request = False
    if isinstance(message, dict) and isinstance(message.get("method"), str):
        found = message.get("id")
        if isinstance(found, str | int) and not isinstance(found, bool) and _safe_id(found):
            request_id, is_request = found, True
    error = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": code, "message": problem},
    }
    return Refusal(problem, request_id, is_request, error)


def _safe_id(value: str | int) -> bool:
    """An id that can be written back (not itself half a surrogate pair)."""
    return not isinstance(value, str) or _is_text(value)
