"""The two-call rule (seed 000, its decision in `lethe.forget.confirm`) applied in the store:
a deletion (`TwoCall`) or a change that weakens protection (`ChangeConfirm`) asked for twice
by the same session within the time-to-live executes; the first call previews it and records
a pending confirmation. And the human's "no", recorded."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Literal

from lethe.common import validate
from lethe.common.identifiers import DEFAULT_NAMESPACE
from lethe.config import Settings
from lethe.engine.base import Clock, Core
from lethe.engine.forgetting import Forgetting
from lethe.engine.past import Past
from lethe.engine.proof import Proof
from lethe.engine.versions import Versions
from lethe.erasure.record import Erasing
from lethe.errors import InvalidInput
from lethe.forget import confirm
from lethe.forget.change import ChangeConfirmation, UpdatePlan
from lethe.forget.messages import (
    confirmation_message,
    confirmation_status,
    derived_notes,
    proof_note,
    proven,
    result_notes,
)
from lethe.forget.plan import Operation, PlanItem, PlanSource
from lethe.forget.results import Confirmation, ForgetResult
from lethe.model import Memory, Pending
from lethe.store.base import Store, StoreTx


class TwoCall:
    """Forgetting confirmed in two calls (`forget`, `decline`)."""

    def __init__(self, core: Core, forgetting: Forgetting, proof: Proof) -> None:
        self._core = core
        self.store = core.store
        self.settings = core.settings
        self._clock = core.clock
        self._forgetting = forgetting
        self._proof = proof

    def forget(
        self,
        memory_ids: Sequence[str] | str,
        *,
        session: str,
        namespace: str = DEFAULT_NAMESPACE,
        actor: str | None = None,
        reason: str | None = None,
        operation: Operation = "forget",
        expected_sha256: str | None = None,
    ) -> Confirmation:
        """Seed 000's conversational confirmation: the first call for an id previews it and
        records a pending confirmation; the same id again from the same session within the
        time-to-live executes it. Each id is tracked separately. `expected_sha256` (with one
        id): the content hash the caller last saw, checked at planning (`ContentChanged`) and
        again in the transaction that deletes."""
        session = validate.label(session, "session")
        namespace = validate.namespace(namespace)
        ids = self._forgetting.checked_ids(memory_ids)
        if not ids:
            raise InvalidInput("give at least one memory id", hint="find ids with recall first")
        expected = self._forgetting.precondition(ids, expected_sha256)
        who = validate.label(actor, "actor") if actor else session
        source = PlanSource(
            memory_ids=ids,
            namespace=namespace if operation == "purge" else None,
            expected_sha256=expected,
        )
        plan = self._forgetting.make_plan(operation, source, namespace, actor=who, reason=reason)
        now = self._clock()
        ttl = timedelta(seconds=self.settings.confirm_ttl_seconds)
        confirmed: list[PlanItem] = []
        requests: dict[str, int] = {}
        awaiting: list[PlanItem] = []
        changed: list[str] = []
        erasing = (
            Erasing(who, "two_call", plan.id, confirm.via(session)[1])
            if operation == "purge"
            else None
        )
        key = self._proof.signing_key() if erasing else None
        with self._proof.claimed(erasing):
            with self.store.transaction() as tx:
                pending = tx.pending(session, operation, ids)
                for item in plan.items:
                    if item.action == "refuse":
                        continue
                    decision, held = confirm.step(
                        pending.get(item.id),
                        item.id,
                        item.content_sha256,
                        session=session,
                        operation=operation,
                        now=now,
                        ttl=ttl,
                    )
                    if held is None:  # the second request: it executes
                        tx.drop_pending(session, operation, item.id)
                        confirmed.append(item)
                        requests[item.id] = pending[item.id].request_count + 1
                        continue
                    if decision == "expired":
                        self._forgetting.expired_event(tx, pending[item.id], now)
                    if decision == "changed":
                        changed.append(item.id)
                    tx.put_pending(held)
                    self._forgetting.requested_event(tx, held, item.namespace, who, "two_call", now)
                    awaiting.append(item)
                executed, _, _, refused_now, touched = self._forgetting.carry_out(
                    tx,
                    operation,
                    confirmed,
                    actor=who,
                    plan=None,
                    now=now,
                    session=session,
                    requests=requests,
                    erasing=erasing,
                    expected_sha256=expected,
                )
                owed = self._core.owe(tx, touched, erased=operation == "purge" and bool(touched))
                self._proof.owe_receipt(tx, erasing, now)
            cleaned = self._forgetting.after_commit(operation, touched, owed)
            receipt = (
                self._proof.prove(erasing, cleanup_done=cleaned, key=key)
                if erasing and key and erasing.ids
                else None
            )
        result = None
        if confirmed:
            result = ForgetResult(
                plan_id=plan.id,
                operation=operation,
                namespace=plan.namespace,
                executed=tuple(executed),
                refused=tuple(refused_now),
                notes=" ".join(
                    [
                        result_notes(
                            operation, executed, [], [], (), refused_now, proven=proven(receipt)
                        ),
                        *([proof_note(receipt)] if receipt else []),
                    ]
                ),
                receipt=receipt,
            )
        missing = tuple(self._forgetting.not_found(i, namespace, operation) for i in plan.not_found)
        refused = (*plan.refused, *refused_now)
        return Confirmation(
            status=confirmation_status(executed, awaiting, refused, missing),
            session=session,
            executed=result,
            awaiting=tuple(awaiting),
            changed=tuple(changed),
            refused=tuple(refused),
            not_found=missing,
            expires_in_seconds=int(ttl.total_seconds()),
            message="\n".join(
                [
                    confirmation_message(
                        operation,
                        executed,
                        awaiting,
                        changed,
                        refused,
                        missing,
                        proven=proven(receipt),
                    ),
                    *(derived_notes(plan.derived) if awaiting else []),
                ]
            ),
        )

    def decline(
        self,
        memory_ids: Sequence[str] | str,
        *,
        session: str,
        namespace: str = DEFAULT_NAMESPACE,
        operation: Literal["forget", "purge", "update"] = "forget",
        answer: Literal["decline", "cancel", "accept_without_content"] = "decline",
        actor: str | None = None,
    ) -> int:
        """The human said no (e.g. to an MCP elicitation): drop pending items and record it.
        `answer` keeps apart a refusal ("decline") from a dismissed question ("cancel") and
        from an accept that carried no answer ("accept_without_content", which is no yes);
        `actor` is who the audit log names (default: the session)."""
        session = validate.label(session, "session")
        who = validate.label(actor, "actor") if actor else session
        namespace = validate.namespace(namespace)
        ids = self._forgetting.checked_ids(memory_ids)
        found = {
            i: m
            for i, m in self.store.get_many(ids, active_only=False).items()
            if m.namespace == namespace
        }
        now = self._clock()
        with self.store.transaction() as tx:
            for memory_id in ids:
                memory = found.get(memory_id)
                tx.drop_pending(session, operation, memory_id)
                tx.drop_pending(confirm.asked(session), operation, memory_id)
                tx.append_event(
                    op="forget_declined",
                    actor=who,
                    at=now,
                    memory_id=memory_id if memory else None,
                    namespace=memory.namespace if memory else None,
                    details={"operation": operation, "session": session, "answer": answer},
                    content_sha256=memory.content_sha256 if memory else None,
                )
        return len(ids)


class ChangeConfirm:
    """An update or revert confirmed in two calls (`confirm_change`)."""

    def __init__(
        self,
        store: Store,
        settings: Settings,
        clock: Clock,
        versions: Versions,
        past: Past,
    ) -> None:
        self.store = store
        self.settings = settings
        self._clock = clock
        self._versions = versions
        self._past = past

    def confirm_change(self, plan: UpdatePlan, *, session: str) -> ChangeConfirmation:
        """Seed 000's rule applied to a protected change: the first call records a pending
        confirmation and returns the preview; the same change (same memory state, same new
        values) asked again by the same session within the time-to-live executes it."""
        session = validate.label(session, "session")
        if not isinstance(plan, UpdatePlan):
            raise InvalidInput("confirm_change needs the UpdatePlan of plan_update/plan_revert")
        plan = self._versions.rederived(
            plan, self._versions.live_for_change(plan.memory_id, plan.namespace, "change")
        )
        ttl = timedelta(seconds=self.settings.confirm_ttl_seconds)
        if not plan.needs_confirmation:
            memory = self._versions.execute_change(plan)
            return self._confirmation("executed", session, plan, memory, False, ttl)
        now = self._clock()
        execute = False
        changed = False
        with self.store.transaction() as tx:
            held = tx.pending(session, "update", [plan.memory_id]).get(plan.memory_id)
            decision, pending = confirm.step(
                held,
                plan.memory_id,
                plan.confirmation_sha256,
                session=session,
                operation="update",
                now=now,
                ttl=ttl,
            )
            if pending is None:  # the second request: it executes
                tx.drop_pending(session, "update", plan.memory_id)
                execute = True
            else:
                if decision == "expired" and held is not None:
                    self._expired_change(tx, held, plan, now)
                changed = decision == "changed"
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
            memory = self._versions.execute_change(plan, confirmed_via="two_call", hold_expiry=True)
            return self._confirmation("executed", session, plan, memory, False, ttl)
        current = self._past.get(plan.memory_id, namespace=plan.namespace)
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
