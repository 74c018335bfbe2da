"""The two-call rule (seed 000) for a change that weakens protection: the same change asked
twice by one session within the time-to-live is the confirmation, as for a forget."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from lethe.common import validate
from lethe.engine.versions import VersionOps
from lethe.errors import InvalidInput
from lethe.forget import confirm
from lethe.forget.change import ChangeConfirmation, UpdatePlan
from lethe.model import Memory, Pending
from lethe.store.base import StoreTx


class ChangeConfirmOps(VersionOps):
    def confirm_change(self, plan: UpdatePlan, *, session: str) -> ChangeConfirmation:
        """Seed 000's rule applied to a protected change: the first call records a pending
        confirmation and returns the preview; the same change (same memory state, same new
        values) asked again by the same session within the time-to-live executes it."""
        session = validate.label(session, "session")
        if not isinstance(plan, UpdatePlan):
            raise InvalidInput("confirm_change needs the UpdatePlan of plan_update/plan_revert")
        plan = self._rederived(
            plan, self._live_for_change(plan.memory_id, plan.namespace, "change")
        )
        ttl = timedelta(seconds=self.settings.confirm_ttl_seconds)
        if not plan.needs_confirmation:
            memory = self._execute_change(plan)
            return self._confirmation("executed", session, plan, memory, False, ttl)
        now = self._clock()
        execute = False
        changed = False
        with self.store.transaction() as tx:
            held = tx.pending(session, "update", [plan.memory_id]).get(plan.memory_id)
            decision = confirm.decide(held, plan.confirmation_sha256, now)
            if decision == "execute":
                tx.drop_pending(session, "update", plan.memory_id)
                execute = True
            else:
                if decision == "expired" and held is not None:
                    self._expired_change(tx, held, plan, now)
                changed = decision == "changed"
                pending = confirm.record(
                    held,
                    plan.memory_id,
                    plan.confirmation_sha256,
                    session=session,
                    operation="update",
                    now=now,
                    ttl=ttl,
                    restart=decision != "first",
                )
                tx.put_pending(pending)
                tx.append_event(
                    op="confirmation_requested",
                    actor=plan.actor,
                    at=now,
                    memory_id=plan.memory_id,
                    namespace=plan.namespace,
                    details={
                        "operation": "update",
                        "via": "two_call",
                        "session": session,
                        "requests": pending.request_count,
                        "expires_at": pending.expires_at.isoformat(),
                        "fields": sorted(plan.changes),
                        "lost": list(plan.lost),
                    },
                    content_sha256=plan.confirmation_sha256,
                )
        if execute:
            memory = self._execute_change(plan, confirmed_via="two_call", hold_expiry=True)
            return self._confirmation("executed", session, plan, memory, False, ttl)
        current = self.get(plan.memory_id, namespace=plan.namespace)
        return self._confirmation("pending", session, plan, current, changed, ttl)

    def _expired_change(self, tx: StoreTx, held: Pending, plan: UpdatePlan, now: datetime) -> None:
        tx.append_event(
            op="confirmation_expired",
            actor=held.session,
            at=now,
            memory_id=plan.memory_id,
            namespace=plan.namespace,
            details={"operation": "update", "requests": held.request_count},
            content_sha256=held.content_sha256,
        )

    def _confirmation(
        self,
        status: Literal["executed", "pending"],
        session: str,
        plan: UpdatePlan,
        memory: Memory,
        changed: bool,
        ttl: timedelta,
    ) -> ChangeConfirmation:
        seconds = int(ttl.total_seconds())
        if status == "executed":
            message = f"Updated {plan.memory_id} (now version {memory.version})."
        else:
            again = " (a different change than this session asked before)" if changed else ""
            message = (
                f"Please confirm: {plan.notes}{again} Ask the same change again within "
                f"{seconds} s to confirm."
            )
        return ChangeConfirmation(
            status=status,
            session=session,
            plan=plan,
            memory=memory,
            changed_since_preview=changed,
            expires_in_seconds=seconds,
            message=message,
        )
