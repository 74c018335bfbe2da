"""Conversations (issue 21): a memory that belongs to a session is also ranked with the turns
around it, its context follows every change of its conversation in the same transaction (a
forgotten or purged turn leaves its neighbours' contexts at once), and forgetting still
judges each memory by its own content — on both stores, with the real MiniLM embedder."""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lethe import Lethe
from lethe.common.context import Turn, contexts, members_json, session_of, speaker_of
from lethe.common.ranking import fuse, fuse_with_context
from lethe.embed import Embedder
from lethe.errors import InvalidInput
from lethe.model import Draft
from tests.backends import is_postgres, run_sql, snapshot

SATURDAY = [
    ("Gloria", "Hey Nils! How was your weekend?"),
    ("Nils", "Pretty good, thanks."),
    ("Gloria", "What did you do on Saturday?"),
    ("Nils", "Went hiking at Mount Tamalpais with my sister."),
    ("Gloria", "Sounds lovely."),
]
DISTRACTORS = [
    "Priya went hiking in the Alps last summer.",
    "Tom says hiking is his favourite sport.",
    "On Saturday the library closes at noon.",
    "Saturday's football match was cancelled because of rain.",
    "Nils prefers tea to coffee.",
    "The farmers market moves to Sunday in winter.",
    "Our team offsite is next Saturday.",
    "Maya's sister lives in Porto.",
]
OTHER = [
    ("Ines", "Hello! Ines here."),
    ("assistant", "Hi Ines, how can I help?"),
    ("Ines", "My usual café order is a cortado."),
    ("assistant", "Saturday is the farmers market, if you need vegetables."),
]


@pytest.fixture
def conv(mem: Lethe) -> Iterator[tuple[Lethe, list[str]]]:
    drafts = [
        Draft(content=text, metadata={"session": session, "speaker": who})
        for session, turns in (("s-1", SATURDAY), ("s-2", OTHER))
        for who, text in turns
    ]
    mem.remember_many(drafts, auto_link=False)
    ids = [m.id for m in sorted(mem.list_memories(limit=50).items, key=lambda m: m.created_at)]
    yield mem, ids


def _contexts(db: str) -> dict[str, str]:
    return dict(run_sql(db, "SELECT memory_id, content FROM memory_context"))  # type: ignore[arg-type]


def test_an_elliptical_answer_is_found_through_its_question(
    conv: tuple[Lethe, list[str]],
) -> None:
    mem, _ = conv
    answer = SATURDAY[3][1]
    question = "What did Nils do on Saturday?"
    mem.remember_many(
        [Draft(content=text, namespace=ns) for text in DISTRACTORS for ns in ("default", "plain")]
        + [Draft(content=text, namespace="plain") for _, text in SATURDAY + OTHER],
        auto_link=False,
    )
    hits = [h.memory.content for h in mem.recall(question, k=5)]
    assert answer in hits
    # The same turns without a session rank by their own words alone: not found.
    plain = [h.memory.content for h in mem.recall(question, k=5, filters={"namespace": "plain"})]
    assert answer not in plain


def test_contexts_follow_forget_restore_and_purge(db: str, conv: tuple[Lethe, list[str]]) -> None:
    mem, ids = conv
    question, answer = ids[2], ids[3]
    assert "Saturday" in _contexts(db)[answer]
    mem.execute(mem.plan_forget([question]))
    contexts = _contexts(db)
    assert question not in contexts
    assert not any("What did you do on Saturday" in text for text in contexts.values())
    mem.restore(question)
    assert "What did you do on Saturday" in _contexts(db)[answer]
    mem.execute(mem.plan_purge([question]))
    contexts = _contexts(db)
    assert not any("What did you do on Saturday" in text for text in contexts.values())
    assert question not in mem.store.conversational(ids)
    if not is_postgres(db):  # the erased words are gone from the context's full-text index
        phrase = "SELECT count(*) FROM context_fts WHERE context_fts MATCH '\"what did you do\"'"
        assert run_sql(db, phrase)[0][0] == 0
        raw = Path(db).read_bytes()
        assert b"What did you do on Saturday" not in raw


def test_a_changed_turn_changes_its_neighbours_contexts(
    db: str, conv: tuple[Lethe, list[str]]
) -> None:
    mem, ids = conv
    mem.update(ids[2], content="Where did you go on Sunday?")
    contexts = _contexts(db)
    assert "Sunday" in contexts[ids[3]] and "Saturday" not in contexts[ids[3]]
    mem.update(ids[3], merge_metadata={"session": "s-9"})  # moved to another conversation
    contexts = _contexts(db)
    assert "Mount Tamalpais" not in contexts[ids[2]]
    assert contexts[ids[3]].endswith("Went hiking at Mount Tamalpais with my sister.")
    # and back, to a conversation rebuilt before the one it leaves
    mem.update(ids[3], merge_metadata={"session": "s-1"})
    assert "Mount Tamalpais" in _contexts(db)[ids[2]]


def test_forgetting_judges_each_memory_by_its_own_words(conv: tuple[Lethe, list[str]]) -> None:
    """The question turn's context holds the hike; a forget of the hike never marks it."""
    mem, ids = conv
    plan = mem.plan_forget(query="the hike at Mount Tamalpais with my sister")
    marked = {item.id for item in plan.items}
    assert ids[3] in marked
    assert ids[2] not in marked and ids[4] not in marked


def test_a_failed_rebuild_leaves_the_store_as_it_was(
    db: str, conv: tuple[Lethe, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    mem, _ = conv
    before = snapshot(db)

    def broken(*_: object) -> None:
        raise RuntimeError("the context could not be built")

    monkeypatch.setattr("lethe.store.sql_context.context_of", broken)
    with pytest.raises(RuntimeError):
        mem.remember("Nils: and on Sunday I slept.", metadata={"session": "s-1"})
    assert snapshot(db) == before


def test_conversations_stored_before_contexts_are_built_at_open(
    db: str, embedder: Embedder, conv: tuple[Lethe, list[str]]
) -> None:
    mem, ids = conv
    mem.close()
    run_sql(db, "DELETE FROM memory_context")
    run_sql(db, "INSERT INTO conversation_dirty VALUES ('default', 's-1')")
    with Lethe.open(db, embedder=embedder) as again:
        assert set(ids[:5]) <= again.store.conversational(ids)
        assert "Saturday" in _contexts(db)[ids[3]]


def test_sessions_are_texts_or_whole_numbers(db: str, mem: Lethe) -> None:
    sessions = ("  s-3 ", 42, 4.5, True, "", {"id": 1}, 2**63, 2**63 + 1, 10**20)
    for session in sessions:
        mem.remember(f"turn in {session!r}", metadata={"session": session})
    rows = run_sql(db, "SELECT content, conversation FROM memories ORDER BY created_at")
    assert [r[1] for r in rows] == ["s-3", "42", *[None] * 7]
    assert [session_of({"session": s}) for s in sessions] == ["s-3", "42", *[None] * 7]


def test_without_conversations_the_ranking_is_the_plain_fusion() -> None:
    vector = [("a", 0.9), ("b", 0.8), ("c", 0.5)]
    lexical = ["c", "a", "d"]
    plain = fuse([i for i, _ in vector], lexical)
    mixed = fuse_with_context(vector, lexical, [], [], set())
    assert [(f.id, round(f.score, 9)) for f in mixed] == [(f.id, round(f.score, 9)) for f in plain]
    # A conversational memory competes by its context's cosine.
    ranked = fuse_with_context(vector, lexical, [("c", 0.95)], ["c"], {"c"})
    assert ranked[0].id == "c" and ranked[0].vector_rank == 1


def test_a_session_given_at_remember(db: str, mem: Lethe) -> None:
    first = mem.remember("What did you do on Saturday?", session="chat-7")
    second = mem.remember("Went sailing.", session="chat-7", metadata={"speaker": "Ana"})
    assert first.metadata["session"] == "chat-7"
    assert second.metadata == {"speaker": "Ana", "session": "chat-7"}
    assert mem.store.conversational([first.id, second.id]) == {first.id, second.id}
    before = snapshot(db)
    with pytest.raises(InvalidInput, match="two conversations"):
        mem.remember("Sunday too.", session="chat-7", metadata={"session": "chat-8"})
    with pytest.raises(InvalidInput, match="session"):
        mem.remember("Sunday too.", session="a\nb")
    assert snapshot(db) == before


def test_the_window_is_a_setting_and_a_change_rebuilds(
    db: str, embedder: Embedder, conv: tuple[Lethe, list[str]]
) -> None:
    mem, ids = conv
    mem.close()
    with Lethe.open(db, embedder=embedder, context_before=0, context_after=0) as narrow:
        assert _contexts(db)[ids[3]].endswith("\nWent hiking at Mount Tamalpais with my sister.")
        assert "Saturday" not in _contexts(db)[ids[3]]
        assert narrow.store.conversational(ids) >= set(ids[:5])
    with Lethe.open(db, embedder=embedder) as wide:
        assert "Saturday" in _contexts(db)[ids[3]]
        assert wide.settings.context_before == 4


def test_an_episode_is_a_conversation_for_members_without_a_session(db: str, mem: Lethe) -> None:
    turns = [
        mem.remember("What did you do on Saturday?").id,
        mem.remember("Went hiking at Mount Tamalpais.").id,
        mem.remember("Nice. Who with?").id,
    ]
    own = mem.remember("A turn of another chat.", session="chat-1").id
    assert mem.store.conversational([*turns, own]) == {own}
    mem.create_episode("Weekend chat", [*turns, own])
    assert mem.store.conversational([*turns, own]) == {*turns, own}
    contexts = _contexts(db)
    assert "Saturday" in contexts[turns[1]]
    assert "Saturday" not in contexts[own]  # its session is its conversation
    # A second, later episode does not take its members.
    mem.create_episode("Again", [turns[1]])
    assert "Saturday" in _contexts(db)[turns[1]]
    mem.execute(mem.plan_purge([turns[0]]))
    assert not any("What did you do" in text for text in _contexts(db).values())


def test_every_process_builds_with_the_window_last_opened(
    db: str, embedder: Embedder, conv: tuple[Lethe, list[str]]
) -> None:
    """A process still open with the old window writes with the new one, not its own."""
    wide, ids = conv
    with Lethe.open(db, embedder=embedder, context_before=0, context_after=0):
        wide.remember("Nils: and on Sunday I slept.", metadata={"session": "s-1"})
        assert "Saturday" not in _contexts(db)[ids[3]]


def test_purging_several_members_of_one_episode_at_once(db: str, mem: Lethe) -> None:
    """Each erased member marks the episode again in one transaction: a second mark must not
    fail the purge (it did on SQLite, where the marking ran inside a foreign-key action)."""
    ids = [mem.remember(f"Episode turn {n} about the lake house.").id for n in range(4)]
    mem.create_episode("Lake house chat", ids)
    mem.execute(mem.plan_forget(ids[:2]))
    result = mem.execute(mem.plan_purge(ids[:2]))
    assert set(result.executed) == set(ids[:2])
    assert not any("turn 0" in text or "turn 1" in text for text in _contexts(db).values())


def _stored(db: str) -> dict[str, tuple[str, str, list[float]]]:
    """Every stored context: its text, window and vector."""
    rows = run_sql(db, "SELECT memory_id, content, members, embedding FROM memory_context")
    out = {}
    for memory_id, text, members, embedding in rows:
        if isinstance(embedding, bytes):
            vector = np.frombuffer(embedding, dtype="<f4").tolist()
        else:  # pgvector's text form
            vector = [float(x) for x in str(embedding).strip("[]").split(",")]
        out[memory_id] = (text, members, vector)
    return out


def _from_scratch(db: str) -> dict[str, tuple[str, str, list[float]]]:
    """The contexts of every live session turn, made afresh from the rows."""
    rows = run_sql(
        db,
        """SELECT id, content, embedding, metadata, conversation FROM memories
           WHERE status = 'active' AND conversation IS NOT NULL
           ORDER BY conversation, created_at, num""",
    )
    by_conversation: dict[str, list[Turn]] = {}
    for memory_id, content, embedding, metadata, conversation in rows:
        if isinstance(embedding, bytes):
            vector = np.frombuffer(embedding, dtype="<f4")
        else:
            vector = np.array([float(x) for x in str(embedding).strip("[]").split(",")], "f4")
        meta = metadata if isinstance(metadata, dict) else json.loads(metadata)
        by_conversation.setdefault(conversation, []).append(
            Turn(memory_id, content, vector, speaker_of(meta))
        )
    out = {}
    for turns in by_conversation.values():
        for turn, c in zip(turns, contexts(turns), strict=True):
            out[turn.memory_id] = (c.text, members_json(c.members), c.vector.tolist())
    return out


def test_contexts_remade_in_part_equal_contexts_made_afresh(db: str, mem: Lethe) -> None:
    """A change remakes only the contexts whose window it touched; after any mix of changes
    (appends, forgets, restores, new words, a new speaker, a move, a purge) what is stored is
    what building every context again would give."""
    rng = random.Random(21)
    ids = [
        mem.remember(
            f"Turn {n}: about the {w} trip.", session="long", metadata={"speaker": "Ana"}
        ).id
        for n, w in enumerate(["lake", "city", "coast", "mountain", "desert", "island"] * 3)
    ]
    forgotten: list[str] = []
    for step in range(24):
        live = [i for i in ids if i not in forgotten]
        action = step % 6
        if action == 0:
            ids.append(
                mem.remember(f"Later turn {step}.", session="long", metadata={"speaker": "Ben"}).id
            )
        elif action == 1:
            target = rng.choice(live)
            mem.execute(mem.plan_forget([target]))
            forgotten.append(target)
        elif action == 2 and forgotten:
            mem.restore(forgotten.pop(0))
        elif action == 3:
            mem.update(rng.choice(live), content=f"Rewritten turn at step {step}.")
        elif action == 4:
            mem.update(rng.choice(live), merge_metadata={"speaker": f"Cleo {step}"})
        elif action == 5 and step == 5:
            mem.update(rng.choice(live), merge_metadata={"session": "other"})
        elif action == 5 and forgotten:
            mem.execute(mem.plan_purge([forgotten.pop()]))
    stored, fresh = _stored(db), _from_scratch(db)
    assert stored.keys() == fresh.keys()
    for memory_id, (text, members, vector) in fresh.items():
        assert stored[memory_id][:2] == (text, members)
        assert np.allclose(stored[memory_id][2], vector, atol=1e-6)


def test_appending_a_turn_remakes_two_contexts(mem: Lethe, monkeypatch: pytest.MonkeyPatch) -> None:
    for n in range(30):
        mem.remember(f"Turn {n} of a long chat.", session="long")
    made: list[str] = []
    for module in ("sql_context",):  # both stores' contexts are made there
        original = importlib.import_module(f"lethe.store.{module}").context_of

        def counting(members: Any, turns: Any, original: Any = original) -> Any:
            made.append(members)
            return original(members, turns)

        monkeypatch.setattr(f"lethe.store.{module}.context_of", counting)
    mem.remember("The newest turn.", session="long")
    assert len(made) == 2  # the new turn's, and the one before it (it now has a next turn)


def test_a_session_named_like_an_episode_is_its_own_conversation(db: str, mem: Lethe) -> None:
    """A session may be any text, "episode:<id>" too: it must not join that episode's turns."""
    turns = [mem.remember(f"Episode turn {n} about the lake house.").id for n in range(3)]
    episode = mem.create_episode("Lake house chat", turns)
    stranger = mem.remember("A turn about the city flat.", session=f"episode:{episode.id}").id
    contexts = _contexts(db)
    assert "city flat" not in contexts[turns[2]]
    assert "lake house" not in contexts[stranger]
