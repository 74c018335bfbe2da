"""`lethe mcp`: serve the memory to MCP clients over stdio or streamable HTTP."""

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lethe.cli.app import DbOpt, app

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from lethe.engine import Lethe


@app.command(
    "mcp",
    help="Serve this memory to MCP clients (Claude Desktop, Claude Code, Cursor…). stdio by "
    "default; --http for streamable HTTP at http://HOST:PORT/mcp. See docs/mcp.md.",
)
def mcp(
    db: DbOpt = None,
    http: Annotated[bool, typer.Option("--http", help="Serve streamable HTTP, not stdio.")] = False,
    host: Annotated[
        str,
        typer.Option(
            "--host", help="HTTP address. A non-loopback one needs --tokens.", show_default=True
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="HTTP port.", min=1, max=65535)] = 8765,
    tokens: Annotated[
        Path | None,
        typer.Option(
            "--tokens",
            metavar="FILE",
            help="TOML file of bearer tokens, each bound to namespaces and a role "
            "(read, write, forget). HTTP only; default $LETHE_MCP_TOKENS.",
        ),
    ] = None,
    allow_purge: Annotated[
        bool,
        typer.Option("--allow-purge", help="Offer the purge tool (erasure that cannot be undone)."),
    ] = False,
    tools: Annotated[
        str,
        typer.Option(
            "--tools",
            metavar="PROFILE",
            envvar="LETHE_MCP_TOOLS",
            help="Which tools clients are shown: core (remember, recall, get_memory, "
            "update_memory, forget, restore, history), full (every tool), or tool names "
            "separated by commas. Each client sees only those its role allows.",
            show_default=True,
        ),
    ] = "core",
    actor: Annotated[
        str | None,
        typer.Option(
            "--actor",
            metavar="NAME",
            help="Who the audit log names for this server's client (stdio, or HTTP without "
            "tokens). Default: the name the client gives when it connects (clientInfo.name). "
            "With --tokens each token's name is the actor.",
        ),
    ] = None,
) -> None:
    from lethe.common import validate
    from lethe.embed import download as model_download  # here: --help needs no numpy
    from lethe.errors import InvalidInput
    from lethe.mcp.access import Tokens
    from lethe.mcp.profiles import parse_tools

    # A first-use model download shows no progress bar: a client, not a person, reads us.
    model_download.quiet()
    if tokens is not None and not http:
        raise typer.BadParameter("tokens apply to --http only", param_hint="--tokens")
    if tokens is None and http and os.environ.get("LETHE_MCP_TOKENS"):
        tokens = Path(os.environ["LETHE_MCP_TOKENS"])
    grants = Tokens.load(tokens) if tokens is not None else Tokens({})
    try:
        profile = parse_tools(tools, allow_purge=allow_purge)
    except InvalidInput as exc:
        raise typer.BadParameter(str(exc), param_hint="--tools") from None
    if actor is not None:
        if grants:
            raise typer.BadParameter(
                "with tokens, the audit actor is the name of each client's token",
                param_hint="--actor",
            )
        actor = validate.label(actor, "actor")

    from lethe.mcp.loader import EngineLoader

    def open_engine() -> "Lethe":
        from lethe.engine import Lethe

        return Lethe.open(db)

    loader = EngineLoader(open_engine)

    def build() -> "MCPServer[Any]":
        # Serving has begun (a refused start creates no store): the store and the model load
        # from now on, beside the SDK's import (see lethe.mcp.loader). The engine's modules
        # are imported here first: two threads importing at once take longer than one after
        # the other, while opening (mostly native work) overlaps the SDK's import well.
        import lethe.engine  # noqa: F401

        loader.start()
        from lethe.mcp.runtime import Runtime
        from lethe.mcp.server import build_server

        runtime = Runtime(
            loader=loader,
            tokens=grants,
            allow_purge=allow_purge,
            profile=profile,
            local_actor=actor,
        )
        return build_server(runtime)

    try:
        if http:
            # uvicorn listens and answers the opening request while the SDK loads on a thread.
            from lethe.mcp.http import serve_http

            serve_http(lambda: build().streamable_http_app(host=host), grants, host=host, port=port)
        else:
            # The SDK loads on a thread while the client's `initialize` and, from a local
            # client, `tools/list` are answered (lethe.mcp.listing).
            from lethe.mcp.listing import local_listing
            from lethe.mcp.stdio import serve_stdio

            serve_stdio(
                build,
                listing=None if grants else local_listing(profile, allow_purge=allow_purge),
            )
    finally:
        loader.close()
