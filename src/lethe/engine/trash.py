"""After forgetting: the trash, restore, retention maintenance and the deletion report."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from lethe.common import validate
from lethe.common.identifiers import DEFAULT_AGENT
from lethe.engine.base import MAX_PAGE, Core
from lethe.engine.expiring import Expiry
from lethe.engine.forgetting import Forgetting
from lethe.engine.owed import OwedWork
from lethe.engine.past import Past
from lethe.engine.purged import text_hashes
from lethe.errors import InvalidInput, MemoryNotFound
from lethe.forget.results import DeletionReport, MaintenanceReport, ReportRow, TrashItem
from lethe.model import Memory

DELETION_OPS = ("forget", "restore", "purge", "expire", "forget_declined", "confirmation_expired")


class Trash:
    """The trash: restore, list, and `maintain` (erase what has stayed past retention)."""

    def __init__(
        self,
        core: Core,
        expiry: Expiry,
        past: Past,
        forgetting: Forgetting,
        owed: OwedWork,
    ) -> None:
        self._core = core
        self.store = core.store
        self.settings = core.settings
        self._clock = core.clock
        self._expiry = expiry
        self._past = past
        self._forgetting = forgetting
        self._owed = owed

    # -- trash, restore, maintenance, reports --------------------------------------------

    def restore(
        self,
        memory_id: str,
        *,
        actor: str = DEFAULT_AGENT,
        namespace: str | None = None,
        drop_held_expiry: bool = True,
    ) -> Memory:
        """Bring a forgotten memory back with its links, episodes and workspace lines. An
        expiry that has passed is removed (kept, it would send the memory back at once); when
        that expiry is held (the person's), removing it is loosening it, so a caller acting
        for an agent passes `drop_held_expiry=False` and such a memory stays in the trash."""
        validate.memory_id(memory_id)
        self._expiry.expire_due()
        memory = self.store.get(memory_id)
        if memory is not None and namespace is not None and memory.namespace != namespace:
            memory = None
        if memory is None or memory.status != "forgotten":
            state = "is not in the trash" if memory else "does not exist (or was purged)"
            raise MemoryNotFound(
                f"Memory {memory_id} {state}", hint="list the trash to see what can be restored"
            )
        now = self._clock()
        passed = memory.expires_at if memory.expires_at and memory.expires_at <= now else None
        if passed and memory.expiry_held and not drop_held_expiry:
            raise InvalidInput(
                f"{memory_id} ended at an expiry a person set or confirmed "
                f"({passed.isoformat()}): restoring it "
                "removes that expiry, which is confirmed like a forget; it stays in the trash",
                hint="the person can restore it (lethe restore, the inspector), or a client "
                "holding the forget role",
            )
        with self.store.transaction() as tx:
            if not tx.set_restored(memory_id):
                raise MemoryNotFound(f"Memory {memory_id} is not in the trash")
            details: dict[str, Any] = {
                "forgotten_at": memory.forgotten_at,
                "forgotten_by": memory.forgotten_by,
            }
            if passed:  # kept, it would send the memory back at once
                tx.set_expiry(memory_id, None, by=None, at=None)
                details["expiry_removed"] = passed.isoformat()
            tx.append_event(
                op="restore",
                actor=validate.label(actor, "actor"),
                at=now,
                memory_id=memory_id,
                namespace=memory.namespace,
                details=details,
                content_sha256=memory.content_sha256,
            )
            # Read inside the change: once it commits another process may forget the memory
            # again, and this restore must still report what it did, not "not found".
            restored = tx.store.get(memory_id)
            owed = self._core.owe(tx, [memory])
        if restored is None:  # cannot happen: set_restored has just changed the row
            raise MemoryNotFound(f"Memory {memory_id} is not in the trash")
        self._core.project([restored], owed)
        return restored

    def list_trash(
        self, *, namespace: str | None = None, limit: int = 50, offset: int = 0
    ) -> tuple[list[TrashItem], int]:
        limit = validate.positive_int(limit, "limit", maximum=MAX_PAGE)
        validate.offset(offset, "offset")
        ns = validate.namespace(namespace) if namespace else None
        self._expiry.expire_due()
        memories, total = self.store.trash(ns, limit=limit, offset=offset)
        days = self.settings.trash_retention_days
        items = [
            TrashItem(
                memory=m,
                purge_after=None
                if days is None or m.forgotten_at is None
                else (m.forgotten_at + timedelta(days=days)).isoformat(),
            )
            for m in memories
        ]
        return items, total

    def maintain(self) -> MaintenanceReport:
        """Erase trash older than the retention window and expire stale confirmations; both
        are recorded (`purge` with `retention_days`, `confirmation_expired`); and turn the
        memories whose own expiry has come into soft deletes (`expire`); give earlier states
        that have none their vector (`Past`)."""
        expiries = self._expiry.expire_due()
        now = self._clock()
        days = self.settings.trash_retention_days
        expired = (
            []
            if days is None
            else self._forgetting.all_trash(namespace=None, before=now - timedelta(days=days))
        )
        with self.store.transaction() as tx:
            stale = tx.drop_expired_pending(now)
            for pending in stale:
                self._forgetting.expired_event(tx, pending, now)
            for memory in expired:
                hashes = text_hashes(tx.store, memory)
                tx.erase(memory.id)
                tx.append_event(
                    op="purge",
                    actor="lethe",
                    at=now,
                    memory_id=memory.id,
                    namespace=memory.namespace,
                    details={"retention_days": days, "text_sha256": hashes},
                    content_sha256=memory.content_sha256,
                )
            owed = self._core.owe(tx, erased=bool(expired))
        self._core.project([], owed, erased=bool(expired))
        self._owed.settle_owed()
        return MaintenanceReport(
            expired=tuple(m.id for m in expired),
            expired_confirmations=len(stale),
            expiries=tuple(expiries),
            versions_embedded=self._past.embed_earlier(),
        )

    def deletion_report(
        self, *, since: datetime | None = None, namespace: str | None = None
    ) -> DeletionReport:
        """Counts of forgets, restores, purges, expiries and declined/expired confirmations
        by op, actor, namespace and day (seed 004's deletion report)."""
        ns = validate.namespace(namespace) if namespace else None
        rows = [
            ReportRow(day=d, op=o, actor=a, namespace=n, count=c)
            for d, o, a, n, c in self.store.event_counts(DELETION_OPS, since=since, namespace=ns)
        ]

        def total(key: str) -> dict[str, int]:
            out: dict[str, int] = {}
            for row in rows:
                out[getattr(row, key)] = out.get(getattr(row, key), 0) + row.count
            return out

        return DeletionReport(
            rows=tuple(rows),
            by_op=total("op"),
            by_actor=total("actor"),
            by_namespace=total("namespace"),
            by_day=total("day"),
        )
