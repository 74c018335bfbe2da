"""What each planner rule is worth: how often it fired, and whether it changed a verdict.

For every request, the plan is made while recording the rules that fire
(`lethe.planner.rules.recording`); then, for each rule that fired, the same request is
planned again with that rule switched off (`rules.without`). When the marks differ, the rule
changed a verdict. The change was *right* when the plan with the rule is better by the
benchmark's truth (fewer wrong marks; at equal wrong marks, more right ones), *wrong* when
it is worse, and *even* otherwise. A rule that changes verdicts wrongly as often as rightly
does not pay.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lethe.planner import rules

Marks = frozenset[tuple[str, str]]
"""(memory id, action: delete or edit) of every memory a plan acts on."""
Quality = Callable[[Marks], tuple[int, int]]
"""Marks -> (wrong marks, right marks), by the benchmark's truth."""


def marks_of(items: object) -> Marks:
    """The (id, action) of the plan items that delete or edit a memory."""
    return frozenset(
        (i.id, i.action)
        for i in items  # type: ignore[attr-defined]
        if i.action in ("delete", "edit")
    )


@dataclass
class Tally:
    fired: int = 0
    """Requests on which the rule fired."""
    changed: int = 0
    right: int = 0
    wrong: int = 0
    even: int = 0


class RuleEffects:
    def __init__(self) -> None:
        self.tally = {name: Tally() for name in rules.RULES}
        self.seconds = 0.0
        """Time spent planning again without each rule (not the benchmark's own planning)."""

    def measure(self, plan: Callable[[], Marks], quality: Quality) -> Marks:
        """Plan once recording, then once per fired rule without it; returns the real marks."""
        with rules.recording() as fired:
            marks = plan()
        start = time.perf_counter()
        for name in dict.fromkeys(f.rule for f in fired):
            tally = self.tally[name]
            tally.fired += 1
            with rules.without(name):
                other = plan()
            if other == marks:
                continue
            tally.changed += 1
            wrong, right = quality(marks)
            wrong_off, right_off = quality(other)
            if (wrong, -right) < (wrong_off, -right_off):
                tally.right += 1
            elif (wrong, -right) > (wrong_off, -right_off):
                tally.wrong += 1
            else:
                tally.even += 1
        self.seconds += time.perf_counter() - start
        return marks

    def merge(self, other: RuleEffects) -> None:
        for name, t in other.tally.items():
            mine = self.tally[name]
            mine.fired += t.fired
            mine.changed += t.changed
            mine.right += t.right
            mine.wrong += t.wrong
            mine.even += t.even
        self.seconds += other.seconds

    def rows(self) -> list[dict[str, Any]]:
        return [{"rule": name, **vars(t)} for name, t in self.tally.items()]


def print_rules(title: str, effects: RuleEffects) -> None:
    print(title)
    print("-" * len(title))
    print(f"{'rule':<22} {'fired':>6} {'changed':>8} {'right':>6} {'wrong':>6} {'even':>5}")
    for row in effects.rows():
        print(
            f"{row['rule']:<22} {row['fired']:>6} {row['changed']:>8} {row['right']:>6} "
            f"{row['wrong']:>6} {row['even']:>5}"
        )
    print()
