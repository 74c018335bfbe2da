"""Streamable HTTP: bearer tokens checked before any MCP message is read."""

from __future__ import annotations

import json
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

from lethe.errors import InvalidInput
from lethe.hosts import is_loopback
from lethe.mcp.access import Tokens


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


def serve_http(server: MCPServer[Any], tokens: Tokens, *, host: str, port: int) -> None:
    if not is_loopback(host) and not tokens:
        raise InvalidInput(
            f"refusing to serve {host} without tokens: anyone on the network could read and "
            "forget memories",
            hint="give --tokens FILE (see docs/mcp.md), or bind to 127.0.0.1",
        )
    app = server.streamable_http_app(host=host)
    uvicorn.run(BearerAuth(app, tokens), host=host, port=port, log_level="warning")
