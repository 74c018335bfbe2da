"""The vectors recall ranks by (SQLite, `lethe.store.ranking_vectors`): one index holding each
memory's context vector if it is a turn of a conversation, else its own, kept in step by the
change log — including other processes' writes — so that one search gives the same ranking as
searching the own and the context vectors apart and merging them by cosine."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.store.ranking_vectors import RankingVectors
from tests.backends import sqlite_only


def _expected(db: str) -> dict[str, tuple[str, bool, np.ndarray]]:
    """From the rows: every live memory of a namespace holding a live context, with the
    vector recall should rank it by and whether that is a context."""
    conn = sqlite3.connect(db)
    try:
        contexts = {
            memory_id: (namespace, np.frombuffer(blob, dtype="<f4"))
            for memory_id, namespace, blob in conn.execute(
                """SELECT c.memory_id, c.namespace, c.embedding FROM memory_context c
                   JOIN memories m ON m.id = c.memory_id WHERE m.status = 'active'"""
            )
        }
        held = {namespace for namespace, _ in contexts.values()}
        out = {}
        for memory_id, namespace, blob in conn.execute(
            "SELECT id, namespace, embedding FROM memories WHERE status = 'active'"
        ):
            if namespace not in held:
                continue
            if memory_id in contexts:
                out[memory_id] = (namespace, True, contexts[memory_id][1])
            else:
                out[memory_id] = (namespace, False, np.frombuffer(blob, dtype="<f4"))
        return out
    finally:
        conn.close()


def _held(ranking: RankingVectors, namespaces: set[str]) -> dict[str, tuple[str, bool, np.ndarray]]:
    out = {}
    for namespace in namespaces:
        ids, matrix = ranking.index.namespace_matrix(namespace)
        for memory_id, row in zip(ids, matrix, strict=True):
            out[memory_id] = (namespace, ranking.is_turn(memory_id), row)
    return out


def _assert_in_step(mem: Lethe, db: str) -> None:
    mem.store._sync.sync()  # type: ignore[attr-defined]
    ranking = mem.store._sync.load_ranking()  # type: ignore[attr-defined]
    expected = _expected(db)
    namespaces = {namespace for namespace, _, _ in expected.values()}
    assert namespaces <= ranking.namespaces
    held = _held(ranking, namespaces)
    assert held.keys() == expected.keys()
    for memory_id, (namespace, is_turn, vector) in expected.items():
        assert held[memory_id][:2] == (namespace, is_turn), memory_id
        assert np.allclose(held[memory_id][2], vector, atol=1e-6), memory_id
    for namespace in namespaces:
        turns = any(t for ns, t, _ in expected.values() if ns == namespace)
        assert ranking.has_conversation(namespace) == turns


@sqlite_only
def test_the_ranking_follows_every_change_made_by_another_handle(
    db: str, embedder: Embedder
) -> None:
    with Lethe.open(db, embedder=embedder) as reader, Lethe.open(db, embedder=embedder) as writer:
        for n in range(6):
            writer.remember(f"Turn {n}: we talked about the {n}th trip.", session="chat")
        plain = [writer.remember(f"A plain note number {n} about gardening.").id for n in range(4)]
        reader.recall("trip")  # the reader builds its ranking now
        _assert_in_step(reader, db)
        turns = [m.id for m in writer.list_memories(limit=50).items if m.metadata.get("session")]
        writer.remember("Turn 6: and then the weather turned.", session="chat")
        writer.execute(writer.plan_forget([turns[1]]))
        writer.update(turns[2], content="Turn 2, rewritten: the lake trip.")
        writer.update(plain[0], merge_metadata={"session": "chat"})  # a note becomes a turn
        writer.update(turns[3], metadata={})  # a turn becomes a note
        writer.execute(writer.plan_forget([plain[1]]))
        writer.restore(turns[1])
        writer.update(plain[2], content="A plain note, rewritten: about bees.")
        writer.execute(writer.plan_purge([plain[1]]))
        _assert_in_step(reader, db)
        # A conversation in a namespace the ranking did not hold: it is built again, whole.
        writer.remember("A note in the work namespace.", namespace="work")
        writer.remember("Turn 0 of a work chat.", namespace="work", session="w")
        _assert_in_step(reader, db)
        # The last turn of a namespace forgotten: it has no conversation any more.
        for memory in writer.list_memories({"namespace": "work"}, limit=50).items:
            if memory.metadata.get("session"):
                plan = writer.plan_forget([memory.id], filters={"namespace": "work"})
                assert plan.targets
                writer.execute(plan)
        _assert_in_step(reader, db)
        assert not reader.store._sync.load_ranking().has_conversation("work")  # type: ignore[attr-defined]


@sqlite_only
def test_one_search_ranks_as_the_own_and_context_vectors_merged(
    db: str, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The merged list (other memories by their own vector, turns by their context vector)
    equals the exact ranking computed from the rows, with the int8 first pass in use."""
    monkeypatch.setattr("lethe.store.vectors.PREFILTER_MIN", 1)
    with Lethe.open(db, embedder=embedder) as mem:
        topics = ["hiking", "the dentist", "a new job", "cooking pasta", "the cat", "taxes"]
        for s in range(4):
            for n, topic in enumerate(topics):
                mem.remember(f"Session {s}, turn {n}: talking about {topic}.", session=f"s{s}")
        for topic in topics:
            mem.remember(f"A note about {topic}, written down.")
        query = "what about the dentist appointment?"
        vector = embedder.embed([query])[0]
        own, context = mem.store.vector_search_in_context(
            vector, mem._core.filters({"namespace": "default"}, ()), 10
        )
        assert context is not None
        expected = _expected(db)
        turns = {memory_id for memory_id, (_, is_turn, _) in expected.items() if is_turn}
        exact = sorted(
            ((float(v @ vector), memory_id) for memory_id, (_, _, v) in expected.items()),
            reverse=True,
        )[:10]
        # The top 10 of the merged ranking, split by kind (recall's vector list is these 10).
        want_turns = [(i, s) for s, i in exact if i in turns]
        want_others = [(i, s) for s, i in exact if i not in turns]
        assert want_turns and want_others, "both kinds are among the top 10 here"
        assert [i for i, _ in context] == [i for i, _ in want_turns]
        assert np.allclose([s for _, s in context], [s for _, s in want_turns], atol=1e-5)
        others = [h for h in own if h[0] not in turns]
        assert [i for i, _ in others] == [i for i, _ in want_others]
        # The turns among the hits carry their own cosine in the first list, which stays
        # ordered by cosine.
        rows = {
            memory_id: np.frombuffer(blob, dtype="<f4")
            for memory_id, blob in sqlite3.connect(db).execute("SELECT id, embedding FROM memories")
        }
        assert {i for i, _ in own} - {i for i, _ in others} == {i for i, _ in context}
        for memory_id, score in own:
            assert score == pytest.approx(float(rows[memory_id] @ vector), abs=1e-5)
        assert [s for _, s in own] == sorted((s for _, s in own), reverse=True)


def test_the_turns_own_vectors_rank_among_the_candidate_turns() -> None:
    """With `own_cosine`, a turn's own rank (at a fifth) comes from the cosines given for the
    candidate turns, not from where the turn stands in the first list (a store may leave
    turns out of it)."""
    from lethe.common.ranking import OWN_WEIGHT, fuse_with_context

    context = [("t1", 0.9), ("t2", 0.8)]
    without = fuse_with_context([("a", 0.85)], [], context, [], {"t1", "t2"})
    given = fuse_with_context(
        [("a", 0.85)], [], context, [], {"t1", "t2"}, own_cosine={"t2": 0.7, "t1": 0.2}
    )
    assert {f.id: f.score for f in without}["t2"] < {f.id: f.score for f in given}["t2"]
    t1, t2 = ({f.id: f.score for f in given}[i] for i in ("t1", "t2"))
    best = (2.0 + 2 * OWN_WEIGHT) / 61
    assert t1 == pytest.approx((1 / 61 + OWN_WEIGHT / 62) / best)
    assert t2 == pytest.approx((1 / 63 + OWN_WEIGHT / 61) / best)


class _Axes:
    """An embedder the test lays out: a known text gets the vector given for it, anything
    else (a query) the first axis."""

    name = "test/axes"
    dim = 64

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def embed(self, texts: list[str]) -> np.ndarray:
        first = np.eye(self.dim, dtype=np.float32)[0]
        return np.stack([self.vectors.get(t, first) for t in texts]).astype(np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def test_a_turn_that_matches_by_its_own_vector_alone_is_still_a_candidate(db: str) -> None:
    """A turn whose own vector is the query's, among neighbours about something else (so its
    context ranks below a hundred other memories) and sharing no word with the query: recall
    with a similarity floor, and forgetting by description, judge memories by their own
    cosine, so both must find it."""
    rng = np.random.default_rng(7)
    axes = np.eye(_Axes.dim, dtype=np.float32)
    vectors: dict[str, np.ndarray] = {"Passport lives in the top desk drawer.": axes[0]}
    dinner = [f"Dinner plan {n}: pasta with mushrooms." for n in range(4)]
    for text in dinner:
        vectors[text] = axes[1]
    notes = [f"Zebra note {n}." for n in range(110)]
    for text in notes:
        side = rng.normal(size=_Axes.dim).astype(np.float32)
        side[0] = 0.0
        side /= np.linalg.norm(side)
        vectors[text] = 0.8 * axes[0] + 0.6 * side
    with Lethe.open(db, embedder=_Axes(vectors)) as mem:
        for text in dinner:
            mem.remember(text, session="dinner")
        turn = mem.remember("Passport lives in the top desk drawer.", session="dinner").id
        for text in notes:
            mem.remember(text)
        hits = mem.recall("where is it kept", min_similarity=0.9)
        assert [h.memory.id for h in hits] == [turn]
        plan = mem.plan_forget(query="forget where it is kept")
        assert turn in [item.id for item in plan.items]
