"""Recall's similarity floor (issue 17): `min_similarity` drops the hits whose cosine to the
query is below it — full-text matches included — and keeps the fused order of the rest; a
bad floor is refused before anything is read — on SQLite and PostgreSQL."""

from __future__ import annotations

import math

import pytest

from lethe import Lethe
from lethe.errors import InvalidInput
from tests.backends import snapshot

MEMORIES = [
    "Alice prefers green tea over coffee",
    "Alice drinks oolong tea every afternoon",
    "Bob likes espresso in the morning",
    "The quarterly tax report is due in April",
    "Our cat Miso sleeps on the radiator",
    "tea",  # a bare keyword: matched by the full-text search, far in meaning
]
QUERY = "what kind of tea does Alice like to drink?"


@pytest.fixture
def stocked(mem: Lethe) -> Lethe:
    for text in MEMORIES:
        mem.remember(text)
    return mem


def test_hits_below_the_floor_are_dropped_and_the_rest_keep_their_order(stocked: Lethe) -> None:
    every = stocked.recall(QUERY, k=10)
    assert len(every) == len(MEMORIES)
    cosines = sorted(h.similarity for h in every)
    floor = (cosines[2] + cosines[3]) / 2  # half of them above, half below
    kept = stocked.recall(QUERY, k=10, min_similarity=floor)
    assert len(kept) == 3 and all(h.similarity >= floor for h in kept)
    assert [h.memory.id for h in kept] == [h.memory.id for h in every if h.similarity >= floor]
    assert [h.score for h in kept] == sorted((h.score for h in kept), reverse=True)
    dropped = {h.memory.id for h in every} - {h.memory.id for h in kept}
    assert all(h.similarity < floor for h in every if h.memory.id in dropped)


def test_a_full_text_match_far_in_meaning_is_dropped_too(stocked: Lethe) -> None:
    bare = [h for h in stocked.recall(QUERY, k=10) if h.memory.content == "tea"]
    [hit] = bare
    assert hit.lexical_rank is not None
    floor = min(1.0, hit.similarity + 0.01)
    kept = stocked.recall(QUERY, k=10, min_similarity=floor)
    assert "tea" not in [h.memory.content for h in kept]


def test_k_still_counts_hits_above_the_floor(stocked: Lethe) -> None:
    floor = 0.3
    above = [h for h in stocked.recall(QUERY, k=10) if h.similarity >= floor]
    assert len(above) >= 2
    assert [h.memory.id for h in stocked.recall(QUERY, k=2, min_similarity=floor)] == [
        h.memory.id for h in above[:2]
    ]


def test_a_floor_of_zero_keeps_everything_and_one_keeps_only_the_same_text(
    stocked: Lethe,
) -> None:
    every = [h.memory.id for h in stocked.recall(QUERY, k=10)]
    assert [h.memory.id for h in stocked.recall(QUERY, k=10, min_similarity=0)] == every
    assert stocked.recall(QUERY, k=10, min_similarity=1.0) == []
    top = stocked.recall(MEMORIES[0], k=10, min_similarity=0.999)
    assert [h.memory.content for h in top] == [MEMORIES[0]]


@pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan, math.inf, "0.5", True, [0.5]])
def test_a_bad_floor_is_refused_and_nothing_is_touched(
    stocked: Lethe, db: str, bad: object
) -> None:
    before = snapshot(db)
    with pytest.raises(InvalidInput, match="min_similarity must be"):
        stocked.recall(QUERY, k=3, min_similarity=bad)  # type: ignore[arg-type]
    assert snapshot(db) == before
