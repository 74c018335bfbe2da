"""Reciprocal rank fusion of the vector and lexical result lists.

RRF needs no score calibration between a cosine and a BM25 value, which is why it is used
here: each list contributes 1 / (k + rank). The fused value is divided by the best possible
one (first on both lists), so a score of 1.0 means "top of both" whatever k is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fused:
    id: str
    score: float
    vector_rank: int | None
    lexical_rank: int | None


def fuse(vector_ids: Sequence[str], lexical_ids: Sequence[str], *, k: int = 60) -> list[Fused]:
    best = 2.0 / (k + 1)
    vector_rank = {memory_id: i + 1 for i, memory_id in enumerate(vector_ids)}
    lexical_rank = {memory_id: i + 1 for i, memory_id in enumerate(lexical_ids)}
    fused: list[Fused] = []
    for memory_id in dict.fromkeys([*vector_ids, *lexical_ids]):
        v, lx = vector_rank.get(memory_id), lexical_rank.get(memory_id)
        raw = (1.0 / (k + v) if v else 0.0) + (1.0 / (k + lx) if lx else 0.0)
        fused.append(Fused(memory_id, raw / best, v, lx))
    fused.sort(key=lambda f: (-f.score, f.vector_rank or 1 << 30))
    return fused
