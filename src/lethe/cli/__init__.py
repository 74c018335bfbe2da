"""The `lethe` command line: a thin typer + rich face over `lethe.engine.Lethe`.

Commands parse their options, call one engine method and format what comes back; every rule
about what may be stored, found, linked or forgotten lives in the engine. The modules register
their commands on import, in the order `lethe --help` lists them.

`lethe --help` answers in about the time typer takes to load (bench/bench_cli_start.py), so
the command modules load nothing a listing does not need: their renderers (rich), the
records (pydantic) and the engine (numpy) are imported inside the commands that use them;
they hold no `from __future__ import annotations`, whose string annotations typer would
compile one by one; and the help is click's plain text, which rich's rendering would take
twice as long to draw (tests/cli/test_app.py holds the first).
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
