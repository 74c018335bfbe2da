"""Versions and duplicates at 100k memories: what keeping every state costs, and what the
duplicate rule decides.

Speed (one process, one SQLite store filled through SQL as in bench_ui.py, real MiniLM
embedding of every changed text):

- `update` with its version kept, for a new text (re-embedded) and for importance alone,
  beside the previous behaviour timed in the same run on the same memories: the row
  rewritten and audited with no version kept (the store's statements without
  `keep_version`).
- `history` of a memory with three versions.
- `remember` of a new memory, of the same text again (the idempotent path: nothing written),
  and of a near-duplicate (stored and linked).

Quality, on generated pairs of facts: pairs that differ only in a number, a day, a name or a
negation (distinct facts), and pairs that are the same text with other whitespace or
full-width digits (true duplicates). The previous rule refused a memory at cosine >= 0.95 to
a stored one; the rule now stores everything except the same normalised text with the same
fields. Reported: distinct facts lost (refused) and true duplicates stored twice.

    python bench/bench_versions.py                 # 100,000 memories
    python bench/bench_versions.py --size 10000 --runs 50
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_ui import fill
from common import log, machine, stats_ms, write_json

from lethe import Lethe
from lethe.embed import load_default_embedder
from lethe.engine.base import sha256
from lethe.store.rows import Provenance

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
NAMES = ["Maria", "Marta", "Mario", "Marie", "Martin", "Marco", "Mara", "Marina"]
DRUGS = ["sertraline", "ibuprofen", "metformin", "lisinopril", "atorvastatin", "omeprazole"]
FOODS = ["spicy food", "sushi", "olives", "coriander", "blue cheese", "mushrooms"]
FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")


def distinct_pairs(rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    """(kind, first, second): two different facts worded almost alike."""
    out: list[tuple[str, str, str]] = []
    while len(out) < n:
        kind = rng.choice(["day", "amount", "name", "negation"])
        if kind == "day":
            a, b = rng.sample(DAYS, 2)
            hour = rng.randint(8, 17)
            who = rng.choice(["Dentist", "Physio", "Barber", "Vet"])
            out.append(
                (
                    kind,
                    f"{who} appointment on {a} at {hour}:00",
                    f"{who} appointment on {b} at {hour}:00",
                )
            )
        elif kind == "amount":
            drug = rng.choice(DRUGS)
            a, b = rng.sample([25, 50, 75, 100, 150, 200], 2)
            out.append(
                (
                    kind,
                    f"Takes {a} mg of {drug} every morning",
                    f"Takes {b} mg of {drug} every morning",
                )
            )
        elif kind == "name":
            a, b = rng.sample(NAMES, 2)
            who = rng.choice(["sister", "manager", "neighbour", "landlord"])
            out.append((kind, f"Alice's {who} is called {a}", f"Alice's {who} is called {b}"))
        else:
            food = rng.choice(FOODS)
            who = rng.choice(["Alice", "Bob", "Grandma", "The user"])
            out.append((kind, f"{who} likes {food}", f"{who} does not like {food}"))
    return out


def duplicate_pairs(rng: random.Random, n: int) -> list[tuple[str, str, str]]:
    """(kind, first, second): the same fact, written again with other spacing or digits."""
    out: list[tuple[str, str, str]] = []
    for _, first, _ in distinct_pairs(rng, n):
        if rng.random() < 0.5:
            out.append(("whitespace", first, "  " + first.replace(" ", "  ", 2) + " "))
        else:
            out.append(("full-width digits", first, first.translate(FULL_WIDTH)))
    return out


def quality(pairs_per_kind: int, seed: int) -> dict[str, Any]:
    """Each pair in a fresh namespace of one in-memory store: first remembered, then second.
    The old rule is judged from the same cosines the new run saw."""
    rng = random.Random(seed)
    distinct = distinct_pairs(rng, pairs_per_kind)
    same = duplicate_pairs(rng, pairs_per_kind)
    embedder = load_default_embedder()
    rows: dict[str, dict[str, int]] = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        Lethe.open(Path(tmp) / "q.db", embedder=embedder) as mem,
    ):
        for label, pairs in (("distinct", distinct), ("duplicate", same)):
            for n, (kind, first, second) in enumerate(pairs):
                ns = f"{label[0]}{n}"
                mem.remember(first, namespace=ns)
                vectors = embedder.embed([first, second])
                cosine = float(vectors[0] @ vectors[1])
                new = mem.remember(second, namespace=ns)
                row = rows.setdefault(
                    f"{label}: {kind}",
                    {"pairs": 0, "old_refused": 0, "new_kept_both": 0, "new_existing": 0},
                )
                row["pairs"] += 1
                row["old_refused"] += cosine >= mem.settings.duplicate_threshold
                row["new_existing"] += new.existing
                row["new_kept_both"] += not new.existing
    distinct_rows = [r for k, r in rows.items() if k.startswith("distinct")]
    dup_rows = [r for k, r in rows.items() if k.startswith("duplicate")]
    total_distinct = sum(r["pairs"] for r in distinct_rows)
    total_dup = sum(r["pairs"] for r in dup_rows)
    return {
        "by_kind": rows,
        "distinct_facts_lost": {
            "old": sum(r["old_refused"] for r in distinct_rows),
            "new": sum(r["new_existing"] for r in distinct_rows),
            "of": total_distinct,
        },
        "duplicates_stored_twice": {
            "old": total_dup - sum(r["old_refused"] for r in dup_rows),
            "new": sum(r["new_kept_both"] for r in dup_rows),
            "of": total_dup,
        },
    }


def timed(fn: Callable[[int], object], count: int) -> list[float]:
    out = []
    for n in range(count):
        start = time.perf_counter()
        fn(n)
        out.append(time.perf_counter() - start)
    return out


def speed(db: Path, size: int, runs: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    with Lethe.open(db) as mem:
        mem.recall("warm the vector index", k=1)
        picks = rng.sample(range(size), runs * 4)
        ids = [f"mem_{n:012x}" for n in picks]
        a, b, c, d = (ids[i * runs : (i + 1) * runs] for i in range(4))
        texts = [f"Rewritten note number {n} about the garden shed" for n in range(runs)]

        def old_update(n: int) -> None:
            """The previous update: re-embed, rewrite the row, audit; no version kept."""
            memory = mem.get(b[n])
            vector = mem.embedder.embed([texts[n]])[0]
            new = memory.model_copy(
                update={"content": texts[n], "content_sha256": sha256(texts[n])}
            )
            with mem.store.transaction() as tx:
                tx.update_memory(new, vector, Provenance("bench", "update"))
                tx.append_event(
                    op="update",
                    actor="bench",
                    at=memory.updated_at,
                    memory_id=memory.id,
                    namespace=memory.namespace,
                    details={"fields": ["content"], "old_sha256": memory.content_sha256},
                    content_sha256=new.content_sha256,
                )

        def old_importance(n: int) -> None:
            memory = mem.get(d[n])
            new = memory.model_copy(update={"importance": 0.61})
            with mem.store.transaction() as tx:
                tx.update_memory(new, None, Provenance("bench", "update"))
                tx.append_event(
                    op="update",
                    actor="bench",
                    at=memory.updated_at,
                    memory_id=memory.id,
                    namespace=memory.namespace,
                    details={"fields": ["importance"]},
                )

        # Interleaved, so both see the same minutes of a noisy machine.
        new_text: list[float] = []
        old_text: list[float] = []
        new_imp: list[float] = []
        old_imp: list[float] = []
        for n in range(runs):
            new_text += timed(lambda _, n=n: mem.update(a[n], content=texts[n]), 1)
            old_text += timed(lambda _, n=n: old_update(n), 1)
            new_imp += timed(lambda _, n=n: mem.update(c[n], importance=0.61), 1)
            old_imp += timed(lambda _, n=n: old_importance(n), 1)
        for n in range(runs):  # a third version for the history reads
            mem.update(a[n], importance=0.62)
        history = timed(lambda n: mem.history(a[n]), runs)
        lengths = {len(mem.history(i)) for i in a}

        fresh = [f"A brand new fact number {n}: the {n}th parcel arrived" for n in range(runs)]
        remember_new = timed(lambda n: mem.remember(fresh[n]), runs)
        again = timed(lambda n: mem.remember(fresh[n]), runs)
        assert all(mem.remember(fresh[n]).existing for n in range(3))
        near = [t.replace("arrived", "arrived today") for t in fresh]
        remember_near = timed(lambda n: mem.remember(near[n]), runs)
        flagged = sum(bool(mem.remember(t + ".").near_duplicates) for t in fresh[:10])
    return {
        "update_text_with_version": stats_ms(new_text),
        "update_text_previous_no_version": stats_ms(old_text),
        "update_importance_with_version": stats_ms(new_imp),
        "update_importance_previous_no_version": stats_ms(old_imp),
        "history_3_versions": stats_ms(history),
        "history_lengths": sorted(lengths),
        "remember_new": stats_ms(remember_new),
        "remember_exact_duplicate": stats_ms(again),
        "remember_near_duplicate": stats_ms(remember_near),
        "near_duplicates_named_of_10": flagged,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--pairs", type=int, default=200, help="pairs per quality set")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--db", type=Path, help="reuse (or keep) the store at this path")
    args = parser.parse_args()
    log(f"quality: {args.pairs} distinct-fact pairs and {args.pairs} duplicate pairs")
    judged = quality(args.pairs, args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "versions.db"
        if not db.exists():
            log(f"filling {args.size:,} memories through SQL")
            fill(db, args.size)
        log("timing update, history and remember")
        timings = speed(db, args.size, args.runs, args.seed)
    result = {
        "size": args.size,
        "runs": args.runs,
        "machine": machine(),
        "speed": timings,
        "quality": judged,
    }
    write_json(f"versions-{args.size}", result)

    def ratio(a: str, b: str) -> str:
        return f"{timings[a]['p50_ms'] / timings[b]['p50_ms']:.2f}"

    print(f"{'at ' + format(args.size, ',') + ' memories':<46} {'p50 ms':>8} {'p95 ms':>8}")
    for name, value in timings.items():
        if isinstance(value, dict):
            print(f"{name:<46} {value['p50_ms']:>8.2f} {value['p95_ms']:>8.2f}")
    print(
        "update with version / previous, p50: text "
        f"{ratio('update_text_with_version', 'update_text_previous_no_version')}, importance "
        f"{ratio('update_importance_with_version', 'update_importance_previous_no_version')}; "
        f"exact duplicate / new remember {ratio('remember_exact_duplicate', 'remember_new')}"
    )
    lost, twice = judged["distinct_facts_lost"], judged["duplicates_stored_twice"]
    print(
        f"distinct facts lost: previous rule {lost['old']}/{lost['of']}, now {lost['new']}/"
        f"{lost['of']}; true duplicates stored twice: previous {twice['old']}/{twice['of']}, "
        f"now {twice['new']}/{twice['of']}"
    )
    for kind, row in judged["by_kind"].items():
        print(f"  {kind:<32} {json.dumps(row)}")


if __name__ == "__main__":
    main()
