"""Reading the audit log: every state change, append-only, filtered and paged."""

from __future__ import annotations

from datetime import datetime

from lethe.common import validate
from lethe.engine.expiring import Expiry
from lethe.model import Event
from lethe.store.base import Store
from lethe.store.event_query import EventQuery


class Audit:
    """Reads the audit log."""

    def __init__(self, store: Store, expiry: Expiry) -> None:
        self.store = store
        self._expiry = expiry

    def audit(
        self,
        *,
        memory_id: str | None = None,
        op: str | None = None,
        namespace: str | None = None,
        actor: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        after_seq: int = 0,
        before_seq: int | None = None,
        newest_first: bool = False,
        limit: int = 100,
    ) -> list[Event]:
        """Audit events, oldest first (page on with `after_seq` = the last `seq` seen) or
        newest first (page back with `before_seq`); `since` is inclusive, `until` exclusive."""
        if memory_id is not None:
            validate.memory_id(memory_id)
        if op is not None:
            validate.label(op, "op")
        if namespace is not None:
            validate.namespace(namespace)
        if actor is not None:
            validate.label(actor, "actor")
        validate.offset(after_seq, "after_seq")
        if before_seq is not None:
            validate.offset(before_seq, "before_seq")
        if since is not None:
            validate.aware_time(since, "since")
        if until is not None:
            validate.aware_time(until, "until")
        limit = validate.positive_int(limit, "limit", maximum=10_000)
        self._expiry.expire_due()  # the record says what has happened by now
        return self.store.events(
            EventQuery(
                memory_id=memory_id,
                op=op,
                namespace=namespace,
                actor=actor,
                since=since,
                until=until,
                after_seq=after_seq,
                before_seq=before_seq,
                newest_first=newest_first,
                limit=limit,
            )
        )
