"""What the planner keeps of texts between calls, and how to let it go.

The readers under the planner cache what they read of a text (its words, its attributes,
whose debt it states), keyed by the text itself: a store's memories come back as candidates
for one request after another. A purge promises that nothing of an erased text is left, in
the files and in the process that erased it, so the engine empties these caches once a purge
has committed.

A reader running beside the purge, in another thread, may have read an erased memory before
the purge committed and cache what it read of it after the caches were emptied. So every
engine call that reads memories through these readers is marked (`reads_texts`): one that
saw a purge empty the caches while it ran empties them again as it ends.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, ParamSpec, TypeVar

_HOLDERS = ("lethe.planner.", "lethe.forget.")
"""The packages whose caches may hold a memory's text or what was read of it."""


def text_caches() -> Iterator[Any]:
    """Every `functools` cache of a loaded module of those packages."""
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(_HOLDERS):
            continue
        for value in list(vars(module).values()):
            cached = callable(getattr(value, "cache_clear", None)) and hasattr(value, "cache_info")
            if cached and getattr(value, "__module__", None) == name:
                yield value


_P = ParamSpec("_P")
_R = TypeVar("_R")
_lock = threading.Lock()
_purges = 0
"""How many purges have emptied the caches in this process."""


def forget_texts() -> None:
    """Empty every cache that may hold a text: called after a purge."""
    global _purges
    with _lock:
        _purges += 1
    _empty()


def reads_texts(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Marks an engine call that reads memories through the cached readers: when a purge
    emptied the caches while it ran, they are emptied again as it ends (what it read before
    the purge committed may have been cached after)."""

    @functools.wraps(fn)
    def guarded(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        start = _purges
        try:
            return fn(*args, **kwargs)
        finally:
            if _purges != start:
                _empty()

    return guarded


def _empty() -> None:
    for cache in text_caches():
        cache.cache_clear()
