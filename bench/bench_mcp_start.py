"""A client's first answers (issue 44, part 2): `lethe mcp` beside a minimal server of one tool
on the same Python SDK (`MCPServer`), each a fresh process over a pipe, the two taking turns.

A third variant serves lethe's tools with the SDK's own stdio loop, without lethe's early
answers, to show what the early path buys.

Timed from the process's start: the `initialize` answer and then the `tools/list` answer
(sent once `initialize` is answered), and the first tool call after them (lethe: `recall` on
a small store, the model cached; the minimal server: its one tool). Medians of `--runs`, and
the ratios the issue sets: initialize + tools/list within 1.2x of the minimal server, the
first recall within 2x of its first call.

    python bench/bench_mcp_start.py --runs 10
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_mcp import INITIALIZE as HELLO
from common import machine, write_json

from lethe import Lethe

MINIMAL = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("minimal")


@server.tool()
def echo(text: str) -> str:
    """Say the text back."""
    return text


server.run()
'''

SDK_SERVED = """
import sys

from lethe.engine import Lethe
from lethe.mcp.loader import EngineLoader
from lethe.mcp.profiles import CORE_PROFILE
from lethe.mcp.runtime import Runtime
from lethe.mcp.server import build_server

loader = EngineLoader(lambda: Lethe.open(sys.argv[1]))
loader.start()
build_server(Runtime(loader=loader, profile=CORE_PROFILE)).run()
"""
"""lethe's server as the SDK alone serves it (`MCPServer.run`, no early answers): what
deleting `lethe.mcp.stdio`'s early path would leave (docs/design.md, "Early answers")."""


def first_answers(command: list[str], call: dict[str, object]) -> tuple[float, float, float]:
    """Seconds from start to the initialize answer, the tools/list answer, the tool's answer."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None

    def ask(*messages: dict[str, object]) -> dict[str, object]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
        proc.stdin.flush()
        while True:
            answer: dict[str, object] = json.loads(proc.stdout.readline())
            if "id" in answer:
                return answer

    ask(HELLO)
    hello = time.perf_counter() - start
    listed = ask(
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    )
    assert "result" in listed, listed
    tools = time.perf_counter() - start
    called = ask({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call})
    assert "result" in called and not called["result"].get("isError"), called  # type: ignore[union-attr]
    first = time.perf_counter() - start
    proc.stdin.close()
    proc.wait(60)
    return hello, tools, first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "m.db"
        with Lethe.open(db) as mem:
            mem.remember("The user lives in Lisbon and works on the payments team.")
        minimal = Path(tmp) / "minimal.py"
        minimal.write_text(MINIMAL, encoding="utf-8")
        sdk_served = Path(tmp) / "sdk_served.py"
        sdk_served.write_text(SDK_SERVED, encoding="utf-8")
        recall = {"name": "recall", "arguments": {"query": "where does the user live"}}
        lethe = [str(Path(sys.executable).with_name("lethe")), "mcp", "--db", str(db)]
        variants = {
            "minimal one-tool server": (
                [sys.executable, str(minimal)],
                {"name": "echo", "arguments": {"text": "hi"}},
            ),
            "lethe mcp": (lethe, recall),
            "lethe's tools, SDK-served": ([sys.executable, str(sdk_served), str(db)], recall),
        }
        for command, call in variants.values():  # unmeasured: files in the page cache
            first_answers(command, call)
        times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in variants}
        for _ in range(args.runs):
            for name, (command, call) in variants.items():
                times[name].append(first_answers(command, call))
    medians = {
        name: [statistics.median(t[i] for t in runs) for i in range(3)]
        for name, runs in times.items()
    }
    for name, (hello, tools, first) in medians.items():
        print(
            f"{name:26} initialize {hello * 1000:6.0f} ms   tools/list {tools * 1000:6.0f} ms   "
            f"first call {first * 1000:6.0f} ms"
        )
    base = medians["minimal one-tool server"]
    for name in ("lethe mcp", "lethe's tools, SDK-served"):
        ours = medians[name]
        print(
            f"{name}: initialize + tools/list {ours[1] / base[1]:.2f}x the minimal server "
            f"(target 1.2x), first recall {ours[2] / base[2]:.2f}x its first call (target 2x)"
        )
    write_json(
        "mcp_start",
        {
            "machine": machine(),
            "runs": args.runs,
            "median_ms": {k: [round(x * 1000, 1) for x in v] for k, v in medians.items()},
        },
    )


if __name__ == "__main__":
    main()
