"""Recall at a million memories (issue 26, part 4): the first recall's peak memory and time,
and recall latency without the query embedding, optionally beside another checkout's code.

The store is filled through SQL (bench_ui.py `fill`: the corpus' real texts, random unit
vectors) once and kept at `--db`; a later run reuses it. The query texts are
`corpus.queries` embedded once by the real encoder, here; every measurement then runs in a
fresh process of its own, one process after the other, with an embedder that answers from
those vectors (common.CachedEmbedder; the encoder is loaded but never called):

- `rows`: the index snapshot files beside the database deleted first, so the first recall
  rebuilds the index from the rows' BLOBs (and writes a new snapshot, inside that recall);
- `snapshot`: a second process, which starts from the snapshot the first one wrote; it then
  also times `Lethe.recall` (`-k`, touch off) and the store's two candidate searches alone,
  `vector_search` and `lexical_search` (depth 50), and the floor under the int8 pass,
  reading as many int8 codes once on the same threads, and the int8 dot product (simsimd)
  alone over as many codes, the modes taking turns query by query.

Targets (issue 47): recall p50 <= 1.25x reading the codes once, and the vector search
reading at >= 0.8x that plain read's rate (the read's p50 over the search's), both from
the same process, taking turns.

Peak RSS is the process's VmHWM, read from /proc/self/status. ru_maxrss (also in the JSON)
would be the right figure in a process of its own, but a child started by subprocess
inherits this script's peak through vfork + exec, so it overstates small stores. "before
open" is the peak after imports and the encoder, before `Lethe.open`. `--baseline SRC` runs
the same processes with PYTHONPATH=SRC first (another checkout's `src`), for ratios.

    python bench/bench_million.py              # 1M memories: a ~2.6 GB store, ~2 GB snapshot
    python bench/bench_million.py --size 20000 --db /tmp/m20k.db --baseline /tmp/old/src
"""

from __future__ import annotations

import argparse
import glob
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import corpus
import numpy as np
from bench_recall import interleaved, summarize
from common import CachedEmbedder, log, machine, memory_count, write_json

from lethe import Filters, Lethe
from lethe.embed import load_default_embedder

WARMUP = 10
DEPTH = 50
GIB = 1024 * 1024  # KiB in a GiB


def peak_rss_gib() -> tuple[float, float]:
    """(VmHWM, ru_maxrss) of this process in GiB."""
    status = Path("/proc/self/status").read_text()
    hwm = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM"))
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(hwm / GIB, 3), round(maxrss / GIB, 3)


def worker(mode: str, db: Path, vectors_file: Path, k: int, rounds: int) -> dict[str, Any]:
    """One fresh process: open, first recall, and (from the snapshot) recall latency."""
    import lethe

    with np.load(vectors_file, allow_pickle=False) as data:
        queries = [str(q) for q in data["queries"]]
        vectors = dict(zip(queries, data["vectors"], strict=True))
    embedder = CachedEmbedder(load_default_embedder(), vectors)
    before, _ = peak_rss_gib()
    start = time.perf_counter()
    mem = Lethe.open(db, embedder=embedder)
    opened = time.perf_counter() - start
    mem.recall(queries[0], k=k, touch=False)
    took = time.perf_counter() - start
    peak, maxrss = peak_rss_gib()
    result: dict[str, Any] = {
        "lethe": lethe.__file__,
        "rss_before_open_gib": before,
        "peak_rss_gib": peak,
        "ru_maxrss_gib": maxrss,
        "open_s": round(opened, 3),
        "first_recall_s": round(took, 3),
    }
    if mode == "snapshot" and rounds > 0:
        store, flt = mem.store, Filters(namespace="default")
        reader = CodesRead(memory_count(db), embedder.dim)
        modes = {
            "recall_no_embed": lambda q: mem.recall(q, k=k, touch=False),
            "vector_search": lambda q: store.vector_search(vectors[q], flt, DEPTH),
            "lexical_search": lambda q: store.lexical_search(q, flt, DEPTH),
            "codes_read": reader,
            "codes_dot": reader.dot,
        }
        interleaved(modes, queries[:WARMUP], 1)
        times = interleaved(modes, queries, rounds)
        reader.close()
        result |= {name: summarize(per_round) for name, per_round in times.items()}
        read = result["codes_read"]["p50_ms"]
        result["codes_read_p50_ms"] = read
        result["recall_over_codes_read"] = round(result["recall_no_embed"]["p50_ms"] / read, 3)
        result["vector_pass_read_rate"] = round(read / result["vector_search"]["p50_ms"], 3)
    mem.close()
    if embedder.misses:
        raise SystemExit(f"the cached embedder missed {embedder.misses} times")
    return result


class CodesRead:
    """The floor under an exact int8 pass on this machine: reading `rows` x `dim` int8 codes
    once (summed as int64, no arithmetic to speak of), split over the threads lethe uses. No
    pass that reads every code can be faster. Timed as a mode of its own, taking turns with
    recall and the searches, so that its rate and theirs meet the same load."""

    def __init__(self, rows: int, dim: int) -> None:
        from concurrent.futures import ThreadPoolExecutor

        self.wide = np.ones((rows, dim), dtype=np.int8).view(np.int64)
        # lethe.common.threads' rule, written out: a baseline checkout may predate it.
        threads = int(os.environ.get("LETHE_THREADS") or min(4, len(os.sched_getaffinity(0))))
        edges = np.linspace(0, rows, threads + 1).astype(int).tolist()
        self.spans = list(itertools.pairwise(edges))
        self.pool = ThreadPoolExecutor(threads)

    def __call__(self, _query: str = "") -> None:
        list(self.pool.map(lambda span: self.wide[span[0] : span[1]].sum(), self.spans))

    def dot(self, _query: str = "") -> None:
        """The int8 kernel lethe's pass runs (simsimd), alone: one query against every code,
        on the same threads, with no bound, threshold or float32 pass after it."""
        import simsimd

        codes = self.wide.view(np.int8)
        query = codes[:1]

        def part(span: tuple[int, int]) -> object:
            return simsimd.cdist(
                query, codes[span[0] : span[1]], metric="dot", dtype="int8", threads=1
            )

        list(self.pool.map(part, self.spans))

    def close(self) -> None:
        self.pool.shutdown()


def ensure_db(db: Path, size: int) -> dict[str, Any]:
    """The store at `db`, filled now unless it is there already."""
    if db.exists():
        log(f"reusing {db}")
        return {"built": False}
    from bench_ui import fill

    db.parent.mkdir(parents=True, exist_ok=True)
    partial = db.with_name(db.name + ".partial")  # an interrupted fill is never reused
    for stale in db.parent.glob(f"{glob.escape(partial.name)}*"):
        stale.unlink()
    log(f"filling {size:,} memories through SQL into {db}")
    events, took = fill(partial, size)
    for suffix in ("-wal", "-shm", ""):
        if Path(f"{partial}{suffix}").exists():
            os.replace(f"{partial}{suffix}", f"{db}{suffix}")
    log(f"  {events:,} events, {took:.1f} s")
    return {"built": True, "fill_s": round(took, 1), "events": events}


def drop_snapshot(db: Path) -> None:
    """Delete the index snapshot beside `db` (the naming of lethe/store/sqlite_index.py)."""
    from lethe.store.sqlite_index import _matrix_files, snapshot_path

    snapshot = snapshot_path(db)
    leftovers = db.parent.glob(f".{glob.escape(snapshot.name)}.*")  # a save cut short
    for path in [snapshot, *_matrix_files(db), *leftovers]:
        path.unlink(missing_ok=True)


def spawn(mode: str, db: Path, vectors: Path, args: argparse.Namespace, src: Path | None) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
    env["LETHE_CONFIG"] = os.devnull  # the user's own settings stay out of the measurement
    if args.threads:
        env["LETHE_THREADS"] = str(args.threads)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(src), env.get("PYTHONPATH")) if p)
    command = [sys.executable, __file__, "--worker", mode, "--db", str(db)]
    command += ["--vectors", str(vectors), "-k", str(args.k), "--rounds", str(args.rounds)]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        log(f"  {mode} process exited {done.returncode}: {tail}")
        return {"error": tail}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if src is not None and not Path(result["lethe"]).resolve().is_relative_to(src):
        raise SystemExit(f"PYTHONPATH={src} did not take: lethe came from {result['lethe']}")
    return result


def measure(db: Path, vectors: Path, args: argparse.Namespace, src: Path | None) -> Any:
    """The two processes for one version of the code: from rows, then from the snapshot."""
    from lethe.store.sqlite_index import snapshot_path

    drop_snapshot(db)
    log(f"[{src or 'this checkout'}] first recall from rows")
    result = {"rows": spawn("rows", db, vectors, args, src)}
    result["snapshot_written"] = snapshot_path(db).exists()
    log(f"[{src or 'this checkout'}] first recall from the snapshot, then recall latency")
    result["snapshot"] = spawn("snapshot", db, vectors, args, src)
    return result


FIGURES = [
    ("rows", "peak_rss_gib", "first recall from rows: peak RSS GiB"),
    ("rows", "first_recall_s", "  open + first recall, s"),
    ("snapshot", "peak_rss_gib", "first recall from snapshot: peak RSS GiB"),
    ("snapshot", "first_recall_s", "  open + first recall, s"),
    ("snapshot", "rss_before_open_gib", "peak RSS before open (imports, encoder) GiB"),
    ("snapshot", "recall_no_embed.p50_ms", "recall without embedding p50 ms"),
    ("snapshot", "recall_no_embed.p95_ms", "recall without embedding p95 ms"),
    ("snapshot", "vector_search.p50_ms", "vector_search alone p50 ms"),
    ("snapshot", "lexical_search.p50_ms", "lexical_search alone p50 ms"),
    ("snapshot", "codes_read_p50_ms", "reading every int8 code once p50 ms (floor)"),
    ("snapshot", "codes_dot.p50_ms", "  the int8 dot product alone over them p50 ms"),
    ("snapshot", "recall_over_codes_read", "recall / reading the codes (target <= 1.25)"),
    ("snapshot", "vector_pass_read_rate", "vector pass rate / plain read rate (>= 0.8)"),
]


def figure(run: dict[str, Any], where: str, key: str) -> float | None:
    value: Any = run.get(where, {})
    for part in key.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value if isinstance(value, int | float) else None


def shown(value: float | None, key: str) -> str:
    return "-" if value is None else f"{value:.2f}" if key.endswith("ms") else f"{value:.3f}"


def print_table(result: dict[str, Any]) -> None:
    new, base = result["new"], result.get("baseline")
    print(
        f"{result['size']:,} memories, {result['queries']} queries x {result['rounds']} rounds, "
        f"k={result['k']}, LETHE_THREADS={result['threads'] or 'unset'}"
    )
    head = f"{'':46s} {'this checkout':>14s}"
    print(head + (f" {'baseline':>10s} {'ratio':>7s}" if base else ""))
    for where, key, label in FIGURES:
        value = figure(new, where, key)
        line = f"{label:46s} {shown(value, key):>14s}"
        if base:
            old = figure(base, where, key)
            ratio = f"{value / old:.2f}x" if value is not None and old else "-"
            line += f" {shown(old, key):>10s} {ratio:>7s}"
        print(line)
    if base:
        print(f"  baseline: {result['baseline_src']}; ratio = this checkout / baseline")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="memories (1,000,000)")
    parser.add_argument(
        "--db", type=Path, help="store to reuse or fill (/tmp/lethe-bench/million-SIZE.db)"
    )
    parser.add_argument("--baseline", type=Path, help="another checkout's src, measured too")
    parser.add_argument("--threads", type=int, help="set LETHE_THREADS in the processes")
    parser.add_argument("--queries", type=int, default=200, help="distinct queries (200)")
    parser.add_argument("--rounds", type=int, default=2, help="passes over the queries (2)")
    parser.add_argument("-k", type=int, default=10, help="hits per recall (10)")
    parser.add_argument("--worker", choices=("rows", "snapshot"), help=argparse.SUPPRESS)
    parser.add_argument("--vectors", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    db: Path = args.db or Path(f"/tmp/lethe-bench/million-{args.size}.db")
    if args.worker:
        print(json.dumps(worker(args.worker, db, args.vectors, args.k, args.rounds)))
        return
    src = args.baseline.resolve() if args.baseline else None
    if src is not None and not (src / "lethe" / "__init__.py").exists():
        raise SystemExit(f"--baseline {src}: no lethe package there (give a checkout's src)")
    built = ensure_db(db, args.size)
    queries = corpus.queries(args.queries, seed=1)
    log(f"embedding {len(queries)} queries once")
    vectors = load_default_embedder().embed(queries)
    result: dict[str, Any] = {"size": memory_count(db), "db": str(db), "store": built}
    result |= {"queries": len(queries), "rounds": args.rounds, "k": args.k}
    result |= {"threads": args.threads, "baseline_src": str(src) if src else None}
    with tempfile.TemporaryDirectory(prefix="lethe-bench-million-") as tmp:
        path = Path(tmp) / "queries.npz"
        np.savez(path, queries=np.array(queries), vectors=vectors)
        if src is not None:  # first, so this checkout's own snapshot is the one left behind
            result["baseline"] = measure(db, path, args, src)
        result["new"] = measure(db, path, args, None)
    result["machine"] = machine()
    print_table(result)
    log(f"wrote {write_json(f'million-{args.size}.json', result)}")


if __name__ == "__main__":
    main()
