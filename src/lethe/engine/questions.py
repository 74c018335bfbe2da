"""Deletions waiting for a human: questions put through the client (elicitation) and
two-call confirmations, listed with their expiry so a person can see what is in flight."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Literal

from lethe.common import validate
from lethe.config import Settings
from lethe.engine.base import Clock
from lethe.engine.forgetting import Forgetting
from lethe.forget import confirm
from lethe.forget.change import UpdatePlan
from lethe.forget.plan import ForgetPlan
from lethe.forget.results import PendingItem
from lethe.store.base import Store


class Questions:
    """Confirmations asked of the user (elicitation) and their answers."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        clock: Clock,
        forgetting: Forgetting,
    ) -> None:
        self.store = store
        self.settings = settings
        self._clock = clock
        self._forgetting = forgetting

    def ask(self, plan: ForgetPlan | UpdatePlan, *, session: str) -> None:
        """Record that the human behind `session` is being asked about this plan: a deletion's
        targets, or a change that weakens protection. The rows and their
        `confirmation_requested` events only inform (the inspector, the audit log);
        executing still needs the plan and the human's yes."""
        session = validate.label(session, "session")
        now = self._clock()
        ttl = timedelta(seconds=self.settings.confirm_ttl_seconds)
        key = confirm.asked(session)
        asked: list[tuple[str, str, str]]  # (memory id, namespace, what was shown)
        if isinstance(plan, UpdatePlan):
            operation: Literal["forget", "purge", "update"] = "update"
            asked = [(plan.memory_id, plan.namespace, plan.confirmation_sha256)]
        else:
            operation = plan.operation
            asked = [(i.id, i.namespace, i.content_sha256) for i in plan.targets]
        with self.store.transaction() as tx:
            held = tx.pending(key, operation, [memory_id for memory_id, _, _ in asked])
            for memory_id, namespace, shown in asked:
                pending = confirm.record(
                    held.get(memory_id),
                    memory_id,
                    shown,
                    session=key,
                    operation=operation,
                    now=now,
                    ttl=ttl,
                    restart=True,
                )
                tx.put_pending(pending)
                self._forgetting.requested_event(
                    tx, pending, namespace, plan.actor, "elicitation", now
                )

    def answered(
        self,
        *,
        session: str,
        operation: Literal["forget", "purge", "update"],
        memory_ids: Sequence[str],
    ) -> None:
        """The human answered (yes or no): the question is no longer pending."""
        key = confirm.asked(validate.label(session, "session"))
        ids = self._forgetting.checked_ids(memory_ids)
        with self.store.transaction() as tx:
            for memory_id in ids:
                tx.drop_pending(key, operation, memory_id)

    def pending_confirmations(self, *, namespace: str | None = None) -> list[PendingItem]:
        """Every deletion awaiting a human, oldest request first. Rows past their expiry
        are listed (as expired) until maintenance records and drops them."""
        ns = validate.namespace(namespace) if namespace else None
        rows = self.store.pending_all()
        memories = self.store.get_many([p.memory_id for p in rows], active_only=False)
        now = self._clock()
        out: list[PendingItem] = []
        for p in rows:
            memory = memories.get(p.memory_id)
            if ns is not None and (memory is None or memory.namespace != ns):
                continue
            kind, session = confirm.via(p.session)
            out.append(
                PendingItem(
                    via=kind,
                    session=session,
                    memory_id=p.memory_id,
                    namespace=memory.namespace if memory else None,
                    preview=memory.preview() if memory else None,
                    operation=p.operation,
                    first_requested_at=p.first_requested_at,
                    request_count=p.request_count,
                    expires_at=p.expires_at,
                    expired=p.expires_at <= now,
                )
            )
        return out
