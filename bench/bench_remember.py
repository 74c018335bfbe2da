"""`remember` of one new text into a large store (issue 47): how long it takes outside the
encoder, against the encoder's own time for that text.

For every new text the three steps take turns (in an order rotated per text):

- (a) `encoder`: the encoder alone on that text (`embedder.embed([text])`);
- (b) `remember`: `Lethe.remember(text)` with the real encoder, into one copy of the store;
- (c) `remember_no_embed`: `Lethe.remember(text)` into a second copy of the store opened with
  an embedder that answers from vectors computed before the run (common.CachedEmbedder):
  everything `remember` does but the encoder. This copy is open in a process of its own, so
  nothing (b) read of the same neighbours is still in memory for (c).

The figure is p50(c) / p50(a), of wall times; each step's CPU time in its process
(`time.process_time`, every thread: the encoder's too) is shown beside, since on a loaded
machine it moves less than wall time does.

Both copies start from the given store (which is only read: copied, and opened read-only to
count its memories and skip its texts) with a full working memory (the newest memories
attended until it holds its token budget), so each `remember` admits into a set that evicts,
as an agent's store does after a while; a few texts are remembered first and not counted (the
first one loads the vector index).

The new texts are `corpus.generate` of another seed, minus any the store already holds (an
exact duplicate would come back at once, without being written). `--baseline [NAME=]SRC`
(repeatable) runs the same steps in processes with PYTHONPATH=SRC (another checkout's `src`,
e.g. one made with `git archive HEAD src`), on copies of their own; every version of the code
takes its turn text by text, so a burst of load on the machine hits them alike.

`--stages` also times the stages of (c) in this checkout (never a baseline's: the names are
this code's), by wrapping them in the worker: the neighbour search, the correction reader,
working-memory admission, the read of the closest memories, the insert, and the rest (the
write transaction's commit, the audit, the owed work, checking the input). Their p50s show
what the ratio is made of, and the floor: the exact search and the write.

    python bench/bench_remember.py                         # the shared 100k store
    python bench/bench_remember.py --db /tmp/s10k.db -n 100 --baseline head=/tmp/remember_base/src
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

import corpus
import numpy as np
from common import CachedEmbedder, copy_store, log, machine, stats_ms, write_json

from lethe.embed import load_default_embedder

DEFAULT_DB = Path("/tmp/lethe-bench/lethe-100000.db")
STEPS = ("encoder", "remember", "remember_no_embed")
WARMUP = 10
ATTEND_BATCH = 100  # Working.attend's most per call


def read_only(db: Path) -> sqlite3.Connection:
    """The given store is shared: opened read-only, so closing it checkpoints nothing."""
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def live_count(db: Path) -> int:
    conn = read_only(db)
    try:
        return int(
            conn.execute("SELECT count(*) FROM memories WHERE status = 'active'").fetchone()[0]
        )
    finally:
        conn.close()


def new_texts(db: Path, n: int, seed: int) -> list[str]:
    """`n` corpus texts the store does not hold yet."""
    conn = read_only(db)
    try:
        held = {r[0] for r in conn.execute("SELECT content FROM memories")}
    finally:
        conn.close()
    out: list[str] = []
    want = n
    while len(out) < n:
        out = [s.content for s in corpus.generate(want, seed) if s.content not in held][:n]
        want += n
    return out


# -- the workers: one process per copy of the store ---------------------------------------------


class Worker:
    """One copy of the store in this process, opened with the real encoder (steps `encoder`
    and `remember`) or with the precomputed vectors (`remember_no_embed`). The two are kept
    in two processes: what one remember read and kept (the correction reader keeps the
    readings of texts it has seen) must not make the other's remember of that text cheaper."""

    def __init__(self, db: Path, vectors_file: Path | None, stages: bool = False) -> None:
        import lethe
        from lethe import Lethe

        self.lethe_file = lethe.__file__
        self.encoder = load_default_embedder()
        self.cached: CachedEmbedder | None = None
        if vectors_file is not None:
            with np.load(vectors_file, allow_pickle=False) as data:
                texts = [str(t) for t in data["texts"]]
                vectors = dict(zip(texts, data["vectors"], strict=True))
            self.cached = CachedEmbedder(self.encoder, vectors)
        self.mem = Lethe.open(db, embedder=self.cached or self.encoder)
        self.existing = 0
        self.working = fill_working(self.mem)
        self.stages = Stages() if stages else None

    def step(self, name: str, text: str) -> tuple[float, float]:
        """The step's wall time and this process's CPU time in it (every thread's), seconds."""
        start, cpu = time.perf_counter(), time.process_time()
        if name == "encoder":
            self.encoder.embed([text])
        elif (name == "remember_no_embed") != (self.cached is not None):
            raise SystemExit(f"step {name} asked of the wrong worker")
        else:
            if self.stages is not None:
                self.stages.begin()
            self.existing += self.mem.remember(text).existing
            if self.stages is not None:
                self.stages.end(time.perf_counter() - start)
        return time.perf_counter() - start, time.process_time() - cpu

    def close(self) -> dict[str, Any]:
        self.mem.close()
        return {
            "lethe": self.lethe_file,
            "existing": self.existing,
            "cache_misses": self.cached.misses if self.cached else 0,
            "working_at_start": self.working,
            "stages": self.stages.p50s() if self.stages else None,
        }


class Stages:
    """The stages of one `remember`, timed by wrapping them where the engine finds them (the
    module attribute or the method it calls), each call's sum per stage."""

    WRAPPED = (
        ("neighbour search", "lethe.store.sqlite", "SQLiteStore", "vector_search"),
        ("correction reader", "lethe.engine.memories", None, "likely_superseded"),
        ("working memory", "lethe.engine.working", "Working", "entered"),
        ("closest memories read", "lethe.store.sql_reads", "SqlReads", "gists"),
        ("insert", "lethe.engine.memories", "Memories", "insert"),
    )

    def __init__(self) -> None:
        import importlib

        self.calls: list[dict[str, float]] = []
        self.current: dict[str, float] = {}
        for name, module_name, owner_name, attribute in self.WRAPPED:
            module = importlib.import_module(module_name)
            owner = getattr(module, owner_name) if owner_name else module
            setattr(owner, attribute, self._wrap(name, getattr(owner, attribute)))

    def _wrap(self, name: str, fn: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.current[name] = self.current.get(name, 0.0) + time.perf_counter() - start

        return timed

    def begin(self) -> None:
        self.current = {}

    def end(self, total: float) -> None:
        self.current["the rest"] = total - sum(self.current.values())
        self.calls.append(self.current)

    def p50s(self) -> dict[str, float]:
        names = [w[0] for w in self.WRAPPED] + ["the rest"]
        return {n: float(np.median([c.get(n, 0.0) for c in self.calls])) * 1000 for n in names}


def fill_working(mem: Any) -> dict[str, int]:
    """Attend the newest memories until the agent's working memory holds its budget."""
    ids = [m.id for m in mem.list_memories(limit=1000).items]
    context = None
    for start in range(0, len(ids), ATTEND_BATCH):
        context = mem.attend(ids[start : start + ATTEND_BATCH])
        if context.evicted:
            break
    if context is None:
        return {"items": 0, "tokens": 0, "budget": 0}
    return {"items": len(context.items), "tokens": context.tokens, "budget": context.budget}


def serve(args: argparse.Namespace) -> None:
    """Answer the parent's commands, one JSON line each way: {"step", "text"} -> seconds."""
    worker = Worker(args.worker_db, args.vectors, stages=args.stages and args.vectors is not None)
    out = sys.stdout
    out.write(json.dumps({"ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        command = json.loads(line)
        if command.get("close"):
            out.write(json.dumps(worker.close()) + "\n")
            out.flush()
            return
        wall, cpu = worker.step(command["step"], command["text"])
        out.write(json.dumps({"s": wall, "cpu": cpu}) + "\n")
        out.flush()


# -- the parent --------------------------------------------------------------------------------


class Process:
    """A worker process and the pipe to it."""

    def __init__(
        self, name: str, src: Path | None, db: Path, vectors: Path | None, stages: bool = False
    ) -> None:
        self.name = name
        env = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
        env["LETHE_CONFIG"] = os.devnull  # the user's own settings stay out of the measurement
        if src is not None:
            env["PYTHONPATH"] = os.pathsep.join(p for p in (str(src), env.get("PYTHONPATH")) if p)
        command = [sys.executable, __file__, "--worker-db", str(db)]
        if vectors is not None:
            command += ["--vectors", str(vectors)]
        if stages:
            command.append("--stages")
        self.process = subprocess.Popen(
            command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )

    def read(self) -> dict[str, Any]:
        stdout: IO[str] | None = self.process.stdout
        line = stdout.readline() if stdout else ""
        if not line:
            raise SystemExit(f"the {self.name} worker exited ({self.process.wait()})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def ask(self, command: dict[str, Any]) -> dict[str, Any]:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps(command) + "\n")
        stdin.flush()
        return self.read()


class Side:
    """One version of the code (this checkout's, or a baseline's): two worker processes, each
    on its own copy of the store, and their answers."""

    def __init__(
        self, name: str, src: Path | None, db: Path, vectors: Path, tmp: Path, stages: bool
    ) -> None:
        self.name = name
        self.src = src
        self.times: dict[str, list[float]] = {s: [] for s in STEPS}
        self.cpu: dict[str, list[float]] = {s: [] for s in STEPS}
        real = copy_store(db, tmp / name / "real.db")
        cached = copy_store(db, tmp / name / "no_embed.db")
        self.real = Process(f"{name} (encoder)", src, real, None)
        self.no_embed = Process(f"{name} (no encoder)", src, cached, vectors, stages)

    def ready(self) -> None:
        self.real.read()  # the stores are open and their working memory full
        self.no_embed.read()

    def step(self, name: str, text: str, *, counted: bool) -> None:
        process = self.no_embed if name == "remember_no_embed" else self.real
        answer = process.ask({"step": name, "text": text})
        if counted:
            self.times[name].append(float(answer["s"]))
            self.cpu[name].append(float(answer["cpu"]))

    def finish(self) -> dict[str, Any]:
        infos = [p.ask({"close": True}) for p in (self.real, self.no_embed)]
        for process, info in zip((self.real, self.no_embed), infos, strict=True):
            process.process.wait()
            where = Path(info["lethe"]).resolve()
            if self.src is not None and not where.is_relative_to(self.src):
                raise SystemExit(f"PYTHONPATH={self.src} did not take: lethe is {where}")
            if info["existing"] or info["cache_misses"]:
                raise SystemExit(f"{process.name}: {info} (a text was not new, or not embedded)")
        result: dict[str, Any] = {name: stats_ms(t) for name, t in self.times.items()}
        result["cpu"] = {name: stats_ms(t) for name, t in self.cpu.items()}
        encoder, outside = result["encoder"]["p50_ms"], result["remember_no_embed"]["p50_ms"]
        result["ratio_outside_to_encoder"] = round(outside / encoder, 3)
        encoder, outside = (result["cpu"][s]["p50_ms"] for s in ("encoder", "remember_no_embed"))
        result["cpu_ratio_outside_to_encoder"] = round(outside / encoder, 3)
        result["lethe"] = infos[0]["lethe"]
        result["stages"] = infos[1]["stages"]
        result["working_at_start"] = infos[0]["working_at_start"]
        return result


def run(texts: list[str], sides: list[Side], warmup: int) -> None:
    """Per text: every side's three steps, sides and steps in an order rotated per text."""
    for i, text in enumerate(texts):
        order = sides[i % len(sides) :] + sides[: i % len(sides)]
        for side in order:
            shift = i % len(STEPS)
            for name in STEPS[shift:] + STEPS[:shift]:
                side.step(name, text, counted=i >= warmup)
        if (i + 1) % 50 == 0:
            log(f"  {i + 1}/{len(texts)} texts")


def print_table(result: dict[str, Any]) -> None:
    sides = result["sides"]
    print(f"remember of one new text at {result['size']:,} memories, {result['texts']} texts")
    print(f"{'p50 ms':34s}" + "".join(f"{s:>14s}" for s in sides))
    labels = {
        "encoder": "(a) encoder alone",
        "remember": "(b) remember, real encoder",
        "remember_no_embed": "(c) remember without the encoder",
    }
    for step, label in labels.items():
        print(f"{label:34s}" + "".join(f"{result[s][step]['p50_ms']:14.2f}" for s in sides))
    ratio = "".join(f"{result[s]['ratio_outside_to_encoder']:14.3f}" for s in sides)
    print(f"{'ratio (c)/(a)':34s}" + ratio)
    print("CPU time of the process in the step (every thread), p50 ms")
    for step, label in labels.items():
        print(f"{label:34s}" + "".join(f"{result[s]['cpu'][step]['p50_ms']:14.2f}" for s in sides))
    ratio = "".join(f"{result[s]['cpu_ratio_outside_to_encoder']:14.3f}" for s in sides)
    print(f"{'CPU ratio (c)/(a)':34s}" + ratio)
    stages = result["new"].get("stages")
    if stages:
        encoder = result["new"]["encoder"]["p50_ms"]
        print("stages of (c) in this checkout, p50 ms (and / the encoder's p50)")
        for stage, ms in stages.items():
            print(f"  {stage:32s}{ms:14.2f}{ms / encoder:14.3f}")
    new = result["new"]["remember_no_embed"]["p50_ms"]
    for name in sides[1:]:
        change = new / result[name]["remember_no_embed"]["p50_ms"]
        print(f"(c) this checkout / {name}: {change:.3f}x  ({result['baselines'][name]})")


def baselines(given: list[str]) -> dict[str, Path]:
    """`[NAME=]SRC` of each --baseline: another checkout's `src`."""
    out: dict[str, Path] = {}
    for n, value in enumerate(given):
        name, _, path = value.rpartition("=")
        src = Path(path).resolve()
        if not (src / "lethe" / "__init__.py").exists():
            raise SystemExit(f"--baseline {src}: no lethe package there (give a checkout's src)")
        out[name or ("baseline" if len(given) == 1 else f"baseline{n + 1}")] = src
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, default=DEFAULT_DB, help=f"store to copy ({DEFAULT_DB})")
    parser.add_argument("-n", type=int, default=200, help="new texts timed (200)")
    parser.add_argument("--warmup", type=int, default=WARMUP, help=f"texts not counted ({WARMUP})")
    parser.add_argument("--seed", type=int, default=47, help="corpus seed of the new texts (47)")
    parser.add_argument(
        "--baseline",
        action="append",
        default=[],
        metavar="[NAME=]SRC",
        help="another checkout's src, measured too (repeatable)",
    )
    parser.add_argument("--tmp", type=Path, help="folder for the copies (a temporary one)")
    parser.add_argument(
        "--stages", action="store_true", help="time the stages of (c) in this checkout too"
    )
    parser.add_argument("--worker-db", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--vectors", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker_db:
        serve(args)
        return
    others = baselines(args.baseline)
    if not args.db.exists():
        raise SystemExit(f"{args.db}: no such store (build one with bench/common.build_db)")
    texts = new_texts(args.db, args.n + args.warmup, args.seed)
    result: dict[str, Any] = {"size": live_count(args.db), "db": str(args.db)}
    result |= {"texts": args.n, "warmup": args.warmup, "seed": args.seed}
    result |= {"sides": ["new", *others], "baselines": {k: str(v) for k, v in others.items()}}
    with tempfile.TemporaryDirectory(prefix="lethe-bench-remember-", dir=args.tmp) as tmp:
        log(f"embedding {len(texts)} new texts once")
        vectors = Path(tmp) / "texts.npz"
        np.savez(vectors, texts=np.array(texts), vectors=load_default_embedder().embed(texts))
        log(f"copying the store twice per side ({len(others) + 1}) and opening the copies")
        sources: dict[str, Path | None] = {"new": None, **others}
        sides = [
            Side(name, src, args.db, vectors, Path(tmp), args.stages and src is None)
            for name, src in sources.items()
        ]
        for side in sides:
            side.ready()
        run(texts, sides, args.warmup)
        for side in sides:
            result[side.name] = side.finish()
    result["machine"] = machine()
    print_table(result)
    name = f"remember-{result['size']}.json"
    log(f"wrote {write_json(name, result)}")


if __name__ == "__main__":
    main()
