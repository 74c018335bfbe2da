"""A local client's `tools/list` is answered before the SDK has loaded, from `tools.json`,
with exactly the list the SDK itself gives, for every protocol version and profile; the SDK
then serves the same session without answering those requests a second time."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from lethe.mcp.handshake import answer_tools_list
from lethe.mcp.listing import LISTING, local_listing
from lethe.mcp.profiles import CORE, CORE_PROFILE, FULL_PROFILE, TOOLS, parse_tools
from tests.mcp.test_handshake import INITIALIZED, exchange, finish, line, read, request, spawn
from tests.mcp_support import LETHE

UNUSUAL = {"x-lethe-test": {}}
"""A capability the early path does not know: the SDK answers the whole session."""
REWRITE = "python -m lethe.mcp.listing"


def sdk_listing(db: Path, version: str, *args: str) -> list[dict[str, Any]]:
    """`tools/list` as the SDK answers it over stdio (the early path stood aside)."""
    proc = spawn(db, LETHE, "mcp", "--db", str(db), *args)
    try:
        exchange(proc, request(version, capabilities=UNUSUAL))
        assert read(proc)["id"] == 1
        exchange(proc, INITIALIZED, line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        answer = read(proc)
    finally:
        finish(proc)
    assert answer["id"] == 2, answer
    tools: list[dict[str, Any]] = answer["result"]["tools"]
    return tools


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_every_tool_is_listed_as_the_sdk_lists_it(tmp_path: Path, version: str) -> None:
    sdk = sdk_listing(tmp_path / "m.db", version, "--tools", "full", "--allow-purge")
    assert local_listing(FULL_PROFILE, allow_purge=True) == sdk, (
        f"{LISTING.name} is not what the SDK lists: run `{REWRITE}` after changing a tool"
    )


@pytest.mark.parametrize(
    "args",
    [(), ("--allow-purge",), ("--tools", "full"), ("--tools", "purge,recall", "--allow-purge")],
)
def test_each_profile_is_listed_as_the_sdk_lists_it(tmp_path: Path, args: tuple[str, ...]) -> None:
    allow_purge = "--allow-purge" in args
    spec = args[args.index("--tools") + 1] if "--tools" in args else "core"
    profile = parse_tools(spec, allow_purge=allow_purge)
    sdk = sdk_listing(tmp_path / "m.db", HANDSHAKE_PROTOCOL_VERSIONS[-1], *args)
    assert local_listing(profile, allow_purge=allow_purge) == sdk


def test_purge_is_listed_only_with_allow_purge() -> None:
    """`--tools full` names purge; without --allow-purge it is not registered, so not listed."""
    assert "purge" not in {t["name"] for t in local_listing(FULL_PROFILE, allow_purge=False)}
    assert "purge" in {t["name"] for t in local_listing(FULL_PROFILE, allow_purge=True)}


GATED = """
import sys, time
from pathlib import Path

from lethe.mcp.listing import local_listing
from lethe.mcp.profiles import CORE_PROFILE
from lethe.mcp.stdio import serve_stdio

db, gate = sys.argv[1], Path(sys.argv[2])


def build():
    while not gate.exists():
        time.sleep(0.01)
    from lethe.engine import Lethe
    from lethe.mcp.loader import EngineLoader
    from lethe.mcp.runtime import Runtime
    from lethe.mcp.server import build_server

    return build_server(Runtime(loader=EngineLoader(lambda: Lethe.open(db))))


serve_stdio(build, listing=local_listing(CORE_PROFILE, allow_purge=False))
"""


def gated(tmp_path: Path) -> tuple[Any, Path]:
    gate = tmp_path / "gate"
    script = textwrap.dedent(GATED)
    proc = spawn(tmp_path / "m.db", sys.executable, "-c", script, str(tmp_path / "m.db"), str(gate))
    return proc, gate


def tools_list(request_id: object, **params: Any) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"}
    if params:
        message["params"] = params["params"]
    return line(message)


def test_tools_are_listed_before_the_server_is_built_and_answered_once(tmp_path: Path) -> None:
    """The build waits for a file the test writes only after both answers came: they cannot
    be the SDK's. After it, the SDK's own answers to those two requests never reach the
    client: the next answer is to the next request, even where the client used one id twice."""
    proc, gate = gated(tmp_path)
    try:
        exchange(proc, request("2025-06-18", request_id=1), INITIALIZED, tools_list(1))
        assert read(proc)["result"]["serverInfo"]["name"] == "lethe"
        early = read(proc)
        assert early == {
            "jsonrpc": "2.0",
            "id": 1,
            "result": {"tools": local_listing(CORE_PROFILE, allow_purge=False)},
        }
        exchange(proc, tools_list(2, params={}))
        assert read(proc)["id"] == 2  # `params: {}` is plain too
        gate.touch()
        exchange(proc, tools_list(1), line({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        again = read(proc)
        assert again["id"] == 1 and again["result"] == early["result"]
        assert read(proc) == {"jsonrpc": "2.0", "id": 3, "result": {}}
    finally:
        finish(proc)


@pytest.mark.slow
def test_an_unusual_tools_list_waits_for_the_sdk(tmp_path: Path) -> None:
    """A `tools/list` with params beyond none is left to the SDK: a plain one sent after it
    is answered first, and the unusual one once the server is built."""
    proc, gate = gated(tmp_path)
    try:
        exchange(
            proc,
            request("2025-11-25", request_id=1),
            INITIALIZED,
            tools_list(2, params={"_meta": {"progressToken": 5}}),
            tools_list(3),
        )
        assert read(proc)["id"] == 1
        assert read(proc)["id"] == 3
        gate.touch()
        late = read(proc)
        assert late["id"] == 2
        assert [t["name"] for t in late["result"]["tools"]] == [
            t["name"] for t in local_listing(CORE_PROFILE, allow_purge=False)
        ]
    finally:
        finish(proc)


def test_no_tools_are_listed_early_in_a_session_the_sdk_opened(tmp_path: Path) -> None:
    """An `initialize` the early path left to the SDK leaves it the session: nothing is
    answered before the build, so the first answer after it is to `initialize`."""
    proc, gate = gated(tmp_path)
    try:
        exchange(proc, request("2025-11-25", request_id=1, capabilities=UNUSUAL), tools_list(2))
        gate.touch()
        assert read(proc)["id"] == 1
        assert read(proc)["id"] == 2
    finally:
        finish(proc)


@pytest.mark.parametrize(
    "raw",
    [
        b"not json\n",
        b"[]\n",
        line({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": "x"}}),
        line({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": None}),
        line({"jsonrpc": "2.0", "id": True, "method": "tools/list"}),
        line({"jsonrpc": "2.0", "method": "tools/list"}),
        line({"jsonrpc": "2.0", "id": 1, "method": "prompts/list"}),
        line({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "extra": 1}),
    ],
)
def test_anything_unusual_is_not_listed_early(raw: bytes) -> None:
    assert answer_tools_list(raw, []) is None


def test_the_listing_file_holds_every_tool_in_listing_order() -> None:
    names = [t["name"] for t in json.loads(LISTING.read_bytes())]
    assert names == list(TOOLS)
    assert [t["name"] for t in local_listing(CORE_PROFILE, allow_purge=False)] == list(CORE)
