"""lethe: long-term memory for LLM agents that forgets exactly what it is told to.

The public names are imported on first use (PEP 562), so a process that only needs part of
lethe — `lethe --help`, or an MCP server answering `initialize` before its engine has
loaded — does not pay for numpy and the engine up front. Importing lethe changes nothing in
the process: the installed entry points tune numpy's threads (`lethe.launch`).

The types of the plan -> confirm -> execute flow are here too, so a caller that plans a
forget or an update needs no deeper import, and so are the two values a caller may build
whole: a `Note` (what to remember) and a `Change` (what to change of a memory).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lethe.common.filters import Filters
    from lethe.engine import Lethe
    from lethe.errors import LetheError
    from lethe.forget.change import Change
    from lethe.model import Draft, Episode, EpisodeView, Event, Link, Memory, Note, RecallHit

__all__ = [
    "Change",
    "ChangeConfirmation",
    "Confirmation",
    "ConfirmationRequired",
    "ContentChanged",
    "Draft",
    "Episode",
    "EpisodeView",
    "Event",
    "Filters",
    "ForgetPlan",
    "ForgetResult",
    "InvalidInput",
    "Lethe",
    "LetheError",
    "Link",
    "Memory",
    "MemoryNotFound",
    "Note",
    "PlanItem",
    "RecallHit",
    "UpdatePlan",
]
__version__ = "0.1.0"

_HOMES = {
    "Lethe": "lethe.engine",
    **{
        name: "lethe.errors"
        for name in (
            "ConfirmationRequired",
            "ContentChanged",
            "InvalidInput",
            "LetheError",
            "MemoryNotFound",
        )
    },
    "ForgetPlan": "lethe.forget.plan",
    "PlanItem": "lethe.forget.plan",
    "UpdatePlan": "lethe.forget.change",
    "ChangeConfirmation": "lethe.forget.change",
    "Change": "lethe.forget.change",
    "Confirmation": "lethe.forget.results",
    "ForgetResult": "lethe.forget.results",
    "Filters": "lethe.common.filters",
    **{
        name: "lethe.model"
        for name in (
            "Draft",
            "Episode",
            "EpisodeView",
            "Event",
            "Link",
            "Memory",
            "Note",
            "RecallHit",
        )
    },
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'lethe' has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
