"""The encoder alone: the numpy forward pass (lethe's encoder before ONNX Runtime, now the
tests' oracle, tests/numpy_minilm.py) against the same model on ONNX Runtime.

For each encoder, on the same texts:

- one sentence at a time (a recall query): p50/p95 over `--queries` corpus queries;
- throughput: sentences per second embedding 32 and 256 corpus memories in one call;
- (ONNX only) import-sized calls of 64 memories at several padded-token budgets per forward
  pass, and as one padded batch: the choice of sentence.TOKEN_BUDGET;
- one sentence at a time again while two busy processes load the machine (each a numpy
  matmul loop with OPENBLAS_NUM_THREADS=2, killed afterwards): what a recall sees when the
  box is shared;
- cold start in a fresh process: import, load, first query (median of `--cold` runs) and
  peak memory;
- the largest absolute difference between its vectors and the numpy forward pass's, over
  every text used.

Each encoder runs in a process of its own, one after the other: in one process, the threads
one encoder leaves spinning (onnxruntime's, OpenBLAS's) would slow whichever runs next and
blur exactly what is measured. Variants of the ONNX encoder show the choices made in
onnx_encoder.py: idle threads spinning or not, one thread against the default.

    python bench/bench_encoder.py [--queries 200] [--cold 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import corpus
import numpy as np
from common import log, machine, stats_ms, write_json

from lethe.common.threads import default_threads
from lethe.embed import Embedder, OnnxEmbedder, find_model_dir

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests' oracle, unshipped
from tests.numpy_minilm import NumpyMiniLM

ROOT = Path(__file__).resolve().parent.parent

ENCODERS = ("numpy", "onnx", "onnx_spin", "onnx_1thread", "onnx_int8")
BUSY = "import numpy as np\na = np.random.rand(512, 512)\nwhile True:\n    a @ a\n"


def make(name: str, model_dir: Path) -> Embedder:
    if name == "numpy":
        return NumpyMiniLM(model_dir)
    if name == "onnx":
        return OnnxEmbedder(model_dir)
    if name == "onnx_spin":
        return OnnxEmbedder(model_dir, spin=True)
    if name == "onnx_1thread":
        return OnnxEmbedder(model_dir, threads=1)
    if name == "onnx_int8":
        return int8_encoder(model_dir)
    raise ValueError(name)


def int8_encoder(model_dir: Path) -> Embedder:
    """lethe's graph with its weights quantized to int8 per output channel, activations
    quantized dynamically (onnxruntime.quantization): the int8 model issue 26 asks about,
    measured here and not offered (docs/benchmarks.md)."""
    import hashlib

    from onnxruntime.quantization import QuantType, quantize_dynamic

    from lethe.embed.onnx_cache import cached_onnx

    folder = Path(tempfile.mkdtemp(prefix="lethe-int8-"))
    target = folder / "model-int8.onnx"
    quantize_dynamic(cached_onnx(model_dir), target, per_channel=True, weight_type=QuantType.QInt8)
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    return OnnxEmbedder(model_dir, onnx_path=target, onnx_sha256=digest)


def one_at_a_time(embedder: Embedder, queries: list[str]) -> list[float]:
    times = []
    for query in queries:
        start = time.perf_counter()
        embedder.embed([query])
        times.append(time.perf_counter() - start)
    return times


def throughput(embedder: Embedder, texts: list[str], repeats: int = 3) -> float:
    """Sentences per second embedding `texts` in one call (best of `repeats`)."""
    best = min(_timed(embedder, texts) for _ in range(repeats))
    return len(texts) / best


def _timed(embedder: Embedder, texts: list[str]) -> float:
    start = time.perf_counter()
    embedder.embed(texts)
    return time.perf_counter() - start


@contextmanager
def busy_machine(processes: int = 2) -> Iterator[None]:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    procs = [subprocess.Popen([sys.executable, "-c", BUSY], env=env) for _ in range(processes)]
    try:
        time.sleep(1.0)  # let them reach their loop
        yield
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()


def texts(n_queries: int) -> tuple[list[str], list[str]]:
    return corpus.queries(n_queries), [s.content for s in corpus.generate(256, seed=3)]


def worker(name: str, n_queries: int, vectors_out: Path) -> dict[str, Any]:
    """Everything measured on one encoder, in this process only."""
    queries, memories = texts(n_queries)
    start = time.perf_counter()
    embedder = make(name, find_model_dir())
    load_s = time.perf_counter() - start
    embedder.embed(queries[:5])  # warm-up
    idle = one_at_a_time(embedder, queries)
    rates = {
        f"batch_{size}_per_s": round(throughput(embedder, memories[:size]), 1) for size in (32, 256)
    }
    groups = token_budgets(embedder) if name == "onnx" else {}
    with busy_machine():
        busy = one_at_a_time(embedder, queries)
    np.save(vectors_out, embedder.embed(queries + memories))
    return {
        "load_s": round(load_s, 3),
        "one_sentence_idle": stats_ms(idle),
        "one_sentence_busy": stats_ms(busy),
        **rates,
        **groups,
        "loadavg_1_after": round(os.getloadavg()[0], 2),
    }


BUDGETS = (256, 512, 1024, 2048, 4096)


def token_budgets(embedder: Embedder) -> dict[str, Any]:
    """Import-sized calls (64 corpus memories each, 1,024 in all) at several token budgets
    per forward pass (sentence.TOKEN_BUDGET), and as one padded batch of 64 (lethe before
    2026-11-28): texts per second, best of two."""
    from lethe.embed import sentence

    memories = [d.content for d in corpus.generate(1024, seed=5)]
    default = sentence.TOKEN_BUDGET
    rates: dict[str, float] = {}
    try:
        for budget in (*BUDGETS, 10**9):
            sentence.TOKEN_BUDGET = budget
            best = min(
                sum(_timed(embedder, memories[i : i + 64]) for i in range(0, 1024, 64))
                for _ in range(2)
            )
            rates["one padded batch" if budget == 10**9 else str(budget)] = round(1024 / best, 1)
    finally:
        sentence.TOKEN_BUDGET = default
    return {"calls_of_64_per_s_by_token_budget": rates}


COLD = """
import sys, time
start = time.perf_counter()
from pathlib import Path
sys.path.insert(0, sys.argv[3])
if sys.argv[1] == "numpy":
    from tests.numpy_minilm import NumpyMiniLM as cls
else:
    from lethe.embed import OnnxEmbedder as cls
imported = time.perf_counter()
embedder = cls(Path(sys.argv[2]))
loaded = time.perf_counter()
embedder.embed(["Where did the user's sister move to?"])
done = time.perf_counter()
status = Path("/proc/self/status").read_text()
hwm = next((line.split()[1] for line in status.splitlines() if line.startswith("VmHWM")), "0")
print(imported - start, loaded - imported, done - loaded, int(hwm) / 1024)
"""


def cold_start(name: str, model_dir: Path, runs: int) -> dict[str, float]:
    """Milliseconds in a fresh process to import lethe's encoders (numpy and tokenizers
    included), load one (onnxruntime's import included: it is imported there), and embed one
    query, and the process's peak memory; the ONNX file is already in the cache."""
    rows = []
    for _ in range(runs + 1):
        out = subprocess.run(
            [sys.executable, "-c", COLD, name, str(model_dir), str(ROOT)],
            check=True,
            capture_output=True,
            text=True,
            timeout=300,
        ).stdout
        rows.append([float(x) for x in out.split()])
    rows = rows[1:]  # the first run warms the page cache
    keys = ("import_ms", "load_ms", "first_embed_ms")
    result = {k: round(statistics.median(r[i] for r in rows) * 1000, 1) for i, k in enumerate(keys)}
    result["total_ms"] = round(statistics.median(sum(r[:3]) for r in rows) * 1000, 1)
    result["peak_rss_mb"] = round(statistics.median(r[3] for r in rows), 1)
    return result


def run(n_queries: int, cold_runs: int) -> dict[str, Any]:
    model_dir = find_model_dir()
    OnnxEmbedder(model_dir)  # builds the ONNX file into the cache if it is not there yet
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="lethe-bench-encoder-") as tmp:
        for name in ENCODERS:
            log(f"{name}: {n_queries} single queries idle, batches of 32 and 256, busy queries")
            vectors = Path(tmp) / f"{name}.npy"
            command = [sys.executable, __file__, "--worker", name, "--queries", str(n_queries)]
            out = subprocess.run(
                [*command, "--vectors", str(vectors)],
                check=True,
                capture_output=True,
                text=True,
                timeout=1800,
            ).stdout
            results[name] = json.loads(out)
        reference = np.load(Path(tmp) / "numpy.npy")
        for name in ENCODERS:
            got = np.load(Path(tmp) / f"{name}.npy")
            results[name]["max_abs_diff_vs_numpy"] = float(np.abs(got - reference).max())
            results[name] |= agreement(got, reference, n_queries)
    for name in ("numpy", "onnx"):
        log(f"cold start, {name} x{cold_runs}")
        results[name]["cold_start"] = cold_start(name, model_dir, cold_runs)
    return {"threads": default_threads(), "queries": n_queries, "encoders": results}


def agreement(got: np.ndarray, reference: np.ndarray, n_queries: int) -> dict[str, float]:
    """How far an encoder's vectors are from the reference's: the median cosine between the
    two vectors of a text, and, for each query, the share of its 10 nearest memories (of the
    256) that are the reference's 10 nearest, averaged."""
    cosines = np.sum(got * reference, axis=1)
    cosines /= np.linalg.norm(got, axis=1) * np.linalg.norm(reference, axis=1)

    def nearest(vectors: np.ndarray) -> np.ndarray:
        scores = vectors[:n_queries] @ vectors[n_queries:].T
        return np.argsort(-scores, axis=1, kind="stable")[:, :10]

    mine, theirs = nearest(got), nearest(reference)
    shared = [len(set(a) & set(b)) / 10 for a, b in zip(mine, theirs, strict=True)]
    return {
        "median_cosine_vs_numpy": round(float(np.median(cosines)), 5),
        "top10_shared_vs_numpy": round(float(np.mean(shared)), 4),
    }


def print_result(r: dict[str, Any]) -> None:
    print(f"encoder, {r['queries']} one-sentence queries, ONNX threads {r['threads']}:")
    print(
        f"  {'':13s} {'idle p50':>9s} {'idle p95':>9s} {'busy p50':>9s} {'busy p95':>9s} "
        f"{'b32/s':>7s} {'b256/s':>7s} {'max diff':>9s} {'cosine':>7s} {'top10':>6s}"
    )
    for name, e in r["encoders"].items():
        idle, busy = e["one_sentence_idle"], e["one_sentence_busy"]
        print(
            f"  {name:13s} {idle['p50_ms']:9.2f} {idle['p95_ms']:9.2f} {busy['p50_ms']:9.2f} "
            f"{busy['p95_ms']:9.2f} {e['batch_32_per_s']:7.0f} {e['batch_256_per_s']:7.0f} "
            f"{e['max_abs_diff_vs_numpy']:9.1e} {e['median_cosine_vs_numpy']:7.4f} "
            f"{e['top10_shared_vs_numpy']:6.3f}"
        )
    print(
        "  (milliseconds; b32/s and b256/s: sentences per second in one call of 32 / 256; "
        "cosine: median against numpy's vector of the same text; top10: share of each "
        "query's 10 nearest memories that are numpy's)"
    )
    for name, e in r["encoders"].items():
        if "calls_of_64_per_s_by_token_budget" in e:
            shown = ", ".join(
                f"{k}: {v:.0f}/s" for k, v in e["calls_of_64_per_s_by_token_budget"].items()
            )
            print(f"  {name}, calls of 64 memories by padded tokens per pass: {shown}")
    for name, e in r["encoders"].items():
        if "cold_start" in e:
            c = e["cold_start"]
            print(
                f"  cold start {name:6s}: import {c['import_ms']:.0f} ms, load {c['load_ms']:.0f} "
                f"ms, first query {c['first_embed_ms']:.0f} ms, total {c['total_ms']:.0f} ms, "
                f"peak RSS {c['peak_rss_mb']:.0f} MB"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--queries", type=int, default=200, help="one-sentence queries (200)")
    parser.add_argument("--cold", type=int, default=5, help="fresh processes per encoder (5)")
    parser.add_argument("--json", type=Path, default=Path("encoder.json"), help="output name")
    parser.add_argument("--worker", choices=ENCODERS, help=argparse.SUPPRESS)
    parser.add_argument("--vectors", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.queries, args.vectors)))
        return
    result = run(args.queries, args.cold)
    result["machine"] = machine()
    print_result(result)
    log(f"wrote {write_json(args.json.name, result)}")


if __name__ == "__main__":
    main()
