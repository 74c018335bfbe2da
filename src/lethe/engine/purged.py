"""What the store has purged, as the audit records it: the ids, and each text by namespace.

A purge erased a memory for good, with a signed receipt that says so, so no import (an
export of this store taken before the purge, another memory's data, a folder of notes) may
bring it back: not by its id, nor any text it held (its current one or an earlier version's,
as written or as the duplicate check reads it: spacing, width, Unicode form) into the
namespace it was purged from. Saying the fact again by `remember` is a person's new choice
and stays possible.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lethe.engine.base import sha256
from lethe.engine.duplicates import normalise
from lethe.model import Draft, Memory
from lethe.store.base import Store
from lethe.store.event_query import EventQuery

_PAGE = 1000
_WORKSPACE_ID = re.compile(r"\[id:(mem_[0-9a-f]{12})\]")


@dataclass(frozen=True)
class Purged:
    ids: frozenset[str]
    texts: frozenset[tuple[str, str]]
    """(namespace, sha256 of the text)."""

    def holds(self, draft: Draft) -> bool:
        # A line of lethe's own workspace files ("- 12:00 [episodic] … [id:mem_…]"), read
        # back from a copy of the folder, names the memory it came from.
        named = set(_WORKSPACE_ID.findall(draft.content))
        return (
            draft.id in self.ids
            or bool(named & self.ids)
            or self.holds_text(draft.namespace, draft.content)
        )

    def holds_text(self, namespace: str, text: str) -> bool:
        return any((namespace, h) in self.texts for h in _digests(text))


def text_hashes(store: Store, memory: Memory) -> list[str]:
    """The hashes a purge event keeps of everything the memory said, read before it is erased:
    each state's text as written and as the duplicate check reads it. Hashes only, like the
    `content_sha256` every event has: no word of it."""
    return sorted({h for v in store.versions(memory.id) for h in _digests(v.content)})


def _digests(text: str) -> set[str]:
    return {sha256(text), sha256(normalise(text))}


def purged_in(store: Store) -> Purged:
    ids: set[str] = set()
    texts: set[tuple[str, str]] = set()
    after = 0
    while True:
        page = store.events(EventQuery(op="purge", after_seq=after, limit=_PAGE))
        for event in page:
            if event.memory_id is not None:
                ids.add(event.memory_id)
            if event.namespace is not None:
                held = [event.content_sha256, *(event.details or {}).get("text_sha256", [])]
                texts.update((event.namespace, h) for h in held if isinstance(h, str))
        if len(page) < _PAGE:
            return Purged(frozenset(ids), frozenset(texts))
        after = page[-1].seq
