"""Identifiers in a request decide by their exact tokens, never by an embedding.

An embedding barely sees numbers: "my address is 150 Elm Road" and "… 160 Elm Road", "code
48213" and "code 48218" sit at cosine 0.95 or more. So when a forget request names an
identifier — any chunk with a digit in it (codes, amounts, times, dates, phone numbers) or an
e-mail address — only a memory that holds every one of them can be marked for deletion.

Matching is on the sequence of letter and digit groups, after full-width forms become plain
ones (４４７１ is 4471) and case folding: "ORD-2024-001" is held by "ord 2024 001" (groups
ord, 2024, 001) but not by "order_2024_0010"; "alice@acme.io" is not held by
"alice.smith@acme.io"; "4821" is not held by "48213". Script boundaries separate groups, so a
Japanese memory 「認証コードは48213です」 holds the English request's 48213.
"""

from __future__ import annotations

import re
import unicodedata

_GROUP = re.compile(r"[0-9]+|[a-z]+")
_CHUNK = re.compile(r"\S+")
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def plain_width(text: str) -> str:
    """Full-width ASCII forms (and the ideographic space) as plain ones: ４４７１ is 4471."""
    return text.translate(_FULL_WIDTH)


def _fold(text: str) -> str:
    """NFC, full-width forms as plain ASCII, case folded. Not NFKC: it would read 10² as
    102 and ① as 1, other numbers than the ones written."""
    return plain_width(unicodedata.normalize("NFC", text)).casefold()


Identifier = tuple[str, ...]


def _groups(text: str) -> list[str]:
    return _GROUP.findall(_fold(text))


def identifiers(request: str) -> list[Identifier]:
    """The identifiers a request names, each as its groups (see the module's docstring)."""
    found: list[Identifier] = []
    for chunk in _CHUNK.findall(_fold(request)):
        if any(c.isdigit() for c in chunk) or "@" in chunk:
            groups = tuple(_GROUP.findall(chunk))
            # A word glued to a number in a script without spaces (「コード48213を」) is not
            # part of the identifier: keep its digit groups only. ASCII letters written with
            # the digits are (ORD-2024-001, 10am, bob@example.com).
            kept = groups if chunk.isascii() else tuple(g for g in groups if g.isdigit())
            if kept and kept not in found:
                found.append(kept)
    return found


def holds(text: str, wanted: Identifier) -> bool:
    """Whether the text holds this identifier: its groups appear in the text, in order and
    next to each other."""
    have = _groups(text)
    size = len(wanted)
    return any(tuple(have[i : i + size]) == wanted for i in range(len(have) - size + 1))


def holds_all(text: str, wanted: list[Identifier]) -> bool:
    return all(holds(text, w) for w in wanted)


def shown(wanted: list[Identifier]) -> str:
    """The identifiers as a person would read them in a reason."""
    return ", ".join("-".join(w) for w in wanted)
