"""The int8 first pass of an exact top k (lethe.store.quantized) on rows it finds hard: norms
spread over five orders of magnitude (per-row bounds of very different widths), clusters of
near-duplicates whose bounds all overlap, and exclusions that leave exactly k rows."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from lethe.store import quantized
from lethe.store.quantized import quantize, top_k


def rows(seed: int, count: int = 6000, dim: int = 48) -> npt.NDArray[np.float32]:
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((count, dim)).astype(np.float32)
    matrix *= (10.0 ** rng.uniform(-3, 2, count)).astype(np.float32)[:, None]
    centre = matrix[7] / np.linalg.norm(matrix[7])
    spread = 1e-3 * rng.standard_normal((300, dim)).astype(np.float32)
    matrix[3000:3300] = centre * rng.uniform(0.5, 2.0, (300, 1)).astype(np.float32) + spread
    return matrix


def brute(
    matrix: npt.NDArray[np.float32],
    query: npt.NDArray[np.float32],
    k: int,
    excluded: npt.NDArray[np.bool_],
) -> list[int]:
    scores = (matrix @ query).astype(np.float64)
    scores[excluded] = -np.inf
    return np.argsort(-scores, kind="stable")[:k].tolist()


@pytest.mark.parametrize("threads", [1, 3])
@pytest.mark.parametrize("k", [1, 10, 50])
def test_the_shortlist_keeps_every_row_of_the_exact_top_k(
    threads: int, k: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A part orders only the rows near the k-th best of a sample of it; the threshold drawn
    from them must still let every row of the true top k through to the float32 pass."""
    monkeypatch.setattr(quantized, "_SPLIT_MIN", 500)  # up to 12 parts of 500 rows
    matrix = rows(k + threads)
    codes = quantize(matrix)
    rng = np.random.default_rng(3)
    mask = np.zeros(len(matrix), dtype=np.bool_)
    mask[rng.choice(len(matrix), 900, replace=False)] = True
    queries = [
        *rng.standard_normal((12, matrix.shape[1])).astype(np.float32),
        matrix[7],
        -matrix[3100],
    ]
    for query in queries:
        for excluded in (mask, np.flatnonzero(mask)):
            got, scores = top_k(matrix, codes, query, k, excluded, threads=threads)
            want = brute(matrix, query, k, mask)
            exact = (matrix @ query)[want]
            np.testing.assert_allclose(scores, exact, rtol=1e-5, atol=1e-5)
            # Ties aside, the same rows: every live row scoring above the k-th is there.
            scored = matrix @ query
            above = np.flatnonzero(~mask & (scored > exact[-1] + 1e-5 * (1 + abs(exact[-1]))))
            assert set(above.tolist()) <= set(got.tolist())
            assert not mask[got].any()


@pytest.mark.parametrize("threads", [1, 3])
def test_exclusions_that_leave_exactly_k_rows(
    threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Most of a part excluded: the sample holds fewer than k live rows, and the part falls
    back to every row's bound; only live rows come back."""
    monkeypatch.setattr(quantized, "_SPLIT_MIN", 500)
    matrix = rows(9)
    codes = quantize(matrix)
    live = np.arange(0, len(matrix), 397)
    mask = np.ones(len(matrix), dtype=np.bool_)
    mask[live] = False
    query = np.random.default_rng(4).standard_normal(matrix.shape[1]).astype(np.float32)
    got, _ = top_k(matrix, codes, query, len(live), mask, threads=threads)
    assert sorted(got.tolist()) == live.tolist()
    got, _ = top_k(matrix, codes, query, 5, mask, threads=threads)
    assert got.tolist() == brute(matrix, query, 5, mask)


@pytest.mark.parametrize("threads", [1, 3])
def test_rows_whose_codes_lose_what_matches_the_query(
    threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A row with one huge coordinate rounds its small ones to zero: its int8 score says 0
    while its exact score is the best. Only its error bound brings it to the float32 pass."""
    monkeypatch.setattr(quantized, "_SPLIT_MIN", 500)
    rng = np.random.default_rng(8)
    dim = 48
    matrix = rng.standard_normal((6000, dim)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    query = rng.standard_normal(dim).astype(np.float32)
    query[0] = 0.0
    query /= np.linalg.norm(query)
    spiky = np.arange(100, 6000, 600)
    matrix[spiky] = 0.8 * query
    matrix[spiky, 0] = 100.0
    codes = quantize(matrix)
    assert np.all(codes.codes[spiky, 1:] == 0), "the matching part is lost in the codes"
    none = np.zeros(len(matrix), dtype=np.bool_)
    got, _ = top_k(matrix, codes, query, 10, np.flatnonzero(none), threads=threads)
    assert set(got.tolist()) == set(spiky.tolist())
    assert got.tolist() == brute(matrix, query, 10, none)


def test_a_helper_held_up_is_not_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool thread that a busy machine keeps off a core holds its part: the caller, done
    with its own, computes that part again rather than wait, and the answer is the same."""
    import threading
    import time

    monkeypatch.setattr(quantized, "_SPLIT_MIN", 500)
    part = quantized._Bound.part
    caller = threading.get_ident()

    def held_up(self: quantized._Bound, *args: object, **kwargs: object) -> object:
        if threading.get_ident() != caller:
            time.sleep(2.0)
        return part(self, *args, **kwargs)  # type: ignore[arg-type]

    matrix = rows(4)
    codes = quantize(matrix)
    query = np.random.default_rng(6).standard_normal(matrix.shape[1]).astype(np.float32)
    none = np.zeros(len(matrix), dtype=np.bool_)
    want = top_k(matrix, codes, query, 10, np.flatnonzero(none), threads=2)[0].tolist()
    monkeypatch.setattr(quantized._Bound, "part", held_up)
    start = time.perf_counter()
    got = top_k(matrix, codes, query, 10, np.flatnonzero(none), threads=2)[0].tolist()
    assert time.perf_counter() - start < 1.5
    assert got == want == brute(matrix, query, 10, none)


@pytest.mark.parametrize("magnitude", [1e3, 1.6e6, 6.8e7, 5e9])
def test_large_scores_with_exact_codes_keep_every_row(magnitude: float) -> None:
    """Rows whose codes are (nearly) exact carry almost no error, so their bounds are about
    1e-5 wide: less than one float32 step of a score in the thousands. The pre-filter must
    still let the row that sets the threshold through (a reviewer's case: one row [1.0] and a
    query [6.8e7] came back empty)."""
    rng = np.random.default_rng(int(magnitude) % 1000)
    for dim in (1, 2, 384):
        eye = np.eye(dim, dtype=np.float32)
        rows = np.vstack([eye, -eye, rng.standard_normal((5, dim)).astype(np.float32)])
        query = np.zeros(dim, dtype=np.float32)
        query[0] = magnitude
        for k in (1, 2, len(rows)):
            got, _ = top_k(rows, quantize(rows), query, k, np.zeros(0, np.intp))
            want = np.argsort(-(rows @ query), kind="stable")[:k]
            assert len(got) == k
            assert set((rows @ query)[got]) == set((rows @ query)[want]), (dim, k)
    m = np.array([[-0.7130680680274963], [0.6210178732872009]], dtype=np.float32)
    got, _ = top_k(m, quantize(m), np.array([1614373.25], np.float32), 2, np.zeros(0, np.intp))
    assert got.tolist() == [1, 0]


def test_a_query_too_small_for_its_step_is_still_answered() -> None:
    """A query whose largest component is below ~1.8e-43 has a step that underflows to 0:
    its codes are zeros and its whole self is the error the bound carries."""
    rows = np.eye(6, dtype=np.float32)
    query = np.array([1e-44, 0, 0, 0, 0, 0], dtype=np.float32)
    got, _ = top_k(rows, quantize(rows), query, 3, np.zeros(0, np.intp))
    assert got[0] == 0 and len(got) == 3
