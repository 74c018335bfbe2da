"""What keeps the inspector a private page: loopback by default, a token off loopback, a
Host check against DNS rebinding, CSRF on every change, and a content policy that runs no
script but the inspector's own (memory text is escaped by the templates; the policy is the
second wall).

Changes are POSTs carrying a form field equal to a random cookie (double submit). The cookie
is `SameSite=Strict`, so another site can neither send it nor read it to copy into a form.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import parse_qs, urlencode

from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

from lethe.common.hosts import names_this_server

CSRF_COOKIE = "lethe_csrf"
CSRF_FIELD = "csrf"
TOKEN_COOKIE = "lethe_token"
TOKEN_PARAM = "token"
MAX_FORM_BYTES = 256 * 1024
"""A form holds at most a memory's tags or a reason: anything bigger is not ours."""

HEADERS = {
    "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}


class Refused(Exception):
    """A request the inspector will not serve; `status` and a message that says what to do."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Access:
    token: str | None
    """Required of every request when set (always set off loopback)."""
    loopback: bool
    """Bound to this machine only: then the Host header must name this machine too."""
    port: int
    """The port it listens on, part of the name a loopback Host header must give whole."""


def check_host(access: Access, request: Request) -> None:
    """A page on loopback answers only to this machine's names at its own port, compared
    whole: a site that points its own name at 127.0.0.1 (DNS rebinding), or dresses it as
    `127.0.0.1:PORT.evil.example`, gets nothing."""
    if access.loopback and not names_this_server(request.headers.get("host", ""), access.port):
        raise Refused(
            421,
            f"this inspector answers only to localhost:{access.port} or 127.0.0.1:{access.port}",
        )


def check_token(access: Access, request: Request) -> Response | None:
    """None when the request may go on; otherwise the answer to send (a redirect that trades
    a `?token=` in the address for a cookie, or a refusal)."""
    if access.token is None:
        return None
    offered = request.query_params.get(TOKEN_PARAM)
    if offered is not None and hmac.compare_digest(offered, access.token):
        rest = [(k, v) for k, v in request.query_params.multi_items() if k != TOKEN_PARAM]
        target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(TOKEN_COOKIE, access.token, httponly=True, samesite="strict")
        return response
    cookie = request.cookies.get(TOKEN_COOKIE, "")
    bearer = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
    if any(c and hmac.compare_digest(c, access.token) for c in (cookie, bearer)):
        return None
    raise Refused(401, "open the address that `lethe ui` printed (it carries the access token)")


def csrf_token(request: Request) -> str:
    """The value forms must send back: the cookie's, or a new one set on this response."""
    token = request.cookies.get(CSRF_COOKIE)
    if not token:
        token = getattr(request.state, "new_csrf", None) or secrets.token_urlsafe(24)
        request.state.new_csrf = token
    return token


async def read_form(request: Request) -> dict[str, list[str]]:
    """The fields of a change request, once it has shown it comes from the inspector's own
    page: a POST, same origin, with the CSRF field matching the cookie."""
    if request.method != "POST":
        raise Refused(405, "changes are made with POST from the inspector's own forms")
    origin = request.headers.get("origin")
    if origin is not None and origin != "null":
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        if origin != own:
            raise Refused(403, "cross-site request refused: use the inspector's own page")
    kind = request.headers.get("content-type", "").split(";")[0].strip()
    if kind != "application/x-www-form-urlencoded":
        raise Refused(415, "send the inspector's form (application/x-www-form-urlencoded)")
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise Refused(413, f"form over {MAX_FORM_BYTES} bytes")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except UnicodeDecodeError:
        raise Refused(400, "the form is not UTF-8") from None
    sent = fields.get(CSRF_FIELD, [""])[0]
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not (sent and cookie and hmac.compare_digest(sent, cookie)):
        raise Refused(403, "CSRF check failed: reload the page and try again")
    return fields


Handler = Callable[[Request], Awaitable[Response]]


def guard(access: Access) -> Callable[[Request, Handler], Awaitable[Response]]:
    """Middleware: Host and token checks before any page, safety headers and the CSRF cookie
    after it."""

    async def dispatch(request: Request, call_next: Handler) -> Response:
        try:
            check_host(access, request)
            early = check_token(access, request)
        except Refused as refused:
            response: Response = PlainTextResponse(refused.message, status_code=refused.status)
        else:
            response = early if early is not None else await call_next(request)
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        fresh = getattr(request.state, "new_csrf", None)
        if fresh and not request.cookies.get(CSRF_COOKIE):
            response.set_cookie(CSRF_COOKIE, fresh, httponly=True, samesite="strict")
        return response

    return dispatch
