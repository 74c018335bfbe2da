"""Names from other memories made to fit lethe's rules, changed only when they must be.

A changed namespace carries a hash of the original name: two users whose ids differ only in
characters lethe does not allow ("Ana Lima", "Ana_Lima") must never end up in one namespace,
and the same id must map to the same namespace on every import, so a re-import finds its
duplicates.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE, NAMESPACE_RE
from lethe.common.validate import MAX_LABEL_CHARS, RESERVED_NAMESPACES

_NOT_NAMESPACE = re.compile(r"[^A-Za-z0-9_.:@-]+")
_SPACES = re.compile(r"\s+")


def namespace_for(name: str | None) -> str:
    """The namespace a source's user id is stored under."""
    if name is None or not name.strip():
        return DEFAULT_NAMESPACE
    if NAMESPACE_RE.match(name) and name.lower() not in RESERVED_NAMESPACES:
        return name
    ascii_ = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    base = _NOT_NAMESPACE.sub("_", ascii_).lstrip("_.:@-")[:48].rstrip("_")
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{base or 'user'}-{digest}"


def agent_for(name: str | None) -> str:
    """An agent name: one line of at most `MAX_LABEL_CHARS` characters."""
    if name is None or not name.strip():
        return DEFAULT_AGENT
    return " ".join(name.split())[:MAX_LABEL_CHARS].strip()


def link_kind(relation: str) -> str:
    """A link kind from a relation type: one line, words joined by `_` (like lethe's own
    `near_duplicate`), at most `MAX_LABEL_CHARS` characters; `related` when it is empty."""
    kind = _SPACES.sub("_", relation.strip())[:MAX_LABEL_CHARS]
    return kind or "related"
