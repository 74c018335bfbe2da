"""A dry-run decay sweep over 1M memories (target: within 5 s).

A sweep reads rows, not vectors, so the store is filled straight through SQL with the
benchmark corpus' sentences, spread over two years of creation times, a quarter of them
recalled at some point and a tenth recalled in the last 90 days (rows in the per-day access
log), a few protected. Embeddings are placeholder bytes: no sweep reads them, and embedding
1M sentences would take hours here. The store is created by lethe itself (schema,
migrations), so the tables and indexes are the real ones.

    python bench/bench_decay.py                 # 1,000,000 memories
    python bench/bench_decay.py --size 100000
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import corpus
from common import log, machine, stats_ms, write_json

from lethe import Lethe
from lethe.embed import load_default_embedder

DAY = 86400.0


def fill(db: Path, size: int, seed: int = 5) -> float:
    """Insert `size` memories and their access history; returns the time taken."""
    with Lethe.open(db, embedder=load_default_embedder()):
        pass  # creates the file with lethe's schema
    rng = random.Random(seed)
    now = time.time()
    texts = [d.content for d in corpus.drafts(min(size, 50_000), seed)]
    start = time.perf_counter()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = OFF")
    blob = bytes(16)
    batch: list[tuple[Any, ...]] = []
    accesses: list[tuple[str, int, int]] = []

    def flush() -> None:
        conn.executemany(
            """INSERT INTO memories (id, namespace, agent, content, content_sha256, layer,
               importance, created_at, updated_at, last_accessed_at, access_count, embedding)
               VALUES (?, 'default', 'user', ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            batch,
        )
        conn.executemany("INSERT INTO access_days VALUES (?, ?, ?)", accesses)
        batch.clear()
        accesses.clear()

    for n in range(size):
        memory_id = f"mem_{n:012x}"
        content = f"{texts[n % len(texts)]} ({n})"
        created = now - rng.uniform(0, 730) * DAY
        layer = "caveat" if n % 97 == 0 else rng.choice(["episodic", "semantic", "learning"])
        importance = round(rng.random() ** 2, 3) if n % 53 else 0.95
        last, count = None, 0
        if rng.random() < 0.25:
            count = rng.randint(1, 30)
            last = rng.uniform(created, now)
            if now - last < 90 * DAY:
                day = int(last // DAY)
                for back in range(min(count, 5)):
                    accesses.append((memory_id, day - back * 7, 1 + count // 5))
        sha = hashlib.sha256(content.encode()).hexdigest()
        batch.append(
            (memory_id, content, sha, layer, importance, created, created, last, count, blob)
        )
        if len(batch) == 20_000:
            flush()
            if n % 200_000 < 20_000:
                log(f"  {n + 1:,}/{size:,}")
    flush()
    conn.commit()
    conn.close()
    return time.perf_counter() - start


def run(db: Path, runs: int) -> dict[str, Any]:
    with Lethe.open(db, embedder=load_default_embedder()) as mem:
        columns, sweeps = [], []
        plan = None
        for _ in range(runs):
            start = time.perf_counter()
            mem.store.decay_columns("default", mem._clock(), ["caveat", "goal"])
            columns.append(time.perf_counter() - start)
            start = time.perf_counter()
            plan = mem.sweep()
            sweeps.append(time.perf_counter() - start)
    assert plan is not None
    return {
        "scanned": plan.scanned,
        "keep": plan.keep,
        "compress": plan.compress,
        "drop": plan.drop,
        "protected": plan.protected,
        "read_columns": stats_ms(columns),
        "sweep": stats_ms(sweeps),
        "target": "dry-run sweep over 1M memories within 5 s",
        "target_met": stats_ms(sweeps)["p50_ms"] <= 5000.0 if plan.scanned >= 1_000_000 else None,
    }


def print_result(r: dict[str, Any]) -> None:
    print(f"dry-run sweep over {r['scanned']:,} memories ({r['runs']} runs)")
    print(f"  sweep (read + heat + risk + plan)  median {r['sweep']['p50_ms'] / 1000:7.2f} s")
    print(
        f"  of which reading the columns       median {r['read_columns']['p50_ms'] / 1000:7.2f} s"
    )
    print(
        f"  plan: keep {r['keep']:,} (protected {r['protected']:,}), "
        f"compress {r['compress']:,}, drop {r['drop']:,}"
    )
    print(f"  store filled in {r['fill_seconds']:.0f} s; target met: {r['target_met']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="memories (1,000,000)")
    parser.add_argument("--runs", type=int, default=3, help="sweeps to time (3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lethe-decay-") as tmp:
        db = Path(tmp) / "decay.db"
        log(f"filling {args.size:,} memories")
        filled = fill(db, args.size)
        result = {
            "machine": machine(),
            "size": args.size,
            "runs": args.runs,
            "fill_seconds": round(filled, 1),
            **run(db, args.runs),
        }
    path = write_json(f"decay-{args.size}.json", result)
    print_result(result)
    print(f"({path})")


if __name__ == "__main__":
    main()
