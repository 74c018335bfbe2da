"""The MCP server: every engine capability as tools, over stdio or streamable HTTP.

The tools are thin (see the `tools_*` modules); this module assembles them and starts
the engine in the background, so `initialize` and `tools/list` are answered before the
embedding model has loaded. The server's identity lives in `lethe.mcp.handshake`, which
answers `initialize` over stdio before this module (and the SDK) has been imported.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.mcpserver import MCPServer

import lethe
from lethe.mcp.handshake import INSTRUCTIONS, NAME, TITLE
from lethe.mcp.runtime import Runtime
from lethe.mcp.tools_change import change_tools
from lethe.mcp.tools_decay import decay_tools
from lethe.mcp.tools_forget import forget_tools
from lethe.mcp.tools_forget_mode import forget_mode_prompt, forget_mode_tools
from lethe.mcp.tools_memory import memory_tools


def build_server(runtime: Runtime) -> MCPServer[dict[str, Any]]:
    @asynccontextmanager
    async def lifespan(_: MCPServer[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        runtime.loader.start()
        try:
            yield {}
        finally:
            runtime.loader.close()

    server: MCPServer[dict[str, Any]] = MCPServer(
        NAME,
        title=TITLE,
        instructions=INSTRUCTIONS,
        version=lethe.__version__,
        tools=[
            *memory_tools(runtime),
            *change_tools(runtime),
            *forget_tools(runtime),
            *decay_tools(runtime),
            *forget_mode_tools(runtime),
        ],
        lifespan=lifespan,
        log_level="WARNING",
    )
    server.add_prompt(forget_mode_prompt(runtime))
    return server
