"""Stage 2, gather: the candidates, found through a search port the engine implements.

The planner never searches by itself: the engine knows the store, the index and the
embedder, and answers two questions through `SearchPort`. Everything the planner knows of
the memories comes from here, so it can be tested with any port (tests/planner/support.py
builds one over a list of memories).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from lethe.model import Gist
from lethe.planner.ask import RequestReading


@dataclass(frozen=True)
class Candidate:
    memory: Gist
    similarity: float
    """Cosine of the request's object to the memory."""
    earlier: tuple[str, ...] = ()
    """The texts it superseded, newest first: what it was said before each supersede."""


class SearchPort(Protocol):
    def gather(self, reading: RequestReading) -> list[Candidate]:
        """The memories the request may mean, closest first: by meaning, by words, by the
        identifiers it names (inside any script), and, for a subject, every memory naming
        it."""
        ...

    def cosines(self, text: str, ids: Sequence[str]) -> dict[str, float]:
        """Each memory's cosine to a text (a part of a list is judged by its own)."""
        ...
