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
class Entry:
    """What eviction weighs of one item of working memory, without its text: admitting a new
    memory reads these few columns of the set, never every memory in it."""

    memory_id: str
    tokens: int
    added_at: datetime
    importance: float
    access_count: int


@dataclass(frozen=True)
class Slot:
    memory: Memory
    tokens: int
    added_at: datetime

    @property
    def entry(self) -> Entry:
        return Entry(
            self.memory.id,
            self.tokens,
            self.added_at,
            self.memory.importance,
            self.memory.access_count,
        )


def value(entry: Entry, now: datetime) -> float:
    """What keeping a memory in the prompt is worth: importance first, then recency of its
    entry (halving every day), then how often it has been recalled."""
    hours = max((now - entry.added_at).total_seconds() / 3600.0, 0.0)
    recency = math.pow(0.5, hours / RECENCY_HALF_LIFE_H)
    usage = min(math.log1p(entry.access_count) / 10.0, 0.3)
    return entry.importance + 0.5 * recency + usage


def choose_evictions(entries: Sequence[Entry], budget: int, now: datetime) -> list[Entry]:
    """The entries to evict so the rest fits the budget, least valuable first. A memory that
    has just arrived competes like any other (its recency counts for it): a trivial new note
    does not push out something important."""
    total = sum(e.tokens for e in entries)
    if total <= budget:
        return []
    order = sorted(entries, key=lambda e: (value(e, now), e.added_at, e.memory_id))
    evicted = []
    for entry in order:
        if total <= budget:
            break
        evicted.append(entry)
        total -= entry.tokens
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
    ranked = sorted(slots, key=lambda s: -value(s.entry, now))
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
