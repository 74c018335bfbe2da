"""`lethe reembed`: move a store to another embedding model."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated

import typer

from lethe.cli.app import DbOpt, JsonOpt, app, emit_json, stderr, stdout


@contextmanager
def _bar(show: bool) -> Iterator[Callable[[int, int], None]]:
    """`report(staged, total)`, drawn on stderr only when it is a terminal (so --json and
    pipes never carry control codes)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    err = stderr()
    if not (show and err.is_terminal):
        yield lambda _done, _total: None
        return
    with Progress(
        TextColumn("embedding"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err,
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    ) as bar:
        task = bar.add_task("embedding", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


@app.command(
    "reembed",
    help="Move the store to another embedding model: every memory, and every earlier state "
    "that holds a vector, is embedded again with --to, in batches that are committed as they "
    "go (stop it or lose the connection, and running the same command again continues where "
    "it stopped), then all vectors, the model and the dimension are switched in one "
    "transaction. Until the switch the store keeps working with its old model; contents, ids, "
    "versions and history are never changed. The model is fetched on first use like the "
    "default one. Afterwards set LETHE_EMBEDDER (or `embedder` in lethe.toml) to the new "
    "model, and restart any server (lethe mcp, lethe inspect) that has the store open. "
    "--to the store's own model cancels a reembed under way. Models: see docs/configuration.md.",
)
def reembed(
    to: Annotated[
        str,
        typer.Option(
            "--to",
            metavar="MODEL",
            help="The model to move to, e.g. paraphrase-multilingual-MiniLM-L12-v2 "
            "(the full sentence-transformers/… name works too).",
        ),
    ],
    batch_size: Annotated[
        int, typer.Option("--batch-size", min=1, max=4096, help="Texts embedded per commit.")
    ] = 64,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.engine import reembed as move

    with _bar(not json_) as report:
        try:
            result = move(db, to=to, batch_size=batch_size, progress=report, actor="cli")
        except KeyboardInterrupt:
            stderr().print(
                "stopped: the vectors embedded so far are kept; run the same command again to "
                "continue (the store still uses its old model)"
            )
            raise typer.Exit(130) from None
    if json_:
        emit_json(
            {
                "db": result.db,
                "status": result.status,
                "from": result.model_before,
                "model": result.model,
                "dim": result.dim,
                "resumed": result.resumed,
                "embedded": result.embedded,
                "memories": result.memories,
                "versions": result.versions,
                "conversations": result.conversations,
            }
        )
        return
    out = stdout()
    if result.status == "already":
        out.print(f"the store already uses {result.model}; nothing to do")
    elif result.status == "cancelled":
        out.print(f"cancelled the reembed under way; the store stays on {result.model}")
    else:
        resumed = f", {result.resumed} kept from an earlier run" if result.resumed else ""
        out.print(
            f"moved to {result.model} ({result.dim}-d): {result.memories} memories and "
            f"{result.versions} earlier states re-embedded{resumed}"
        )
        out.print(f"now set LETHE_EMBEDDER={result.model} (or `embedder` in lethe.toml)")
