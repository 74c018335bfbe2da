"""The audit timeline, newest first, filtered by op, agent, namespace and day; the deletion
report (forgets, restores, purges per day) as a chart above it; the signed receipts of past
purges, each downloadable as its JSON; and the deletions that are waiting for a human."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from lethe.errors import NotFound
from lethe.ui.charts import Chart, grouped
from lethe.ui.context import Inspector, link
from lethe.ui.params import day, number, text

PAGE = 100
RECEIPTS = 20
RECEIPT_ID = re.compile(r"rcpt_[0-9a-f]{16}")
"""What `engine/proof.py` names a receipt: anything else is not one (and never reaches the
store)."""
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
        skip = number(request, "receipts", 0, low=0, high=1_000_000)
        receipts = [summary(r) for r in ui.engine.receipts(RECEIPTS + 1, skip)]
        more = len(receipts) > RECEIPTS
        return ui.page(
            request,
            "audit.html",
            events=events,
            form=form,
            ops=OPS,
            older=older,
            newest=link("/audit", form) if before else None,
            report=deletion_chart(ui, namespace),
            receipts=receipts[:RECEIPTS],
            older_receipts=link("/audit", form | {"receipts": skip + RECEIPTS}) if more else None,
            newest_receipts=link("/audit", form) if skip else None,
        )

    async def download(request: Request) -> Response:
        """One receipt as the JSON the purge signed, to keep or to hand over."""
        receipt_id = request.path_params["receipt_id"]
        found = ui.engine.receipt(receipt_id) if RECEIPT_ID.fullmatch(receipt_id) else None
        if found is None:
            raise NotFound(
                "no erasure receipt by that id in this store",
                hint="the audit page lists the receipts this store keeps",
            )
        return Response(
            json.dumps(found, indent=2, ensure_ascii=False, sort_keys=True) + "\n",
            media_type="application/json",
            headers={"content-disposition": f'attachment; filename="{receipt_id}.json"'},
        )

    async def pending(request: Request) -> Response:
        namespace = text(request, "namespace")
        items = ui.engine.pending_confirmations(namespace=namespace)
        return ui.page(request, "pending.html", items=items, namespace=namespace or "")

    return [
        Route("/audit", audit),
        Route("/receipts/{receipt_id}.json", download),
        Route("/pending", pending),
    ]


def summary(receipt: dict[str, Any]) -> dict[str, Any]:
    """What the audit page shows of a receipt (it holds no erased text, only ids, digests
    and counts; the page escapes it all the same)."""
    confirmed = receipt.get("confirmed") or {}
    scan = receipt.get("scan") or {}
    places = [
        f"{p.get('place')} {p['count']}"
        for p in receipt.get("places") or []
        if isinstance(p, dict) and p.get("count")
    ]
    erased_at = receipt.get("erased_at")
    try:
        at: datetime | None = datetime.fromisoformat(str(erased_at))
    except ValueError:
        at = None
    return {
        "id": str(receipt.get("receipt_id") or ""),  # none for a purge still owed its receipt
        "at": at,
        "status": str(receipt.get("status", "")),
        "ids": [str(m.get("id")) for m in receipt.get("memories") or [] if isinstance(m, dict)],
        "by": confirmed.get("by"),
        "via": confirmed.get("via"),
        "places": ", ".join(places),
        "files": len(scan.get("files") or []),
        "remaining": len(scan.get("remaining") or []),
        "returned": len((receipt.get("probes") or {}).get("erased_returned") or []),
    }


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
