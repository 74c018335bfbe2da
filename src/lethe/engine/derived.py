"""Purge follows copies: what lethe made from a memory loses that memory's words with it.

A decay sweep compresses memories into a summary (agent `lethe`, category `summary`) that
holds one line per memory — its first sentence — and names them in `metadata.summarizes`, so
derivation is exact. Purging one of those memories must not leave its sentence behind: the
purge plan lists every summary of the same namespace made from its targets (live or in the
trash, and summaries made from those), and executing it, in the purge's own transaction:

- removes the erased memories' lines from the summary and nothing else: the lines of other
  sources (even ones the trash's retention has since erased: that summary is what the sweep
  meant to keep), a person's later edits, and its privacy stay as they are;
- erases the summary's earlier versions that hold an erased line;
- purges the summary when no line is left, unless it is protected (then it keeps its header);
- leaves alone, and lists for review, a summary that holds none of the erased lines (a person
  rewrote it), and rewrites from the sources left a summary a language model wrote and no one
  changed since (its words cannot be matched line by line).

Expiry of old trash (`maintain`) is not a purge of a person's choosing: summaries stay as
they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from lethe.embed import Embedder
from lethe.engine.base import sha256
from lethe.engine.purged import text_hashes
from lethe.erasure.record import Erasing
from lethe.forget.decay import SUMMARY_HEADER, extractive_summary, summary_line
from lethe.forget.guard import protection
from lethe.forget.plan import DerivedItem
from lethe.model import Memory
from lethe.store.base import Store, StoreTx
from lethe.store.rows import Provenance

EMPTIED = SUMMARY_HEADER + "\n(every memory it was made from has been erased)"


def _sources(memory: Memory) -> list[str]:
    raw = memory.metadata.get("summarizes")
    return [i for i in raw if isinstance(i, str)] if isinstance(raw, list) else []


def _without(content: str, lines: set[str]) -> tuple[str, int]:
    """The summary without every line that holds an erased memory's line (its own, or a copy
    of it inside a summary of summaries), and how many it dropped."""
    kept, dropped = [], 0
    for line in content.splitlines():
        if line.startswith("- ") and any(gone in line for gone in lines if gone):
            dropped += 1
        else:
            kept.append(line)
    return "\n".join(kept), dropped


def erased_lines(store: Store, erased: Sequence[Memory]) -> set[str]:
    """The summary lines an erasure of these memories takes away: the line of each one's
    text and of every earlier version of it (a summary made before an update holds the
    old text's line)."""
    lines = {summary_line(m.content) for m in erased}
    for memory in erased:
        lines.update(summary_line(v.content) for v in store.versions(memory.id))
    return {line for line in lines if line}


def _planned(
    memory: Memory,
    erased: dict[str, Memory],
    rewritten: dict[str, str],
    store: Store,
    targets_lines: set[str],
) -> DerivedItem | None:
    sources = _sources(memory)
    touched = tuple(i for i in sources if i in erased or i in rewritten)
    lines = targets_lines | {summary_line(m.content) for m in erased.values()}
    text, dropped = _without(memory.content, lines)
    holds = any(gone and gone in memory.content for gone in lines)
    if not dropped and not holds and not any(i in erased for i in sources):
        return None  # made from a summary that only loses lines: its own line is unchanged
    existing = store.get_many(sources, active_only=False)
    left = tuple(i for i in sources if i in existing and i not in erased)
    # A source's words as they will stand: a summary rewritten before this one by its new
    # text, and never a line that holds an erased text.
    words = {i: _without(rewritten.get(i, existing[i].content), lines)[0] for i in left}
    guarded = protection(memory)
    base = dict(
        id=memory.id,
        namespace=memory.namespace,
        preview=memory.preview(),
        derived_from=touched,
        sources_left=left,
    )
    if dropped:
        why = f"a summary holding the text of {', '.join(touched)}: those lines are removed"
        if any(line.startswith("- ") for line in text.splitlines()):
            return DerivedItem(**base, action="rewrite", new_content=text, reason=why)
        # No line of its own is left: made again from the sources that remain, those it may
        # show (a public summary never takes in a private memory's words).
        usable = [i for i in left if memory.private or not existing[i].private]
        if usable:
            return DerivedItem(
                **base,
                action="rewrite",
                new_content=extractive_summary([words[i] for i in usable]),
                reason=f"{why}; made again from the {len(usable)} source(s) left",
            )
        if guarded:
            return DerivedItem(
                **base,
                action="rewrite",
                new_content=EMPTIED,
                reason=f"{why}; it stays ({guarded.reason}) with no line left",
            )
        return DerivedItem(
            **base,
            action="purge",
            reason=f"a summary of nothing but {', '.join(touched)}: purged with it",
        )
    if holds or (memory.version == 1 and not memory.content.startswith(SUMMARY_HEADER)):
        # The erased text inside free words (a language model's summary, or one a person
        # rewrote around it), or a language model's summary unchanged since: its words cannot
        # be taken apart line by line, so it is written again from its sources that remain.
        usable = [i for i in left if memory.private or not existing[i].private]
        if usable:
            texts = [words[i] for i in usable]
            return DerivedItem(
                **base,
                action="rewrite",
                new_content=extractive_summary(texts),
                reason="a summary written by a language model from "
                f"{', '.join(touched)}: written again from the {len(usable)} source(s) left",
            )
        if not guarded:
            return DerivedItem(
                **base,
                action="purge",
                reason=f"a summary written from {', '.join(touched)} alone: purged with it",
            )
    return DerivedItem(
        **base,
        action="keep",
        reason=f"made from {', '.join(touched)} but no longer holds its lines (rewritten since): "
        "kept; review it",
    )


def derived_closure(
    store: Store, targets: Sequence[Memory], lines: set[str] | None = None
) -> list[DerivedItem]:
    """Every summary of the targets' namespace made from them, directly or through other
    summaries, oldest first, with what a purge of the targets does to it. `lines`: the
    targets' summary lines when they are already erased (their versions gone with them)."""
    erased = {m.id: m for m in targets}
    targets_lines = erased_lines(store, targets) if lines is None else lines
    rewritten: dict[str, str] = {}
    frontier = list(targets)
    seen: set[str] = set()
    items: list[DerivedItem] = []
    while frontier:
        by_namespace: dict[str, list[str]] = {}
        for memory in frontier:
            by_namespace.setdefault(memory.namespace, []).append(memory.id)
        frontier = []
        for namespace, ids in sorted(by_namespace.items()):
            for summary in store.derived_from(ids, namespace):
                if summary.id in seen or summary.id in erased:
                    continue
                seen.add(summary.id)
                item = _planned(summary, erased, rewritten, store, targets_lines)
                if item is None:
                    continue
                items.append(item)
                if item.action == "purge":
                    erased[summary.id] = summary
                elif item.action == "rewrite":
                    rewritten[summary.id] = item.new_content or EMPTIED
                if item.action != "keep":
                    frontier.append(summary)
    return items


class Derived:
    """Memories derived from an erased one (summaries, merges) follow it."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder

    def cascade(
        self,
        tx: StoreTx,
        erased: Sequence[Memory],
        *,
        actor: str,
        now: datetime,
        details: dict[str, Any],
        erasing: Erasing | None = None,
        lines: set[str] | None = None,
    ) -> list[Memory]:
        """Inside a purge's transaction, after its targets are erased: rewrite or purge what
        was made from them (decided again here, on what the purge really erased). Returns
        the memories touched, old and new states, for the workspace."""
        touched: list[Memory] = []
        lines = erased_lines(tx.store, erased) if lines is None else lines
        gone_lines = sorted(lines)
        for item in derived_closure(tx.store, erased, lines):
            memory = tx.store.get(item.id)
            if memory is None or item.action == "keep":
                continue
            if item.action == "purge":
                if erasing is not None:
                    erasing.take(tx.store, memory, derived_from=item.derived_from)
                hashes = text_hashes(tx.store, memory)
                tx.erase(memory.id)
                tx.append_event(
                    op="purge",
                    actor=actor,
                    at=now,
                    memory_id=memory.id,
                    namespace=memory.namespace,
                    details={
                        **details,
                        "derived_from": list(item.derived_from),
                        "text_sha256": hashes,
                    },
                    content_sha256=memory.content_sha256,
                )
                touched.append(memory)
                continue
            text = item.new_content or EMPTIED
            if not any(line.startswith("- ") for line in text.splitlines()):
                text = EMPTIED
            vector = self.embedder.embed([text])[0]
            gone = {m.id for m in erased} | set(item.derived_from)
            left = [i for i in _sources(memory) if i not in gone or i in item.sources_left]
            new = memory.model_copy(
                update={
                    "content": text,
                    "content_sha256": sha256(text),
                    "metadata": {**memory.metadata, "summarizes": left},
                    "updated_at": max(now, memory.updated_at),
                    "version": memory.version + 1,
                }
            )
            erased_versions = tx.drop_versions(memory.id, containing=gone_lines)
            tx.update_memory(new, vector, Provenance(actor, "rewrite", item.reason))
            if erasing is not None:
                erasing.rewrote(memory, new, erased_versions, item.reason)
            tx.append_event(
                op="rewrite",
                actor=actor,
                at=now,
                memory_id=memory.id,
                namespace=memory.namespace,
                details={
                    **details,
                    "derived_from": list(item.derived_from),
                    "versions_erased": erased_versions,
                    "old_sha256": memory.content_sha256,
                },
                content_sha256=new.content_sha256,
            )
            touched += [memory, new]
        return touched
