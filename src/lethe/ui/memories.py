"""The memory list (search, filters, paging) and a memory's own page (with its history; its
edit and revert forms are handled in `versions`). Both read the past too: a search and a
memory page `as_of` a moment show the memories as they stood then (the engine decides what
that was, and refuses a moment it cannot answer for)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from lethe.common.expiry import parse_instant
from lethe.common.identifiers import LAYERS
from lethe.engine.search import MAX_K
from lethe.errors import InvalidInput
from lethe.ui.context import Inspector, link
from lethe.ui.graph import layout
from lethe.ui.params import MAX_MOMENT, memory_filters, number, text
from lethe.ui.versions import steps

PAGE = 50
FILTER_NAMES = (
    "q", "namespace", "agent", "layer", "category", "tags", "tags_mode", "since", "until", "where",
    "as_of",
)  # fmt: skip


def routes(ui: Inspector) -> list[Route]:
    async def index(request: Request) -> Response:
        return RedirectResponse("/memories", status_code=303)

    async def memories(request: Request) -> Response:
        filters, where = memory_filters(request)
        query = text(request, "q")
        as_of = text(request, "as_of", limit=MAX_MOMENT)
        page = number(request, "page", 1, high=100_000)
        form = {name: request.query_params.get(name, "") for name in FILTER_NAMES}
        rows: list[dict[str, Any]]
        if as_of and not query:
            raise InvalidInput(
                "as of reads the past through a search: give a query too",
                hint="or leave as of empty to list the memories as they are now",
            )
        if query:
            # The person looking is not the agent recalling: access stats stay as they were.
            hits = ui.engine.recall(
                query, k=MAX_K, filters=filters, where=where, touch=False, as_of=as_of
            )
            total = len(hits)
            chosen = hits[(page - 1) * PAGE : page * PAGE]
            rows = [
                {"memory": h.memory, "similarity": h.similarity, "score": h.score} for h in chosen
            ]
        else:
            listed = ui.engine.list_memories(
                filters, where=where, limit=PAGE, offset=(page - 1) * PAGE
            )
            total = listed.total
            rows = [{"memory": m, "similarity": None, "score": None} for m in listed.items]
        pages = max((total + PAGE - 1) // PAGE, 1)
        return ui.page(
            request,
            "memories.html",
            rows=rows,
            total=total,
            page=page,
            pages=pages,
            searched=bool(query),
            as_of=as_of,
            moment=parse_instant(as_of, "as_of") if as_of else None,
            present=link("/memories", form | {"as_of": None}),
            form=form,
            layers=LAYERS,
            prev=link("/memories", form | {"page": page - 1}) if page > 1 else None,
            next=link("/memories", form | {"page": page + 1}) if page < pages else None,
        )

    async def memory(request: Request) -> Response:
        memory_id = request.path_params["memory_id"]
        as_of = text(request, "as_of", limit=MAX_MOMENT)
        if as_of:
            # The state it had then; links, decay and the forms belong to the present.
            past = ui.engine.get(memory_id, as_of=as_of)
            return ui.page(
                request,
                "memory.html",
                memory=past,
                as_of=as_of,
                moment=parse_instant(as_of, "as_of"),
                history=steps(ui.engine.history(memory_id)),
            )
        memory = ui.engine.get(memory_id)
        neighbours = ui.engine.neighbours(memory_id)
        graph = layout(
            memory.id,
            memory.preview(24),
            [(m.id, m.preview(24), lk.kind, lk.confidence) for lk, m in neighbours],
        )
        return ui.page(
            request,
            "memory.html",
            memory=memory,
            as_of=None,
            neighbours=neighbours,
            graph=graph,
            episodes=ui.engine.episodes_of(memory_id),
            vitality=ui.engine.vitality(memory_id),
            history=steps(ui.engine.history(memory_id)),
        )

    return [
        Route("/", index),
        Route("/memories", memories),
        Route("/memories/{memory_id}", memory),
    ]
