"""Confirming a deletion or a weakening change asked through a face, once for every face: the
question put to the person (the plan shown is kept until they answer, and executed as shown
on their yes), their no recorded, the two-call rule (`TwoCall`, `ChangeConfirm`) when nobody
can be asked, and which roles may confirm at all. A face builds the `Answer` from its own
SDK's result and formats the outcome; it decides nothing."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from lethe.common import validate
from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE
from lethe.engine.forgetting import Forgetting
from lethe.engine.past import Past
from lethe.engine.questions import Questions
from lethe.engine.two_call import ChangeConfirm, TwoCall
from lethe.engine.versions import Versions
from lethe.forget.change import Change, ChangeOutcome, UpdatePlan
from lethe.forget.plan import ForgetPlan, Operation
from lethe.forget.results import Answer, ForgetOutcome

MAX_OPEN_QUESTIONS = 256
"""Plans kept for questions not answered yet; past it the oldest question gives way (its
answer then plans again, and a yes executes only what is still as it was)."""


ROLE_TO_CONFIRM = "forget"
"""The role (of the token a client holds: read < write < forget) that may confirm what is
confirmed like a forget: a change that weakens a protection or sets or brings forward an
expiry, and dropping on restore an expiry the person held."""


def may_weaken(role: str) -> bool:
    """Whether a caller of `role` may make (once confirmed) a change confirmed like a forget."""
    return role == ROLE_TO_CONFIRM


class Confirmations:
    """Deletions and weakening changes put to a person and their answers (`ask_forget`,
    `answer_forget`, `ask_change`, `answer_change`)."""

    def __init__(
        self,
        forgetting: Forgetting,
        two_call: TwoCall,
        questions: Questions,
        versions: Versions,
        change_confirm: ChangeConfirm,
        past: Past,
    ) -> None:
        self._forgetting = forgetting
        self._two_call = two_call
        self._questions = questions
        self._versions = versions
        self._change_confirm = change_confirm
        self._past = past
        self._asked: dict[tuple[str, str, tuple[str, ...]], ForgetPlan] = {}
        self._asked_changes: dict[tuple[str, str, str], UpdatePlan] = {}
        self._lock = threading.Lock()

    def ask_forget(
        self,
        memory_ids: Sequence[str] | str,
        *,
        session: str,
        namespace: str = DEFAULT_NAMESPACE,
        operation: Operation = "forget",
        actor: str = DEFAULT_AGENT,
        expected_sha256: str | None = None,
    ) -> ForgetPlan | None:
        """The plan to put to the person behind `session` before a forget or purge of these
        ids, recorded as asked and kept until they answer (`answer_forget`); None when there
        is nothing to ask about (no target: the answer then says why). `expected_sha256`
        (with one id): the content hash the caller last saw (`ContentChanged`, and nothing
        is asked, when the text changed since)."""
        session = validate.label(session, "session")
        plan = self._plan(operation, memory_ids, namespace, actor, expected_sha256)
        if not plan.targets:
            return None
        with self._lock:
            key = (session, operation, plan.source.memory_ids)
            self._asked.pop(key, None)
            while len(self._asked) >= MAX_OPEN_QUESTIONS:
                self._asked.pop(next(iter(self._asked)))
            self._asked[key] = plan
        self._questions.ask(plan, session=session)
        return plan

    def answer_forget(
        self,
        memory_ids: Sequence[str] | str,
        answer: Answer,
        *,
        session: str,
        namespace: str = DEFAULT_NAMESPACE,
        operation: Operation = "forget",
        actor: str = DEFAULT_AGENT,
        two_call_session: str | None = None,
        expected_sha256: str | None = None,
    ) -> ForgetOutcome:
        """Carry out the person's answer to `ask_forget`: on `yes` the plan they were shown
        executes (planned again if it is no longer kept; stale targets are left alone); any
        other answer deletes nothing and is recorded. `not_asked`: the two-call rule, keyed by
        `two_call_session` (default: `session`)."""
        session = validate.label(session, "session")
        ids = self._forgetting.checked_ids(memory_ids)
        if answer.said == "not_asked":
            confirmation = self._two_call.forget(
                ids,
                session=two_call_session or session,
                namespace=namespace,
                actor=actor,
                operation=operation,
                expected_sha256=expected_sha256,
            )
            return ForgetOutcome(confirmation=confirmation)
        with self._lock:
            plan = self._asked.pop((session, operation, ids), None)
        if answer.said == "yes":
            plan = plan or self._plan(operation, ids, namespace, actor, expected_sha256)
            result = self._forgetting.execute(plan, actor=actor, via="elicitation")
            self._questions.answered(session=session, operation=operation, memory_ids=ids)
            return ForgetOutcome(result=result)
        self._two_call.decline(
            ids,
            session=session,
            namespace=namespace,
            operation=operation,
            answer=answer.said,
            actor=actor,
        )
        return ForgetOutcome(declined=answer.said)

    def ask_change(
        self,
        memory_id: str,
        change: Change,
        *,
        session: str,
        role: str,
        namespace: str | None = None,
        actor: str | None = None,
    ) -> UpdatePlan | None:
        """The plan to put to the person behind `session` before this change, when it is
        confirmed like a forget and `role` may make it at all (else `answer_change` refuses
        it without a question); recorded as asked and kept until they answer. None: nothing
        to ask. An expiry asked as a duration (`expires_in`) is not asked about: it would name
        another instant when answered."""
        if not may_weaken(role) or change.expires_in is not None:
            return None
        session = validate.label(session, "session")
        plan = self._plan_change(memory_id, change, namespace, actor)
        if not plan.needs_confirmation:
            return None
        with self._lock:
            key = (session, plan.memory_id, change.key())
            self._asked_changes.pop(key, None)
            while len(self._asked_changes) >= MAX_OPEN_QUESTIONS:
                self._asked_changes.pop(next(iter(self._asked_changes)))
            self._asked_changes[key] = plan
        self._questions.ask(plan, session=session)
        return plan

    def answer_change(
        self,
        memory_id: str,
        change: Change,
        answer: Answer,
        *,
        session: str,
        role: str,
        namespace: str | None = None,
        actor: str | None = None,
        two_call_session: str | None = None,
    ) -> ChangeOutcome:
        """Carry out the person's answer to `ask_change`. `not_asked`: a change that weakens
        nothing is made at once (the agent's own: an expiry it sets is not held); one that
        does is refused for a `role` that may not make it, else confirmed by the two-call
        rule keyed by `two_call_session` (default: `session`). `yes`: the plan the person was
        shown is made (`not_open` when no question is open). Anything else changes nothing
        and is recorded."""
        session = validate.label(session, "session")
        if answer.said == "not_asked":
            plan = self._plan_change(memory_id, change, namespace, actor)
            if not plan.needs_confirmation:
                memory = self._versions.execute_change(plan, hold_expiry=False)
                status = "updated" if plan.changed else "unchanged"
                return ChangeOutcome(status=status, plan=plan, memory=memory)
            if not may_weaken(role):
                return ChangeOutcome(status="role", plan=plan)
            c = self._change_confirm.confirm_change(plan, session=two_call_session or session)
            return ChangeOutcome(status=c.status, plan=plan, memory=c.memory, confirmation=c)
        with self._lock:
            asked = self._asked_changes.pop((session, memory_id, change.key()), None)
        if answer.said == "yes":
            if asked is None:
                return ChangeOutcome(status="not_open")
            memory = self._versions.execute_change(
                asked, confirmed_via="elicitation", hold_expiry=True
            )
            self._questions.answered(session=session, operation="update", memory_ids=[memory_id])
            return ChangeOutcome(status="confirmed", plan=asked, memory=memory)
        ns = namespace if namespace is not None else DEFAULT_NAMESPACE
        self._two_call.decline(
            [memory_id],
            session=session,
            namespace=ns,
            operation="update",
            answer=answer.said,
            actor=actor,
        )
        current = self._past.get(memory_id, namespace=ns)
        return ChangeOutcome(status="declined", plan=asked, memory=current, declined=answer.said)

    def _plan_change(
        self, memory_id: str, change: Change, namespace: str | None, actor: str | None
    ) -> UpdatePlan:
        return self._versions.plan_update(memory_id, change, actor=actor, namespace=namespace)

    def _plan(
        self,
        operation: Operation,
        ids: Sequence[str] | str,
        namespace: str,
        actor: str,
        expected_sha256: str | None,
    ) -> ForgetPlan:
        if operation == "purge":
            return self._forgetting.plan_purge(
                ids, namespace=namespace, actor=actor, expected_sha256=expected_sha256
            )
        return self._forgetting.plan_forget(
            ids, filters={"namespace": namespace}, actor=actor, expected_sha256=expected_sha256
        )
