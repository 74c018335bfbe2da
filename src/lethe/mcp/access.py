"""Who may do what over HTTP: bearer tokens, each bound to namespaces and a role.

The token file is TOML, one `[[token]]` table per client:

    [[token]]
    name = "claude-desktop"          # shown in the audit log as the actor
    token = "…long random string…"
    namespaces = ["default", "work"]  # "*" for every namespace
    role = "forget"                   # read < write < forget

stdio needs no token: the server is the user's own process, started by their client.
"""

from __future__ import annotations

import hmac
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from lethe.common import validate
from lethe.common.identifiers import DEFAULT_NAMESPACE
from lethe.errors import InvalidInput, LetheError

Role = Literal["read", "write", "forget"]
ROLES: tuple[Role, ...] = ("read", "write", "forget")
ALL = "*"
MIN_TOKEN_LENGTH = 16


class AccessDenied(LetheError):
    """The caller's token does not reach this namespace or does not carry this role."""


@dataclass(frozen=True)
class Grant:
    name: str
    namespaces: tuple[str, ...]
    role: Role

    def require(self, role: Role) -> None:
        if ROLES.index(self.role) < ROLES.index(role):
            raise AccessDenied(
                f"this client's role is {self.role!r}; this tool needs {role!r}",
                hint="ask the server's operator for a token with that role",
            )

    def namespace(self, requested: str | None) -> str:
        """The namespace a call works in: the one asked for, if the grant reaches it."""
        if requested is None:
            return DEFAULT_NAMESPACE if ALL in self.namespaces else self.namespaces[0]
        requested = validate.namespace(requested)
        if ALL not in self.namespaces and requested not in self.namespaces:
            raise AccessDenied(
                f"this client may not use namespace {requested!r}",
                hint=f"its namespaces are: {', '.join(self.namespaces)}",
            )
        return requested


LOCAL = Grant(name="local", namespaces=(ALL,), role="forget")
"""The grant of a stdio client or of a loopback HTTP server without tokens."""


class Tokens:
    """Bearer tokens and their grants, compared in constant time."""

    def __init__(self, grants: dict[str, Grant]) -> None:
        self._grants = grants

    def __bool__(self) -> bool:
        return bool(self._grants)

    def grant_for(self, authorization: str | None) -> Grant | None:
        if not authorization or not authorization.startswith("Bearer "):
            return None
        offered = authorization.removeprefix("Bearer ").strip().encode()
        found = None
        for token, grant in self._grants.items():
            if hmac.compare_digest(offered, token.encode()):
                found = grant
        return found

    @classmethod
    def load(cls, path: Path) -> Tokens:
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise InvalidInput(f"cannot read token file {path}: {exc}") from None
        entries = data.get("token", [])
        if not isinstance(entries, list) or not entries:
            raise InvalidInput(
                f"{path} holds no [[token]] tables",
                hint='add one: [[token]] name = "me", token = "…", namespaces = ["default"], '
                'role = "read"',
            )
        grants: dict[str, Grant] = {}
        for n, entry in enumerate(entries, 1):
            token, grant = _entry(path, n, entry)
            if token in grants:
                raise InvalidInput(f"{path}: token {n} repeats the token of another entry")
            if any(g.name == grant.name for g in grants.values()):
                raise InvalidInput(
                    f"{path}: token {n} repeats the name {grant.name!r}",
                    hint="names identify clients in the audit log and must be unique",
                )
            grants[token] = grant
        return cls(grants)


def _entry(path: Path, n: int, entry: Any) -> tuple[str, Grant]:
    where = f"{path}: token {n}"
    if not isinstance(entry, dict):
        raise InvalidInput(f"{where} is not a table")
    unknown = set(entry) - {"name", "token", "namespaces", "role"}
    if unknown:
        raise InvalidInput(f"{where} has unknown keys: {', '.join(sorted(unknown))}")
    token, role = entry.get("token"), entry.get("role", "read")
    if not isinstance(token, str) or len(token) < MIN_TOKEN_LENGTH:
        raise InvalidInput(f"{where}: token must be a string of at least {MIN_TOKEN_LENGTH} chars")
    if role not in ROLES:
        raise InvalidInput(f"{where}: role must be one of {', '.join(ROLES)}, got {role!r}")
    namespaces = entry.get("namespaces", [DEFAULT_NAMESPACE])
    if not isinstance(namespaces, list) or not namespaces:
        raise InvalidInput(f"{where}: namespaces must be a non-empty list")
    checked = tuple(ns if ns == ALL else validate.namespace(ns) for ns in namespaces)
    name = validate.label(str(entry.get("name", f"token-{n}")), "token name")
    return token, Grant(name=name, namespaces=checked, role=role)
