"""The inspector's web application: the pages of each module behind the safety guard."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from lethe.engine import Lethe
from lethe.errors import LetheError
from lethe.ui import audit, decay, forgetting, memories, trash, versions
from lethe.ui.context import Inspector
from lethe.ui.security import Access, Refused, guard

STATIC = Path(__file__).parent / "static"


def create_app(engine: Lethe, access: Access) -> Starlette:
    """The inspector over an open engine. The caller keeps the engine and closes it."""
    ui = Inspector(engine)

    async def failed(request: Request, exc: Exception) -> Response:
        return ui.error(request, exc)

    pages = [
        *memories.routes(ui),
        *versions.routes(ui),
        *forgetting.routes(ui),
        *trash.routes(ui),
        *audit.routes(ui),
        *decay.routes(ui),
    ]
    app = Starlette(
        routes=[*pages, Mount("/static", StaticFiles(directory=STATIC), name="static")],
        middleware=[Middleware(BaseHTTPMiddleware, dispatch=guard(access))],
        exception_handlers={LetheError: failed, Refused: failed},
    )
    app.state.inspector = ui
    return app
