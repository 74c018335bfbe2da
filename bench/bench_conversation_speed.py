"""What ranking with conversations costs (issue 21): recall p50 without the embedding at
100k memories of which half belong to conversations, beside the same recall with the context
side switched off, in one run; and import throughput of conversational turns beside the same
texts without a session.

The store is filled through SQL (bench_ui.py: real texts, random unit vectors); half the
memories are then given `metadata.session` (sessions of 12 turns, two speakers), and opening
the store builds their contexts (timed). Recall runs with the query vectors computed once
(the embedding excluded, as the issue asks), alternating the two variants on the same queries.

    python bench/bench_conversation_speed.py                 # 100,000 memories
    python bench/bench_conversation_speed.py --size 20000 --import-size 500
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import corpus
import numpy as np
from bench_ui import fill
from common import log, machine, stats_ms, write_json

from lethe import Lethe
from lethe.embed import load_default_embedder
from lethe.model import Draft

TURNS = 12


def make_conversational(db: Path, share: float) -> int:
    conn = sqlite3.connect(db)
    ids = [r[0] for r in conn.execute("SELECT id FROM memories ORDER BY num")]
    chosen = ids[: int(len(ids) * share)]
    conn.executemany(
        "UPDATE memories SET metadata = ? WHERE id = ?",
        [
            (json.dumps({"session": f"s-{n // TURNS}", "speaker": ("Ana", "Ben")[n % 2]}), i)
            for n, i in enumerate(chosen)
        ],
    )
    conn.commit()
    conn.close()
    return len(chosen)


def recall_times(mem: Lethe, runs: int) -> tuple[list[float], list[float]]:
    queries = corpus.queries(8, seed=3)
    vectors = {q: mem.embedder.embed([q])[0] for q in queries}
    embed = mem.embedder.embed
    mem.embedder.embed = lambda texts: np.stack([vectors[t] for t in texts])  # type: ignore[method-assign]
    search = mem.store.context_search
    with_context: list[float] = []
    without: list[float] = []
    try:
        for n in range(runs):
            q = queries[n % len(queries)]
            start = time.perf_counter()
            mem.recall(q, touch=False)
            with_context.append(time.perf_counter() - start)
            mem.store.context_search = lambda *_: None  # type: ignore[method-assign]
            start = time.perf_counter()
            mem.recall(q, touch=False)
            without.append(time.perf_counter() - start)
            mem.store.context_search = search  # type: ignore[method-assign]
    finally:
        mem.embedder.embed = embed  # type: ignore[method-assign]
    return with_context, without


def import_rate(tmp: Path, n: int, conversational: bool) -> float:
    drafts = [
        Draft(
            content=d.content,
            metadata={"session": f"s-{i // TURNS}", "speaker": "Ana"} if conversational else {},
        )
        for i, d in enumerate(corpus.drafts(n, seed=9))
    ]
    path = tmp / f"import-{conversational}.db"
    with Lethe.open(path, embedder=load_default_embedder()) as mem:
        start = time.perf_counter()
        mem.remember_many(drafts)
        return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--share", type=float, default=0.5)
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--import-size", type=int, default=2000)
    args = parser.parse_args()
    results: dict[str, Any] = {"size": args.size, "machine": machine()}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "conv.db"
        log(f"filling {args.size:,} memories")
        fill(db, args.size)
        turns = make_conversational(db, args.share)
        start = time.perf_counter()
        mem = Lethe.open(db, embedder=load_default_embedder())
        built = time.perf_counter() - start
        try:
            mem.recall("warm up", touch=False)
            with_context, without = recall_times(mem, args.runs)
        finally:
            mem.close()
        log(f"importing {args.import_size:,} turns twice")
        plain = import_rate(Path(tmp), args.import_size, conversational=False)
        conversational = import_rate(Path(tmp), args.import_size, conversational=True)
    c, w = stats_ms(with_context), stats_ms(without)
    results |= {
        "conversational_memories": turns,
        "open_building_contexts_s": round(built, 2),
        "recall_with_contexts": c,
        "recall_without_contexts": w,
        "recall_ratio_p50": round(c["p50_ms"] / w["p50_ms"], 3),
        "import_per_s_plain": round(plain, 1),
        "import_per_s_conversational": round(conversational, 1),
        "import_ratio": round(conversational / plain, 3),
    }
    print(
        f"{turns:,} of {args.size:,} memories in conversations; contexts built at open in "
        f"{built:.1f} s"
    )
    print(
        f"recall p50 without the embedding: {c['p50_ms']:.2f} ms with contexts, "
        f"{w['p50_ms']:.2f} ms without ({c['p50_ms'] / w['p50_ms']:.2f}x); "
        f"p95 {c['p95_ms']:.2f} / {w['p95_ms']:.2f} ms"
    )
    print(
        f"import: {conversational:.0f} turns/s with sessions, {plain:.0f}/s without "
        f"({conversational / plain:.2f}x)"
    )
    write_json(f"conversation-speed-{args.size}", results)


if __name__ == "__main__":
    main()
