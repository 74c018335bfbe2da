"""Rich renderings of the engine's records, shared by the commands and the demo.

User text always goes in as `Text`, never as markup, so a memory that happens to contain
`[bold]` prints as written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:  # annotations only: `lethe --help` need not load the planner
    from lethe.forget.plan import ForgetPlan, PlanItem
    from lethe.forget.results import DeletionReport, ForgetResult, MaintenanceReport, TrashItem
    from lethe.model import (
        Episode,
        EpisodeView,
        Event,
        ImportReport,
        Link,
        Memory,
        Page,
        RecallHit,
    )

_SHA256_RE = re.compile(r"[0-9a-f]{64}")


def when(moment: datetime | None) -> str:
    return "—" if moment is None else moment.strftime("%Y-%m-%d %H:%M")


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _table(title: str | None = None) -> Table:
    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)


def _id_column(table: Table, header: str = "id") -> None:
    table.add_column(header, style="cyan", no_wrap=True)


def _content_column(table: Table) -> None:
    # Wrappable for the width calculation, so it is the column that gives way on a narrow
    # terminal; the cell itself (see `_cell`) stays on one line with an ellipsis.
    table.add_column("content")


def _cell(text: str) -> Text:
    return Text(text, no_wrap=True, overflow="ellipsis")


def memories_table(memories: Sequence[Memory], *, title: str | None = None) -> Table:
    table = _table(title)
    _id_column(table)
    table.add_column("created", no_wrap=True)
    table.add_column("layer", no_wrap=True)
    table.add_column("imp.", justify="right", no_wrap=True)
    _content_column(table)
    for m in memories:
        table.add_row(m.id, when(m.created_at), m.layer, f"{m.importance:.2f}", _cell(m.preview()))
    return table


def hits_table(hits: Sequence[RecallHit], *, title: str | None = None) -> Table:
    table = _table(title)
    _id_column(table)
    table.add_column("similarity", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("layer", no_wrap=True)
    _content_column(table)
    for h in hits:
        table.add_row(
            h.memory.id,
            f"{h.similarity:.3f}",
            f"{h.score:.3f}",
            h.memory.layer,
            _cell(h.memory.preview()),
        )
    return table


def memory_detail(memory: Memory) -> Panel:
    """The whole memory; timestamps are UTC."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold")
    grid.add_column()
    rows: list[tuple[str, str]] = [
        ("namespace", memory.namespace),
        ("agent", memory.agent),
        ("layer", memory.layer),
        ("category", memory.category or "—"),
        ("tags", ", ".join(memory.tags) or "—"),
        ("importance", f"{memory.importance:.2f}"),
        ("private", "yes" if memory.private else "no"),
        ("metadata", compact(memory.metadata) if memory.metadata else "—"),
        ("version", str(memory.version)),
        ("created", when(memory.created_at)),
        ("updated", when(memory.updated_at)),
        ("recalled", f"{memory.access_count}× (last {when(memory.last_accessed_at)})"),
    ]
    if memory.expires_at is not None:
        rows.append(
            (
                "expires",
                f"{when(memory.expires_at)} (set by {memory.expiry_set_by or '—'}"
                f"{', held' if memory.expiry_held else ''})",
            )
        )
    for key, value in rows:
        grid.add_row(key, Text(value))
    body = Group(Text(memory.content), Text(""), grid)
    return Panel(body, title=Text(memory.id, style="cyan"), title_align="left")


def links_table(memory_id: str, links: Sequence[Link], previews: Mapping[str, str]) -> Table:
    table = _table(f"links ({len(links)})")
    _id_column(table, "linked to")
    table.add_column("kind", no_wrap=True)
    table.add_column("confidence", justify="right", no_wrap=True)
    _content_column(table)
    for link in links:
        other = link.other(memory_id)
        table.add_row(other, link.kind, f"{link.confidence:.2f}", _cell(previews.get(other, "")))
    return table


def link_line(link: Link) -> Text:
    return Text.assemble(
        "linked ",
        (link.a, "cyan"),
        " ↔ ",
        (link.b, "cyan"),
        f" as {link.kind!r} (confidence {link.confidence:.2f})",
    )


def episode_line(episode: Episode, members: int) -> Text:
    return Text.assemble("created episode ", (episode.id, "cyan"), f" with {members} member(s)")


def episode_detail(view: EpisodeView) -> RenderableType:
    ep = view.episode
    header = Text.assemble((ep.id, "cyan"), f"  {when(ep.start_at)} → {when(ep.end_at)}")
    facts = Text(f"importance {ep.importance:.2f} · namespace {ep.namespace}")
    parts: list[RenderableType] = [header, facts, Text(ep.summary, style="bold")]
    parts.append(memories_table(view.members, title=f"members ({len(view.members)} live)"))
    if view.note:
        parts.append(Text(view.note, style="yellow"))
    return Group(*parts)


def episode_json(view: EpisodeView) -> dict[str, Any]:
    return view.model_dump(mode="json")


def events_view(events: Sequence[Event]) -> RenderableType:
    """One header line per event with its details indented below, readable at any width."""
    width = len(str(events[-1].seq)) if events else 1
    parts: list[RenderableType] = []
    for e in events:
        parts.append(
            Text.assemble(
                (f"#{e.seq:<{width}}", "bold"),
                f"  {e.at.strftime('%Y-%m-%d %H:%M:%S')}  ",
                (f"{e.op:<8}", "bold"),
                "  ",
                ((e.memory_id or "—").ljust(16), "cyan"),
                f"  by {e.actor}",
                no_wrap=True,
                overflow="ellipsis",
            )
        )
        details = details_text(e.details)
        if e.reason:
            details = f"reason={e.reason} {details}".rstrip()
        if details:
            parts.append(Padding(Text(details, style="dim"), (0, 0, 0, width + 3), expand=False))
    return Group(*parts)


def details_text(details: Mapping[str, Any]) -> str:
    """`key=value` pairs with short hashes: wraps between pairs on a narrow terminal.

    The full event, hashes included, is what `lethe audit --json` prints.
    """
    return " ".join(
        f"{key}={_detail(value)}" for key, value in details.items() if value not in ("", [], {})
    )


def _detail(value: Any) -> str:
    if isinstance(value, str):
        return value[:12] + "…" if _SHA256_RE.fullmatch(value) else value
    if isinstance(value, list):
        return "[" + ", ".join(_detail(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_detail(v)}" for k, v in value.items()) + "}"
    return compact(value)


def page_caption(page: Page) -> str:
    if not page.items:
        return f"no memories (of {page.total})"
    return f"showing {page.offset + 1}–{page.offset + len(page.items)} of {page.total}"


def import_line(report: ImportReport) -> str:
    skipped = []
    if report.skipped_duplicates:
        skipped.append(f"{report.skipped_duplicates} exact duplicate(s)")
    if report.skipped_existing:
        skipped.append(f"{report.skipped_existing} already present")
    if report.skipped_events:
        skipped.append(f"{report.skipped_events} event(s) already held")
    if report.refused_versions:
        skipped.append(
            f"{len(report.refused_versions)} version(s) not earlier than their memory's "
            f"({'; '.join(report.refused_versions)})"
        )
    if report.skipped_purged:
        skipped.append(
            f"{report.skipped_purged} purged (erased for good here, not brought back: "
            f"{', '.join(report.purged)})"
        )
    tail = f"; skipped {', '.join(skipped)}" if skipped else ""
    trash = f" ({report.trashed} to the trash)" if report.trashed else ""
    near = (
        f", {report.near_duplicates} linked to a near-duplicate" if report.near_duplicates else ""
    )
    events = f", {report.events} event(s)" if report.events else ""
    versions = f", {report.versions} earlier version(s)" if report.versions else ""
    return (
        f"imported {report.imported} memories{trash}{near}, {report.links} link(s), "
        f"{report.episodes} episode(s){events}{versions}{tail}"
    )


# -- remembering and changing -----------------------------------------------------------------


_ACTION_STYLE = {"delete": "bold red", "edit": "bold blue", "skip": "yellow", "refuse": "magenta"}
_INDENT = 8


def plural(count: int, noun: str = "memory") -> str:
    if count == 1:
        return f"1 {noun}"
    return f"{count} {noun[:-1]}ies" if noun.endswith("y") else f"{count} {noun}s"


def plan_view(plan: ForgetPlan) -> RenderableType:
    """One line per item (action, id, similarity, preview) with why, and any hint, below it.

    The lines under an item wrap freely, so reasons and hints stay readable at any width.
    """
    parts: list[RenderableType] = [
        Text.assemble(
            (f"{plan.operation} plan ", "bold"),
            (plan.id, "dim"),
            f" · namespace {plan.namespace}",
            no_wrap=True,
            overflow="ellipsis",
        )
    ]
    scored = any(i.similarity is not None for i in plan.items)
    for item in plan.items:
        head = Text.assemble(
            (f"{item.action:<6}", _ACTION_STYLE[item.action]),
            "  ",
            (item.id, "cyan"),
            "  ",
            no_wrap=True,
            overflow="ellipsis",
        )
        if scored:
            head.append("     " if item.similarity is None else f"{item.similarity:.2f} ")
            head.append(" ")
        head.append(item.preview)
        parts.append(head)
        parts.append(Padding(_item_details(item, plan.operation), (0, 0, 0, _INDENT), expand=False))
    for memory_id in plan.not_found:
        parts.append(
            Text.assemble(
                ("missing", "red"),
                " ",
                (memory_id, "cyan"),
                f"  not found{'' if plan.operation == 'forget' else ' (live or in the trash)'}; "
                "find ids with lethe recall, lethe list or lethe trash",
            )
        )
    for derived in plan.derived:  # a purge's copies: summaries made from its targets
        parts.append(
            Text.assemble(
                (f"{derived.action:<7}", "bold red"),
                " ",
                (derived.id, "cyan"),
                "  ",
                derived.preview,
                no_wrap=True,
                overflow="ellipsis",
            )
        )
        parts.append(Padding(Text(derived.reason), (0, 0, 0, _INDENT), expand=False))
    parts.extend(Text(f"warning: {w}", style="yellow") for w in plan.warnings)
    parts.append(Text(plan.notes, style="bold"))
    return Group(*parts)


def _item_details(item: PlanItem, operation: str) -> Text:
    lines = [Text(item.reason, style="dim")]
    if item.evidence and item.action in ("delete", "edit"):
        lines.append(Text("evidence: " + "; ".join(item.evidence), style="dim"))
    if item.diff is not None:
        lines.append(Text("edit: " + item.diff))
    lines.extend(Text(f"version {cut.version}: {cut.diff}") for cut in item.past)
    if item.protection:
        lines.append(Text(f"protected: {item.protection}", style="magenta"))
    if item.warning:
        lines.append(Text(item.warning, style="yellow"))
    if item.was_protected:
        lines.append(Text(f"warning: {item.was_protected}", style="bold yellow"))
    if item.action == "skip":
        # The engine's hint is spelled for the Python API; this is the same advice for a shell.
        lines.append(Text(f"to {operation} it anyway, name it: lethe {operation} {item.id}"))
    elif item.hint:
        lines.append(Text(item.hint))
    return Text("\n").join(lines)


def result_view(result: ForgetResult) -> RenderableType:
    verb = "forgot" if result.operation == "forget" else "erased"
    if result.receipt is not None and result.receipt.get("status") != "erased":
        verb = "deleted the rows of"  # never "erased" when the receipt says traces remain
    parts: list[RenderableType] = []
    if result.executed:
        done = Text(f"{verb} ", style="bold")
        done.append(", ".join(result.executed), style="cyan")
        parts.append(done)
    if result.edited:
        done = Text("edited ", style="bold")
        done.append(", ".join(result.edited), style="cyan")
        parts.append(done)
    for item in result.refused:
        parts.append(
            Text.assemble(
                ("refused ", "magenta"),
                (item.id, "cyan"),
                f": {item.protection or item.reason}",
            )
        )
    for label, ids in (
        ("changed since the preview, not touched", result.stale),
        ("not found", result.not_found),
    ):
        if ids:
            parts.append(Text(f"{label}: {', '.join(ids)}", style="yellow"))
    parts.append(Text(result.notes, style="bold"))
    if result.operation == "forget" and result.executed:
        parts.append(Text("undo with: lethe restore ID (see lethe trash)", style="dim"))
    if result.edited:
        parts.append(Text("undo an edit with: lethe revert ID VERSION (see lethe history ID)"))
    return Group(*parts)


def trash_table(items: Sequence[TrashItem]) -> Table:
    table = _table()
    _id_column(table)
    table.add_column("forgotten", no_wrap=True)
    table.add_column("by", no_wrap=True)
    # Reason and content share what the fixed columns leave, content getting the larger part.
    table.add_column("reason", ratio=1)
    table.add_column("purge after", no_wrap=True)
    table.add_column("content", ratio=2)
    for item in items:
        m = item.memory
        purge = (
            "never"
            if item.purge_after is None
            else f"{datetime.fromisoformat(item.purge_after):%Y-%m-%d}"
        )
        table.add_row(
            m.id,
            "—" if m.forgotten_at is None else f"{m.forgotten_at:%Y-%m-%d}",
            m.forgotten_by or "—",
            Text(m.forget_reason or "—"),  # wraps: a reason is worth reading in full
            purge,
            _cell(m.preview()),
        )
    return table


def maintenance_lines(report: MaintenanceReport) -> Text:
    if report.expired:
        erased = Text(f"erased {plural(len(report.expired))} past the trash retention: ")
        erased.append(", ".join(report.expired), style="cyan")
    else:
        erased = Text("nothing in the trash is past its retention")
    expired = report.expired_confirmations
    confirmations = Text(
        f"expired {plural(expired, 'stale confirmation')}" if expired else "no stale confirmations"
    )
    lines = [erased, confirmations]
    if report.expiries:
        ended = Text(f"moved {plural(len(report.expiries))} whose expiry came to the trash: ")
        ended.append(", ".join(report.expiries), style="cyan")
        lines.append(ended)
    if report.versions_embedded:
        lines.append(Text(f"embedded {plural(report.versions_embedded, 'earlier state')}"))
    return Text("\n").join(lines)


def report_view(report: DeletionReport) -> RenderableType:
    if not report.rows:
        return Text("no deletions recorded", style="yellow")
    tables: list[RenderableType] = []
    for header, counts, chronological in (
        ("operation", report.by_op, False),
        ("actor", report.by_actor, False),
        ("namespace", report.by_namespace, False),
        ("day", report.by_day, True),
    ):
        table = _table()
        table.add_column(header, no_wrap=True)
        table.add_column("count", justify="right", no_wrap=True)
        ordered = sorted(counts.items(), key=lambda kv: kv[0] if chronological else -kv[1])
        for key, count in ordered:
            table.add_row(Text(key), str(count))
        tables.extend([table, Text("")])
    return Group(*tables[:-1])
