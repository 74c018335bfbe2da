"""The two-call rule (seed 000): a deletion asked for twice by the same session executes.

The first `forget(memory_id, session=…)` records a pending confirmation and returns the
preview; the same id from the same session within the time-to-live executes it. Pending
confirmations live in the database (a restart keeps them), are keyed by session (one session
can never confirm another's), count requests, and remember the content hash they previewed:
a memory that changed in between is previewed again rather than deleted.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from lethe.model import Pending

Decision = Literal["execute", "first", "expired", "changed"]

ASKED = "asked:"
"""Prefix of the pending rows that stand for a question put to the human (elicitation). Kept
apart from the session's own key, so an unanswered question can never count as the first
of the two calls."""


def asked(session: str) -> str:
    return ASKED + session


def via(pending_session: str) -> tuple[Literal["two_call", "elicitation"], str]:
    """Which kind of confirmation a pending row is, and the session it belongs to."""
    if pending_session.startswith(ASKED):
        return "elicitation", pending_session.removeprefix(ASKED)
    return "two_call", pending_session


def decide(pending: Pending | None, content_sha256: str, now: datetime) -> Decision:
    """What this call means for one id, given what the session asked before."""
    if pending is None:
        return "first"
    if pending.expires_at <= now:
        return "expired"
    if pending.content_sha256 != content_sha256:
        return "changed"
    return "execute"


def record(
    pending: Pending | None,
    memory_id: str,
    content_sha256: str,
    *,
    session: str,
    operation: Literal["forget", "purge", "update"],
    now: datetime,
    ttl: timedelta,
    restart: bool,
) -> Pending:
    """The pending row after this request: a fresh one (first request, or the old one
    expired), or the same one counted again with the content it now previews (the memory
    changed since the last preview, so the clock starts again on the new content)."""
    if pending is None or (restart and pending.expires_at <= now):
        return Pending(
            session=session,
            memory_id=memory_id,
            operation=operation,
            content_sha256=content_sha256,
            first_requested_at=now,
            last_requested_at=now,
            request_count=1,
            expires_at=now + ttl,
        )
    update: dict[str, object] = {
        "last_requested_at": now,
        "request_count": pending.request_count + 1,
    }
    if restart:
        update |= {"content_sha256": content_sha256, "expires_at": now + ttl}
    return pending.model_copy(update=update)


def step(
    pending: Pending | None,
    memory_id: str,
    content_sha256: str,
    *,
    session: str,
    operation: Literal["forget", "purge", "update"],
    now: datetime,
    ttl: timedelta,
) -> tuple[Decision, Pending | None]:
    """One request under the rule, for a deletion and a weakening change alike: what it
    means, and the pending row to keep (None when this request executes)."""
    decision = decide(pending, content_sha256, now)
    if decision == "execute":
        return decision, None
    held = record(
        pending,
        memory_id,
        content_sha256,
        session=session,
        operation=operation,
        now=now,
        ttl=ttl,
        restart=decision != "first",
    )
    return decision, held
