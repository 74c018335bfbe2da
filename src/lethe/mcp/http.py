"""Streamable HTTP: bearer tokens checked before any MCP message is read, and a first answer
before the SDK has loaded (`lethe.mcp.http_early`)."""

from __future__ import annotations

import json
from collections.abc import Callable

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from lethe.errors import InvalidInput
from lethe.hosts import is_loopback
from lethe.mcp.access import Tokens
from lethe.mcp.http_early import EarlyStart


class BearerAuth:
    """401 for a missing or unknown token. Lifespan events pass through untouched: they start
    the session manager and the engine."""

    def __init__(self, app: ASGIApp, tokens: Tokens) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" or (scope["type"] == "http" and not self.tokens):
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # e.g. a websocket: not part of this server
            await send({"type": "websocket.close", "code": 1008})
            return
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        if self.tokens.grant_for(header) is not None:
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": "missing or unknown bearer token"}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"www-authenticate", b'Bearer realm="lethe"'),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def serve_http(build: Callable[[], ASGIApp], tokens: Tokens, *, host: str, port: int) -> None:
    """Serve the SDK's app that `build` makes (on a thread, while the server already
    listens); a failure to build stops the server and is raised here."""
    if not is_loopback(host) and not tokens:
        raise InvalidInput(
            f"refusing to serve {host} without tokens: anyone on the network could read and "
            "forget memories",
            hint="give --tokens FILE (see docs/mcp.md), or bind to 127.0.0.1",
        )
    failures: list[BaseException] = []

    def stop(failure: BaseException) -> None:
        failures.append(failure)
        server.should_exit = True

    app = EarlyStart(build, host=host, on_failure=stop)
    config = uvicorn.Config(
        BearerAuth(app, tokens), host=host, port=port, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    server.run()
    if failures:
        raise failures[0]
