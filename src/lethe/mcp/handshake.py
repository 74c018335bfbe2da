"""The server's identity and its answer to `initialize`, without the MCP SDK.

Importing the SDK takes a second or more on a small machine (its protocol types are hundreds
of pydantic models), and a client waits for the `initialize` answer before anything else.
Everything that answer holds is fixed here — name, version, instructions, capabilities and
the protocol versions the handshake accepts — so `lethe mcp` can send it while the SDK is
still loading (see `lethe.mcp.stdio`). Tests hold these values equal to what the SDK itself
answers, for every protocol version, so the two cannot drift apart.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import lethe

NAME = "lethe"
TITLE = "lethe memory"

INSTRUCTIONS = """lethe is the user's long-term memory. remember stores, recall searches
(results carry ids and similarity). Forgetting is careful: forget(query=…) only lists
candidates; forget(memory_id=…) needs the user's confirmation (asked directly, or by calling
again with the same id). Forgotten memories can be restored from the trash; audit_log shows
every change. consolidate finds near-duplicates, sweep reports what decay would forget,
context/attend manage an agent's working memory, and the forget-mode prompt runs one
natural-language forget instruction with search_memories/delete_memories."""

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Protocol versions reachable through `initialize`, oldest first (the SDK's own list)."""

CAPABILITIES: dict[str, Any] = {
    "prompts": {"listChanged": False},
    "resources": {"listChanged": False, "subscribe": False},
    "tools": {"listChanged": False},
}


@dataclass(frozen=True)
class EarlyAnswer:
    request_id: str | int
    line: bytes
    """The JSON-RPC response, one line, newline-terminated."""


def answer_initialize(line: bytes) -> EarlyAnswer | None:
    """The answer to `line` if it is a well-formed `initialize` request, else None.

    Anything unusual — not JSON, another method, a batch, params the SDK might refuse — gets
    None, and the SDK answers it in full once loaded: the early answer is only ever given
    where the SDK's would be the same.
    """
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(message, dict) or set(message) != {"jsonrpc", "id", "method", "params"}:
        return None
    request_id, params = message["id"], message["params"]
    if (
        message["jsonrpc"] != "2.0"
        or message["method"] != "initialize"
        or isinstance(request_id, bool)
        or not isinstance(request_id, str | int)
        or not _plain_initialize_params(params)
    ):
        return None
    requested = params["protocolVersion"]
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    result = {
        "capabilities": CAPABILITIES,
        "instructions": INSTRUCTIONS,
        "protocolVersion": version,
        "serverInfo": {"name": NAME, "title": TITLE, "version": lethe.__version__},
    }
    response = {"jsonrpc": "2.0", "id": request_id, "result": result}
    text = json.dumps(response, ensure_ascii=False, separators=(",", ":"))
    return EarlyAnswer(request_id, (text + "\n").encode("utf-8"))


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
    capabilities, client = params["capabilities"], params["clientInfo"]
    return (
        isinstance(params["protocolVersion"], str)
        and isinstance(capabilities, dict)
        and set(capabilities) <= _CLIENT_CAPABILITIES
        and all(value is None or isinstance(value, dict) for value in capabilities.values())
        and isinstance(client, dict)
        and isinstance(client.get("name"), str)
        and isinstance(client.get("version"), str)
    )


_CLIENT_CAPABILITIES = frozenset(
    ["roots", "sampling", "elicitation", "experimental", "tasks", "extensions"]
)
