"""The planner's rules by name (planner/rules.py): each fires on record, and switching one
off changes what it decides, so the benchmarks can say what each rule is worth."""

from __future__ import annotations

import pytest

from lethe.planner import rules
from lethe.planner.doubts import DOUBTS
from lethe.planner.pipeline import decide
from lethe.planner.port import Candidate
from tests.planner.support import marked, memory

DANA = [("Dana lives at 4 Elm Street.", 0.62), ("Kim lives at 9 Oak Road.", 0.60)]


def test_every_doubt_is_a_registered_rule_in_one_order() -> None:
    assert [d.name for d in DOUBTS] == [n for n in rules.RULES if n in {d.name for d in DOUBTS}]
    assert len(set(rules.RULES)) == len(rules.RULES)


def test_a_rule_registered_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="registered twice"):
        rules.rule("gate-names", "again")


def test_switching_off_an_unknown_rule_is_refused_with_the_known_names() -> None:
    refused = pytest.raises(
        ValueError, match=r"no planner rule named gate-nope; known: .*gate-names"
    )
    with refused, rules.without("gate-nope"):
        pass


def test_a_gate_fires_on_the_candidate_it_shuts_out() -> None:
    with rules.recording() as fired:
        assert marked("Dana's address", DANA) == ["Dana lives at 4 Elm Street."]
    assert rules.Fired("gate-names", "mem_000000000001") in fired


def test_nothing_is_recorded_outside_a_recording() -> None:
    with rules.recording() as fired:
        pass
    marked("Dana's address", DANA)
    assert fired == []


def test_switching_off_the_name_and_owner_gates_marks_another_persons_memory() -> None:
    only_dana = [("Dana lives at 4 Elm Street.", 0.55)]
    assert marked("Kim's address", only_dana) == []
    with rules.without("gate-names", "gate-owner"):
        assert marked("Kim's address", only_dana) == ["Dana lives at 4 Elm Street."]
    assert marked("Kim's address", only_dana) == []


def test_every_doubt_that_fires_is_named_on_the_top() -> None:
    texts = [("The user likes tea.", 0.30), ("The user likes coffee.", 0.29)]
    candidates = [Candidate(memory(n, t), c) for n, (t, c) in enumerate(texts)]
    top = decide("my favourite drink", candidates).judgements[0]
    assert top.verdict == "skip"
    assert top.doubts[:2] == ("says-none", "barely-similar")
    assert top.doubt is not None and "says none" in top.doubt
