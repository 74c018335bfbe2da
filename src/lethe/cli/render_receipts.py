"""How the CLI shows erasure receipts (see `engine/proof.py`): a line after a purge, a table
of past receipts, and the verdict of `lethe receipt verify`. The receipt itself is the
engine's signed JSON; nothing here changes it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from lethe.cli.render import _id_column, _table, plural


def ids_of(receipt: dict[str, Any]) -> list[str]:
    """The ids a receipt lists (as written; a tampered file may hold anything)."""
    memories = receipt.get("memories")
    if not isinstance(memories, list):
        return []
    return [str(m.get("id")) for m in memories if isinstance(m, dict)]


def proven(receipt: dict[str, Any]) -> bool:
    return receipt.get("status") == "erased"


def receipt_line(receipt: dict[str, Any], written_to: str | None = None) -> Text:
    """After a purge: the receipt's id and status, and where it can be had."""
    rid = str(receipt.get("receipt_id"))
    status = str(receipt.get("status"))
    line = Text("receipt ")
    line.append(rid, style="cyan")
    line.append(": ")
    line.append(status, style="green" if proven(receipt) else "bold red")
    line.append(
        f" (signed; written to {written_to})"
        if written_to
        else f" (signed; lethe receipt show {rid} --out FILE)"
    )
    return line


def summary(receipt: dict[str, Any]) -> dict[str, Any]:
    """One receipt as `lethe receipt list --json` lists it."""
    ids = ids_of(receipt)
    return {
        "receipt_id": receipt.get("receipt_id"),
        "erased_at": receipt.get("erased_at"),
        "status": receipt.get("status"),
        "operation": receipt.get("operation"),
        "plan_id": receipt.get("plan_id"),
        "count": len(ids),
        "ids": ids,
    }


def receipts_table(receipts: Sequence[dict[str, Any]]) -> Table:
    table = _table()
    _id_column(table, "receipt")
    table.add_column("erased at", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("ids", justify="right", no_wrap=True)
    table.add_column("memories", ratio=1)
    for receipt in receipts:
        ids = ids_of(receipt)
        status = str(receipt.get("status"))
        table.add_row(
            str(receipt.get("receipt_id") or "—"),  # none for a purge still owed its receipt
            str(receipt.get("erased_at")),
            Text(status, style="green" if status == "erased" else "bold red"),
            str(len(ids)),
            Text(", ".join(ids), no_wrap=True, overflow="ellipsis"),
        )
    return table


def verdict_json(receipt: dict[str, Any], problems: Sequence[str]) -> dict[str, Any]:
    return {
        "holds": not problems,
        "problems": list(problems),
        "receipt_id": receipt.get("receipt_id"),
        "status": receipt.get("status"),
        "erased_at": receipt.get("erased_at"),
        "ids": ids_of(receipt),
    }


def verdict_view(receipt: dict[str, Any], problems: Sequence[str]) -> RenderableType:
    rid = str(receipt.get("receipt_id"))
    ids = ids_of(receipt)
    if problems:
        head = Text("does not hold: ", style="bold red")
        head.append(f"receipt {rid}", style="cyan")
        head.append(f" ({plural(len(problems), 'problem')})")
        return Group(head, *(Text(f"- {p}") for p in problems))
    head = Text("holds: ", style="bold green")
    head.append(f"receipt {rid}", style="cyan")
    head.append(
        f", signed by this store's key; {plural(len(ids))} purged at "
        f"{receipt.get('erased_at')}, none of them left, each purge in the audit log"
    )
    parts: list[RenderableType] = [head, Text("ids: " + ", ".join(ids))]
    if receipt.get("interrupted"):
        parts.append(
            Text(
                f"status: {receipt.get('status')}: the purge was interrupted after its commit, "
                "before its own check; the next open signed this receipt, and nothing was "
                "scanned or probed (see interrupted in the receipt)",
                style="yellow",
            )
        )
    elif not proven(receipt):
        parts.append(
            Text(
                f"status: {receipt.get('status')}: the purge's own check found traces left "
                "(see scan.remaining and probes in the receipt)",
                style="yellow",
            )
        )
    return Group(*parts)
