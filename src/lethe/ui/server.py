"""Starting the inspector: refuse an open network address without a token, open the engine
before listening (so the first page does not wait for the model), print the address."""

from __future__ import annotations

import secrets
import socket
from collections.abc import Callable

import uvicorn

from lethe.common.hosts import is_loopback
from lethe.engine import Lethe
from lethe.errors import InvalidInput
from lethe.ui.app import create_app
from lethe.ui.security import TOKEN_PARAM, Access


def address(host: str, port: int, token: str | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/" + (f"?{TOKEN_PARAM}={token}" if token else "")


def serve(
    engine: Lethe,
    *,
    host: str = "127.0.0.1",
    port: int = 8766,
    token: str | None = None,
    announce: Callable[[str], None] = print,
) -> None:
    """Serve until interrupted. Off loopback a token is required; `token="auto"` makes one."""
    loopback = is_loopback(host)
    if token == "auto":
        token = secrets.token_urlsafe(24)
    if not loopback and not token:
        raise InvalidInput(
            f"refusing to serve {host} without a token: anyone who can reach it could read "
            "and forget memories",
            hint="give --token (or --token auto), or bind to 127.0.0.1",
        )
    if token is not None and len(token) < 16:
        raise InvalidInput("the token must be at least 16 characters", hint="use --token auto")
    app = create_app(engine, Access(token=token, loopback=loopback, port=port))
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise InvalidInput(
                f"cannot listen on {host}:{port}: {exc.strerror}",
                hint="pick another --port, or stop what is using it",
            ) from None
    announce(f"lethe inspector at {address(host, port, token)}")
    uvicorn.run(app, host=host, port=port, log_level="warning")
