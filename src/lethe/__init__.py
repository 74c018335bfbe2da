"""lethe: long-term memory for LLM agents that forgets exactly what it is told to.

The public names are imported on first use (PEP 562), so a process that only needs part of
lethe — `lethe --help`, or an MCP server answering `initialize` before its engine has
loaded — does not pay for numpy and the engine up front.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lethe.engine import Lethe
    from lethe.errors import LetheError
    from lethe.filters import Filters
    from lethe.model import Draft, Episode, EpisodeView, Event, Link, Memory, RecallHit

__all__ = [
    "Draft",
    "Episode",
    "EpisodeView",
    "Event",
    "Filters",
    "Lethe",
    "LetheError",
    "Link",
    "Memory",
    "RecallHit",
]
__version__ = "0.1.0"

_HOMES = {
    "Lethe": "lethe.engine",
    "LetheError": "lethe.errors",
    "Filters": "lethe.filters",
    **{
        name: "lethe.model"
        for name in ("Draft", "Episode", "EpisodeView", "Event", "Link", "Memory", "RecallHit")
    },
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'lethe' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
