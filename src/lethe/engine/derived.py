"""Purge follows copies: what lethe made from a memory goes with it.

A decay sweep compresses memories into a summary that holds their first sentences and names
them in `metadata.summarizes`, so derivation is exact. Purging one of those memories must not
leave its sentence in the summary: the purge plan lists every summary made from its targets
(live or in the trash, and summaries made from those summaries), and executing it rewrites
each from the sources that remain — extractively, from their own words, never through a
language model — or purges it too when none remains. A rewritten summary's earlier versions
hold the erased text, so they are erased with it. All of it happens in the purge's own
transaction.

Expiry of old trash (`maintain`) is not a purge of a person's choosing: the summary is what
the sweep meant to keep, and it stays as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from lethe.engine.base import EngineBase, sha256
from lethe.forget.decay import extractive_summary
from lethe.forget.plan import DerivedItem
from lethe.model import Memory
from lethe.store.base import Store, StoreTx
from lethe.store.rows import Provenance

MAX_DEPTH = 10
"""Summaries of summaries followed this deep (a sweep can compress a summary again)."""


def _sources(memory: Memory) -> list[str]:
    raw = memory.metadata.get("summarizes")
    return [i for i in raw if isinstance(i, str)] if isinstance(raw, list) else []


def derived_closure(store: Store, target_ids: Sequence[str]) -> list[DerivedItem]:
    """Every memory derived from the targets, directly or through other derived ones, oldest
    derivation first, with what a purge of the targets does to it."""
    erased = set(target_ids)
    frontier = list(target_ids)
    seen: set[str] = set()
    items: list[DerivedItem] = []
    for _ in range(MAX_DEPTH):
        derived = [m for m in store.derived_from(frontier) if m.id not in seen | erased]
        if not derived:
            break
        frontier = []
        for memory in derived:
            seen.add(memory.id)
            sources = _sources(memory)
            existing = store.get_many(sources, active_only=False)
            left = tuple(i for i in sources if i in existing and i not in erased)
            touched = tuple(i for i in sources if i in erased or i in seen)
            if left:
                reason = (
                    f"a summary made from {', '.join(touched)}: rewritten from the "
                    f"{len(left)} other source(s) it was made from"
                )
            else:
                erased.add(memory.id)
                reason = f"a summary made only from {', '.join(touched)}: purged with it"
            items.append(
                DerivedItem(
                    id=memory.id,
                    namespace=memory.namespace,
                    preview=memory.preview(),
                    action="rewrite" if left else "purge",
                    derived_from=touched,
                    sources_left=left,
                    reason=reason,
                )
            )
            frontier.append(memory.id)
    return items


class DerivedOps(EngineBase):
    def _cascade(
        self,
        tx: StoreTx,
        erased_ids: Sequence[str],
        *,
        actor: str,
        now: datetime,
        details: dict[str, Any],
    ) -> list[Memory]:
        """Inside a purge's transaction, after its targets are erased: rewrite or purge what
        was derived from them (decided again here, on what the purge really erased).
        Returns the memories touched, old and new states, for the workspace."""
        touched: list[Memory] = []
        for item in derived_closure(tx.store, erased_ids):
            memory = tx.store.get(item.id)
            if memory is None:
                continue
            if item.action == "purge":
                tx.erase(memory.id)
                tx.append_event(
                    op="purge",
                    actor=actor,
                    at=now,
                    memory_id=memory.id,
                    namespace=memory.namespace,
                    details={**details, "derived_from": list(item.derived_from)},
                    content_sha256=memory.content_sha256,
                )
                touched.append(memory)
                continue
            sources = tx.store.get_many(list(item.sources_left), active_only=False)
            text = extractive_summary(
                [sources[i].content for i in item.sources_left if i in sources]
            )
            vector = self.embedder.embed([text])[0]
            new = memory.model_copy(
                update={
                    "content": text,
                    "content_sha256": sha256(text),
                    "metadata": {**memory.metadata, "summarizes": list(item.sources_left)},
                    "updated_at": max(now, memory.updated_at),
                    "version": memory.version + 1,
                }
            )
            erased_versions = tx.drop_versions(memory.id)
            tx.update_memory(new, vector, Provenance(actor, "rewrite", item.reason))
            tx.append_event(
                op="rewrite",
                actor=actor,
                at=now,
                memory_id=memory.id,
                namespace=memory.namespace,
                details={
                    **details,
                    "derived_from": list(item.derived_from),
                    "sources_left": len(item.sources_left),
                    "versions_erased": erased_versions,
                    "old_sha256": memory.content_sha256,
                },
                content_sha256=new.content_sha256,
            )
            touched += [memory, new]
        return touched
