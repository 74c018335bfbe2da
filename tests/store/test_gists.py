"""`Store.gists`: the lean read of a forget plan's candidates. It must say of each live
memory what the whole memory says (its text, and what its plan item shows and is guarded
by), and nothing of a forgotten one: a plan must never be built on a memory already gone."""

from __future__ import annotations

from dataclasses import fields

from lethe import Lethe
from lethe.embed import Embedder
from lethe.model import Gist


def test_a_gist_says_what_the_whole_memory_says(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        plain = mem.remember("User likes jazz")
        pinned = mem.remember("User is allergic to peanuts", importance=1.0, private=True)
        caveat = mem.remember("Never book flights before 9", layer="caveat", namespace="work")
        changed = mem.remember("The sync is on Monday")
        mem.update(changed.id, content="The sync is on Thursday")
        ids = [plain.id, pinned.id, caveat.id, changed.id]
        whole = mem.store.get_many(ids)
        gists = mem.store.gists(ids)
        assert set(gists) == set(ids)
        for memory_id, gist in gists.items():
            memory = whole[memory_id]
            for field in fields(Gist):
                assert getattr(gist, field.name) == getattr(memory, field.name), field.name
            assert gist.preview(10) == memory.preview(10)
        assert gists[pinned.id].private is True and gists[plain.id].private is False
        assert gists[changed.id].version == 2
        assert gists[caveat.id].namespace == "work"


def test_a_forgotten_or_unknown_memory_has_no_gist(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        kept = mem.remember("User owns a red bicycle")
        gone = mem.remember("User lives in Lisbon")
        mem.execute(mem.plan_forget([gone.id]))
        assert set(mem.store.gists([kept.id, gone.id, "mem_unknown"])) == {kept.id}


def test_gists_read_past_one_query_of_ids(db: str, embedder: Embedder) -> None:
    """More ids than one statement takes (500 a query): every one is read."""
    with Lethe.open(db, embedder=embedder) as mem:
        stored = [mem.remember(f"Note number {n}").id for n in range(3)]
        asked = [f"mem_missing_{n}" for n in range(600)] + stored
        assert set(mem.store.gists(asked)) == set(stored)
