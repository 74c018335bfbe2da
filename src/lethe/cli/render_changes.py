"""Rich renderings of what changes a memory: a change's plan, a history of versions, the
near-duplicates a new memory was linked to. User text goes in as `Text`, never as markup."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from lethe.cli.render import compact

if TYPE_CHECKING:  # annotations only: `lethe --help` need not load the models
    from lethe.forget.change import UpdatePlan
    from lethe.model import Memory, MemoryVersion, NearDuplicate


def near_duplicate_lines(near: Sequence[NearDuplicate]) -> Text:
    """Each stored neighbour the new memory nearly repeats, and what the person can do.

    Similar is not same (a day, a dose, a name or a "not" barely moves an embedding), so
    both are kept and linked; the person decides whether one replaces the other.
    """
    lines = [
        Text.assemble(
            ("near-duplicate ", "yellow"),
            (n.id, "cyan"),
            f" (similarity {n.similarity:.2f}): ",
            n.content,
        )
        for n in near
    ]
    first = near[0].id
    lines.append(
        Text(
            "both are kept and linked (near_duplicate). If they say the same thing, keep both, "
            f"or update one (lethe update {first} --content …) or forget one "
            f"(lethe forget {first}).",
            style="dim",
        )
    )
    return Text("\n").join(lines)


def _field_value(field: str, value: Any) -> str:
    if field == "importance" and isinstance(value, int | float):
        return f"{value:.2f}"
    if field == "tags":
        return ", ".join(value) if value else "—"
    if field == "metadata":
        return compact(value) if value else "{}"
    if field == "private":
        return "yes" if value else "no"
    if value in ("", None):
        return "—"
    return str(value)


def change_view(plan: UpdatePlan) -> RenderableType:
    """What an update or revert would change, field by field, and what protection it takes
    away. The old and new text are shown whole: a confirmation is only as good as what the
    person saw."""
    target = (
        f"revert {plan.memory_id} to version {plan.revert_to}"
        if plan.op == "revert"
        else f"update {plan.memory_id}"
    )
    parts: list[RenderableType] = [
        Text.assemble(
            (target, "bold"),
            f" · namespace {plan.namespace} · version {plan.base_version} → "
            f"{plan.base_version + 1}",
            no_wrap=True,
            overflow="ellipsis",
        )
    ]
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    for change in plan.diff:
        if change.field == "content":
            grid.add_row(
                "content",
                Text("\n").join(
                    [Text(f"- {change.old}", style="red"), Text(f"+ {change.new}", style="green")]
                ),
            )
        else:
            grid.add_row(
                change.field,
                Text(
                    f"{_field_value(change.field, change.old)} → "
                    f"{_field_value(change.field, change.new)}"
                ),
            )
    if plan.diff:
        parts.append(Padding(grid, (0, 0, 0, 2), expand=False))
    if plan.protection:
        parts.append(Text(f"protected: {plan.protection}", style="magenta"))
    for lost in plan.lost:
        parts.append(Text(f"would lose protection: {lost}", style="bold yellow"))
    parts.append(Text(plan.notes, style="bold" if plan.needs_confirmation else "dim"))
    return Group(*parts)


def changed_line(plan: UpdatePlan, memory: Memory) -> str:
    done = f"reverted to version {plan.revert_to}" if plan.op == "revert" else "updated"
    return (
        f"{done}: {memory.id} is now version {memory.version}; version {plan.base_version} "
        f"stays restorable until purged (lethe history {memory.id}, "
        f"lethe revert {memory.id} {plan.base_version})"
    )


_WORD_RE = re.compile(r"\S+|\s+")
_KEEP = 6
"""Unchanged words kept on each side of a change in a content diff; longer runs are elided."""


def word_diff(old: str, new: str) -> Text:
    """The new text with what it removed `[-like this-]` and added `{+like this+}`, readable
    without colours; long unchanged stretches are shortened to `…`."""
    from difflib import SequenceMatcher

    a, b = _WORD_RE.findall(old), _WORD_RE.findall(new)
    out = Text()
    opcodes = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    for n, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        if tag == "equal":
            out.append(_elide(a[i1:i2], head=n > 0, tail=n < len(opcodes) - 1))
            continue
        removed, added = "".join(a[i1:i2]).strip(), "".join(b[j1:j2]).strip()
        if removed:
            out.append(f"[-{removed}-]", style="red")
        if added:
            out.append(f"{{+{added}+}}", style="green")
    return out


def _elide(tokens: list[str], *, head: bool, tail: bool) -> str:
    """An unchanged stretch of words and spaces: whole when short, else the words next to
    the changes around it (`head`: one before it, `tail`: one after it) and `…`."""
    keep_head, keep_tail = (_KEEP * 2 if head else 0), (_KEEP * 2 if tail else 0)
    if len(tokens) <= keep_head + keep_tail + 4:
        return "".join(tokens)
    start = "".join(tokens[:keep_head]).rstrip()
    end = "".join(tokens[len(tokens) - keep_tail :]).lstrip() if keep_tail else ""
    return (start + " " if start else "") + "…" + (" " + end if end else "")


def history_view(versions: Sequence[MemoryVersion]) -> RenderableType:
    """Newest first: one header line per version (number, current, when, how, who, layer,
    importance), then why, its text, and what it changed from the version before it."""
    width = len(str(versions[0].version)) + 1 if versions else 2
    parts: list[RenderableType] = []
    for n, v in enumerate(versions):
        older = versions[n + 1] if n + 1 < len(versions) else None
        parts.append(
            Text.assemble(
                (f"v{v.version}".ljust(width), "bold"),
                ("  current" if v.current else "         ", "green"),
                f"  {v.valid_from.strftime('%Y-%m-%d %H:%M:%S')}  ",
                (f"{v.op:<8}", "bold"),
                f"  by {v.actor}  {v.layer} · importance {v.importance:.2f}",
                no_wrap=True,
                overflow="ellipsis",
            )
        )
        lines: list[Text] = []
        if v.reason:
            lines.append(Text(f"why: {v.reason}", style="dim"))
        lines.append(Text(v.preview(200)))
        if older is not None:
            changed = _version_changes(older, v)
            if changed:
                lines.append(Text(f"changed from v{older.version}: {changed}", style="dim"))
            if older.content != v.content:
                lines.append(Text.assemble(("text: ", "dim"), word_diff(older.content, v.content)))
        parts.append(Padding(Text("\n").join(lines), (0, 0, 0, width + 2), expand=False))
    return Group(*parts)


def _version_changes(older: MemoryVersion, newer: MemoryVersion) -> str:
    changes = []
    for field in ("content", "layer", "category", "tags", "metadata", "importance", "private"):
        old, new = getattr(older, field), getattr(newer, field)
        if old == new:
            continue
        if field == "content":
            changes.append("content")
        else:
            changes.append(f"{field} {_field_value(field, old)} → {_field_value(field, new)}")
    return "; ".join(changes)


# -- forgetting -------------------------------------------------------------------------------
