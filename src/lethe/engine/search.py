"""Reading memories: hybrid recall and filtered listing."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from lethe.common import validate
from lethe.common.filters import Filters
from lethe.common.ranking import Fused, fuse, fuse_with_context
from lethe.embed.registry import reads
from lethe.engine.base import MAX_PAGE, Core
from lethe.engine.expiring import Expiry
from lethe.engine.past import Past
from lethe.engine.working import Working
from lethe.errors import InvalidInput
from lethe.model import Page, RecallHit
from lethe.store.vectors import Vector

MAX_K = 100
UNREAD_VECTOR_WEIGHT = 0.3
"""How much the vector ranking counts for a query its model cannot read (1.0 otherwise).
Chosen on the Japanese development set (bench/bench_japanese.py, seeds 0-2): recall@5 of
questions sharing a word with their memory 0.879/0.888/0.879 at 1.0, 0.919/0.902/0.906 at
0.3, 0.910/0.893/0.888 at 0.15 (where the vectors' little sense of the text is lost too)."""


class Search:
    """Recall (hybrid search), listing, and what the planner's search port stands on."""

    def __init__(self, core: Core, expiry: Expiry, past: Past, working: Working) -> None:
        self._core = core
        self.store = core.store
        self.embedder = core.embedder
        self.settings = core.settings
        self._clock = core.clock
        self._expiry = expiry
        self._past = past
        self._working = working

    def recall(
        self,
        query: str,
        k: int = 10,
        filters: Filters | dict[str, Any] | None = None,
        *,
        where: Iterable[str] = (),
        touch: bool = True,
        attend: str | None = None,
        min_similarity: float | None = None,
        as_of: datetime | str | None = None,
    ) -> list[RecallHit]:
        """Hybrid search: vector and full-text ranks fused; hits are ordered by that fused
        score, not by similarity alone, and every hit carries its cosine to the query.
        `min_similarity` (0-1) drops the hits whose cosine is below it, whatever their rank
        (a full-text match included). With `attend`, the hits also enter that agent's working
        memory."""
        text = validate.content(query, max_bytes=self.settings.max_content_bytes, what="query")
        k = validate.positive_int(k, "k", maximum=MAX_K)
        floor = (
            None
            if min_similarity is None
            else validate.unit_interval(min_similarity, "min_similarity")
        )
        flt = self._core.filters(filters, where)
        if as_of is not None:
            if attend is not None:
                raise InvalidInput(
                    "attend brings today's memories into working memory, not past states",
                    hint="recall as_of without attend",
                )
            return self._past.recall_as_of(text, k, flt, as_of, floor)
        self._expiry.expire_due()
        ranked, similarity = self.hybrid_for(
            self.embedder.embed([text])[0], text, flt, max(50, 5 * k), every_own=floor is not None
        )
        if floor is not None:  # on the cosine a hit reports (clamped to 0-1)
            ranked = [f for f in ranked if _cosine(similarity, f.id) >= floor]
        hits: list[RecallHit] = []
        # Candidates are re-checked against live rows k at a time: almost always the first k
        # are all live, and reading a row costs more than the rest of a hit.
        for start in range(0, len(ranked), k):
            window = ranked[start : start + k]
            live = self.store.get_many([f.id for f in window])
            for f in window:
                if f.id in live and len(hits) < k:
                    hits.append(
                        RecallHit(
                            memory=live[f.id],
                            similarity=_cosine(similarity, f.id),
                            score=f.score,
                            vector_rank=f.vector_rank,
                            lexical_rank=f.lexical_rank,
                        )
                    )
            if len(hits) >= k:
                break
        if touch and hits:
            self.store.touch([h.memory.id for h in hits], self._clock())
        if attend is not None and hits:
            self._working.bring_back(attend, flt.namespace, [h.memory.id for h in hits])
        return hits

    def hybrid_for(
        self, vector: Vector, text: str, flt: Filters, depth: int, *, every_own: bool = False
    ) -> tuple[list[Fused], dict[str, float]]:
        """Fused vector + full-text ranking, and every candidate's cosine to the query.

        The full-text search runs (where the store can) beside the vector search. It is started
        after the query is embedded, not during: the encoder already uses every core of a small
        machine, and sharing them made recall slower (15.3 -> 18.4 ms p50 on 2 cores). If its
        thread has not started by the time the vector search is done, this thread runs it: on
        a machine busy with other work a woken thread can wait milliseconds for a core, and
        waiting for it then costs more than the search.

        `every_own`: also search every memory's own vector, turns of conversations included.
        Recall ranks a turn by its context, so a turn whose own words match but whose
        neighbours are about something else may be found by neither; a caller that judges
        memories by their own cosine (a floor, the forget planners) must see it."""
        lexical = self.store.lexical_search_soon(text, flt, depth)
        try:
            context_words = self.store.context_lexical_soon(text, flt, depth)
            try:
                vector_hits, context_vector = self.store.vector_search_in_context(
                    vector, flt, depth
                )
            finally:
                context_lexical = context_words.result()
        finally:
            started = not lexical.cancel()
            if started:
                lexical_ids = lexical.result()
        if not started:
            lexical_ids = self.store.lexical_search(text, flt, depth)
        if context_vector is not None and every_own:
            own = dict(vector_hits) | dict(self.store.vector_search(vector, flt, depth))
            vector_hits = sorted(own.items(), key=lambda hit: -hit[1])
        similarity = dict(vector_hits)
        if context_vector is None:
            ranked = fuse(
                [i for i, _ in vector_hits],
                lexical_ids,
                k=self.settings.rrf_k,
                vector_weight=self._vector_weight(text),
            )
        else:
            candidates = {i for i, _ in vector_hits} | set(lexical_ids)
            candidates |= {i for i, _ in context_vector} | set(context_lexical)
            conversational = self.store.conversational(candidates)
            # A turn's own vector counts at a fifth: it is ranked among the turns any list
            # found (by context, by words, or by its own vector where that was searched).
            found = [*(i for i, _ in context_vector), *context_lexical, *lexical_ids]
            turns = dict.fromkeys(
                i for i in [*found, *(i for i, _ in vector_hits)] if i in conversational
            )
            missing = [i for i in turns if i not in similarity]
            similarity.update(self.store.similarities(vector, missing))
            ranked = fuse_with_context(
                vector_hits,
                lexical_ids,
                context_vector,
                context_lexical,
                conversational,
                own_cosine={i: similarity[i] for i in turns if i in similarity},
                k=self.settings.rrf_k,
                vector_weight=self._vector_weight(text),
            )
        missing = [f.id for f in ranked if f.id not in similarity]
        similarity.update(self.store.similarities(vector, missing))
        return ranked, similarity

    def _vector_weight(self, text: str) -> float:
        """How much the vector ranking counts beside the words': less for a query the
        embedding model cannot read. MiniLM was trained on English; on Japanese it gives
        every memory about the same similarity (0.52-0.57 for 「ペットについて」 over four
        unrelated memories), so its ranking, counted in full, pushes a memory the gram index
        found second below the vectors' arbitrary first few."""
        return 1.0 if reads(self.embedder.name, text) else UNREAD_VECTOR_WEIGHT

    def touch(self, memory_ids: Sequence[str]) -> None:
        """Count a read of these live memories (a face that reads by id, as recall's hits
        are counted): decay judges a memory by when it was last read."""
        ids = [validate.memory_id(i) for i in memory_ids]
        if ids:
            self.store.touch(ids, self._clock())

    def similarities(self, query: str, memory_ids: Sequence[str]) -> dict[str, float]:
        """The cosine of each of these live memories to the query (clamped to 0-1)."""
        text = validate.content(query, max_bytes=self.settings.max_content_bytes, what="query")
        ids = [validate.memory_id(i) for i in memory_ids]
        found = self.store.similarities(self.embedder.embed([text])[0], ids)
        return {i: _cosine(found, i) for i in found}

    def namespaces(self) -> list[str]:
        """The namespaces that hold at least one live memory."""
        self._expiry.expire_due()
        return [
            name
            for name in self.store.namespaces()
            if self.store.list_memories(Filters(namespace=name), limit=1, offset=0)[1]
        ]

    def list_memories(
        self,
        filters: Filters | dict[str, Any] | None = None,
        *,
        where: Iterable[str] = (),
        limit: int = 50,
        offset: int = 0,
    ) -> Page:
        """Live memories matching the filters, newest first."""
        limit = validate.positive_int(limit, "limit", maximum=MAX_PAGE)
        validate.offset(offset, "offset")
        self._expiry.expire_due()
        items, total = self.store.list_memories(
            self._core.filters(filters, where), limit=limit, offset=offset
        )
        return Page(items=tuple(items), total=total, offset=offset, limit=limit)


def _cosine(similarity: dict[str, float], memory_id: str) -> float:
    return min(max(similarity.get(memory_id, 0.0), 0.0), 1.0)
