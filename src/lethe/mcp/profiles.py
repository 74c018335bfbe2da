"""Which tools a client is shown: the profile the server was started with (`lethe mcp
--tools core|full|a,b,c`), the caller's role, and whether this session started forget mode.

Every tool is always registered; what a client lists is filtered per request, and calling a
tool the client is not shown is refused with a message saying why (see `LetheServer`).

**Model-visible size.** What a model is given of a tool is its name, title, description and
input schema. `visible_size` measures a `tools/list` answer as a model reads it: the JSON
array of one object per tool holding exactly the keys `name`, `title` (when set),
`description` and `inputSchema` as `tools/list` sends them (camelCase), serialized compactly
(`json.dumps(..., separators=(",", ":"), ensure_ascii=False)`), counted in characters.
Annotations, output schemas and icons are left out: clients read them, models are not
usually shown them. `tests/mcp/test_profiles.py` holds the core profile under
`CORE_BUDGET`, measured from a real server's `tools/list` over stdio.

This module imports nothing from the MCP SDK: `lethe mcp --tools` is checked before the SDK
loads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lethe.errors import InvalidInput
from lethe.mcp.access import ROLES, Grant, Role

CORE_BUDGET = 6_000
"""The most characters the core profile's tools may take in what a model is given."""

ROLE: dict[str, Role] = {
    "remember": "write",
    "recall": "read",
    "get_memory": "read",
    "update_memory": "write",
    "forget": "forget",
    "restore": "write",
    "history": "read",
    "link_memories": "write",
    "create_episode": "write",
    "get_episode": "read",
    "purge": "forget",
    "list_trash": "read",
    "audit_log": "read",
    "attend": "write",
    "context": "read",
    "consolidate": "write",
    "sweep": "read",
    "execute_sweep": "forget",
    "search_memories": "read",
    "delete_memories": "forget",
}
"""The least role a token needs to see and call each tool (read < write < forget). A tool
may need more for some arguments (update_memory that weakens a protection needs forget)."""

TOOLS: tuple[str, ...] = tuple(ROLE)
"""Every tool lethe can serve, in the order `tools/list` gives them."""

CORE: tuple[str, ...] = (
    "remember",
    "recall",
    "get_memory",
    "update_memory",
    "forget",
    "restore",
    "history",
)
"""What a conversation needs: store, find, read, correct, forget, undo, and what changed."""

FORGET_MODE: tuple[str, ...] = ("search_memories", "delete_memories")
"""The tools of the `forget-mode` prompt: listed when the profile names them, else once
the prompt was requested in this session."""

PURGE_ONLY = "purge"
"""Served only with `--allow-purge`."""

PROFILES = ("core", "full")


@dataclass(frozen=True)
class Profile:
    name: str
    """`core`, `full`, or the comma-separated names given."""
    tools: frozenset[str]
    """The tools listed to every client whose role allows them."""

    def listed(self, name: str, grant: Grant, *, forget_mode: bool) -> bool:
        """Whether a client holding `grant` is shown `name`; `forget_mode`: this session
        requested the forget-mode prompt (and its forget session is still open)."""
        return self.hidden_because(name, grant, forget_mode=forget_mode) is None

    def hidden_because(self, name: str, grant: Grant, *, forget_mode: bool) -> str | None:
        """Why `name` is not shown to this client (None when it is): `profile`, `forget-mode`
        (a forget-mode tool before the prompt) or `role`."""
        if name not in ROLE:
            return "profile"
        if name not in self.tools:
            if name not in FORGET_MODE:
                return "profile"
            if not forget_mode:
                return "forget-mode"
        if ROLES.index(grant.role) < ROLES.index(ROLE[name]):
            return "role"
        return None


CORE_PROFILE = Profile("core", frozenset(CORE))
FULL_PROFILE = Profile("full", frozenset(TOOLS))


def parse_tools(spec: str, *, allow_purge: bool = False) -> Profile:
    """`--tools`: `core`, `full`, or tool names separated by commas. Anything else is an
    `InvalidInput` listing what is valid."""
    text = spec.strip()
    if text == "core":
        # Whoever starts the server with --allow-purge means to offer purge: under the default
        # profile too, not only under `full`.
        return Profile("core", CORE_PROFILE.tools | {PURGE_ONLY}) if allow_purge else CORE_PROFILE
    if text == "full":
        return FULL_PROFILE
    names = [n.strip() for n in text.split(",") if n.strip()]
    valid = [n for n in TOOLS if allow_purge or n != PURGE_ONLY]
    unknown = [n for n in names if n not in ROLE]
    if not names or unknown:
        what = f"unknown tool(s): {', '.join(unknown)}" if unknown else "no tool named"
        raise InvalidInput(
            f"{what}; give core, full, or tool names separated by commas",
            hint=f"tools: {', '.join(valid)}",
        )
    if PURGE_ONLY in names and not allow_purge:
        raise InvalidInput("purge is offered only with --allow-purge", hint="add --allow-purge")
    return Profile(",".join(dict.fromkeys(names)), frozenset(names))


VISIBLE_KEYS = ("name", "title", "description", "inputSchema")


def model_visible(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The part of one `tools/list` entry (its wire form) that a model is given."""
    return {key: tool[key] for key in VISIBLE_KEYS if tool.get(key) is not None}


def visible_size(tools: Iterable[Mapping[str, Any]]) -> int:
    """Characters of the compact JSON array of what a model is given of these tools."""
    shown = [model_visible(t) for t in tools]
    return len(json.dumps(shown, separators=(",", ":"), ensure_ascii=False))
