"""Similar is not same: near-duplicates are stored and linked, never refused; only the same
text with the same fields is idempotent — on SQLite and PostgreSQL."""

from __future__ import annotations

import threading

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.model import Draft, Remembered
from tests.backends import snapshot

PAIRS = [
    ("Dentist appointment on Tuesday at 10am", "Dentist appointment on Thursday at 3pm"),
    ("Takes 50 mg of sertraline every morning", "Takes 100 mg of sertraline every morning"),
    ("Alice likes spicy food", "Alice does not like spicy food"),
    ("Alice's sister is called Maria", "Alice's sister is called Marta"),
    ("Paid the plumber 120 dollars", "Paid the plumber 1200 dollars"),
]


@pytest.mark.parametrize(("first", "second"), PAIRS)
def test_near_duplicates_are_both_stored_linked_and_recalled(
    mem: Lethe, first: str, second: str
) -> None:
    a = mem.remember(first)
    b = mem.remember(second)
    assert not b.existing and b.id != a.id
    assert {m.content for m in mem.list_memories().items} == {first, second}
    for text in (first, second):
        assert {h.memory.id for h in mem.recall(text, k=2)} == {a.id, b.id}
    if b.near_duplicates:  # cosine >= the threshold: named with its content, and linked
        [twin] = b.near_duplicates
        assert (twin.id, twin.content) == (a.id, first) and twin.similarity >= 0.95
        kinds = {(lk.kind, lk.other(b.id)) for lk in mem.links(b.id)}
        assert ("near_duplicate", a.id) in kinds
        event = mem.audit(memory_id=b.id, op="remember")[0]
        assert a.id in event.details["near_duplicates"]
        report = mem.consolidate(threshold=0.95)
        assert {frozenset((p.a.id, p.b.id)) for p in report.pairs} == {frozenset((a.id, b.id))}


def test_at_least_the_closest_pairs_are_flagged(mem: Lethe) -> None:
    """The issue's own pairs sit above the threshold: they must come back named."""
    flagged = 0
    for first, second in PAIRS[:2]:
        mem.remember(first)
        flagged += bool(mem.remember(second).near_duplicates)
    assert flagged == 2


def test_the_same_text_is_idempotent_only_with_the_same_fields(mem: Lethe, db: str) -> None:
    a = mem.remember("PIN for the gym locker is 4471", tags=["gym", "codes"], importance=0.6)
    before = snapshot(db)
    for spelled in (
        "PIN for the gym locker is 4471",
        "PIN  for the gym\nlocker is 4471 ",
        "PIN for the gym locker is ４４７１",  # full-width digits: the same number
    ):
        same = mem.remember(spelled, tags=["codes", "gym"], importance=0.6)
        assert same.existing and same.id == a.id and not same.near_duplicates
    assert snapshot(db) == before, "nothing written or audited twice"
    other_case = mem.remember("PIN for the gym locker is 4471".upper(), tags=["gym", "codes"])
    assert not other_case.existing, "case can matter (codes, names)"
    other_digit = mem.remember("PIN for the gym locker is 4417", tags=["gym", "codes"])
    assert not other_digit.existing
    as_caveat = mem.remember(
        "PIN for the gym locker is 4471", tags=["gym", "codes"], importance=0.6, layer="caveat"
    )
    assert not as_caveat.existing and as_caveat.layer == "caveat", "a new field is not lost"
    assert a.id in {n.id for n in as_caveat.near_duplicates}
    elsewhere = mem.remember("PIN for the gym locker is 4471", namespace="other")
    assert not elsewhere.existing


def test_a_forgotten_memory_is_not_a_duplicate(mem: Lethe) -> None:
    a = mem.remember("Bought a new bike")
    mem.execute(mem.plan_forget([a.id]))
    again = mem.remember("Bought a new bike")
    assert not again.existing and again.id != a.id


def test_remember_many_skips_exact_duplicates_and_keeps_near_ones(mem: Lethe) -> None:
    stored = mem.remember("Takes 50 mg of sertraline every morning")
    report = mem.remember_many(
        [
            Draft(content="Takes 50 mg of sertraline every morning"),
            Draft(content="Takes 100 mg of sertraline every morning"),
            Draft(content="Takes 100 mg of sertraline  every morning"),
            Draft(content="Dentist appointment on Tuesday at 10am"),
            Draft(content="Dentist appointment on Thursday at 3pm"),
        ]
    )
    assert (report.imported, report.skipped_duplicates) == (3, 2)
    assert report.near_duplicates >= 2
    contents = sorted(m.content for m in mem.list_memories().items)
    assert contents == sorted(
        [
            "Takes 50 mg of sertraline every morning",
            "Takes 100 mg of sertraline every morning",
            "Dentist appointment on Tuesday at 10am",
            "Dentist appointment on Thursday at 3pm",
        ]
    )
    assert "near_duplicate" in {lk.kind for lk in mem.links(stored.id)}
    kept = mem.remember_many(
        [Draft(content="Takes 50 mg of sertraline every morning")], skip_duplicates=False
    )
    assert kept.imported == 1


def test_remember_many_links_stored_memories_as_remember_does(mem: Lethe) -> None:
    """A bulk import finds stored neighbours the way `remember` does: one between the
    related and the duplicate thresholds (0.7 and 0.95) is linked `related`, one above the
    duplicate threshold `near_duplicate`, one below both not at all."""
    berlin = mem.remember("User's sister lives in Berlin").id
    tea = mem.remember("The user's favourite tea is oolong").id
    report = mem.remember_many(
        [
            Draft(content="User's sister moved to Berlin last year"),  # ~0.91 to berlin
            Draft(content="User's sister lives in Berlin!"),  # above 0.95
        ]
    )
    assert report.imported == 2
    ids = {m.content: m.id for m in mem.list_memories().items}

    def links_of(text: str) -> dict[str, str]:
        return {lk.other(ids[text]): lk.kind for lk in mem.links(ids[text])}

    moved = links_of("User's sister moved to Berlin last year")
    assert moved.get(berlin) == "related" and tea not in moved
    again = links_of("User's sister lives in Berlin!")
    assert again.get(berlin) == "near_duplicate" and tea not in again


def test_the_audit_actor_is_not_the_agent(mem: Lethe) -> None:
    m = mem.remember("Dashboard note", agent="dashboard", actor="alice")
    event = mem.audit(memory_id=m.id, op="remember")[0]
    assert (event.actor, event.details["agent"], m.agent) == ("alice", "dashboard", "dashboard")
    plain = mem.remember("A note of my own", agent="bob")
    assert mem.audit(memory_id=plain.id, op="remember")[0].actor == "bob"


def test_an_eviction_caused_by_a_remember_names_who_remembered(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder, working_budget_tokens=12) as small:
        small.remember("User likes green tea in the morning", agent="dashboard", actor="alice")
        small.remember("User plays chess on Sundays with friends", agent="dashboard", actor="alice")
        [evict] = [e for e in small.audit() if e.op == "evict"]
        assert evict.actor == "alice" and evict.details["agent"] == "dashboard"
        small.attend([evict.memory_id or ""], agent="dashboard", actor="carol")
        assert [e.actor for e in small.audit() if e.op == "evict"] == ["alice", "carol"]


def test_two_writers_remembering_the_same_text_at_once_store_it_once(
    db: str, embedder: Embedder
) -> None:
    """The duplicate check runs inside the write transaction: of two stores on one database
    racing with the same text, one writes it and the other gets it back as existing."""
    start = threading.Barrier(2)
    results: list[Remembered] = []

    def write() -> None:
        with Lethe.open(db, embedder=embedder) as own:
            start.wait()
            results.append(own.remember("The spare key is with the neighbour at number 12"))

    threads = [threading.Thread(target=write) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2 and results[0].id == results[1].id
    assert sorted(r.existing for r in results) == [False, True]
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.list_memories().total == 1
