"""A folder of markdown notes (or one file): a memory per bullet item or paragraph.

A note-taker's unit of meaning is the bullet or the paragraph, so that is the memory; the
structure around it is context, kept in metadata: the file's path relative to the folder
(`file`), the headings above it (`heading`, the nearest; `headings`, outermost first), the
list items it is nested under (`parents`) and a task's state (`task`: open or done). A fenced
code block stays one memory: split, code means nothing. Line numbers are not kept in
metadata: a note edited above a bullet would then no longer be the same memory, and a
re-import would store it twice.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lethe.errors import InvalidInput
from lethe.importers.parsed import NOT_UTF8_HINT, Item, Parsed, decode

SOURCE = "markdown"
SUFFIXES = (".md", ".markdown")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ *(`{3,}|~{3,})")
_BULLET = re.compile(r"^( *)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+(.*))?$")
_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_TASK = re.compile(r"^\[([ xX])\][ \t]+(.*)$")


@dataclass
class _Block:
    line: int
    kind: str
    lines: list[str]
    headings: tuple[str, ...]
    parents: tuple[str, ...] = ()
    task: str | None = None

    def content(self) -> str:
        if self.kind == "item":
            return "\n".join(self.lines).strip()
        return textwrap.dedent("\n".join(self.lines)).strip("\n").rstrip()


@dataclass
class _State:
    headings: list[tuple[int, str]] = field(default_factory=list)
    items: list[tuple[int, str]] = field(default_factory=list)
    """The list items open above the current line: (indent, text)."""

    def titles(self) -> tuple[str, ...]:
        return tuple(title for _, title in self.headings)

    def heading(self, level: int, title: str) -> None:
        self.items.clear()
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        if title:
            self.headings.append((level, title))


def read(path: Path, *, namespace: str | None) -> Parsed:
    parsed = Parsed(SOURCE, str(path))
    if not path.exists():
        raise InvalidInput(f"there is no folder or file {path}", hint="give a folder of notes")
    files = [path] if path.is_file() else _files(path)
    root = path.parent if path.is_file() else path
    inside = root.resolve()
    front_matter = 0
    for file in files:
        rel = file.relative_to(root).as_posix()
        parsed.records += 1
        if file is not path and not file.resolve().is_relative_to(inside):
            # A note that links out of the folder (`note.md -> /etc/passwd`) would import
            # whatever it points at: only what the person put in the folder is read.
            parsed.drop(
                rel,
                "a link to a file outside the folder; it was not read",
                "copy the note into the folder to import it",
            )
            continue
        try:
            data = file.read_bytes()
        except OSError as exc:
            parsed.drop(rel, f"cannot be read ({exc.strerror}); the file was skipped")
            continue
        text = decode(data)
        if isinstance(text, tuple):
            parsed.drop(f"{rel}:{text[0]}", f"{text[1]}; the file was skipped", NOT_UTF8_HINT)
            continue
        if not text.strip():
            parsed.drop(rel, "empty file")
            continue
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        start = _after_front_matter(lines)
        front_matter += start > 0
        for block in _blocks(lines, start):
            metadata: dict[str, Any] = {"file": rel}
            if block.headings:
                metadata["heading"] = block.headings[-1]
                metadata["headings"] = list(block.headings)
            if block.parents:
                metadata["parents"] = list(block.parents)
            if block.task:
                metadata["task"] = block.task
            fields: dict[str, Any] = {"content": block.content(), "metadata": metadata}
            if namespace is not None:
                fields["namespace"] = namespace
            parsed.items.append(Item(f"{rel}:{block.line}", fields))
    if front_matter:
        parsed.drop(
            "front matter",
            f"the front matter of {front_matter} file(s) (between --- lines at the top) "
            "describes the note and is not imported",
        )
    return parsed


def _files(folder: Path) -> list[Path]:
    """Markdown files under the folder, in path order; hidden folders (.git, .obsidian) and
    files are not notes."""
    found = [
        p
        for p in folder.rglob("*")
        if p.suffix.lower() in SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
        and not p.is_dir()
    ]
    return sorted(found, key=lambda p: p.relative_to(folder).as_posix())


def _after_front_matter(lines: list[str]) -> int:
    if not lines or lines[0].strip() != "---":
        return 0
    for n, line in enumerate(lines[1:], start=1):
        if line.strip() in ("---", "..."):
            return n + 1
    return 0


def _blocks(lines: list[str], start: int) -> Iterator[_Block]:
    state = _State()
    current: _Block | None = None
    i = start
    while i < len(lines):
        raw = lines[i]
        line = raw.expandtabs(4)
        number = i + 1
        i += 1
        if not line.strip():
            if current is not None:
                yield current
            current = None
            continue
        indent = len(line) - len(line.lstrip(" "))
        fence = _FENCE.match(line)
        if fence:
            if current is not None:
                yield current
            marker = fence.group(1)
            body = [raw]
            while i < len(lines):
                body.append(lines[i])
                i += 1
                closing = body[-1].strip()
                if closing.startswith(marker) and set(closing) == {marker[0]}:
                    break
            parents = _parents(state, indent)
            current = None
            yield _Block(number, "code", body, state.titles(), parents)
            continue
        heading = _HEADING.match(line)
        if heading:
            if current is not None:
                yield current
            current = None
            state.heading(len(heading.group(1)), (heading.group(2) or "").strip())
            continue
        if current is not None and current.kind == "paragraph" and _SETEXT.match(line):
            title = " ".join(part.strip() for part in current.lines)
            state.heading(1 if "=" in line else 2, title)
            current = None
            continue
        if _BREAK.match(line):
            if current is not None:
                yield current
            current = None
            state.items.clear()
            continue
        bullet = _BULLET.match(line)
        if bullet:
            if current is not None:
                yield current
            current = None
            text = (bullet.group(2) or "").strip()
            if not text:
                continue
            while state.items and state.items[-1][0] >= indent:
                state.items.pop()
            task = _TASK.match(text)
            if task:
                text = task.group(2).strip()
            parents = tuple(t for _, t in state.items)
            current = _Block(number, "item", [text], state.titles(), parents)
            if task:
                current.task = "open" if task.group(1) == " " else "done"
            state.items.append((indent, text))
            continue
        if current is not None:
            current.lines.append(line.strip() if current.kind == "item" else raw)
            continue
        current = _Block(number, "paragraph", [raw], state.titles(), _parents(state, indent))
    if current is not None:
        yield current


def _parents(state: _State, indent: int) -> tuple[str, ...]:
    """The list items a block indented this far sits in; an unindented one ends the list."""
    while state.items and state.items[-1][0] >= indent:
        state.items.pop()
    return tuple(t for _, t in state.items)
