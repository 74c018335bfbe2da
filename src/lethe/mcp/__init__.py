"""The MCP face of lethe: a thin server over the engine (see docs/mcp.md).

Names are imported on first use (PEP 562): `lethe mcp` answers `initialize` from
`lethe.mcp.handshake` while the SDK, which takes a second or more to import, loads behind it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lethe.mcp.access import Grant, Tokens
    from lethe.mcp.loader import EngineLoader
    from lethe.mcp.runtime import Runtime
    from lethe.mcp.server import build_server

__all__ = ["EngineLoader", "Grant", "Runtime", "Tokens", "build_server"]

_HOMES = {
    "Grant": "lethe.mcp.access",
    "Tokens": "lethe.mcp.access",
    "EngineLoader": "lethe.mcp.loader",
    "Runtime": "lethe.mcp.runtime",
    "build_server": "lethe.mcp.server",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'lethe.mcp' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
