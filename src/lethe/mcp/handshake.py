"""The server's identity and its first answers (`initialize`, `server/discover`, and a local
client's `tools/list`), without the MCP SDK.

Importing the SDK takes a second or more on a small machine (its protocol types are hundreds
of pydantic models), and a client waits for the `initialize` answer before anything else.
Everything that answer holds is fixed here — name, version, instructions, capabilities and
the protocol versions the handshake accepts — so `lethe mcp` can send it while the SDK is
still loading (see `lethe.mcp.stdio` and `lethe.mcp.http_early`). The stateless 2026 era
opens with `server/discover` instead, whose answer is just as fixed. Tests hold these values
equal to what the SDK itself answers, for every protocol version, so the two cannot drift
apart.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import lethe

NAME = "lethe"
TITLE = "lethe memory"

INSTRUCTIONS = """lethe is the user's long-term memory. remember stores, recall searches
(results carry ids and similarity). Forgetting is careful: forget(query=…) only lists
candidates; forget(memory_id=…) needs the user's confirmation (asked directly, or by calling
again with the same id). Forgotten memories can be restored from the trash. Tools take an
optional namespace (default: your first). Which tools are listed depends on the server's
profile (lethe mcp --tools) and your role; the forget-mode prompt runs one natural-language
forget instruction and adds its tools to the list."""

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Protocol versions reachable through `initialize`, oldest first (the SDK's own list)."""

MODERN_VERSIONS = ("2026-07-28",)
"""Protocol versions of the stateless era, each request carrying its own envelope."""

CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": True},
}
"""`tools.listChanged`: forget mode's tools join a session's list when it requests the
`forget-mode` prompt (`lethe.mcp.server.declare_tools_changed` makes the SDK say the same)."""

DISCOVER_CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": True},
    "resources": {"listChanged": True, "subscribe": True},
    "tools": {"listChanged": True},
}
"""What the SDK declares to a 2026 client, which may subscribe to lists changing."""

SERVER_INFO = {"name": NAME, "title": TITLE, "version": lethe.__version__}

_META = "io.modelcontextprotocol/"
_ABSENT = object()
"""A request's params when it has none (`"params": null` is another request)."""


@dataclass(frozen=True)
class EarlyAnswer:
    request_id: str | int
    body: bytes
    """The JSON-RPC response, compact JSON."""

    @property
    def line(self) -> bytes:
        """The response as one newline-terminated line, as stdio frames it."""
        return self.body + b"\n"


def answer_initialize(line: bytes) -> EarlyAnswer | None:
    """The answer to `line` if it is a well-formed `initialize` request, else None.

    Anything unusual — not JSON, another method, a batch, params the SDK might refuse — gets
    None, and the SDK answers it in full once loaded: the early answer is only ever given
    where the SDK's would be the same.
    """
    request = _request(line, "initialize")
    if request is None or not _plain_initialize_params(request[1]):
        return None
    request_id, params = request
    requested = params["protocolVersion"]
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    result = {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": version,
        "serverInfo": SERVER_INFO,
    }
    return _answer(request_id, result)


def answer_discover(body: bytes, headers: Mapping[str, str] | None = None) -> EarlyAnswer | None:
    """The answer to a 2026 client's opening `server/discover` if it is plain, else None.

    Over HTTP, `headers` (lower-case names) must agree with the envelope as the SDK demands:
    `MCP-Protocol-Version` its version, `Mcp-Method` its method; stdio has no headers. As
    with `answer_initialize`, anything the SDK might answer differently gets None.
    """
    request = _request(body, "server/discover")
    if request is None:
        return None
    request_id, params = request
    if not isinstance(params, dict) or set(params) != {"_meta"}:
        return None
    if not _plain_envelope(params["_meta"]):
        return None
    version = params["_meta"][_META + "protocolVersion"]
    if headers is not None and (
        headers.get("mcp-protocol-version") != version
        or headers.get("mcp-method") != "server/discover"
    ):
        return None
    result = {
        "cacheScope": "private",
        "capabilities": DISCOVER_CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "resultType": "complete",
        "supportedVersions": list(MODERN_VERSIONS),
        "ttlMs": 0,
        "_meta": {_META + "serverInfo": SERVER_INFO},
    }
    return _answer(request_id, result)


def answer_tools_list(line: bytes, tools: list[dict[str, Any]]) -> EarlyAnswer | None:
    """The answer to `line` if it is a plain `tools/list` (no cursor, no params at all), listing
    `tools` (`lethe.mcp.listing`); else None, and the SDK answers it once loaded. Only asked
    in a session whose `initialize` was answered early, which the SDK then accepts too."""
    request = _request(line, "tools/list", params_optional=True)
    if request is None or not (request[1] is _ABSENT or request[1] == {}):
        return None
    return _answer(request[0], {"tools": tools})


def _request(
    raw: bytes, method: str, *, params_optional: bool = False
) -> tuple[str | int, Any] | None:
    """The id and params of `raw` if it is one well-formed JSON-RPC request for `method`
    (params `_ABSENT` when `params_optional` and it has none)."""
    try:
        message = json.loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    keys = {"jsonrpc", "id", "method", "params"}
    if not isinstance(message, dict) or not (
        set(message) == keys or (params_optional and set(message) == keys - {"params"})
    ):
        return None
    request_id = message["id"]
    if (
        message["jsonrpc"] != "2.0"
        or message["method"] != method
        or isinstance(request_id, bool)
        or not isinstance(request_id, str | int)
    ):
        return None
    return request_id, message.get("params", _ABSENT)


def _answer(request_id: str | int, result: dict[str, Any]) -> EarlyAnswer:
    response = {"jsonrpc": "2.0", "id": request_id, "result": result}
    text = json.dumps(response, ensure_ascii=False, separators=(",", ":"))
    return EarlyAnswer(request_id, text.encode("utf-8"))


def _plain_envelope(meta: object) -> bool:
    """A 2026 request's `_meta`: a version this server speaks, the client's capabilities of
    known keys, and perhaps the client's name and version."""
    required = {_META + "protocolVersion", _META + "clientCapabilities"}
    if not isinstance(meta, dict) or not required <= set(meta) <= required | {_META + "clientInfo"}:
        return False
    return (
        meta[_META + "protocolVersion"] in MODERN_VERSIONS
        and _plain_capabilities(meta[_META + "clientCapabilities"])
        and _plain_client(meta.get(_META + "clientInfo", {"name": "", "version": ""}))
    )


def _plain_capabilities(capabilities: object) -> bool:
    return (
        isinstance(capabilities, dict)
        and set(capabilities) <= _CLIENT_CAPABILITIES
        and all(value is None or isinstance(value, dict) for value in capabilities.values())
    )


def _plain_client(client: object) -> bool:
    """A client's name and version, as every client sends them."""
    return (
        isinstance(client, dict)
        and isinstance(client.get("name"), str)
        and isinstance(client.get("version"), str)
    )


def _plain_initialize_params(params: object) -> bool:
    """The params every client sends and nothing else: a version string, a capabilities
    object of known keys, a client name and version, and perhaps `_meta`."""
    if not isinstance(params, dict) or set(params) - {"_meta"} != {
        "protocolVersion",
        "capabilities",
        "clientInfo",
    }:
        return False
    if not isinstance(params.get("_meta", {}), dict):
        return False
    return (
        isinstance(params["protocolVersion"], str)
        and _plain_capabilities(params["capabilities"])
        and _plain_client(params["clientInfo"])
    )


_CLIENT_CAPABILITIES = frozenset(
    ["roots", "sampling", "elicitation", "experimental", "tasks", "extensions"]
)
