"""What every importer hands the engine: the memories a source yields (not yet validated by
lethe's rules), the relations between them, and what it could not keep.

An importer never writes. It reads the whole source first, so a malformed record anywhere is
found before the engine stores anything: `SourceRefused` lists them all (up to a limit),
each with where it is and how to fix it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from lethe.errors import InvalidInput

MAX_LISTED = 50
"""Bad records named in a refusal: enough to fix a file in one pass, short enough to read."""


class Note(BaseModel):
    """One record, or part of one, named by where it is in the source: `line 7` (JSON Lines),
    `results[3]` (a JSON array), `notes/trip.md:12` (markdown)."""

    model_config = ConfigDict(frozen=True)

    where: str
    what: str
    hint: str | None = None

    def line(self) -> str:
        return f"{self.where}: {self.what}" + (f" ({self.hint})" if self.hint else "")


@dataclass(frozen=True)
class Item:
    """A memory to be: the fields of a `Draft`, before lethe's validation."""

    where: str
    fields: dict[str, Any]
    entity: str | None = None
    """The MCP memory entity this observation belongs to: what its relations link."""


@dataclass(frozen=True)
class Relation:
    """A relation between two entities whose memories both exist in the source."""

    where: str
    source: str
    target: str
    kind: str


@dataclass
class Parsed:
    source: str
    path: str
    records: int = 0
    items: list[Item] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    problems: list[Note] = field(default_factory=list)
    not_kept: list[Note] = field(default_factory=list)
    namespaces: dict[str, str] = field(default_factory=dict)
    """A source name (mem0's user_id) → the namespace it was stored under, when lethe's
    namespace rules made them differ."""

    def bad(self, where: str, what: str, hint: str | None = None) -> None:
        self.problems.append(Note(where=where, what=what, hint=hint))

    def drop(self, where: str, what: str, hint: str | None = None) -> None:
        self.not_kept.append(Note(where=where, what=what, hint=hint))


class SourceRefused(InvalidInput):
    """The source has malformed records, so nothing of it was imported. `problems` lists the
    first `MAX_LISTED` of them (`total` counts all), each with where it is and how to fix it."""

    def __init__(self, source: str, path: str, problems: list[Note]) -> None:
        self.source = source
        self.path = path
        self.total = len(problems)
        # In source order, whether the parser or lethe's own rules found them.
        self.problems = sorted(problems, key=lambda p: _natural(p.where))[:MAX_LISTED]
        shown = "; ".join(p.line() for p in self.problems[:3])
        more = f"; and {self.total - 3} more" if self.total > 3 else ""
        super().__init__(
            f"{path}: {self.total} malformed record(s) in this {source} source, so nothing "
            f"was imported: {shown}{more}",
            hint="fix the records named (each says how) and import again; --dry-run checks "
            "the file without writing",
        )


class SourceReport(BaseModel):
    """What an import from another memory did, or with `dry_run` would do."""

    model_config = ConfigDict(frozen=True)

    source: str
    path: str
    dry_run: bool = False
    records: int = 0
    """Records read: lines (mcp-memory), array items (mem0), files (markdown), conversations
    (claude, chatgpt)."""
    memories: int = 0
    """Memories the source yields, before duplicates are skipped."""
    imported: int = 0
    skipped_duplicates: int = 0
    """Exact duplicates (the same text and fields live in the namespace, or earlier in the
    source): a re-import skips everything it imported before."""
    skipped_purged: int = 0
    """Memories this store purged before: never brought back (each is named in `not_kept`)."""
    near_duplicates: int = 0
    linked: int = 0
    """Automatic links to close neighbours (as `remember` makes)."""
    links: int = 0
    """Links made from the source's relations."""
    links_held: int = 0
    """Links of the source's relations the store already held."""
    namespaces: dict[str, str] = {}
    not_kept: list[Note] = []
    """What the source holds that could not be kept, and why."""


def _natural(where: str) -> list[tuple[int, int | str]]:
    """`line 9` before `line 10`, `results[2]` before `results[11]`."""
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", where)]


def read_bytes(path: Path, what: str) -> bytes:
    """The whole file; a path that cannot be read is the caller's mistake, not a record's."""
    if path.is_dir():
        raise InvalidInput(f"{path} is a folder", hint=f"give the {what} file itself")
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise InvalidInput(
            f"there is no file {path}", hint=f"give the path of the {what} file"
        ) from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None


def decode(data: bytes) -> str | tuple[int, str]:
    """The text of a file, without a byte-order mark; else the line where it stops being
    UTF-8 and what is wrong there."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return line, f"not UTF-8 text (byte 0x{data[exc.start]:02x})"
    return text.removeprefix("\ufeff")


NOT_UTF8_HINT = "convert the file to UTF-8, e.g. iconv -f latin1 -t utf-8 FILE > NEW"


def shown(value: Any) -> str:
    """A value of the export as a message names it: its repr, cut to 60 characters (a hostile
    export's id or type may be megabytes long)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def iso_time(parsed: Parsed, value: Any, key: str, where: str) -> datetime | None:
    """An ISO-8601 time (a date alone is its midnight); one without a zone is UTC, as
    everywhere in lethe. One no instant can be (year 1 minus an offset) is malformed too."""
    if value is None:
        return None
    when: datetime | None = None
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.strip())
            when = (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC)
        except (ValueError, OverflowError):  # year 1 minus an offset is no instant
            when = None
    if when is None:
        parsed.bad(
            where,
            f"{key} {shown(value)} is not an ISO-8601 time",
            f"write it like 2024-07-26T10:29:36Z, or remove {key}",
        )
        return None
    return when
