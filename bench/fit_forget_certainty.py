"""Fit the forget planner's certainty (planner/score.py WEIGHTS) on the development cases,
and check it on cases of another seed.

For every fact decision the planner makes (the best candidate that holds what a request
names, before any doubt caps it), the features its certainty is computed from are recorded
with whether that candidate is the memory the case means. A logistic regression on seed 17
gives the weights; the script prints them, and how often candidates at each certainty were
right on seed 17 and on a second seed the weights never saw (the calibration check: among
marks at >= 0.9, at least 9 in 10 should be right).

    OPENBLAS_NUM_THREADS=1 python bench/fit_forget_certainty.py --keep /tmp/a.db --keep2 /tmp/b.db
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

import bench_forget_plan as bfp
import forget_cases
import numpy as np
from common import log

from lethe import Lethe
from lethe.embed import load_default_embedder
from lethe.planner import score

FEATURES = ("top", "lead", "share", "cosine", "said", "codes")
FACT_KINDS = (
    *("restated", "question", "keyword", "identifier", "japanese", "multiple", "nothing"),
    *("spelling", "crosslang", "compound", "negation", "dates", "sense"),
)


def rows(path: Path | None, seed: int, per_kind: int) -> list[tuple[dict[str, float], bool]]:
    cases = forget_cases.cases(per_kind, seed, forget_cases.KINDS)
    embedder = load_default_embedder()
    with tempfile.TemporaryDirectory() as tmp:
        db = path or Path(tmp) / "cases.db"
        fresh = not db.exists()
        with Lethe.open(db, embedder=embedder) as mem:
            if fresh:
                log(f"loading seed {seed}")
                bfp.load(mem, cases)
            out = []
            for n, case in enumerate(cases):
                if case.kind not in FACT_KINDS:
                    continue
                index = {bfp.memory_id(n, i): i for i in range(len(case.memories))}
                flt = mem._core.filters({"namespace": bfp.namespace_of(case)}, ())
                decision = mem._forgetting._describe(case.request, flt)
                for j in decision.judgements:
                    if j.features is not None and j.doubt is None:
                        out.append((j.features, index[j.memory.id] in case.targets))
            return out


def fit(data: list[tuple[dict[str, float], bool]]) -> dict[str, float]:
    x = np.array([[1.0, *(f[k] for k in FEATURES)] for f, _ in data])
    y = np.array([1.0 if right else 0.0 for _, right in data])
    w = np.zeros(x.shape[1])
    for _ in range(20000):
        p = 1 / (1 + np.exp(-x @ w))
        grad = x.T @ (p - y) / len(y) + 1e-3 * np.r_[0, w[1:]]
        w -= 0.5 * grad
    return {"bias": float(w[0]), **{k: float(v) for k, v in zip(FEATURES, w[1:], strict=True)}}


def calibration(data: list[tuple[dict[str, float], bool]]) -> list[dict[str, Any]]:
    out = []
    for low, high in [(0.9, 1.01), (0.7, 0.9), (0.5, 0.7), (0.0, 0.5)]:
        hits = [right for f, right in data if low <= score.certainty_of(f) < high]
        out.append(
            {
                "band": f"[{low}, {min(high, 1.0)})",
                "n": len(hits),
                "right": np.mean(hits) if hits else None,
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", type=Path, help="the seed-17 store (bench_forget_plan --keep)")
    parser.add_argument("--keep2", type=Path, help="the check seed's store, kept for reuse")
    parser.add_argument("--check-seed", type=int, default=18)
    args = parser.parse_args()
    dev = rows(args.keep, 17, 40)
    weights = fit(dev)
    print("fitted weights:", {k: round(v, 2) for k, v in weights.items()})
    score.WEIGHTS.update(weights)
    check = rows(args.keep2, args.check_seed, 40)
    for name, data in (("seed 17 (fit)", dev), (f"seed {args.check_seed} (check)", check)):
        print(name, f"{len(data)} decisions")
        for band in calibration(data):
            right = "—" if band["right"] is None else f"{band['right']:.3f}"
            print(f"  certainty {band['band']:<12} n={band['n']:<4} right {right}")


if __name__ == "__main__":
    main()
