"""Reciprocal rank fusion, computed by hand."""

from __future__ import annotations

import pytest

from lethe.common.ranking import fuse


def test_scores_are_rrf_scaled_so_first_on_both_is_one() -> None:
    fused = fuse(["a", "b", "c"], ["b", "d"], k=60)
    by_id = {f.id: f for f in fused}
    best = 2 / 61
    assert by_id["b"].score == pytest.approx((1 / 62 + 1 / 61) / best)
    assert by_id["a"].score == pytest.approx((1 / 61) / best)
    assert by_id["c"].score == pytest.approx((1 / 63) / best)
    assert by_id["d"].score == pytest.approx((1 / 62) / best)
    assert [f.id for f in fused] == ["b", "a", "d", "c"]
    assert (by_id["b"].vector_rank, by_id["b"].lexical_rank) == (2, 1)
    assert (by_id["d"].vector_rank, by_id["d"].lexical_rank) == (None, 2)
    assert fuse(["x"], ["x"])[0].score == pytest.approx(1.0)


def test_equal_scores_are_ordered_by_vector_rank() -> None:
    # "a" is first by vector only, "c" first by text only: equal scores, the vector one first.
    fused = fuse(["a", "b"], ["c", "b"], k=10)
    assert [f.id for f in fused][:1] == ["b"]
    assert [f.id for f in fused][1:] == ["a", "c"]
    assert fused[1].score == fused[2].score


def test_k_changes_how_much_rank_matters() -> None:
    near = fuse(["a", "b"], [], k=1)
    far = fuse(["a", "b"], [], k=1000)
    assert near[1].score / near[0].score < far[1].score / far[0].score
    assert fuse([], []) == []
