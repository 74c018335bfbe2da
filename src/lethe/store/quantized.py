"""Exact top-k over a large matrix, read mostly as int8.

At 100k memories a float32 matrix-vector product reads 150 MB and is bound by memory
bandwidth. Each row also has an int8 copy (a quarter of the bytes) with its scale and the
norm of its rounding error, so a SIMD int8 dot product (simsimd) gives every score to within
a known bound. The rows whose upper bound reaches the k-th best lower bound — k plus a few
hundred at most — are then scored in float32. Every row of the true top k is among them
(its exact score is at least the k-th best exact score, which is at least the k-th best lower
bound), so the answer is the exact one, not an approximation.
"""

from __future__ import annotations

import itertools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]
Positions = npt.NDArray[np.intp]

_CHUNK = 8192
_SPLIT_MIN = 32_768
"""Fewest rows a thread of the int8 pass takes: below, starting it costs more than it saves."""
_SPLITS_PER_THREAD = 4
"""The pass is cut into this many parts per thread, taken by whichever thread is free: a
core that the full-text query (run beside it) holds for a while then costs that core's
parts, not half the pass (one thread's long tail)."""
_pools: dict[int, ThreadPoolExecutor] = {}
_pools_lock = threading.Lock()


def _after_fork_in_child() -> None:
    """A forked child inherits the pools without their threads (work handed to them would
    never run) and maybe the lock held: it starts afresh."""
    global _pools_lock
    _pools.clear()
    _pools_lock = threading.Lock()


os.register_at_fork(after_in_child=_after_fork_in_child)
_ROUNDING = 1e-5
"""Added to every bound: float32 arithmetic in the bound itself and in the exact scores."""


@dataclass(frozen=True)
class Codes:
    """int8 rows with what it takes to bound their error."""

    codes: I8
    scale: F32
    """Per row: value of one int8 step."""
    error: F32
    """Per row: norm of (row - codes * scale)."""
    norm: F32
    """Per row: norm of the row."""

    @classmethod
    def zeros(cls, rows: int, dim: int) -> Codes:
        """The codes of `rows` zero vectors (unit scale, no error)."""
        return cls(
            np.zeros((rows, dim), dtype=np.int8),
            np.ones(rows, dtype=np.float32),
            np.zeros(rows, dtype=np.float32),
            np.zeros(rows, dtype=np.float32),
        )


def quantize(rows: F32) -> Codes:
    """Symmetric per-row int8 codes (the row's largest magnitude maps to 127)."""
    count = len(rows)
    codes = np.empty(rows.shape, dtype=np.int8)
    scale = np.empty(count, dtype=np.float32)
    error = np.empty(count, dtype=np.float32)
    norm = np.empty(count, dtype=np.float32)
    for start in range(0, count, _CHUNK):
        part = np.asarray(rows[start : start + _CHUNK], dtype=np.float32)
        peak = np.abs(part).max(axis=1) if part.shape[1] else np.zeros(len(part), np.float32)
        step = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
        q = np.clip(np.rint(part / step[:, None]), -127, 127).astype(np.int8)
        end = start + len(part)
        codes[start:end] = q
        scale[start:end] = step
        error[start:end] = np.linalg.norm(part - q * step[:, None], axis=1)
        norm[start:end] = np.linalg.norm(part, axis=1)
    return Codes(codes, scale, error, norm)


def top_k(
    matrix: F32,
    codes: Codes,
    query: F32,
    k: int,
    excluded: npt.NDArray[np.bool_] | Positions,
    *,
    threads: int = 1,
) -> tuple[Positions, F32]:
    """Positions of the k best rows by exact float32 dot product, best first, with their
    scores. `excluded` (a mask, or positions) never appears; k must not exceed the rows left.
    `threads`: how many threads the int8 pass may use (lethe.common.threads)."""
    used = len(matrix)
    query = np.ascontiguousarray(query, dtype=np.float32)
    query_codes = quantize(query[None, :])
    q_norm = float(np.linalg.norm(query_codes.codes[0] * float(query_codes.scale[0])))
    bound = _Bound(query_codes, q_norm, codes, k)
    parts = min(threads * _SPLITS_PER_THREAD, used // _SPLIT_MIN)
    if threads <= 1 or parts < 2:
        pieces = [bound.part(0, used, excluded)]
    else:
        edges = np.linspace(0, used, parts + 1).astype(int).tolist()
        spans = list(itertools.pairwise(edges))
        if excluded.dtype == np.bool_:
            cut = [excluded[start:end] for start, end in spans]
        else:  # positions: each part gets its own, counted from its start
            ordered = np.sort(excluded)
            at = np.searchsorted(ordered, edges).tolist()
            cut = [ordered[at[n] : at[n + 1]] - start for n, (start, _) in enumerate(spans)]

        def part(n: int) -> tuple[tuple[int, F32], F32]:
            return bound.part(spans[n][0], spans[n][1], cut[n])

        try:
            pieces = list(_pool(threads).map(part, range(len(spans))))
        except RuntimeError:  # the interpreter is exiting: pools take no more work
            pieces = [part(n) for n in range(len(spans))]
    # The k-th best lower bound over all rows is among each part's k best.
    best_lower = np.concatenate([lower for _, lower in pieces])
    threshold = np.partition(best_lower, len(best_lower) - k)[len(best_lower) - k]
    candidates = np.concatenate(
        [np.flatnonzero(upper >= threshold) + start for (start, upper), _ in pieces]
    )
    exact = matrix[candidates] @ query
    best = np.argsort(-exact, kind="stable")[:k]
    return candidates[best], exact[best]


@dataclass(frozen=True)
class _Bound:
    """Bounds of every row's score from the int8 codes (module docstring)."""

    query_codes: Codes
    q_norm: float
    codes: Codes
    k: int

    def part(
        self, start: int, end: int, excluded: npt.NDArray[np.bool_] | Positions
    ) -> tuple[tuple[int, F32], F32]:
        """Rows start..end: (start, their upper bounds) and their k best lower bounds;
        `excluded` is a mask of these rows or positions counted from `start`."""
        import simsimd

        c = self.codes
        raw = simsimd.cdist(
            self.query_codes.codes,
            c.codes[start:end],
            metric="dot",
            dtype="int8",
            out_dtype="float32",
            threads=1,
        )
        approx = np.asarray(raw, dtype=np.float32)[0]
        approx *= c.scale[start:end] * float(self.query_codes.scale[0])
        # |q.x - q'.x'| <= |q'| |x - x'| + |q - q'| |x|
        slack = c.error[start:end] * self.q_norm
        slack += c.norm[start:end] * float(self.query_codes.error[0])
        slack += _ROUNDING
        approx[excluded] = -np.inf
        lower = approx - slack
        approx += slack
        rows = end - start
        if rows > self.k:
            lower = np.partition(lower, rows - self.k)[rows - self.k :]
        return (start, approx), lower


def _pool(threads: int) -> ThreadPoolExecutor:
    with _pools_lock:
        pool = _pools.get(threads)
        if pool is None:
            pool = _pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix="lethe-int8")
        return pool
