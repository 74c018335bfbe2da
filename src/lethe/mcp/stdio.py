"""`lethe mcp` over stdio, answering `initialize` and `tools/list` before the MCP SDK has
loaded.

A client waits for the `initialize` answer before it does anything else, then lists the
tools, and importing the SDK and registering lethe's tools takes longer than a minimal server
needs for both (docs/design.md, "Early answers"). So the process reads the client's lines
itself while the SDK loads on a thread: it answers a plain `initialize` (or the 2026 era's
`server/discover`) from `lethe.mcp.handshake`, and, in a session it opened that way, a plain
`tools/list` from `lethe.mcp.listing`. Every other line waits. Once the server is built, the
SDK serves as usual over streams that hand it every line read so far again (it records the
client's capabilities, elicitation among them, and protocol version from `initialize`) and
that drop its own answers to the requests already answered.

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
import queue
import sys
import threading
from collections import Counter
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from lethe.mcp.handshake import EarlyAnswer, answer_discover, answer_initialize, answer_tools_list
from lethe.mcp.wire import refusal

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

_BUILT = None
"""What the loader puts in the queue of lines when the server is built (or failed to be)."""


def serve_stdio(
    build: Callable[[], MCPServer[Any]], *, listing: list[dict[str, Any]] | None = None
) -> None:
    """Serve the server that `build` makes (called on a thread) over stdin and stdout.

    `listing`: the tools `tools/list` shows this client (`lethe.mcp.listing`), answered before
    the server is built; None leaves `tools/list` to the SDK."""
    wire_in, wire_out = _claim_std_streams()
    built: list[MCPServer[Any]] = []
    failed: list[BaseException] = []
    lines: queue.Queue[bytes | None] = queue.Queue()

    def load() -> None:
        try:
            built.append(build())
        except BaseException as exc:  # raised again on the main thread
            failed.append(exc)
        finally:
            lines.put(_BUILT)

    def read() -> None:
        while True:
            line = _readable_line(wire_in, wire_out)
            lines.put(line)
            if not line:
                return

    threading.Thread(target=load, name="lethe-mcp-load", daemon=True).start()
    threading.Thread(target=read, name="lethe-mcp-read", daemon=True).start()
    seen, answered, ready = _answer_early(lines, wire_out, listing)
    if not ready:  # the input ended first: nothing but the build is left in the queue
        while lines.get() is not _BUILT:
            pass
    if failed:
        raise failed[0]
    if seen == [b""]:
        return  # the client closed the stream without a word

    import anyio

    stdin = _Replay(seen, lines, wire_in)
    stdout = _Answered(wire_out, answered)
    anyio.run(_run, built[0], stdin, stdout)


def _answer_early(
    lines: queue.Queue[bytes | None],
    wire_out: io.BufferedWriter,
    listing: list[dict[str, Any]] | None,
) -> tuple[list[bytes], list[str | int], bool]:
    """Read the client's lines until the server is built (or the input ends), answering what
    can be answered without it. Returns every line read, to replay to the SDK, the ids of the
    requests answered, and whether the build has ended."""
    seen: list[bytes] = []
    answered: list[str | int] = []
    handshake = False
    while (line := lines.get()) is not _BUILT:
        seen.append(line)
        if not line:
            return seen, answered, False
        early: EarlyAnswer | None = None
        if len(seen) == 1:
            early = answer_initialize(line)
            handshake = early is not None
            early = early or answer_discover(line)
        elif handshake and listing is not None:
            early = answer_tools_list(line, listing)
        if early is not None:
            wire_out.write(early.line)
            wire_out.flush()
            answered.append(early.request_id)
    return seen, answered, True


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
    """The client's stream for the SDK: the lines already read, then each line the reader
    thread reads (only lines that are text: the others were answered there)."""

    def __init__(
        self, seen: list[bytes], lines: queue.Queue[bytes | None], wire: io.BufferedReader
    ) -> None:
        super().__init__(wire, encoding="utf-8")
        self._seen = list(seen)
        self._lines = lines

    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]  # typeshed: TextIOWrapper
        line: bytes | None = self._seen.pop(0) if self._seen else self._lines.get()
        if not line:
            self._lines.put(b"")  # the end of input, for every later read too
            return ""
        return line.decode("utf-8")


class _Answered(io.TextIOWrapper):
    """The stream to the client, without the SDK's answers to the requests answered early."""

    def __init__(self, wire: io.BufferedWriter, request_ids: list[str | int]) -> None:
        # A character no encoder can write (it cannot come in: see `lethe.mcp.wire`) would
        # kill the writer and leave the client waiting; escaped, it stays valid JSON.
        super().__init__(wire, encoding="utf-8", errors="backslashreplace", write_through=True)
        self._pending = Counter(request_ids)

    def write(self, text: str) -> int:
        if self._pending and self._answers_pending(text):
            return len(text)
        return super().write(text)

    def _answers_pending(self, text: str) -> bool:
        try:
            message = json.loads(text)
        except ValueError:
            return False
        if not isinstance(message, dict) or "method" in message:
            return False
        request_id = message.get("id")
        if isinstance(request_id, bool) or not isinstance(request_id, str | int):
            return False
        if not self._pending[request_id]:
            return False
        self._pending[request_id] -= 1
        if not self._pending[request_id]:
            del self._pending[request_id]
        if "error" in message:
            # The early answer said yes where the SDK says no: only a malformed client gets
            # here; say so where a person can see it.
            print(
                f"lethe mcp: a request answered early was refused late: {message['error']}",
                file=sys.stderr,
            )
        return True
