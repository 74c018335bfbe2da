"""Decay under policy: heat and risk (seed 003), sweeps that plan in bulk and execute only
under `auto`, as one audited, restorable operation (seed 004)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import InvalidInput, MemoryNotFound
from lethe.forget import decay
from tests.backends import is_postgres, run_sql, snapshot
from tests.engine.test_forgetting import Clock


def arr(*values: float) -> np.ndarray:  # type: ignore[type-arg]
    return np.asarray(values, dtype=np.float64)


def test_heat_follows_seed_003() -> None:
    got = decay.heat(
        accesses_30d=arr(0, 20, 2, 0),
        accesses_90d=arr(0, 30, 5, 0),
        accesses_total=arr(0, 100, 8, 0),
        days_idle=arr(200, 1, 20, 60),
        importance=arr(0.5, 1.0, 0.2, 0.0),
    )
    # -10 + 7.5 -> clamped to 0 | 30 + 20 + 20 + 15 + 15 = 100 | 6 + 5 + 10 + 4 + 3 = 28 | 0
    assert got.tolist() == pytest.approx([0.0, 100.0, 28.0, 0.0])


def test_risk_follows_seed_003_and_spares_protected() -> None:
    heat = arr(0.0, 50.0, 0.0)
    got = decay.risk(
        heat=heat,
        importance=arr(0.5, 0.2, 0.0),
        days_idle=arr(100, 30, 100),
        protected=np.array([False, False, True]),
    )
    assert got.tolist() == pytest.approx(
        [1.0 * 0.5 * 100 * (1 + 100 / 30), 0.5 * 0.8 * 30 * 2, 0.0]
    )
    actions = decay.decide(arr(10, 50, 199.9, 200, 1e6), compress_at=50, drop_at=200)
    assert [decay.ACTIONS[a] for a in actions] == ["keep", "compress", "compress", "drop", "drop"]


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def aged(db: str, embedder: Embedder, clock: Clock) -> Iterator[tuple[Lethe, dict[str, str]]]:
    """Memories of different ages, seen from day 100; opened under the `auto` policy."""
    start = clock.now
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        ids = {
            "old": mem.remember("User once owned a red bicycle").id,
            "caveat": mem.remember("Never store passwords in notes", layer="caveat").id,
            "pinned": mem.remember("User is allergic to peanuts", importance=0.95).id,
        }
        clock.advance(days=45)
        ids["middle"] = mem.remember("User tried a pottery class").id
        ids["middle2"] = mem.remember("User went to a jazz concert in spring").id
        clock.advance(days=50)
        ids["fresh"] = mem.remember("User started learning Portuguese").id
        mem.link(ids["middle"], ids["fresh"], kind="hobby", confidence=0.6)
        clock.now = start + timedelta(days=100)
        yield mem, ids


def test_sweep_plans_by_risk_and_changes_nothing(
    aged: tuple[Lethe, dict[str, str]], db: str
) -> None:
    mem, ids = aged
    before = snapshot(db)
    plan = mem.sweep()
    assert snapshot(db) == before, "planning never changes the store"
    actions = {i.id: i.action for i in plan.items}
    assert actions == {ids["old"]: "drop", ids["middle"]: "compress", ids["middle2"]: "compress"}
    assert (plan.scanned, plan.keep, plan.compress, plan.drop, plan.protected) == (6, 3, 2, 1, 2)
    assert plan.items[0].id == ids["old"], "riskiest first"
    assert plan.items[0].risk == pytest.approx(0.5 * 100 * (1 + 100 / 30), rel=1e-3)


def test_execute_under_auto_drops_compresses_and_can_be_undone(
    aged: tuple[Lethe, dict[str, str]],
) -> None:
    mem, ids = aged
    result = mem.execute_sweep(mem.sweep())
    assert result.dropped == (ids["old"],)
    assert set(result.compressed) == {ids["middle"], ids["middle2"]}
    [summary_id] = result.summary_ids
    summary = mem.get(summary_id)
    assert summary.layer == "learning" and summary.agent == "lethe"
    assert "pottery class" in summary.content and "jazz concert" in summary.content
    assert set(summary.metadata["summarizes"]) == {ids["middle"], ids["middle2"]}
    assert [lk.other(summary.id) for lk in mem.links(summary.id)] == [ids["fresh"]]
    live = {m.id for m in mem.list_memories(limit=100).items}
    assert live == {ids["caveat"], ids["pinned"], ids["fresh"], summary.id}
    trash = {t.memory.id for t in mem.list_trash()[0]}
    assert trash == {ids["old"], ids["middle"], ids["middle2"]}
    [sweep_event] = mem.audit(op="sweep")
    assert sweep_event.details["summaries"] == [summary.id]
    forgets = mem.audit(op="forget")
    assert {e.memory_id for e in forgets} == trash
    assert all(e.details["tier"] == "decay" for e in forgets)
    mem.restore(ids["middle"])
    assert {lk.other(ids["middle"]) for lk in mem.links(ids["middle"])} == {ids["fresh"]}


def test_policy_suggest_only_reports(db: str, embedder: Embedder, clock: Clock) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        mem.remember("User once owned a red bicycle")
        clock.advance(days=120)
        plan = mem.sweep()
        assert plan.policy == "suggest" and plan.drop == 1 and "report only" in plan.notes
        before = snapshot(db)
        with pytest.raises(InvalidInput, match="policy is 'suggest'"):
            mem.execute_sweep(plan)
        assert snapshot(db) == before


def test_policy_off_never_proposes(db: str, embedder: Embedder, clock: Clock) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="off") as mem:
        mem.remember("User once owned a red bicycle")
        clock.advance(days=1000)
        plan = mem.sweep()
        assert plan.items == [] and plan.drop == 0 and "off" in plan.notes
        with pytest.raises(InvalidInput):
            mem.execute_sweep(plan)


def test_recall_warms_a_memory_and_a_recalled_one_is_skipped(
    aged: tuple[Lethe, dict[str, str]], clock: Clock
) -> None:
    mem, ids = aged
    plan = mem.sweep()
    clock.advance(seconds=5)
    hits = mem.recall("red bicycle", k=1)
    assert hits[0].memory.id == ids["old"]
    result = mem.execute_sweep(plan)
    assert ids["old"] in result.skipped and ids["old"] not in result.dropped
    assert ids["old"] in {m.id for m in mem.list_memories(limit=100).items}
    again = mem.sweep()
    assert ids["old"] not in {i.id for i in again.items}, "recalled today: no longer idle"


def test_heat_counts_recalls_of_the_last_30_days(db: str, embedder: Embedder, clock: Clock) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        note = mem.remember("User once owned a red bicycle")
        for _ in range(3):
            mem.recall("red bicycle", k=1)
        clock.advance(days=40)
        mem.recall("red bicycle", k=1)
        columns = mem.store.decay_columns("default", clock.now, ["caveat", "goal"])
        [i] = [n for n, m in enumerate(columns.ids) if m == note.id]
        assert columns.accesses_30d[i] == 1 and columns.accesses_90d[i] == 4
        assert columns.accesses_total[i] == 4


def test_private_memories_compress_into_a_private_summary(
    db: str, embedder: Embedder, clock: Clock, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    with Lethe.open(
        db, embedder=embedder, clock=clock, decay_policy="auto", workspace_dir=workspace
    ) as mem:
        mem.remember("User's therapist is Dr. Novak. Sessions on Mondays.", private=True)
        mem.remember("User's blood test results came back fine", private=True)
        mem.remember("User tried a pottery class")
        mem.remember("User went to a jazz concert in spring")
        clock.advance(days=55)
        result = mem.execute_sweep(mem.sweep())
        summaries = [mem.get(i) for i in result.summary_ids]
        assert len(summaries) == 2 and len(result.compressed) == 4
        [private] = [m for m in summaries if m.private]
        [public] = [m for m in summaries if not m.private]
        assert "Dr. Novak." in private.content, "no cut at the abbreviation"
        assert "Mondays" not in private.content, "the first sentence only"
        assert "Novak" not in public.content and "pottery" in public.content
        assert not any("Novak" in p.read_text() for p in workspace.rglob("*.md"))


def test_a_single_compression_is_kept(db: str, embedder: Embedder, clock: Clock) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        note = mem.remember("User tried a pottery class")
        clock.advance(days=55)
        plan = mem.sweep()
        assert plan.compress == 1
        result = mem.execute_sweep(plan)
        assert result.summary_ids == () and result.skipped == (note.id,)
        assert mem.get(note.id).id == note.id


def test_compress_risk_must_be_below_drop_risk(db: str, embedder: Embedder) -> None:
    with pytest.raises(InvalidInput, match="decay_compress_risk"):
        Lethe.open(db, embedder=embedder, decay_compress_risk=300, decay_drop_risk=200)
    if is_postgres(db):
        assert run_sql(db, "SELECT to_regclass('memories')") == [(None,)], "nothing created"
    else:
        assert not Path(db).exists()


def test_vitality_scores_one_memory_as_the_sweep_does(
    aged: tuple[Lethe, dict[str, str]], clock: Clock
) -> None:
    mem, ids = aged
    plan = mem.sweep()
    riskiest = plan.items[0]
    old = mem.vitality(ids["old"])
    assert (old.heat, old.risk, old.action) == (riskiest.heat, riskiest.risk, "drop")
    assert old.days_idle == pytest.approx(100.0) and not old.protected
    caveat = mem.vitality(ids["caveat"])
    assert caveat.protected and caveat.risk == 0.0 and caveat.action == "keep"
    mem.recall("red bicycle", k=1)
    clock.advance(days=1)
    warmed = mem.vitality(ids["old"])
    assert warmed.heat > old.heat and warmed.days_idle == pytest.approx(1.0)
    assert warmed.action == "keep", "a memory just recalled is not ripe for forgetting"
    with pytest.raises(MemoryNotFound, match="Memory not found: mem_000000000000"):
        mem.vitality("mem_000000000000")


def test_sweep_carries_the_heat_and_risk_distribution(
    aged: tuple[Lethe, dict[str, str]], clock: Clock
) -> None:
    mem, _ = aged
    plan = mem.sweep()
    assert len(plan.heat_histogram) == 10 and sum(plan.heat_histogram) == plan.scanned
    assert sum(plan.risk_histogram) == plan.scanned - plan.protected
    edges = plan.risk_edges
    assert edges == (0.0, 6.25, 12.5, 25.0, 50.0, 125.0, 200.0, 400.0, 800.0)
    by_edge = dict(zip(edges, plan.risk_histogram, strict=True))
    # fresh (risk ~2) | middle and middle2 (~72, compress) | old (~217, drop)
    assert (by_edge[0.0], by_edge[50.0], by_edge[200.0]) == (1, 2, 1)
    settings = mem.settings.model_copy(update={"decay_policy": "off"})
    off = Lethe(mem.store, mem.embedder, settings, clock=clock)
    assert off.sweep().risk_histogram == plan.risk_histogram, "the chart shows even when off"
