"""Recall and get as of a past moment (issue 25, part 3): each memory ranked by the state it
had then, memories made later absent, and forgetting holding in the past too — on both stores
with the real MiniLM embedder."""

from __future__ import annotations

from datetime import timedelta

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import InvalidInput, MemoryNotFound
from tests.backends import run_sql, snapshot
from tests.clocks import Clock

ACME = "Alice works at Acme Corp as a data engineer."
GLOBEX = "Alice works at Globex as head of analytics."


@pytest.fixture
def job(cmem: Lethe, clock: Clock) -> tuple[str, Clock]:
    """Alice at Acme from the start, at Globex from 30 days later; a few other memories."""
    memory_id = cmem.remember(ACME).id
    cmem.remember("The dentist appointment is on Tuesday at 9.")
    cmem.remember("My sister lives in Lisbon.")
    clock.advance(days=30)
    cmem.update(memory_id, content=GLOBEX)
    clock.advance(days=1)
    return memory_id, clock


def _texts(hits: list) -> list[str]:  # type: ignore[type-arg]
    return [h.memory.content for h in hits]


def test_recall_as_of_ranks_the_state_current_then(cmem: Lethe, job: tuple[str, Clock]) -> None:
    memory_id, clock = job
    spring = clock.now - timedelta(days=20)
    past = cmem.recall("where does Alice work", k=3, as_of=spring)
    assert past[0].memory.id == memory_id
    assert past[0].memory.content == ACME
    assert past[0].memory.version == 1
    assert GLOBEX not in _texts(past)
    now = cmem.recall("where does Alice work", k=3)
    assert now[0].memory.content == GLOBEX
    # At the present moment as_of answers what recall answers.
    assert cmem.recall("where does Alice work", k=3, as_of=clock.now)[0].memory.content == GLOBEX


def test_the_old_text_is_found_by_its_words_only_in_the_past(
    cmem: Lethe, job: tuple[str, Clock]
) -> None:
    memory_id, clock = job
    spring = clock.now - timedelta(days=20)
    past = cmem.recall("Acme Corp", k=1, as_of=spring)
    assert [h.memory.id for h in past] == [memory_id]
    assert past[0].lexical_rank == 1
    assert past[0].similarity > 0.3
    later = cmem.recall("Acme Corp", k=5, as_of=clock.now)
    assert ACME not in _texts(later)


def test_memories_made_after_the_moment_are_absent(cmem: Lethe, job: tuple[str, Clock]) -> None:
    _, clock = job
    before = clock.now
    clock.advance(hours=1)
    late = cmem.remember("Alice works at Initech since this morning.").id
    assert late not in [h.memory.id for h in cmem.recall("Alice works", k=10, as_of=before)]
    assert late in [h.memory.id for h in cmem.recall("Alice works", k=10)]
    with pytest.raises(MemoryNotFound, match="no state"):
        cmem.get(late, as_of=before)


def test_forgetting_holds_in_the_past(cmem: Lethe, job: tuple[str, Clock]) -> None:
    memory_id, clock = job
    spring = clock.now - timedelta(days=20)
    assert cmem.recall("Alice Acme", k=1, as_of=spring)[0].memory.id == memory_id
    cmem.execute(cmem.plan_forget([memory_id]))
    for when in (spring, clock.now):
        hits = cmem.recall("where does Alice work Acme", k=10, as_of=when)
        assert memory_id not in [h.memory.id for h in hits]
        assert ACME not in _texts(hits)
    with pytest.raises(MemoryNotFound):
        cmem.get(memory_id, as_of=spring)
    # Restored, it is read in the past again; purged, never.
    cmem.restore(memory_id)
    assert cmem.get(memory_id, as_of=spring).content == ACME
    cmem.execute(cmem.plan_purge([memory_id]))
    hits = cmem.recall("where does Alice work Acme", k=10, as_of=spring)
    assert memory_id not in [h.memory.id for h in hits]


def test_get_as_of_each_state(cmem: Lethe, job: tuple[str, Clock]) -> None:
    memory_id, _ = job
    first = cmem.history(memory_id)[-1]
    assert cmem.get(memory_id, as_of=first.valid_from).content == ACME
    changed = cmem.history(memory_id)[0].valid_from
    assert cmem.get(memory_id, as_of=changed - timedelta(microseconds=1)).content == ACME
    assert cmem.get(memory_id, as_of=changed).content == GLOBEX
    assert cmem.get(memory_id, as_of=changed.isoformat()).version == 2


def test_three_versions(cmem: Lethe, clock: Clock) -> None:
    texts = ["Bob drives a red Fiat.", "Bob drives a blue Volvo.", "Bob drives a green Tesla."]
    memory_id = cmem.remember(texts[0]).id
    moments = [clock.now]
    for text in texts[1:]:
        clock.advance(days=10)
        cmem.update(memory_id, content=text)
        moments.append(clock.now)
    clock.advance(days=1)
    for moment, text in zip(moments, texts, strict=True):
        assert cmem.get(memory_id, as_of=moment).content == text
        hit = cmem.recall("what car does Bob drive", k=1, as_of=moment)[0]
        assert hit.memory.content == text


def test_earlier_states_kept_before_vectors_are_embedded_on_first_use(
    db: str, embedder: Embedder, clock: Clock
) -> None:
    """A store migrated from before version vectors has earlier states without one."""
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        memory_id = mem.remember(ACME).id
        clock.advance(days=5)
        mem.update(memory_id, content=GLOBEX)
    run_sql(db, "UPDATE memory_versions SET embedding = NULL")
    clock.advance(days=1)
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        hit = mem.recall("Alice employer", k=1, as_of=clock.now - timedelta(days=3))[0]
        assert hit.memory.content == ACME
        assert hit.similarity > 0.3


def test_a_change_seen_by_another_process(db: str, embedder: Embedder, clock: Clock) -> None:
    """Two handles on one store: a change made through one is read in the past by the other
    (the earlier states follow the change log)."""
    with (
        Lethe.open(db, embedder=embedder, clock=clock) as one,
        Lethe.open(db, embedder=embedder, clock=clock) as two,
    ):
        memory_id = one.remember(ACME).id
        clock.advance(days=1)
        start = clock.now
        assert two.recall("Alice", k=1, as_of=start)[0].memory.content == ACME
        clock.advance(days=1)
        one.update(memory_id, content=GLOBEX)
        clock.advance(days=1)
        assert two.recall("Alice", k=1, as_of=start)[0].memory.content == ACME
        assert two.recall("Alice", k=1, as_of=clock.now)[0].memory.content == GLOBEX
        one.execute(one.plan_forget([memory_id]))
        assert two.recall("Alice", k=1, as_of=start) == []


@pytest.mark.parametrize(
    ("as_of", "message"),
    [
        ("next week", "not a date and time"),
        ("2099-01-01T00:00:00Z", "in the future"),
        ("2001-01-01", "before anything was remembered"),
    ],
)
def test_bad_moments_are_refused(
    db: str, cmem: Lethe, job: tuple[str, Clock], as_of: str, message: str
) -> None:
    memory_id, _ = job
    before = snapshot(db)
    with pytest.raises(InvalidInput, match=message):
        cmem.recall("Alice", as_of=as_of)
    with pytest.raises(InvalidInput, match=message):
        cmem.get(memory_id, as_of=as_of)
    assert snapshot(db) == before


def test_as_of_refuses_filters_and_attend(cmem: Lethe, job: tuple[str, Clock]) -> None:
    _, clock = job
    with pytest.raises(InvalidInput, match="no filter but the namespace"):
        cmem.recall("Alice", as_of=clock.now, filters={"tags": ["work"]})
    with pytest.raises(InvalidInput, match="attend"):
        cmem.recall("Alice", as_of=clock.now, attend="claude")


def test_a_later_text_matching_better_does_not_hide_the_memory(
    cmem: Lethe, job: tuple[str, Clock]
) -> None:
    """Asked in the words of its later text, a memory is still found by its state then: the
    later state is not a candidate at all (it would take the memory's place and be dropped)."""
    memory_id, clock = job
    spring = clock.now - timedelta(days=20)
    hits = cmem.recall("Globex head of analytics", k=3, as_of=spring)
    assert memory_id in [h.memory.id for h in hits]
    found = next(h for h in hits if h.memory.id == memory_id)
    assert found.memory.content == ACME
    by_vector, by_words = cmem.store.search_at(
        cmem.embedder.embed([GLOBEX])[0], GLOBEX, "default", spring, 10
    )
    assert (memory_id, None) not in [(i, v) for i, v, _ in by_vector]
    assert (memory_id, None) not in by_words


def test_maintain_embeds_earlier_states_that_have_no_vector(
    db: str, cmem: Lethe, job: tuple[str, Clock]
) -> None:
    run_sql(db, "UPDATE memory_versions SET embedding = NULL")
    assert cmem.maintain().versions_embedded == 1
    assert run_sql(db, "SELECT count(*) FROM memory_versions WHERE embedding IS NULL")[0][0] == 0
    assert cmem.maintain().versions_embedded == 0


def test_recall_at_the_instant_of_an_update_returns_the_new_state_only(
    cmem: Lethe, job: tuple[str, Clock]
) -> None:
    """A version is current from its `valid_from` on and the one it replaced until then,
    excluded: at that very instant recall ranks the memory once, as its new text."""
    memory_id, _ = job
    changed = cmem.history(memory_id)[0].valid_from
    hits = [
        h for h in cmem.recall("Alice works at", k=10, as_of=changed) if h.memory.id == memory_id
    ]
    assert [h.memory.content for h in hits] == [GLOBEX]
    before = [
        h
        for h in cmem.recall("Alice works at", k=10, as_of=changed - timedelta(microseconds=1))
        if h.memory.id == memory_id
    ]
    assert [h.memory.content for h in before] == [ACME]
