"""Which memories may never be forgotten, and what the caller can do about it.

Protection is checked on every destructive path — explicit ids, queries, filters, bulk
criteria, decay sweeps and purge — because an explicit id bypasses similarity thresholds,
never protection (seeds 002 and 003).
"""

from __future__ import annotations

from dataclasses import dataclass

from lethe.model import Memory

PROTECTED_LAYERS = frozenset({"caveat", "goal"})
PIN_IMPORTANCE = 0.9


@dataclass(frozen=True, slots=True)
class Protection:
    reason: str
    hint: str


def protection(memory: Memory) -> Protection | None:
    if memory.is_system:
        return Protection(
            reason="system memory (sys_ id)",
            hint="system memories are never deleted",
        )
    if memory.layer in PROTECTED_LAYERS:
        return Protection(
            reason=f"{memory.layer}-layer memories are protected",
            hint=f"move it out of the {memory.layer} layer with update "
            "(e.g. layer=semantic) first, if it truly must go",
        )
    if memory.importance >= PIN_IMPORTANCE:
        return Protection(
            reason=f"pinned (importance {memory.importance:g} >= {PIN_IMPORTANCE})",
            hint=f"lower its importance below {PIN_IMPORTANCE} with update first",
        )
    return None
