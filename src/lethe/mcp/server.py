"""The MCP server: every engine capability as tools, over stdio or streamable HTTP.

The tools are thin (see the `tools_*` modules); this module assembles them and starts
the engine in the background, so `initialize` and `tools/list` are answered before the
embedding model has loaded. The server's identity lives in `lethe.mcp.handshake`, which
answers `initialize` over stdio before this module (and the SDK) has been imported.

Every tool is registered, and each client is shown (and may call) only those of the profile
the server was started with that its role allows; forget mode's tools join once its session
requested the `forget-mode` prompt (see `lethe.mcp.profiles`).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import NotificationOptions
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.models import InitializationOptions
from mcp.types import GetPromptResult
from mcp_types.version import is_version_at_least

import lethe
from lethe.errors import InvalidInput
from lethe.mcp.access import AccessDenied, Grant
from lethe.mcp.handshake import INSTRUCTIONS, NAME, TITLE
from lethe.mcp.params import tool_errors
from lethe.mcp.profiles import FORGET_MODE, ROLE, TOOLS
from lethe.mcp.refusals import Failed, Refused
from lethe.mcp.runtime import Runtime
from lethe.mcp.tools_change import change_tools
from lethe.mcp.tools_decay import decay_tools
from lethe.mcp.tools_forget import forget_tools
from lethe.mcp.tools_forget_mode import forget_mode_prompt, forget_mode_tools
from lethe.mcp.tools_memory import memory_tools

logger = logging.getLogger(__name__)

FORGET_MODE_PROMPT = "forget-mode"


class LetheServer(MCPServer[dict[str, Any]]):
    """An `MCPServer` that lists to each client, and lets it call, only the tools it is shown:
    those of the runtime's profile that its role allows, plus forget mode's once its session
    requested the `forget-mode` prompt."""

    def __init__(self, runtime: Runtime, **kwargs: Any) -> None:
        self.runtime = runtime
        super().__init__(**kwargs, middleware=[self._listing])

    def hidden_because(self, name: str, ctx: Context) -> tuple[str | None, Grant]:
        """Why this caller is not shown `name` (None: it is), and the caller's grant."""
        rt = self.runtime
        grant = rt.grant(ctx)
        forget_mode = name in FORGET_MODE and rt.forget_session(rt.session(ctx, grant)) is not None
        return rt.profile.hidden_because(name, grant, forget_mode=forget_mode), grant

    def shown(self, names: list[str], ctx: Context) -> set[str]:
        """Which of `names` this caller is shown (none, when it has no grant)."""
        try:
            return {n for n in names if self.hidden_because(n, ctx)[0] is None}
        except AccessDenied:
            return set()

    async def _listing(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """`tools/list`, answered by the SDK with every tool, keeps only those shown, in the
        order of `lethe.mcp.profiles.TOOLS` (the core ones first)."""
        result = await call_next(ctx)
        if ctx.method != "tools/list" or not isinstance(result, dict):
            return result
        tools = result.get("tools")
        if not isinstance(tools, list):
            return result
        shown = self.shown(
            [t.get("name", "") for t in tools], Context(request_context=ctx, mcp_server=self)
        )
        kept = sorted(
            (t for t in tools if t.get("name") in shown), key=lambda t: TOOLS.index(t["name"])
        )
        return {**result, "tools": kept}

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> Any:
        if self._tool_manager.get_tool(name) is None:
            # The SDK would answer in its own words; a model gets the one shape, and the
            # tools it may call instead.
            shown = sorted(self.shown(list(TOOLS), context)) if context is not None else []
            return Refused(
                f"there is no tool {name!r} on this server",
                f"call one of: {', '.join(shown)}"
                + (
                    " (purge needs the server started with --allow-purge)"
                    if name == "purge"
                    else ""
                ),
                kind="unknown_tool",
            ).answer()
        if context is not None and name in ROLE:
            try:
                with tool_errors():
                    why, grant = self.hidden_because(name, context)
                    refuse(name, why, grant, self.runtime)
            except Failed as exc:  # in the one shape of every refusal (lethe.mcp.refusals)
                return exc.refusal(name).answer()
        return await super().call_tool(name, arguments, context)

    async def get_prompt(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        context: Context[Any, Any] | None = None,
    ) -> Any:
        result = await super().get_prompt(name, arguments, context)
        profile = self.runtime.profile
        if (
            name == FORGET_MODE_PROMPT
            and context is not None
            and isinstance(result, GetPromptResult)
            and not set(FORGET_MODE) <= profile.tools
        ):
            await tools_changed(context)
        return result


def refuse(name: str, why: str | None, grant: Grant, rt: Runtime) -> None:
    """Raise why a caller may not call `name` (nothing when it may)."""
    if why is None:
        return
    if why == "role":
        grant.require(ROLE[name])
    if why == "forget-mode":
        raise AccessDenied(
            f"{name} belongs to forget mode, which this session has not started",
            hint="the user starts it with the forget-mode prompt; to forget one memory, "
            "call forget",
        )
    raise InvalidInput(
        f"{name} is not offered by this server (its tools: {rt.profile.name})",
        hint="start it with lethe mcp --tools full, or name the tool in --tools",
    )


async def tools_changed(ctx: Context[Any, Any]) -> None:
    """Tell the client its tool list changed: a `notifications/tools/list_changed` to this
    session (handshake era) or an event on `subscriptions/listen` streams (2026 era). A
    client that cannot take it is not told (the prompt's answer stands)."""
    try:
        version = ctx.protocol_version
        if version is not None and is_version_at_least(version, "2026-07-28"):
            await ctx.notify_tools_changed()
        else:
            await ctx.session.send_tool_list_changed()
    except Exception:  # a notification is best effort; the client can list again
        logger.debug("tools/list_changed was not sent", exc_info=True)


def build_server(runtime: Runtime) -> LetheServer:
    @asynccontextmanager
    async def lifespan(_: MCPServer[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        runtime.loader.start()
        try:
            yield {}
        finally:
            runtime.loader.close()

    server = LetheServer(
        runtime,
        name=NAME,
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
    declare_tools_changed(server)
    return server


def declare_tools_changed(server: MCPServer[Any]) -> None:
    """Declare `tools.listChanged` in the SDK's `initialize` answer, as the early answer
    (`lethe.mcp.handshake.CAPABILITIES`) does: forget mode's tools join a session's list."""
    lowlevel = server._lowlevel_server
    make = lowlevel.create_initialization_options

    def options(
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return make(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )

    lowlevel.create_initialization_options = options  # type: ignore[method-assign]
