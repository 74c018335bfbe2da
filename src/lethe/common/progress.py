"""How long work reports how far it got, without the core knowing who draws the bar.

A face passes a `ProgressBar`: called with a label and the number of steps, it gives the
context in which `advance(n)` may be called. The CLI draws one on a terminal; the library
default draws nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

Advance = Callable[[int], None]
ProgressBar = Callable[[str, int], AbstractContextManager[Advance]]


@contextmanager
def no_progress(_label: str, _total: int) -> Iterator[Advance]:
    yield lambda _n: None
