"""LangGraph namespaces as lethe namespaces, and back.

A LangGraph namespace is a tuple of labels (`("users", "u-42", "memories")`), none holding a
period; a lethe namespace is 1-64 of `A-Z a-z 0-9 _ . : @ -`, starting with a letter or digit.
The labels are joined with periods after a root (`lg` unless the store is given another), which
LangGraph forbids inside a label, so the join is unambiguous; every character lethe does not
allow — and `:` itself — is written as `:` and two hex digits per UTF-8 byte. The mapping is one
to one, and the root keeps a LangGraph agent's namespaces apart from those other faces write
(`default`).

A namespace that would not fit in lethe's 64 characters (two UUIDs and three words do not) is
named by a digest instead: the root, `.:z` (which the mapping above never writes: it writes
`:` only before two hex digits) and 40 hex digits of the SHA-256 of its labels. Such a name
does not say its labels, so each item under it keeps them (`metadata.langgraph.namespace`),
and `from_lethe` answers None for it: the store reads them from an item.
"""

from __future__ import annotations

import hashlib
import json
import re

from lethe.common.identifiers import NAMESPACE_RE

_PLAIN = re.compile(r"[A-Za-z0-9_@-]")
_ESCAPE = re.compile(r":([0-9a-f]{2})")
MAX = 64
ROOT = "lg"
DIGEST = ":z"
"""Marks a namespace named by its digest: never written by the label mapping."""


class NamespaceTooLong(ValueError):
    """A LangGraph namespace whose lethe name would pass lethe's 64 characters."""


def _label(label: str) -> str:
    out = []
    for char in label:
        if _PLAIN.fullmatch(char):
            out.append(char)
        else:
            out.extend(f":{byte:02x}" for byte in char.encode("utf-8"))
    return "".join(out)


def to_lethe(namespace: tuple[str, ...], root: str = ROOT) -> str:
    """The lethe namespace of a (valid, non-empty) LangGraph namespace: its labels, or its
    digest when they would not fit (see the module's docstring)."""
    name = ".".join([root, *(_label(label) for label in namespace)])
    if len(name) <= MAX and NAMESPACE_RE.match(name):
        return name
    labels = json.dumps(list(namespace), ensure_ascii=False).encode("utf-8")
    hashed = f"{root}.{DIGEST}{hashlib.sha256(labels).hexdigest()[:40]}"
    if not NAMESPACE_RE.match(hashed):
        raise NamespaceTooLong(
            f"the root {root!r} leaves no room for the digest of the LangGraph namespace "
            f"{namespace!r} in lethe's {MAX} characters: use a shorter root"
        )
    return hashed


def is_digest(name: str, root: str = ROOT) -> bool:
    """Whether a lethe namespace names a LangGraph namespace by its digest."""
    return name.startswith(f"{root}.{DIGEST}")


def from_lethe(name: str, root: str = ROOT) -> tuple[str, ...] | None:
    """The LangGraph namespace a lethe namespace stands for; None when it is not one
    `to_lethe` makes (a namespace written by another face)."""
    parts = name.split(".")
    if len(parts) < 2 or parts[0] != root:
        return None
    labels = []
    for part in parts[1:]:
        raw = bytearray()
        position = 0
        while position < len(part):
            escaped = _ESCAPE.match(part, position)
            if escaped:
                raw.append(int(escaped.group(1), 16))
                position = escaped.end()
            else:
                raw.extend(part[position].encode("utf-8"))
                position += 1
        try:
            label = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if not label or _label(label) != part:
            return None
        labels.append(label)
    return tuple(labels)
