"""The `lethe` command line: a thin typer + rich face over `lethe.engine.Lethe`.

Commands parse their options, call one engine method and format what comes back; every rule
about what may be stored, found or linked lives in the engine.
"""

from lethe.cli import memories, records, relations
from lethe.cli.app import app, main

__all__ = ["app", "main", "memories", "records", "relations"]
