"""Reading the past: recall and get as of a moment.

"Where did Alice work last spring?" is answered from the state each memory had then: its
current state if that began at or before the moment, else the earlier state current then
(kept by every update, see `versions.py`). Memories made after the moment are absent, and so
is every memory forgotten or purged since, with all its states: forgetting holds in the past
too. A memory that was in the trash at the moment and has been restored since is read as if it
had stayed.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from lethe.common import validate
from lethe.common.expiry import parse_instant
from lethe.common.filters import Filters
from lethe.common.ranking import fuse
from lethe.config import Settings
from lethe.embed import Embedder
from lethe.engine.base import Clock
from lethe.engine.expiring import Expiry
from lethe.errors import InvalidInput, MemoryNotFound
from lethe.model import Memory, MemoryVersion, RecallHit
from lethe.store.base import Store

_EMBED_BATCH = 256
StateKey = tuple[str, int | None]


class Past:
    """Reads a live memory, and reads the past: `get` and `recall` as of a moment."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        clock: Clock,
        expiry: Expiry,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self._clock = clock
        self._expiry = expiry

    def _moment(self, as_of: datetime | str, namespace: str) -> datetime:
        """A moment a past read can be asked about: not in the future, and not before the
        namespace's record begins (nothing could be read there)."""
        at = parse_instant(as_of, "as_of")
        now = self._clock()
        if at > now:
            raise InvalidInput(
                f"as_of {at.isoformat()} is in the future",
                hint="give a past moment, or leave as_of out for the present",
            )
        began = self.store.began(namespace)
        if began is None or at < began:
            start = "holds nothing yet" if began is None else f"begins {began.isoformat()}"
            raise InvalidInput(
                f"as_of {at.isoformat()} is before anything was remembered: the record of "
                f"namespace {namespace!r} {start}",
                hint="give a later moment",
            )
        return at

    def embed_earlier(self) -> int:
        """Give every earlier state a vector (ones kept before vectors were, or imported):
        recall as of a moment ranks them. Returns how many were embedded."""
        done = 0
        while True:
            missing = self.store.unembedded_versions(_EMBED_BATCH)
            if not missing:
                return done
            vectors = self.embedder.embed([text for _, _, text in missing])
            with self.store.transaction() as tx:
                for (memory_id, version, _), vector in zip(missing, vectors, strict=True):
                    tx.set_version_vector(memory_id, version, vector)
            done += len(missing)
            if len(missing) < _EMBED_BATCH:
                return done

    def recall_as_of(
        self,
        text: str,
        k: int,
        flt: Filters,
        as_of: datetime | str,
        floor: float | None,
    ) -> list[RecallHit]:
        """`recall` over the states of the namespace's live memories at a moment."""
        if flt.narrows_beyond_namespace():
            raise InvalidInput(
                "as_of takes no filter but the namespace: the others would read today's "
                "tags and fields, not those of the moment asked about",
                hint="recall as_of without filters, then narrow the hits yourself",
            )
        at = self._moment(as_of, flt.namespace)
        self._expiry.expire_due()
        self.embed_earlier()
        vector = self.embedder.embed([text])[0]
        depth = max(50, 5 * k)
        by_vector, by_words = self.store.search_at(vector, text, flt.namespace, at, depth)
        vector_hits = _first_per_memory(by_vector)
        lexical = _first_per_memory((i, v, 0.0) for i, v in by_words)
        state: dict[str, int | None] = {i: v for i, v, _ in lexical}
        state.update({i: v for i, v, _ in vector_hits})
        similarity: dict[StateKey, float] = {(i, v): s for i, v, s in vector_hits}
        missing = [(i, v) for i, v, _ in lexical if (i, v) not in similarity]
        similarity.update(self.store.similarities_at(vector, missing))
        ranked = fuse(
            [i for i, _, _ in vector_hits], [i for i, _, _ in lexical], k=self.settings.rrf_k
        )
        if floor is not None:
            ranked = [f for f in ranked if _clamp(similarity.get((f.id, state[f.id]))) >= floor]
        hits: list[RecallHit] = []
        for start in range(0, len(ranked), k):
            window = ranked[start : start + k]
            states = self._states_at([(f.id, state[f.id]) for f in window], at)
            for f in window:
                memory = states.get(f.id)
                if memory is not None and len(hits) < k:
                    hits.append(
                        RecallHit(
                            memory=memory,
                            similarity=_clamp(similarity.get((f.id, state[f.id]))),
                            score=f.score,
                            vector_rank=f.vector_rank,
                            lexical_rank=f.lexical_rank,
                        )
                    )
            if len(hits) >= k:
                break
        return hits

    def _states_at(self, keys: list[StateKey], at: datetime) -> dict[str, Memory]:
        """The memories as they stood at `at`, re-read from live rows: a search answer can be
        a moment old, and a memory changed or forgotten in between must not slip through."""
        live = self.store.get_many([i for i, _ in keys])
        earlier = self.store.earlier_states([(i, v) for i, v in keys if v is not None])
        found: dict[str, Memory] = {}
        for memory_id, version in keys:
            memory = live.get(memory_id)
            if memory is None or memory.created_at > at:
                continue
            if version is None:
                if memory.updated_at <= at:
                    found[memory_id] = memory
                continue
            past = earlier.get((memory_id, version))
            until = None if past is None else past.valid_until
            if past is not None and until is not None and past.valid_from <= at < until:
                found[memory_id] = as_state(memory, past)
        return found

    def get(
        self,
        memory_id: str,
        *,
        namespace: str | None = None,
        as_of: datetime | str | None = None,
    ) -> Memory:
        """A live memory; with `as_of` (a past moment), the memory as it stood then. With
        `namespace`, one from another namespace is "not found": callers confined to some
        namespaces (an MCP token) must not learn what lies outside them."""
        validate.memory_id(memory_id)
        self._expiry.expire_due()
        memory = self.store.get(memory_id)
        if (
            memory is None
            or memory.status != "active"
            or (namespace is not None and memory.namespace != namespace)
        ):
            raise MemoryNotFound(
                f"Memory not found: {memory_id}", hint="search for it with recall or list"
            )
        if as_of is None:
            return memory
        at = self._moment(as_of, memory.namespace)
        state = next(
            (
                v
                for v in self.store.versions(memory.id)
                if v.valid_from <= at and (v.valid_until is None or at < v.valid_until)
            ),
            None,
        )
        if state is None or memory.created_at > at:
            raise MemoryNotFound(
                f"{memory_id} had no state at {at.isoformat()}: it was remembered "
                f"{memory.created_at.isoformat()}",
                hint="give a later as_of, or see history() for when each state began",
            )
        return memory if state.current else as_state(memory, state)


def as_state(memory: Memory, state: MemoryVersion) -> Memory:
    """A live memory as one of its states shows it (text, fields, version, when it began)."""
    return memory.model_copy(
        update={
            "agent": state.agent,
            "content": state.content,
            "content_sha256": state.content_sha256,
            "layer": state.layer,
            "category": state.category,
            "tags": state.tags,
            "metadata": state.metadata,
            "importance": state.importance,
            "private": state.private,
            "version": state.version,
            "updated_at": state.valid_from,
            "expires_at": state.expires_at,
        }
    )


def _first_per_memory(
    hits: Iterable[tuple[str, int | None, float]],
) -> list[tuple[str, int | None, float]]:
    """One state per memory, the first given (a search answer racing a change could give
    the old state from one index and the new from the other)."""
    seen: set[str] = set()
    out: list[tuple[str, int | None, float]] = []
    for memory_id, version, score in hits:
        if memory_id not in seen:
            seen.add(memory_id)
            out.append((memory_id, version, score))
    return out


def _clamp(value: float | None) -> float:
    return min(max(value or 0.0, 0.0), 1.0)
