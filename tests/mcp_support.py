"""Real MCP clients for the tests: the SDK's `Client` over stdio (spawning `lethe mcp`) and
over streamable HTTP (a `lethe mcp --http` subprocess), and elicitation callbacks."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import mcp.types as types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

LETHE = str(Path(sys.executable).parent / "lethe")


def every_tool(extra: tuple[str, ...]) -> list[str]:
    """`extra` with `--tools full` unless it names a profile: these tests call every tool,
    while `lethe mcp` shows only the core ones by default (tests/mcp/test_profiles.py)."""
    return list(extra) if "--tools" in extra else ["--tools", "full", *extra]


def stdio_params(
    db: Path | str, *extra: str, env: dict[str, str] | None = None
) -> StdioServerParameters:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
    return StdioServerParameters(
        command=LETHE,
        args=["mcp", "--db", str(db), *every_tool(extra)],
        env={**clean, **(env or {})},
    )


def elicitation(action: str, confirm: bool | None = True) -> Any:
    """A client-side elicitation callback that always answers `action`; it records the
    questions it was asked in its `asked` list. `confirm=None` accepts with no content (a
    client that gets the protocol wrong)."""
    asked: list[str] = []

    async def callback(ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        if action == "accept" and confirm is None:
            return types.ElicitResult(action="accept")
        if action == "accept":
            return types.ElicitResult(action="accept", content={"confirm": confirm})
        return types.ElicitResult(action=action)  # type: ignore[arg-type]

    callback.asked = asked  # type: ignore[attr-defined]
    return callback


def _client_kwargs(mode: str, elicit: Any, name: str | None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"mode": mode}
    if elicit is not None:
        kwargs["elicitation_callback"] = elicit
    if name is not None:
        kwargs["client_info"] = types.Implementation(name=name, version="1.0")
    return kwargs


@asynccontextmanager
async def stdio_client(
    db: Path | str,
    *extra: str,
    elicit: Any = None,
    mode: str = "legacy",
    env: dict[str, str] | None = None,
    name: str | None = None,
) -> AsyncIterator[Client]:
    """`lethe mcp` over stdio; `name` is the client's name in `initialize` (the SDK's
    default is "mcp")."""
    kwargs = _client_kwargs(mode, elicit, name)
    async with Client(stdio_params(db, *extra, env=env), **kwargs) as client:
        yield client


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(proc: subprocess.Popen[Any], port: int, what: str, seconds: float = 30) -> None:
    """Until `proc` accepts connections on `port`; its stderr in the error if it never does."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop(proc)  # reading stderr of a live process would wait for it forever
                stderr = proc.stderr.read() if proc.stderr else ""
                text = stderr.decode() if isinstance(stderr, bytes) else stderr
                raise RuntimeError(f"{what} did not listen: {text}") from None
            time.sleep(0.1)


def stop(proc: subprocess.Popen[Any]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def http_server(db: Path | str, *extra: str) -> Iterator[str]:
    """`lethe mcp --http` on a free loopback port; yields its URL, stops it afterwards."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
    proc = subprocess.Popen(
        [LETHE, "mcp", "--http", "--port", str(port), "--db", str(db), *every_tool(extra)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(proc, port, "lethe mcp --http")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(proc)


GATED_SERVER = """
import sys, time
from pathlib import Path
from lethe.mcp.access import Tokens
from lethe.mcp.http import serve_http

db, gate, port, fail = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "fail"

def build():
    while not gate.exists():
        time.sleep(0.01)
    if fail:
        raise RuntimeError("the build broke on purpose")
    from lethe.engine import Lethe
    from lethe.mcp.loader import EngineLoader
    from lethe.mcp.runtime import Runtime
    from lethe.mcp.server import build_server
    server = build_server(Runtime(loader=EngineLoader(lambda: Lethe.open(db))))
    return server.streamable_http_app(host="127.0.0.1")

serve_http(build, Tokens({}), host="127.0.0.1", port=port)
"""


@contextmanager
def gated_http_server(
    db: Path | str, gate: Path, *, fail: bool = False
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The HTTP server of `lethe mcp --http`, whose SDK app is built only once the file `gate`
    exists (or then fails to build, with `fail`): whatever answers before that cannot have
    come from the SDK. Yields its URL and process."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", GATED_SERVER, str(db), str(gate), str(port), "fail" if fail else ""],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(proc, port, "the gated MCP server")
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        stop(proc)


@asynccontextmanager
async def http_client(
    url: str,
    token: str | None = None,
    *,
    elicit: Any = None,
    mode: str = "legacy",
    name: str | None = None,
) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    kwargs = _client_kwargs(mode, elicit, name)
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), **kwargs) as client,
    ):
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; return its structured content (checked by the client
    against the tool's output schema)."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text(result)
    assert result.structured_content is not None
    return result.structured_content


async def error(client: Client, tool: str, **arguments: Any) -> str:
    """Call a tool that must fail as a tool error (not a crash); return the message."""
    result = await client.call_tool(tool, arguments)
    refusal(result)
    return text(result)


def refusal(result: types.CallToolResult) -> dict[str, Any]:
    """A refusal's fields for programs (`_meta`), checking that it carries no structured
    content: a TypeScript SDK 1.x client would check that against the tool's output schema."""
    assert result.is_error, text(result)
    assert result.structured_content is None, result.structured_content
    assert result.meta is not None and "lethe/refusal" in result.meta, result.meta
    out: dict[str, Any] = result.meta["lethe/refusal"]
    return out


def text(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))
