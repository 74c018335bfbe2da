"""Tests that fail when a rule of the forgetting core is broken on purpose.

A mutation run against the core found deliberate bugs no test caught: the pin moved off 0.9
(or `>=` became `>`), protection no longer checked again at execution, a purge that left the
WAL as it was, a sweep plan that never expired, `maintain()` that forgot to record or redact,
the query-only bar and the preview floor moved, and audit triggers that let an event's
`details` or `reason` be rewritten. Each test here names the rule it holds, at its documented
value (docs/forgetting.md), on both stores where both have it.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.engine.forget_session import ForgetSession
from lethe.engine.forgetting import previewed
from lethe.errors import ConfirmationRequired, InvalidInput
from lethe.forget.guard import protections
from lethe.forget.plan import query_items
from lethe.model import Memory
from tests.backends import is_postgres, live_ids, run_sql, snapshot, sqlite_only
from tests.engine.test_forgetting import Clock

TTL = 300  # confirm_ttl_seconds by default: plans and pending confirmations live 5 minutes

# -- the pin: importance >= 0.9 ---------------------------------------------------------------


def test_the_guard_pins_from_exactly_point_nine() -> None:
    assert [p.kind for p in protections("mem_0123456789ab", "episodic", 0.9)] == ["pin"]
    assert [p.kind for p in protections("mem_0123456789ab", "episodic", 1.0)] == ["pin"]
    assert protections("mem_0123456789ab", "episodic", 0.8999) == []
    [pin] = protections("mem_0123456789ab", "semantic", 0.9)
    assert pin.reason == "pinned (importance 0.9 >= 0.9)"
    assert pin.hint.startswith("lower its importance below 0.9 with update first")


def test_a_memory_at_exactly_point_nine_is_never_deleted(db: str, embedder: Embedder) -> None:
    """0.9 is pinned on every path (explicit ids, query, purge, two calls, decay, lowering it
    is a confirmed change); 0.8999 is not."""
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        pinned = mem.remember("User's passport number is kept in the blue folder", importance=0.9)
        plain = mem.remember("User bought a second-hand cello in Porto", importance=0.8999)
        idle = mem.remember("User once rented a canoe on the Douro", importance=0.8999)
        by_id = mem.plan_forget([pinned.id, plain.id])
        actions = {i.id: (i.action, i.protection) for i in by_id.items}
        assert actions == {
            pinned.id: ("refuse", "pinned (importance 0.9 >= 0.9)"),
            plain.id: ("delete", None),
        }
        by_query = mem.plan_forget(query="User's passport number is kept in the blue folder")
        assert (by_query.items[0].id, by_query.items[0].action) == (pinned.id, "refuse")
        purge = mem.plan_purge([pinned.id])
        assert [i.action for i in purge.items] == ["refuse"]
        assert mem.execute(purge).executed == ()
        assert mem.execute(by_query).executed == ()
        assert mem.execute(by_id).executed == (plain.id,)
        for _ in range(2):
            assert mem.forget(pinned.id, session="chat").status == "refused"
        with pytest.raises(ConfirmationRequired):
            mem.update(pinned.id, importance=0.5)
        clock.advance(days=2000)
        sweep = mem.sweep()
        assert [(i.id, i.action) for i in sweep.items] == [(idle.id, "drop")]
        assert sweep.protected == 1
        assert mem.execute_sweep(sweep).dropped == (idle.id,)
        assert live_ids(db) == {pinned.id}
        assert mem.get(pinned.id).importance == 0.9


# -- protection is checked again at execution ----------------------------------------------


@pytest.mark.parametrize(
    ("change", "reason"),
    [({"importance": 0.95}, "pinned"), ({"layer": "caveat"}, "caveat-layer")],
)
def test_a_target_protected_after_its_plan_is_refused_at_execution(
    mem: Lethe, db: str, change: dict[str, Any], reason: str
) -> None:
    target = mem.remember("User keeps the spare key under the third flowerpot")
    other = mem.remember("User's bicycle is a green Gazelle")
    forget = mem.plan_forget([target.id, other.id])
    purge = mem.plan_purge([target.id])
    assert [i.action for i in forget.items] == ["delete", "delete"]
    mem.update(target.id, **change)  # the content (and its hash) stays the same
    result = mem.execute(forget)
    assert result.executed == (other.id,)
    assert [(i.id, i.action) for i in result.refused] == [(target.id, "refuse")]
    assert reason in (result.refused[0].protection or "") and result.refused[0].hint
    assert mem.execute(purge).executed == ()
    assert target.id in live_ids(db) and mem.store.get(target.id) is not None
    assert [e.memory_id for e in mem.audit(op="forget")] == [other.id]
    assert mem.audit(op="purge") == []


def test_a_sweep_leaves_a_memory_pinned_after_its_plan(db: str, embedder: Embedder) -> None:
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        old = mem.remember("User once owned a red bicycle")
        other = mem.remember("User once had a blue kite")
        clock.advance(days=300)
        plan = mem.sweep()
        assert {i.id: i.action for i in plan.items} == {old.id: "drop", other.id: "drop"}
        mem.update(old.id, importance=0.9)
        result = mem.execute_sweep(plan)
        assert result.dropped == (other.id,) and old.id in result.skipped
        assert live_ids(db) == {old.id}


# -- the query-only bar (0.6) and the preview floor (0.4) -----------------------------------


class ExactCosines:
    """An embedder whose cosines the test sets: a known memory text gets `c·e0 + √(1−c²)·e_k`
    (its own axis k), anything else (the query) gets e0, so each memory's similarity to the
    query is exactly the number given. The store, its vector index and the planner are the
    real ones; MiniLM cannot put a sentence at 0.4001 on purpose."""

    name = "test/exact-cosines"
    dim = 16

    def __init__(self, cosines: dict[str, float]) -> None:
        assert len(cosines) < self.dim
        self.cosines = cosines
        self.axis = {text: n + 1 for n, text in enumerate(cosines)}

    def embed(self, texts: Sequence[str]) -> np.ndarray[Any, np.dtype[np.float32]]:
        rows = np.zeros((len(texts), self.dim), dtype=np.float64)
        for row, text in zip(rows, texts, strict=True):
            c = self.cosines.get(text)
            if c is None:
                row[0] = 1.0
            else:
                row[0], row[self.axis[text]] = c, np.sqrt(1.0 - c * c)
        return rows.astype(np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


ABOVE_FLOOR = "Orchard ladder stored behind the shed"
BELOW_FLOOR = "Violin strings replaced in autumn"
ABOVE_BAR = "Harbour ferry timetable for Sundays"
BELOW_BAR = "Lighthouse keeper's cottage rental"
COSINES = {ABOVE_FLOOR: 0.4001, BELOW_FLOOR: 0.3999, ABOVE_BAR: 0.6001, BELOW_BAR: 0.5999}
QUERY = "zzz unrelated query words"


@pytest.fixture
def exact(db: str) -> Iterator[tuple[Lethe, dict[str, str]]]:
    """One memory per side of each threshold, each alone in its namespace (a lone candidate
    has no runner-up, so only the bar decides whether it is the clear winner)."""
    with Lethe.open(db, embedder=ExactCosines(COSINES)) as mem:
        ids = {
            "above_floor": mem.remember(ABOVE_FLOOR, namespace="floor").id,
            "below_floor": mem.remember(BELOW_FLOOR, namespace="floor").id,
            "above_bar": mem.remember(ABOVE_BAR, namespace="above").id,
            "below_bar": mem.remember(BELOW_BAR, namespace="below").id,
        }
        yield mem, ids


def test_the_preview_floor_is_point_four(exact: tuple[Lethe, dict[str, str]]) -> None:
    mem, ids = exact
    plan = mem.plan_forget(query=QUERY, filters={"namespace": "floor"})
    assert [(i.id, i.similarity) for i in plan.items] == [(ids["above_floor"], 0.4001)]
    assert plan.items[0].action == "skip" and plan.items[0].confidence == "low"
    found = ForgetSession(mem, "forget the ladder", namespace="floor").search_memories(QUERY)
    assert [c["id"] for c in found["candidates"]] == [ids["above_floor"]]


def test_a_description_deletes_only_with_its_words_and_the_floor(
    exact: tuple[Lethe, dict[str, str]], db: str
) -> None:
    """Cosine alone never marks (0.6001 to words it does not say); the request's words do,
    above the planner's cosine floor (0.45) and not below it."""
    mem, ids = exact
    unrelated = mem.plan_forget(query=QUERY, filters={"namespace": "above"})
    [item] = unrelated.items
    assert (item.id, item.action) == (ids["above_bar"], "skip")
    assert "says none of the request's words" in item.reason
    said = mem.plan_forget(
        query="forget the harbour ferry timetable", filters={"namespace": "above"}
    )
    [item] = said.items
    assert (item.id, item.action, item.confidence) == (ids["above_bar"], "delete", "high")
    assert item.certainty is not None and item.certainty >= 0.9
    faint = mem.plan_forget(query="forget the violin strings", filters={"namespace": "floor"})
    [item] = [i for i in faint.items if i.id == ids["below_floor"]] or [None]
    assert faint.targets == ()
    assert mem.execute(said).executed == (ids["above_bar"],)
    assert mem.execute(unrelated).executed == ()
    assert mem.execute(faint).executed == ()
    assert ids["below_floor"] in live_ids(db)


AT_FLOOR = "Garden hose coiled by the rain barrel"
UNDER_FLOOR = "Canoe paddles hung in the garage"
JUST_UNDER = math.nextafter(0.4, 0.0)  # the largest float below 0.4


def test_the_preview_floor_helper_includes_point_four_itself() -> None:
    assert previewed(0.4) and previewed(1.0)
    assert not previewed(JUST_UNDER) and not previewed(0.3999)


@pytest.fixture
def forced(db: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Lethe, dict[str, str]]]:
    """Two memories whose cosine to the query is forced to exactly 0.4 and to the float just
    below it. A float32 cosine never lands on 0.4, so the store's vector searches (plain, and
    recall's with contexts) are wrapped to report these two numbers; the planners above them
    are the real ones."""
    cosines = {AT_FLOOR: 0.45, UNDER_FLOOR: 0.45}
    with Lethe.open(db, embedder=ExactCosines(cosines)) as mem:
        scope = {"source": "garden.md"}
        ids = {
            "at": mem.remember(AT_FLOOR, namespace="edge", metadata=scope).id,
            "under": mem.remember(UNDER_FLOOR, namespace="edge", metadata=scope).id,
        }
        exact = {ids["at"]: 0.4, ids["under"]: JUST_UNDER}
        search = mem.store.vector_search

        def vector_search(*args: Any, **kwargs: Any) -> list[tuple[str, float]]:
            return [(i, exact.get(i, s)) for i, s in search(*args, **kwargs)]

        in_context = mem.store.vector_search_in_context

        def vector_search_in_context(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
            own, context = in_context(*args, **kwargs)
            return [(i, exact.get(i, s)) for i, s in own], context

        monkeypatch.setattr(mem.store, "vector_search", vector_search)
        monkeypatch.setattr(mem.store, "vector_search_in_context", vector_search_in_context)
        yield mem, ids


def test_the_description_planner_lists_a_candidate_at_exactly_the_floor(
    forced: tuple[Lethe, dict[str, str]],
) -> None:
    mem, ids = forced
    plan = mem.plan_forget(query=QUERY, filters={"namespace": "edge"})
    assert [(i.id, i.similarity, i.action) for i in plan.items] == [(ids["at"], 0.4, "skip")]


def test_the_cosine_planner_keeps_a_candidate_at_exactly_the_floor(
    forced: tuple[Lethe, dict[str, str]],
) -> None:
    """The user's metadata scope sends the query to the cosine planner, where every candidate
    at or above the floor is a target: 0.4 is one, the float below it is not even listed."""
    mem, ids = forced
    plan = mem.plan_forget(query=QUERY, filters={"namespace": "edge", "source": "garden.md"})
    assert [(i.id, i.similarity, i.tier, i.action) for i in plan.items] == [
        (ids["at"], 0.4, "filter", "delete")
    ]


def _memory(n: int) -> Memory:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return Memory(
        id=f"mem_{n:012x}", content=f"memory {n}", content_sha256="0" * 64,
        created_at=now, updated_at=now,
    )  # fmt: skip


def test_the_bar_includes_point_six_itself() -> None:
    """Planning is pure: at exactly 0.6 a lone candidate is the clear winner, just below not."""
    [at] = query_items([(_memory(1), 0.6)], scoped=False, near_copies=set(), margin=0.05)[0]
    assert (at.action, at.confidence) == ("delete", "high")
    [under] = query_items([(_memory(1), 0.59999)], scoped=False, near_copies=set(), margin=0.05)[0]
    assert (under.action, under.confidence) == ("skip", "low")


# -- a sweep plan expires like any plan ------------------------------------------------------


def test_a_sweep_plan_expires_after_the_confirmation_window(db: str, embedder: Embedder) -> None:
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        old = mem.remember("User once owned a red bicycle")
        clock.advance(days=200)
        stale = mem.sweep()
        assert [i.id for i in stale.items] == [old.id]
        clock.advance(seconds=TTL + 1)
        before = snapshot(db)
        with pytest.raises(InvalidInput, match="the sweep plan expired"):
            mem.execute_sweep(stale)
        assert snapshot(db) == before
        fresh = mem.sweep()
        clock.advance(seconds=TTL)  # still within the window
        assert mem.execute_sweep(fresh).dropped == (old.id,)


# -- maintain(): stale confirmations are recorded, expired trash is redacted ------------------


def test_maintain_expires_stale_confirmations_on_the_record(db: str, embedder: Embedder) -> None:
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        a = mem.remember("User lives in Lisbon").id
        b = mem.remember("User collects stamps").id
        c = mem.remember("User plays the cello").id
        mem.forget(a, session="chat-1")
        mem.forget(b, session="chat-1", operation="purge")
        clock.advance(seconds=TTL - 1)
        mem.forget(c, session="chat-2")
        assert mem.maintain().expired_confirmations == 0, "nothing is stale yet"
        assert mem.audit(op="confirmation_expired") == []
        assert len(mem.store.pending_all()) == 3

        clock.advance(seconds=2)  # a and b are TTL + 1 s old, c is 2 s old
        report = mem.maintain()
        assert report.expired_confirmations == 2 and report.expired == ()
        expired = sorted(
            (e.memory_id, e.actor, e.namespace, e.details["operation"], e.details["requests"])
            for e in mem.audit(op="confirmation_expired")
        )
        assert expired == sorted(
            [(a, "chat-1", "default", "forget", 1), (b, "chat-1", "default", "purge", 1)]
        )
        assert {(p.session, p.memory_id) for p in mem.store.pending_all()} == {("chat-2", c)}
        assert live_ids(db) == {a, b, c}, "an expired confirmation deletes nothing"
        assert mem.maintain().expired_confirmations == 0, "recorded once"
        again = mem.forget(a, session="chat-1")
        assert again.status == "pending", "the next call previews again"
        assert a in live_ids(db)


NEEDLES = (b"Quetzal", b"quetzal", b"Marmoset", b"marmoset", b"Tapir5521x")


def _raw_bytes(db: str) -> dict[str, bytes]:
    """The database file and its WAL as they are on disk now: no checkpoint, no VACUUM."""
    out = {}
    for suffix in ("", "-wal"):
        path = Path(db + suffix)
        out[path.name] = path.read_bytes() if path.exists() else b""
    return out


def _survivors(db: str) -> list[str]:
    found = _raw_bytes(db).items()
    return [f"{n!r} in {name}" for name, data in found for n in NEEDLES if n in data]


def test_expired_trash_is_erased_and_its_events_redacted(db: str, embedder: Embedder) -> None:
    clock = Clock()
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        secret = "Quetzal-Marmoset is the name on the garage code card"
        memory = mem.remember(secret, tags=["Quetzal-Marmoset"], metadata={"note": "Tapir5521x"})
        keep = mem.remember("User likes jazz")
        mem.execute(mem.plan_forget([memory.id], reason="Quetzal-Marmoset asked to go"))
        if not is_postgres(db):
            assert _survivors(db), "the test must be able to see the text in the file"
        clock.advance(days=31)
        report = mem.maintain()
        assert report.expired == (memory.id,)
        events = mem.audit(memory_id=memory.id)
        assert [(e.op, e.details, e.reason) for e in events] == [
            ("remember", {"redacted": True}, None),
            ("forget", {"redacted": True}, None),
            ("purge", {"retention_days": 30, "text_sha256": [memory.content_sha256]}, None),
        ]
        assert {e.content_sha256 for e in events} == {memory.content_sha256}
        assert mem.store.get(memory.id) is None and live_ids(db) == {keep.id}
        rows = str(snapshot(db)).encode()
        assert not [n for n in NEEDLES if n in rows]
        if not is_postgres(db):
            assert _survivors(db) == [], "maintain leaves the erased text in the file or WAL"


# -- purge truncates the WAL itself ----------------------------------------------------------


@sqlite_only
def test_purge_leaves_no_text_in_the_file_or_wal_while_the_store_is_open(
    mem: Lethe, db: str
) -> None:
    """The bytes are read right after the purge returns, with the store still open and no
    checkpoint or VACUUM of the test's own: only lethe's compaction can have removed them."""
    secret = "Quetzal-Marmoset is the name on the garage code card"
    target = mem.remember(secret, tags=["Quetzal-Marmoset"], metadata={"note": "Tapir5521x"})
    other = mem.remember("The user's favourite fruit is mango")
    mem.execute(mem.plan_forget([target.id], reason="Quetzal-Marmoset asked to go"))
    assert _survivors(db), "the test must be able to see the text in the file or WAL"
    result = mem.execute(mem.plan_purge([target.id]))
    assert result.executed == (target.id,)
    assert _survivors(db) == []
    assert live_ids(db) == {other.id}


# -- the audit log: append-only except a purge's redaction ----------------------------------

REDACTED = '{"redacted": true}'
REWRITES = [
    ("details rewritten", 'details = \'{"tier": "nothing happened"}\''),
    ("details rewritten, reason cleared", 'details = \'{"tier": "x"}\', reason = NULL'),
    ("details redacted, more kept", 'details = \'{"redacted": true, "x": 1}\', reason = NULL'),
    ("reason rewritten", "reason = 'the user never asked'"),
    ("reason cleared alone", "reason = NULL"),
    ("details redacted, reason kept", f"details = '{REDACTED}'"),
    ("details redacted, reason rewritten", f"details = '{REDACTED}', reason = 'other'"),
    ("redaction and another actor", f"details = '{REDACTED}', reason = NULL, actor = 'mallory'"),
    ("redaction and another op", f"details = '{REDACTED}', reason = NULL, op = 'restore'"),
    ("redaction and another time", f"details = '{REDACTED}', reason = NULL, at = at + 1"),
    ("redaction and another hash", f"details = '{REDACTED}', reason = NULL, content_sha256 = 'x'"),
    ("redaction and no memory", f"details = '{REDACTED}', reason = NULL, memory_id = NULL"),
    ("redaction and a namespace", f"details = '{REDACTED}', reason = NULL, namespace = 'other'"),
]


def test_the_audit_trigger_allows_only_a_purges_redaction(mem: Lethe, db: str) -> None:
    memory = mem.remember("User lives in Lisbon")
    mem.execute(mem.plan_forget([memory.id], reason="user asked"))
    [(seq,)] = run_sql(db, "SELECT seq FROM events WHERE op = 'forget'")
    if is_postgres(db):
        import psycopg

        refused: type[Exception] = psycopg.errors.RaiseException
    else:
        refused = sqlite3.IntegrityError
    before = snapshot(db)
    for name, assignment in REWRITES:
        with pytest.raises(refused, match="append-only"):
            run_sql(db, f"UPDATE events SET {assignment} WHERE seq = ?", (seq,))
            pytest.fail(f"the trigger let this through: {name}")
    with pytest.raises(refused, match="append-only"):
        run_sql(db, "DELETE FROM events WHERE seq = ?", (seq,))
    assert snapshot(db) == before
    run_sql(db, f"UPDATE events SET details = '{REDACTED}', reason = NULL WHERE seq = ?", (seq,))
    [event] = mem.audit(op="forget")
    assert (event.details, event.reason, event.actor) == ({"redacted": True}, None, "user")
