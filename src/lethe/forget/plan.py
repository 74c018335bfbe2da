"""Forget plans: the exact targets of a deletion, decided before anything is removed.

Planning is pure: it takes candidates the engine found (with their similarity to the query,
when there was one) and decides, item by item, what an execution would do, following seed
002's tiers and a precision guard. Similarity alone never widens a deletion: a query-only
plan deletes at most its clear winner and that winner's near-copies; the user's own scope
(explicit ids, filters, bulk criteria) is what widens one. Protection refuses on every path.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from lethe.common.filters import Filters
from lethe.forget.guard import protection
from lethe.model import Memory
from lethe.planner.compound import word_diff
from lethe.planner.judgement import MARK_BAR, Judgement

Tier = Literal["explicit", "criteria", "filter", "query"]
Action = Literal["delete", "edit", "skip", "refuse"]
Operation = Literal["forget", "purge"]

PREVIEW_THRESHOLD = 0.4
"""Query candidates below this similarity are not even previewed."""
HIGH_CONFIDENCE = 0.6
"""Seed 002's bar for query-only execution; also where "high" confidence starts."""
FILTER_WARNING = 0.5
"""With a filter, matches below this are deleted but flagged (seed 002)."""
NEAR_COPY = 0.95
"""Cosine between two memories above which they are the same fact stored twice."""
MANY_MATCHES = 10


def new_plan_id() -> str:
    return "plan_" + secrets.token_hex(6)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class VersionCut(_Frozen):
    """An earlier version of a memory being edited that holds the fact to forget too, and its
    text without it: a forgotten fact must not stay readable in the memory's past (history,
    reads as of a moment). The version keeps its number, times and author."""

    version: int
    content_sha256: str
    """The hash of its text as previewed: the cut is made only while it is still that text."""
    new_content: str
    diff: str
    """The words cut, marked [-…-]."""


class PlanItem(_Frozen):
    id: str
    namespace: str
    preview: str
    content_sha256: str
    similarity: float | None = None
    confidence: Literal["high", "low"]
    tier: Tier
    action: Action
    reason: str
    protection: str | None = None
    hint: str | None = None
    warning: str | None = None
    private: bool = False
    certainty: float | None = None
    """For a request in words: how sure the planner is that this is a memory the request
    means (calibrated: among marks at >= 0.9, at least 9 in 10 are right on the development
    benchmark). None for ids, filters and criteria, which the user chose."""
    evidence: tuple[str, ...] = ()
    """Why the planner thinks so: what the memory holds of the request, and its lead."""
    was_protected: str | None = None
    """Set when the target lost its protection within the confirmation window (an update
    lowered a pin or moved it out of a protected layer moments ago)."""
    new_content: str | None = None
    """For action `edit`: the memory's text without the fact to forget (it holds another
    fact too). Executing the plan makes it the memory's new version; the version it replaces
    keeps its place in the history with this same text, since the fact is forgotten in the
    past too (revert cannot bring the fact back)."""
    diff: str | None = None
    """For action `edit`: the words cut, marked [-…-] in the memory's text."""
    past: tuple[VersionCut, ...] = ()
    """For action `edit`: the memory's earlier versions that hold the fact too; executing the
    plan cuts it from each of them in the same transaction."""


class DerivedItem(_Frozen):
    """A memory made from a purge's targets (a decay summary), and what the purge does to it:
    rewritten from the sources that remain, or purged too when none does."""

    id: str
    namespace: str
    preview: str
    action: Literal["rewrite", "purge", "keep"]
    """`keep`: made from a target but no longer holding its lines: listed for review."""
    derived_from: tuple[str, ...]
    """The targets (or other derived memories) it was made from."""
    sources_left: tuple[str, ...]
    reason: str
    new_content: str | None = None
    """What a rewrite leaves (the summary without the erased memories' lines)."""


class PlanSource(_Frozen):
    """What the plan was asked for, so a stale plan can be made again from the same request."""

    memory_ids: tuple[str, ...] = ()
    query: str | None = None
    filters: Filters | None = None
    whole_namespace: bool = False
    forgotten_before: datetime | None = None
    namespace: str | None = None
    """For a purge of old trash: only this namespace (None: every namespace)."""
    narrow_only: bool = False
    """The filters were not the user's own (e.g. an LLM chose them in forget mode): they
    narrow the candidates but never widen a query deletion beyond its clear best match."""
    expected_sha256: str | None = None
    """The precondition (with one id): the content hash the caller last saw. Checked when the
    plan is made (`ContentChanged`) and again inside the transaction that carries it out."""


class ForgetPlan(_Frozen):
    """What an execution would do. Executing needs this object back (or a confirmed call)."""

    id: str
    operation: Operation
    namespace: str
    created_at: datetime
    actor: str
    reason: str | None = None
    source: PlanSource
    ambiguous: bool = False
    items: tuple[PlanItem, ...]
    not_found: tuple[str, ...] = ()
    suggestions: dict[str, tuple[str, ...]] = {}
    """For each id not found, the live ids of the namespace that look most like it."""
    warnings: tuple[str, ...] = ()
    notes: str
    derived: tuple[DerivedItem, ...] = ()
    """A purge's derived copies (summaries made from its targets) and what happens to each,
    and the summaries an edit cuts its fact from (`rewrite`); they change in the same
    transaction as the targets."""

    @property
    def targets(self) -> tuple[PlanItem, ...]:
        return tuple(i for i in self.items if i.action == "delete")

    @property
    def edits(self) -> tuple[PlanItem, ...]:
        """Memories that hold the fact to forget beside another: rewritten, not deleted."""
        return tuple(i for i in self.items if i.action == "edit")

    @property
    def refused(self) -> tuple[PlanItem, ...]:
        return tuple(i for i in self.items if i.action == "refuse")

    @property
    def skipped(self) -> tuple[PlanItem, ...]:
        return tuple(i for i in self.items if i.action == "skip")


def _item(
    memory: Memory,
    *,
    tier: Tier,
    action: Action,
    reason: str,
    similarity: float | None = None,
    hint: str | None = None,
    warning: str | None = None,
) -> PlanItem:
    guard = protection(memory)
    confident = similarity is None or similarity >= HIGH_CONFIDENCE
    return PlanItem(
        id=memory.id,
        namespace=memory.namespace,
        preview=memory.preview(),
        content_sha256=memory.content_sha256,
        similarity=None if similarity is None else round(similarity, 4),
        confidence="high" if confident else "low",
        tier=tier,
        action="refuse" if guard else action,
        reason=reason,
        protection=guard.reason if guard else None,
        hint=guard.hint if guard else hint,
        warning=warning,
        private=memory.private,
    )


def described_item(judgement: Judgement) -> PlanItem:
    """A planner judgement (lethe/planner/) as a plan item."""
    memory = judgement.memory
    guard = protection(memory)
    delete = judgement.verdict == "delete"
    edit = judgement.edit if judgement.verdict == "edit" else None
    action: Action = "delete" if delete else ("edit" if edit else "skip")
    return PlanItem(
        id=memory.id,
        namespace=memory.namespace,
        preview=memory.preview(),
        content_sha256=memory.content_sha256,
        similarity=round(judgement.similarity, 4),
        confidence="high" if judgement.certainty >= MARK_BAR else "low",
        certainty=round(judgement.certainty, 3),
        evidence=tuple(judgement.evidence),
        tier="query",
        action="refuse" if guard else action,
        reason=judgement.reason,
        protection=guard.reason if guard else None,
        hint=guard.hint if guard else (None if action != "skip" else by_id_hint(memory.id)),
        private=memory.private,
        new_content=edit.new_content if edit else None,
        diff=word_diff(memory.content, edit.new_content) if edit else None,
    )


def earlier_version_item(memory: Memory, past: tuple[VersionCut, ...], named: str) -> PlanItem:
    """A memory whose current text does not hold the identifiers the request names, but whose
    earlier versions do: an update left them in its history. Marked as an edit of its past
    only (`past`, `new_content` its text as it is): the identifiers are exact, as when a
    current text holds them, and the memory itself stays."""
    versions = ", ".join(str(c.version) for c in past)
    item = _item(
        memory,
        tier="query",
        action="edit",
        reason=f"its earlier version(s) {versions} hold {named} (the current text does not): "
        "cut from them, the memory kept as it is",
    )
    return item.model_copy(update={"new_content": memory.content, "past": past})


def by_id_hint(memory_id: str, operation: Operation = "forget") -> str:
    return f"to {operation} it anyway, name it explicitly: {operation}(memory_id={memory_id!r})"


def explicit_items(memories: Sequence[Memory], operation: Operation) -> list[PlanItem]:
    """Ids the caller named: similarity plays no part, protection still does."""
    verb = "forget" if operation == "forget" else "erase"
    return [
        _item(m, tier="explicit", action="delete", reason=f"you asked to {verb} {m.id} by id")
        for m in memories
    ]


def criteria_items(memories: Sequence[Memory], description: str) -> list[PlanItem]:
    """Bulk criteria without a query: every match is in the user's own scope."""
    return [
        _item(m, tier="criteria", action="delete", reason=f"matches {description}")
        for m in memories
    ]


def query_items(
    candidates: Sequence[tuple[Memory, float]],
    *,
    scoped: bool,
    near_copies: set[str],
    margin: float,
    held: set[str] | None = None,
    identifiers: str = "",
) -> tuple[list[PlanItem], bool]:
    """Decide a query plan. Returns the items and whether the query was ambiguous.

    `candidates` are ordered best first and already at or above the preview threshold;
    `near_copies` holds the ids whose cosine to the top eligible candidate is >= NEAR_COPY.
    When the request names identifiers (`identifiers`, as shown to a person), `held` is the
    candidates that hold every one of them: only those can be marked, and only they compete
    for the best match (a memory with another number is never a target, however close).
    """
    if not candidates:
        return [], False
    if held is not None:
        missing = [(m, s) for m, s in candidates if m.id not in held]
        candidates = [(m, s) for m, s in candidates if m.id in held]
        skipped = [
            _item(
                memory,
                tier="query",
                action="skip",
                similarity=similarity,
                reason=f"does not hold {identifiers} (named in the request): never a target",
                hint=by_id_hint(memory.id),
            )
            for memory, similarity in missing
        ]
        if not candidates:
            return skipped, False
        items, ambiguous = query_items(
            candidates, scoped=scoped, near_copies=near_copies, margin=margin
        )
        return items + skipped, ambiguous
    if scoped:
        items = []
        for memory, similarity in candidates:
            warning = (
                f"low similarity ({similarity:.2f}): deleted only because it is inside your filter"
                if similarity < FILTER_WARNING
                else None
            )
            items.append(
                _item(
                    memory,
                    tier="filter",
                    action="delete",
                    similarity=similarity,
                    reason=f"inside your filter and similar to the query ({similarity:.2f})",
                    warning=warning,
                )
            )
        return items, False
    top_memory, top = candidates[0]
    runner_up = next((s for m, s in candidates[1:] if m.id not in near_copies), None)
    clear = top >= HIGH_CONFIDENCE and (runner_up is None or top - runner_up >= margin)
    items = []
    for memory, similarity in candidates:
        chosen = clear and (memory.id == top_memory.id or memory.id in near_copies)
        if chosen:
            why = (
                f"best match for the query ({similarity:.2f})"
                if memory.id == top_memory.id
                else f"near-copy of the best match ({similarity:.2f} to the query)"
            )
            items.append(
                _item(memory, tier="query", action="delete", similarity=similarity, reason=why)
            )
            continue
        if similarity < HIGH_CONFIDENCE:
            why = (
                f"similarity {similarity:.2f} is below {HIGH_CONFIDENCE} for a query-only deletion"
            )
        elif not clear:
            why = f"ambiguous: {similarity:.2f} is too close to other candidates; choose by id"
        else:
            why = f"not the clear best match ({similarity:.2f}); only the best match is deleted"
        warning = "low confidence match, for review only" if similarity < HIGH_CONFIDENCE else None
        items.append(
            _item(
                memory,
                tier="query",
                action="skip",
                similarity=similarity,
                reason=why,
                hint=by_id_hint(memory.id),
                warning=warning,
            )
        )
    return items, not clear


def notes_for(plan_items: Sequence[PlanItem], *, ambiguous: bool, operation: Operation) -> str:
    targets = [i for i in plan_items if i.action == "delete"]
    edits = [i for i in plan_items if i.action == "edit"]
    refused = [i for i in plan_items if i.action == "refuse"]
    skipped = [i for i in plan_items if i.action == "skip"]
    if not plan_items:
        return f"No memories found matching the {operation} criteria."
    parts = []
    if ambiguous:
        parts.append(
            "Ambiguous: no candidate is a clear match, so nothing would be deleted; choose by id."
        )
    if targets:
        noun = "memory" if len(targets) == 1 else "memories"
        verb = "forget (move to trash)" if operation == "forget" else "erase for good"
        parts.append(f"Would {verb} {len(targets)} {noun}.")
    past_only = [i for i in edits if i.diff is None and i.past]
    edits = [i for i in edits if i not in past_only]
    if past_only:
        noun = "memory" if len(past_only) == 1 else "memories"
        parts.append(
            f"Would cut it from the earlier versions of {len(past_only)} {noun} (their current "
            "text does not hold it), for good; the memories stay as they are."
        )
    if edits:
        noun = "memory" if len(edits) == 1 else "memories"
        parts.append(
            f"Would edit {len(edits)} {noun} that also hold another fact: the fact to forget is "
            "cut out (see each diff), the rest kept, and cut from its earlier versions too, for "
            "good (revert cannot bring it back)."
        )
    if skipped and not ambiguous:
        parts.append(f"{len(skipped)} candidate(s) kept; name an id to delete one.")
    if refused:
        parts.append(f"{len(refused)} protected memory(ies) refused.")
    return " ".join(parts)


def seed_json(plan: ForgetPlan) -> dict[str, Any]:
    """The plan in seed 002's response schema (dry run), with lethe's extra fields."""
    entries = []
    for item in plan.items:
        entry: dict[str, Any] = {
            "id": item.id,
            "reason": item.reason,
            "confidence": item.confidence,
            "action": item.action,
            "preview": item.preview,
        }
        if item.similarity is not None:
            entry["score"] = item.similarity
        if item.warning:
            entry["warning"] = item.warning
        if item.protection:
            entry["protected"] = item.protection
        if item.hint:
            entry["hint"] = item.hint
        if item.certainty is not None:
            entry["certainty"] = item.certainty
        if item.evidence:
            entry["evidence"] = list(item.evidence)
        if item.was_protected:
            entry["wasProtected"] = item.was_protected
        if item.new_content is not None:
            entry["newContent"] = item.new_content
        if item.diff is not None:
            entry["diff"] = item.diff
        if item.past:
            entry["pastVersions"] = [{"version": c.version, "diff": c.diff} for c in item.past]
        entries.append(entry)
    return {
        "status": "ok",
        "index": plan.namespace,
        "planId": plan.id,
        "operation": plan.operation,
        "dryRun": True,
        "ambiguous": plan.ambiguous,
        "plan": entries,
        "lowConfidenceMatches": [i.id for i in plan.items if i.confidence == "low"],
        "notFound": list(plan.not_found),
        "suggestions": {k: list(v) for k, v in plan.suggestions.items()},
        "warnings": list(plan.warnings),
        "notes": plan.notes,
        **(
            {"derived": [d.model_dump(mode="json", exclude={"new_content"}) for d in plan.derived]}
            if plan.derived
            else {}
        ),
    }
