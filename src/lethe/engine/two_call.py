"""The two-call rule (seed 000): a deletion asked for twice by the same session within the
time-to-live executes; the first call previews it and records a pending confirmation. And
the human's "no", recorded."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Literal

from lethe.common import validate
from lethe.common.identifiers import DEFAULT_NAMESPACE
from lethe.engine.forgetting import ForgetOps
from lethe.erasure.record import Erasing
from lethe.errors import InvalidInput
from lethe.forget import confirm
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


class TwoCallOps(ForgetOps):
    def forget(
        self,
        memory_ids: Sequence[str] | str,
        *,
        session: str,
        namespace: str = DEFAULT_NAMESPACE,
        actor: str | None = None,
        reason: str | None = None,
        operation: Operation = "forget",
    ) -> Confirmation:
        """Seed 000's conversational confirmation: the first call for an id previews it and
        records a pending confirmation; the same id again from the same session within the
        time-to-live executes it. Each id is tracked separately."""
        session = validate.label(session, "session")
        namespace = validate.namespace(namespace)
        ids = self._ids(memory_ids)
        if not ids:
            raise InvalidInput("give at least one memory id", hint="find ids with recall first")
        who = validate.label(actor, "actor") if actor else session
        source = PlanSource(memory_ids=ids, namespace=namespace if operation == "purge" else None)
        plan = self._plan(operation, source, namespace, actor=who, reason=reason)
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
        key = self._signing_key() if erasing else None
        with self._claimed(erasing):
            with self.store.transaction() as tx:
                pending = tx.pending(session, operation, ids)
                for item in plan.items:
                    if item.action == "refuse":
                        continue
                    decision = confirm.decide(pending.get(item.id), item.content_sha256, now)
                    if decision == "execute":
                        tx.drop_pending(session, operation, item.id)
                        confirmed.append(item)
                        requests[item.id] = pending[item.id].request_count + 1
                        continue
                    if decision == "expired":
                        self._expired_event(tx, pending[item.id], now)
                    if decision == "changed":
                        changed.append(item.id)
                    held = confirm.record(
                        pending.get(item.id),
                        item.id,
                        item.content_sha256,
                        session=session,
                        operation=operation,
                        now=now,
                        ttl=ttl,
                        restart=decision != "first",
                    )
                    tx.put_pending(held)
                    self._requested_event(tx, held, item.namespace, who, "two_call", now)
                    awaiting.append(item)
                executed, _, _, refused_now, touched = self._apply(
                    tx,
                    operation,
                    confirmed,
                    actor=who,
                    plan=None,
                    now=now,
                    session=session,
                    requests=requests,
                    erasing=erasing,
                )
                owed = self._owe(tx, touched, erased=operation == "purge" and bool(touched))
                self._owe_receipt(tx, erasing, now)
            cleaned = self._after(operation, touched, owed)
            receipt = (
                self._prove(erasing, cleanup_done=cleaned, key=key)
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
        missing = tuple(self._not_found(i, namespace, operation) for i in plan.not_found)
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
        ids = self._ids(memory_ids)
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
