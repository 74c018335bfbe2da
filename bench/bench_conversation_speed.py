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
from collections.abc import Callable
from concurrent.futures import Future
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


def _without_contexts(mem: Lethe) -> Callable[[], None]:
    """Switch the context side off (recall then ranks as before conversations were known);
    the returned callable switches it back on."""
    store = mem.store
    in_context, words = store.vector_search_in_context, store.context_lexical_soon

    def own_only(query: Any, filters: Any, n: int) -> tuple[Any, None]:
        return store.vector_search(query, filters, n), None

    def no_words(*_: Any) -> Future[list[str]]:
        done: Future[list[str]] = Future()
        done.set_result([])
        return done

    store.vector_search_in_context = own_only  # type: ignore[method-assign]
    store.context_lexical_soon = no_words  # type: ignore[method-assign]

    def restore() -> None:
        store.vector_search_in_context = in_context  # type: ignore[method-assign]
        store.context_lexical_soon = words  # type: ignore[method-assign]

    return restore


def recall_times(mem: Lethe, runs: int) -> tuple[list[float], list[float]]:
    queries = corpus.queries(8, seed=3)
    vectors = {q: mem.embedder.embed([q])[0] for q in queries}
    embed = mem.embedder.embed
    mem.embedder.embed = lambda texts: np.stack([vectors[t] for t in texts])  # type: ignore[method-assign]
    with_context: list[float] = []
    without: list[float] = []
    try:
        for n in range(runs):
            q = queries[n % len(queries)]
            start = time.perf_counter()
            mem.recall(q, touch=False)
            with_context.append(time.perf_counter() - start)
            switch_back = _without_contexts(mem)
            try:
                start = time.perf_counter()
                mem.recall(q, touch=False)
                without.append(time.perf_counter() - start)
            finally:
                switch_back()
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


def append_cost(tmp: Path, turns: int, appends: int = 20) -> dict[str, dict[str, float]]:
    """Milliseconds the context upkeep (`rebuild`, inside the writing transaction) takes when
    one turn is added to a conversation already `turns` long."""
    import lethe.store.sqlite as sqlite_store

    drafts = [
        Draft(content=d.content, metadata={"session": "long", "speaker": ("Ana", "Ben")[i % 2]})
        for i, d in enumerate(corpus.drafts(turns + appends, seed=11))
    ]
    spent: list[float] = []
    original = sqlite_store.rebuild_contexts

    def timed(conn: sqlite3.Connection) -> int:
        start = time.perf_counter()
        try:
            return original(conn)
        finally:
            spent.append(time.perf_counter() - start)

    with Lethe.open(tmp / f"long-{turns}.db", embedder=load_default_embedder()) as mem:
        mem.remember_many(drafts[:turns], auto_link=False)
        spent.clear()
        sqlite_store.rebuild_contexts = timed  # type: ignore[assignment]
        try:
            for d in drafts[turns:]:
                mem.remember(d.content, metadata=d.metadata)
            appended = stats_ms(spent)
            # What every change cost before contexts were remade in part: the whole
            # conversation made again (every turn marked changed, in a write that commits).
            spent.clear()
            for _ in range(5):
                with mem.store.transaction():
                    conn = mem.store.connection
                    conn.execute("INSERT INTO conversation_dirty VALUES ('default', 'long')")
                    conn.execute(
                        "INSERT INTO context_changed SELECT id FROM memories "
                        "WHERE conversation = 'long'"
                    )
        finally:
            sqlite_store.rebuild_contexts = original  # type: ignore[assignment]
    return {"append": appended, "whole": stats_ms(spent)}


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
        log(f"importing {args.import_size:,} turns, with and without sessions, 3 rounds")
        # Taking turns, median of each: a single pair measured 0.86x to 1.03x on one idle
        # machine (the first import of a process runs slower).
        rates: dict[bool, list[float]] = {False: [], True: []}
        for round_ in range(3):
            for kind in (False, True) if round_ % 2 == 0 else (True, False):
                folder = Path(tmp) / f"import-{round_}"
                folder.mkdir(exist_ok=True)
                rates[kind].append(import_rate(folder, args.import_size, conversational=kind))
        plain = float(np.median(rates[False]))
        conversational = float(np.median(rates[True]))
        log("appending turns to long conversations")
        appends = {n: append_cost(Path(tmp), n) for n in (100, 1000, 4000)}
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
        "append_rebuild": {str(n): v for n, v in appends.items()},
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
    for n, v in appends.items():
        print(
            f"one turn added to a conversation of {n:,}: context upkeep p50 "
            f"{v['append']['p50_ms']:.2f} ms (p95 {v['append']['p95_ms']:.2f}); the whole "
            f"conversation remade: {v['whole']['p50_ms']:.2f} ms"
        )
    write_json(f"conversation-speed-{args.size}", results)


if __name__ == "__main__":
    main()
