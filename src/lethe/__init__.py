"""lethe: long-term memory for LLM agents that forgets exactly what it is told to."""

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
