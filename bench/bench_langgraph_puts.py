"""Many LangGraph puts at once (issue 44, part 3): LetheStore's `abatch` of N new items, beside
the same puts made concurrently (`asyncio.gather` of `aput`s, stored together as one batch),
beside the same puts one at a time (the path every put took before a batch's new items were
embedded together) and beside LangGraph's InMemoryStore, in one run, the variants taking turns.

Each round writes N values under new keys into a fresh store (a fresh lethe SQLite file, the
real MiniLM embedder loaded once). Reported: puts/s per variant (median of the rounds) and
the ratios.

    python bench/bench_langgraph_puts.py              # 1,000 puts, 3 rounds
    python bench/bench_langgraph_puts.py --puts 200 --rounds 5
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from common import log, machine, write_json
from langgraph.store.base import PutOp
from langgraph.store.memory import InMemoryStore

from lethe import Lethe
from lethe.embed import Embedder, load_default_embedder
from lethe.integrations.langgraph import LetheStore

NAMESPACE = ("users", "u-42", "memories")


def ops(n: int) -> list[PutOp]:
    return [
        PutOp(NAMESPACE, f"m{i}", {"text": f"Note {i}: the user mentioned topic number {i * 7}"})
        for i in range(n)
    ]


def lethe_batch(embedder: Embedder, n: int, folder: Path) -> float:
    with Lethe.open(folder / "batch.db", embedder=embedder) as mem:
        store = LetheStore(mem)
        start = time.perf_counter()
        asyncio.run(store.abatch(ops(n)))
        return time.perf_counter() - start


def lethe_gathered(embedder: Embedder, n: int, folder: Path) -> float:
    """What a graph's `asyncio.gather` of `aput`s does: each put its own call."""
    with Lethe.open(folder / "gathered.db", embedder=embedder) as mem:
        store = LetheStore(mem)

        async def put_all() -> None:
            await asyncio.gather(
                *(store.aput(op.namespace, op.key, op.value) for op in ops(n))  # type: ignore[arg-type]
            )

        start = time.perf_counter()
        asyncio.run(put_all())
        return time.perf_counter() - start


def lethe_one_by_one(embedder: Embedder, n: int, folder: Path) -> float:
    with Lethe.open(folder / "single.db", embedder=embedder) as mem:
        store = LetheStore(mem)
        start = time.perf_counter()
        for op in ops(n):
            store.batch([op])
        return time.perf_counter() - start


def in_memory(_: Embedder, n: int, __: Path) -> float:
    store = InMemoryStore()
    start = time.perf_counter()
    asyncio.run(store.abatch(ops(n)))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--puts", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    embedder = load_default_embedder()
    embedder.embed(["warm the encoder up"])
    variants: dict[str, Callable[[Embedder, int, Path], float]] = {
        "LetheStore abatch": lethe_batch,
        "LetheStore gather of aput": lethe_gathered,
        "LetheStore one put per batch": lethe_one_by_one,
        "InMemoryStore abatch": in_memory,
    }
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    for round_ in range(args.rounds):
        for name, run in variants.items():
            with tempfile.TemporaryDirectory() as tmp:
                seconds[name].append(run(embedder, args.puts, Path(tmp)))
            log(f"round {round_ + 1}: {name} {seconds[name][-1]:.2f} s")
    rate = {name: args.puts / statistics.median(s) for name, s in seconds.items()}
    for name, value in rate.items():
        print(f"{name:32} {value:10.1f} puts/s")
    ratio = rate["LetheStore abatch"] / rate["LetheStore one put per batch"]
    print(f"abatch / one put per batch: {ratio:.1f}x")
    write_json(
        "langgraph_puts",
        {"machine": machine(), "puts": args.puts, "rounds": args.rounds, "puts_per_s": rate},
    )


if __name__ == "__main__":
    main()
