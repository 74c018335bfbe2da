"""Consolidation (seed 001): near-duplicate pairs to resolve with forget, links between
memories recorded close in time strengthened once; and the pair search itself."""

from __future__ import annotations

import numpy as np
import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.engine.neardup import near_duplicates
from lethe.errors import InvalidInput
from lethe.forget.messages import CONSOLIDATE_GUIDANCE as GUIDANCE
from tests.backends import snapshot
from tests.engine.test_forgetting import Clock

FUN = "Today's conversation was fun. I learned a lot from Master."
ENJOYABLE = "Today's conversation was enjoyable. Master taught me many things."


def test_near_duplicate_pairs_with_both_contents(mem: Lethe) -> None:
    a = mem.remember(FUN)
    b = mem.remember(ENJOYABLE)
    other = mem.remember("User likes jazz")
    report = mem.consolidate(threshold=0.85)
    [pair] = report.pairs
    assert {pair.a.id, pair.b.id} == {a.id, b.id}
    assert {pair.a.content, pair.b.content} == {FUN, ENJOYABLE}
    assert 0.85 <= pair.similarity < 0.95
    assert report.total_pairs == 1 and report.scanned == 3
    assert "use forget to remove it" in GUIDANCE
    mem.execute(mem.plan_forget([b.id]))
    after = mem.consolidate(threshold=0.85)
    assert after.pairs == () and after.scanned == 2, "a forgotten memory is no candidate"
    assert other.id not in {p.a.id for p in report.pairs} | {p.b.id for p in report.pairs}


def test_threshold_comes_from_settings(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        mem.remember(FUN)
        mem.remember(ENJOYABLE)
        similarity = mem.consolidate(threshold=0.5).pairs[0].similarity
    with Lethe.open(db, embedder=embedder, consolidate_threshold=similarity + 0.01) as mem:
        assert mem.consolidate().pairs == ()
    with Lethe.open(db, embedder=embedder, consolidate_threshold=similarity - 0.01) as mem:
        assert len(mem.consolidate().pairs) == 1


def test_links_recorded_close_in_time_are_strengthened_once(db: str, embedder: Embedder) -> None:
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        a = mem.remember("User flew to Lisbon in May")
        b = mem.remember("User ate pastéis de nata")
        clock.advance(days=3)
        c = mem.remember("User's passport expires next year")
        near = mem.link(a.id, b.id, kind="trip", confidence=0.5)
        far = mem.link(a.id, c.id, kind="travel", confidence=0.5)
        clock.advance(minutes=1)
        report = mem.consolidate()
        assert [(lk.a, lk.b, lk.kind) for lk in report.bumped] == [(near.a, near.b, "trip")]
        confidences = {lk.kind: lk.confidence for lk in mem.links(a.id)}
        assert confidences == {"trip": pytest.approx(0.55), "travel": far.confidence}
        [event] = mem.audit(op="bump")
        assert event.details["by"] == "consolidate" and event.details["to"] == pytest.approx(0.55)
        assert mem.consolidate().bumped == (), "once per link"


def test_bad_arguments_change_nothing(mem: Lethe, db: str) -> None:
    mem.remember(FUN)
    before = snapshot(db)
    for kwargs in ({"threshold": 1.5}, {"limit": 0}, {"window_minutes": -1}, {"namespace": "a b"}):
        with pytest.raises(InvalidInput):
            mem.consolidate(**kwargs)  # type: ignore[arg-type]
    assert snapshot(db) == before


def test_partitioned_search_finds_what_the_exact_one_finds(embedder: Embedder) -> None:
    """On real MiniLM vectors: sentences and light rewrites of them, some above 0.9."""
    subjects = ["User", "My sister", "The team", "Our neighbour", "The agent", "Anna"]
    verbs = ["likes", "visited", "talked about", "wrote a note on", "forgot", "asked about"]
    objects = [
        "jazz in Lisbon",
        "the budget review",
        "a red bicycle",
        "Portuguese lessons",
        "the Golden Gate Bridge",
        "California wine",
        "the release plan",
        "pottery",
    ]
    texts = [f"{s} {v} {o}" for s in subjects for v in verbs for o in objects]
    texts += [t + "." for t in texts[::3]] + [t.replace("The ", "the ") for t in texts[::5]]
    matrix = embedder.embed(texts)
    exact = near_duplicates(matrix, 0.9)
    split = near_duplicates(matrix, 0.9, exact_limit=50)
    assert len(exact[0]) > 50, "the data must hold enough pairs to mean something"
    assert set(zip(split[0].tolist(), split[1].tolist(), strict=True)) == set(
        zip(exact[0].tolist(), exact[1].tolist(), strict=True)
    )
    assert np.all(np.diff(exact[2]) <= 0), "most similar first"
    assert np.all(exact[0] < exact[1])


def test_a_threshold_below_half_is_refused(mem: Lethe) -> None:
    mem.remember(FUN)
    with pytest.raises(InvalidInput, match="too low"):
        mem.consolidate(threshold=0.0)
