"""The trash: what was forgotten, by whom, when and why, how long until it is purged, and
the way back (restore) or out (purge, through its own plan and confirm)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from lethe.ui.context import Inspector, back_to, link
from lethe.ui.params import number, text
from lethe.ui.security import read_form

PAGE = 50


def routes(ui: Inspector) -> list[Route]:
    async def trash(request: Request) -> Response:
        namespace = text(request, "namespace")
        page = number(request, "page", 1, high=100_000)
        items, total = ui.engine.list_trash(
            namespace=namespace, limit=PAGE, offset=(page - 1) * PAGE
        )
        pages = max((total + PAGE - 1) // PAGE, 1)
        params = {"namespace": namespace}
        return ui.page(
            request,
            "trash.html",
            items=items,
            total=total,
            page=page,
            pages=pages,
            namespace=namespace or "",
            retention=ui.engine.settings.trash_retention_days,
            prev=link("/trash", params | {"page": page - 1}) if page > 1 else None,
            next=link("/trash", params | {"page": page + 1}) if page < pages else None,
        )

    async def restore(request: Request) -> Response:
        await read_form(request)
        memory_id = request.path_params["memory_id"]
        ui.engine.restore(memory_id, actor=ui.actor)
        return back_to(f"/memories/{memory_id}", "restored")

    return [
        Route("/trash", trash),
        Route("/trash/{memory_id}/restore", restore, methods=["POST"]),
    ]
