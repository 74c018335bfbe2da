"""Rich renderings of the engine's records, shared by the commands and the demo.

User text always goes in as `Text`, never as markup, so a memory that happens to contain
`[bold]` prints as written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from lethe.model import Episode, EpisodeView, Event, ImportReport, Link, Memory, Page, RecallHit


def when(moment: datetime | None) -> str:
    return "—" if moment is None else moment.strftime("%Y-%m-%d %H:%M")


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _id_column(table: Table, header: str = "id") -> None:
    table.add_column(header, style="cyan", no_wrap=True, min_width=16)


def memories_table(memories: Sequence[Memory], *, title: str | None = None) -> Table:
    table = Table(title=title, title_justify="left", expand=False)
    _id_column(table)
    table.add_column("created", no_wrap=True)
    table.add_column("layer", no_wrap=True)
    table.add_column("imp.", justify="right", no_wrap=True)
    table.add_column("content", overflow="ellipsis", no_wrap=True, ratio=1)
    for m in memories:
        table.add_row(m.id, when(m.created_at), m.layer, f"{m.importance:.2f}", Text(m.preview()))
    return table


def hits_table(hits: Sequence[RecallHit], *, title: str | None = None) -> Table:
    table = Table(title=title, title_justify="left")
    _id_column(table)
    table.add_column("similarity", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("layer", no_wrap=True)
    table.add_column("content", overflow="ellipsis", no_wrap=True, ratio=1)
    for h in hits:
        table.add_row(
            h.memory.id,
            f"{h.similarity:.3f}",
            f"{h.score:.3f}",
            h.memory.layer,
            Text(h.memory.preview()),
        )
    return table


def memory_detail(memory: Memory) -> Panel:
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
        ("created", when(memory.created_at)),
        ("updated", when(memory.updated_at)),
        ("recalled", f"{memory.access_count}× (last {when(memory.last_accessed_at)})"),
    ]
    for key, value in rows:
        grid.add_row(key, Text(value))
    body = Group(Text(memory.content), Text(""), grid)
    return Panel(body, title=Text(memory.id, style="cyan"), title_align="left")


def links_table(memory_id: str, links: Sequence[Link], previews: Mapping[str, str]) -> Table:
    table = Table(title=f"links ({len(links)})", title_justify="left")
    _id_column(table, "linked to")
    table.add_column("kind", no_wrap=True)
    table.add_column("confidence", justify="right", no_wrap=True)
    table.add_column("content", overflow="ellipsis", no_wrap=True, ratio=1)
    for link in links:
        other = link.other(memory_id)
        table.add_row(other, link.kind, f"{link.confidence:.2f}", Text(previews.get(other, "")))
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
    header = Text.assemble(
        (ep.id, "cyan"),
        f"  {when(ep.start_at)} → {when(ep.end_at)}  ·  importance {ep.importance:.2f}"
        f"  ·  namespace {ep.namespace}",
    )
    parts: list[RenderableType] = [header, Text(ep.summary, style="bold")]
    parts.append(memories_table(view.members, title=f"members ({len(view.members)} live)"))
    if view.note:
        parts.append(Text(view.note, style="yellow"))
    return Group(*parts)


def episode_json(view: EpisodeView) -> dict[str, Any]:
    return {**view.model_dump(mode="json"), "note": view.note}


def events_table(events: Iterable[Event]) -> Table:
    table = Table(title="audit log", title_justify="left")
    table.add_column("seq", justify="right", no_wrap=True)
    table.add_column("at", no_wrap=True)
    table.add_column("op", style="bold", no_wrap=True)
    table.add_column("memory", style="cyan", no_wrap=True)
    table.add_column("actor", no_wrap=True)
    table.add_column("details", overflow="fold", ratio=1)
    for e in events:
        table.add_row(
            str(e.seq),
            e.at.strftime("%Y-%m-%d %H:%M:%S"),
            e.op,
            e.memory_id or "—",
            e.actor,
            Text(compact(e.details) if e.details else ""),
        )
    return table


def page_caption(page: Page) -> str:
    if not page.items:
        return f"no memories (of {page.total})"
    return f"showing {page.offset + 1}–{page.offset + len(page.items)} of {page.total}"


def import_line(report: ImportReport) -> str:
    skipped = []
    if report.skipped_duplicates:
        skipped.append(f"{report.skipped_duplicates} near-duplicate(s)")
    if report.skipped_existing:
        skipped.append(f"{report.skipped_existing} already present")
    tail = f"; skipped {', '.join(skipped)}" if skipped else ""
    return (
        f"imported {report.imported} memories, {report.links} link(s), "
        f"{report.episodes} episode(s){tail}"
    )
