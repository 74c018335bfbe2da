"""What every page shares: the engine, the templates, the plans awaiting a confirm, and how
a page is rendered (with its CSRF value) or an error shown."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import jinja2
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.templating import Jinja2Templates

from lethe.engine import Lethe
from lethe.errors import LetheError, NotFound
from lethe.forget.change import UpdatePlan
from lethe.forget.plan import ForgetPlan
from lethe.forget.sweep import SweepPlan
from lethe.ui.held import Held
from lethe.ui.security import Refused, csrf_token

TEMPLATES = Path(__file__).parent / "templates"
ACTOR = "inspector"
"""Who the audit log names for changes made here."""

NOTICES = {
    "kept": "Nothing was forgotten.",
    "restored": "Restored from the trash, with its links and episodes.",
    "saved": "Saved.",
    "cancelled": "Cancelled: nothing was changed.",
    "changed": "Changed. The state it replaced is kept in the history below.",
    "reverted": "Reverted: that version is current again, as a new version (nothing was lost).",
    "unchanged": "Nothing to change: it already holds those values.",
}
"""The only messages a redirect can ask a page to show (never text taken from the address)."""


def when(value: datetime | None) -> str:
    if value is None:
        return "—"
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def iso(value: datetime | None) -> str:
    """An instant in ISO 8601, UTC, to the second: what the as-of field takes back."""
    if value is None:
        return "—"
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def day(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d")


def input_time(value: datetime | None) -> str:
    """An instant as a `datetime-local` field holds and sends it: UTC, no offset, to the
    second, the seconds left out when they are zero (the browser's normal form, so a field
    left alone comes back exactly as the page wrote it)."""
    if value is None:
        return ""
    moment = value.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M" if moment.second == 0 else "%Y-%m-%dT%H:%M:%S")


def time_left(until: datetime | str | None, now: datetime | None = None) -> str:
    if until is None:
        return "kept until purged by hand"
    end = datetime.fromisoformat(until) if isinstance(until, str) else until
    seconds = (end - (now or datetime.now(UTC))).total_seconds()
    if seconds <= 0:
        return "due now"
    days, rest = divmod(int(seconds), 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days} d {hours} h"
    return f"{hours} h {minutes} min" if hours else f"{minutes} min {rest % 60} s"


def shown(value: Any) -> str:
    """A field's value as a person reads it (a version's or a plan's old and new values)."""
    if value is None or value == "" or value == [] or value == ():
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return str(value)


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,  # every memory's text is data, never markup
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = when
    env.filters["left"] = time_left
    env.filters["iso"] = iso
    env.filters["day"] = day
    env.filters["input_time"] = input_time
    env.filters["shown"] = shown
    env.filters["pretty"] = lambda v: json.dumps(v, indent=2, ensure_ascii=False, default=str)
    return env


@dataclass
class Inspector:
    engine: Lethe
    templates: Jinja2Templates = field(default_factory=lambda: Jinja2Templates(env=environment()))
    plans: Held[ForgetPlan] = field(default_factory=Held)
    sweeps: Held[SweepPlan] = field(default_factory=Held)
    changes: Held[UpdatePlan] = field(default_factory=Held)
    actor: str = ACTOR

    def page(self, request: Request, template: str, status: int = 200, **data: Any) -> Response:
        notice = NOTICES.get(request.query_params.get("notice", ""))
        context = {"csrf": csrf_token(request), "notice": notice, "path": request.url.path}
        return self.templates.TemplateResponse(
            request, template, context | data, status_code=status
        )

    def error(self, request: Request, exc: Exception) -> Response:
        """The page for a refused request or an engine error (the only two kinds the app
        hands here; anything else is a bug and stays a 500)."""
        if isinstance(exc, Refused):
            status, message, hint = exc.status, exc.message, None
        else:
            assert isinstance(exc, LetheError)
            status = 404 if isinstance(exc, NotFound) else 400
            message, hint = exc.message, exc.hint
        return self.page(request, "error.html", status, message=message, hint=hint)


def link(path: str, params: dict[str, Any]) -> str:
    """An address with only the parameters that carry a value."""
    kept = {k: v for k, v in params.items() if v not in (None, "", False)}
    return f"{path}?{urlencode(kept, doseq=True)}" if kept else path


def safe_back(path: str | None, default: str = "/memories") -> str:
    """A page to return to: only a path of this inspector, never another site."""
    if not path or not path.startswith("/") or path.startswith("//") or "\\" in path:
        return default
    return path


def back_to(path: str, notice: str) -> RedirectResponse:
    return RedirectResponse(link(path, {"notice": notice}), status_code=303)
