"""ForgetEval (public benchmark, deeplethe/lethe `bench/forgeteval/`) against lethe's planner.

ForgetEval's cases are *not* part of this repository: they stay in the folder given on the
command line (a checkout holding `bench/forgeteval/`), whose generators are imported from
there. Suites:

- `template`: `generate(200, seed=42, lang="en")`, 200 cases per family (supersession,
  decay, amnesia, purge, drift: 1,000 cases);
- `ja`, `zh`: `generate(50, seed=42, lang=...)`, the Japanese and Chinese template modules
  (250 cases each);
- `adversarial`: `ADVERSARIAL_TESTS` of `adversarial.py` (per attack category).

The protocol is ForgetEval's own: each case runs `case.run(adapter)` (store the setup facts,
apply the mutations, each given as a description: supersede / release / purge; then the
final recall's top 10, joined and lowercased, must contain every `must_contain` substring and
none of `must_not_contain`). An exception fails the case, as in ForgetEval's `run.py`. The
adapter here implements that interface over lethe's public API, a fresh SQLite store per case
(`Lethe.open(tmp/"m.db")`, the default MiniLM embedder loaded once), in two modes that run
every case in turn (the order alternating from case to case):

- `planner`: the description goes to `plan_forget(query=…)`; release executes the plan (its
  `delete` items go to the trash, its `edit` items are rewritten as proposed); purge erases
  the plan's `delete` items with `plan_purge(ids)` and executes its `edit` items; supersede
  is lethe's own: the plan's first `delete` item takes the new text as its next version
  (`remember(new, supersedes=id)`, as ForgetEval's reference adapter supersedes the memory
  it finds), its other items are executed as planned, and a plan marking nothing (or only
  edits) remembers the new fact anew. A plan that marks nothing is a *silent* request
  (counted);
- `top1`: the same plan is made, but its first candidate (the plan's items by similarity to
  the request, whatever their verdict; `recall(description, k=1)` when the plan lists none)
  is forgotten by id, erased for a purge, or superseded by the new fact: what an agent
  trusting the first search result would change.

Reported per suite and mode: pass rate per family (per attack category for `adversarial`),
overall, silent requests, crashes, wall time; then planner − top1 per suite, and the planner's
rules (`rule_effects.py`): per rule, on how many requests it fired and how often it changed a
verdict, right or wrong by the case's truth (a mark is right on a memory holding a string the
final recall must not show). The replanning that table needs is not counted in the planner's
wall time; `--no-rules` skips it. `--json` writes
every case's outcome (passed, silent, error) to bench/out/.

    OPENBLAS_NUM_THREADS=1 python bench/bench_forgeteval.py /path/to/forgeteval
    python bench/bench_forgeteval.py /path/to/forgeteval --suites adversarial --limit 2 --json
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import inspect
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, Protocol

from common import log, machine, write_json
from rule_effects import Marks, RuleEffects, marks_of, print_rules

from lethe import Lethe
from lethe.embed import Embedder, load_default_embedder
from lethe.forget.plan import ForgetPlan

Mode = Literal["planner", "top1"]
MODES: tuple[Mode, ...] = ("planner", "top1")
SUITES = ("template", "ja", "zh", "adversarial")
TEMPLATE_PER_FAMILY = 200
LANG_PER_FAMILY = 50
SEED = 42
FORGETEVAL_FILES = (
    "__init__.py",
    "generate.py",
    "lang_ja.py",
    "lang_zh.py",
    "adversarial.py",
    "tests.py",
    "run.py",
    "adapter.py",
)


class Case(Protocol):
    """A ForgetEval case (`GeneratedCase`): `run` drives the adapter and scores the recall."""

    id: str
    family: str

    def run(self, adapter: Any) -> bool: ...


@dataclass(frozen=True)
class Suite:
    name: str
    source: str
    """How the cases were made, as called."""
    cases: list[Case]
    group: Callable[[Case], str]
    """The family (template suites) or attack category (adversarial) a case reports under."""
    groups: tuple[str, ...]


# -- the adapter ---------------------------------------------------------------------------


@dataclass
class CaseStats:
    requests: int = 0
    """Descriptions planned (one per mutation)."""
    silent: int = 0
    """Requests whose plan marked nothing (no `delete` and no `edit` item)."""
    fallback: int = 0
    """top1: the plan listed no candidate, so recall's first hit was taken."""
    nothing: int = 0
    """top1: not even recall found a memory."""


class LetheAdapter:
    """ForgetEval's adapter interface (`reset`, `inscribe`, `recall_texts`, `supersede`,
    `release`, `purge`) over lethe's public API: one fresh store per case."""

    def __init__(self, embedder: Embedder, mode: Mode, effects: RuleEffects | None = None) -> None:
        self.name = f"lethe ({mode})"
        self.mode = mode
        self.embedder = embedder
        self.stats = CaseStats()
        self.effects = effects
        """planner mode: what each planner rule changed (each request is planned again per
        rule that fired, without it)."""
        self.case: Case | None = None
        """The case running: its `must_not_contain` is the truth the rules are judged by."""
        self._mem: Lethe | None = None
        self._dir: Path | None = None

    @property
    def mem(self) -> Lethe:
        if self._mem is None:
            raise RuntimeError("reset() opens the store")
        return self._mem

    def reset(self) -> None:
        self.close()
        self._dir = Path(tempfile.mkdtemp(prefix="forgeteval-"))
        self._mem = Lethe.open(self._dir / "m.db", embedder=self.embedder)
        self.stats = CaseStats()

    def close(self) -> None:
        if self._mem is not None:
            self._mem.close()
            self._mem = None
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None

    def inscribe(self, text: str) -> str:
        return self.mem.remember(text).id

    def recall_texts(self, query: str, k: int = 5) -> list[str]:
        return [hit.memory.content for hit in self.mem.recall(query, k=k)]

    def supersede(self, old_query: str, new_text: str) -> None:
        """lethe's supersede: the memory meant takes the new text as a new version of itself
        (`remember(…, supersedes=id)`: recall then finds only the new text, and the memory
        keeps what it is about); with no memory meant, the new fact is remembered anew."""
        plan = self._planned(old_query)
        if self.mode == "planner":
            replaced = self._supersede_as_planned(plan)
        else:
            replaced = self._first(plan, old_query)
        self.mem.remember(new_text, supersedes=replaced)

    def release(self, query: str) -> int:
        return self._forget(query, purge=False)

    def purge(self, query: str) -> int:
        return self._forget(query, purge=True)

    def _forget(self, description: str, *, purge: bool) -> int:
        """Plan the description, count a silent plan, act as the mode says; returns how many
        memories were removed or edited."""
        plan = self._planned(description)
        if self.mode == "planner":
            return self._as_planned(plan, purge=purge)
        return self._first_candidate(plan, description, purge=purge)

    def _planned(self, description: str) -> ForgetPlan:
        plan = self._plan(description)
        self.stats.requests += 1
        if not plan.targets and not plan.edits:
            self.stats.silent += 1
        return plan

    def _supersede_as_planned(self, plan: ForgetPlan) -> str | None:
        """The plan's first `delete` item is the memory superseded; its other items (copies
        to delete, compound memories to edit) are executed as planned. A plan of edits only
        keeps each edited memory (it holds other facts): the new fact is then a memory of
        its own."""
        if not plan.targets:
            self._as_planned(plan, purge=False)
            return None
        first, *others = plan.targets
        rest = [*others, *plan.edits]
        if rest:
            self.mem.execute(plan.model_copy(update={"items": rest}))
        return first.id

    def _plan(self, description: str) -> ForgetPlan:
        if self.effects is None or self.case is None:
            return self.mem.plan_forget(query=description)
        made: list[ForgetPlan] = []

        def plan() -> Marks:
            made.append(self.mem.plan_forget(query=description))
            return marks_of(made[-1].items)

        self.effects.measure(plan, self._quality)
        return made[0]

    def _quality(self, marks: Marks) -> tuple[int, int]:
        """(wrong, right) marks: a right one holds a string the case's final recall must not
        show (the fact to forget, or one it superseded)."""
        gone = [s.lower() for s in getattr(self.case, "must_not_contain", [])]
        right = 0
        for memory_id, _ in marks:
            text = self.mem.get(memory_id).content.lower()
            right += any(s in text for s in gone)
        return len(marks) - right, right

    def _as_planned(self, plan: ForgetPlan, *, purge: bool) -> int:
        if not plan.targets and not plan.edits:
            return 0
        if not purge:
            done = self.mem.execute(plan)
            return len(done.executed) + len(done.edited)
        removed = 0
        ids = [item.id for item in plan.targets]
        if ids:
            removed += len(self.mem.execute(self.mem.plan_purge(ids)).executed)
        if plan.edits:
            edits = plan.model_copy(update={"items": plan.edits})
            removed += len(self.mem.execute(edits).edited)
        return removed

    def _first_candidate(self, plan: ForgetPlan, description: str, *, purge: bool) -> int:
        first = self._first(plan, description)
        if first is None:
            return 0
        chosen = self.mem.plan_purge([first]) if purge else self.mem.plan_forget([first])
        return len(self.mem.execute(chosen).executed)

    def _first(self, plan: ForgetPlan, description: str) -> str | None:
        first = first_candidate(plan)
        if first is None:
            hits = self.mem.recall(description, k=1, touch=False)
            if not hits:
                self.stats.nothing += 1
                return None
            self.stats.fallback += 1
            first = hits[0].memory.id
        return first


def first_candidate(plan: ForgetPlan) -> str | None:
    """The plan's best candidate by similarity to the request, whatever its verdict (the
    items listed in their order when similarities tie; an item without one comes last)."""
    ranked = sorted(plan.items, key=lambda i: -(i.similarity if i.similarity is not None else -1.0))
    return ranked[0].id if ranked else None


# -- the cases, from the folder given -------------------------------------------------------


def import_forgeteval(folder: Path) -> tuple[ModuleType, ModuleType]:
    """ForgetEval's `generate` and `adversarial` modules, imported from `folder` only."""
    package = folder / "bench" / "forgeteval"
    if not (package / "generate.py").is_file():
        raise SystemExit(f"{package}/generate.py not found: give the folder holding bench/")
    sys.path.insert(0, str(folder))
    generate = importlib.import_module("bench.forgeteval.generate")
    adversarial = importlib.import_module("bench.forgeteval.adversarial")
    for module in (generate, adversarial):
        where = Path(module.__file__ or "").resolve()
        if not where.is_relative_to(package.resolve()):
            raise SystemExit(f"{module.__name__} was imported from {where}, not from {package}")
    return generate, adversarial


def load_suites(folder: Path, names: Sequence[str], limit: int | None) -> list[Suite]:
    generate, adversarial = import_forgeteval(folder)

    def family(case: Case) -> str:
        return case.family

    def category(case: Case) -> str:
        return str(adversarial.case_to_attack_category(case.id))

    families = tuple(generate.FAMILIES)
    suites: list[Suite] = []
    for name in names:
        if name == "adversarial":
            cases = list(adversarial.ADVERSARIAL_TESTS)
            suite = Suite(
                name,
                "adversarial.ADVERSARIAL_TESTS",
                cases,
                category,
                tuple(adversarial.ATTACK_CATEGORIES),
            )
        else:
            lang = "en" if name == "template" else name
            n = TEMPLATE_PER_FAMILY if name == "template" else LANG_PER_FAMILY
            cases = list(generate.generate(n, seed=SEED, lang=lang))
            source = f"generate({n}, seed={SEED}, lang={lang!r})"
            suite = Suite(name, source, cases, family, families)
        if limit is not None:
            taken: dict[str, int] = {}
            kept = []
            for case in suite.cases:
                group = suite.group(case)
                if taken.get(group, 0) < limit:
                    taken[group] = taken.get(group, 0) + 1
                    kept.append(case)
            suite = Suite(suite.name, suite.source, kept, suite.group, suite.groups)
        suites.append(suite)
    return suites


def file_digests(folder: Path) -> dict[str, str]:
    package = folder / "bench" / "forgeteval"
    return {
        name: hashlib.sha256((package / name).read_bytes()).hexdigest()[:16]
        for name in FORGETEVAL_FILES
        if (package / name).is_file()
    }


# -- running and scoring ------------------------------------------------------------------


def run_case(case: Case, adapter: LetheAdapter) -> dict[str, Any]:
    error = None
    adapter.case = case
    try:
        passed = bool(case.run(adapter))
    except Exception as exc:  # ForgetEval's run.py: an exception fails the case
        passed = False
        error = f"{type(exc).__name__}: {exc}"
    finally:
        adapter.close()
    row: dict[str, Any] = {
        "passed": passed,
        "silent": adapter.stats.silent,
        "requests": adapter.stats.requests,
    }
    if adapter.mode == "top1":
        row["fallback"] = adapter.stats.fallback
        row["nothing"] = adapter.stats.nothing
    if error:
        row["error"] = error
    return row


def run_suite(suite: Suite, adapters: dict[Mode, LetheAdapter]) -> dict[str, Any]:
    rows: dict[Mode, dict[str, dict[str, Any]]] = {mode: {} for mode in MODES}
    seconds: dict[Mode, float] = dict.fromkeys(MODES, 0.0)
    started = time.perf_counter()
    for index, case in enumerate(suite.cases):
        order = MODES if index % 2 == 0 else MODES[::-1]
        for mode in order:
            effects = adapters[mode].effects
            start, aside = time.perf_counter(), effects.seconds if effects else 0.0
            row = run_case(case, adapters[mode])
            aside = (effects.seconds if effects else 0.0) - aside
            seconds[mode] += time.perf_counter() - start - aside
            rows[mode][case.id] = {"group": suite.group(case), **row}
            if "error" in row:
                log(f"  {suite.name} {mode} {case.id}: {row['error']}")
        if (index + 1) % 50 == 0 or index + 1 == len(suite.cases):
            passed = {m: sum(r["passed"] for r in rows[m].values()) for m in MODES}
            log(
                f"  {suite.name}: {index + 1}/{len(suite.cases)} cases, passed "
                + ", ".join(f"{m} {passed[m]}" for m in MODES)
                + f" ({time.perf_counter() - started:.0f} s)"
            )
    modes = {mode: summarize(suite, rows[mode], seconds[mode]) for mode in MODES}
    planner, top1 = modes["planner"], modes["top1"]
    effects = adapters["planner"].effects
    return {
        "rules": effects.rows() if effects else [],
        "source": suite.source,
        "cases": len(suite.cases),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "modes": modes,
        "planner_minus_top1": {
            "overall": round(planner["overall"]["rate"] - top1["overall"]["rate"], 4),
            "by_group": {
                g: round(planner["by_group"][g]["rate"] - top1["by_group"][g]["rate"], 4)
                for g in planner["by_group"]
            },
        },
    }


def rate(passed: int, cases: int) -> dict[str, Any]:
    return {"cases": cases, "passed": passed, "rate": round(passed / cases, 4) if cases else 0.0}


def summarize(suite: Suite, rows: dict[str, dict[str, Any]], seconds: float) -> dict[str, Any]:
    by_group = {}
    for group in suite.groups:
        mine = [r for r in rows.values() if r["group"] == group]
        if mine:
            by_group[group] = rate(sum(r["passed"] for r in mine), len(mine))
    errors = {case_id: r["error"] for case_id, r in rows.items() if "error" in r}
    return {
        "by_group": by_group,
        "overall": rate(sum(r["passed"] for r in rows.values()), len(rows)),
        "requests": sum(r["requests"] for r in rows.values()),
        "silent": sum(r["silent"] for r in rows.values()),
        "fallback": sum(r.get("fallback", 0) for r in rows.values()),
        "nothing": sum(r.get("nothing", 0) for r in rows.values()),
        "crashes": len(errors),
        "errors": errors,
        "wall_seconds": round(seconds, 1),
        "cases": rows,
    }


# -- output --------------------------------------------------------------------------------


def cell(score: dict[str, Any]) -> str:
    return f"{score['passed']:>4}/{score['cases']:<4} {score['rate']:.3f}"


def print_suite(name: str, result: dict[str, Any]) -> None:
    planner, top1 = result["modes"]["planner"], result["modes"]["top1"]
    title = f"{name}: {result['cases']} cases, {result['source']}"
    print(title)
    print("-" * len(title))
    print(f"{'group':<26} {'planner':>15}  {'top1':>15}  {'diff':>7}")
    for group, score in planner["by_group"].items():
        diff = result["planner_minus_top1"]["by_group"][group]
        print(f"{group:<26} {cell(score):>15}  {cell(top1['by_group'][group]):>15}  {diff:+.3f}")
    diff = result["planner_minus_top1"]["overall"]
    print(
        f"{'OVERALL':<26} {cell(planner['overall']):>15}  {cell(top1['overall']):>15}  {diff:+.3f}"
    )
    for label, key in (("silent requests", "silent"), ("crashes", "crashes")):
        p = f"{planner[key]}" + (f" of {planner['requests']}" if key == "silent" else "")
        t = f"{top1[key]}" + (f" of {top1['requests']}" if key == "silent" else "")
        print(f"{label:<26} {p:>15}  {t:>15}")
    fallback = f"{top1['fallback']} (none found {top1['nothing']})"
    print(f"{'top1 from recall k=1':<26} {'':>15}  {fallback:>15}")
    print(f"{'wall':<26} {planner['wall_seconds']:>13.1f} s  {top1['wall_seconds']:>13.1f} s")
    for mode, data in result["modes"].items():
        for case_id, error in data["errors"].items():
            print(f"  crash ({mode}) {case_id}: {error}")
    print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the folder holding bench/forgeteval/")
    parser.add_argument(
        "--suites",
        default=",".join(SUITES),
        help=f"comma-separated, of {', '.join(SUITES)} (default: all)",
    )
    parser.add_argument(
        "--limit", type=int, help="at most this many cases per family / attack category"
    )
    parser.add_argument("--json", action="store_true", help="write the results to bench/out/")
    parser.add_argument(
        "--no-rules",
        dest="rules",
        action="store_false",
        help="skip the per-rule table (each request planned again without each rule that fired)",
    )
    args = parser.parse_args()
    names = [s.strip() for s in args.suites.split(",") if s.strip()]
    unknown = [s for s in names if s not in SUITES]
    if unknown or not names:
        parser.error(f"unknown suite(s) {unknown}; choose from {', '.join(SUITES)}")
    folder = args.folder.resolve()
    suites = load_suites(folder, names, args.limit)
    generate = sys.modules["bench.forgeteval.generate"].generate
    embedder = load_default_embedder()
    at_start = machine()
    log(f"ForgetEval from {folder}; generate{inspect.signature(generate)}")
    results: dict[str, Any] = {}
    effects: dict[str, RuleEffects | None] = {}
    for suite in suites:
        log(f"{suite.name}: {len(suite.cases)} cases ({suite.source})")
        effects[suite.name] = RuleEffects() if args.rules else None
        adapters: dict[Mode, LetheAdapter] = {
            "planner": LetheAdapter(embedder, "planner", effects[suite.name]),
            "top1": LetheAdapter(embedder, "top1"),
        }
        results[suite.name] = run_suite(suite, adapters)
    print(f"ForgetEval from {folder} (embedder {embedder.name}), modes planner and top1\n")
    for name, result in results.items():
        print_suite(name, result)
    if args.rules:
        together = RuleEffects()
        for found in effects.values():
            if found is not None:
                together.merge(found)
        print_rules(
            f"planner rules over {', '.join(results)}: fired (requests), changed a verdict "
            f"(right / wrong / even); {together.seconds:.0f} s planning again",
            together,
        )
    print("planner − top1 (overall pass rate):")
    for name, result in results.items():
        planner = result["modes"]["planner"]["overall"]["rate"]
        top1 = result["modes"]["top1"]["overall"]["rate"]
        print(
            f"  {name:<12} {planner:.3f} − {top1:.3f} = "
            f"{result['planner_minus_top1']['overall']:+.3f}"
            f"   (suite wall {result['wall_seconds']:.0f} s)"
        )
    if args.json:
        data = {
            "forgeteval": {
                "folder": str(folder),
                "sha256_16": file_digests(folder),
                "generate_signature": f"generate{inspect.signature(generate)}",
            },
            "embedder": embedder.name,
            "limit_per_group": args.limit,
            "machine": at_start,
            "loadavg_at_end": machine()["loadavg_1_5_15"],
            "suites": results,
        }
        tail = f"-limit{args.limit}" if args.limit is not None else ""
        path = write_json(f"forgeteval-{'-'.join(names)}{tail}.json", data)
        log(f"written to {path}")


if __name__ == "__main__":
    main()
