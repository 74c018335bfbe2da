"""Commands for what forgetting leaves behind: the trash, restore, maintenance, the report."""

from datetime import datetime
from typing import Annotated

import typer

from lethe.cli.app import (
    DbOpt,
    JsonOpt,
    OffsetOpt,
    app,
    emit_items,
    emit_json,
    open_lethe,
    parse_moment,
    stdout,
)
from lethe.cli.forgetting import ActorOpt
from lethe.common.identifiers import DEFAULT_AGENT

AnyNamespaceOpt = Annotated[
    str | None,
    typer.Option("--namespace", "-n", help="Only this namespace (default: all of them)."),
]


@app.command(
    help="List forgotten memories, most recently forgotten first: who forgot them, why, and "
    "when maintenance will erase them (the retention window; 'never' when trash is kept).",
)
def trash(
    namespace: AnyNamespaceOpt = None,
    limit: Annotated[int, typer.Option(help="Page size (1-1000).")] = 50,
    offset: OffsetOpt = 0,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render

    with open_lethe(db, existing=True) as mem:
        items, total = mem.list_trash(namespace=namespace, limit=limit, offset=offset)
    if json_:
        emit_items(
            (item.model_dump(mode="json") for item in items),
            total=total,
            offset=offset,
            limit=limit,
        )
        return
    out = stdout()
    if not items:
        out.print(f"the trash is empty{'' if not total else f' past {offset} (of {total})'}")
        return
    out.print(render.trash_table(items))
    out.print(f"showing {offset + 1}–{offset + len(items)} of {total}")


@app.command(
    help="Bring a forgotten memory back from the trash, with its links, episode membership "
    "and workspace lines exactly as they were.",
)
def restore(
    memory_id: Annotated[
        str, typer.Argument(metavar="ID", help="Id of a memory in the trash (see lethe trash).")
    ],
    actor: ActorOpt = DEFAULT_AGENT,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from rich.text import Text

    with open_lethe(db) as mem:
        memory = mem.restore(memory_id, actor=actor)
    if json_:
        emit_json(memory.model_dump(mode="json"))
        return
    line = Text.assemble("restored ", (memory.id, "cyan"), ": ")
    line.append(memory.preview(60))
    stdout().print(line, soft_wrap=True)


@app.command(
    help="Housekeeping to run now and then (e.g. daily from cron): erase trash older than "
    "the retention window (LETHE_TRASH_RETENTION_DAYS, default 30) and expire stale "
    "confirmations. Both are recorded in the audit log.",
)
def maintain(db: DbOpt = None, json_: JsonOpt = False) -> None:
    from lethe.cli import render

    with open_lethe(db) as mem:
        report = mem.maintain()
    if json_:
        emit_json(report.model_dump(mode="json"))
        return
    stdout().print(render.maintenance_lines(report), soft_wrap=True)


@app.command(
    help="The deletion report: how many forgets, restores, purges, expiries and declined or "
    "expired confirmations, by operation, actor, namespace and day.",
)
def report(
    since: Annotated[
        datetime | None,
        typer.Option(
            "--since",
            metavar="SPAN|TIME",
            parser=parse_moment,
            help="Only events in the last SPAN (30d, 12h, 2w) or since an ISO-8601 TIME.",
        ),
    ] = None,
    namespace: AnyNamespaceOpt = None,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render

    with open_lethe(db, existing=True) as mem:
        deletions = mem.deletion_report(since=since, namespace=namespace)
    if json_:
        emit_json(deletions.model_dump(mode="json"))
        return
    stdout().print(render.report_view(deletions))
