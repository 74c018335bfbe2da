"""What the inspector reads besides memories: the audit log filtered by actor and day and
read newest first, and the deletions awaiting a human (two-call and elicitation)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import InvalidInput, MemoryNotFound
from tests.backends import snapshot
from tests.engine.test_forgetting import Clock


@pytest.fixture
def clocked(db: str, embedder: Embedder) -> Iterator[tuple[Lethe, Clock]]:
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        yield mem, clock


def test_audit_filters_by_actor_and_day_and_pages_newest_first(
    clocked: tuple[Lethe, Clock],
) -> None:
    mem, clock = clocked
    day1 = clock.now.replace(hour=0)
    a = mem.remember("User likes green tea", agent="alice").id
    clock.advance(days=1)
    b = mem.remember("User plays the cello", agent="bob").id
    mem.execute(mem.plan_forget(a), actor="carol")
    assert [e.memory_id for e in mem.audit(actor="alice")] == [a]
    assert [(e.op, e.memory_id) for e in mem.audit(actor="carol")] == [("forget", a)]
    first_day = mem.audit(since=day1, until=day1 + timedelta(days=1))
    assert [e.memory_id for e in first_day] == [a]
    second_day = mem.audit(since=day1 + timedelta(days=1), until=day1 + timedelta(days=2))
    assert [(e.op, e.memory_id) for e in second_day] == [("remember", b), ("forget", a)]
    newest = mem.audit(newest_first=True, limit=2)
    assert [e.op for e in newest] == ["forget", "remember"] and newest[0].seq > newest[1].seq
    older = mem.audit(newest_first=True, before_seq=newest[-1].seq, limit=10)
    assert [e.memory_id for e in older] == [a]
    for bad in ({"since": day1.replace(tzinfo=None)}, {"before_seq": -1}, {"actor": ""}):
        with pytest.raises(InvalidInput):
            mem.audit(**bad)  # type: ignore[arg-type]


def test_pending_confirmations_list_both_kinds_with_expiry(
    clocked: tuple[Lethe, Clock], db: str
) -> None:
    mem, clock = clocked
    a = mem.remember("User lives in Lisbon").id
    b = mem.remember("User collects stamps", namespace="hobby").id
    mem.forget(a, session="chat-1")
    before = snapshot(db)
    mem.ask(mem.plan_forget(b, filters={"namespace": "hobby"}), session="desktop-7")
    assert snapshot(db)["memories"] == before["memories"], "asking deletes nothing"
    items = {p.memory_id: p for p in mem.pending_confirmations()}
    assert items[a].via == "two_call" and items[a].session == "chat-1"
    assert items[b].via == "elicitation" and items[b].session == "desktop-7"
    assert items[b].namespace == "hobby" and items[b].preview == "User collects stamps"
    assert items[a].expires_at == clock.now + timedelta(seconds=mem.settings.confirm_ttl_seconds)
    assert not items[a].expired
    assert [p.memory_id for p in mem.pending_confirmations(namespace="hobby")] == [b]
    mem.forget(b, session="desktop-7", namespace="hobby")  # a two-call first call, not a yes
    hobby = mem.list_memories({"namespace": "hobby"}).items
    assert [m.id for m in hobby] == [b], "the open question did not count as a first call"
    clock.advance(seconds=mem.settings.confirm_ttl_seconds + 1)
    assert all(p.expired for p in mem.pending_confirmations())
    mem.answered(session="desktop-7", operation="forget", memory_ids=[b])
    assert {p.via for p in mem.pending_confirmations()} == {"two_call"}


def test_episodes_of_a_memory(mem: Lethe) -> None:
    a = mem.remember("User flew to Tokyo").id
    b = mem.remember("User ate ramen in Shinjuku").id
    trip = mem.create_episode("Trip to Japan", [a, b])
    talk = mem.create_episode("Talk about ramen", [b])
    assert [e.id for e in mem.episodes_of(a)] == [trip.id]
    assert {e.id for e in mem.episodes_of(b)} == {trip.id, talk.id}
    mem.execute(mem.plan_forget(b))
    with pytest.raises(MemoryNotFound, match=f"Memory not found: {b}"):
        mem.episodes_of(b)


def test_neighbours_are_live_and_strongest_first(mem: Lethe) -> None:
    a = mem.remember("User adopted a cat named Miso").id
    b = mem.remember("Miso the cat likes tuna", allow_duplicate=True).id
    c = mem.remember("User buys cat food on Fridays", allow_duplicate=True).id
    mem.link(a, b, kind="about", confidence=0.4)
    mem.link(a, c, kind="about", confidence=0.9)
    about = [(m.id, lk.confidence) for lk, m in mem.neighbours(a) if lk.kind == "about"]
    assert about == [(c, 0.9), (b, 0.4)]
    mem.execute(mem.plan_forget(c))
    assert c not in {m.id for _, m in mem.neighbours(a)}, "a forgotten memory is no neighbour"
    mem.restore(c)
    assert [m.id for lk, m in mem.neighbours(a) if lk.kind == "about"] == [c, b]
