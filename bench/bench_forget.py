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
  planner (lethe/planner/); `query_plan_before`: the cosine planner it replaced, its items
  alone (`_query_items`); `query_plan_before_whole`: the same planner as `plan_forget` ran
  it, the whole plan around it. The three take turns request by request (the order
  rotating), and the description planner's p50 is given over each cosine one's.

`--plans-only` times the query plans alone (no links, forgets, restores or purges), over
`--requests` distinct requests (60), each `--rounds` times (1): issue 47's ratio from one
run in about a minute.

    python bench/bench_forget.py --db /tmp/lethe-bench/lethe-100000.db
    python bench/bench_forget.py --db /tmp/lethe-bench/lethe-100000.db --plans-only
    python bench/bench_forget.py --size 10000     # builds a store first (slow)
"""

from __future__ import annotations

import argparse
import random
import shutil
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

import corpus
from common import build_db, log, machine, memory_count, stats_ms, time_each, write_json

from lethe import Lethe
from lethe.embed import load_default_embedder

LINKS_PER_TARGET = 5


def run(
    db: Path,
    *,
    samples: int,
    purge_samples: int,
    rounds: int = 1,
    requests: int = 60,
    seed: int = 7,
) -> dict[str, Any]:
    embedder = load_default_embedder()
    rng = random.Random(seed)
    with Lethe.open(db, embedder=embedder) as mem:
        if not samples:
            mem.recall("warm up the index", k=1)
            return {"size": memory_count(db), **query_plans(mem, rounds, requests)}
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
        plans = query_plans(mem, rounds, requests)
        size = memory_count(db)
    return {
        "size": size,
        "links_per_target_min": min(link_counts),
        "forget": stats_ms(forget),
        "restore": stats_ms(restore),
        "purge": stats_ms(purge),
        **plans,
        "target": "forget p50 <= 5 ms at 100k",
        "target_met": stats_ms(forget)["p50_ms"] <= 5.0,
    }


def query_plans(mem: Lethe, rounds: int, count: int = 60) -> dict[str, Any]:
    """The description planner's query plan against the cosine planner it replaced, on the
    same requests, taking turns request by request (the order rotating, so none always finds
    the caches another warmed). The cosine planner is timed two ways: its items alone
    (`_query_items`, the reference of issue 17's bar), and as `plan_forget` ran it before
    issue 17, the whole plan around it (what the description planner is timed as)."""
    queries = corpus.queries(count, seed=3)
    requests = [f"forget {q}" for q in queries]
    log(f"query plans x{len(requests) * rounds}, the cosine planner before issue 17 interleaved")
    forgetting = mem._forgetting
    flt = mem._core.filters(None, ())

    def described(q: str) -> object:
        return mem.plan_forget(query=q)

    def cosine(q: str) -> object:
        return forgetting._query_items(q, flt, exact_identifiers=False)

    def cosine_plan(q: str) -> object:
        # The instance's attribute hides the method for this one plan: the cosine planner.
        forgetting._query_items = partial(  # type: ignore[method-assign]
            type(forgetting)._query_items, forgetting, exact_identifiers=False
        )
        try:
            return mem.plan_forget(query=q)
        finally:
            del forgetting._query_items

    timed: dict[str, list[float]] = {"query_plan": [], "query_plan_before": [], "whole": []}
    variants = [("query_plan", described), ("query_plan_before", cosine), ("whole", cosine_plan)]
    turn = 0
    for _ in range(rounds):
        for request in requests:
            for name, fn in variants[turn % 3 :] + variants[: turn % 3]:
                timed[name] += time_each(fn, [request])
            turn += 1
    plan, before, whole = (stats_ms(timed[k]) for k in ("query_plan", "query_plan_before", "whole"))
    return {
        "query_plan": plan,
        "query_plan_before": before,
        "query_plan_before_whole": whole,
        "query_plan_ratio_p50": round(plan["p50_ms"] / before["p50_ms"], 2),
        "query_plan_ratio_whole_p50": round(plan["p50_ms"] / whole["p50_ms"], 2),
    }


def print_result(result: dict[str, Any]) -> None:
    names = ("forget", "restore", "purge", "query_plan", "query_plan_before")
    for name in (*names, "query_plan_before_whole"):
        if name not in result:
            continue
        s = result[name]
        print(f"{name:<23} n={s['n']:<4} p50 {s['p50_ms']:8.2f} ms   p95 {s['p95_ms']:8.2f} ms")
    plan = result["query_plan"]["p50_ms"]
    print(
        f"query plan / cosine planner before (its items), p50: {plan:.2f} / "
        f"{result['query_plan_before']['p50_ms']:.2f} ms = {result['query_plan_ratio_p50']}"
    )
    print(
        f"query plan / cosine planner before (its whole plan), p50: {plan:.2f} / "
        f"{result['query_plan_before_whole']['p50_ms']:.2f} ms = "
        f"{result['query_plan_ratio_whole_p50']}"
    )
    if "target" in result:
        print(f"size {result['size']:,}; target {result['target']}: met={result['target_met']}")
    else:
        print(f"size {result['size']:,}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="store to measure (copied; never modified)")
    parser.add_argument("--size", type=int, default=10_000, help="memories, when building")
    parser.add_argument("--samples", type=int, default=200, help="forgets/restores to time")
    parser.add_argument("--purge-samples", type=int, default=20, help="purges to time")
    parser.add_argument(
        "--plans-only", action="store_true", help="time the query plans alone (issue 47's ratio)"
    )
    parser.add_argument("--rounds", type=int, default=1, help="times each query plan is timed")
    parser.add_argument("--requests", type=int, default=60, help="query plans (distinct requests)")
    args = parser.parse_args()
    if args.plans_only:
        args.samples = args.purge_samples = 0
    with tempfile.TemporaryDirectory(prefix="lethe-forget-") as tmp:
        work = Path(tmp) / "store.db"
        if args.db:
            log(f"copying {args.db} to {work}")
            shutil.copyfile(args.db, work)
        else:
            build_db(work, args.size, 0, load_default_embedder())
        result = {
            "machine": machine(),
            **run(
                work,
                samples=args.samples,
                purge_samples=args.purge_samples,
                rounds=args.rounds,
                requests=args.requests,
            ),
        }
    name = "forget-plans" if args.plans_only else "forget"
    path = write_json(f"{name}-{result['size']}.json", result)
    print_result(result)
    print(f"({path})")


if __name__ == "__main__":
    main()
