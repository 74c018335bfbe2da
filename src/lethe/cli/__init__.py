"""The `lethe` command line: a thin typer + rich face over `lethe.engine.Lethe`.

Commands parse their options, call one engine method and format what comes back; every rule
about what may be stored, found, linked or forgotten lives in the engine. The modules register
their commands on import, in the order `lethe --help` lists them.
"""

from lethe.cli import memories, versions, relations, forgetting, trash, receipts, decay  # noqa: I001
from lethe.cli import records, serve, inspector, workspace, model, reembed, setup
from lethe.cli.app import app, main

__all__ = [
    "app",
    "decay",
    "forgetting",
    "inspector",
    "main",
    "memories",
    "model",
    "receipts",
    "records",
    "reembed",
    "relations",
    "serve",
    "setup",
    "trash",
    "versions",
    "workspace",
]
