"""Near-duplicate pairs among unit vectors: every pair with cosine >= a threshold.

All pairs of 100k vectors is 5e9 dot products, about a minute of matrix products on two
cores. Up to `EXACT_LIMIT` vectors the search is exact (blocked products over the upper
triangle). Above it, the vectors are partitioned around centroids and each vector is placed
in the buckets of its `PROBES` nearest centroids; only pairs sharing a bucket are compared.
Two vectors at cosine >= 0.9 are 26 degrees apart at most, so they almost always share one of
their three nearest centroids; `bench/bench_consolidate.py` measures that recall against the
exact search.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
Pairs = tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.float32]]

EXACT_LIMIT = 20_000
BUCKET = 256
"""Mean vectors per centroid: sets how many centroids there are."""
PROBES = 3
BLOCK = 2048


def near_duplicates(matrix: F32, threshold: float, *, exact_limit: int = EXACT_LIMIT) -> Pairs:
    """Index pairs (i < j) with cosine >= threshold, and their cosines, most similar first."""
    n = len(matrix)
    if n < 2:
        return _pack([], [], [])
    if n <= exact_limit:
        rows, cols, sims = _exact(matrix, np.arange(n), threshold)
    else:
        rows, cols, sims = _partitioned(matrix, threshold)
    return _pack(rows, cols, sims)


def _exact(matrix: F32, members: npt.NDArray[np.intp], threshold: float) -> tuple[list, list, list]:  # type: ignore[type-arg]
    """Every pair among `members` (indices into matrix), in row blocks of the upper triangle."""
    rows: list[npt.NDArray[np.intp]] = []
    cols: list[npt.NDArray[np.intp]] = []
    sims: list[npt.NDArray[np.float32]] = []
    vectors = matrix[members]
    for start in range(0, len(members), BLOCK):
        block = vectors[start : start + BLOCK] @ vectors[start:].T
        # Keep only j > i: within the block's own square, drop the diagonal and below.
        size = min(BLOCK, len(members) - start)
        block[:, :size][np.tril_indices(size)] = -np.inf
        i, j = np.nonzero(block >= threshold)
        rows.append(members[start + i])
        cols.append(members[start + j])
        sims.append(block[i, j])
    return rows, cols, sims


def _partitioned(matrix: F32, threshold: float) -> tuple[list, list, list]:  # type: ignore[type-arg]
    n = len(matrix)
    rng = np.random.default_rng(0)
    centroids = matrix[rng.choice(n, size=max(2, n // BUCKET), replace=False)]
    # One Lloyd step moves the random centres to the mass of their members: fewer, more even
    # buckets than random centres alone.
    nearest = np.argmax(matrix @ centroids.T, axis=1)
    sums = np.zeros_like(centroids)
    np.add.at(sums, nearest, matrix)
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    centroids = np.where(norms > 0, sums / np.maximum(norms, 1e-12), centroids)
    probes = min(PROBES, len(centroids))
    assignments = np.empty((n, probes), dtype=np.intp)
    for start in range(0, n, BLOCK * 4):
        scores = matrix[start : start + BLOCK * 4] @ centroids.T
        assignments[start : start + BLOCK * 4] = np.argpartition(-scores, probes - 1, axis=1)[
            :, :probes
        ]
    flat = assignments.ravel()
    owners = np.repeat(np.arange(n), probes)
    order = np.argsort(flat, kind="stable")
    bounds = np.flatnonzero(np.diff(flat[order])) + 1
    rows: list[npt.NDArray[np.intp]] = []
    cols: list[npt.NDArray[np.intp]] = []
    sims: list[npt.NDArray[np.float32]] = []
    for bucket in np.split(owners[order], bounds):
        if len(bucket) > 1:
            r, c, s = _exact(matrix, np.sort(bucket), threshold)
            rows += r
            cols += c
            sims += s
    return rows, cols, sims


def _pack(rows: list, cols: list, sims: list) -> Pairs:  # type: ignore[type-arg]
    """One entry per pair (a pair found in several buckets counts once), best first."""
    r = np.concatenate(rows).astype(np.intp) if rows else np.empty(0, dtype=np.intp)
    if not len(r):
        empty = np.empty(0, dtype=np.intp)
        return empty, empty.copy(), np.empty(0, dtype=np.float32)
    c = np.concatenate(cols).astype(np.intp)
    s = np.concatenate(sims).astype(np.float32)
    low, high = np.minimum(r, c), np.maximum(r, c)
    _, first = np.unique(low.astype(np.int64) * (int(high.max()) + 1) + high, return_index=True)
    low, high, s = low[first], high[first], s[first]
    order = np.argsort(-s, kind="stable")
    return low[order], high[order], s[order]
