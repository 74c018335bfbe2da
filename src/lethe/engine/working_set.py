"""Working memory (seed 004): a token-bounded set of memories an agent keeps in its prompt.

Eviction is not forgetting. It removes a reference from the working set — audited as
`evict` — while the memory itself stays in long-term storage, recallable as before.
What goes first is what is worth least: low importance, long since it entered, rarely used.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict

from lethe.model import Memory

RECENCY_HALF_LIFE_H = 24.0


@dataclass(frozen=True)
class Slot:
    memory: Memory
    tokens: int
    added_at: datetime


def value(slot: Slot, now: datetime) -> float:
    """What keeping a memory in the prompt is worth: importance first, then recency of its
    entry (halving every day), then how often it has been recalled."""
    hours = max((now - slot.added_at).total_seconds() / 3600.0, 0.0)
    recency = math.pow(0.5, hours / RECENCY_HALF_LIFE_H)
    usage = min(math.log1p(slot.memory.access_count) / 10.0, 0.3)
    return slot.memory.importance + 0.5 * recency + usage


def choose_evictions(slots: Sequence[Slot], budget: int, now: datetime) -> list[Slot]:
    """The slots to evict so the rest fits the budget, least valuable first. A memory that
    has just arrived competes like any other (its recency counts for it): a trivial new note
    does not push out something important."""
    total = sum(s.tokens for s in slots)
    if total <= budget:
        return []
    order = sorted(slots, key=lambda s: (value(s, now), s.added_at, s.memory.id))
    evicted = []
    for slot in order:
        if total <= budget:
            break
        evicted.append(slot)
        total -= slot.tokens
    return evicted


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class WorkingItem(_Frozen):
    id: str
    content: str
    layer: str
    importance: float
    tokens: int
    added_at: datetime


class WorkingContext(_Frozen):
    agent: str
    namespace: str
    budget: int
    tokens: int
    items: tuple[WorkingItem, ...]
    """Most valuable first."""
    evicted: tuple[str, ...] = ()
    """Ids this call moved out of working memory (they stay in long-term memory)."""
    too_large: tuple[str, ...] = ()
    """Ids that alone exceed the budget and were not admitted."""

    @property
    def text(self) -> str:
        """The working set formatted for a prompt."""
        head = f"## Working memory of {self.agent} ({self.tokens}/{self.budget} tokens)"
        if not self.items:
            return head + "\n(empty)"
        lines = [f"- [{i.layer}] {i.content} [id:{i.id}]" for i in self.items]
        return "\n".join([head, *lines])


def context_of(
    agent: str,
    namespace: str,
    budget: int,
    slots: Sequence[Slot],
    now: datetime,
    *,
    evicted: Sequence[str] = (),
    too_large: Sequence[str] = (),
) -> WorkingContext:
    ranked = sorted(slots, key=lambda s: -value(s, now))
    return WorkingContext(
        agent=agent,
        namespace=namespace,
        budget=budget,
        tokens=sum(s.tokens for s in slots),
        items=tuple(
            WorkingItem(
                id=s.memory.id,
                content=s.memory.content,
                layer=s.memory.layer,
                importance=s.memory.importance,
                tokens=s.tokens,
                added_at=s.added_at,
            )
            for s in ranked
        ),
        evicted=tuple(evicted),
        too_large=tuple(too_large),
    )
