"""Memories in Japanese (issue 22): recall@1/5/10 and the forget planner, before and after.

The generated development set (`ja_cases.py`: ~300 memories of one user, ~250 questions, ~125
forget requests per seed) is loaded into a fresh SQLite store with the real MiniLM embedder.
Then:

- **recall**: each question is recalled (k = 10); a hit is any of its target memories.
  recall@1/5/10, split into questions that share a content word with their memory (issue
  22's target: recall@5 >= 0.9) and paraphrases that share none;
- **planner**: each request is planned (`plan_forget(query=…)`) and the memories it marks
  (`delete` or `edit`) are compared with the exact set a careful person means: pooled
  precision and recall, exact-set rate, over-deletion (requests marking any memory they do
  not mean; issue 22's target <= 0.5 %), trap marks (marked memories from the request's
  `keep` set), abstentions, per kind.

"Before" is the same measurement on the code of a baseline revision (`--baseline`, default
the last commit before issue 22), exported with `git archive` and run in a child process, so
both columns come from one run on one machine.

    OPENBLAS_NUM_THREADS=1 python bench/bench_japanese.py
    python bench/bench_japanese.py --seed 3 --baseline none
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from io import BytesIO
from pathlib import Path
from typing import Any

import ja_cases
from common import BENCH_DIR, log, machine, write_json

from lethe import Lethe
from lethe.embed import load_default_embedder

BASELINE = "50eb123"
"""The last commit before issue 22's work."""
ACTS = ("delete", "edit")


def measure(seed: int, folder: Path) -> dict[str, Any]:
    """Recall and planner figures of the code this process imports."""
    ja = ja_cases.build(seed)
    with Lethe.open(folder / f"ja{seed}.db", embedder=load_default_embedder()) as mem:
        ids: dict[str, str] = {}
        for m in ja.memories:
            ids[m.id] = mem.remember(m.text).id
        stored = len(set(ids.values()))
        back = {v: k for k, v in ids.items()}
        recall = _recall(mem, ja, back)
        planner = _planner(mem, ja, back)
    return {"seed": seed, "memories": len(ja.memories), "stored": stored, **recall, **planner}


def _recall(mem: Lethe, ja: ja_cases.JaSet, back: dict[str, str]) -> dict[str, Any]:
    ranks: dict[str, list[int | None]] = defaultdict(list)
    for q in ja.questions:
        hits = [back.get(h.memory.id) for h in mem.recall(q.text, k=10, touch=False)]
        rank = next((i + 1 for i, h in enumerate(hits) if h in q.targets), None)
        ranks["shared" if q.shares_content_word else "paraphrase"].append(rank)
    out: dict[str, Any] = {}
    for group, found in ranks.items():
        out[f"recall_{group}"] = {
            f"@{k}": sum(1 for r in found if r is not None and r <= k) / len(found)
            for k in (1, 5, 10)
        } | {"n": len(found)}
    return out


def _planner(mem: Lethe, ja: ja_cases.JaSet, back: dict[str, str]) -> dict[str, Any]:
    by_kind: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    misses: list[dict[str, Any]] = []
    for r in ja.requests:
        plan = mem.plan_forget(query=r.text)
        marked = {back.get(i.id, i.id) for i in plan.items if i.action in ACTS}
        for kind in (r.kind, "all"):
            k = by_kind[kind]
            k["requests"] += 1
            k["marked"] += len(marked)
            k["right"] += len(marked & r.targets)
            k["targets"] += len(r.targets)
            k["exact"] += marked == r.targets
            k["over"] += bool(marked - r.targets)
            k["traps"] += bool(marked & r.keep)
            k["abstain"] += not marked
        if marked != r.targets:
            misses.append(
                {
                    "id": r.id,
                    "kind": r.kind,
                    "text": r.text,
                    "missed": sorted(r.targets - marked),
                    "wrong": sorted(marked - r.targets),
                }
            )
    table = {
        kind: {
            "requests": int(k["requests"]),
            "precision": k["right"] / k["marked"] if k["marked"] else 1.0,
            "recall": k["right"] / k["targets"] if k["targets"] else 1.0,
            "exact": k["exact"] / k["requests"],
            "over_deletion": k["over"] / k["requests"],
            "trap_marked": k["traps"] / k["requests"],
            "abstain": k["abstain"] / k["requests"],
        }
        for kind, k in sorted(by_kind.items())
    }
    return {"planner": table, "misses": misses}


def _baseline(rev: str, seed: int, folder: Path) -> dict[str, Any]:
    """The measurement on `rev`'s code, in a child process importing that code."""
    repo = BENCH_DIR.parent
    archive = subprocess.run(
        ["git", "-C", str(repo), "archive", "--format=tar", rev, "src"],
        check=True,
        capture_output=True,
    ).stdout
    tree = folder / "baseline"
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    env = {**os.environ, "PYTHONPATH": f"{tree / 'src'}{os.pathsep}{BENCH_DIR}"}
    out = subprocess.run(
        [sys.executable, __file__, "--inner", "--seed", str(seed), "--folder", str(folder)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
    ).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def _row(name: str, before: Any, after: Any) -> str:
    def cell(v: Any) -> str:
        return "—" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)

    return f"| {name} | {cell(before)} | {cell(after)} |"


def report(before: dict[str, Any] | None, after: dict[str, Any]) -> str:
    lines = ["| figure | before | after |", "|---|---|---|"]
    b = before or {}
    lines.append(_row("memories stored", b.get("stored"), after["stored"]))
    for group in ("shared", "paraphrase"):
        key = f"recall_{group}"
        for at in ("@1", "@5", "@10"):
            lines.append(
                _row(
                    f"recall{at}, {group} (n={after[key]['n']})",
                    b.get(key, {}).get(at),
                    after[key][at],
                )
            )
    for kind, row in after["planner"].items():
        old = b.get("planner", {}).get(kind, {})
        for figure in ("precision", "recall", "exact", "over_deletion", "trap_marked"):
            lines.append(_row(f"planner {kind} {figure}", old.get(figure), row[figure]))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", default=BASELINE, help="git revision, or 'none'")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--misses", action="store_true", help="print the requests missed")
    args = parser.parse_args()
    if args.inner:
        import lethe

        log(f"measuring the code in {Path(lethe.__file__).parent}")
        print(json.dumps(measure(args.seed, args.folder)))
        return
    with tempfile.TemporaryDirectory(prefix="lethe-ja-") as tmp:
        folder = Path(tmp)
        before = None
        if args.baseline != "none":
            log(f"baseline {args.baseline} …")
            before = _baseline(args.baseline, args.seed, folder)
        log("current …")
        (folder / "now").mkdir()
        after = measure(args.seed, folder / "now")
    print(report(before, after))
    if args.misses:
        for miss in after["misses"]:
            print(json.dumps(miss, ensure_ascii=False))
    path = write_json(
        f"japanese_seed{args.seed}.json",
        {"machine": machine(), "baseline": args.baseline, "before": before, "after": after},
    )
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
