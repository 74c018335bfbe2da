"""A forgotten fact is forgotten in the past too.

Forgetting one fact of a memory that holds another (an `edit`, see `planner/compound.py`) writes
the memory without it as a new version. The fact must not stay readable in what came before:
`history`, `get` and `recall` as of a past moment (to any token that may read), a summary made
from the memory, the indexes. So the plan previews, and its execution cuts in the same
transaction:

- the version the edit replaces: it keeps its place in the history with the edit's text;
- every earlier version that says the fact (`planner/compound.without_fact`, cut the way the
  edit was cut, or the whole text when nothing else is in it or the cut is not clean);
- the line of each text cut in the summaries made from the memory (and from those), live or in
  the trash, in their current text and their versions (`rewrite` events).

A request that names an identifier only an earlier version holds (an update left it in the
history) finds it there: the plan marks an edit of that memory's past only, its text kept as
it is (`identifier_cut`, checked at execution against each version's hash).

A version cut keeps its number, times and author; its text, hash and vector change, so no read
and no ranking as of a past moment sees the old words, and the in-process index of earlier
states follows the changed vector through the change log like any other change. The edit's
event names the versions cut (`versions_cut`), never their words. As after a purge, the
store's cleanup (full-text merge, WAL truncation, secure delete) runs after the commit, so the
old words survive nowhere in the file; revert cannot bring them back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from lethe.embed import Embedder
from lethe.engine.base import sha256
from lethe.engine.duplicates import normalise
from lethe.engine.versions import Versions
from lethe.forget.decay import summary_line
from lethe.forget.plan import DerivedItem, PlanItem, VersionCut
from lethe.model import Memory, MemoryVersion
from lethe.planner import compound, evidence
from lethe.planner.compound import word_diff
from lethe.planner.identifiers import Identifier
from lethe.store.base import Store, StoreTx
from lethe.store.rows import Provenance
from lethe.store.vectors import Vector


def version_cuts(earlier: Sequence[MemoryVersion], old: str, new: str) -> tuple[VersionCut, ...]:
    """The earlier versions of a memory edited from `old` to `new` that say the fact the edit
    cuts, each with its text without it (a version that was `old` itself becomes `new`). Only
    a clean cut is made (`clean_cut`): a cut is for good, so one that would take anything the
    edit did not is left undone, and the plan says so (`uncut_versions`)."""
    fact = compound.fact_words(old, new)
    cuts = []
    for version in earlier:
        text = new if version.content == old else compound.without_fact(version.content, fact)
        if (
            text is not None
            and version.content != old
            and not clean_cut(version.content, text, old, new)
        ):
            continue
        if text is not None and text != version.content:
            cuts.append(
                VersionCut(
                    version=version.version,
                    content_sha256=version.content_sha256,
                    new_content=text,
                    diff=word_diff(version.content, text),
                )
            )
    return tuple(cuts)


def clean_cut(before: str, after: str, old: str, new: str) -> bool:
    """Whether cutting an earlier version from `before` to `after` takes only what the edit of
    `old` to `new` took: every word it removes is one the edited text said, one of them a word
    the edit removed, and none of those is left. "The user runs every morning" shares
    "morning" with "takes sertraline every morning", but "runs" was never the edit's: not cut.
    A word the edit removed that stays ("refills the sertraline") is no clean cut either."""
    removed = evidence.words(old) - evidence.words(new)
    left = frozenset() if after == compound.FORGOTTEN else evidence.words(after)
    gone = evidence.words(before) - left
    return gone <= evidence.words(old) and bool(gone & removed) and not left & removed


def uncut_versions(
    earlier: Sequence[MemoryVersion], old: str, new: str, cuts: Sequence[VersionCut]
) -> list[int]:
    """The earlier versions that say a word the edit removed but are not cut cleanly: they
    stay in the history as they are, and the plan names them."""
    removed = evidence.words(old) - evidence.words(new)
    done = {c.version for c in cuts}
    return [
        v.version
        for v in earlier
        if v.version not in done and v.content != new and evidence.words(v.content) & removed
    ]


def only_cut(before: str, after: str) -> bool:
    """Whether `after` could be a cut of `before`: it says no word `before` did not (every
    word counts here, "nothing" too). A plan is data its holder could alter, and a cut is for
    good: a text that invents is refused."""
    return after == compound.FORGOTTEN or _tokens(after) <= _tokens(before)


def _tokens(text: str) -> set[str]:
    return set(re.findall(r"\w+", normalise(text).casefold()))


def _line_cuts(cut: dict[str, str]) -> dict[str, str | None]:
    """The summary line of each text being cut, and what that line becomes (None: it goes)."""
    lines: dict[str, str | None] = {}
    for old, new in cut.items():
        line = summary_line(old)
        after = None if new == compound.FORGOTTEN else summary_line(new) or None
        if line and line != after:
            lines[line] = after
    return lines


def relined(text: str, lines: dict[str, str | None]) -> str:
    """A summary's text with each line that holds a text being cut made from that text's cut
    (a summary of summaries holds the line inside its own). Other lines stay as written."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith("- "):
            gone = False
            for old, new in lines.items():
                if old in line:
                    if new is None:
                        gone = True
                        break
                    line = line.replace(old, new)
            if gone:
                continue
        out.append(line)
    return "\n".join(out)


@dataclass
class CopyCut:
    """A summary made from an edited memory that holds a line of a text being cut."""

    summary: Memory
    text: str
    """Its current text without the fact (the same text when only its versions hold it)."""
    past: list[tuple[MemoryVersion, str]] = field(default_factory=list)


def copy_cuts(store: Store, source: Memory, cut: dict[str, str], skip: set[str]) -> list[CopyCut]:
    """The summaries made from `source` (and from those, live or in the trash) whose text or
    earlier versions hold a line of a text being cut (`cut`: old text -> its cut). `skip`: ids
    a plan acts on by their own items."""
    lines = _line_cuts(cut)
    if not lines:
        return []
    found: list[CopyCut] = []
    seen = {source.id}
    frontier = [source]
    while frontier:
        reached: list[Memory] = []
        for memory in frontier:
            for summary in store.derived_from([memory.id], memory.namespace):
                if summary.id in seen:
                    continue
                seen.add(summary.id)
                reached.append(summary)
                if summary.id in skip:
                    continue
                text = relined(summary.content, lines)
                past = [(v, relined(v.content, lines)) for v in store.versions(summary.id)[1:]]
                changed = [(v, t) for v, t in past if t != v.content]
                if text != summary.content or changed:
                    found.append(CopyCut(summary, text, changed))
        frontier = reached
    return found


class Redaction:
    """The past of a memory an edit-forget changes: planned with the edit, cut in its
    transaction."""

    def __init__(self, store: Store, embedder: Embedder, versions: Versions) -> None:
        self.store = store
        self.embedder = embedder
        self._versions = versions

    def with_past(
        self, items: Sequence[PlanItem], skip: set[str]
    ) -> tuple[list[PlanItem], list[DerivedItem]]:
        """At planning: each edit with the earlier versions it cuts the fact from too, and the
        summaries whose lines it cuts (listed as the plan's derived copies)."""
        out: list[PlanItem] = []
        copies: list[DerivedItem] = []
        for item in items:
            memory = self.store.get(item.id) if item.action == "edit" else None
            edit = item.new_content
            if memory is None or edit is None:
                out.append(item)
                continue
            past = item.past if edit == memory.content else ()
            notes = []
            if not past:
                earlier = self.store.versions(memory.id)[1:]
                past = version_cuts(earlier, memory.content, edit)
                uncut = uncut_versions(earlier, memory.content, edit, past)
                if uncut:
                    notes.append(
                        f"its earlier version(s) {', '.join(map(str, uncut))} also mention it "
                        "but cannot be cut without other facts: they stay in the history as "
                        "they are (purging the memory erases them)"
                    )
            if past and not item.past:
                shown = ", ".join(str(c.version) for c in past)
                notes.insert(
                    0,
                    f"its earlier version(s) {shown} hold the fact too: executing cuts it from "
                    "them as well, for good",
                )
            if notes:
                note = "; ".join(notes)
                warning = f"{item.warning}; {note}" if item.warning else note
                item = item.model_copy(update={"past": past, "warning": warning})
            out.append(item)
            cut = {memory.content: edit, **_past_texts(self.store, memory, past)}
            for found in copy_cuts(self.store, memory, cut, skip):
                copies.append(_derived_item(found, memory))
        return out, copies

    def cut_past(
        self,
        tx: StoreTx,
        memory: Memory,
        new: Memory | None,
        item: PlanItem,
        vectors: dict[str, Vector],
        *,
        skip: set[str],
        actor: str,
        now: datetime,
        plan_id: str,
    ) -> list[Memory]:
        """Inside an edit's transaction, after its new version is written (`new`; None when
        only the memory's past holds the fact): cut the fact from the version it replaced,
        from the earlier versions the plan previewed (checked by the caller), and from the
        summaries made from the memory. Returns the summaries' old and new states, for the
        workspace."""
        cut: dict[str, str] = {}
        if new is not None:
            tx.redact_version(
                memory.id, memory.version, new.content, new.content_sha256, vectors[new.content]
            )
            cut[memory.content] = new.content
        earlier = {v.version: v for v in tx.store.versions(memory.id)[1:]}
        for c in item.past:
            cut[earlier[c.version].content] = c.new_content
            tx.redact_version(
                memory.id, c.version, c.new_content, sha256(c.new_content), vectors[c.new_content]
            )
        touched: list[Memory] = []
        for found in copy_cuts(tx.store, memory, cut, skip):
            touched += self._cut_copy(tx, found, memory, actor=actor, now=now, plan_id=plan_id)
        return touched

    def _cut_copy(
        self,
        tx: StoreTx,
        found: CopyCut,
        source: Memory,
        *,
        actor: str,
        now: datetime,
        plan_id: str,
    ) -> list[Memory]:
        summary = found.summary
        reason = f"made from {source.id}, whose fact was forgotten: cut from its lines"
        details = {
            "plan": plan_id,
            "derived_from": [source.id],
            "versions_cut": [v.version for v, _ in found.past],
        }
        touched = [summary]
        if found.text != summary.content:
            details["versions_cut"] = [summary.version, *details["versions_cut"]]
            [vector] = self.embedder.embed([found.text])
            new = self._versions.write_version(
                tx,
                summary,
                {"content": found.text},
                vector,
                Provenance(actor, "rewrite", reason),
                now,
                details,
            )
            tx.redact_version(summary.id, summary.version, new.content, new.content_sha256, vector)
            touched.append(new)
        else:
            tx.append_event(
                op="rewrite",
                actor=actor,
                at=now,
                memory_id=summary.id,
                namespace=summary.namespace,
                reason=reason,
                details=details,
                content_sha256=summary.content_sha256,
            )
        texts = [t for _, t in found.past]
        for (version, text), vector in zip(
            found.past, self.embedder.embed(texts) if texts else [], strict=True
        ):
            tx.redact_version(summary.id, version.version, text, sha256(text), vector)
        return touched

    def cut_vectors(self, items: Sequence[PlanItem]) -> dict[str, Vector]:
        """The vector of every text an edit writes (its new text, the earlier versions' cuts),
        embedded before the transaction opens."""
        texts = list(
            dict.fromkeys(
                t
                for i in items
                if i.new_content is not None
                for t in (i.new_content, *(c.new_content for c in i.past))
            )
        )
        if not texts:
            return {}
        return dict(zip(texts, self.embedder.embed(texts), strict=True))


def identifier_cut(version: MemoryVersion, wanted: list[Identifier]) -> VersionCut | None:
    """An earlier version without the parts that hold the identifiers a request names."""
    fact = frozenset().union(*(evidence.words(" ".join(w)) for w in wanted))
    text = compound.without_fact(version.content, fact)
    if text is None or text == version.content:
        return None
    return VersionCut(
        version=version.version,
        content_sha256=version.content_sha256,
        new_content=text,
        diff=word_diff(version.content, text),
    )


def past_as_planned(tx: StoreTx, memory: Memory, item: PlanItem) -> bool:
    """Whether the earlier versions an edit cuts are still those the plan previewed, each
    with the same text and the same cut (a plan is data its holder could alter). An edit of
    the past only (the current text does not hold the fact: `new_content` is that text) cuts
    what the plan previewed while each version is still the text previewed."""
    assert item.new_content is not None
    earlier = tx.store.versions(memory.id)[1:]
    if item.new_content == memory.content:
        held = {v.version: v for v in earlier}
        return bool(item.past) and all(
            (v := held.get(c.version)) is not None
            and v.content_sha256 == c.content_sha256
            and only_cut(v.content, c.new_content)
            for c in item.past
        )
    if not only_cut(memory.content, item.new_content):
        return False
    return version_cuts(earlier, memory.content, item.new_content) == item.past


def _past_texts(store: Store, memory: Memory, past: Sequence[VersionCut]) -> dict[str, str]:
    by_version = {v.version: v for v in store.versions(memory.id)[1:]}
    return {by_version[c.version].content: c.new_content for c in past if c.version in by_version}


def _derived_item(found: CopyCut, source: Memory) -> DerivedItem:
    summary = found.summary
    raw = summary.metadata.get("summarizes")
    sources = tuple(i for i in raw if isinstance(i, str)) if isinstance(raw, list) else ()
    where = []
    if found.text != summary.content:
        where.append("its text")
    if found.past:
        where.append(f"its version(s) {', '.join(str(v.version) for v, _ in found.past)}")
    return DerivedItem(
        id=summary.id,
        namespace=summary.namespace,
        preview=summary.preview(),
        action="rewrite",
        derived_from=(source.id,),
        sources_left=sources,
        reason=f"a summary holding the text of {source.id}: the fact is cut from "
        f"{' and '.join(where)}",
        new_content=found.text,
    )
