"""`lethe ui`: the web inspector on this machine (see docs/inspector.md)."""

import os
from typing import Annotated

import typer

from lethe.cli.app import DbOpt, app, open_lethe


@app.command(
    "ui",
    help="Open the web inspector: search memories, see their links and heat, forget through "
    "a plan, restore from the trash, read the audit timeline. Prints the address. Serves "
    "127.0.0.1 only unless --host is given with a token. See docs/inspector.md.",
)
def ui(
    db: DbOpt = None,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on. Off loopback a token is required.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port.", min=1, max=65535)] = 8766,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            help="Access token every request must carry (the printed address holds it); "
            "'auto' makes one. Default $LETHE_UI_TOKEN.",
        ),
    ] = None,
) -> None:
    from lethe.ui import serve

    token = token or os.environ.get("LETHE_UI_TOKEN") or None
    with open_lethe(db) as mem:
        serve(mem, host=host, port=port, token=token, announce=lambda line: typer.echo(line))
