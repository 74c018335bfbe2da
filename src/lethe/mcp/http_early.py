"""Streamable HTTP that gives a client its first answer before the MCP SDK has loaded.

The reason is the one in `lethe.mcp.stdio`: importing the SDK takes a second or more on a
small machine, and a client waits for its first answer before anything else. So uvicorn
listens with `EarlyStart` in front, and the SDK's app is built on a thread. Until it is
ready:

- a plain `initialize` (the session era) gets the answer from `lethe.mcp.handshake` and a
  session id of ours. Once the SDK is ready the same request is replayed into it (so it
  records the client's capabilities, elicitation among them) and its answer is dropped; the
  session id it gave stays behind ours: a request carrying ours reaches the SDK with its
  id, and the SDK's answers carry ours back. The SDK's id is never a name a client can use.
- a plain `server/discover` (the stateless 2026 era) is answered: it opens nothing, so
  nothing is replayed.
- anything else waits for the SDK, as it would have without this.

The early answers are given only where the SDK would give the same (see the handshake
tests); every check in front of them (bearer token, Host, Origin, content type, Accept) is
the same check the SDK makes. Once the SDK is ready everything goes to it, and only the ids
of sessions opened early are translated.
"""

from __future__ import annotations

import sys
import threading
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio
from anyio.abc import TaskGroup
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lethe.mcp.handshake import HANDSHAKE_VERSIONS, answer_discover, answer_initialize

SESSION_HEADER = b"mcp-session-id"
MAX_EARLY_BODY = 64 * 1024
"""An opening request is a few hundred bytes; a larger one waits for the SDK."""


_SSE_HEADERS = [
    (b"cache-control", b"no-cache, no-transform"),
    (b"connection", b"keep-alive"),
    (b"content-type", b"text/event-stream"),
    (b"x-accel-buffering", b"no"),
]


@dataclass
class _Opening:
    """A session answered early: the request the SDK must see, and when it has."""

    scope: Scope
    body: bytes
    replayed: anyio.Event = field(default_factory=anyio.Event)


class EarlyStart:
    """The ASGI app uvicorn serves: early answers until `build()` (run on a thread) has made
    the SDK's app, then that app, with its lifespan run from here."""

    def __init__(
        self,
        build: Callable[[], ASGIApp],
        *,
        path: str = "/mcp",
        on_failure: Callable[[BaseException], None] = lambda _: None,
    ) -> None:
        self._build = build
        self._path = path
        self._on_failure = on_failure
        self._app: ASGIApp | None = None
        self._failure: BaseException | None = None
        self._ready: anyio.Event | None = None
        self._openings: dict[str, _Opening] = {}
        self._ours: dict[str, str] = {}
        """Our session id -> the SDK's, for sessions opened early."""
        self._stop_inner: Callable[[], Awaitable[None]] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(scope, receive, send)
            return
        if self._app is None and scope["type"] == "http":
            rest = await self._answer_early(scope, receive, send)
            if rest is None:
                return
            receive = rest
        if self._app is None:
            assert self._ready is not None, "a request before the lifespan started"
            await self._ready.wait()
        if self._app is None:
            await _plain(send, 503, f"lethe mcp failed to start: {self._failure}")
            return
        await self._forward(scope, receive, send)

    async def _answer_early(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        """Answer an opening request here if it is plain (None); else hand back a `receive`
        that gives the SDK the body this has read."""
        headers = _headers(scope)
        if not self._may_answer(scope, headers):
            return receive
        body, more = await _read_body(receive, MAX_EARLY_BODY)
        # The SDK may have become ready while the body was read: an opening recorded now
        # would miss its replay, so the request goes to the SDK instead.
        if not more and self._app is None:
            version = headers.get("mcp-protocol-version")
            if version is None or version in HANDSHAKE_VERSIONS:
                initialize = answer_initialize(body)
                if initialize is not None:
                    ours = uuid.uuid4().hex
                    self._openings[ours] = _Opening(dict(scope), body)  # before any await
                    event = b"event: message\r\ndata: " + initialize.body + b"\r\n\r\n"
                    await _respond(
                        send, 200, [*_SSE_HEADERS, (SESSION_HEADER, ours.encode())], event
                    )
                    return None
            else:
                discover = answer_discover(body, headers)
                if discover is not None:
                    await _respond(
                        send, 200, [(b"content-type", b"application/json")], discover.body
                    )
                    return None
        return _replay(body, more, receive)

    def _may_answer(self, scope: Scope, headers: dict[str, str]) -> bool:
        """An opening POST that passes every check the SDK would make before answering it."""
        if scope["method"] != "POST" or scope["path"] != self._path:
            return False
        names = [k.decode("latin-1").lower() for k, _ in scope["headers"]]
        routing = [n for n in names if n.startswith("mcp-")]
        if SESSION_HEADER.decode() in routing or len(routing) != len(set(routing)):
            return False  # a session's request, or headers the SDK refuses as ambiguous
        if not headers.get("content-type", "").lower().startswith("application/json"):
            return False
        accepts = [t.split(";")[0].strip().lower() for t in headers.get("accept", "").split(",")]
        # On loopback, `LoopbackGuard` (lethe.mcp.http) has refused a foreign Host or Origin.
        return "*/*" in accepts or bool(
            {"application/json", "application/*"} & set(accepts)
            and {"text/event-stream", "text/*"} & set(accepts)
        )

    async def _forward(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = self._app
        assert app is not None
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        claimed = _session(scope)
        if claimed is None:
            await app(scope, receive, send)
            return
        opening = self._openings.get(claimed)
        if opening is not None:
            await opening.replayed.wait()
        if claimed in self._ours.values():
            # The SDK's id of an early session is not a name a client may use.
            claimed_as = uuid.uuid4().hex
        else:
            claimed_as = self._ours.get(claimed, claimed)
        if claimed_as == claimed:
            await app(scope, receive, send)
            return
        inner = {**scope, "headers": _with_session(scope["headers"], claimed_as)}
        status = 0

        async def send_ours(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {
                    **message,
                    "headers": _with_session(message["headers"], claimed, only=True),
                }
            await send(message)

        await app(inner, receive, send_ours)
        if status == 404 or (scope["method"] == "DELETE" and 200 <= status < 300):
            self._ours.pop(claimed, None)

    async def _lifespan(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Start listening at once; build the SDK's app and start its lifespan behind."""
        await receive()  # lifespan.startup
        self._ready = anyio.Event()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._load, scope, tasks)
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
            if self._stop_inner is not None:
                with anyio.move_on_after(10):
                    await self._stop_inner()
            tasks.cancel_scope.cancel()
        await send({"type": "lifespan.shutdown.complete"})

    async def _load(self, scope: Scope, tasks: TaskGroup) -> None:
        ready = self._ready
        assert ready is not None
        try:
            app = await _on_thread(self._build)
            self._stop_inner = await _start_lifespan(app, scope, tasks)
        except Exception as exc:  # reported, and the server stops
            self._failure = exc
            ready.set()
            self._on_failure(exc)
            return
        self._app = app
        openings = list(self._openings.items())
        ready.set()
        for ours, opening in openings:
            await self._replay_opening(app, ours, opening)

    async def _replay_opening(self, app: ASGIApp, ours: str, opening: _Opening) -> None:
        """The early `initialize`, once more, for the SDK: its answer is dropped (the client
        has ours) and the session id in it is kept behind ours."""
        theirs: str | None = None
        status = 0

        async def keep_id(message: Message) -> None:
            nonlocal theirs, status
            if message["type"] == "http.response.start":
                status = message["status"]
                theirs = dict(message["headers"]).get(SESSION_HEADER, b"").decode() or None

        try:
            await app(opening.scope, _replay(opening.body, False, _never), keep_id)
        finally:
            if theirs is not None and status < 400:
                self._ours[ours] = theirs
            else:
                print(
                    f"lethe mcp: the session answered early was refused late (HTTP {status}); "
                    "its client must initialize again",
                    file=sys.stderr,
                )
            opening.replayed.set()
            del self._openings[ours]


async def _on_thread(build: Callable[[], ASGIApp]) -> ASGIApp:
    """`build()` on a daemon thread, so a server stopped while it loads need not wait."""
    done = threading.Event()
    result: list[ASGIApp] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            result.append(build())
        except BaseException as exc:  # raised again on the loop
            failed.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, name="lethe-mcp-load", daemon=True).start()
    while not done.is_set():
        await anyio.sleep(0.005)
    if failed:
        raise failed[0]
    return result[0]


async def _start_lifespan(
    app: ASGIApp, scope: Scope, tasks: TaskGroup
) -> Callable[[], Awaitable[None]]:
    """Run `app`'s lifespan until it has started; return what stops it."""
    to_app, from_here = anyio.create_memory_object_stream[Message](2)
    started, stopped = anyio.Event(), anyio.Event()
    failure: list[str] = []

    async def reply(message: Message) -> None:
        kind = message["type"]
        if kind.endswith(".failed"):
            failure.append(str(message.get("message", "")))
        if kind.startswith("lifespan.startup"):
            started.set()
        elif kind.startswith("lifespan.shutdown"):
            stopped.set()

    async def run() -> None:
        try:
            await app(scope, from_here.receive, reply)
        finally:
            started.set()
            stopped.set()

    tasks.start_soon(run)
    await to_app.send({"type": "lifespan.startup"})
    await started.wait()
    if failure:
        raise RuntimeError(f"the MCP app did not start: {failure[0]}")

    async def stop() -> None:
        await to_app.send({"type": "lifespan.shutdown"})
        await stopped.wait()

    return stop


def _session(scope: Scope) -> str | None:
    """The session id a request carries, looked up without decoding every header."""
    for key, value in scope["headers"]:
        if key.lower() == SESSION_HEADER:
            return str(value.decode("latin-1"))
    return None


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def _with_session(
    headers: list[tuple[bytes, bytes]], session: str, *, only: bool = False
) -> list[tuple[bytes, bytes]]:
    """`headers` with the session id set to `session` (where present, if `only`)."""
    kept = [(k, v) for k, v in headers if k.lower() != SESSION_HEADER]
    if only and len(kept) == len(headers):
        return headers
    return [*kept, (SESSION_HEADER, session.encode())]


async def _read_body(receive: Receive, limit: int) -> tuple[bytes, bool]:
    """Up to `limit` bytes of the body, and whether more is still to come."""
    body = b""
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return body, False
        body += message.get("body", b"")
        more = bool(message.get("more_body", False))
        if not more or len(body) > limit:
            return body, more


def _replay(body: bytes, more: bool, receive: Receive) -> Receive:
    """A `receive` that gives `body` first, then whatever `receive` gives."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return replay


async def _never() -> Message:
    """The replayed request's client never disconnects: the SDK ends its answer itself."""
    await anyio.sleep_forever()
    raise AssertionError("unreachable")


async def _respond(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    length = (b"content-length", str(len(body)).encode())
    streamed = any(v == b"text/event-stream" for _, v in headers)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": headers if streamed else [*headers, length],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _plain(send: Send, status: int, text: str) -> None:
    await _respond(send, status, [(b"content-type", b"text/plain; charset=utf-8")], text.encode())
