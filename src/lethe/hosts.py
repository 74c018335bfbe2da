"""Which addresses count as this machine only. The faces that listen on the network (the MCP
server, the inspector) serve without credentials only on these."""

from __future__ import annotations

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    return host in LOOPBACK
