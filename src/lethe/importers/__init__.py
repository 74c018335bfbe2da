"""Imports from other memories: each reads one source format into memories to be, the
relations between them and what could not be kept. They parse; the engine validates and
writes (`Lethe.import_from`), so a source is refused whole before anything is stored.

- `mcp-memory`: the JSON Lines file of the MCP reference memory server (entities, relations)
- `mem0`: the JSON of mem0's `get_all`
- `markdown`: a folder of markdown notes
- `claude`: Claude.ai's data export (`conversations.json`, or its zip)
- `chatgpt`: ChatGPT's data export (`conversations.json`, or its zip)
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from lethe.errors import InvalidInput
from lethe.importers import chatgpt, claude, markdown, mcp_memory, mem0
from lethe.importers.parsed import (
    MAX_LISTED,
    Item,
    Note,
    Parsed,
    Relation,
    SourceRefused,
    SourceReport,
)

DEFAULT_MAX_BYTES = 32 * 1024

SOURCES = (mcp_memory.SOURCE, mem0.SOURCE, markdown.SOURCE, claude.SOURCE, chatgpt.SOURCE)

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


def read(
    source: str,
    path: Path,
    *,
    namespace: str | None,
    now: datetime,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Parsed:
    """Every record of the source, parsed; nothing is validated against lethe's rules yet and
    nothing is written. `namespace` (already validated) puts every memory there. `max_bytes`
    is the store's content limit: a chat turn longer than that is split into parts, since a
    long answer is no malformed record."""
    if source == mcp_memory.SOURCE:
        return mcp_memory.read(path, namespace=namespace)
    if source == mem0.SOURCE:
        return mem0.read(path, namespace=namespace, now=now)
    if source == markdown.SOURCE:
        return markdown.read(path, namespace=namespace)
    if source == claude.SOURCE:
        return claude.read(path, namespace=namespace, max_bytes=max_bytes)
    if source == chatgpt.SOURCE:
        return chatgpt.read(path, namespace=namespace, max_bytes=max_bytes)
    raise InvalidInput(
        f"unknown source {source!r}",
        hint=f"import from one of: {', '.join(SOURCES)} (lethe's own export needs no source)",
    )
