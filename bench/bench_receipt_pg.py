"""Proof of erasure on PostgreSQL (issue 27): what the rewrite of the touched tables
(`VACUUM (FULL, ANALYZE)` of memories, memory_versions, memory_context, memory_tags and events,
which rebuilds their indexes, the HNSW index included) and the proof add to a purge.

The rows come from a SQLite store (`bench_receipt.py --cache` builds one of 100k), the first
`--n` memories of it, copied into a fresh pgserver cluster with `bench_backends.load_postgres`.
In one process, purges of one memory take turns three ways:

- `full`: as lethe does it now (the rewrite, then the scan of the workspace files, the probes
  and the signed receipt);
- `no proof`: the rewrite, without the proof (`_prove` replaced by a function returning None);
- `before`: neither (the store's cleanup a no-op, as before issue 27: dead tuples left for
  autovacuum).

    OPENBLAS_NUM_THREADS=1 python bench/bench_receipt_pg.py \
        --source /tmp/lethe-receipt-100000.db --n 20000
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench_backends import load_postgres, pg_server, read_source
from common import log, stats_ms

from lethe import Lethe
from lethe.embed import load_default_embedder
from tests import pg_support


def _subset(src: Any, n: int) -> Any:
    memories = src.memories[:n]
    keep = {m[1] for m in memories}
    return replace(
        src,
        memories=memories,
        vectors=src.vectors[:n].copy(),
        tags={k: v for k, v in src.tags.items() if k in keep},
        links=[r for r in src.links if r[0] in keep and r[1] in keep],
        events=[e for e in src.events if e[3] is None or e[3] in keep],
        access_days=[r for r in src.access_days if r[0] in keep],
        active=src.active[:n].copy(),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, required=True, help="a SQLite lethe store")
    parser.add_argument("--n", type=int, default=20_000, help="memories copied (first n)")
    parser.add_argument("--reps", type=int, default=3, help="purges per way")
    parser.add_argument("--seed", type=int, default=27)
    args = parser.parse_args()
    embedder = load_default_embedder()
    src = _subset(read_source(args.source), args.n)
    log(f"source: {len(src.memories):,} memories from {args.source}")
    with pg_server(None) as srv:
        dsn = pg_support.create_database(srv, "receipts", extensions=("vector",))
        timings = load_postgres(dsn, src, embedder)
        log(f"loaded: {timings}")
        times: dict[str, list[float]] = {"full": [], "no proof": [], "before": []}
        statuses: list[str] = []
        with Lethe.open(dsn, embedder=embedder) as mem:
            ids = [m[1] for m in src.memories]
            random.Random(args.seed).shuffle(ids)
            prove, compact = mem._proof.prove, mem.store.compact
            for rep in range(args.reps + 1):  # the first round warms up
                for way in times:
                    mem._proof.prove = prove if way == "full" else (lambda *a, **k: None)  # type: ignore[method-assign]
                    mem.store.compact = compact if way != "before" else (lambda: True)  # type: ignore[method-assign]
                    start = time.perf_counter()
                    result = mem.execute(mem.plan_purge([ids.pop()]))
                    took = time.perf_counter() - start
                    if rep:
                        times[way].append(took)
                        if result.receipt is not None:
                            statuses.append(result.receipt["status"])
                    log(f"  {way}: {took:.2f} s")
            mem._proof.prove, mem.store.compact = prove, compact  # type: ignore[method-assign]
            start = time.perf_counter()
            mem.store.vacuum_erased()
            rewrite = time.perf_counter() - start
    print(f"PostgreSQL, {len(src.memories):,} memories; purge of 1 memory, {args.reps} runs each")
    print(f"{'way':10} {'p50 ms':>10} {'p95 ms':>10}")
    for way, values in times.items():
        s = stats_ms(values)
        print(f"{way:10} {s['p50_ms']:10.1f} {s['p95_ms']:10.1f}")
    print(f"the rewrite alone (VACUUM FULL of the five tables): {rewrite * 1000:.0f} ms")
    print(f"receipts: {statuses}")


if __name__ == "__main__":
    main()
