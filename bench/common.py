"""Helpers shared by the benchmark scripts: timing statistics, embedder wrappers, output."""

from __future__ import annotations

import json
import os
import platform
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

import lethe
from lethe import Lethe
from lethe.embed import Embedder, Vectors, load_default_embedder

BENCH_DIR = Path(__file__).resolve().parent
OUT_DIR = BENCH_DIR / "out"

if os.environ.get("OPENBLAS_THREAD_TIMEOUT") is None:
    # lethe's own processes set this before numpy loads OpenBLAS (lethe/__init__.py); a script
    # here has loaded numpy first, so it starts again with the same setting to measure the same.
    os.environ["OPENBLAS_THREAD_TIMEOUT"] = "4"
    os.execv(sys.executable, [sys.executable, *sys.argv])


def log(message: str) -> None:
    """Progress goes to stderr so stdout stays the figures."""
    print(message, file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def wait_for_port(port: int, *, within: float = 60.0, poll: float = 0.002) -> None:
    """Return once a server listens on `port` (polled every `poll` s), raise after `within`."""
    deadline = time.monotonic() + within
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(poll)


def stats_ms(seconds: Sequence[float]) -> dict[str, float]:
    """p50 / p95 / mean / min / max in milliseconds of a list of durations in seconds."""
    ms = np.asarray(seconds, dtype=np.float64) * 1000.0
    return {
        "n": len(ms),
        "p50_ms": round(float(np.percentile(ms, 50)), 3),
        "p95_ms": round(float(np.percentile(ms, 95)), 3),
        "mean_ms": round(float(ms.mean()), 3),
        "min_ms": round(float(ms.min()), 3),
        "max_ms": round(float(ms.max()), 3),
    }


def time_each(fn: Callable[[Any], object], items: Sequence[Any]) -> list[float]:
    """Call `fn` on every item and return each call's wall time in seconds."""
    durations: list[float] = []
    for item in items:
        start = time.perf_counter()
        fn(item)
        durations.append(time.perf_counter() - start)
    return durations


def machine() -> dict[str, Any]:
    """What the figures were measured on; the load average shows how busy the box was."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg() if hasattr(os, "getloadavg") else (0.0, 0.0, 0.0)
    return {
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "lethe": lethe.__version__,
        "source_digest": source_digest(),
        "loadavg_1_5_15": [round(x, 2) for x in load],
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def source_digest() -> str:
    """A short hash of the lethe sources, so a run can tell whether the code moved under it
    (the in-process benchmarks use the code loaded at start; spawned processes load it anew)."""
    import hashlib

    root = Path(lethe.__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def write_json(name: str, data: dict[str, Any], out_dir: Path = OUT_DIR) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / name
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


class TimedEmbedder:
    """Wraps an embedder and accumulates the wall time spent inside `embed`.

    Used during import so the run itself says how much of its time was the encoder and how
    much was everything else (validation, neighbour search, SQLite, audit) - a split that a
    noisy machine cannot skew the way it skews two separate runs.
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.texts = 0
        self.calls = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        start = time.perf_counter()
        try:
            return self.inner.embed(texts)
        finally:
            self.seconds += time.perf_counter() - start
            self.texts += len(texts)
            self.calls += 1

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


class CachedEmbedder:
    """Answers `embed` from precomputed vectors, so recall can be timed without the encoder.

    Everything else in `Lethe.recall` runs unchanged. A text that was not precomputed falls
    through to the real encoder and is counted, so a benchmark can check it never happened.
    """

    def __init__(self, inner: Embedder, vectors: dict[str, Vectors]) -> None:
        self.inner = inner
        self.vectors = vectors
        self.misses = 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        if all(t in self.vectors for t in texts):
            return np.stack([self.vectors[t] for t in texts]).astype(np.float32, copy=False)
        self.misses += 1
        return self.inner.embed(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


def build_db(path: Path, size: int, seed: int, embedder: Embedder) -> dict[str, Any]:
    """Fill a fresh database with the benchmark corpus (for scripts run without --db)."""
    import corpus

    log(f"building a {size:,}-memory database at {path} (this embeds every memory)")
    done = 0
    start = time.perf_counter()

    def progress(n: int) -> None:
        nonlocal done
        done += n
        if done % max(1, size // 10) < n:
            log(f"  {done:,}/{size:,} ({done / (time.perf_counter() - start):.0f}/s)")

    with Lethe.open(path, embedder=embedder) as mem:
        report = mem.remember_many(corpus.drafts(size, seed), progress=progress)
    return report.model_dump()


@contextmanager
def store_for(db: Path | None, size: int, seed: int = 0) -> Iterator[Path]:
    """The store a script measures: the one given with --db, else one built for the run in a
    temporary folder (slow: it embeds every memory) and removed afterwards."""
    if db is not None:
        yield db
        return
    with tempfile.TemporaryDirectory(prefix="lethe-bench-") as tmp:
        built = Path(tmp) / "store.db"
        build_db(built, size, seed, load_default_embedder())
        yield built


def copy_store(db: Path, to: Path) -> Path:
    """A copy of the store and its index snapshot under another name; the original is only
    read (SQLite's -shm is rebuilt by the first open)."""
    to.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(db, to)
    for path in db.parent.glob(f"{db.name}*"):
        tail = path.name[len(db.name) :]
        if tail and tail != "-shm":
            shutil.copyfile(path, to.with_name(to.name + tail))
    return to


def memory_count(path: Path) -> int:
    import sqlite3

    conn = sqlite3.connect(path)
    try:
        return int(
            conn.execute("SELECT count(*) FROM memories WHERE status = 'active'").fetchone()[0]
        )
    finally:
        conn.close()
