"""Forgetting from the inspector: a plan first (what goes, what is protected and why), then an
explicit confirm; the query box previews a forget without deleting anything."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from lethe.errors import InvalidInput, NotFound
from lethe.forget.plan import ForgetPlan
from lethe.ui.context import Inspector, back_to, safe_back
from lethe.ui.params import field, fields, memory_filters, text
from lethe.ui.security import read_form


def routes(ui: Inspector) -> list[Route]:
    def show(request: Request, plan: ForgetPlan, *, back: str, stale: bool = False) -> Response:
        ui.plans.keep(plan.id, plan)
        return ui.page(request, "plan.html", plan=plan, back=back, stale=stale)

    async def plan(request: Request) -> Response:
        form = await read_form(request)
        ids = fields(form, "memory_id")
        operation = field(form, "operation") or "forget"
        namespace = field(form, "namespace") or "default"
        reason = field(form, "reason", limit=500)
        back = safe_back(field(form, "back"))
        if operation == "forget":
            made = ui.engine.plan_forget(
                ids, filters={"namespace": namespace}, actor=ui.actor, reason=reason
            )
        elif operation == "purge":
            made = ui.engine.plan_purge(ids, namespace=namespace, actor=ui.actor, reason=reason)
        else:
            raise InvalidInput(f"operation must be forget or purge, got {operation!r}")
        return show(request, made, back=back)

    async def execute(request: Request) -> Response:
        form = await read_form(request)
        held = ui.plans.take(request.path_params["plan_id"])
        back = safe_back(field(form, "back"))
        if held is None:
            raise InvalidInput(
                "this plan is no longer waiting (already confirmed, cancelled or expired)",
                hint="open the memory again and make a fresh plan",
            )
        if held.operation == "purge" and field(form, "understood") != "yes":
            ui.plans.keep(held.id, held)
            raise InvalidInput(
                "a purge erases for good: tick 'I understand this cannot be undone' to confirm",
                hint="go back to the plan, tick the box and confirm again",
            )
        result = ui.engine.execute(held, actor=ui.actor, via="inspector")
        if result.fresh_plan is not None:
            if not result.executed:  # refused as stale: the fresh preview, to confirm again
                return show(request, result.fresh_plan, back=back, stale=True)
            ui.plans.keep(result.fresh_plan.id, result.fresh_plan)
        return ui.page(request, "result.html", result=result, back=back)

    async def held(request: Request) -> Response:
        waiting = ui.plans.get(request.path_params["plan_id"])
        if waiting is None:
            raise NotFound("this plan is no longer waiting", hint="make a fresh plan")
        return ui.page(
            request, "plan.html", plan=waiting, back=safe_back(text(request, "back")), stale=False
        )

    async def cancel(request: Request) -> Response:
        """The person said no: nothing is deleted, and the audit log records the refusal (as
        it records a declined question from an MCP client)."""
        form = await read_form(request)
        dropped = ui.plans.take(request.path_params["plan_id"])
        if dropped is not None and dropped.source.memory_ids:
            ui.engine.decline(
                dropped.source.memory_ids,
                session=ui.actor,
                namespace=dropped.namespace,
                operation=dropped.operation,
                answer="cancel",
            )
        return back_to(safe_back(field(form, "back")), "kept")

    async def preview(request: Request) -> Response:
        query = text(request, "q")
        filters, where = memory_filters(request)
        made = (
            ui.engine.plan_forget(query=query, filters=filters, where=where, actor=ui.actor)
            if query
            else None
        )
        form = {name: request.query_params.get(name, "") for name in ("q", "namespace")}
        return ui.page(request, "preview.html", plan=made, form=form)

    return [
        Route("/forget/plan", plan, methods=["POST"]),
        Route("/forget/preview", preview),
        Route("/plans/{plan_id}", held),
        Route("/plans/{plan_id}/execute", execute, methods=["POST"]),
        Route("/plans/{plan_id}/cancel", cancel, methods=["POST"]),
    ]
