"""The candidates read once: what each memory says, and how rare each word is among them.

Whether a word is a name or a common word is read against all the texts together (a word
any of them writes in lower case is no name), so the pool is read as a whole, once per
request, and every stage looks words up here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lethe.planner import evidence
from lethe.planner.evidence import Reading
from lethe.planner.port import Candidate


@dataclass(frozen=True)
class Pool:
    candidates: tuple[Candidate, ...]
    readings: dict[str, Reading]
    """Each candidate's reading, by memory id."""
    common: frozenset[str]
    """The words some text (the request's or a memory's) writes in lower case."""
    weights: dict[str, float]
    """How rare each word is among the candidates (inverse document frequency)."""

    def reading(self, candidate: Candidate) -> Reading:
        return self.readings[candidate.memory.id]

    def rescored(self, cosines: dict[str, float]) -> Pool:
        """The same memories with other cosines (a part of a list), closest first."""
        rescored = [
            Candidate(c.memory, cosines.get(c.memory.id, 0.0), c.earlier) for c in self.candidates
        ]
        rescored.sort(key=lambda c: -c.similarity)
        return Pool(tuple(rescored), self.readings, self.common, self.weights)


def pool_of(text: str, candidates: Sequence[Candidate]) -> Pool:
    texts = [text, *(c.memory.content for c in candidates)]
    common = evidence.lowercase_words(texts)
    # The request names a person by writing them capitalised, wherever in it ("Charlie on
    # the team"): a memory that starts with that word before a verb ("Charlie joined …") is
    # about them, even when another memory writes the word in lower case (a charlie horse).
    scans = [evidence.scan(c.memory.content) for c in candidates]
    named = evidence.named_in([evidence.scan(text), *scans]) | evidence.capitalised(text)
    readings = {
        c.memory.id: evidence.read(c.memory.content, common, named, c.earlier, scanned)
        for c, scanned in zip(candidates, scans, strict=True)
    }
    return Pool(tuple(candidates), readings, common, evidence.idf(list(readings.values())))
