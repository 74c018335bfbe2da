"""Helpers the importers' tests share: what a store holds after an import, and the CLI run
against a store file."""

from __future__ import annotations

from typer.testing import CliRunner, Result

from lethe import Lethe
from lethe.cli import app
from lethe.common.filters import Filters
from lethe.model import Memory

runner = CliRunner()


def everything(mem: Lethe) -> list[Memory]:
    """Every live memory of every namespace, oldest first."""
    return sorted(
        (
            m
            for namespace in mem.namespaces()
            for m in mem.list_memories(Filters(namespace=namespace), limit=1000).items
        ),
        key=lambda m: (m.created_at, m.content),
    )


def by_content(mem: Lethe) -> dict[str, Memory]:
    return {m.content: m for m in everything(mem)}


def run(db: str, *args: str) -> Result:
    """`lethe ARGS --db DB` in this process."""
    return runner.invoke(app, [*args, "--db", str(db)])
