"""What executing a plan, a two-call confirmation or a maintenance pass reports back."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from lethe.forget.plan import ForgetPlan, Operation, PlanItem, seed_json
from lethe.model import Memory


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class NotFoundItem(_Frozen):
    id: str
    state: Literal["unknown", "trash", "purged"] = "unknown"
    """Never stored here (or not in this namespace), already in the trash, or purged."""
    suggestions: tuple[str, ...] = ()
    """Ids within two edits of it, nearest first (only for an unknown id)."""
    previews: tuple[str, ...] = ()
    """The start of each suggestion's content, in the same order."""
    message: str


class ForgetResult(_Frozen):
    plan_id: str
    operation: Operation
    namespace: str
    executed: tuple[str, ...]
    edited: tuple[str, ...] = ()
    """Memories that held the fact beside another: rewritten without it (a new version)."""
    skipped: tuple[PlanItem, ...] = ()
    refused: tuple[PlanItem, ...] = ()
    stale: tuple[str, ...] = ()
    """Targets whose content changed since the preview: not executed."""
    not_found: tuple[str, ...] = ()
    """Targets already gone (or already forgotten) when the plan ran."""
    suggestions: dict[str, tuple[str, ...]] = {}
    """For each id the plan did not find, the closest live ids (from the plan)."""
    fresh_plan: ForgetPlan | None = None
    """A new preview, whenever something was stale or gone."""
    notes: str
    receipt: dict[str, Any] | None = None
    """A purge's signed erasure receipt (see `engine/proof.py`): ids, digests, places, the
    byte scan and the probes. Its `status` is `erased` only when nothing was found."""


class Confirmation(_Frozen):
    """The answer to one two-call `forget` request."""

    status: Literal["executed", "pending", "partial", "refused", "not_found"]
    session: str
    executed: ForgetResult | None = None
    awaiting: tuple[PlanItem, ...] = ()
    """Previewed now; the same call again from this session executes them."""
    changed: tuple[str, ...] = ()
    """Their content changed since this session's preview: previewed again instead."""
    refused: tuple[PlanItem, ...] = ()
    not_found: tuple[NotFoundItem, ...] = ()
    expires_in_seconds: int
    message: str


class TrashItem(_Frozen):
    memory: Memory
    purge_after: str | None
    """ISO time after which maintenance erases it; None when trash is kept forever."""


class PendingItem(_Frozen):
    """A deletion waiting for a human: a two-call confirmation awaiting its second call, or
    a question put to the user through the client (elicitation) awaiting their answer."""

    via: Literal["two_call", "elicitation"]
    session: str
    memory_id: str
    namespace: str | None
    """None when the memory no longer exists."""
    preview: str | None
    operation: Literal["forget", "purge", "update"]
    first_requested_at: datetime
    request_count: int
    expires_at: datetime
    expired: bool


class MaintenanceReport(_Frozen):
    expired: tuple[str, ...]
    """Trash past its retention window, erased."""
    expired_confirmations: int
    expiries: tuple[str, ...] = ()
    """Memories whose own expiry had come, now in the trash."""
    versions_embedded: int = 0
    """Earlier states given the vector recall as of a past moment ranks them by (ones kept
    before vectors were, or imported)."""


class ReportRow(_Frozen):
    day: str
    op: str
    actor: str
    namespace: str
    count: int


class DeletionReport(_Frozen):
    rows: tuple[ReportRow, ...]
    by_op: dict[str, int]
    by_actor: dict[str, int]
    by_namespace: dict[str, int]
    by_day: dict[str, int]


def result_json(result: ForgetResult) -> dict[str, Any]:
    """An execution in seed 002's response schema, with lethe's extra fields."""
    low = [
        {
            "id": item.id,
            "score": item.similarity,
            "reason": f"{item.reason}. {item.hint}" if item.hint else item.reason,
        }
        for item in result.skipped
    ]
    body: dict[str, Any] = {
        "status": "ok",
        "index": result.namespace,
        "planId": result.plan_id,
        "operation": result.operation,
        "dryRun": False,
        "deletedCount": len(result.executed),
        "deletedIds": list(result.executed),
        "editedIds": list(result.edited),
        "skippedLowConfidence": low,
        "refused": [
            {"id": i.id, "reason": i.protection or i.reason, "hint": i.hint} for i in result.refused
        ],
        "changedSincePreview": list(result.stale),
        "notFound": list(result.not_found),
        "suggestions": {k: list(v) for k, v in result.suggestions.items()},
        "notes": result.notes,
    }
    if result.fresh_plan is not None:
        body["freshPlan"] = seed_json(result.fresh_plan)
    return body


Said = Literal["not_asked", "yes", "decline", "cancel", "accept_without_content"]


class Answer(_Frozen):
    """What the person said to the question a face put to them (an MCP elicitation), built
    by the face from what its SDK returned. `not_asked`: no question was put (the client
    cannot ask its human), so the two-call rule confirms. Only `yes` executes; `decline` is
    a no, `cancel` a dismissed question, `accept_without_content` an accept that carried no
    answer (which is no yes)."""

    said: Said


class ForgetOutcome(_Frozen):
    """What a forget or purge asked through a face came to: a step of the two-call rule
    (`confirmation`), the plan the person said yes to, executed (`result`), or their no
    (`declined`, as the audit log records it)."""

    confirmation: Confirmation | None = None
    result: ForgetResult | None = None
    declined: Literal["decline", "cancel", "accept_without_content"] | None = None
