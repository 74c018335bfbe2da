"""The markdown workspace: a read-only projection of the database for humans and agents.

Files are derived, never edited in place: after a change commits, the daily log of each
affected day (`memory/YYYY-MM-DD.md`) and, when a curated memory is involved, `MEMORY.md` are
regenerated from live rows and swapped in atomically (temp file + rename). So a forgotten
memory disappears from the files by construction, and `rebuild` can re-derive everything.
Private memories are never written. Namespace `default` projects to the workspace root,
any other namespace to a sub-folder of the same name.
"""

from __future__ import annotations

import glob
import os
import tempfile
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from lethe.common.identifiers import DEFAULT_NAMESPACE
from lethe.model import Memory

# Lists every live memory of a namespace created in [since, until); the engine supplies it.
Fetch = Callable[[str, datetime | None, datetime | None], list[Memory]]


def _line(memory: Memory, *, with_date: bool) -> str:
    stamp = memory.created_at.strftime("%Y-%m-%d" if with_date else "%H:%M")
    kind = memory.layer + (f"/{memory.category}" if memory.category else "")
    text = " ".join(memory.content.split())
    return f"- {stamp} [{kind}] {text} [id:{memory.id}]"


def _write_atomic(path: Path, text: str | None) -> None:
    # A write killed between its temp file and the rename left `.<name>.XXXX` behind, which
    # may hold text erased since: every rewrite of a file sweeps its own leftovers first.
    if path.parent.is_dir():
        for leftover in path.parent.glob(f".{glob.escape(path.name)}.*"):
            leftover.unlink(missing_ok=True)
    if text is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def touched(changed: Iterable[Memory]) -> tuple[set[tuple[str, date]], set[str]]:
    """The files a change to these memories touches: (namespace, day) daily logs, and the
    namespaces whose curated file it touches."""
    days: set[tuple[str, date]] = set()
    curated: set[str] = set()
    for memory in changed:
        days.add((memory.namespace, memory.created_at.astimezone(UTC).date()))
        if memory.is_curated:
            curated.add(memory.namespace)
    return days, curated


class Workspace:
    def __init__(self, root: Path, fetch: Fetch) -> None:
        self.root = root
        self._fetch = fetch

    def folder(self, namespace: str) -> Path:
        return self.root if namespace == DEFAULT_NAMESPACE else self.root / namespace

    def day_file(self, namespace: str, day: date) -> Path:
        return self.folder(namespace) / "memory" / f"{day.isoformat()}.md"

    def curated_file(self, namespace: str) -> Path:
        return self.folder(namespace) / "MEMORY.md"

    def refresh(self, changed: Iterable[Memory]) -> None:
        """Re-derive the files that `changed` memories (old or new versions) appear in."""
        days, curated = touched(changed)
        self.refresh_days(days, curated)

    def refresh_days(self, days: Iterable[tuple[str, date]], curated: Iterable[str]) -> None:
        """Re-derive the daily logs of these (namespace, day) pairs and the curated files of
        these namespaces."""
        for namespace, day in sorted(set(days)):
            self._write_day(namespace, day)
        for namespace in sorted(set(curated)):
            self._write_curated(namespace)

    def files(self, namespaces: Iterable[str]) -> list[Path]:
        """The files lethe writes for these namespaces: daily logs, the curated file, and
        the temporary files of killed writes. A person's own files beside them are not
        lethe's (see `rebuild`)."""
        found: list[Path] = []
        for namespace in sorted(set(namespaces)):
            folder = self.folder(namespace)
            found += [p for p in folder.glob("MEMORY.md") if p.is_file()]
            found += [p for p in folder.glob(".MEMORY.md.*") if p.is_file()]
            days = folder / "memory"
            for pattern in ("????-??-??.md", ".????-??-??.md.*"):
                found += sorted(p for p in days.glob(pattern) if p.is_file())
        return found

    def rebuild(self, namespaces: Iterable[str]) -> None:
        """Regenerate every file of the namespaces from scratch."""
        for namespace in namespaces:
            folder = self.folder(namespace) / "memory"
            for pattern in ("????-??-??.md", ".????-??-??.md.*"):  # files, and killed writes
                for stale in folder.glob(pattern) if folder.is_dir() else []:
                    stale.unlink()
            memories = self._fetch(namespace, None, None)
            for day in sorted({m.created_at.astimezone(UTC).date() for m in memories}):
                self._write_day(namespace, day)
            self._write_curated(namespace)

    def _write_day(self, namespace: str, day: date) -> None:
        start = datetime(day.year, day.month, day.day, tzinfo=UTC)
        memories = [
            m for m in self._fetch(namespace, start, start + timedelta(days=1)) if not m.private
        ]
        memories.sort(key=lambda m: (m.created_at, m.id))
        text = None
        if memories:
            lines = [f"# {day.isoformat()}", "", *(_line(m, with_date=False) for m in memories)]
            text = "\n".join(lines) + "\n"
        _write_atomic(self.day_file(namespace, day), text)

    def _write_curated(self, namespace: str) -> None:
        memories = [m for m in self._fetch(namespace, None, None) if not m.private and m.is_curated]
        memories.sort(key=lambda m: (m.created_at, m.id))
        text = None
        if memories:
            lines = ["# MEMORY", "", *(_line(m, with_date=True) for m in memories)]
            text = "\n".join(lines) + "\n"
        _write_atomic(self.curated_file(namespace), text)
