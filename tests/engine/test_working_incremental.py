"""Admitting a memory into working memory reads only what eviction weighs of the set
(`Store.working_entries`), not every memory in it: the set it keeps and the memories it evicts
must be those a full rebuild of the set (`Store.working_set`) gives, whatever happened before."""

from __future__ import annotations

from lethe import Lethe
from lethe.embed import Embedder
from lethe.engine.working_set import Entry, Slot, choose_evictions
from lethe.store.base import Store
from tests.clocks import Clock

AGENT, NAMESPACE = "user", "default"
BUDGET = 40

TEXTS = [
    ("User likes jazz", 0.2),
    ("User owns a red bicycle", 0.9),
    ("User speaks Portuguese and a little Italian", 0.5),
    ("User lives in Lisbon", 0.5),
    ("The weekly sync moved to Thursday", 0.3),
    ("User's passport expires in May", 0.8),
    ("User drinks green tea every morning", 0.0),
    ("Dentist appointment on Friday at 9", 0.6),
    ("User is allergic to peanuts", 1.0),
    ("User's sister Nina lives in Porto", 0.4),
    ("The team picked PostgreSQL over MySQL for the billing service", 0.7),
    ("User runs 5 km on Sundays", 0.3),
    ("User's cat is called Miso", 0.5),
    ("Invoice 3312 is due next week", 0.6),
]


def rebuilt(store: Store) -> list[Slot]:
    """The set as admission read it before: every memory in it, built whole."""
    return [Slot(m, t, at) for m, t, at in store.working_set(AGENT, NAMESPACE)]


def weighed(store: Store) -> list[Entry]:
    return [Entry(*row) for row in store.working_entries(AGENT, NAMESPACE)]


def assert_same_set(store: Store) -> None:
    full = sorted((s.entry for s in rebuilt(store)), key=lambda e: e.memory_id)
    assert sorted(weighed(store), key=lambda e: e.memory_id) == full


def test_admission_keeps_and_evicts_what_a_full_rebuild_would(db: str, embedder: Embedder) -> None:
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock, working_budget_tokens=BUDGET) as mem:
        store = mem.store
        ids: list[str] = []
        forgotten: list[str] = []
        for step, (text, importance) in enumerate(TEXTS):
            before = rebuilt(store)
            last = max((e.seq for e in mem.audit(newest_first=True, limit=1)), default=0)
            memory = mem.remember(text, importance=importance)
            ids.append(memory.id)
            arriving = Entry(
                memory.id, embedder.count_tokens(text), memory.created_at, importance, 0
            )
            expected = choose_evictions(
                [s.entry for s in before] + [arriving], BUDGET, memory.created_at
            )
            evicted = [e.memory_id for e in mem.audit(op="evict", after_seq=last)]
            assert evicted == [e.memory_id for e in expected], step
            assert_same_set(store)
            clock.advance(hours=3)
            # What else changes what an item is worth, or whether it is in the set at all.
            held = [e.memory_id for e in weighed(store)]
            unpinned = [e.memory_id for e in weighed(store) if e.importance < 0.9]
            if step % 4 == 1 and unpinned:
                mem.execute(mem.plan_forget([unpinned[0]]))  # leaves the set, row untouched
                forgotten.append(unpinned[0])
            if step % 4 == 2 and forgotten:
                mem.restore(forgotten.pop(0))  # comes back into the set
            if step % 4 == 3 and held:
                mem.update(held[-1], importance=0.95)  # worth more from now on
            if step % 3 == 0:
                mem.recall(text, k=2, attend=AGENT)  # used: access counts, re-admitted
            assert_same_set(store)
        assert len(mem.audit(op="evict")) > 3, "the sequence evicts, or it tests nothing"
        kept = {i.id for i in mem.context().items}
        assert kept == {e.memory_id for e in weighed(store)}
        assert mem.context().tokens <= BUDGET


def test_attend_answers_with_the_set_it_kept(db: str, embedder: Embedder) -> None:
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock, working_budget_tokens=BUDGET) as mem:
        ids = [mem.remember(text, importance=i, agent="other").id for text, i in TEXTS]
        clock.advance(hours=1)
        last = mem.audit(newest_first=True, limit=1)[0].seq
        context = mem.attend(ids[:8])
        assert {i.id for i in context.items} == {e.memory_id for e in weighed(mem.store)}
        assert set(context.evicted) == set(ids[:8]) - {i.id for i in context.items}
        assert context.tokens == sum(i.tokens for i in context.items) <= BUDGET
        evicted = [str(e.memory_id) for e in mem.audit(op="evict", after_seq=last)]
        assert sorted(evicted) == list(context.evicted)
