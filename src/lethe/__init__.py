"""lethe: long-term memory for LLM agents that forgets exactly what it is told to.

The public names are imported on first use (PEP 562), so a process that only needs part of
lethe — `lethe --help`, or an MCP server answering `initialize` before its engine has
loaded — does not pay for numpy and the engine up front.
"""

from __future__ import annotations

import os as _os
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

# OpenBLAS, under numpy, keeps its worker threads spinning for about 0.1 s after every matrix
# product. On a small machine those spinning threads take the cores that the next step needs:
# a recall right after its query embedding, the full-text query beside the vector search.
# With a short timeout they sleep at once (on 2 cores: query embedding 9.9 -> 7.2 ms, recall
# without it 12.9 -> 6.4 ms p50 at 100k, batch encoding 296 -> 407 texts/s). OpenBLAS reads
# the variable when numpy loads it, so this only applies where lethe is imported first (the
# `lethe` command, the MCP server); a value already set is kept. See docs/configuration.md.
_os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
# And it starts one thread per core: capped, like lethe's own pools, by the `threads` setting
# (LETHE_THREADS; unset, the cores at most 4), so no step of lethe runs more busy threads
# than that (lethe/threads.py). A value already set is kept. Like the timeout, it holds for
# the whole process where lethe is imported before numpy (a program embedding lethe that
# wants more BLAS threads sets the variable itself), and child processes inherit it.
if "OPENBLAS_NUM_THREADS" not in _os.environ:
    from lethe.threads import blas_threads as _blas_threads

    _os.environ["OPENBLAS_NUM_THREADS"] = str(_blas_threads())

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
