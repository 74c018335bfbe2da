"""`lethe mcp` over stdio answers `initialize` before the SDK has loaded, with exactly the
answer the SDK would give, and then hands the session to the SDK unchanged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

from lethe.mcp.handshake import (
    HANDSHAKE_VERSIONS,
    MODERN_VERSIONS,
    answer_discover,
    answer_initialize,
)
from tests.mcp_support import LETHE

CLIENT = {"name": "test-client", "version": "1.0"}


def request(
    version: str, *, request_id: object = 1, capabilities: object = None, **extra: Any
) -> bytes:
    params: dict[str, Any] = {
        "protocolVersion": version,
        "capabilities": {} if capabilities is None else capabilities,
        "clientInfo": CLIENT,
        **extra,
    }
    message = {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}
    return (json.dumps(message) + "\n").encode()


def line(message: dict[str, Any]) -> bytes:
    return (json.dumps(message) + "\n").encode()


INITIALIZED = line({"jsonrpc": "2.0", "method": "notifications/initialized"})


def spawn(db: Path, *command: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
    return subprocess.Popen(
        list(command) or [LETHE, "mcp", "--db", str(db)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )


def exchange(proc: subprocess.Popen[bytes], *lines: bytes) -> None:
    assert proc.stdin is not None
    proc.stdin.write(b"".join(lines))
    proc.stdin.flush()


def read(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert proc.stdout is not None
    raw = proc.stdout.readline()
    assert raw, "the server closed its output"
    message: dict[str, Any] = json.loads(raw)
    return message


def finish(proc: subprocess.Popen[bytes]) -> None:
    assert proc.stdin is not None
    proc.stdin.close()
    assert proc.wait(60) == 0, proc.stderr.read().decode() if proc.stderr else ""


def test_versions_are_the_sdks() -> None:
    assert HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS


@pytest.mark.parametrize("version", [*HANDSHAKE_PROTOCOL_VERSIONS, "1999-01-01"])
def test_early_answer_is_the_sdks_answer(tmp_path: Path, version: str) -> None:
    """An unknown capability makes the early path stand aside, so the SDK answers that one;
    its result must equal what the early path sends for a plain request."""
    proc = spawn(tmp_path / "m.db")
    try:
        exchange(proc, request(version, capabilities={"x-lethe-test": {}}))
        sdk = read(proc)
    finally:
        finish(proc)
    early = answer_initialize(request(version))
    assert early is not None
    assert json.loads(early.line) == sdk
    assert sdk["result"]["protocolVersion"] == (
        version if version in HANDSHAKE_PROTOCOL_VERSIONS else HANDSHAKE_PROTOCOL_VERSIONS[-1]
    )


def test_initialize_is_answered_while_the_server_is_still_loading(tmp_path: Path) -> None:
    """The server's build waits for a file that the test writes only after it has read the
    `initialize` answer: the answer cannot have come from the SDK. Then the SDK serves the
    same session (it saw the same `initialize`) and no second answer to it arrives."""
    gate = tmp_path / "gate"
    script = textwrap.dedent(
        f"""
        import time
        from pathlib import Path
        from lethe.mcp.stdio import serve_stdio

        def build():
            while not Path({str(gate)!r}).exists():
                time.sleep(0.01)
            from lethe.mcp.loader import EngineLoader
            from lethe.mcp.runtime import Runtime
            from lethe.mcp.server import build_server
            from lethe.engine import Lethe
            loader = EngineLoader(lambda: Lethe.open({str(tmp_path / "m.db")!r}))
            return build_server(Runtime(loader=loader))

        serve_stdio(build)
        """
    )
    proc = spawn(tmp_path / "m.db", sys.executable, "-c", script)
    try:
        exchange(proc, request("2025-06-18", request_id="init-1"))
        answer = read(proc)
        assert answer["id"] == "init-1"
        assert answer["result"]["serverInfo"]["name"] == "lethe"
        gate.touch()
        exchange(proc, INITIALIZED, line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        listed = read(proc)
        assert listed["id"] == 2, "the SDK's own answer to initialize must not reach the client"
        assert "remember" in {tool["name"] for tool in listed["result"]["tools"]}
    finally:
        finish(proc)


def test_a_first_line_that_is_not_initialize_goes_to_the_sdk(tmp_path: Path) -> None:
    proc = spawn(tmp_path / "m.db")
    try:
        exchange(
            proc,
            b"this is not json\n",
            request("2025-11-25", request_id=7),
            INITIALIZED,
            line({"jsonrpc": "2.0", "id": 8, "method": "ping"}),
        )
        assert read(proc)["id"] == 7
        assert read(proc) == {"jsonrpc": "2.0", "id": 8, "result": {}}
    finally:
        finish(proc)


def test_an_empty_input_ends_the_server(tmp_path: Path) -> None:
    finish(spawn(tmp_path / "m.db"))


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"[]\n",
        b"not json\n",
        line({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        request("2025-06-18", request_id=True),
        request("2025-06-18", request_id=None),
        request("2025-06-18", capabilities=[]),
        request("2025-06-18", capabilities={"sampling": 5}),
        request("2025-06-18", capabilities={"x-unknown": {}}),
        request("2025-06-18", _meta=3),
        request("2025-06-18", extra="field"),
        line({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}),
        line(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {}},
            }
        ),
    ],
)
def test_anything_unusual_is_left_to_the_sdk(raw: bytes) -> None:
    assert answer_initialize(raw) is None


def test_early_answer_keeps_the_request_id_and_meta_is_accepted() -> None:
    early = answer_initialize(request("2025-03-26", request_id="abc", _meta={"k": 1}))
    assert early is not None and early.request_id == "abc"
    message = json.loads(early.line)
    assert message["id"] == "abc" and message["result"]["protocolVersion"] == "2025-03-26"
    assert early.line.endswith(b"\n") and early.line.count(b"\n") == 1


def discover(version: str = "2026-07-28", *, request_id: object = 1, **meta: Any) -> bytes:
    envelope: dict[str, Any] = {
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientInfo": CLIENT,
        "io.modelcontextprotocol/clientCapabilities": {},
        **meta,
    }
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "server/discover",
        "params": {"_meta": envelope},
    }
    return line(message)


def test_modern_versions_are_the_sdks() -> None:
    assert MODERN_VERSIONS == MODERN_PROTOCOL_VERSIONS


@pytest.mark.slow
def test_early_discover_over_stdio_is_the_sdks(tmp_path: Path) -> None:
    """As for `initialize`: an unknown capability makes the SDK answer; a plain request gets
    the early answer, and the SDK's own answer to it never reaches the client."""
    answers = []
    for capabilities in ({"x-lethe-test": {}}, {}):
        proc = spawn(tmp_path / "m.db")
        try:
            exchange(proc, discover(**{"io.modelcontextprotocol/clientCapabilities": capabilities}))
            answers.append(read(proc))
            exchange(
                proc,
                line(
                    {
                        "jsonrpc": "2.0",
                        "id": 2,
                        "method": "ping",
                        "params": {
                            "_meta": {
                                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                "io.modelcontextprotocol/clientCapabilities": {},
                            }
                        },
                    }
                ),
            )
            assert read(proc)["id"] == 2
        finally:
            finish(proc)
    early = answer_discover(discover())
    assert early is not None
    assert answers[0] == answers[1] == json.loads(early.body)
    assert answers[0]["result"]["supportedVersions"] == list(MODERN_PROTOCOL_VERSIONS)


HEADERS = {"mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover"}


@pytest.mark.parametrize(
    ("raw", "headers"),
    [
        (discover("2099-01-01"), None),
        (discover(request_id=None), None),
        (discover(**{"io.modelcontextprotocol/clientCapabilities": {"x-unknown": {}}}), None),
        (discover(**{"io.modelcontextprotocol/clientInfo": {"name": 1}}), None),
        (discover(**{"io.modelcontextprotocol/other": 1}), None),
        (line({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}), None),
        (discover(), {**HEADERS, "mcp-protocol-version": "2025-11-25"}),
        (discover(), {**HEADERS, "mcp-method": "tools/list"}),
        (discover(), {"mcp-protocol-version": "2026-07-28"}),
        (request("2026-07-28"), HEADERS),
    ],
)
def test_an_unusual_discover_is_left_to_the_sdk(raw: bytes, headers: dict[str, str] | None) -> None:
    assert answer_discover(raw, headers) is None
    assert answer_discover(discover(), HEADERS) is not None


@pytest.mark.slow
def test_a_client_that_leaves_while_the_store_opens_sees_a_clean_exit(tmp_path: Path) -> None:
    """The client closes its end at moments while the engine (the encoder's ONNX Runtime
    session) is still loading: every process exits 0. Before the loader was waited for,
    6 of 20 such processes aborted ('terminate called without an active exception')."""
    for n, pause in enumerate([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8]):
        proc = spawn(tmp_path / f"m{n}.db")
        try:
            exchange(proc, request("2025-06-18", capabilities={"x-lethe-test": {}}))
            read(proc)
            time.sleep(pause)
        finally:
            finish(proc)
