"""Imports from other memories: each reads one source format into memories to be, the
relations between them and what could not be kept. They parse; the engine validates and
writes (`Lethe.import_from`), so a source is refused whole before anything is stored.

- `mcp-memory`: the JSON Lines file of the MCP reference memory server (entities, relations)
- `mem0`: the JSON of mem0's `get_all`
- `markdown`: a folder of markdown notes
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from lethe.errors import InvalidInput
from lethe.importers import markdown, mcp_memory, mem0
from lethe.importers.parsed import (
    MAX_LISTED,
    Item,
    Note,
    Parsed,
    Relation,
    SourceRefused,
    SourceReport,
)

SOURCES = (mcp_memory.SOURCE, mem0.SOURCE, markdown.SOURCE)

__all__ = [
    "MAX_LISTED",
    "SOURCES",
    "Item",
    "Note",
    "Parsed",
    "Relation",
    "SourceRefused",
    "SourceReport",
    "read",
]


def read(source: str, path: Path, *, namespace: str | None, now: datetime) -> Parsed:
    """Every record of the source, parsed; nothing is validated against lethe's rules yet and
    nothing is written. `namespace` (already validated) puts every memory there."""
    if source == mcp_memory.SOURCE:
        return mcp_memory.read(path, namespace=namespace)
    if source == mem0.SOURCE:
        return mem0.read(path, namespace=namespace, now=now)
    if source == markdown.SOURCE:
        return markdown.read(path, namespace=namespace)
    raise InvalidInput(
        f"unknown source {source!r}",
        hint=f"import from one of: {', '.join(SOURCES)} (lethe's own export needs no source)",
    )
