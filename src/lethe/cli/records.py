"""Commands over the whole store: the audit log, export, import, and the demo tour."""

import json
import os
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from lethe.cli.app import (
    DbOpt,
    JsonOpt,
    app,
    emit_items,
    emit_json,
    fail,
    open_lethe,
    stdout,
    store_file,
)
from lethe.cli.progress import terminal_bar as _progress
from lethe.common import validate


@app.command(
    help="Print the audit log: every state change in order. Page with --after = the last seq seen.",
)
def audit(
    memory: Annotated[
        str | None, typer.Option("--memory", metavar="ID", help="Only this memory's events.")
    ] = None,
    op: Annotated[
        str | None, typer.Option(help="Only this operation, e.g. remember, update, link.")
    ] = None,
    namespace: Annotated[
        str | None, typer.Option("--namespace", "-n", help="Only this namespace.")
    ] = None,
    after: Annotated[int, typer.Option(metavar="SEQ", help="Only events after this seq.")] = 0,
    limit: Annotated[int, typer.Option(help="At most this many (1-10000).")] = 100,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render

    validate.offset(after, "--after")  # named as the option, not as the engine's after_seq
    with open_lethe(db, existing=True) as mem:
        events = mem.audit(
            memory_id=memory, op=op, namespace=namespace, after_seq=after, limit=limit
        )
    if json_:
        emit_items((e.model_dump(mode="json") for e in events), after=after, limit=limit)
        return
    out = stdout()
    if not events:
        out.print("no events", style="yellow")
        return
    out.print(render.events_view(events))


def _write_jsonl(
    records: Iterable[dict[str, Any]], handle: IO[str], advance: Callable[[int], None]
) -> dict[str, int]:
    counts = {"memory": 0, "trashed": 0, "link": 0, "episode": 0, "event": 0}
    for record in records:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        counts[record["type"]] = counts.get(record["type"], 0) + 1
        if record["type"] == "memory":
            counts["trashed"] += record.get("status") == "forgotten"
            advance(1)
    return counts


@app.command(
    "export",
    help="Write the whole memory as JSON Lines (one record per line), to stdout or to "
    "--output: live memories, the trash, links, episodes and the audit log. Ids and "
    "timestamps are kept, so import restores them.",
)
def export(
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", metavar="FILE", help="Write here instead of stdout."),
    ] = None,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    to_stdout = output is None or str(output) == "-"
    if output is not None and not to_stdout:
        _refuse_store_files(output, db)
    with open_lethe(db, existing=True) as mem:
        records = mem.export_records()
        if to_stdout:
            out = typer.get_text_stream("stdout")
            # Records scrolling on the terminal would tear a bar; draw it only when redirected.
            with _progress("exporting", records.memories, show=not out.isatty()) as advance:
                _write_jsonl(records, out, advance)
            return
        assert output is not None
        # Written beside the target and renamed, so a failed export never leaves half a file.
        partial = output.with_name(output.name + ".partial")
        try:
            with (
                partial.open("w", encoding="utf-8") as handle,
                _progress("exporting", records.memories) as advance,
            ):
                counts = _write_jsonl(records, handle, advance)
            os.replace(partial, output)
        except OSError as exc:
            with suppress(OSError):  # under a file, say, there is no partial to remove
                partial.unlink(missing_ok=True)
            raise fail(f"cannot write {output}: {exc.strerror}") from None
    summary = {
        "path": str(output),
        "memories": counts["memory"],
        "trashed": counts["trashed"],
        "links": counts["link"],
        "episodes": counts["episode"],
        "events": counts["event"],
    }
    if json_:
        emit_json(summary)
        return
    trash = f" ({summary['trashed']} in the trash)" if summary["trashed"] else ""
    stdout().print(
        f"exported {summary['memories']} memories{trash}, {summary['links']} link(s), "
        f"{summary['episodes']} episode(s), {summary['events']} event(s) to {output}",
        soft_wrap=True,
        markup=False,
    )


STORE_COMPANIONS = ("-wal", "-shm", "-journal", ".vectors")
"""What SQLite and lethe keep beside a store file, by the end of its name."""


def _refuse_store_files(output: Path, db: str | None) -> None:
    """Refuse an export that would overwrite the store it reads: the database file under any
    spelling (a symlink, `..`, a hard link) or the files kept beside it (-wal, -shm, the
    vector snapshots), the target or the partial file written first."""
    store = store_file(db)
    if store is None:
        return
    store = store.resolve()
    for target in (output, output.with_name(output.name + ".partial")):
        resolved = target.resolve()
        same = resolved == store or (
            resolved.parent == store.parent
            and resolved.name.startswith(store.name)
            and resolved.name[len(store.name) :].startswith(STORE_COMPANIONS)
        )
        if not same:
            with suppress(OSError):
                same = store.exists() and target.exists() and os.path.samefile(target, store)
        if same:
            raise fail(
                f"{output} is the memory store being exported ({store}) or a file kept beside "
                "it; writing there would destroy it",
                hint="export to another file, e.g. --output memories.jsonl",
            )


def _read_records(source: str) -> list[dict[str, Any]]:
    from lethe.engine.transfer import read_jsonl

    try:
        if source == "-":
            return list(read_jsonl(iter(typer.get_text_stream("stdin"))))
        with open(source, encoding="utf-8") as handle:
            return list(read_jsonl(iter(handle)))
    except OSError as exc:
        raise fail(f"cannot read {source}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise fail(f"{source} is not UTF-8 text", hint="import reads JSON Lines") from None


@app.command(
    "import",
    help='Import JSON Lines as written by export (or lines of just {"content": …}): memories '
    "(forgotten ones back into the trash, with their earlier versions), links, episodes and "
    "audit events. Every line is checked first, so a bad line imports nothing.\n\n"
    "Ids already present, exact duplicates (the same text and fields already stored) and "
    "audit events already held are skipped and counted. Near-duplicates are imported, linked "
    "to the memory they nearly repeat (near_duplicate) and counted: similar is not same.\n\n"
    "With --from, import another memory's data instead: mcp-memory (the MCP memory server's "
    "memory.jsonl), mem0 (the JSON of mem0's get_all), markdown (a folder of notes), claude or "
    "chatgpt (the conversations.json of a Claude.ai or ChatGPT data export, or its zip: a "
    "memory per turn, each chat one conversation). A "
    "source with any malformed record is refused whole, each bad record named; the report "
    "says what could not be kept and why. See docs/migrate.md.",
)
def import_(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="A .jsonl file, or - for stdin; with --from, the source's file (a folder for "
            "markdown; conversations.json, its folder or the export's zip for claude and "
            "chatgpt).",
        ),
    ],
    from_: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="SOURCE",
            help="Read another memory's format: mcp-memory, mem0, markdown, claude or chatgpt.",
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="With --from: read and check the source, report what would be imported, "
            "write nothing.",
        ),
    ] = False,
    namespace: Annotated[
        str | None,
        typer.Option(
            "--namespace",
            "-n",
            help="With --from: store every memory in this namespace (by default mem0's "
            "user_id chooses it; the other sources use 'default').",
        ),
    ] = None,
    keep_duplicates: Annotated[
        bool,
        typer.Option(
            "--keep-duplicates",
            help="Import exact duplicates too instead of skipping them (near-duplicates are "
            "always imported).",
        ),
    ] = False,
    no_auto_link: Annotated[
        bool,
        typer.Option(
            "--no-auto-link",
            help="Do not link imported memories to their close neighbours; keep only the links "
            "the file names.",
        ),
    ] = False,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render

    if from_ is not None:
        from lethe.cli.importing import import_source

        import_source(
            from_,
            file,
            dry_run=dry_run,
            namespace=namespace,
            skip_duplicates=not keep_duplicates,
            auto_link=not no_auto_link,
            db=db,
            json_=json_,
            progress=_progress,
        )
        return
    if dry_run or namespace is not None:
        raise fail(
            "--dry-run and --namespace are for imports from another memory (--from); "
            "lethe's own export keeps each memory's namespace",
            hint="drop the option, or add --from mcp-memory|mem0|markdown|claude|chatgpt",
        )
    records = _read_records(file)
    total = sum(1 for r in records if r.get("type", "memory") == "memory")
    with open_lethe(db) as mem, _progress("importing", total) as advance:
        report = mem.import_records(
            records,
            progress=advance,
            skip_duplicates=not keep_duplicates,
            auto_link=not no_auto_link,
        )
    if json_:
        emit_json(report.model_dump(mode="json"))
        return
    stdout().print(render.import_line(report), soft_wrap=True, markup=False)


@app.command(
    help="A guided tour of forgetting on a throwaway database, in a few seconds: remember (a "
    "near-duplicate stored and linked), recall, link; a vague forget that deletes nothing where "
    "a cosine rule would delete four; forget by id with its plan; a protected memory refused; "
    "the trash, restore with links, purge and the audit trail that proves it.",
)
def demo(
    keep: Annotated[
        bool,
        typer.Option("--keep", help="Keep the demo database and workspace; print where."),
    ] = False,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="PATH|DSN",
            show_default=False,
            help="Run the tour on this file or postgresql:// database (new, or a lethe database "
            "with nothing in it) and keep it. $LETHE_DB is not read: the demo never lands in "
            "your own database.",
        ),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    from rich.console import Console

    from lethe.cli.demo import run_tour

    result = run_tour(Console(quiet=True) if json_ else stdout(), keep=keep, db=db)
    if json_:
        emit_json(result)
