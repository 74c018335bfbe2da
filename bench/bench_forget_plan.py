"""Forgetting by description (issue 17): which memories a query plan marks, per kind of request.

Every case of `forget_cases.py` is loaded into its own namespace of one SQLite store (a temp
file; the real MiniLM embedder embeds every memory and request), then each planner is asked
for the request in that namespace and its marked memories (plan items with action `delete`)
are compared with the case's expected set. Reported per kind and planner:

- precision and recall of marked items (pooled over the kind's cases);
- exact-set rate: the marked set is exactly the expected one (for "nothing": marks nothing);
- over-deletion rate: the request marked at least one memory it does not mean;
- abstention rate: the request marked nothing;
- for `nothing` cases, the false-mark rate (any mark at all);
- plan latency p50/p95 (embedding of the request included, small namespaces: this is not the
  100k-memory latency of bench_forget.py).

`planners` maps a name to a callable (mem, request, namespace) -> marked ids, so a second
planner can be measured beside today's in the same run. Today's planner has no way to name the
memory a new fact supersedes, so `correction` cases are measured as a proxy: the new fact is
given to the planner as the request (what today's plan would mark for it).

    OPENBLAS_NUM_THREADS=1 python bench/bench_forget_plan.py
    python bench/bench_forget_plan.py --cases-per-kind 10 --seed 3
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import forget_cases
from common import log, machine, stats_ms, write_json
from forget_cases import KINDS, Case

from lethe import Lethe
from lethe.embed import load_default_embedder
from lethe.forget.corrections import likely_superseded
from lethe.forget.describe import MARK_BAR
from lethe.model import Draft

Planner = Callable[[Lethe, str, str], dict[str, float | None]]
"""(mem, request, namespace) -> the marked ids, each with its certainty (None: not given)."""


def current_planner(mem: Lethe, request: str, namespace: str) -> dict[str, float | None]:
    """Today's query plan: `plan_forget(query=…)` scoped to the case's namespace."""
    plan = mem.plan_forget(query=request, filters={"namespace": namespace})
    return {item.id: item.certainty for item in plan.items if item.action == "delete"}


def superseded(mem: Lethe, new_fact: str, namespace: str) -> dict[str, float | None]:
    """What remember would name as the memory a new fact supersedes (confidence >= 0.9):
    the namespace's closest memories, judged by forget/corrections.py."""
    hits = mem.recall(new_fact, k=20, filters={"namespace": namespace}, touch=False)
    named = likely_superseded(new_fact, [(h.memory, h.similarity) for h in hits])
    return {s.id: s.confidence for s in named if s.confidence >= MARK_BAR}


def cosine_planner(mem: Lethe, request: str, namespace: str) -> dict[str, float | None]:
    """The query plan before this issue: the clear cosine winner (>= 0.6, 0.05 ahead) and
    its near-copies, measured beside today's in the same run."""
    flt = mem._filters({"namespace": namespace}, ())
    items, _ = mem._query_items(request, flt, exact_identifiers=False)
    return {item.id: None for item in items if item.action == "delete"}


PLANNERS: dict[str, Planner] = {"before": cosine_planner, "current": current_planner}


def memory_id(case_no: int, index: int) -> str:
    return f"mem_{case_no:06x}{index:06x}"


def namespace_of(case: Case) -> str:
    return f"fc-{case.id}"


def load(mem: Lethe, cases: list[Case]) -> None:
    drafts = [
        Draft(content=text, id=memory_id(n, i), namespace=namespace_of(case))
        for n, case in enumerate(cases)
        for i, text in enumerate(case.memories)
    ]
    done = 0

    def progress(k: int) -> None:
        nonlocal done
        done += k
        if done % 1000 < k:
            log(f"  {done:,}/{len(drafts):,} memories")

    report = mem.remember_many(drafts, progress=progress)
    if report.imported != len(drafts):
        raise SystemExit(f"only {report.imported} of {len(drafts)} memories were stored")


def ratio(num: float, den: float) -> float | None:
    return round(num / den, 4) if den else None


def score(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one planner over one kind's cases."""
    n = len(results)
    marked = sum(len(r["marked"]) for r in results)
    right = sum(len(set(r["marked"]) & set(r["targets"])) for r in results)
    expected = sum(len(r["targets"]) for r in results)
    nothing = [r for r in results if not r["targets"]]
    wrong_roles: Counter[str] = Counter()
    for r in results:
        wrong_roles.update(r["wrong_roles"])
    return {
        "cases": n,
        "precision": ratio(right, marked),
        "recall": ratio(right, expected),
        "exact_set": ratio(sum(set(r["marked"]) == set(r["targets"]) for r in results), n),
        "over_deletion": ratio(sum(bool(r["wrong_roles"]) for r in results), n),
        "abstention": ratio(sum(not r["marked"] for r in results), n),
        "false_mark_nothing": ratio(sum(bool(r["marked"]) for r in nothing), len(nothing)),
        "marked": marked,
        "right": right,
        "expected": expected,
        "wrongly_marked_roles": dict(wrong_roles.most_common()),
    }


def run(cases: list[Case], planners: dict[str, Planner], keep: Path | None) -> dict[str, Any]:
    embedder = load_default_embedder()
    with tempfile.TemporaryDirectory(prefix="lethe-forget-plan-") as tmp:
        path = keep or Path(tmp) / "cases.db"
        reuse = path.exists()
        with Lethe.open(path, embedder=embedder) as mem:
            if not reuse:
                total = sum(len(c.memories) for c in cases)
                log(f"loading {total:,} memories of {len(cases)} cases")
                start = time.perf_counter()
                load(mem, cases)
                log(f"  loaded in {time.perf_counter() - start:.1f} s")
            return plan_all(mem, cases, planners)


def calibration(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """How often marks were right, by the certainty the planner gave them."""
    bands = [(0.9, 1.01), (0.8, 0.9), (0.0, 0.8)]
    out = []
    for low, high in bands:
        marks = [
            (i in r["targets"])
            for r in results
            for i, c in zip(r["marked"], r["certainty"], strict=True)
            if c is not None and low <= c < high
        ]
        out.append(
            {
                "certainty": f"[{low}, {min(high, 1.0)}]",
                "marks": len(marks),
                "right": ratio(sum(marks), len(marks)),
            }
        )
    return out


def plan_all(mem: Lethe, cases: list[Case], planners: dict[str, Planner]) -> dict[str, Any]:
    for planner in planners.values():  # warm the index and the encoder
        planner(mem, "warm up", namespace_of(cases[0]))
    per_planner: dict[str, Any] = {}
    for name, planner in planners.items():
        log(f"planning {len(cases)} requests with {name!r}")
        results, durations = [], []
        for n, case in enumerate(cases):
            index = {memory_id(n, i): i for i in range(len(case.memories))}
            t0 = time.perf_counter()
            if case.kind == "correction" and name == "current":
                ids = superseded(mem, case.request, namespace_of(case))
            else:
                ids = planner(mem, case.request, namespace_of(case))
            durations.append(time.perf_counter() - t0)
            marked = sorted(index[i] for i in ids)
            certainty = {index[i]: c for i, c in ids.items()}
            results.append(
                {
                    "case": case.id,
                    "kind": case.kind,
                    "form": case.form,
                    "request": case.request,
                    "targets": sorted(case.targets),
                    "marked": marked,
                    "wrong_roles": [case.roles[i] for i in marked if i not in case.targets],
                    "certainty": [certainty[i] for i in marked],
                }
            )
        by_kind = {k: score([r for r in results if r["kind"] == k]) for k in KINDS}
        by_kind = {k: v for k, v in by_kind.items() if v["cases"]}
        per_planner[name] = {
            "by_kind": by_kind,
            "all_but_correction": score([r for r in results if r["kind"] != "correction"]),
            "latency": stats_ms(durations),
            "calibration": calibration([r for r in results if r["kind"] != "correction"]),
            "cases": results,
        }
    return per_planner


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def print_table(per_planner: dict[str, Any]) -> None:
    head = (
        f"{'planner':<9} {'kind':<19} {'cases':>5} {'prec':>6} {'recall':>6} {'exact':>6} "
        f"{'over':>6} {'abst':>6} {'falsemk':>7}  wrongly marked"
    )
    print(head)
    print("-" * len(head))
    for name, data in per_planner.items():
        rows = [*data["by_kind"].items(), ("all but correction", data["all_but_correction"])]
        for kind, s in rows:
            label = "correction*" if kind == "correction" else kind
            wrong = ", ".join(f"{k} {v}" for k, v in s["wrongly_marked_roles"].items())
            print(
                f"{name:<9} {label:<19} {s['cases']:>5} {fmt(s['precision']):>6} "
                f"{fmt(s['recall']):>6} {fmt(s['exact_set']):>6} {fmt(s['over_deletion']):>6} "
                f"{fmt(s['abstention']):>6} {fmt(s['false_mark_nothing']):>7}  {wrong}"
            )
        lat = data["latency"]
        print(f"{name:<9} plan latency p50 {lat['p50_ms']:.2f} ms, p95 {lat['p95_ms']:.2f} ms")
        for band in data["calibration"]:
            if band["marks"]:
                print(
                    f"{name:<9} marks at certainty {band['certainty']}: {band['marks']}, "
                    f"right {fmt(band['right'])}"
                )
    print("* correction: 'before' is the new fact given to plan_forget as the request (a proxy);")
    print("  'current' is what remember names as superseded (forget/corrections.py, >= 0.9)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=17, help="case generator seed")
    parser.add_argument("--cases-per-kind", type=int, default=40)
    parser.add_argument("--kind", action="append", choices=KINDS, help="only these kinds")
    parser.add_argument(
        "--planner", action="append", choices=sorted(PLANNERS), help="only these planners"
    )
    parser.add_argument(
        "--keep", type=Path, help="keep the loaded store in this file and reuse it next time"
    )
    args = parser.parse_args()
    cases = forget_cases.cases(args.cases_per_kind, args.seed, args.kind or KINDS)
    planners = {k: v for k, v in PLANNERS.items() if not args.planner or k in args.planner}
    at_start = machine()
    per_planner = run(cases, planners, args.keep)
    result = {
        "seed": args.seed,
        "cases_per_kind": args.cases_per_kind,
        "cases": len(cases),
        "memories": sum(len(c.memories) for c in cases),
        "machine": at_start,
        "loadavg_at_end": machine()["loadavg_1_5_15"],
        "planners": per_planner,
    }
    path = write_json(f"forget-plan-{args.seed}-{args.cases_per_kind}.json", result)
    print_table(per_planner)
    log(f"written to {path}")


if __name__ == "__main__":
    main()
