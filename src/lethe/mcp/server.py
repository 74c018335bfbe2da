"""The MCP server: every engine capability as tools, over stdio or streamable HTTP.

The tools are thin (see the `tools_*` modules); this module assembles them and starts
the engine in the background, so `initialize` and `tools/list` are answered before the
embedding model has loaded.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.mcpserver import MCPServer

import lethe
from lethe.mcp.runtime import Runtime
from lethe.mcp.tools_decay import decay_tools
from lethe.mcp.tools_forget import forget_tools
from lethe.mcp.tools_forget_mode import forget_mode_prompt, forget_mode_tools
from lethe.mcp.tools_memory import memory_tools

INSTRUCTIONS = """lethe is the user's long-term memory. remember stores, recall searches
(results carry ids and similarity). Forgetting is careful: forget(query=…) only lists
candidates; forget(memory_id=…) needs the user's confirmation (asked directly, or by calling
again with the same id). Forgotten memories can be restored from the trash; audit_log shows
every change. consolidate finds near-duplicates, sweep reports what decay would forget,
context/attend manage an agent's working memory, and the forget-mode prompt runs one
natural-language forget instruction with search_memories/delete_memories."""


def build_server(runtime: Runtime) -> MCPServer[dict[str, Any]]:
    @asynccontextmanager
    async def lifespan(_: MCPServer[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        runtime.loader.start()
        try:
            yield {}
        finally:
            runtime.loader.close()

    server: MCPServer[dict[str, Any]] = MCPServer(
        "lethe",
        title="lethe memory",
        instructions=INSTRUCTIONS,
        version=lethe.__version__,
        tools=[
            *memory_tools(runtime),
            *forget_tools(runtime),
            *decay_tools(runtime),
            *forget_mode_tools(runtime),
        ],
        lifespan=lifespan,
        log_level="WARNING",
    )
    server.add_prompt(forget_mode_prompt(runtime))
    return server
