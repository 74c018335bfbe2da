"""Forgetting by description (issues 17, 24): which memories a query plan marks, per kind.

Every case of `forget_cases.py` is loaded into its own namespace of one SQLite store (a temp
file; the real MiniLM embedder embeds every memory and request), then each planner is asked
for the request in that namespace and its marked memories (plan items with action `delete`,
or `edit`) are compared with the case's expected set. Reported per kind and planner:

- precision and recall of marked items (pooled over the kind's cases);
- exact-set rate: the marked set is exactly the expected one (for "nothing": marks nothing);
- over-deletion rate: the request marked at least one memory it does not mean;
- abstention rate: the request marked nothing;
- for `nothing` cases, the false-mark rate (any mark at all);
- plan latency p50/p95 (embedding of the request included, small namespaces: this is not the
  100k-memory latency of bench_forget.py);
- per planner rule (`rule_effects.py`, today's planner): on how many requests it fired and how
  often it changed a verdict, right or wrong by the case's expected marks (each request is
  planned again without each rule that fired; not counted in the latency). `--no-rules`
  skips it.

`planners` maps a name to a callable (mem, request, namespace) -> the memories its plan acts
on, so a second planner can be measured beside today's in the same run. `correction` and
`paraphrase` cases (a new fact, and the memory it supersedes) are asked of today's planner
through what remember names as superseded (`superseded`); the `before` planner gets the new
fact as the request, a proxy.

Compound memories (`compound`: one memory holds two facts, the request forgets one) are to be
edited, not deleted. A plan item with action `edit` (its proposed text read from the item's
`new_content` or a like-named field, when the planner gives one) is right only on a memory the
case expects edited; a `delete` of such a memory is an over-deletion (it loses the other fact);
an edit of a memory the case expects deleted is not right (it keeps what was to go). For every
edit the report also checks its text word by word: it keeps every word of the text that should
remain, holds no word of the fact to forget, and adds no word of its own.

    OPENBLAS_NUM_THREADS=1 python bench/bench_forget_plan.py
    python bench/bench_forget_plan.py --cases-per-kind 10 --seed 3
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import forget_cases
from common import log, machine, stats_ms, write_json
from forget_cases import FUNCTION_WORDS, KINDS, Case, words
from rule_effects import Marks, RuleEffects, print_rules

from lethe import Lethe
from lethe.embed import load_default_embedder
from lethe.forget.corrections import likely_superseded
from lethe.model import Draft
from lethe.planner.judgement import MARK_BAR


@dataclass(frozen=True)
class Mark:
    """What a plan does to one memory."""

    action: str
    """`delete` or `edit`."""
    certainty: float | None = None
    """The planner's certainty (None: not given)."""
    text: str | None = None
    """An edit's proposed text (None: not given)."""


Planner = Callable[[Lethe, str, str], dict[str, Mark]]
"""(mem, request, namespace) -> the memories the plan deletes or edits, by id."""

ACTS = ("delete", "edit")
EDIT_TEXT_FIELDS = ("new_content", "proposed_content", "proposed_text", "new_text", "proposed")
"""Where a plan item may carry an edit's proposed text (read with getattr: plan items have no
edits yet)."""
SUPERSEDING = ("correction", "paraphrase")
"""Kinds whose request is a new fact and whose target is the memory it supersedes."""


def marks(items: Iterable[Any]) -> dict[str, Mark]:
    """The plan items that delete or edit a memory."""
    out = {}
    for item in items:
        action = getattr(item, "action", None)
        if action not in ACTS:
            continue
        text = None
        if action == "edit":
            found = (getattr(item, name, None) for name in EDIT_TEXT_FIELDS)
            text = next((t for t in found if isinstance(t, str)), None)
        out[item.id] = Mark(action, getattr(item, "certainty", None), text)
    return out


def current_planner(mem: Lethe, request: str, namespace: str) -> dict[str, Mark]:
    """Today's query plan: `plan_forget(query=…)` scoped to the case's namespace."""
    plan = mem.plan_forget(query=request, filters={"namespace": namespace})
    return marks(plan.items)


def superseded(mem: Lethe, new_fact: str, namespace: str) -> dict[str, Mark]:
    """What remember would name as the memory a new fact supersedes (confidence >= 0.9):
    the namespace's closest memories, judged by forget/corrections.py."""
    hits = mem.recall(new_fact, k=20, filters={"namespace": namespace}, touch=False)
    named = likely_superseded(new_fact, [(h.memory, h.similarity) for h in hits])
    return {s.id: Mark("delete", s.confidence) for s in named if s.confidence >= MARK_BAR}


def cosine_planner(mem: Lethe, request: str, namespace: str) -> dict[str, Mark]:
    """The query plan before this issue: the clear cosine winner (>= 0.6, 0.05 ahead) and
    its near-copies, measured beside today's in the same run."""
    flt = mem._core.filters({"namespace": namespace}, ())
    items, _ = mem._forgetting._query_items(request, flt, exact_identifiers=False)
    return {i: Mark(m.action) for i, m in marks(items).items()}


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


def expected_action(case: Case, index: int) -> str | None:
    """What the plan should do to one memory: edit it, delete it, or leave it."""
    if index in case.edits:
        return "edit"
    return "delete" if index in case.targets else None


def edit_keeps_only_the_rest(original: str, kept: str, proposed: str) -> bool:
    """Word by word: the proposed text keeps every word of what should remain, holds no word
    of the fact to forget, and adds no word of its own (function words aside)."""
    have, keep, new = words(original), words(kept), words(proposed)
    dropped = have - keep - FUNCTION_WORDS
    return keep - FUNCTION_WORDS <= new and not dropped & new and not new - have - FUNCTION_WORDS


def judge(case: Case, acts: dict[int, Mark]) -> dict[str, Any]:
    """One case's plan against what the case expects."""
    right, wrong_roles, edit_text = [], [], {}
    for i, mark in sorted(acts.items()):
        want = expected_action(case, i)
        if mark.action == want:
            right.append(i)
        elif want is None:
            wrong_roles.append(case.roles[i])  # a memory the request does not mean
        elif want == "edit":
            wrong_roles.append("compound-deleted")  # loses the fact that should remain
        if mark.action == "edit" and want == "edit" and mark.text is not None:
            edit_text[str(i)] = edit_keeps_only_the_rest(case.memories[i], case.edits[i], mark.text)
    return {"right": right, "wrong_roles": wrong_roles, "edit_text_ok": edit_text}


def score(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The figures of one planner over one kind's cases. A memory counts as right when the
    plan does to it what the case expects (delete, or edit a compound memory)."""
    n = len(results)
    acted = sum(len(r["acts"]) for r in results)
    right = sum(len(r["right"]) for r in results)
    expected = sum(len(r["targets"]) for r in results)
    nothing = [r for r in results if not r["targets"]]
    wrong_roles: Counter[str] = Counter()
    for r in results:
        wrong_roles.update(r["wrong_roles"])
    exact = sum(len(r["right"]) == len(r["acts"]) == len(r["targets"]) for r in results)
    edits_right = [
        i
        for r in results
        for i, action, _ in r["acts"]
        if action == "edit" and str(i) in r["edits"]
    ]
    texts = [ok for r in results for ok in r["edit_text_ok"].values()]
    return {
        "cases": n,
        "precision": ratio(right, acted),
        "recall": ratio(right, expected),
        "exact_set": ratio(exact, n),
        "over_deletion": ratio(sum(bool(r["wrong_roles"]) for r in results), n),
        "abstention": ratio(sum(not r["acts"] for r in results), n),
        "false_mark_nothing": ratio(sum(bool(r["acts"]) for r in nothing), len(nothing)),
        "marked": acted,
        "right": right,
        "expected": expected,
        "wrongly_marked_roles": dict(wrong_roles.most_common()),
        "edits": {
            "expected": sum(len(r["edits"]) for r in results),
            "proposed": sum(len(r["edited"]) for r in results),
            "on_the_right_memory": len(edits_right),
            "with_text": len(texts),
            "text_keeps_only_the_rest": sum(texts),
            "compound_deleted": wrong_roles["compound-deleted"],
        },
    }


def run(
    cases: list[Case], planners: dict[str, Planner], keep: Path | None, effects: RuleEffects | None
) -> dict[str, Any]:
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
            return plan_all(mem, cases, planners, effects)


def calibration(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """How often marks were right, by the certainty the planner gave them."""
    bands = [(0.9, 1.01), (0.8, 0.9), (0.0, 0.8)]
    out = []
    for low, high in bands:
        hits = [
            i in r["right"]
            for r in results
            for i, _, c in r["acts"]
            if c is not None and low <= c < high
        ]
        out.append(
            {
                "certainty": f"[{low}, {min(high, 1.0)}]",
                "marks": len(hits),
                "right": ratio(sum(hits), len(hits)),
            }
        )
    return out


def measured(
    mem: Lethe, case: Case, namespace: str, index: dict[str, int], effects: RuleEffects
) -> dict[str, Mark]:
    """Today's plan, with what each planner rule that fired changed (`rule_effects`)."""
    found: list[dict[str, Mark]] = []

    def plan() -> Marks:
        found.append(current_planner(mem, case.request, namespace))
        return frozenset((i, m.action) for i, m in found[-1].items())

    def quality(marks: Marks) -> tuple[int, int]:
        right = sum(expected_action(case, index[i]) == action for i, action in marks)
        return len(marks) - right, right

    effects.measure(plan, quality)
    return found[0]


def plan_all(
    mem: Lethe, cases: list[Case], planners: dict[str, Planner], effects: RuleEffects | None
) -> dict[str, Any]:
    for planner in planners.values():  # warm the index and the encoder
        planner(mem, "warm up", namespace_of(cases[0]))
    per_planner: dict[str, Any] = {}
    for name, planner in planners.items():
        log(f"planning {len(cases)} requests with {name!r}")
        results, durations = [], []
        for n, case in enumerate(cases):
            index = {memory_id(n, i): i for i in range(len(case.memories))}
            t0 = time.perf_counter()
            if case.kind in SUPERSEDING and name == "current":
                found = superseded(mem, case.request, namespace_of(case))
            elif name == "current" and effects is not None:
                aside = effects.seconds
                found = measured(mem, case, namespace_of(case), index, effects)
                t0 += effects.seconds - aside  # the latency is the plan's, not the table's
            else:
                found = planner(mem, case.request, namespace_of(case))
            durations.append(time.perf_counter() - t0)
            acts = {index[i]: mark for i, mark in found.items()}
            marked = sorted(i for i, m in acts.items() if m.action == "delete")
            edited = sorted(i for i, m in acts.items() if m.action == "edit")
            results.append(
                {
                    "case": case.id,
                    "kind": case.kind,
                    "form": case.form,
                    "request": case.request,
                    "targets": sorted(case.targets),
                    "edits": {str(i): text for i, text in sorted(case.edits.items())},
                    "marked": marked,
                    "edited": edited,
                    "proposed": {str(i): acts[i].text for i in edited},
                    "acts": [(i, m.action, m.certainty) for i, m in sorted(acts.items())],
                    "certainty": [acts[i].certainty for i in marked],
                    **judge(case, acts),
                }
            )
        by_kind = {k: score([r for r in results if r["kind"] == k]) for k in KINDS}
        by_kind = {k: v for k, v in by_kind.items() if v["cases"]}
        forgetting = [r for r in results if r["kind"] not in SUPERSEDING]
        per_planner[name] = {
            "by_kind": by_kind,
            "all_but_superseding": score(forgetting),
            "latency": stats_ms(durations),
            "calibration": calibration(forgetting),
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
        rows = [*data["by_kind"].items(), ("all but superseding", data["all_but_superseding"])]
        for kind, s in rows:
            label = f"{kind}*" if kind in SUPERSEDING else kind
            wrong = ", ".join(f"{k} {v}" for k, v in s["wrongly_marked_roles"].items())
            print(
                f"{name:<9} {label:<19} {s['cases']:>5} {fmt(s['precision']):>6} "
                f"{fmt(s['recall']):>6} {fmt(s['exact_set']):>6} {fmt(s['over_deletion']):>6} "
                f"{fmt(s['abstention']):>6} {fmt(s['false_mark_nothing']):>7}  {wrong}"
            )
        for kind, s in data["by_kind"].items():
            e = s["edits"]
            if e["expected"] or e["proposed"]:
                print(
                    f"{name:<9} {kind} edits: {e['expected']} expected, {e['proposed']} proposed,"
                    f" {e['on_the_right_memory']} on the right memory, text keeps only the rest"
                    f" {e['text_keeps_only_the_rest']} of {e['with_text']};"
                    f" compound memories deleted {e['compound_deleted']}"
                )
        lat = data["latency"]
        print(f"{name:<9} plan latency p50 {lat['p50_ms']:.2f} ms, p95 {lat['p95_ms']:.2f} ms")
        for band in data["calibration"]:
            if band["marks"]:
                print(
                    f"{name:<9} marks at certainty {band['certainty']}: {band['marks']}, "
                    f"right {fmt(band['right'])}"
                )
    print(
        "* correction, paraphrase: 'before' is the new fact given to plan_forget as the request"
        " (a proxy);"
    )
    print("  'current' is what remember names as superseded (forget/corrections.py, >= 0.9);")
    print("  'all but superseding' pools every other kind")


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
    parser.add_argument(
        "--no-rules",
        dest="rules",
        action="store_false",
        help="skip the per-rule table (each request planned again without each rule that fired)",
    )
    args = parser.parse_args()
    effects = RuleEffects() if args.rules and "current" in (args.planner or PLANNERS) else None
    cases = forget_cases.cases(args.cases_per_kind, args.seed, args.kind or KINDS)
    planners = {k: v for k, v in PLANNERS.items() if not args.planner or k in args.planner}
    at_start = machine()
    per_planner = run(cases, planners, args.keep, effects)
    result = {
        "seed": args.seed,
        "cases_per_kind": args.cases_per_kind,
        "cases": len(cases),
        "memories": sum(len(c.memories) for c in cases),
        "machine": at_start,
        "loadavg_at_end": machine()["loadavg_1_5_15"],
        "planners": per_planner,
        "rules": effects.rows() if effects else [],
    }
    path = write_json(f"forget-plan-{args.seed}-{args.cases_per_kind}.json", result)
    print_table(per_planner)
    if effects is not None:
        print_rules(
            "planner rules (current, all but superseding kinds): fired (requests), changed a "
            f"verdict (right / wrong / even); {effects.seconds:.0f} s planning again",
            effects,
        )
    log(f"written to {path}")


if __name__ == "__main__":
    main()
