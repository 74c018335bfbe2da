"""`lethe import --from SOURCE PATH`: imports from other memories (the command is declared in
`records`). The engine reads, checks and writes; this module only opens the store, draws the
bar and prints the report."""

import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from lethe.cli.app import emit_json, fail, open_lethe, stderr, stdout, store_file

if TYPE_CHECKING:
    from lethe.engine import Lethe
    from lethe.importers import SourceRefused, SourceReport

ProgressBar = Callable[..., AbstractContextManager[Callable[[int], None]]]
SHOWN = 20
"""Lines of each list printed; --json has them all."""


def import_source(
    source: str,
    path: str,
    *,
    dry_run: bool,
    namespace: str | None,
    skip_duplicates: bool,
    auto_link: bool,
    db: str | None,
    json_: bool,
    progress: ProgressBar,
) -> None:
    from lethe.importers import SourceRefused

    if path == "-":
        raise fail(
            "--from reads a file or a folder, not standard input",
            hint="save the source to a file and give its path",
        )
    if not Path(path).exists():  # before the store is opened, which would create it
        raise fail(f"there is no file or folder {path}", hint="give the path of the source")
    try:
        with _reader(db, dry_run=dry_run) as reader:
            batch = reader.read_source(source, path, namespace=namespace)
            with (
                _store(db, reader, dry_run=dry_run) as mem,
                progress("importing", batch.memories, show=not dry_run) as advance,
            ):
                report = mem.import_source(
                    batch,
                    dry_run=dry_run,
                    progress=advance,
                    skip_duplicates=skip_duplicates,
                    auto_link=auto_link,
                )
    except SourceRefused as refused:
        _print_refusal(refused, json_=json_)
        raise typer.Exit(1) from None
    if json_:
        emit_json(report.model_dump(mode="json"))
        return
    _print_report(report)


@contextmanager
def _reader(db: str | None, *, dry_run: bool) -> "Iterator[Lethe]":
    """The store the source is read and checked against. Where --db points to no store yet,
    an empty throwaway one: a refused source (or a dry run) then creates nothing there, and
    a new store has nothing purged to keep out anyway."""
    target = store_file(db)
    if target is not None and not target.exists():
        with (
            tempfile.TemporaryDirectory(prefix="lethe-import-") as tmp,
            open_lethe(str(Path(tmp) / "check.db")) as mem,
        ):
            yield mem
        return
    with open_lethe(db) as mem:
        yield mem


@contextmanager
def _store(db: str | None, reader: "Lethe", *, dry_run: bool) -> "Iterator[Lethe]":
    """The store to import into: the one read against, unless that was a throwaway and this
    is no dry run (the source passed its checks, so the store is made now)."""
    target = store_file(db)
    if dry_run or target is None or target.exists():
        yield reader
        return
    with open_lethe(db) as mem:
        yield mem


def _print_refusal(refused: "SourceRefused", *, json_: bool) -> None:
    if json_:
        emit_json(
            {
                "refused": True,
                "source": refused.source,
                "path": refused.path,
                "malformed": refused.total,
                "problems": [p.model_dump(mode="json") for p in refused.problems],
            }
        )
    err = stderr()
    err.print(
        f"error: {refused.path}: {refused.total} malformed record(s) in this {refused.source} "
        "source, so nothing was imported; fix each one named and import again:",
        markup=False,
        soft_wrap=True,
    )
    for problem in refused.problems:
        err.print(f"  {problem.line()}", markup=False, soft_wrap=True)
    if refused.total > len(refused.problems):
        err.print(f"  … and {refused.total - len(refused.problems)} more", markup=False)


def _print_report(report: "SourceReport") -> None:
    out = stdout()
    verb = "would import" if report.dry_run else "imported"
    parts = [f"{verb} {report.imported} of {report.memories} memories"]
    if report.links or report.links_held or report.source == "mcp-memory":
        parts.append(f"{report.links} link(s) from relations")
    if report.near_duplicates:
        parts.append(f"{report.near_duplicates} linked to a near-duplicate")
    if report.linked:
        parts.append(f"{report.linked} automatic link(s)")
    skipped = []
    if report.skipped_duplicates:
        skipped.append(f"{report.skipped_duplicates} exact duplicate(s)")
    if report.links_held:
        skipped.append(f"{report.links_held} link(s) already held")
    if report.skipped_purged:
        skipped.append(f"{report.skipped_purged} purged before (never brought back)")
    line = ", ".join(parts) + (f"; skipped {', '.join(skipped)}" if skipped else "")
    head = "dry run, nothing was written: " if report.dry_run else ""
    source = f" (from {report.records} {report.source} record(s) in {report.path})"
    out.print(head + line + source, soft_wrap=True, markup=False)
    if report.namespaces:
        out.print("namespaces lethe's rules changed:", markup=False)
        for name, namespace in list(report.namespaces.items())[:SHOWN]:
            out.print(f"  {name!r} -> {namespace}", soft_wrap=True, markup=False)
        _more(len(report.namespaces))
    if report.not_kept:
        out.print(f"not kept ({len(report.not_kept)}):", markup=False)
        for note in report.not_kept[:SHOWN]:
            out.print(f"  {note.line()}", soft_wrap=True, markup=False)
        _more(len(report.not_kept))


def _more(count: int) -> None:
    if count > SHOWN:
        stdout().print(f"  … and {count - SHOWN} more (--json lists them all)", markup=False)
