"""Streamable HTTP: bearer tokens checked before any MCP message is read, each session kept
to the token that opened it, text checked before the SDK parses it, and a first answer before
the SDK has loaded (`lethe.mcp.http_early`)."""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable

import uvicorn
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lethe.common.hosts import is_loopback, is_own_origin, names_this_server
from lethe.errors import InvalidInput
from lethe.mcp.access import Grant, Tokens
from lethe.mcp.http_early import SESSION_HEADER, EarlyStart
from lethe.mcp.wire import refusal

MAX_BOUND_SESSIONS = 65_536
"""Sessions whose token is remembered, least recently used dropped first. The SDK ends a
session idle for 30 minutes, so only a flood of new sessions reaches it; a dropped entry
belongs to a session long idle, most likely gone (the SDK then answers 404)."""


class LoopbackGuard:
    """On loopback, only this machine's pages at this server's port: a `Host` that does not
    name it whole is refused with 421 and a foreign `Origin` with 403 (DNS rebinding; a page
    of another site), before anything else reads the request, early answers included."""

    def __init__(self, app: ASGIApp, port: int) -> None:
        self.app = app
        self.port = port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.lower(): v.decode("latin-1") for k, v in scope["headers"]}
            origin = headers.get(b"origin")
            if not names_this_server(headers.get(b"host", ""), self.port):
                await _refuse(
                    send,
                    421,
                    "Invalid Host header: this server answers only to "
                    f"127.0.0.1:{self.port}, localhost:{self.port} or [::1]:{self.port}",
                )
                return
            if origin is not None and origin != "null" and not is_own_origin(origin, self.port):
                await _refuse(send, 403, "Invalid Origin header: cross-site request refused")
                return
        await self.app(scope, receive, send)


async def _refuse(send: Send, status: int, text: str) -> None:
    await _send(send, status, b"text/plain; charset=utf-8", text.encode())


class BearerAuth:
    """401 for a missing or unknown token. A session belongs to the token that opened it:
    a request of another token naming it (a tool call, its stream, its DELETE) is refused
    with 403. Lifespan events pass through untouched: they start the session manager and the
    engine."""

    def __init__(self, app: ASGIApp, tokens: Tokens) -> None:
        self.app = app
        self.tokens = tokens
        self._owners: OrderedDict[str, str] = OrderedDict()
        """Session id -> the name of the token that opened it."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan" or (scope["type"] == "http" and not self.tokens):
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":  # e.g. a websocket: not part of this server
            await send({"type": "websocket.close", "code": 1008})
            return
        header = dict(scope["headers"]).get(b"authorization", b"").decode("latin-1")
        grant = self.tokens.grant_for(header)
        if grant is not None:
            await self._as(grant, scope, receive, send)
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

    async def _as(self, grant: Grant, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve an authenticated request, within the sessions of its own token."""
        claimed = next(
            (v.decode("latin-1") for k, v in scope["headers"] if k.lower() == SESSION_HEADER),
            None,
        )
        if claimed is not None and claimed in self._owners:
            self._owners.move_to_end(claimed)
            if self._owners[claimed] != grant.name:
                # Another token's session: never served, so no token can end, read or act in
                # a session it did not open. (An id never opened here goes on to the SDK,
                # which answers 404 as the protocol wants.)
                await _json(
                    send,
                    403,
                    {
                        "jsonrpc": "2.0",
                        "id": None,
                        "error": {
                            "code": -32600,
                            "message": "this MCP session was not opened with your token; "
                            "initialize a session of your own",
                        },
                    },
                )
                return
        status = 0

        async def record(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                opened = dict(message["headers"]).get(SESSION_HEADER)
                if claimed is None and opened and status < 400:
                    self._bind(opened.decode("latin-1"), grant.name)
            await send(message)

        await self.app(scope, receive, record)
        if claimed is not None and (
            status == 404 or (scope["method"] == "DELETE" and 200 <= status < 300)
        ):
            self._owners.pop(claimed, None)  # ended, or unknown to the server

    def _bind(self, session: str, name: str) -> None:
        self._owners[session] = name
        self._owners.move_to_end(session)
        while len(self._owners) > MAX_BOUND_SESSIONS:
            self._owners.popitem(last=False)


async def _json(send: Send, status: int, payload: object) -> None:
    await _send(send, status, b"application/json", json.dumps(payload).encode())


async def _send(send: Send, status: int, content_type: bytes, body: bytes) -> None:
    headers = [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class TextGuard:
    """Answers a POST whose body is not text lethe can read (invalid UTF-8, a lone surrogate)
    with a JSON-RPC error that says so, before the SDK's parser answers it with a misleading
    one (see `lethe.mcp.wire`)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        refused = refusal(body)
        if refused is not None:
            await _json(send, 400, refused.error)
            return
        given = False

        async def replay() -> Message:
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


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

    app = TextGuard(EarlyStart(build, on_failure=stop))
    guarded: ASGIApp = BearerAuth(app, tokens)
    if is_loopback(host):
        guarded = LoopbackGuard(guarded, port)
    config = uvicorn.Config(guarded, host=host, port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    server.run()
    if failures:
        raise failures[0]
