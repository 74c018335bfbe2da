"""The MCP server answers `tools/list` before its engine has loaded, over real stdio.

This is the only test of that promise. An earlier one in tests/mcp/test_stdio.py connected
the SDK's client to the server object in memory. Because it never crossed a pipe, it could
not see a stdio server that waits for the store before reading its first request, and it
was removed. The tests still in tests/mcp/test_stdio.py spawn `lethe mcp` over stdio but
never hold its engine back. tests/mcp/test_handshake.py covers `initialize` answered before
the SDK has loaded (it lists tools only after its gate opens), and
tests/mcp/test_http_early.py covers the opening request answered early over HTTP.

Here the server is a child process speaking over its stdin and stdout (lethe's own
`serve_stdio`, as `lethe mcp` runs it) whose engine cannot open until a file exists; the
test creates the file only after the tool list has come back through the pipe.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from mcp import Client, StdioServerParameters

from tests.mcp_support import call, stdio_params

SERVER = """
import sys, time
from pathlib import Path

from lethe.mcp.stdio import serve_stdio

db, gate = sys.argv[1], Path(sys.argv[2])


def build():
    from lethe.engine import Lethe
    from lethe.mcp.loader import EngineLoader
    from lethe.mcp.runtime import Runtime
    from lethe.mcp.server import build_server

    def slow_open():
        while not gate.exists():
            time.sleep(0.01)
        return Lethe.open(db)

    return build_server(Runtime(loader=EngineLoader(slow_open)))


serve_stdio(build)
"""


def test_tools_are_listed_over_stdio_before_the_engine_has_loaded(tmp_path: Path) -> None:
    db, gate = tmp_path / "m.db", tmp_path / "engine-may-open"
    env = stdio_params(db).env
    params = StdioServerParameters(
        command=sys.executable, args=["-c", SERVER, str(db), str(gate)], env=env
    )

    async def scenario() -> None:
        async with Client(params, mode="legacy") as client:
            listed = await asyncio.wait_for(client.list_tools(), timeout=30)
            assert {"recall", "remember", "forget"} <= {t.name for t in listed.tools}
            assert not gate.exists() and not db.exists(), "answered with no store open"
            gate.touch()
            stored = await asyncio.wait_for(
                call(client, "remember", content="User likes jazz"), timeout=120
            )
            assert stored["memory"]["content"] == "User likes jazz"
        assert db.exists()

    asyncio.run(scenario())
