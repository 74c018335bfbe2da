"""The words lethe says back about forgetting: notes on results and confirmation prompts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
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
    *,
    proven: bool = True,
) -> str:
    """`proven`: a purge whose receipt found none of the erased words left. Without it the
    rows are deleted, but "erased" is not said (see `proof_note`)."""
    verb = "Forgot (moved to trash)" if operation == "forget" else "Erased"
    if operation == "purge" and not proven:
        verb = "Deleted the rows of"
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
        f"Edited {len(edited)} {noun} that also held another fact: the fact is cut out, and "
        "cut from its earlier versions too, for good (revert cannot bring it back)."
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
    *,
    proven: bool = True,
) -> str:
    """`proven` as for `result_notes`: an unproven purge deleted rows, it did not erase."""
    lines: list[str] = []
    verb = "Forgot" if operation == "forget" else "Erased"
    if operation == "purge" and not proven:
        verb = "Deleted the rows of (erasure NOT proven, see the receipt)"
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


def proof_note(receipt: dict[str, Any]) -> str:
    """What the byte scan and the probes found, in words (the receipt has the details)."""
    scan, probes = receipt["scan"], receipt["probes"]
    files = len(scan["files"])
    others = len(scan["not_targeted"])
    also = (
        f" {others} token(s) are also held by what the purge did not target: "
        + "; ".join(
            f"also in {', '.join(n['held_by'][:3])} — not targeted"
            for n in scan["not_targeted"][:3]
        )
        + "."
        if others
        else ""
    )
    if receipt["status"] == "erased":
        retried = " (after the cleanup was run a second time)" if scan["retried"] else ""
        return (
            f"Checked{retried}: none of the erased words is left in the {files} file(s) lethe "
            f"owns, and {probes['queries']} recall probe(s) returned no erased memory.{also} "
            f"Receipt {receipt['receipt_id']} (signed)."
        )
    if scan.get("ran") is False:  # signed from the purge's promise: nothing was checked
        return (
            "The erasure is NOT proven: the byte scan and the recall probes did not run (the "
            "receipt was signed from what the purge's transaction recorded, by the process that "
            f"finished its cleanup). Receipt {receipt['receipt_id']} (signed, incomplete)."
        )
    where = sorted({Path(r["path"]).name for r in scan["remaining"]})
    kinds = sorted({r["kind"] for r in scan["remaining"]})
    parts = [
        "The erasure is NOT proven:",
        f"{len(scan['remaining'])} trace(s) ({', '.join(kinds) or 'none'}) remain in "
        f"{', '.join(where) or 'no file'} after the cleanup was retried once."
        if scan["remaining"]
        else "",
        f"recall still returns {', '.join(probes['erased_returned'])} from an index."
        if probes["erased_returned"]
        else "",
        "the store's cleanup could not finish (another process held the database)."
        if not receipt.get("cleanup_done", True)
        else "",
        _mend(receipt),
    ]
    return " ".join(p for p in parts if p) + also


def proven(receipt: dict[str, Any] | None) -> bool:
    """Whether a result may say "erased": no receipt (not a purge) or a clean one."""
    return receipt is None or receipt.get("status") == "erased"


def _mend(receipt: dict[str, Any]) -> str:
    """What to run for the traces a receipt found: workspace files are re-derived by
    `lethe workspace rebuild`, the database's cleanup is finished by `lethe maintain`."""
    remaining = receipt["scan"]["remaining"]
    in_files = [r for r in remaining if ".md" in Path(r["path"]).name]
    steps = []
    if in_files:
        steps.append("`lethe workspace rebuild` re-derives the workspace files")
    if (
        len(in_files) < len(remaining)
        or receipt["probes"]["erased_returned"]
        or not receipt.get("cleanup_done", True)
    ):
        steps.append("`lethe maintain` finishes the store's cleanup")
    return (
        f"{'; '.join(steps).capitalize()}; receipt {receipt['receipt_id']} records what remains "
        "where."
    )
