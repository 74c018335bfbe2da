"""Exact top-k over a large matrix, read mostly as int8.

At 100k memories a float32 matrix-vector product reads 150 MB and is bound by memory
bandwidth. Each row also has an int8 copy (a quarter of the bytes) with its scale and the
norm of its rounding error, so a SIMD int8 dot product (simsimd) gives every score to within
a known bound. The rows whose upper bound reaches the k-th best lower bound of some rows
near the top — k plus a few hundred at most — are then scored in float32. Every row of the
true top k is among them (its exact score is at least the k-th best exact score, which is at
least the k-th best of any rows' lower bounds), so the answer is the exact one, not an
approximation.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]
Positions = npt.NDArray[np.intp]

_CHUNK = 8192
_SPLIT_MIN = 131_072
"""Fewest rows a part of the int8 pass holds, so a pass is split from 262,144 rows on. Recall
runs the full-text query beside the pass, which leaves no core idle for a helper at 100k
memories: there the split pass took 7.8 ms p50 against 6.4 ms on the caller alone (vector
search alone, load ~7 on 2 cores, taking turns), and recall 22.9 against 19.7 ms."""
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
_RELATIVE = 2.0**-16
"""The part of a score the pre-filter of `reaching` leaves to float32 rounding (a few hundred
ulps: the scores there pass through a product and a division)."""


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
        step = (peak / 127.0).astype(np.float32)
        # A row of nothing, or one so small its step underflows: codes of zeros, and the
        # whole row is the error its bound carries.
        step[~(step > 0)] = 1.0
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
        cut: list[npt.NDArray[np.bool_] | Positions]
        if excluded.dtype == np.bool_:
            cut = [excluded[start:end] for start, end in spans]
        else:  # positions: each part gets its own, counted from its start
            ordered = np.sort(excluded)
            at = np.searchsorted(ordered, edges).tolist()
            cut = [ordered[at[n] : at[n + 1]] - start for n, (start, _) in enumerate(spans)]

        pieces = _Parts(bound, spans, cut).run(threads)
    # Among any k rows the least lower bound is at most the k-th best exact score, so the
    # k-th best of the lower bounds the parts kept is a threshold no row of the top k is under.
    best_lower = np.concatenate([piece.lower for piece in pieces])
    threshold = float(np.partition(best_lower, len(best_lower) - k)[len(best_lower) - k])
    candidates = np.concatenate([bound.reaching(piece, threshold) for piece in pieces])
    exact = matrix[candidates] @ query
    best = np.argsort(-exact, kind="stable")[:k]
    return candidates[best], exact[best]


class _Parts:
    """The parts of one pass, taken in turn by the caller and `threads - 1` pool threads.

    The caller works too instead of waiting, and never waits long for a helper: on a machine
    busy with other work a thread can be woken, or put back on a core, milliseconds late
    (splitting the pass at 100k memories made it slower, 4.2 -> 7.4 ms p50 under a load of
    6 on 2 cores, when the caller waited for its helper). A helper not started by the time
    every part is taken is cancelled; a part a helper still holds once the caller has had
    as long as its own slowest part to finish it is computed again by the caller (a part is
    a pure function of the arrays it reads, so either result is the same one)."""

    def __init__(
        self,
        bound: _Bound,
        spans: list[tuple[int, int]],
        cut: list[npt.NDArray[np.bool_] | Positions],
    ) -> None:
        self._bound = bound
        self._spans = spans
        self._cut = cut
        self._done: list[_Part | None] = [None] * len(spans)
        self._ready = [threading.Event() for _ in spans]
        self._next = 0
        self._lock = threading.Lock()

    def run(self, threads: int) -> list[_Part]:
        helpers = []
        try:
            pool = _pool(threads - 1)
            helpers = [pool.submit(self._work) for _ in range(threads - 1)]
        except RuntimeError:  # the interpreter is exiting: pools take no more work
            pass
        grace = self._work()
        for helper in helpers:
            helper.cancel()
        deadline = time.perf_counter() + grace
        pieces = []
        for n, ready in enumerate(self._ready):
            piece = self._done[n] if ready.wait(max(0.0, deadline - time.perf_counter())) else None
            pieces.append(self._compute(n) if piece is None else piece)
        return pieces

    def _work(self) -> float:
        """Take parts until none is left; the longest one this thread took, in seconds."""
        longest = 0.0
        while True:
            with self._lock:
                n = self._next
                self._next += 1
            if n >= len(self._spans):
                return longest
            start = time.perf_counter()
            self._done[n] = self._compute(n)
            self._ready[n].set()
            longest = max(longest, time.perf_counter() - start)

    def _compute(self, n: int) -> _Part:
        start, end = self._spans[n]
        return self._bound.part(start, end, self._cut[n])


@dataclass(frozen=True)
class _Part:
    """One part's int8 pass: its rows' scores before the query's scale, and the lower bounds
    of k of its rows (its k best, or k near them)."""

    start: int
    scaled: F32
    """Per row: int8 dot product times the row's scale (-inf where excluded)."""
    lower: F32
    widest: float
    """No row of the part has a wider error bound than this."""


@dataclass(frozen=True)
class _Bound:
    """Bounds of every row's score from the int8 codes (module docstring).

    A row's score is `scaled * q_scale` within `slack` = its error times the query's norm plus
    its norm times the query's error. Ordering a million lower bounds to find the k-th best
    took longer than the int8 pass itself, so a part orders only the rows whose scaled score
    reaches the k-th best of an even sample of the part (at least k rows, a few thousand at
    most): their k best lower bounds are k rows' lower bounds, all the threshold needs."""

    query_codes: Codes
    q_norm: float
    codes: Codes
    k: int

    def part(self, start: int, end: int, excluded: npt.NDArray[np.bool_] | Positions) -> _Part:
        """Rows start..end; `excluded` is a mask of these rows or positions counted from
        `start`."""
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
        scaled = np.asarray(raw, dtype=np.float32)[0]
        np.multiply(scaled, c.scale[start:end], out=scaled)
        scaled[excluded] = -np.inf
        rows = end - start
        stride = math.isqrt(rows // max(self.k, 1))
        near: Positions | None = None
        if stride > 1:
            sample = scaled[::stride]
            if len(sample) > self.k:
                cut = np.partition(sample, len(sample) - self.k)[len(sample) - self.k]
                if cut > -np.inf:
                    near = np.flatnonzero(scaled >= cut)
        lower = self._lower(start, scaled, near)
        if len(lower) > self.k:
            lower = np.partition(lower, len(lower) - self.k)[len(lower) - self.k :]
        errors, norms = c.error[start:end], c.norm[start:end]
        widest = float(errors.max()) * self.q_norm + float(norms.max()) * self.q_error
        return _Part(start, scaled, lower, widest + _ROUNDING)

    @property
    def q_scale(self) -> float:
        return float(self.query_codes.scale[0])

    @property
    def q_error(self) -> float:
        return float(self.query_codes.error[0])

    def _lower(self, start: int, scaled: F32, rows: Positions | None) -> F32:
        """Lower bounds of these rows of a part (all of them when None)."""
        c = self.codes
        if rows is None:
            end = start + len(scaled)
            return scaled * self.q_scale - self._slack(c.error[start:end], c.norm[start:end])
        at = rows + start
        return scaled[rows] * self.q_scale - self._slack(c.error[at], c.norm[at])

    def _slack(self, errors: F32, norms: F32) -> F32:
        # |q.x - q'.x'| <= |q'| |x - x'| + |q - q'| |x|
        slack = errors * self.q_norm
        slack += norms * self.q_error
        slack += _ROUNDING
        return slack

    def reaching(self, piece: _Part, threshold: float) -> Positions:
        """The part's rows (positions in the matrix) whose upper bound reaches `threshold`:
        first those the part's widest bound lets through, then each by its own bound."""
        # Divided with a margin: a row let through here is only checked once more. The margin
        # holds float32 rounding too, which grows with the scores (1e-5 alone is below one
        # float32 step of a score in the thousands).
        floor = (threshold - 2 * piece.widest - abs(threshold) * _RELATIVE) / self.q_scale
        near = np.flatnonzero(piece.scaled >= floor)
        where = near + piece.start
        upper = piece.scaled[near] * self.q_scale
        upper += self._slack(self.codes.error[where], self.codes.norm[where])
        return where[upper >= threshold]


def _pool(threads: int) -> ThreadPoolExecutor:
    with _pools_lock:
        pool = _pools.get(threads)
        if pool is None:
            pool = _pools[threads] = ThreadPoolExecutor(threads, thread_name_prefix="lethe-int8")
        return pool
