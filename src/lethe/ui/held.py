"""Plans shown on a page and waiting for the person's confirm.

The page carries only the plan's id; the plan itself stays here, so what executes is exactly
what was shown (a form cannot add targets to it). A plan is taken when it is confirmed or
cancelled, and the engine refuses one that has grown stale or expired.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

T = TypeVar("T")

MAX_HELD = 256


class Held(Generic[T]):
    def __init__(self, limit: int = MAX_HELD) -> None:
        self._plans: OrderedDict[str, T] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def keep(self, plan_id: str, plan: T) -> None:
        with self._lock:
            self._plans[plan_id] = plan
            while len(self._plans) > self._limit:  # an abandoned page gives way
                self._plans.popitem(last=False)

    def get(self, plan_id: str) -> T | None:
        with self._lock:
            return self._plans.get(plan_id)

    def take(self, plan_id: str) -> T | None:
        with self._lock:
            return self._plans.pop(plan_id, None)
