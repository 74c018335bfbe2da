"""`lethe setup CLIENT` and `lethe doctor`: getting lethe into an MCP client, and checking
that it can work there. The rules (where clients keep their configuration, how it is edited,
what is checked) live in `lethe.cli.clients` and `lethe.cli.doctor`."""

import json
import os
import shlex
from pathlib import Path
from typing import Annotated, Any

import typer

from lethe.cli import clients
from lethe.cli.app import DbOpt, JsonOpt, app, emit_json, fail, stdout

_ACTIONS = {"add": "added", "update": "updated", "unchanged": "already configured"}


@app.command(
    help="Add lethe to an MCP client's configuration, or bring its entry up to date: "
    f"{', '.join(clients.CLIENTS)}. The entry starts this installation's `lethe mcp` by its "
    "absolute path; the file is backed up first, other servers and settings are kept as they "
    "are, and running it again changes nothing. --print shows the entry for any other client.",
)
def setup(
    client: Annotated[
        str | None,
        typer.Argument(
            metavar="CLIENT",
            help=f"{', '.join(clients.CLIENTS)} (any name with --print).",
            show_default=False,
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="PATH|DSN",
            show_default=False,
            help="Store the server opens, written into the entry (a path is made absolute). "
            "Default: none written, so the server uses $LETHE_DB as the client sets it, "
            "lethe.toml, or ~/.local/share/lethe/lethe.db. The shell's LETHE_DB is not read.",
        ),
    ] = None,
    name: Annotated[
        str, typer.Option("--name", help="Server name in the client's configuration.")
    ] = clients.DEFAULT_SERVER_NAME,
    env: Annotated[
        list[str] | None,
        typer.Option(
            "--env",
            "-e",
            metavar="KEY=VALUE",
            help="A LETHE_* setting for the server, written to the entry's env (repeatable; "
            "paths are made absolute).",
        ),
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config",
            metavar="FILE",
            help="The client's configuration file. Default: where CLIENT keeps it on this "
            "system (see docs/mcp.md).",
        ),
    ] = None,
    print_: Annotated[
        bool,
        typer.Option("--print", help="Print the entry as JSON for any client; write nothing."),
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would change; write nothing.")
    ] = False,
    json_: JsonOpt = False,
) -> None:
    known = client if client in clients.CLIENTS else None
    if client is None and not print_:
        raise fail(
            f"name the client to set up: {', '.join(clients.CLIENTS)}",
            hint="or --print to see the entry for any other client",
        )
    if client is not None and known is None and not print_:
        clients.client(client)  # raises, naming the clients it knows
    clients.check_name(name)
    settings = clients.parse_env(env or ())
    entry = clients.server_entry(db=db, env=settings, for_client=known)
    notes = _notes(entry, db, settings)
    if print_:
        emit_json({clients.SERVERS_KEY: {name: entry}})
        return
    assert known is not None
    info = clients.client(known)
    path = config or clients.config_path(known)
    plan = clients.plan_setup(path, name, entry)
    if plan.also_lethe:
        notes.append(
            f"{', '.join(repr(n) for n in plan.also_lethe)} in the same file also start lethe"
        )
    backup = None if dry_run else clients.apply_setup(plan)
    written = plan.changes and not dry_run
    if json_:
        emit_json(
            {
                "client": known,
                "file": str(plan.path),
                "server": name,
                "action": plan.action,
                "written": written,
                "dry_run": dry_run,
                "created_file": plan.creates_file and written,
                "backup": str(backup) if backup else None,
                "before": plan.before,
                "after": plan.after,
                "notes": notes,
            }
        )
        return
    _say_setup(info, plan, backup, dry_run, notes)


def _notes(entry: dict[str, Any], db: str | None, settings: dict[str, str]) -> list[str]:
    notes = []
    shell_db = os.environ.get("LETHE_DB")
    if db is None and "LETHE_DB" not in settings and shell_db:
        notes.append(
            f"LETHE_DB is set in this shell ({shell_db}) but the client does not see it: "
            "pass --db to serve that store"
        )
    if clients.transient_install([entry["command"]]):
        notes.append(
            f"{entry['command']} is in a temporary environment (uvx): install lethe for good "
            "(uv tool install lethe-mcp, pipx install lethe-mcp) and run setup from there, or "
            'write the entry {"command": "uvx", "args": ["lethe-mcp"]} by hand'
            " (see docs/mcp.md)"
        )
    return notes


def _line(entry: Any) -> str:
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return json.dumps(entry, ensure_ascii=False)
    args = entry.get("args")
    args = args if isinstance(args, list) else []
    line = shlex.join([entry["command"], *(str(a) for a in args)])
    env = entry.get("env")
    if isinstance(env, dict) and env:
        line += "  (env " + " ".join(f"{k}={v}" for k, v in env.items()) + ")"
    return line


def _say_setup(
    info: clients.Client,
    plan: clients.SetupPlan,
    backup: Path | None,
    dry_run: bool,
    notes: list[str],
) -> None:
    from rich.text import Text

    out = stdout()

    def say(text: str, style: str = "") -> None:
        out.print(Text(text, style=style), soft_wrap=True)

    say(f"{info.title}: {plan.path}", "bold")
    if plan.action == "unchanged":
        say(f"server '{plan.name}' is already configured: nothing written", "green")
        say(f"  {_line(plan.after)}")
    else:
        verb = {"add": "add", "update": "update"}[plan.action]
        done = _ACTIONS[plan.action]
        say(f"would {verb} server '{plan.name}'" if dry_run else f"{done} server '{plan.name}'")
        if plan.action == "update":
            say(f"  was: {_line(plan.before)}")
            say(f"  now: {_line(plan.after)}")
        else:
            say(f"  {_line(plan.after)}")
        if dry_run:
            say("dry run: nothing written", "yellow")
        elif backup is not None:
            say(f"backup: {backup}")
        else:
            say("new file: nothing to back up")
    for note in notes:
        say(f"note: {note}", "yellow")
    if plan.changes and not dry_run:
        say(f"next: {info.after}")


@app.command(
    help="Check that lethe can work here: version, settings, embedding model, store (path or "
    "DSN, schema version), PostgreSQL reachability, workspace, and the MCP clients set up to "
    "run it. Changes nothing. Exit status 1 when something lethe needs is broken.",
)
def doctor(db: DbOpt = None, json_: JsonOpt = False) -> None:
    from lethe.cli.doctor import diagnose

    report = diagnose(db)
    if json_:
        emit_json(report.as_dict())
    else:
        _say_report(report)
    if not report.healthy:
        raise typer.Exit(1)


_STYLES = {"ok": "green", "note": "cyan", "warn": "yellow", "fail": "bold red", "skip": "dim"}


def _say_report(report: Any) -> None:
    from rich.text import Text

    out = stdout()
    width = max(len(c.name) for c in report.checks)
    for check in report.checks:
        line = Text()
        line.append(f"{check.status:<5}", style=_STYLES[check.status])
        line.append(f" {check.name:<{width}}  ")
        line.append(check.summary)
        out.print(line, soft_wrap=True)
        if check.hint and check.status != "ok":
            out.print(Text(f"{'':<{width + 7}}→ {check.hint}", style="dim"), soft_wrap=True)
    failed = [c.name for c in report.checks if c.status == "fail"]
    if failed:
        out.print(Text(f"broken: {', '.join(failed)}", style="bold red"), soft_wrap=True)
    else:
        out.print(Text("lethe can work here", style="green"), soft_wrap=True)
