"""Forget mode (seed 002): the guarded session every driver uses, and the deterministic
planner. Every answer is validated against the published response schema."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from lethe import Lethe
from lethe.engine.forget_session import ForgetModeRefusal, ForgetSession
from lethe.errors import InvalidInput
from lethe.schemas import load
from tests.backends import snapshot
from tests.engine.test_forgetting import SEED_000

validator = jsonschema.Draft202012Validator(load("forget-response"))


def valid(answer: dict[str, Any]) -> dict[str, Any]:
    validator.validate(answer)
    return answer


@pytest.fixture
def seeded(mem: Lethe) -> dict[str, str]:
    ids = {t: mem.remember(t).id for t in SEED_000}
    ids["notes"] = mem.remember(
        "Pricing idea: charge per seat", metadata={"sourcePath": "scripts/old/ep01.md"}
    ).id
    ids["notes2"] = mem.remember(
        "Episode one opens at the harbour", metadata={"sourcePath": "scripts/old/ep01.md"}
    ).id
    return ids


def test_dry_run_lists_candidates_and_refuses_to_delete(
    mem: Lethe, seeded: dict[str, str], db: str
) -> None:
    before = snapshot(db)
    session = ForgetSession(mem, "Forget where I live")
    found = session.search_memories("I live in San Francisco")
    assert found["searchesLeft"] == 2
    assert [c["id"] for c in found["candidates"][:2]] == [seeded[SEED_000[0]], seeded[SEED_000[1]]]
    with pytest.raises(ForgetModeRefusal, match="dry run"):
        session.delete_memories([seeded[SEED_000[0]]])
    answer = valid(session.result())
    assert answer["dryRun"] is True and answer["index"] == "default"
    assert answer["plan"][0]["id"] == seeded[SEED_000[0]]
    assert answer["plan"][0]["action"] == "delete", "the clear best match"
    assert all(e["action"] == "skip" for e in answer["plan"][1:])
    assert seeded[SEED_000[1]] in answer["lowConfidenceMatches"]
    assert snapshot(db) == before


def test_at_most_three_searches(mem: Lethe, seeded: dict[str, str]) -> None:
    session = ForgetSession(mem, "Forget San Francisco")
    for query in ("San Francisco", "Bay Area", "California"):
        session.search_memories(query)
    with pytest.raises(ForgetModeRefusal, match="at most 3 searches"):
        session.search_memories("Golden Gate")


def test_execution_deletes_only_what_the_tiers_allow(mem: Lethe, seeded: dict[str, str]) -> None:
    session = ForgetSession(mem, "Forget where I live", dry_run=False)
    session.search_memories("I live in San Francisco")
    done = session.delete_memories([seeded[SEED_000[0]], seeded[SEED_000[1]], "sys_0123456789ab"])
    assert done["deletedIds"] == [seeded[SEED_000[0]]]
    reasons = {r["id"]: r["reason"] for r in done["refused"]}
    assert "high-confidence" in reasons[seeded[SEED_000[1]]]
    assert "never deleted" in reasons["sys_0123456789ab"]
    answer = valid(session.result())
    assert answer["deletedCount"] == 1 and answer["deletedIds"] == [seeded[SEED_000[0]]]
    skipped = {s["id"] for s in answer["skippedLowConfidence"]}
    refused = {r["id"] for r in answer["refused"]}
    assert seeded[SEED_000[1]] in refused and seeded[SEED_000[1]] not in skipped
    assert not skipped & refused, "a candidate is either skipped or refused, never both"
    live = {m.id for m in mem.list_memories(limit=100).items}
    assert seeded[SEED_000[1]] in live and seeded[SEED_000[0]] not in live
    with pytest.raises(InvalidInput, match="malformed"):
        session.delete_memories(["mem_123"])


def test_metadata_filter_deletes_everything_from_one_source(
    mem: Lethe, seeded: dict[str, str]
) -> None:
    """Both notes of the file are candidates (similarity >= 0.4 inside the user's metadata
    filter), so both go, though neither is a clear winner a query alone would delete."""
    answer = valid(
        mem.forget_instruction(
            "Remove everything from scripts/old/ep01.md",
            query="pricing idea and the harbour episode",
            filters={"sourcePath": "scripts/old/ep01.md"},
            dry_run=False,
        )
    )
    assert sorted(answer["deletedIds"]) == sorted([seeded["notes"], seeded["notes2"]])
    assert answer["deletedCount"] == 2
    live = {m.id for m in mem.list_memories(limit=100).items}
    assert live == {seeded[t] for t in SEED_000}
    alone = mem.plan_forget(query="pricing idea and the harbour episode")
    assert alone.targets == (), "without the filter, the same query deletes nothing"


def test_explicit_ids_bypass_similarity_never_protection(mem: Lethe) -> None:
    weak = mem.remember("User likes jazz")
    caveat = mem.remember("Never drink and drive", layer="caveat")
    answer = valid(
        mem.forget_instruction(
            "Delete these two",
            explicit_ids=[weak.id, caveat.id],
            dry_run=False,
        )
    )
    assert answer["deletedIds"] == [weak.id]
    assert [r["id"] for r in answer["refused"]] == [caveat.id]


def test_no_match_and_ambiguous_answers(mem: Lethe) -> None:
    for text in ("User lives in San Francisco", "User works in San Francisco"):
        mem.remember(text)
    nothing = valid(mem.forget_instruction("Forget my quantum chromodynamics notes"))
    assert nothing["plan"] == [] and nothing["notes"].startswith("No memories found")
    ambiguous = valid(mem.forget_instruction("San Francisco", dry_run=False))
    assert ambiguous["deletedCount"] == 0 and len(ambiguous["skippedLowConfidence"]) == 2


def test_bad_input_is_refused(mem: Lethe) -> None:
    with pytest.raises(InvalidInput):
        ForgetSession(mem, "   ")
    with pytest.raises(InvalidInput):
        ForgetSession(mem, "x", explicit_ids=["nope"])
    session = ForgetSession(mem, "x", dry_run=False)
    with pytest.raises(InvalidInput):
        session.delete_memories([])
    with pytest.raises(InvalidInput):
        session.search_memories("x", filters="sourcePath=a")  # type: ignore[arg-type]


def test_filters_a_model_adds_narrow_and_only_the_users_scope_widens(
    mem: Lethe, seeded: dict[str, str]
) -> None:
    scripted = {seeded["notes"], seeded["notes2"]}
    model = ForgetSession(mem, "Remove the ep01 notes", dry_run=False)
    found = model.search_memories("pricing harbour", filters={"sourcePath": "scripts/old/ep01.md"})
    assert {c["id"] for c in found["candidates"]} == scripted, "both are candidates"
    deletable = {c["id"] for c in found["candidates"] if c["deletable"]}
    assert deletable == set(), "a model's filter narrows; it does not widen the deletion"
    user = ForgetSession(
        mem, "Remove the ep01 notes", dry_run=False, scope={"sourcePath": "scripts/old/ep01.md"}
    )
    found = user.search_memories("pricing harbour")
    assert {c["id"] for c in found["candidates"]} == scripted
    assert {c["id"] for c in found["candidates"] if c["deletable"]} == scripted


def test_a_memory_changed_since_the_search_is_not_deleted(
    mem: Lethe, seeded: dict[str, str]
) -> None:
    session = ForgetSession(mem, "Forget where I live", dry_run=False)
    session.search_memories("I live in San Francisco")
    home = seeded[SEED_000[0]]
    mem.update(home, content="User lives in San Francisco, near the park")
    done = session.delete_memories([home])
    assert done["deletedIds"] == [] and done["refused"][0]["reason"] == "changed since the search"
    assert home in {m.id for m in mem.list_memories(limit=100).items}


def test_private_memories_are_masked_for_the_model(mem: Lethe) -> None:
    mem.remember("User's therapist is Dr. Novak", private=True)
    found = ForgetSession(mem, "Forget my therapist").search_memories("therapist")
    assert [c["content"] for c in found["candidates"]] == ["(private memory)"]


def test_approve_carries_out_exactly_the_dry_run(mem: Lethe, seeded: dict[str, str]) -> None:
    session = mem.forget_session("Forget where I live", query="I live in San Francisco")
    plan = valid(session.result())
    shown = [e["id"] for e in plan["plan"] if e["action"] == "delete"]
    done = valid(session.approve())
    assert done["deletedIds"] == shown == [seeded[SEED_000[0]]]
    with pytest.raises(InvalidInput):
        session.approve()
