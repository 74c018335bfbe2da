"""The earlier states of live memories, searched as of a past moment.

A recall `as_of` a time ranks each memory by the state it had then: its current state when that
began at or before the time (the main index, `VectorIndex.search(before=…)`), otherwise the
earlier state current then, found here. Only memories that are live now are held: a memory
forgotten or purged since leaves with all its states, so forgetting holds in the past too.

Earlier states are few (only changed memories have them), so they are kept as plain arrays
rebuilt after a change, and their words in a small inverted index for the full-text side:
BM25 over the memories table cannot see a text that is no longer current.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from lethe.store.vectors import Vector

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class EarlierState:
    """One earlier state of a live memory: current from `valid_from` until `valid_until`."""

    memory_id: str
    version: int
    namespace: str
    valid_from: float
    valid_until: float
    vector: Vector
    content: str


def words(text: str) -> set[str]:
    """The words of a text as the full-text index sees them: folded, without accents."""
    folded = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).lower())
    plain = "".join(c for c in folded if not unicodedata.combining(c))
    return set(_WORD.findall(plain))


class EarlierStates:
    def __init__(self, dim: int) -> None:
        self.dim = dim
        self._by_memory: dict[str, list[EarlierState]] = {}
        self._built = False
        self._rows: list[EarlierState] = []
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._namespace = np.zeros(0, dtype=np.int32)
        self._ns_codes: dict[str, int] = {}
        self._from = np.zeros(0, dtype=np.float64)
        self._until = np.zeros(0, dtype=np.float64)
        self._postings: dict[str, npt.NDArray[np.intp]] = {}
        self._position: dict[tuple[str, int], int] = {}

    def __len__(self) -> int:
        return sum(len(states) for states in self._by_memory.values())

    def replace(self, memory_id: str, states: Sequence[EarlierState]) -> None:
        """The earlier states a memory has now (none: it has none, or is no longer live)."""
        if states:
            self._by_memory[memory_id] = list(states)
        elif self._by_memory.pop(memory_id, None) is None:
            return
        self._built = False

    def _build(self) -> None:
        if self._built:
            return
        rows = [s for states in self._by_memory.values() for s in states]
        self._rows = rows
        self._matrix = (
            np.stack([s.vector for s in rows]).astype(np.float32, copy=False)
            if rows
            else np.zeros((0, self.dim), dtype=np.float32)
        )
        self._ns_codes = {}
        self._namespace = np.asarray(
            [self._ns_codes.setdefault(s.namespace, len(self._ns_codes)) for s in rows],
            dtype=np.int32,
        )
        self._from = np.asarray([s.valid_from for s in rows], dtype=np.float64)
        self._until = np.asarray([s.valid_until for s in rows], dtype=np.float64)
        postings: dict[str, list[int]] = {}
        for position, state in enumerate(rows):
            for word in words(state.content):
                postings.setdefault(word, []).append(position)
        self._postings = {w: np.asarray(p, dtype=np.intp) for w, p in postings.items()}
        self._position = {(s.memory_id, s.version): i for i, s in enumerate(rows)}
        self._built = True

    def similarities(
        self, query: Vector, keys: Sequence[tuple[str, int]]
    ) -> dict[tuple[str, int], float]:
        """The cosine of each of these earlier states held here to the query."""
        self._build()
        held = [(key, self._position[key]) for key in keys if key in self._position]
        if not held:
            return {}
        scores = self._matrix[[p for _, p in held]] @ query
        return {key: float(v) for (key, _), v in zip(held, scores.tolist(), strict=True)}

    def _current_at(self, namespace: str, at: float) -> npt.NDArray[np.bool_]:
        code = self._ns_codes.get(namespace, -1)
        mask: npt.NDArray[np.bool_] = (
            (self._namespace == code) & (self._from <= at) & (self._until > at)
        )
        return mask

    def search(
        self, query: Vector, *, namespace: str, at: float, k: int
    ) -> list[tuple[str, int, float]]:
        """Top-k (memory id, version, cosine) among the states current at `at`."""
        self._build()
        if not self._rows or k <= 0:
            return []
        positions = np.flatnonzero(self._current_at(namespace, at))
        if not len(positions):
            return []
        scores = self._matrix[positions] @ query
        k = min(k, len(positions))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(positions) else np.arange(k)
        top = top[np.argsort(-scores[top], kind="stable")]
        return [
            (self._rows[p].memory_id, self._rows[p].version, float(scores[i]))
            for i, p in zip(top.tolist(), positions[top].tolist(), strict=True)
        ]

    def lexical(
        self, terms: Sequence[str], *, namespace: str, at: float, k: int
    ) -> list[tuple[str, int]]:
        """Up to k (memory id, version) among the states current at `at` that hold any of
        the words, the ones holding the rarer words first (summed inverse document
        frequency)."""
        self._build()
        if not self._rows or k <= 0:
            return []
        current = self._current_at(namespace, at)
        score = np.zeros(len(self._rows), dtype=np.float64)
        total = len(self._rows)
        for term in dict.fromkeys(terms):
            hits = self._postings.get(term)
            if hits is None:
                continue
            score[hits] += math.log(1.0 + total / len(hits))
        score[~current] = 0.0
        found = np.flatnonzero(score > 0)
        if not len(found):
            return []
        ordered = found[np.argsort(-score[found], kind="stable")][:k]
        return [(self._rows[p].memory_id, self._rows[p].version) for p in ordered.tolist()]
