"""Changing a memory from its page without losing anything: the edit form, revert to an
earlier version, and the confirmation a change needs.

The engine decides what a change does and whether it weakens protection; this face shows its
plan. An edit the engine accepts directly is made at once (as a new version); one it refuses
with `ConfirmationRequired` (a pin lowered, the text of a protected memory) and every revert
are shown as a plan held here, executed only on an explicit confirm, and never when the
memory changed since the plan was shown (then a fresh plan is shown instead).

The edit form also sets, changes or removes the memory's expiry. Setting one or bringing it
forward is a deletion: the engine asks for the confirmation (`ConfirmationRequired`) and
the plan is held like any other; extending or removing it is an ordinary change.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from lethe.errors import InvalidInput
from lethe.forget.change import (
    VERSIONED_FIELDS,
    Change,
    FieldChange,
    UpdatePlan,
    version_state,
)
from lethe.model import MemoryVersion
from lethe.ui.context import Inspector, back_to, safe_back
from lethe.ui.params import MAX_MOMENT, field
from lethe.ui.security import read_form


@dataclass(frozen=True)
class Step:
    """One version of a memory and what it changed from the version before it."""

    version: MemoryVersion
    changed: tuple[FieldChange, ...]
    first: bool
    """No earlier version is kept (it is how the memory was first stored or imported)."""


def steps(history: list[MemoryVersion]) -> list[Step]:
    """The history newest first (as the engine gives it), each with its changes."""
    out = []
    for i, version in enumerate(history):
        older = history[i + 1] if i + 1 < len(history) else None
        if older is None:
            out.append(Step(version, (), True))
            continue
        new, old = version_state(version), version_state(older)
        changed = tuple(
            FieldChange(field=name, old=old[name], new=new[name])
            for name in VERSIONED_FIELDS
            if _same(old[name]) != _same(new[name])
        )
        out.append(Step(version, changed, False))
    return out


def _same(value: object) -> object:
    return list(value) if isinstance(value, list | tuple) else value


def routes(ui: Inspector) -> list[Route]:
    def show(
        request: Request, plan: UpdatePlan, *, stale: str | None = None, status: int = 200
    ) -> Response:
        if plan.changed:
            ui.changes.keep(plan.id, plan)
        return ui.page(request, "change.html", status, plan=plan, stale=stale)

    async def edit(request: Request) -> Response:
        form = await read_form(request)
        memory_id = request.path_params["memory_id"]
        raw = field(form, "importance", limit=20)
        try:
            importance = float(raw) if raw is not None else None
        except ValueError:
            raise InvalidInput(
                f"importance must be a number from 0 to 1, got {raw!r}", hint="e.g. 0.8"
            ) from None
        tags = [t.strip() for t in (field(form, "tags") or "").split(",") if t.strip()]
        expires = field(form, "expires_at", limit=MAX_MOMENT)
        if expires == field(form, "expires_shown", limit=MAX_MOMENT):
            expires = None  # left as the page showed it: not part of this change
        no_expiry = field(form, "no_expiry", limit=8) is not None
        change = Change(importance=importance, tags=tags, expires_at=expires, no_expiry=no_expiry)
        plan = ui.engine.plan_update(memory_id, change=change, actor=ui.actor)
        if plan.needs_confirmation:  # it weakens protection: the person confirms
            return show(request, plan)
        # The person's own hand: an expiry they set here is theirs (held).
        ui.engine.execute(plan, actor=ui.actor, via="inspector")
        return back_to(f"/memories/{memory_id}", "saved" if plan.changed else "unchanged")

    async def revert(request: Request) -> Response:
        """Always a plan first: a revert rewrites the memory, so the person sees what it
        brings back before it happens."""
        form = await read_form(request)
        memory_id = request.path_params["memory_id"]
        raw = field(form, "version", limit=20) or ""
        if not (raw.isascii() and raw.isdigit()):
            raise InvalidInput(f"version must be a whole number, got {raw!r}")
        plan = ui.engine.plan_revert(memory_id, int(raw), actor=ui.actor)
        return show(request, plan)

    async def execute(request: Request) -> Response:
        await read_form(request)
        held = ui.changes.take(request.path_params["plan_id"])
        if held is None:
            raise InvalidInput(
                "this change is no longer waiting (already confirmed or cancelled)",
                hint="open the memory again and make the change afresh",
            )
        try:
            done = ui.engine.execute(held, actor=ui.actor, via="inspector")
        except InvalidInput as refused:  # changed since it was shown, or expired
            return show(request, replan(held), stale=refused.message, status=409)
        notice = "reverted" if held.op == "revert" else "changed"
        return back_to(f"/memories/{done.id}", notice)

    def replan(held: UpdatePlan) -> UpdatePlan:
        """The same request again, on the memory as it is now."""
        if held.op == "revert":
            assert held.revert_to is not None
            return ui.engine.plan_revert(
                held.memory_id,
                held.revert_to,
                actor=ui.actor,
                namespace=held.namespace,
                reason=held.reason,
            )
        changes = dict(held.changes)
        removes_expiry = "expires_at" in changes and changes["expires_at"] is None
        if removes_expiry:  # plan_update says "no expiry" with its own flag
            del changes["expires_at"]
        change = Change(**changes, reason=held.reason, no_expiry=removes_expiry)
        return ui.engine.plan_update(
            held.memory_id, change=change, actor=ui.actor, namespace=held.namespace
        )

    async def cancel(request: Request) -> Response:
        """The person said no: the plan is dropped and nothing changes."""
        form = await read_form(request)
        dropped = ui.changes.take(request.path_params["plan_id"])
        back = f"/memories/{dropped.memory_id}" if dropped else safe_back(field(form, "back"))
        return back_to(back, "cancelled")

    return [
        Route("/memories/{memory_id}/edit", edit, methods=["POST"]),
        Route("/memories/{memory_id}/revert", revert, methods=["POST"]),
        Route("/changes/{plan_id}/execute", execute, methods=["POST"]),
        Route("/changes/{plan_id}/cancel", cancel, methods=["POST"]),
    ]
