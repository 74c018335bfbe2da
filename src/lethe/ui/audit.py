"""The audit timeline, newest first, filtered by op, agent, namespace and day; the deletion
report (forgets, restores, purges per day) as a chart above it; and the deletions that are
waiting for a human."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from lethe.ui.charts import Chart, grouped
from lethe.ui.context import Inspector, link
from lethe.ui.params import day, number, text

PAGE = 100
REPORT_DAYS = 30
OPS = (
    "remember", "update", "supersede", "link", "unlink", "bump", "episode", "forget", "restore",
    "purge", "expire", "forget_declined", "confirmation_requested", "confirmation_expired",
    "sweep", "import", "evict",
)  # fmt: skip
SERIES = {"forget": ("forget", "expire"), "restore": ("restore",), "purge": ("purge",)}
"""The chart's series and the ops each counts (a memory's own expiry is a forget too: it
goes to the trash). Before store migration 10, `expire` named the erasure of trash past its
retention window; that is a `purge` with `retention_days` now."""


def routes(ui: Inspector) -> list[Route]:
    async def audit(request: Request) -> Response:
        namespace = text(request, "namespace")
        start = day(request, "day")
        before = number(request, "before", 0, low=0)
        events = ui.engine.audit(
            op=text(request, "op"),
            actor=text(request, "agent"),
            namespace=namespace,
            since=start,
            until=start + timedelta(days=1) if start else None,
            before_seq=before or None,
            newest_first=True,
            limit=PAGE,
        )
        form = {n: request.query_params.get(n, "") for n in ("op", "agent", "namespace", "day")}
        older = link("/audit", form | {"before": events[-1].seq}) if len(events) == PAGE else None
        return ui.page(
            request,
            "audit.html",
            events=events,
            form=form,
            ops=OPS,
            older=older,
            newest=link("/audit", form) if before else None,
            report=deletion_chart(ui, namespace),
        )

    async def pending(request: Request) -> Response:
        namespace = text(request, "namespace")
        items = ui.engine.pending_confirmations(namespace=namespace)
        return ui.page(request, "pending.html", items=items, namespace=namespace or "")

    return [Route("/audit", audit), Route("/pending", pending)]


def deletion_chart(ui: Inspector, namespace: str | None) -> Chart:
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    since = today - timedelta(days=REPORT_DAYS - 1)
    report = ui.engine.deletion_report(since=since, namespace=namespace)
    days = [(since + timedelta(days=i)).date().isoformat() for i in range(REPORT_DAYS)]
    counts = {name: [0] * REPORT_DAYS for name in SERIES}
    position = {d: i for i, d in enumerate(days)}
    for row in report.rows:
        i = position.get(row.day)
        for name, ops in SERIES.items():
            if i is not None and row.op in ops:
                counts[name][i] += row.count
    return grouped([d[5:] for d in days], counts, label_every=5)
