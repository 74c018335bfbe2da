"""What the planner says of each candidate: its verdict, how certain, and why."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from lethe.model import Gist
from lethe.planner.compound import Edit
from lethe.planner.request import Request

MARK_BAR = 0.9
"""Certainty at or above which a candidate is marked for deletion."""

Verdict = Literal["delete", "edit", "skip"]


@dataclass
class Judgement:
    memory: Gist
    similarity: float
    verdict: Verdict
    certainty: float
    reason: str
    evidence: list[str] = field(default_factory=list)
    features: dict[str, float] | None = None
    """A fact decision's best candidate: the evidence its certainty was computed from."""
    doubt: str | None = None
    """The first doubt that fired, as shown."""
    doubts: tuple[str, ...] = ()
    """The name of every doubt that fired (`doubts.DOUBTS`), in their order."""
    edit: Edit | None = None
    """For verdict `edit`: the memory without the fact to forget."""


@dataclass
class Decision:
    request: Request
    judgements: list[Judgement]
    ambiguous: bool
