"""Consolidation at 100k memories: time to find every near-duplicate pair (cosine >= 0.90),
and how many of the exact search's pairs the partitioned search finds (its recall), both on
the same real MiniLM vectors of the benchmark corpus, in one run.

    python bench/bench_consolidate.py --db /tmp/lethe-bench/lethe-100000.db
    python bench/bench_consolidate.py --size 20000      # builds a store first (slow)
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from common import log, machine, store_for, write_json

from lethe import Lethe
from lethe.embed import load_default_embedder
from lethe.engine.neardup import near_duplicates


def run(db: Path, *, threshold: float, exact: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="lethe-consolidate-") as tmp:
        work = Path(tmp) / "store.db"
        shutil.copyfile(db, work)
        with Lethe.open(work, embedder=load_default_embedder()) as mem:
            mem.store.live_vector_ids()  # load the index outside the timings
            start = time.perf_counter()
            report = mem.consolidate(threshold=threshold, limit=50)
            consolidate_s = time.perf_counter() - start
            ids, matrix = mem.store.namespace_vectors("default")
    result: dict[str, Any] = {
        "size": len(ids),
        "threshold": threshold,
        "pairs": report.total_pairs,
        "bumped": len(report.bumped),
        "consolidate_seconds": round(consolidate_s, 2),
    }
    start = time.perf_counter()
    split = near_duplicates(matrix, threshold, exact_limit=0)  # always the partitioned path
    result["pairs_search_seconds"] = round(time.perf_counter() - start, 2)
    if exact:
        log(f"exact all-pairs search over {len(ids):,} vectors (slow)")
        start = time.perf_counter()
        full = near_duplicates(matrix, threshold, exact_limit=len(ids) + 1)
        result["exact_seconds"] = round(time.perf_counter() - start, 2)
        found = set(zip(split[0].tolist(), split[1].tolist(), strict=True))
        wanted = set(zip(full[0].tolist(), full[1].tolist(), strict=True))
        result["exact_pairs"] = len(wanted)
        result["partitioned_pairs"] = len(found & wanted)
        result["recall"] = round(len(found & wanted) / len(wanted), 4) if wanted else 1.0
        result["speedup"] = round(result["exact_seconds"] / result["pairs_search_seconds"], 1)
    return result


def print_result(r: dict[str, Any]) -> None:
    print(f"consolidate at {r['size']:,} memories (cosine >= {r['threshold']})")
    print(
        f"  consolidate() end to end        {r['consolidate_seconds']:8.2f} s "
        f"({r['pairs']:,} pairs, {r['bumped']:,} links bumped)"
    )
    print(f"  pair search, partitioned        {r['pairs_search_seconds']:8.2f} s")
    if "exact_seconds" in r:
        print(f"  pair search (exact, all pairs)  {r['exact_seconds']:8.2f} s")
        print(
            f"  partitioned finds {r['partitioned_pairs']:,} of {r['exact_pairs']:,} exact pairs: "
            f"recall "
            f"{r['recall']:.4f}; {r['speedup']}x faster"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="store to measure (copied; never modified)")
    parser.add_argument("--size", type=int, default=100_000, help="memories, when building")
    parser.add_argument("--threshold", type=float, default=0.90)
    parser.add_argument("--no-exact", action="store_true", help="skip the exact baseline")
    args = parser.parse_args()
    with store_for(args.db, args.size) as db:
        result = {
            "machine": machine(),
            **run(db, threshold=args.threshold, exact=not args.no_exact),
        }
    path = write_json(f"consolidate-{result['size']}.json", result)
    print_result(result)
    print(f"({path})")


if __name__ == "__main__":
    main()
