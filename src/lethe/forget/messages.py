"""The words lethe says back about forgetting: notes on results and confirmation prompts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lethe.forget.plan import DerivedItem, Operation, PlanItem
from lethe.forget.results import NotFoundItem


def result_notes(
    operation: Operation,
    executed: Sequence[str],
    stale: Sequence[str],
    gone: Sequence[str],
    skipped: Sequence[PlanItem],
    refused: Sequence[PlanItem],
) -> str:
    verb = "Forgot (moved to trash)" if operation == "forget" else "Erased"
    done = f"{verb} {len(executed)} memor{'y' if len(executed) == 1 else 'ies'}."
    parts = [
        done if executed else f"Nothing was {'forgotten' if operation == 'forget' else 'erased'}."
    ]
    if operation == "forget" and executed:
        parts.append("Restore is possible until the trash is purged.")
    if skipped:
        parts.append(
            f"Skipped {len(skipped)} low-confidence candidate(s); name their ids to delete them."
        )
    if refused:
        parts.append(f"Refused {len(refused)} protected memory(ies).")
    if stale:
        parts.append(f"{len(stale)} changed since the preview and were not touched.")
    if gone:
        parts.append(f"{len(gone)} no longer existed.")
    return " ".join(parts)


def edit_notes(edited: Sequence[str]) -> list[str]:
    noun = "memory" if len(edited) == 1 else "memories"
    return [
        f"Edited {len(edited)} {noun} that also held another fact: the fact is cut out, the "
        "old text is in its history (revert restores it; purge the memory to erase it)."
    ]


def confirmation_status(
    executed: Sequence[str],
    awaiting: Sequence[PlanItem],
    refused: Sequence[PlanItem],
    missing: Sequence[NotFoundItem],
) -> Any:
    if executed and (awaiting or refused or missing):
        return "partial"
    if executed:
        return "executed"
    if awaiting:
        return "pending"
    if refused:
        return "refused"
    return "not_found"


def confirmation_message(
    operation: Operation,
    executed: Sequence[str],
    awaiting: Sequence[PlanItem],
    changed: Sequence[str],
    refused: Sequence[PlanItem],
    missing: Sequence[NotFoundItem],
) -> str:
    lines: list[str] = []
    verb = "Forgot" if operation == "forget" else "Erased"
    lines.extend(f"{verb} {memory_id}." for memory_id in executed)
    for item in awaiting:
        note = " (it changed since the last preview)" if item.id in changed else ""
        if item.was_protected:
            note += f" Note: {item.was_protected}."
        lines.append(
            f"Please confirm: {operation} '{item.preview}' ({item.id})?{note} "
            f"Call {operation} again with the same id to confirm."
        )
    lines.extend(f"Refused {i.id}: {i.protection}. {i.hint}" for i in refused)
    lines.extend(m.message for m in missing)
    return "\n".join(lines)


def derived_notes(derived: Sequence[DerivedItem], *, done: bool = False) -> list[str]:
    """What a purge does (or, `done`, did) to what was made from its targets, one line each."""
    verbs = (
        {"rewrite": "Also rewrote", "purge": "Also purged", "keep": "Kept"}
        if done
        else {"rewrite": "Also rewrites", "purge": "Also purges", "keep": "Keeps"}
    )
    return [f"{verbs[d.action]} {d.id} ({d.reason})." for d in derived]


CONSOLIDATE_GUIDANCE = (
    "Review each pair with recall. If one is redundant, use forget to remove it. "
    "If both have value, consider which perspective to keep."
)
"""Seed 001's scaffold after a consolidation: from detection to the deletion tool."""
