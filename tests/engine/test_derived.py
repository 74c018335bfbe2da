"""Purge follows copies: a summary made from a purged memory is rewritten without it, or
purged too when nothing else is left — listed in the plan, done in the purge's transaction,
on SQLite and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from lethe import Lethe
from lethe.embed import Embedder
from lethe.forget.plan import seed_json
from lethe.schemas import load
from tests.backends import run_sql
from tests.clocks import Clock

SECRET = "User's locker combination is 31-07-44 at the north gym"
OTHERS = [
    "User tried a pottery class on a rainy afternoon",
    "User went to a jazz concert in spring with Sam",
]


def compressed(mem: Lethe, clock: Clock, texts: list[str]) -> tuple[dict[str, str], str]:
    ids = {text: mem.remember(text).id for text in texts}
    clock.advance(days=55)
    result = mem.execute_sweep(mem.sweep())
    [summary_id] = result.summary_ids
    assert set(result.compressed) == set(ids.values())
    return ids, summary_id


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_purging_a_source_rewrites_its_summary_without_it(
    db: str, embedder: Embedder, clock: Clock, tmp_path: Path
) -> None:
    workspace = tmp_path / "ws"
    with Lethe.open(
        db, embedder=embedder, clock=clock, decay_policy="auto", workspace_dir=workspace
    ) as mem:
        ids, summary_id = compressed(mem, clock, [SECRET, *OTHERS])
        assert "31-07-44" in mem.get(summary_id).content
        plan = mem.plan_purge([ids[SECRET]])
        [derived] = plan.derived
        assert (derived.id, derived.action) == (summary_id, "rewrite")
        assert set(derived.sources_left) == {ids[t] for t in OTHERS}
        assert summary_id in plan.notes
        Draft202012Validator(load("forget-response")).validate(seed_json(plan))
        assert "31-07-44" in mem.get(summary_id).content, "planning changes nothing"

        result = mem.execute(plan)
        assert result.executed == (ids[SECRET],)
        summary = mem.get(summary_id)
        assert "31-07-44" not in summary.content and "pottery" in summary.content
        assert set(summary.metadata["summarizes"]) == {ids[t] for t in OTHERS}
        hits = mem.recall("locker combination at the north gym", k=5)
        assert all("31-07-44" not in h.memory.content for h in hits)
        assert [v.version for v in mem.history(summary_id)] == [summary.version]
        assert not run_sql(
            db, "SELECT 1 FROM memory_versions WHERE content LIKE ?", ("%31-07-44%",)
        )
        rewrite = mem.audit(memory_id=summary_id, op="rewrite")[0]
        assert rewrite.details["derived_from"] == [ids[SECRET]]
        assert rewrite.details["plan"] == plan.id
        assert "31-07-44" not in "".join(p.read_text() for p in workspace.rglob("*.md"))


def test_a_summary_with_no_source_left_is_purged_too(
    db: str, embedder: Embedder, clock: Clock
) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        ids, summary_id = compressed(mem, clock, [SECRET, OTHERS[0]])
        plan = mem.plan_purge(list(ids.values()))
        assert [(d.id, d.action) for d in plan.derived] == [(summary_id, "purge")]
        mem.execute(plan)
        assert mem.store.get(summary_id) is None
        assert run_sql(db, "SELECT count(*) FROM memories")[0][0] == 0
        purge = mem.audit(memory_id=summary_id, op="purge")[0]
        assert sorted(purge.details["derived_from"]) == sorted(ids.values())


def test_two_calls_purge_the_summary_copy_too(db: str, embedder: Embedder, clock: Clock) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        ids, summary_id = compressed(mem, clock, [SECRET, *OTHERS])
        first = mem.forget([ids[SECRET]], session="s1", operation="purge")
        assert first.status == "pending" and f"rewrites {summary_id}" in first.message
        assert "31-07-44" in mem.get(summary_id).content
        second = mem.forget([ids[SECRET]], session="s1", operation="purge")
        assert second.status == "executed"
        assert "31-07-44" not in mem.get(summary_id).content


def test_a_trashed_summary_is_rewritten_too_and_a_summary_of_it_follows(
    db: str, embedder: Embedder, clock: Clock
) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        ids, summary_id = compressed(mem, clock, [SECRET, *OTHERS])
        mem.execute(mem.plan_forget([summary_id]))
        outer = mem.remember(  # as a later sweep would make it
            "Summary of summaries",
            agent="lethe",
            category="summary",
            metadata={"summarizes": [summary_id, ids[OTHERS[0]]]},
        )
        plan = mem.plan_purge([ids[SECRET]])
        # the outer summary's own line (the inner one's header) does not hold the secret
        assert [(d.id, d.action) for d in plan.derived] == [(summary_id, "rewrite")]
        mem.execute(plan)
        trashed = mem.store.get(summary_id)
        assert trashed is not None and trashed.status == "forgotten"
        assert "31-07-44" not in trashed.content and "pottery" in trashed.content
        assert mem.get(outer.id).content == "Summary of summaries"


def test_expiry_of_old_trash_keeps_the_summary(db: str, embedder: Embedder, clock: Clock) -> None:
    """Retention is routine, not a person's erasure: the summary is what the sweep kept."""
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        ids, summary_id = compressed(mem, clock, [SECRET, *OTHERS])
        before = mem.get(summary_id).content
        clock.advance(days=31)
        report = mem.maintain()
        assert set(report.expired) == set(ids.values())
        assert mem.get(summary_id).content == before


def test_a_persons_own_note_naming_its_sources_is_never_rewritten(
    db: str, embedder: Embedder, clock: Clock
) -> None:
    """Only what lethe made is a derived copy: a person's note is their own words."""
    with Lethe.open(db, embedder=embedder) as mem:
        source = mem.remember(SECRET)
        note = mem.remember("My own digest of the gym notes", metadata={"summarizes": [source.id]})
        plan = mem.plan_purge([source.id])
        assert plan.derived == ()
        mem.execute(plan)
        assert mem.get(note.id).content == "My own digest of the gym notes"


def test_a_purge_of_an_unrelated_memory_lists_nothing_derived(
    db: str, embedder: Embedder, clock: Clock
) -> None:
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        _, summary_id = compressed(mem, clock, [SECRET, *OTHERS])
        lone = mem.remember("A note nobody summarised")
        plan = mem.plan_purge([lone.id])
        assert plan.derived == ()
        mem.execute(plan)
        assert "31-07-44" in mem.get(summary_id).content
