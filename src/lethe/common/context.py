"""A conversational memory's context: itself seen with the turns around it.

Agents store conversations turn by turn, and turns are elliptical: "What did you do on
Saturday?" — "Went hiking at Mount Tam with my sister." The answer never says Saturday. A
memory that belongs to a conversation (`metadata.session`) is therefore also ranked by a
representation of itself with its neighbours, ordered by time:

- a vector: its own, plus the vectors of up to `BEFORE` earlier turns and `AFTER` later ones
  (settings `context_before`, `context_after`),
  weighted by side and fading with distance, normalised. It is built from vectors already
  stored, so keeping it costs no embedding;
- a text for the full-text side: who speaks in that window (`metadata.speaker`) and the
  window's turns in order.

Only live turns count: a forgotten turn leaves its neighbours' contexts, a restored one comes
back, and a purged one's text is gone from every context in the purge's transaction. The
context helps recall find a memory; forgetting never uses it (a memory is judged by its own
content). The weights were chosen on bench/bench_conversation_recall.py (seed 21): see
docs/benchmarks.md.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

BEFORE = 4
AFTER = 1
PREVIOUS_WEIGHT = 0.7
NEXT_WEIGHT = 0.3
FADE = 0.7
"""Each step further from the memory multiplies a neighbour's weight by this."""

EPISODE = " episode:"
"""The conversation key of an episode's members that name no session: an episode is a
conversation too (a memory in several belongs to the first one made). It starts with a
space, which a session never does (sessions are trimmed), so a session named
"episode:<id>" stays a conversation of its own."""
SESSION_KEY = "session"
SPEAKER_KEY = "speaker"


@dataclass(frozen=True, slots=True)
class Turn:
    """A live memory of a conversation, in the order the conversation is read."""

    memory_id: str
    content: str
    vector: npt.NDArray[np.float32]
    speaker: str | None


def session_of(metadata: dict[str, Any]) -> str | None:
    """The conversation a memory belongs to, from its metadata: a text (spaces around it
    ignored) or a whole number of at most 15 digits — as the stores' `conversation` column
    derives it."""
    value = metadata.get(SESSION_KEY)
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    if isinstance(value, int) and abs(value) >= 10**15:  # the stores read no longer number
        return None
    text = str(value).strip(" ")
    return text or None


def speaker_of(metadata: dict[str, Any]) -> str | None:
    value = metadata.get(SPEAKER_KEY)
    return value.strip() or None if isinstance(value, str) else None


Window = tuple[int, int]
"""Earlier and later turns a context takes in."""
WINDOW: Window = (BEFORE, AFTER)


def window_text(window: Window) -> str:
    """How a store records the window (`lethe_meta.context_window`)."""
    return f"{window[0]},{window[1]}"


def parse_window(text: str | None) -> Window:
    if not text:
        return WINDOW
    before, _, after = text.partition(",")
    return int(before), int(after)


Members = tuple[tuple[str, float], ...]
"""A context's window: (memory id, weight) in conversation order, the memory itself at 1.0."""


@dataclass(frozen=True, slots=True)
class Context:
    """What a conversational memory is ranked by besides itself: the normalised weighted sum
    of its window's vectors, the window's text, and the window itself (its neighbours)."""

    vector: npt.NDArray[np.float32]
    text: str
    members: Members


def window_members(order: Sequence[str], position: int, window: Window = WINDOW) -> Members:
    """The turns (id, weight) whose vectors make the context of the turn at `position` of a
    conversation read in `order` (weights rounded as they are stored, so that a stored
    window compares equal to the same one made again)."""
    before, after = window
    earlier = order[max(0, position - before) : position]
    later = order[position + 1 : position + 1 + after]
    return (
        *(
            (memory_id, round(PREVIOUS_WEIGHT * FADE ** (len(earlier) - 1 - n), 6))
            for n, memory_id in enumerate(earlier)
        ),
        (order[position], 1.0),
        *((memory_id, round(NEXT_WEIGHT * FADE**n, 6)) for n, memory_id in enumerate(later)),
    )


def context_of(members: Members, turns: dict[str, Turn]) -> Context:
    """The context made of these window members (every one of them in `turns`)."""
    first = turns[members[0][0]].vector
    vector = np.zeros(first.shape, dtype=np.float32)
    for memory_id, weight in members:
        vector += np.float32(weight) * turns[memory_id].vector
    norm = float(np.linalg.norm(vector))
    if norm > 0:
        vector /= norm
    span = [turns[memory_id] for memory_id, _ in members]
    speakers = list(dict.fromkeys(t.speaker for t in span if t.speaker))
    text = "\n".join([*speakers, *(t.content for t in span)])
    return Context(vector, text, members)


def contexts(turns: Sequence[Turn], window: Window = WINDOW) -> list[Context]:
    """The context of every turn of one conversation, read in the given order."""
    order = [t.memory_id for t in turns]
    by_id = {t.memory_id: t for t in turns}
    return [context_of(window_members(order, n, window), by_id) for n in range(len(order))]


SPARSE_CHANGES = 32
"""Up to this many changed turns in one write, the windows to remake are found from the
changes (their new neighbours, and the stored windows that held them); beyond, every window
of a marked conversation is compared (a bulk import)."""


def to_recompute(
    order: Sequence[str],
    kept: dict[str, Members],
    changed: set[str],
    window: Window = WINDOW,
) -> dict[str, Members]:
    """Which turns of a conversation need their context made again, with their new windows,
    found by comparing every window: those without one, those whose window moved (a turn
    came, went or changed place), and those whose window holds a changed turn."""
    out: dict[str, Members] = {}
    for position, memory_id in enumerate(order):
        members = window_members(order, position, window)
        if kept.get(memory_id) != members or any(m in changed for m, _ in members):
            out[memory_id] = members
    return out


def around_changes(
    order: Sequence[str],
    kept: set[str],
    changed: set[str],
    holders: set[str],
    window: Window = WINDOW,
) -> dict[str, Members]:
    """`to_recompute` without reading every window, for a few changed turns: a turn whose
    window holds a changed one now (its new neighbours) or held it before (`holders`, the
    stored windows naming it) is remade, and so is a live turn with no context yet (`kept`:
    the turns that have one). A window is a count of turns, so no other window moved."""
    before, after = window
    position = {memory_id: n for n, memory_id in enumerate(order)}
    chosen = {memory_id for memory_id in holders if memory_id in position}
    chosen |= {memory_id for memory_id in order if memory_id not in kept}
    for memory_id in changed:
        p = position.get(memory_id)
        if p is not None:
            chosen.update(order[max(0, p - after) : p + before + 1])
    return {m: window_members(order, position[m], window) for m in chosen}


def members_json(members: Members) -> str:
    return json.dumps([[memory_id, weight] for memory_id, weight in members])


def parse_members(text: str | None) -> Members:
    """Stored members; a row written before they were kept reads as no window (remade)."""
    if not text:
        return ()
    return tuple((str(m), float(w)) for m, w in json.loads(text))
