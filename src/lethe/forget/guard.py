"""Which memories may never be forgotten, and what the caller can do about it.

Protection is checked on every destructive path — explicit ids, queries, filters, bulk
criteria, decay sweeps and purge — because an explicit id bypasses similarity thresholds,
never protection (seeds 002 and 003).
"""

from __future__ import annotations

from dataclasses import dataclass

from lethe.model import Gist, Memory

PROTECTED_LAYERS = frozenset({"caveat", "goal"})
PIN_IMPORTANCE = 0.9


@dataclass(frozen=True, slots=True)
class Protection:
    reason: str
    hint: str
    kind: str = ""
    """system, layer or pin: a change loses a protection when it loses its kind (moving a
    caveat to the goal layer keeps one)."""


CONFIRM_HINT = "a change that removes it is confirmed like a forget"


def protection(memory: Memory | Gist) -> Protection | None:
    found = protections(memory.id, memory.layer, memory.importance)
    return found[0] if found else None


def protections(memory_id: str, layer: str, importance: float) -> list[Protection]:
    """Every protection a memory in this state has, strongest first (a system id can never
    be lifted; a layer or a pin can, by a confirmed update)."""
    found = []
    if memory_id.startswith("sys_"):
        found.append(
            Protection(
                reason="system memory (sys_ id)",
                hint="system memories are never deleted",
                kind="system",
            )
        )
    if layer in PROTECTED_LAYERS:
        found.append(
            Protection(
                reason=f"{layer}-layer memories are protected",
                hint=f"move it out of the {layer} layer with update "
                f"(e.g. layer=semantic) first, if it truly must go; {CONFIRM_HINT}",
                kind="layer",
            )
        )
    if importance >= PIN_IMPORTANCE:
        found.append(
            Protection(
                reason=f"pinned (importance {importance:g} >= {PIN_IMPORTANCE})",
                hint=f"lower its importance below {PIN_IMPORTANCE} with update first; "
                f"{CONFIRM_HINT}",
                kind="pin",
            )
        )
    return found
