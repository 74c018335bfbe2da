"""What one purge erased, gathered inside its transaction while the rows still exist.

The texts are held in memory only until the scan after the cleanup has run (`engine/proof`),
then dropped; the receipt keeps their SHA-256 and counts, never the words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lethe.model import Memory
from lethe.scripts import has_cjk
from lethe.store.base import Store
from lethe.store.event_query import EventQuery


@dataclass(frozen=True)
class ErasedText:
    memory_id: str
    namespace: str
    version: int
    text: str


@dataclass
class Erasing:
    """The record of one purge, filled while it runs."""

    actor: str
    via: str
    plan_id: str | None = None
    session: str | None = None
    memories: list[dict[str, Any]] = field(default_factory=list)
    texts: list[ErasedText] = field(default_factory=list)
    rewritten: list[dict[str, Any]] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    namespaces: set[str] = field(default_factory=set)

    @property
    def ids(self) -> list[str]:
        return [m["id"] for m in self.memories]

    def take(self, store: Store, memory: Memory, derived_from: tuple[str, ...] = ()) -> None:
        """Before `memory` is erased: its versions, links, episodes and record, counted, and
        its texts kept for the scan (a summary purged with its sources adds no text of its
        own: its lines are theirs)."""
        versions = store.versions(memory.id)
        events = store.events(EventQuery(memory_id=memory.id, limit=10_000))
        entry: dict[str, Any] = {
            "id": memory.id,
            "namespace": memory.namespace,
            "was": memory.status,
            "content_sha256": memory.content_sha256,
            "versions": [
                {"version": v.version, "sha256": v.content_sha256}
                for v in sorted(versions, key=lambda v: v.version)
            ],
        }
        if derived_from:
            entry["derived_from"] = list(derived_from)
        self.memories.append(entry)
        self.namespaces.add(memory.namespace)
        self.counts["rows"] += 1
        self.counts["versions"] += sum(1 for v in versions if not v.current)
        self.counts["vectors"] += 1 + sum(1 for v in versions if not v.current)
        self.counts["tags"] += len(memory.tags)
        self.counts["links"] += len(store.links_of(memory.id))
        self.counts["episodes"] += len(store.episodes_of(memory.id))
        self.counts["events_redacted"] += len(events)
        if memory.metadata.get("session"):
            self.counts["conversations"] += 1
        if not memory.private:
            self.counts["workspace_lines"] += 1
        texts = {memory.content} | {v.content for v in versions}
        if any(has_cjk(t) for t in texts):
            self.counts["gram_entries"] += 1
        if derived_from:
            return
        self.texts.append(ErasedText(memory.id, memory.namespace, memory.version, memory.content))
        for v in versions:
            if v.content != memory.content:
                self.texts.append(ErasedText(memory.id, memory.namespace, v.version, v.content))

    def rewrote(self, old: Memory, new: Memory, versions_erased: int, reason: str) -> None:
        """A summary made from an erased memory, written again without its lines."""
        self.rewritten.append(
            {
                "id": old.id,
                "old_sha256": old.content_sha256,
                "new_sha256": new.content_sha256,
                "versions_erased": versions_erased,
                "why": reason,
            }
        )

    def places(
        self, *, workspace: bool, cleanup: Sequence[tuple[str, str]], cleanup_done: bool
    ) -> list[dict[str, Any]]:
        """Every place the purge erased from and how, for the receipt: counts gathered while
        it ran, then the store's own cleanup steps (`cleanup`: place, how)."""
        c = self.counts
        places: list[dict[str, Any]] = [
            {"place": "memory rows", "count": c["rows"], "how": "deleted"},
            {"place": "versions", "count": c["versions"], "how": "earlier versions deleted"},
            {"place": "vectors", "count": c["vectors"], "how": "deleted with their rows"},
            {
                "place": "lexical index: words",
                "count": c["rows"],
                "how": "entries deleted by trigger in the purge's transaction",
            },
        ]
        if c["gram_entries"]:
            places.append(
                {
                    "place": "lexical index: character grams",
                    "count": c["gram_entries"],
                    "how": "entries deleted by trigger in the purge's transaction",
                }
            )
        places += [
            {
                "place": "summaries rewritten",
                "count": len(self.rewritten),
                "how": "the erased lines removed; versions holding them erased",
                "summaries": self.rewritten,
            },
            {
                "place": "summaries purged",
                "count": sum(1 for m in self.memories if "derived_from" in m),
                "how": "purged with their sources",
            },
            {"place": "links", "count": c["links"], "how": "deleted"},
            {
                "place": "episodes",
                "count": c["episodes"],
                "how": "membership left as an anonymous gap",
            },
            {"place": "tags", "count": c["tags"], "how": "deleted"},
            {
                "place": "conversation contexts",
                "count": c["conversations"],
                "how": "the neighbours' contexts rebuilt without the erased turns",
            },
            {
                "place": "audit details",
                "count": c["events_redacted"],
                "how": "the erased memories' events kept with their details and reasons redacted",
            },
            {
                "place": "workspace lines",
                "count": c["workspace_lines"] if workspace else 0,
                "how": "the day and curated files rewritten"
                if workspace
                else "no workspace is configured",
            },
        ]
        for place, how in cleanup:
            places.append({"place": f"store cleanup: {place}", "how": how, "done": cleanup_done})
        return places
