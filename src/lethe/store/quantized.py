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

import os
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
I8 = npt.NDArray[np.int8]
Positions = npt.NDArray[np.intp]

_CHUNK = 8192
_THREADS = max(1, min(4, (os.cpu_count() or 1) - 1))
"""The int8 pass is split across cores (it is compute-bound on AVX2: 4.3 ms on one core at
100k x 384, 2.3 ms on two), leaving one for the full-text query that runs alongside it."""
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
    matrix: F32, codes: Codes, query: F32, k: int, excluded: npt.NDArray[np.bool_] | Positions
) -> tuple[Positions, F32]:
    """Positions of the k best rows by exact float32 dot product, best first, with their
    scores. `excluded` (a mask, or positions) never appears; k must not exceed the rows left.
    """
    import simsimd

    used = len(matrix)
    query = np.ascontiguousarray(query, dtype=np.float32)
    query_codes = quantize(query[None, :])
    q_scale = float(query_codes.scale[0])
    raw = simsimd.cdist(
        query_codes.codes,
        codes.codes[:used],
        metric="dot",
        dtype="int8",
        out_dtype="float32",
        threads=_THREADS,
    )
    approx = np.asarray(raw, dtype=np.float32)[0] * (codes.scale[:used] * q_scale)
    # |q.x - q'.x'| <= |q'| |x - x'| + |q - q'| |x|
    q_norm = float(np.linalg.norm(query_codes.codes[0] * q_scale))
    slack = codes.error[:used] * q_norm
    slack += codes.norm[:used] * float(query_codes.error[0])
    slack += _ROUNDING
    approx[excluded] = -np.inf
    lower = approx - slack
    threshold = np.partition(lower, used - k)[used - k]
    candidates = np.flatnonzero(approx + slack >= threshold)
    exact = matrix[candidates] @ query
    best = np.argsort(-exact, kind="stable")[:k]
    return candidates[best], exact[best]
