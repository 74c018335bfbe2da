"""Reciprocal rank fusion of the vector and lexical result lists.

RRF needs no score calibration between a cosine and a BM25 value, which is why it is used
here: each list contributes 1 / (k + rank). The fused value is divided by the best possible
one (first on both lists), so a score of 1.0 means "top of both" whatever k is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Fused:
    id: str
    score: float
    vector_rank: int | None
    lexical_rank: int | None


def fuse(
    vector_ids: Sequence[str],
    lexical_ids: Sequence[str],
    *,
    k: int = 60,
    vector_weight: float = 1.0,
) -> list[Fused]:
    """`vector_weight`: how much the vector ranking counts beside the words' (1.0); less for
    a query in a script the embedding model was not trained on (see `engine/search.py`)."""
    best = (1.0 + vector_weight) / (k + 1)
    vector_rank = {memory_id: i + 1 for i, memory_id in enumerate(vector_ids)}
    lexical_rank = {memory_id: i + 1 for i, memory_id in enumerate(lexical_ids)}
    fused: list[Fused] = []
    for memory_id in dict.fromkeys([*vector_ids, *lexical_ids]):
        v, lx = vector_rank.get(memory_id), lexical_rank.get(memory_id)
        raw = (vector_weight / (k + v) if v else 0.0) + (1.0 / (k + lx) if lx else 0.0)
        fused.append(Fused(memory_id, raw / best, v, lx))
    fused.sort(key=lambda f: (-f.score, f.vector_rank or 1 << 30))
    return fused


OWN_WEIGHT = 0.2
"""How much a conversational memory's own rankings count beside its context's (1.0)."""


def fuse_with_context(
    vector: Sequence[tuple[str, float]],
    lexical: Sequence[str],
    context_vector: Sequence[tuple[str, float]],
    context_lexical: Sequence[str],
    conversational: set[str],
    *,
    own_cosine: Mapping[str, float] | None = None,
    k: int = 60,
    vector_weight: float = 1.0,
) -> list[Fused]:
    """Reciprocal rank fusion when some memories belong to conversations.

    A conversational memory is ranked by its context (itself with the turns around it): its
    context vector competes with the other memories' own vectors by cosine in one list, and
    its context text's full-text rank counts as a lexical rank. Its own rankings still count,
    at `OWN_WEIGHT`. A memory outside any conversation is ranked by its own vector and words
    exactly as `fuse` ranks it. The score is scaled so that 1.0 is first on every list.

    `vector_weight` as for `fuse`, for every vector ranking.

    `own_cosine`: the own cosines of the turns among the candidates, which then rank the
    turns' own vectors (a store need not rank every turn by its own vector: see
    `Store.vector_search_in_context`); without it, the turns' order in `vector` does."""
    by_cosine = sorted(
        [(i, s) for i, s in vector if i not in conversational]
        + [(i, s) for i, s in context_vector if i in conversational],
        key=lambda hit: -hit[1],
    )
    ranked_vector = [i for i, _ in by_cosine]
    own_words = [i for i in lexical if i not in conversational]
    context_words = [i for i in context_lexical if i in conversational]
    if own_cosine is None:
        own_vector = [i for i, _ in vector if i in conversational]
    else:
        own_vector = sorted(own_cosine, key=lambda i: -own_cosine[i])
    own_lexical = [i for i in lexical if i in conversational]
    vector_rank = {memory_id: n + 1 for n, memory_id in enumerate(ranked_vector)}
    lexical_rank = {memory_id: n + 1 for n, memory_id in enumerate(own_words)}
    lexical_rank.update({memory_id: n + 1 for n, memory_id in enumerate(context_words)})
    extra: dict[str, float] = {}
    for ids, weight in ((own_vector, vector_weight), (own_lexical, 1.0)):
        for n, memory_id in enumerate(ids):
            extra[memory_id] = extra.get(memory_id, 0.0) + weight * OWN_WEIGHT / (k + n + 1)
    own = (vector_weight + 1.0) * OWN_WEIGHT if conversational else 0.0
    best = (vector_weight + 1.0 + own) / (k + 1)
    fused: list[Fused] = []
    for memory_id in dict.fromkeys([*ranked_vector, *own_words, *context_words, *extra]):
        v, lx = vector_rank.get(memory_id), lexical_rank.get(memory_id)
        raw = (vector_weight / (k + v) if v else 0.0) + (1.0 / (k + lx) if lx else 0.0)
        raw += extra.get(memory_id, 0.0)
        fused.append(Fused(memory_id, raw / best, v, lx))
    fused.sort(key=lambda f: (-f.score, f.vector_rank or 1 << 30))
    return fused
