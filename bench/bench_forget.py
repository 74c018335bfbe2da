"""Forget, restore and purge latency at a given store size; query-plan latency.

Targets (issue 3): forget (plan + execute, target with 5 links, audit included) p50 <= 5 ms
at 100k memories. Restore and purge are measured the same way; a query plan is timed with
the query embedding included, as a caller sees it.

Each operation is timed end to end through the public API on a copy of the store (the
original is never modified):

- `forget`: `execute(plan_forget([id]))` — plan, soft delete, audit event, commit;
- `restore`: `restore(id)` of the memory just forgotten;
- `purge`: `execute(plan_purge([id]))` — erasure, event redaction, full-text merge and WAL
  truncation (the last two make purge the slow one, by design: erased text must not linger);
- `query_plan`: `plan_forget(query="forget …")` — embedding, hybrid search, the description
  planner (lethe/planner/); `query_plan_before`: the cosine planner it replaced, timed
  interleaved with it on the same requests.

    python bench/bench_forget.py --db /tmp/lethe-bench/lethe-100000.db
    python bench/bench_forget.py --size 10000     # builds a store first (slow)
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
from pathlib import Path
from typing import Any

import corpus
from common import build_db, log, machine, memory_count, stats_ms, time_each, write_json

from lethe import Lethe
from lethe.embed import load_default_embedder

LINKS_PER_TARGET = 5


def run(db: Path, *, samples: int, purge_samples: int, seed: int = 7) -> dict[str, Any]:
    embedder = load_default_embedder()
    rng = random.Random(seed)
    with Lethe.open(db, embedder=embedder) as mem:
        ids = mem.store.memory_ids()
        targets = rng.sample(ids, samples + purge_samples)
        log(f"linking {len(targets)} targets to {LINKS_PER_TARGET} memories each")
        for target in targets:
            have = len(mem.links(target))
            for other in rng.sample(ids, LINKS_PER_TARGET + 3):
                if have >= LINKS_PER_TARGET:
                    break
                if other != target:
                    mem.link(target, other, kind="bench", confidence=0.5)
                    have += 1
        forget_ids, purge_ids = targets[:samples], targets[samples:]
        link_counts = [len(mem.links(t)) for t in targets]
        mem.recall("warm up the index", k=1)

        log(f"forget x{samples}")
        forget = time_each(lambda i: mem.execute(mem.plan_forget([i])), forget_ids)
        log(f"restore x{samples}")
        restore = time_each(lambda i: mem.restore(i), forget_ids)
        log(f"purge x{purge_samples}")
        purge = time_each(lambda i: mem.execute(mem.plan_purge([i])), purge_ids)
        queries = corpus.queries(60, seed=3)
        requests = [f"forget {q}" for q in queries]
        log(f"query plans x{len(requests)}, the cosine planner before issue 17 interleaved")
        flt = mem._core.filters(None, ())
        plan: list[float] = []
        before: list[float] = []
        for request in requests:
            plan += time_each(lambda q: mem.plan_forget(query=q), [request])
            before += time_each(
                lambda q: mem._forgetting._query_items(q, flt, exact_identifiers=False), [request]
            )
        size = memory_count(db)
    return {
        "size": size,
        "links_per_target_min": min(link_counts),
        "forget": stats_ms(forget),
        "restore": stats_ms(restore),
        "purge": stats_ms(purge),
        "query_plan": stats_ms(plan),
        "query_plan_before": stats_ms(before),
        "query_plan_ratio_p50": round(stats_ms(plan)["p50_ms"] / stats_ms(before)["p50_ms"], 2),
        "target": "forget p50 <= 5 ms at 100k",
        "target_met": stats_ms(forget)["p50_ms"] <= 5.0,
    }


def print_result(result: dict[str, Any]) -> None:
    for name in ("forget", "restore", "purge", "query_plan", "query_plan_before"):
        s = result[name]
        print(f"{name:<17} n={s['n']:<4} p50 {s['p50_ms']:8.2f} ms   p95 {s['p95_ms']:8.2f} ms")
    print(f"query plan / cosine planner before, p50: {result['query_plan_ratio_p50']}")
    print(f"size {result['size']:,}; target {result['target']}: met={result['target_met']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="store to measure (copied; never modified)")
    parser.add_argument("--size", type=int, default=10_000, help="memories, when building")
    parser.add_argument("--samples", type=int, default=200, help="forgets/restores to time")
    parser.add_argument("--purge-samples", type=int, default=20, help="purges to time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lethe-forget-") as tmp:
        work = Path(tmp) / "store.db"
        if args.db:
            log(f"copying {args.db} to {work}")
            shutil.copyfile(args.db, work)
        else:
            build_db(work, args.size, 0, load_default_embedder())
        result = {
            "machine": machine(),
            **run(work, samples=args.samples, purge_samples=args.purge_samples),
        }
    path = write_json(f"forget-{result['size']}.json", result)
    print_result(result)
    print(f"({path})")


if __name__ == "__main__":
    main()
