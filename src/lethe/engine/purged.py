"""What the store has purged, as the audit records it: the ids, and each text by namespace.

A purge erased a memory for good, with a signed receipt that says so, so no import (an
export of this store taken before the purge, another memory's data, a folder of notes) may
bring it back: not by its id, nor its text into the namespace it was purged from. Saying the
fact again by `remember` is a person's new choice and stays possible.
"""

from __future__ import annotations

from dataclasses import dataclass

from lethe.engine.base import sha256
from lethe.model import Draft
from lethe.store.base import Store
from lethe.store.event_query import EventQuery

_PAGE = 1000


@dataclass(frozen=True)
class Purged:
    ids: frozenset[str]
    texts: frozenset[tuple[str, str]]
    """(namespace, sha256 of the text)."""

    def holds(self, draft: Draft) -> bool:
        return draft.id in self.ids or (draft.namespace, sha256(draft.content)) in self.texts


def purged_in(store: Store) -> Purged:
    ids: set[str] = set()
    texts: set[tuple[str, str]] = set()
    after = 0
    while True:
        page = store.events(EventQuery(op="purge", after_seq=after, limit=_PAGE))
        for event in page:
            if event.memory_id is not None:
                ids.add(event.memory_id)
            if event.content_sha256 is not None and event.namespace is not None:
                texts.add((event.namespace, event.content_sha256))
        if len(page) < _PAGE:
            return Purged(frozenset(ids), frozenset(texts))
        after = page[-1].seq
