"""What one purge erased, gathered inside its transaction while the rows still exist.

The texts are held in memory only until the scan after the cleanup has run (`engine/proof`),
then dropped; the receipt keeps their SHA-256 and counts, never the words.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lethe.common.scripts import has_cjk
from lethe.model import Memory
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
    claim: str | None = None
    """The store's claim held while this purge is proved (`Store.claim`)."""
    owed: int | None = None
    """The owed work that promises this purge's receipt, recorded in its transaction."""

    @property
    def ids(self) -> list[str]:
        return [m["id"] for m in self.memories]

    def facts(self) -> dict[str, Any]:
        """Everything the receipt says that the purge's transaction knows, without the texts:
        recorded as owed work in that transaction, so a process that ends after the commit
        leaves the next open enough to sign the receipt, and never the words."""
        return {
            "actor": self.actor,
            "via": self.via,
            "plan_id": self.plan_id,
            "session": self.session,
            "memories": self.memories,
            "rewritten": self.rewritten,
            "counts": dict(self.counts),
            "namespaces": sorted(self.namespaces),
            "claim": self.claim,
        }

    @classmethod
    def from_facts(cls, facts: dict[str, Any]) -> Erasing:
        """The record again from `facts`, with no text to scan for."""
        return cls(
            actor=str(facts["actor"]),
            via=str(facts["via"]),
            plan_id=facts.get("plan_id"),
            session=facts.get("session"),
            memories=list(facts.get("memories") or []),
            rewritten=list(facts.get("rewritten") or []),
            counts=Counter({str(k): int(v) for k, v in (facts.get("counts") or {}).items()}),
            namespaces={str(n) for n in facts.get("namespaces") or []},
            claim=facts.get("claim"),
        )

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
        self,
        *,
        workspace: bool,
        cleanup: Sequence[tuple[str, str]],
        cleanup_done: bool,
        workspace_owed: bool = False,
    ) -> list[dict[str, Any]]:
        """Every place the purge erased from and how, for the receipt: counts gathered while
        it ran, then the store's own cleanup steps (`cleanup`: place, how). `workspace_owed`:
        the workspace files are still to be rewritten (by a process that has them)."""
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
            _workspace_place(c["workspace_lines"], workspace=workspace, owed=workspace_owed),
        ]
        for place, how in cleanup:
            places.append({"place": f"store cleanup: {place}", "how": how, "done": cleanup_done})
        return places


def _workspace_place(lines: int, *, workspace: bool, owed: bool) -> dict[str, Any]:
    if not workspace:
        return {"place": "workspace lines", "count": 0, "how": "no workspace is configured"}
    if owed:
        return {
            "place": "workspace lines",
            "count": lines,
            "how": "owed: the day and curated files are rewritten by the next process that "
            "has the workspace",
            "done": False,
        }
    return {
        "place": "workspace lines",
        "count": lines,
        "how": "the day and curated files rewritten",
    }
