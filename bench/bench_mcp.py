"""MCP over stdio and HTTP: process start to the first answer (`initialize`) and to the first
`tools/list` answer, and tool-call latency of recall, forget and remember at a given store size,
against the same engine calls made in-process.

Start-up is timed with raw JSON-RPC lines on a pipe and with raw requests to `lethe mcp
--http` (the process alone: its first answer is the target, under 1 s), and with the SDK's
client over stdio (what a desktop client sees, including the client library's own work).

The client is the official SDK's (`mcp.Client`, the 2025-11-25 protocol that desktop clients
speak) spawning `lethe mcp`, so each figure includes JSON-RPC framing, schema validation of
arguments and of the structured result, and the pipe.

Remember stores corpus memories (text, layer, category, tags, importance, metadata) whose text
is not in the store yet - the same text again is answered `existing` with nothing written, a
different path - the same ones over MCP and in-process, each on its own copy of the store. Its
figure includes embedding the text, on both sides.

`--parts` picks what runs (start, recall, forget, remember; all by default); a run of only
some writes `mcp-<size>-<parts>.json`, so the full figures in `mcp-<size>.json` stay.

    python bench/bench_mcp.py --db /tmp/lethe-bench/lethe-10000.db
    python bench/bench_mcp.py --size 10000      # builds a store first (slow)
    python bench/bench_mcp.py --db /tmp/lethe-bench/lethe-10000.db --only-remember
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import corpus
from common import (
    free_port,
    log,
    machine,
    memory_count,
    stats_ms,
    store_for,
    time_each,
    wait_for_port,
    write_json,
)
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment

from lethe import Lethe
from lethe.embed import load_default_embedder

LETHE = str(Path(sys.executable).parent / "lethe")
PARTS = ("start", "recall", "forget", "remember")


def params(db: Path) -> StdioServerParameters:
    """`lethe mcp` on `db`. The SDK hands a server only a few variables of ours; PYTHONPATH goes
    too, so that a run of another checkout's code (PYTHONPATH=OLD/src) measures its server."""
    env = get_default_environment()
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return StdioServerParameters(command=LETHE, args=["mcp", "--db", str(db)], env=env)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
AFTER = [
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def first_answers(db: Path, runs: int) -> dict[str, list[float]]:
    """Per start: seconds to the `initialize` answer and to the `tools/list` answer (sent as
    soon as `initialize` was answered), over a plain pipe."""
    out: dict[str, list[float]] = {"initialize": [], "tools_list": []}
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(
            [LETHE, "mcp", "--db", str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        proc.stdin.flush()
        first = json.loads(proc.stdout.readline())
        out["initialize"].append(time.perf_counter() - start)
        assert first["id"] == 1 and "result" in first, first
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in AFTER).encode())
        proc.stdin.flush()
        listed = json.loads(proc.stdout.readline())
        out["tools_list"].append(time.perf_counter() - start)
        assert listed["id"] == 2 and listed["result"]["tools"], listed
        proc.stdin.close()
        proc.wait(60)
    return out


def first_answers_http(db: Path, runs: int) -> dict[str, list[float]]:
    """As `first_answers`, against `lethe mcp --http`: the client connects as soon as the
    port listens, then posts `initialize`, and `tools/list` once that is answered."""
    out: dict[str, list[float]] = {"initialize": [], "tools_list": []}
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    for _ in range(runs):
        port = free_port()
        start = time.perf_counter()
        proc = subprocess.Popen(
            [LETHE, "mcp", "--http", "--port", str(port), "--db", str(db)],
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(port)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("POST", "/mcp", json.dumps(INITIALIZE), headers)
        answer = connection.getresponse()
        first = _sse_message(answer.read())
        out["initialize"].append(time.perf_counter() - start)
        assert first["id"] == 1 and "result" in first, first
        session = {
            **headers,
            "mcp-session-id": answer.getheader("mcp-session-id") or "",
            "mcp-protocol-version": "2025-11-25",
        }
        for message in AFTER:
            connection.request("POST", "/mcp", json.dumps(message), session)
            reply = connection.getresponse().read()
        listed = _sse_message(reply)
        out["tools_list"].append(time.perf_counter() - start)
        assert listed["id"] == 2 and listed["result"]["tools"], listed
        connection.close()
        proc.terminate()
        proc.wait(60)
    return out


def _sse_message(body: bytes) -> dict[str, Any]:
    data = [line[5:] for line in body.decode().splitlines() if line.startswith("data:")]
    message: dict[str, Any] = json.loads(data[0])
    return message


async def first_list(db: Path, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        async with Client(params(db), mode="legacy") as client:
            await client.list_tools()
            out.append(time.perf_counter() - start)
    return out


def fresh_memories(db: Path, n: int, seed: int) -> list[corpus.Spec]:
    """`n` corpus memories whose text is not in the store (compared with whitespace collapsed,
    as the engine compares), drawn with another seed than the store's corpus."""
    conn = sqlite3.connect(db)
    try:
        stored = {" ".join(c.split()) for (c,) in conn.execute("SELECT content FROM memories")}
    finally:
        conn.close()
    drawn = n
    while True:
        drawn_specs = corpus.generate(drawn, seed)
        fresh = [s for s in drawn_specs if " ".join(s.content.split()) not in stored]
        if len(fresh) >= n:
            return fresh[:n]
        drawn *= 2


def remember_arguments(spec: corpus.Spec) -> dict[str, Any]:
    """The `remember` tool's arguments for one memory (names as in lethe.mcp.tools_memory)."""
    return {
        "content": spec.content,
        "layer": spec.layer,
        "category": spec.category,
        "tags": list(spec.tags),
        "importance": spec.importance,
        "metadata": dict(spec.metadata),
    }


async def tool_calls(
    db: Path, queries: list[str], ids: list[str], memories: list[corpus.Spec]
) -> dict[str, list[float]]:
    timings: dict[str, list[float]] = {
        "recall": [],
        "forget_preview": [],
        "forget_execute": [],
        "remember": [],
    }
    async with Client(params(db), mode="legacy") as client:
        await client.call_tool("recall", {"query": "warm up the engine", "k": 1})
        for query in queries:
            start = time.perf_counter()
            result = await client.call_tool("recall", {"query": query, "k": 10})
            timings["recall"].append(time.perf_counter() - start)
            assert not result.is_error
        for memory_id in ids:
            for step in ("forget_preview", "forget_execute"):
                start = time.perf_counter()
                result = await client.call_tool("forget", {"memory_id": memory_id})
                timings[step].append(time.perf_counter() - start)
                assert not result.is_error and result.structured_content is not None
                want = "pending" if step == "forget_preview" else "executed"
                assert result.structured_content["status"] == want, result.structured_content
        for spec in memories:
            start = time.perf_counter()
            result = await client.call_tool("remember", remember_arguments(spec))
            timings["remember"].append(time.perf_counter() - start)
            assert not result.is_error and result.structured_content is not None, result
            assert not result.structured_content["existing"], result.structured_content
    return timings


def in_process(
    db: Path, queries: list[str], ids: list[str], memories: list[corpus.Spec]
) -> dict[str, list[float]]:
    def remember(spec: corpus.Spec) -> None:
        m = mem.remember(**remember_arguments(spec))
        assert not m.existing, m

    with Lethe.open(db, embedder=load_default_embedder()) as mem:
        mem.recall("warm up the engine", k=1)
        recall = time_each(lambda q: mem.recall(q, 10), queries)
        forget = time_each(lambda i: mem.execute(mem.plan_forget([i])), ids)
        remembered = time_each(remember, memories)
    return {"recall": recall, "forget": forget, "remember": remembered}


def run(
    db: Path,
    *,
    queries: int,
    forgets: int,
    remembers: int,
    starts: int,
    parts: tuple[str, ...] = PARTS,
    seed: int = 11,
) -> dict[str, Any]:
    texts = corpus.queries(queries, seed=seed) if "recall" in parts else []
    forgets = forgets if "forget" in parts else 0
    memories = fresh_memories(db, remembers, seed) if "remember" in parts else []
    result: dict[str, Any] = {"parts": list(parts)}
    with tempfile.TemporaryDirectory(prefix="lethe-mcp-") as tmp:
        served, direct = Path(tmp) / "served.db", Path(tmp) / "direct.db"
        shutil.copyfile(db, served)
        shutil.copyfile(db, direct)
        ids: list[str] = []
        if forgets:
            with Lethe.open(served, embedder=load_default_embedder()) as mem:
                ids = random.Random(seed).sample(mem.store.memory_ids(), 2 * forgets)
        result["size"] = memory_count(served)
        if "start" in parts:
            log(f"process start to the first answers x{starts} (pipe, then the SDK's client)")
            raw = first_answers(served, starts)
            over_http = first_answers_http(served, starts)
            start_times = asyncio.run(first_list(served, starts))
            result |= {
                "start_to_initialize": stats_ms(raw["initialize"]),
                "start_to_tools_list_pipe": stats_ms(raw["tools_list"]),
                "start_to_initialize_http": stats_ms(over_http["initialize"]),
                "start_to_tools_list_http": stats_ms(over_http["tools_list"]),
                "start_to_tools_list": stats_ms(start_times),
            }
        if texts or ids or memories:
            calls = {"recall": len(texts), "forget (two calls each)": forgets}
            calls["remember"] = len(memories)
            log("over stdio: " + ", ".join(f"{c} x{n}" for c, n in calls.items() if n))
            mcp = asyncio.run(tool_calls(served, texts, ids[:forgets], memories))
            log("the same in-process")
            lib = in_process(direct, texts, ids[forgets:], memories)
            if texts:
                result["mcp_recall"] = stats_ms(mcp["recall"])
                result["library_recall"] = stats_ms(lib["recall"])
            if ids:
                result["mcp_forget_preview"] = stats_ms(mcp["forget_preview"])
                result["mcp_forget_execute"] = stats_ms(mcp["forget_execute"])
                result["library_forget"] = stats_ms(lib["forget"])
            if memories:
                result["mcp_remember"] = stats_ms(mcp["remember"])
                result["library_remember"] = stats_ms(lib["remember"])
    for call in ("recall", "remember"):
        if f"mcp_{call}" in result:
            result[f"{call}_overhead_ms"] = round(
                result[f"mcp_{call}"]["p50_ms"] - result[f"library_{call}"]["p50_ms"], 3
            )
    return result


def print_result(r: dict[str, Any]) -> None:
    print(f"MCP over stdio and HTTP at {r['size']:,} memories")
    for name in (
        "start_to_initialize",
        "start_to_tools_list_pipe",
        "start_to_initialize_http",
        "start_to_tools_list_http",
        "start_to_tools_list",
        "mcp_recall",
        "library_recall",
        "mcp_forget_preview",
        "mcp_forget_execute",
        "library_forget",
        "mcp_remember",
        "library_remember",
    ):
        if name not in r:
            continue
        s = r[name]
        print(f"  {name:<24} n={s['n']:<4} p50 {s['p50_ms']:8.2f} ms   p95 {s['p95_ms']:8.2f} ms")
    for call, same in (("recall", "queries"), ("remember", "memories")):
        if f"{call}_overhead_ms" in r:
            overhead = r[f"{call}_overhead_ms"]
            print(f"  {call} overhead of MCP (p50, same {same}): {overhead:.2f} ms")
    if "start_to_initialize" not in r:
        return
    for transport, key in (("stdio", "start_to_initialize"), ("HTTP", "start_to_initialize_http")):
        first = r[key]["p50_ms"]
        verdict = "met" if first < 1000 else "NOT met"
        print(f"  target first answer over {transport} < 1000 ms: {first:.0f} ms -> {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="store to measure (copied; never modified)")
    parser.add_argument("--size", type=int, default=10_000, help="memories, when building")
    parser.add_argument("--queries", type=int, default=200, help="recall calls (200)")
    parser.add_argument("--forgets", type=int, default=100, help="forgets, two calls each (100)")
    parser.add_argument("--remembers", type=int, default=200, help="remember calls (200)")
    parser.add_argument("--starts", type=int, default=10, help="server starts to time (10)")
    parser.add_argument(
        "--parts",
        default=",".join(PARTS),
        help=f"what to run, comma-separated, of {','.join(PARTS)} (all)",
    )
    parser.add_argument(
        "--only-remember", action="store_true", help="the remember part alone: --parts remember"
    )
    args = parser.parse_args()
    parts = tuple(p for p in PARTS if p in args.parts.split(","))
    unknown = set(args.parts.split(",")) - set(PARTS)
    if unknown or not parts:
        parser.error(f"--parts takes some of {','.join(PARTS)}, not {args.parts!r}")
    if args.only_remember:
        parts = ("remember",)
    with store_for(args.db, args.size) as db:
        result = {
            "machine": machine(),
            **run(
                db,
                queries=args.queries,
                forgets=args.forgets,
                remembers=args.remembers,
                starts=args.starts,
                parts=parts,
            ),
        }
    suffix = "" if parts == PARTS else "-" + "-".join(parts)
    path = write_json(f"mcp-{result['size']}{suffix}.json", result)
    print_result(result)
    print(f"({path})")


if __name__ == "__main__":
    main()
