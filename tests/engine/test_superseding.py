"""Corrections (issue 17): `remember(..., supersedes=ID)` stores the new fact and turns the old
one into a version of it in one step — recall finds only the current value, history keeps
the old. The id must be a live memory of the namespace, protection is unchanged, an exact
duplicate loses nothing, and a failure leaves the store as it was — on SQLite and
PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import ConfirmationRequired, InvalidInput
from lethe.model import Remembered
from tests.backends import is_postgres, live_ids, snapshot
from tests.clocks import Clock

OLD = "Alice works at Shopify as a data engineer"
NEW = "Alice now works at Stripe as a data engineer"


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tmem(db: str, embedder: Embedder, clock: Clock) -> Iterator[Lethe]:
    with Lethe.open(db, embedder=embedder, clock=clock) as lethe:
        yield lethe


def contents(hits: list[Any]) -> list[str]:
    return [h.memory.content for h in hits]


# -- what a supersede does ----------------------------------------------------------------


def test_the_new_fact_replaces_the_old_in_place_and_history_keeps_it(
    tmem: Lethe, clock: Clock
) -> None:
    old = tmem.remember(
        OLD, layer="semantic", tags=["alice", "work"], metadata={"source": "chat"}, agent="bob"
    )
    other = tmem.remember("Alice's sister Maria lives in Porto")
    clock.advance(minutes=5)
    new = tmem.remember(NEW, supersedes=old.id, actor="claude")

    assert isinstance(new, Remembered) and not new.existing
    assert (new.id, new.superseded, new.superseded_version) == (old.id, old.id, 1)
    assert (new.content, new.version) == (NEW, 2)
    # The fields not given stay as they were, the agent (whose memory it is) too.
    assert (new.layer, new.tags, new.metadata, new.agent) == (
        "semantic",
        ("alice", "work"),
        {"source": "chat"},
        "bob",
    )
    assert new == tmem.get(old.id), "the answer is the stored memory"
    stored = tmem.store.vector_of(old.id)
    assert stored is not None
    assert float(stored @ tmem.embedder.embed([NEW])[0]) == pytest.approx(1.0, abs=1e-3)
    assert new.created_at == old.created_at and new.updated_at == clock.now

    # Recall returns only the current value, by meaning and by the old words alike.
    for query in ("where does Alice work?", "Shopify", OLD):
        found = contents(tmem.recall(query, k=10))
        assert NEW in found and OLD not in found, (query, found)
    assert {m.id for m in tmem.list_memories().items} == {old.id, other.id}

    v2, v1 = tmem.history(old.id)
    assert (v2.version, v2.current, v2.content, v2.op, v2.actor) == (
        2,
        True,
        NEW,
        "supersede",
        "claude",
    )
    assert (v1.version, v1.content, v1.op, v1.actor) == (1, OLD, "remember", "bob")
    assert v1.valid_until == v2.valid_from == clock.now

    [event] = tmem.audit(memory_id=old.id, op="supersede")
    assert (event.actor, event.memory_id, event.content_sha256) == (
        "claude",
        old.id,
        new.content_sha256,
    )
    assert event.details["superseded_version"] == 1 and event.details["version"] == 2
    assert event.details["fields"] == ["content"]
    assert event.details["old_sha256"] == old.content_sha256
    assert [e.op for e in tmem.audit(memory_id=old.id)] == ["remember", "supersede"]

    # The old value is one revert away.
    assert tmem.revert(old.id, 1).content == OLD


def test_only_the_fields_given_change_and_the_actor_defaults_to_the_agent(tmem: Lethe) -> None:
    old = tmem.remember(OLD, layer="semantic", category="people", importance=0.6, agent="bob")
    new = tmem.remember(NEW, supersedes=old.id, tags=["employer"], importance=0.7, agent="carol")
    assert (new.tags, new.importance) == (("employer",), 0.7)
    assert (new.layer, new.category, new.private, new.metadata) == ("semantic", "people", False, {})
    assert new.agent == "bob", "an update never changes whose memory it is"
    [event] = tmem.audit(memory_id=old.id, op="supersede")
    assert event.actor == "carol"
    assert event.details["fields"] == ["content", "importance", "tags"]
    plain = tmem.remember("Alice now works at Stripe in Dublin", supersedes=old.id)
    assert tmem.audit(memory_id=plain.id, op="supersede")[-1].actor == "bob"


def test_a_retried_supersede_writes_nothing_the_second_time(tmem: Lethe, db: str) -> None:
    old = tmem.remember(OLD)
    first = tmem.remember(NEW, supersedes=old.id)
    before = snapshot(db)
    again = tmem.remember(NEW, supersedes=old.id)
    assert again.existing and again.superseded == old.id and again.superseded_version is None
    assert again.version == first.version == 2
    assert snapshot(db) == before, "no version, no event"


# -- exact duplicates: nothing lost ------------------------------------------------------------


def test_a_memory_already_saying_the_new_text_is_named_and_linked_not_merged_away(
    tmem: Lethe, db: str
) -> None:
    """The new text is already stored as another memory: the supersede still happens (the
    old value must leave recall), the other memory stays, and it is named and linked as a
    near-duplicate. Neither the correction nor either memory is lost."""
    old = tmem.remember(OLD)
    twin = tmem.remember(NEW)
    new = tmem.remember(NEW, supersedes=old.id)
    assert new.id == old.id and not new.existing and new.content == NEW
    assert [(n.id, n.content) for n in new.near_duplicates] == [(twin.id, NEW)]
    assert new.near_duplicates[0].similarity >= 0.99
    assert live_ids(db) == {old.id, twin.id}
    assert ("near_duplicate", twin.id) in {(lk.kind, lk.other(old.id)) for lk in tmem.links(old.id)}
    assert tmem.audit(memory_id=old.id, op="supersede")[0].details["near_duplicates"] == {
        twin.id: pytest.approx(new.near_duplicates[0].similarity)
    }
    assert [v.content for v in tmem.history(old.id)] == [NEW, OLD]
    assert OLD not in contents(tmem.recall(OLD, k=10))


def test_duplicate_detection_sees_the_current_text_not_the_version(tmem: Lethe) -> None:
    old = tmem.remember(OLD)
    tmem.remember(NEW, supersedes=old.id)
    same = tmem.remember(NEW)
    assert same.existing and same.id == old.id, "the superseded memory now says this"
    again = tmem.remember(OLD)
    assert not again.existing and again.id != old.id, "a version is never a live memory"


# -- which ids can be superseded -------------------------------------------------------------


def test_a_missing_trashed_or_foreign_id_is_refused_and_nothing_changes(
    tmem: Lethe, db: str
) -> None:
    old = tmem.remember(OLD)
    gone = tmem.remember("The office moved to the fourth floor")
    tmem.execute(tmem.plan_forget([gone.id]))
    elsewhere = tmem.remember("Alice works at Shopify", namespace="work")
    before = snapshot(db)

    with pytest.raises(InvalidInput) as missing:
        tmem.remember(NEW, supersedes="mem_0123456789ab")
    assert "no memory with this id in namespace 'default'" in missing.value.message
    assert "recall or list" in (missing.value.hint or "")

    with pytest.raises(InvalidInput) as trashed:
        tmem.remember(NEW, supersedes=gone.id)
    assert "in the trash" in trashed.value.message
    assert f"restore({gone.id!r})" in (trashed.value.hint or "")

    with pytest.raises(InvalidInput) as foreign:
        tmem.remember(NEW, supersedes=elsewhere.id)
    assert "namespace 'default'" in foreign.value.message
    assert "work" not in str(foreign.value), "another namespace is not revealed"
    assert "remember in that namespace" in (foreign.value.hint or "")

    for bad in ("mem_xyz", "", "42"):
        with pytest.raises(InvalidInput):
            tmem.remember(NEW, supersedes=bad)
    with pytest.raises(InvalidInput, match="system"):
        tmem.remember(NEW, supersedes=old.id, system=True)
    with pytest.raises(InvalidInput, match="layer"):
        tmem.remember(NEW, supersedes=old.id, layer="dreams")
    with pytest.raises(InvalidInput, match="importance"):
        tmem.remember(NEW, supersedes=old.id, importance=2)
    with pytest.raises(InvalidInput, match="empty"):
        tmem.remember("   ", supersedes=old.id)
    with pytest.raises(InvalidInput, match="agent"):
        tmem.remember(NEW, supersedes=old.id, agent="bad\x00agent", actor="claude")
    assert snapshot(db) == before

    # From its own namespace, the same memory supersedes fine.
    moved = tmem.remember("Alice works at Stripe", namespace="work", supersedes=elsewhere.id)
    assert moved.id == elsewhere.id and moved.namespace == "work"


# -- protection is unchanged ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stored", "given", "protection"),
    [
        ({"layer": "caveat"}, {}, "caveat-layer"),
        ({"layer": "goal"}, {}, "goal-layer"),
        ({"importance": 0.95}, {}, "pinned"),
        ({"importance": 0.95}, {"importance": 0.5}, "pinned"),
        ({"system": True}, {}, "system memory"),
    ],
)
def test_a_protected_memory_is_not_superseded_silently(
    tmem: Lethe, db: str, stored: dict[str, Any], given: dict[str, Any], protection: str
) -> None:
    old = tmem.remember("Never give the dog chocolate", **stored)
    before = snapshot(db)
    with pytest.raises(ConfirmationRequired) as refused:
        tmem.remember("Chocolate is fine for the dog", supersedes=old.id, **given)
    error = refused.value
    assert protection in error.message and "nothing was changed" in error.message
    assert "update(" in (error.hint or "") and "execute" in (error.hint or "")
    assert error.plan.needs_confirmation and error.plan.memory_id == old.id
    assert snapshot(db) == before
    assert contents(tmem.recall("dog chocolate", k=5)) == ["Never give the dog chocolate"]


def test_the_refusal_carries_the_update_to_confirm(tmem: Lethe) -> None:
    """The refusal's plan is the update-with-confirmation path: executed once the person
    agrees, it changes the memory (as a confirmed update, its old text in the history)."""
    old = tmem.remember("Never give the dog chocolate", layer="caveat")
    with pytest.raises(ConfirmationRequired) as refused:
        tmem.remember("Never give the dog chocolate or grapes", supersedes=old.id, actor="claude")
    changed = tmem.execute(refused.value.plan)
    assert changed.content == "Never give the dog chocolate or grapes" and changed.layer == "caveat"
    [event] = tmem.audit(memory_id=old.id, op="update")
    assert event.actor == "claude" and event.details["confirmed"] == "plan"
    assert [v.content for v in tmem.history(old.id)][1] == "Never give the dog chocolate"


def test_gaining_protection_or_changing_what_does_not_weaken_it_needs_no_confirmation(
    tmem: Lethe,
) -> None:
    plain = tmem.remember(OLD)
    pinned = tmem.remember(NEW, supersedes=plain.id, importance=0.95)
    assert pinned.importance == 0.95 and pinned.superseded == plain.id
    caveat = tmem.remember("Never give the dog chocolate", layer="caveat")
    same_text = tmem.remember("Never give the dog chocolate", supersedes=caveat.id, tags=["dog"])
    assert same_text.tags == ("dog",) and same_text.version == 2


def test_a_protection_set_meanwhile_is_respected(
    tmem: Lethe, db: str, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process pins the memory between the supersede's check and its write: the
    supersede plans again on the new state and refuses, changing nothing."""
    old = tmem.remember(OLD)
    write = tmem._superseding._write_supersede
    calls = {"n": 0}

    def pinned_meanwhile(*args: Any, **kwargs: Any) -> Remembered:
        calls["n"] += 1
        if calls["n"] == 1:
            with Lethe.open(db, embedder=embedder) as other:
                other.update(old.id, importance=0.95)
        return write(*args, **kwargs)

    monkeypatch.setattr(tmem._superseding, "_write_supersede", pinned_meanwhile)
    before = snapshot(db)
    with pytest.raises(ConfirmationRequired, match="pinned"):
        tmem.remember(NEW, supersedes=old.id)
    after = snapshot(db)
    assert after["events"][: len(before["events"])] == before["events"]
    assert [e.op for e in tmem.audit(memory_id=old.id)] == ["remember", "update"]
    assert tmem.get(old.id).content == OLD


def test_a_failure_inside_the_transaction_leaves_the_store_unchanged(
    tmem: Lethe, db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lethe.store.postgres_tx import PostgresTx
    from lethe.store.sqlite_tx import SQLiteTx

    old = tmem.remember(OLD)
    tmem.remember(NEW)  # a twin: the failed supersede had linked it
    before = snapshot(db)
    tx_class: type[Any] = PostgresTx if is_postgres(db) else SQLiteTx
    real = tx_class.append_event

    def failing(self: Any, **kwargs: Any) -> int:
        if kwargs.get("op") == "supersede":
            raise RuntimeError("disk on fire")
        return int(real(self, **kwargs))

    monkeypatch.setattr(tx_class, "append_event", failing)
    with pytest.raises(RuntimeError, match="disk on fire"):
        tmem.remember(NEW, supersedes=old.id)
    monkeypatch.undo()
    assert snapshot(db) == before
    assert tmem.get(old.id).content == OLD
    assert OLD in contents(tmem.recall(OLD, k=5))


# -- the workspace ------------------------------------------------------------------------------


def test_the_workspace_files_hold_only_the_new_text(
    tmp_path: Path, embedder: Embedder, db: str
) -> None:
    ws = tmp_path / "ws"
    with Lethe.open(db, embedder=embedder, workspace_dir=ws) as mem:
        old = mem.remember(OLD, importance=0.8)  # curated: in MEMORY.md and its day file
        mem.remember(NEW, supersedes=old.id)
    written = "\n".join(p.read_text(encoding="utf-8") for p in ws.rglob("*.md"))
    assert NEW in written and OLD not in written
    assert f"[id:{old.id}]" in written


# -- naming what a new fact likely supersedes ---------------------------------------------------


def test_remember_names_the_memory_a_correction_likely_supersedes_and_changes_nothing(
    tmem: Lethe, db: str
) -> None:
    old = tmem.remember(OLD, layer="semantic")
    tmem.remember("Bob works at Shopify as a designer")
    tmem.remember("Alice likes green tea")
    rows = snapshot(db)["memories"]
    new = tmem.remember(NEW)
    assert new.id != old.id and not new.existing and new.superseded is None
    [likely] = new.likely_supersedes
    assert (likely.id, likely.preview) == (old.id, OLD)
    assert 0 < likely.confidence <= 1 and likely.evidence
    assert new == tmem.get(new.id), "the answer is still the stored memory"
    assert snapshot(db)["memories"][: len(rows)] == rows, "the old memory is only named"
    assert [v.content for v in tmem.history(old.id)] == [OLD]

    unrelated = tmem.remember("The quarterly tax report is due in April")
    assert unrelated.likely_supersedes == ()


def test_following_the_suggestion_supersedes_it_and_names_the_copy(tmem: Lethe, db: str) -> None:
    old = tmem.remember(OLD)
    new = tmem.remember(NEW)
    assert [s.id for s in new.likely_supersedes] == [old.id]
    done = tmem.remember(NEW, supersedes=old.id)
    assert done.id == old.id and done.likely_supersedes == ()
    assert [n.id for n in done.near_duplicates] == [new.id]
    assert live_ids(db) == {old.id, new.id}
    assert [v.content for v in tmem.history(old.id)] == [NEW, OLD]


def test_no_suggestion_for_an_exact_duplicate_a_supersede_or_what_is_not_a_live_neighbour(
    tmem: Lethe,
) -> None:
    old = tmem.remember(OLD)
    first = tmem.remember(NEW)
    assert [s.id for s in first.likely_supersedes] == [old.id]
    again = tmem.remember(NEW)
    assert again.existing and again.likely_supersedes == ()
    assert tmem.remember(NEW, supersedes=old.id).likely_supersedes == ()

    elsewhere = tmem.remember("Bob lives in Lisbon", namespace="work")
    moved = tmem.remember("Bob now lives in Porto")
    assert elsewhere.id not in {s.id for s in moved.likely_supersedes}, "another namespace"
    assert moved.likely_supersedes == ()

    gone = tmem.remember("Carol's phone number is 555-0101")
    tmem.execute(tmem.plan_forget([gone.id]))
    changed = tmem.remember("Carol's phone number is now 555-0199")
    assert gone.id not in {s.id for s in changed.likely_supersedes}, "a forgotten memory"
