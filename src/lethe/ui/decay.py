"""Decay: how warm the memories are and how close each is to being forgotten, and what a
sweep would compress or drop, executable here only when the policy is `auto`."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from lethe.errors import InvalidInput
from lethe.ui.charts import histogram
from lethe.ui.context import Inspector
from lethe.ui.params import field, text
from lethe.ui.security import read_form

HEAT_LABELS = tuple(f"{10 * i}–{10 * i + 10}" for i in range(10))


def routes(ui: Inspector) -> list[Route]:
    async def decay(request: Request) -> Response:
        namespace = text(request, "namespace") or "default"
        plan = ui.engine.sweep(namespace=namespace, actor=ui.actor)
        if plan.executable:
            ui.sweeps.keep(plan.id, plan)
        edges = plan.risk_edges
        risk_labels = [
            f"{edges[i]:g}–{edges[i + 1]:g}" if i + 1 < len(edges) else f"≥ {edges[i]:g}"
            for i in range(len(edges))
        ]
        return ui.page(
            request,
            "decay.html",
            plan=plan,
            namespace=namespace,
            heat=histogram(HEAT_LABELS, plan.heat_histogram, "memories"),
            risk=histogram(risk_labels, plan.risk_histogram, "memories"),
        )

    async def execute(request: Request) -> Response:
        form = await read_form(request)
        ui.engine.check_sweep_allowed()
        plan = ui.sweeps.take(request.path_params["plan_id"])
        if plan is None:
            raise InvalidInput(
                "this sweep plan is no longer waiting (already run, or expired)",
                hint="open Decay again for a fresh sweep preview",
            )
        if field(form, "confirm") != "yes":
            ui.sweeps.keep(plan.id, plan)
            raise InvalidInput("tick the confirmation box to run the sweep")
        result = ui.engine.execute_sweep(plan, actor=ui.actor)
        return ui.page(request, "sweep_result.html", result=result)

    return [
        Route("/decay", decay),
        Route("/decay/{plan_id}/execute", execute, methods=["POST"]),
    ]
