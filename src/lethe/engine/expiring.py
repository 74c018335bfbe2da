"""Expiry chosen by the person: a memory that ends when its owner said it should.

A memory stored with an expiry leaves every read at that instant, whether or not anything
ran in between: each read first turns the memories that are due into soft deletes (one
indexed lookup when none is), and so do every open and `maintain`. The soft delete is the
one a forget makes — restorable until purged — audited as `expire` with who set the expiry,
when, and the expiry itself.

The trash's retention counts from the moment the memory reaches the trash, not from its
expiry: an expiry noticed late (nothing ran for weeks), a revert to a version whose expiry has
passed, or an expiry plan confirmed after its time would otherwise arrive in the trash with
its window already spent, and the next `maintain` would erase it for good with no purge
planned, no receipt and no restore.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from lethe.engine.base import Core
from lethe.model import Memory
from lethe.store.base import StoreTx

BATCH = 500
"""Due memories turned into soft deletes per transaction."""


class Expiry:
    """Turns the memories whose expiry has come into soft deletes."""

    def __init__(self, core: Core) -> None:
        self._core = core
        self.store = core.store
        self._clock = core.clock

    def expire_due(self) -> list[str]:
        """Turn every memory whose expiry has come into a soft delete; the ids, earliest
        first. Reads call it themselves: a caller need not."""
        done: list[str] = []
        while True:
            now = self._clock()
            if not self.store.due_expiries(now, limit=1):
                return done
            with self.store.transaction() as tx:
                due = tx.store.due_expiries(now, limit=BATCH)
                for memory in due:
                    self._expire(tx, memory, now)
                owed = self._core.owe(tx, due)
            self._core.project(due, owed)
            done += [m.id for m in due]

    def _expire(self, tx: StoreTx, memory: Memory, now: datetime) -> None:
        assert memory.expires_at is not None
        when = memory.expires_at.isoformat()
        by = memory.expiry_set_by or memory.agent
        tx.set_forgotten(memory.id, at=now, actor=by, reason=f"expired at {when}")
        details: dict[str, Any] = {"expires_at": when, "set_by": by}
        if memory.expiry_set_at is not None:
            details["set_at"] = memory.expiry_set_at.isoformat()
        tx.append_event(
            op="expire",
            actor=by,
            at=now,
            memory_id=memory.id,
            namespace=memory.namespace,
            reason=f"expired at {when}",
            details=details,
            content_sha256=memory.content_sha256,
        )
