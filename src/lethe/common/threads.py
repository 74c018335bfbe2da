"""How many threads lethe's own computing may use: one setting (`threads`, LETHE_THREADS)
for the encoder (ONNX Runtime's intra-op pool) and the int8 vector pass (store/quantized.py).

numpy's BLAS (OpenBLAS) gets the same number, set by the entry points before numpy loads
(`tune_blas`, called from lethe.launch), so that no step of lethe runs more busy threads than
this setting says. Importing lethe as a library sets nothing: a program that embeds it owns its
process's environment."""

from __future__ import annotations

import os

MAX_THREADS = 4
"""The default's cap. A one-sentence query is a chain of small operators that cannot keep
many threads busy, and each thread more is a core taken from the rest of the process. Only
one and two threads were measured (bench/bench_encoder.py, bench/bench_million.py, on 2
cores); four is a guess to revisit."""


def default_threads() -> int:
    """The cores this process may run on, at most MAX_THREADS."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(MAX_THREADS, cores))


def resolve(threads: int | None) -> int:
    """The setting's value, or the default where it is unset."""
    return default_threads() if threads is None else threads


def blas_threads() -> int:
    """OpenBLAS's threads: LETHE_THREADS where it is a valid count, else the default. Read
    from the environment only, before numpy loads: the settings file comes later."""
    raw = os.environ.get("LETHE_THREADS", "").strip()
    if raw.isdigit() and 1 <= int(raw) <= 256:
        return int(raw)
    return default_threads()


def tune_blas() -> None:
    """Set OpenBLAS's thread count and spin timeout for this process and its children, unless
    already set. Only an entry point calls it, before numpy loads (OpenBLAS reads them then).

    OpenBLAS keeps its worker threads spinning for about 0.1 s after every matrix product; on
    a small machine they take the cores the next step needs (on 2 cores: query embedding
    9.9 -> 7.2 ms, recall without it 12.9 -> 6.4 ms p50 at 100k). With a short timeout they
    sleep at once. And it starts one thread per core: capped here like lethe's own pools."""
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", str(blas_threads()))
