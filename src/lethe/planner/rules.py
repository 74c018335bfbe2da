"""The planner's rules by name: which fired for a request, and a way to switch one off.

Every gate, doubt, wording and marking rule of the planner has a name registered here with
what it is for. A rule that fires records itself (when someone records), so the benchmarks
can print, per rule, how often it fired; switching it off (`without`) and planning again
shows whether it changed a verdict, and whether the change was right. A rule that does not
pay on the benchmarks together is removed: the table is how that is seen.

Recording and switching off are context-local (`contextvars`): they cost nothing when unused
and never leak from one caller's plan into another's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

RULES: dict[str, str] = {}
"""Every rule's name and what it is for, in the order the stages register them."""


def rule(name: str, about: str) -> str:
    """Register a rule; returns its name, which the stage uses to ask `on` and to `fire`."""
    if name in RULES:
        raise ValueError(f"planner rule {name!r} is registered twice")
    RULES[name] = about
    return name


@dataclass(frozen=True)
class Fired:
    rule: str
    memory_id: str | None
    """The candidate it fired on; None for a rule about the request as a whole."""


_OFF: ContextVar[frozenset[str]] = ContextVar("lethe_planner_off", default=frozenset())
_RECORD: ContextVar[list[Fired] | None] = ContextVar("lethe_planner_record", default=None)


def on(name: str) -> bool:
    """Whether the rule is in force (every rule is, unless switched off by `without`)."""
    return name not in _OFF.get()


def fire(name: str, memory_id: str | None = None) -> None:
    """Note that a rule fired (kept only inside `recording`)."""
    record = _RECORD.get()
    if record is not None:
        record.append(Fired(name, memory_id))


@contextmanager
def without(*names: str) -> Iterator[None]:
    """Plan as if these rules did not exist (for measuring what each one changes)."""
    unknown = [n for n in names if n not in RULES]
    if unknown:
        raise ValueError(f"no planner rule named {', '.join(unknown)}; known: {', '.join(RULES)}")
    token = _OFF.set(_OFF.get() | frozenset(names))
    try:
        yield
    finally:
        _OFF.reset(token)


@contextmanager
def recording() -> Iterator[list[Fired]]:
    """Collect every rule that fires in the plans made inside the block."""
    fired: list[Fired] = []
    token = _RECORD.set(fired)
    try:
        yield fired
    finally:
        _RECORD.reset(token)
