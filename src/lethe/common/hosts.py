"""Which addresses count as this machine only. The faces that listen on the network (the MCP
server, the inspector) serve without credentials only on these."""

from __future__ import annotations

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    return host in LOOPBACK


def loopback_authorities(port: int) -> frozenset[str]:
    """The `Host` values that name this machine at `port`, compared whole: a prefix test let
    `127.0.0.1:8766.evil.example` and `127.0.0.1:8766@evil.example` through, and a name
    test `localhost:1`, all of which a page on another site can make a browser send."""
    names = [f"[{host}]" if ":" in host else host for host in LOOPBACK]
    found = {f"{name}:{port}" for name in names}
    if port == 80:  # the default port goes unsaid
        found.update(names)
    return frozenset(found)


def names_this_server(host_header: str, port: int) -> bool:
    return host_header.lower() in loopback_authorities(port)


def is_own_origin(origin: str, port: int) -> bool:
    """An `Origin` of a page this server served itself (plain HTTP on loopback)."""
    return origin.lower() in {f"http://{a}" for a in loopback_authorities(port)}
