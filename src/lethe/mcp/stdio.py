"""`lethe mcp` over stdio, answering `initialize` before the MCP SDK has loaded.

A client waits for the `initialize` answer before it does anything else, and importing the
SDK takes one to two seconds on a small machine. So the process reads the client's first
line itself, sends the answer from `lethe.mcp.handshake` when that line is a plain
`initialize` (or the 2026 era's `server/discover`), and imports the SDK and builds the
server on a thread meanwhile. Then the SDK serves as usual, over streams that hand it that
same first line again (it records the client's capabilities, elicitation among them, and
protocol version from it) and that drop its own answer to that one request, which the client
already has.

Every line the client sends is checked first (`lethe.mcp.wire`): one that is not text (bytes
that are not UTF-8, an escaped lone surrogate) is answered here with a JSON-RPC error and
never reaches the SDK, which would have read U+FFFD in its place or never answered.

The server is run the way `MCPServer.run_stdio_async` runs it, with these streams in place of
the process's; like the SDK, file descriptors 0 and 1 are pointed away from the wire while
serving, so a stray read or print cannot corrupt the protocol.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from lethe.mcp.handshake import answer_discover, answer_initialize
from lethe.mcp.wire import refusal

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer


def serve_stdio(build: Callable[[], MCPServer[Any]]) -> None:
    """Serve the server that `build` makes (called on a thread) over stdin and stdout."""
    wire_in, wire_out = _claim_std_streams()
    built: list[MCPServer[Any]] = []
    failed: list[BaseException] = []

    def load() -> None:
        try:
            built.append(build())
        except BaseException as exc:  # raised again on the main thread
            failed.append(exc)

    loader = threading.Thread(target=load, name="lethe-mcp-load", daemon=True)
    loader.start()
    first = _readable_line(wire_in, wire_out)
    early = answer_initialize(first) or answer_discover(first)
    if early is not None:
        wire_out.write(early.line)
        wire_out.flush()
    loader.join()
    if failed:
        raise failed[0]
    if not first:
        return  # the client closed the stream without a word

    import anyio

    stdin = _Replay(first.decode("utf-8"), wire_in, wire_out)
    stdout = _Answered(wire_out, None if early is None else early.request_id)
    anyio.run(_run, built[0], stdin, stdout)


def _readable_line(wire_in: io.BufferedReader, wire_out: io.BufferedWriter) -> bytes:
    """The client's next line that is text lethe can read; the others are answered with
    an error that says why (`lethe.mcp.wire`) and never reach the SDK. b"" at the end."""
    while True:
        line = wire_in.readline()
        refused = refusal(line) if line else None
        if refused is None:
            return line
        if refused.is_request:
            wire_out.write(refused.line)
            wire_out.flush()
        else:  # a notification or a response: JSON-RPC has no answer for those
            print(f"lethe mcp: a message was dropped: {refused.problem}", file=sys.stderr)


async def _run(server: MCPServer[Any], stdin: IO[str], stdout: IO[str]) -> None:
    import anyio
    from mcp.server.stdio import stdio_server

    lowlevel = server._lowlevel_server
    async with stdio_server(stdin=anyio.wrap_file(stdin), stdout=anyio.wrap_file(stdout)) as (
        read_stream,
        write_stream,
    ):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


def _claim_std_streams() -> tuple[io.BufferedReader, io.BufferedWriter]:
    """Private handles on the wire; fd 0 then reads the null device and fd 1 writes stderr."""
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb")
    sys.stdout.flush()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    assert isinstance(wire_in, io.BufferedReader) and isinstance(wire_out, io.BufferedWriter)
    return wire_in, wire_out


class _Replay(io.TextIOWrapper):
    """The client's stream, giving the first line (already read) once more, and only lines
    that are text (the others are answered here)."""

    def __init__(self, first: str, wire: io.BufferedReader, answers: io.BufferedWriter) -> None:
        super().__init__(wire, encoding="utf-8")
        self._first: str | None = first
        self._wire = wire
        self._answers = answers

    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]  # typeshed: TextIOWrapper
        if self._first is not None:
            line, self._first = self._first, None
            return line
        return _readable_line(self._wire, self._answers).decode("utf-8")


class _Answered(io.TextIOWrapper):
    """The stream to the client, without the SDK's answer to the request answered early."""

    def __init__(self, wire: io.BufferedWriter, request_id: str | int | None) -> None:
        # A character no encoder can write (it cannot come in: see `lethe.mcp.wire`) would
        # kill the writer and leave the client waiting; escaped, it stays valid JSON.
        super().__init__(wire, encoding="utf-8", errors="backslashreplace", write_through=True)
        self._pending = request_id

    def write(self, text: str) -> int:
        if self._pending is not None and self._answers_pending(text):
            self._pending = None
            return len(text)
        return super().write(text)

    def _answers_pending(self, text: str) -> bool:
        try:
            message = json.loads(text)
        except ValueError:
            return False
        if not isinstance(message, dict) or "method" in message:
            return False
        if message.get("id") != self._pending:
            return False
        if "error" in message:
            # The early answer said yes where the SDK says no: only a malformed client gets
            # here; say so where a person can see it.
            print(f"lethe mcp: initialize refused late: {message['error']}", file=sys.stderr)
        return True
