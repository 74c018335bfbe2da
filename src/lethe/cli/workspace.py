"""`lethe workspace`: the markdown projection of the database."""

from typing import Annotated

import typer

from lethe.cli.app import DbOpt, JsonOpt, app, emit_json, open_lethe, stdout

workspace_app = typer.Typer(
    help="The markdown workspace (MEMORY.md, memory/YYYY-MM-DD.md): a projection of the "
    "database, written after every change.",
    no_args_is_help=True,
)
app.add_typer(workspace_app, name="workspace")


@workspace_app.command(
    "rebuild",
    help="Re-derive every workspace file from the database (all namespaces, or those given "
    "with --namespace). Safe at any time: the files are a projection. Needs "
    "LETHE_WORKSPACE_DIR (or workspace_dir in lethe.toml).",
)
def rebuild(
    namespace: Annotated[
        list[str] | None,
        typer.Option("--namespace", "-n", help="Only this namespace (repeatable)."),
    ] = None,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    with open_lethe(db) as mem:
        done = mem.rebuild_workspace(namespace or None)
        root = mem.workspace.root if mem.workspace else None
    if json_:
        emit_json({"workspace": str(root), "namespaces": done})
        return
    stdout().print(f"rebuilt {len(done)} namespace(s) in {root}: {', '.join(done) or '-'}")
