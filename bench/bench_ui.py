"""Page render time of the web inspector at 100k memories and 100k audit events.

The store is filled straight through SQL (as in bench_decay.py): the corpus' sentences over
two years, random unit vectors of the model's size (pages read rows, and the search page
then ranks real-sized vectors), one `remember` event per memory plus a few thousand
forgets, restores and purges in the last month (so the deletion chart has bars). Then
`lethe ui` runs as its own process and each page is fetched over HTTP, one request after
the other; the time is request to last byte. The same engine calls made in this process
give the share of the page time that is the engine's.

    python bench/bench_ui.py                  # 100,000 memories, 100,000+ events
    python bench/bench_ui.py --size 10000 --runs 20
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import corpus
import numpy as np
from common import free_port, log, machine, stats_ms, wait_for_port, write_json

from lethe import Lethe
from lethe.embed import load_default_embedder
from lethe.store import sqlite_grams

DAY = 86400.0
DIM = 384
DELETIONS = ("forget", "restore", "purge")


def fill(db: Path, size: int, seed: int = 7) -> tuple[int, float]:
    """Memories and events through SQL; returns (events written, seconds)."""
    with Lethe.open(db, embedder=load_default_embedder()):
        pass  # lethe's own schema and migrations
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed)
    now = time.time()
    texts = [d.content for d in corpus.drafts(min(size, 50_000), seed)]
    start = time.perf_counter()
    conn = sqlite3.connect(db)
    sqlite_grams.register(conn)  # the gram index's triggers (migration 18) call it
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = OFF")
    rows: list[tuple[Any, ...]] = []
    events: list[tuple[Any, ...]] = []
    written = 0

    def flush() -> None:
        nonlocal written
        conn.executemany(
            """INSERT INTO memories (id, namespace, agent, content, content_sha256, layer,
               importance, created_at, updated_at, embedding)
               VALUES (?, 'default', ?, ?, ?, ?, ?, ?, ?, ?)""",
            rows,
        )
        conn.executemany(
            """INSERT INTO events (at, op, memory_id, namespace, actor, details, content_sha256)
               VALUES (?, ?, ?, 'default', ?, ?, ?)""",
            sorted(events),
        )
        written += len(events)
        rows.clear()
        events.clear()

    for n in range(size):
        memory_id = f"mem_{n:012x}"
        content = f"{texts[n % len(texts)]} ({n})"
        created = now - (size - n) / size * 730 * DAY
        agent = rng.choice(["claude", "cursor", "user"])
        sha = hashlib.sha256(content.encode()).hexdigest()
        vector = vectors.standard_normal(DIM).astype(np.float32)
        vector /= np.linalg.norm(vector)
        layer = rng.choice(["episodic", "semantic", "learning"])
        rows.append(
            (memory_id, agent, content, sha, layer, 0.5, created, created, vector.tobytes())
        )
        events.append((created, "remember", memory_id, agent, "{}", sha))
        if n % 25 == 0:  # a deletion history for the chart (rows stay live: only events)
            op = DELETIONS[n % 3]
            events.append((now - rng.uniform(0, 30) * DAY, op, memory_id, "inspector", "{}", sha))
        if len(rows) == 10_000:
            flush()
    flush()
    conn.commit()
    conn.close()
    return written, time.perf_counter() - start


def fetch(port: int, path: str) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    start = time.perf_counter()
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - start
    conn.close()
    if response.status != 200:
        raise RuntimeError(f"{path}: {response.status} {body[:300]!r}")
    return elapsed


def run(db: Path, runs: int) -> dict[str, Any]:
    lethe = str(Path(sys.executable).parent / "lethe")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
    proc = subprocess.Popen(
        [lethe, "ui", "--db", str(db), "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        proc.stdout.readline()
        wait_for_port(port, poll=0.1)
        with Lethe.open(db) as mem:
            total = mem.list_memories(limit=1).total
            middle = f"mem_{total // 2:012x}"
            pages = {
                "memory list, page 1": "/memories",
                "memory list, page 1000 (offset 49,950)": "/memories?page=1000",
                "memory list, filtered by agent and layer": "/memories?agent=claude&layer=semantic",
                "memory search (hybrid recall, top 50 of 100)": "/memories?q=coffee+in+the+morning",
                "memory page": f"/memories/{middle}",
                "audit timeline, newest 100": "/audit",
                "audit timeline, op = forget": "/audit?op=forget",
                "audit timeline, agent = cursor": "/audit?agent=cursor",
                "trash": "/trash",
            }
            engine_calls = {
                "memory list, page 1": lambda: mem.list_memories(limit=50),
                "memory list, page 1000 (offset 49,950)": lambda: mem.list_memories(
                    limit=50, offset=49_950
                ),
                "audit timeline, newest 100": lambda: mem.audit(newest_first=True, limit=100),
                "audit timeline, op = forget": lambda: mem.audit(
                    op="forget", newest_first=True, limit=100
                ),
            }
            out: dict[str, Any] = {}
            for name, path in pages.items():
                fetch(port, path)  # warm: the first search loads the vectors
                times = [fetch(port, path) for _ in range(runs)]
                out[name] = {"path": path, "http": stats_ms(times)}
                if name in engine_calls:
                    call = engine_calls[name]
                    call()
                    engine = []
                    for _ in range(runs):
                        start = time.perf_counter()
                        call()
                        engine.append(time.perf_counter() - start)
                    out[name]["engine"] = stats_ms(engine)
                log(f"  {name}: p50 {out[name]['http']['p50_ms']:.1f} ms")
            return out
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--db", type=Path, help="reuse (or keep) the store at this path")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "ui.db"
        events, took = (0, 0.0)
        if not db.exists():
            log(f"filling {args.size:,} memories through SQL")
            events, took = fill(db, args.size)
            log(f"  {events:,} events, {took:.1f} s")
        pages = run(db, args.runs)
    result = {
        "size": args.size,
        "events": events,
        "runs": args.runs,
        "machine": machine(),
        "pages": pages,
    }
    write_json(f"ui-{args.size}", result)
    print(f"{'page':<48} {'p50 ms':>8} {'p95 ms':>8} {'engine p50':>11}")
    for name, r in pages.items():
        engine = r.get("engine", {}).get("p50_ms")
        shown = f"{engine:.1f}" if engine is not None else "—"
        print(f"{name:<48} {r['http']['p50_ms']:>8.1f} {r['http']['p95_ms']:>8.1f} {shown:>11}")
    print(json.dumps({"events": events, "size": args.size}))


if __name__ == "__main__":
    main()
