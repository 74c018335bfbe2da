"""Consolidation (seed 001): find what memory holds twice, and strengthen what belongs together.

It reports near-duplicate pairs for a person or an agent to resolve with `forget` — it never
deletes — and bumps, once, the links between memories that were recorded close in time.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from lethe.common import validate
from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE
from lethe.config import Settings
from lethe.engine.base import Clock
from lethe.engine.expiring import Expiry
from lethe.engine.neardup import near_duplicates
from lethe.errors import InvalidInput
from lethe.model import Link
from lethe.store.base import Store

DEFAULT_WINDOW_MINUTES = 30.0
TEMPORAL_BUMP = 0.05
MAX_BUMPS = 1000
"""Links strengthened per run, newest first: a bulk import makes every auto-link "close in
time", and one run must not rewrite them all; later runs take the rest."""
MAX_PAIRS = 1000
MIN_THRESHOLD = 0.5


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class PairSide(_Frozen):
    id: str
    content: str


class DuplicatePair(_Frozen):
    a: PairSide
    b: PairSide
    similarity: float


class ConsolidationReport(_Frozen):
    namespace: str
    threshold: float
    scanned: int
    total_pairs: int
    pairs: tuple[DuplicatePair, ...]
    """The most similar pairs first, at most `limit` of them."""
    bumped: tuple[Link, ...]
    """Links between memories recorded within the window, strengthened by this run."""
    notes: str


class Consolidation:
    """Consolidation: near-duplicate pairs reported, memories close in time linked."""

    def __init__(self, store: Store, settings: Settings, clock: Clock, expiry: Expiry) -> None:
        self.store = store
        self.settings = settings
        self._clock = clock
        self._expiry = expiry

    def consolidate(
        self,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        threshold: float | None = None,
        limit: int = 50,
        window_minutes: float = DEFAULT_WINDOW_MINUTES,
        actor: str = DEFAULT_AGENT,
    ) -> ConsolidationReport:
        namespace = validate.namespace(namespace)
        threshold = validate.unit_interval(
            self.settings.consolidate_threshold if threshold is None else threshold, "threshold"
        )
        if threshold < MIN_THRESHOLD:
            raise InvalidInput(
                f"threshold {threshold:g} is too low for near-duplicates",
                hint=f"use a cosine of at least {MIN_THRESHOLD} (default 0.90)",
            )
        limit = validate.positive_int(limit, "limit", maximum=MAX_PAIRS)
        if not window_minutes >= 0:
            raise InvalidInput(f"window_minutes must be >= 0, got {window_minutes!r}")
        actor = validate.label(actor, "actor")
        self._expiry.expire_due()
        ids, matrix = self.store.namespace_vectors(namespace)
        rows, cols, sims = near_duplicates(matrix, threshold)
        top = zip(rows[:limit].tolist(), cols[:limit].tolist(), sims[:limit].tolist(), strict=True)
        shown = [(ids[r], ids[c], s) for r, c, s in top]
        live = self.store.get_many([i for a, b, _ in shown for i in (a, b)])
        pairs = tuple(
            DuplicatePair(
                a=PairSide(id=a, content=live[a].content),
                b=PairSide(id=b, content=live[b].content),
                similarity=round(s, 4),
            )
            for a, b, s in shown
            if a in live and b in live
        )
        bumped = self._bump_close_in_time(namespace, window_minutes * 60.0, actor)
        return ConsolidationReport(
            namespace=namespace,
            threshold=threshold,
            scanned=len(ids),
            total_pairs=len(rows),
            pairs=pairs,
            bumped=tuple(bumped),
            notes=_notes(len(rows), len(pairs), len(bumped)),
        )

    def _bump_close_in_time(self, namespace: str, window_s: float, actor: str) -> list[Link]:
        """Strengthen each link made between memories recorded close together, once: a link
        changed since it was made (by this or by anyone) is left as it is."""
        candidates = self.store.fresh_links_close_in_time(namespace, window_s, MAX_BUMPS)
        if not candidates:
            return []
        now = self._clock()
        bumped = []
        with self.store.transaction() as tx:
            for found in candidates:
                link = tx.store.get_link(found.a, found.b, found.kind)
                if link is None or link.updated_at != link.created_at:
                    continue  # changed meanwhile (another run, a person): left as it is
                confidence = round(min(1.0, link.confidence + TEMPORAL_BUMP), 6)
                new = link.model_copy(update={"confidence": confidence, "updated_at": now})
                tx.upsert_link(new)
                tx.append_event(
                    op="bump",
                    actor=actor,
                    at=now,
                    memory_id=link.a,
                    namespace=namespace,
                    details={
                        "other": link.b,
                        "kind": link.kind,
                        "from": link.confidence,
                        "to": confidence,
                        "by": "consolidate",
                    },
                )
                bumped.append(new)
        return bumped


def _notes(total: int, shown: int, bumped: int) -> str:
    found = (
        "No near-duplicate pairs."
        if not total
        else f"Found {total} near-duplicate pair(s)"
        + (f", showing the {shown} most similar." if shown < total else ".")
    )
    links = f" Strengthened {bumped} link(s) between memories recorded close in time."
    return found + (links if bumped else "")
