"""What every tool call needs besides its arguments: the engine (opened in the background by
`lethe.mcp.loader`, so `initialize` and `tools/list` never wait for the model), the caller's
grant, and the session that the two-call rule is keyed by."""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mcp.server.mcpserver import Context
from mcp_types.version import is_version_at_least

from lethe.mcp.access import LOCAL, AccessDenied, Grant, Role, Tokens
from lethe.mcp.loader import EngineLoader
from lethe.mcp.profiles import CORE_PROFILE, Profile

if TYPE_CHECKING:
    from lethe.engine import Lethe
    from lethe.engine.forget_session import ForgetSession
    from lethe.forget.sweep import SweepPlan
FORGET_SESSION_TTL_S = 1800.0
"""A forget-mode instruction is good for half an hour; then the prompt starts it again."""
MAX_FORGET_SESSIONS = 256
LOCAL_ACTOR = "mcp"
"""The audit actor of a local client that gave no name (and of calls made outside MCP)."""
MAX_ACTOR_CHARS = 128


@dataclass
class Runtime:
    loader: EngineLoader
    tokens: Tokens = field(default_factory=lambda: Tokens({}))
    allow_purge: bool = False
    profile: Profile = CORE_PROFILE
    """`lethe mcp --tools`: which tools clients are shown (see `lethe.mcp.profiles`)."""
    local_actor: str | None = None
    """`lethe mcp --actor NAME`: who the audit log names for a client without a token (stdio,
    or loopback HTTP without tokens), in place of the name the client gave in `initialize`."""
    process_session: str = field(default_factory=lambda: f"mcp-{uuid.uuid4().hex[:12]}")
    forget_sessions: dict[str, ForgetSession] = field(default_factory=dict)
    """Forget mode: one guarded session per MCP session, set by the forget-mode prompt."""
    sweep_plans: dict[tuple[str, str], SweepPlan] = field(default_factory=dict)
    """Sweep reports shown to a session, executable by their id (two calls, like forget)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def keep_sweep_plan(self, session: str, plan: SweepPlan) -> None:
        with self._lock:
            while len(self.sweep_plans) >= MAX_FORGET_SESSIONS:
                self.sweep_plans.pop(next(iter(self.sweep_plans)))
            self.sweep_plans[(session, plan.id)] = plan

    def peek_sweep_plan(self, session: str, plan_id: str) -> SweepPlan | None:
        with self._lock:
            return self.sweep_plans.get((session, plan_id))

    def take_sweep_plan(self, session: str, plan_id: str) -> SweepPlan | None:
        with self._lock:
            return self.sweep_plans.pop((session, plan_id), None)

    def keep_forget_session(self, key: str, session: ForgetSession) -> None:
        """Remember a session's forget mode; expired ones go, and past the cap the oldest."""
        with self._lock:
            self.forget_sessions.pop(key, None)
            now = time.monotonic()
            for stale in [
                k for k, s in self.forget_sessions.items() if now - s.started > FORGET_SESSION_TTL_S
            ]:
                del self.forget_sessions[stale]
            while len(self.forget_sessions) >= MAX_FORGET_SESSIONS:
                self.forget_sessions.pop(next(iter(self.forget_sessions)))
            self.forget_sessions[key] = session

    def forget_session(self, key: str) -> ForgetSession | None:
        with self._lock:
            session = self.forget_sessions.get(key)
            if session is not None and time.monotonic() - session.started > FORGET_SESSION_TTL_S:
                del self.forget_sessions[key]
                return None
            return session

    def grant(self, ctx: Context) -> Grant:
        """The caller's grant. HTTP requests were already authenticated by the middleware;
        this maps the token to its namespaces and role. stdio and token-less loopback HTTP
        act for the local user."""
        if not self.tokens:
            return LOCAL
        headers = ctx.headers or {}
        grant = self.tokens.grant_for(headers.get("authorization"))
        if grant is None:
            raise AccessDenied("missing or unknown bearer token")
        return grant

    def enter(self, ctx: Context, role: Role, namespace: str | None) -> tuple[Lethe, Grant, str]:
        """Check the caller may do this here, then hand over the engine and the namespace."""
        grant = self.grant(ctx)
        grant.require(role)
        return self.loader.get(), grant, grant.namespace(namespace)

    def actor(self, ctx: Context, grant: Grant) -> str:
        """Who the audit log names: who is authenticated, never an argument of the call.

        Over HTTP with tokens, the token's name. A client without a token (stdio, or loopback
        HTTP without tokens) is the local user's own: `--actor NAME` if the server was started
        with it, else the name the client gave in `initialize` (`clientInfo.name`, e.g.
        "claude-code"), else "mcp". `agent` (whose memory it is) is a separate field."""
        if grant is not LOCAL:
            return grant.name
        return self.local_actor or client_name(ctx) or LOCAL_ACTOR

    def stateless(self, ctx: Context) -> bool:
        """An HTTP client of the stateless protocol (no `mcp-session-id`): nothing tells two
        such clients with one token apart, so a session key alone cannot confirm for them."""
        headers = ctx.headers
        return headers is not None and not headers.get("mcp-session-id")

    def two_call_session(
        self, ctx: Context, grant: Grant, confirmation: str | None
    ) -> tuple[str, str | None]:
        """The key of the two-call rule for this call, and the one-time code a client without
        a session must repeat (None for everyone else): nothing tells two such clients with
        one token apart, so the confirming call must repeat a code only this client was
        given (the one it passes back, or a new one)."""
        session = self.session(ctx, grant)
        if not self.stateless(ctx):
            return session, None
        code = confirmation or secrets.token_hex(8)
        return f"{session}-{code}", code

    def session(self, ctx: Context, grant: Grant) -> str:
        """The key of the two-call rule: the MCP session id over HTTP, the process over stdio
        (one client per process). A client without a session id (the stateless protocol
        era) is keyed by its token, so one client still cannot confirm another's item."""
        headers = ctx.headers
        if headers is None:
            return self.process_session
        session_id = headers.get("mcp-session-id")
        if session_id:
            # Bound to the grant too: another token holding this session id gets another key
            # (and the HTTP layer refuses it that session in the first place).
            return session_key("mcp", grant.name, session_id)
        return session_key("token", grant.name)


SESSION_NAME_CHARS = 40
"""How much of a token's name a session key shows, for people reading the pending list."""


def session_key(kind: str, name: str, *parts: str) -> str:
    """A key of the two-call rule: `kind`, the start of the token's name (readable) and a
    digest of the whole name and `parts`, so keys differ whenever any of them differs and
    stay short whatever their length (pending rows hold at most 128 characters)."""
    digest = hashlib.sha256(json.dumps([name, *parts]).encode()).hexdigest()[:24]
    shown = "".join(c if c.isalnum() or c in "._@:-" else "_" for c in name[:SESSION_NAME_CHARS])
    return f"{kind}-{shown}-{digest}"


def client_name(ctx: Context) -> str | None:
    """The name the client gave in `initialize` (or in a 2026 request's envelope), as one
    line of at most 128 characters; None when it gave none or there is no request."""
    try:
        params = ctx.session.client_params
    except ValueError:  # a Context outside a request
        return None
    info = getattr(params, "client_info", None)
    name = getattr(info, "name", None)
    if not isinstance(name, str):
        return None
    text = " ".join("".join(c for c in name if c.isprintable()).split())
    return text[:MAX_ACTOR_CHARS] or None


def can_elicit(ctx: Context) -> bool:
    """Whether this call can ask the client's human a question (a form elicitation)."""
    caps = ctx.client_capabilities
    if caps is None or caps.elicitation is None:
        return False
    if caps.elicitation.form is None and caps.elicitation.url is not None:
        return False  # URL-only clients cannot answer a form; the two-call rule applies
    version = ctx.protocol_version
    if version is not None and is_version_at_least(version, "2026-07-28"):
        return True  # asked through the retry flow, no back-channel needed
    return bool(ctx.session.can_send_request)
