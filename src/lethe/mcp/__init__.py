"""The MCP face of lethe: a thin server over the engine (see docs/mcp.md)."""

from lethe.mcp.access import Grant, Tokens
from lethe.mcp.runtime import EngineLoader, Runtime
from lethe.mcp.server import build_server

__all__ = ["EngineLoader", "Grant", "Runtime", "Tokens", "build_server"]
