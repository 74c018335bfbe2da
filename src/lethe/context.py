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

EPISODE = "episode:"
"""The conversation key of an episode's members that name no session: an episode is a
conversation too (a memory in several belongs to the first one made)."""
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


def contexts(
    turns: Sequence[Turn], window: Window = WINDOW
) -> list[tuple[npt.NDArray[np.float32], str]]:
    """The context (vector, text) of every turn of one conversation, in the given order."""
    before, after = window
    out = []
    for position, turn in enumerate(turns):
        vector = turn.vector.astype(np.float32).copy()
        earlier = turns[max(0, position - before) : position]
        later = turns[position + 1 : position + 1 + after]
        for distance, other in enumerate(reversed(earlier)):
            vector += PREVIOUS_WEIGHT * FADE**distance * other.vector
        for distance, other in enumerate(later):
            vector += NEXT_WEIGHT * FADE**distance * other.vector
        norm = float(np.linalg.norm(vector))
        if norm > 0:
            vector /= norm
        span = [*earlier, turn, *later]
        speakers = list(dict.fromkeys(t.speaker for t in span if t.speaker))
        text = "\n".join([*speakers, *(t.content for t in span)])
        out.append((vector, text))
    return out
