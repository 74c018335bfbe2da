"""What the planner keeps of texts between calls, and how to let it go.

The readers under the planner cache what they read of a text (its words, its attributes,
whose debt it states), keyed by the text itself: a store's memories come back as candidates
for one request after another. A purge promises that nothing of an erased text is left, in
the files and in the process that erased it, so the engine empties these caches once a purge
has committed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

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


def forget_texts() -> None:
    """Empty every cache that may hold a text: called after a purge."""
    for cache in text_caches():
        cache.cache_clear()
