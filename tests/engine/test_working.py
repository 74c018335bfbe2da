"""Working memory (seed 004): a per-agent token budget whose eviction is never deletion."""

from __future__ import annotations

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import MemoryNotFound
from tests.backends import snapshot
from tests.engine.test_forgetting import Clock

LONG_TERM = ["memories", "memory_tags", "links", "episodes", "episode_members"]


def test_new_memories_enter_their_agents_working_memory(mem: Lethe, embedder: Embedder) -> None:
    jazz = mem.remember("User likes jazz", agent="assistant")
    mine = mem.remember("The weekly sync moved to Thursday", agent="planner")
    context = mem.context("assistant")
    assert [i.id for i in context.items] == [jazz.id]
    assert context.tokens == embedder.count_tokens("User likes jazz")
    assert context.budget == 4000
    assert context.text.splitlines()[1] == f"- [episodic] User likes jazz [id:{jazz.id}]"
    assert [i.id for i in mem.context("planner").items] == [mine.id]


def test_over_budget_evicts_the_least_valuable_and_deletes_nothing(
    db: str, embedder: Embedder
) -> None:
    clock = Clock()
    texts = [
        ("User likes jazz", 0.2),
        ("User owns a red bicycle", 0.9),
        ("User speaks Portuguese", 0.5),
        ("User lives in Lisbon", 0.5),
    ]
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        ids = []
        for text, importance in texts:
            ids.append(mem.remember(text, importance=importance).id)
            clock.advance(hours=1)
        assert len(mem.context().items) == 4
    before = snapshot(db)
    sizes = [embedder.count_tokens(t) for t, _ in texts]
    budget = sum(sizes) - 1
    with Lethe.open(db, embedder=embedder, clock=clock, working_budget_tokens=budget) as mem:
        # A trivial new note competes like any other item: it does not push out the others.
        trivial = mem.remember("User drinks green tea", importance=0.0)
        assert trivial.id not in {i.id for i in mem.context().items}
        first = mem.audit(op="evict")[0]
        assert first.memory_id == trivial.id and first.details["agent"] == "user"
        # An important one does: the cheapest old items go (low importance, then oldest).
        key = mem.remember("User's passport expires in May", importance=0.8)
        context = mem.context()
        assert context.tokens <= budget
        kept = {i.id for i in context.items}
        assert key.id in kept and ids[1] in kept, "importance 0.8 and 0.9 are kept"
        assert ids[0] not in kept, "importance 0.2 goes first"
        after = snapshot(db)
        evicted = [e.memory_id for e in mem.audit(op="evict")]
        assert set(evicted) == ({*ids, trivial.id} - kept)
        # Long-term rows are untouched by eviction: only the two new memories were added.
        for table in LONG_TERM:
            old_rows = before[table]
            assert after[table][: len(old_rows)] == old_rows, table
        # An evicted memory is still there, and recalling it brings it back (its recency and
        # its use now count for it; the cheapest of the rest makes room).
        gone = max(set(evicted) & set(ids), key=lambda i: (mem.get(i).importance, i))
        assert mem.get(gone).importance == 0.5
        clock.advance(hours=48)  # what entered two days ago is worth less than a fresh recall
        hits = mem.recall(mem.get(gone).content, k=1, attend="user")
        assert hits[0].memory.id == gone
        assert gone in {i.id for i in mem.context().items}
        assert mem.context().tokens <= budget


def test_an_item_larger_than_the_budget_is_not_admitted(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder, working_budget_tokens=5) as mem:
        small = mem.remember("Jazz")
        big = mem.remember("User keeps a long diary about every concert they ever attended")
        context = mem.context()
        assert [i.id for i in context.items] == [small.id]
        again = mem.attend([big.id])
        assert again.too_large == (big.id,) and again.evicted == ()


def test_forgotten_memories_leave_working_memory_and_restore_brings_them_back(
    mem: Lethe,
) -> None:
    note = mem.remember("User likes jazz")
    mem.execute(mem.plan_forget([note.id]))
    assert mem.context().items == ()
    mem.restore(note.id)
    assert [i.id for i in mem.context().items] == [note.id]


def test_attend_validates_and_changes_nothing_on_error(mem: Lethe, db: str) -> None:
    cat = mem.remember("The cat is called Miso", namespace="pets")
    before = snapshot(db)
    with pytest.raises(MemoryNotFound):
        mem.attend(["mem_0123456789ab"])
    with pytest.raises(MemoryNotFound):
        mem.attend([cat.id], namespace="default")
    assert snapshot(db) == before
    assert [i.id for i in mem.attend([cat.id], namespace="pets", agent="vet").items] == [cat.id]
