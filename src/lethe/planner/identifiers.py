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

One identifier has many spellings, so separators inside it do not count — only for matching,
and only whole: a number written in parts ("+1 (555) 010-4477", "555 010 4477", "5550104477",
"48 213") is one identifier, held by a memory one run of which (groups joined by spaces
between digits, or by - _ . ( ) / + :) spells the same characters; "ORD2024001" is held by
"ORD-2024-001". A country code given on one side ("+1 …") may be missing on the other when
ten or more digits remain. An identifier is held only as a whole run: "4821" is not held by
"48213", "555-0104" not by "555 0104 99", nor "order_2024_001" by "order_2024_0010"; a run
that goes on after a separator with words only holds it ("sk-17quami0uz-secret" holds the key
sk-17quami0uz: a tail such as -secret, -prod or -live names the key's use, not another key).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from lethe.common.scripts import STOPWORDS

_GROUP = re.compile(r"[0-9]+|[a-z]+")
_CHUNK = re.compile(r"\S+")
_FULL_WIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}


def plain_width(text: str) -> str:
    """Full-width ASCII forms (and the ideographic space) as plain ones: ４４７１ is 4471."""
    if text.isascii():  # (every form translated is beyond ASCII)
        return text
    return text.translate(_FULL_WIDTH)


def _fold(text: str) -> str:
    """NFC, full-width forms as plain ASCII, case folded. Not NFKC: it would read 10² as
    102 and ① as 1, other numbers than the ones written."""
    return plain_width(unicodedata.normalize("NFC", text)).casefold()


Identifier = tuple[str, ...]


_NUMBER_PART = re.compile(r"^[+(]*[0-9][0-9()\-./]*$")
COUNTRY = "+"
"""First group of an identifier written with a leading +: its next group is a country code."""


def _chunks(text: str) -> list[str]:
    """Whitespace chunks, with a number written in parts ("+1 (555) 010-4477") as one."""
    out: list[str] = []
    numeric = False
    for chunk in _CHUNK.findall(text):
        part = bool(_NUMBER_PART.match(chunk))
        if out and part and numeric:
            out[-1] = f"{out[-1]} {chunk}"
        else:
            out.append(chunk)
        numeric = part
    return out


# Where ASCII letters and digits meet a script written without spaces: 「注文番号SO-8294のことは」
# holds the identifier SO-8294, "0898の番号" the number 0898.
_SCRIPT_EDGE = re.compile(r"(?<=[0-9a-z+\-])(?=[^\x00-\x7f\s])|(?<=[^\x00-\x7f\s])(?=[0-9a-z+])")
_PREFIX = re.compile(r"[a-z]{2,4}|[a-z]+[0-9]+")
_NUMBER = re.compile(r"[+(]*[0-9][0-9()\-./ ]*[0-9)]")
_NOT_PREFIX = STOPWORDS | frozenset(
    [
        "about",
        "over",
        "also",
        "just",
        "only",
        "some",
        "any",
        "all",
        "code",
        "pin",
        "ref",
        "tel",
        "fax",
        "call",
        "dial",
        "text",
        "otp",
        "phone",
        "mail",
    ]
)


_JOINED = re.compile(r"[0-9][-./][0-9]")


def _prefixed(chunks: list[str]) -> list[str]:
    """A short code word written apart from the number it starts ("PO 2024 0110", "DE83 2690
    7806 …") is part of it, when the number has parts of its own."""
    out: list[str] = []
    for chunk in chunks:
        prev = out[-1] if out else ""
        numeric = bool(_NUMBER.fullmatch(chunk)) and len(_GROUP.findall(chunk)) > 1
        # A number whose parts are joined by its own separators ("SSN 123-45-6789", "card
        # 4111-1111-1111-1111") is whole already: the word before it labels it.
        whole = bool(_JOINED.search(chunk))
        if numeric and not whole and _PREFIX.fullmatch(prev) and prev not in _NOT_PREFIX:
            out[-1] = f"{prev} {chunk}"
        else:
            out.append(chunk)
    return out


def identifiers(request: str) -> list[Identifier]:
    """The identifiers a request names, each as its groups (see the module's docstring)."""
    found: list[Identifier] = []
    for chunk in _prefixed(_chunks(_SCRIPT_EDGE.sub(" ", _fold(request)))):
        if any(c.isdigit() for c in chunk) or "@" in chunk:
            groups = tuple(_GROUP.findall(chunk))
            # A word glued to a number in a script without spaces (「コード48213を」) is not
            # part of the identifier: keep its digit groups only. ASCII letters written with
            # the digits are (ORD-2024-001, 10am, bob@example.com).
            kept = groups if chunk.isascii() else tuple(g for g in groups if g.isdigit())
            if kept and chunk.startswith("+") and kept[0].isdigit():
                kept = (COUNTRY, *kept)
            if kept and kept not in found:
                found.append(kept)
    return found


_RUN_GLUE = re.compile(r"[-_.()/+:]*")
# A colon before a space ends a label ("in 2020: +44 …"), and a + after a space begins a new
# number (its country code): neither joins two numbers into one.
_BREAK = re.compile(r":\s|\s\+")
_DIGITS_GLUE = re.compile(r"[\s\-_.()/+:]*")


def _runs(text: str) -> list[tuple[list[str], bool, list[bool]]]:
    """The text's groups in runs — the parts of one identifier as it may have been written:
    groups joined by - _ . ( ) / + : (or by spaces between two digit groups, or by a comma
    before three digits: 1,200). Each run says whether a + came right before it, and for each
    group whether a separator came before it inside the run ("sk-17quami": no, yes, no)."""
    folded = _fold(text)
    runs: list[tuple[list[str], bool, list[bool]]] = []
    last_end, last = -1, ""
    for m in _GROUP.finditer(folded):
        group = m.group()
        between = folded[last_end : m.start()] if last_end >= 0 else None
        digits = last.isdigit() and group.isdigit()
        glued = between is not None and (
            (
                (_DIGITS_GLUE if digits else _RUN_GLUE).fullmatch(between) is not None
                and not _BREAK.search(between)
                # "key:sk-8h…", "https://api…": a word alone before a colon labels what
                # follows, it is no part of it.
                and not (":" in between and len(runs[-1][0]) == 1 and last.isalpha())
            )
            or (digits and between == "," and len(group) == 3)
        )
        if glued:
            runs[-1][0].append(group)
            runs[-1][2].append(bool(between))
        else:
            runs.append(([group], folded[: m.start()].rstrip(" (").endswith("+"), [False]))
        last_end, last = m.end(), group
    return runs


_UNITS = frozenset({"am", "pm", "h", "kg", "g", "mg", "km", "m", "cm", "mm", "ml", "l"})
"""Units written onto a number (10am, 50mg): "at 10 am" names the 10 of "10am"."""


def _digit_core(run: list[str], wanted: tuple[str, ...]) -> list[str]:
    """The run without the words (three letters or more) at an end where the wanted
    identifier has digits: "1-year-old" holds 1, but "ORD-2024-001-B" does not hold
    ORD-2024-001."""
    start, end = 0, len(run)
    if wanted[0].isdigit():
        while start < end and len(run[start]) >= 3 and not run[start].isdigit():
            start += 1
    if wanted[-1].isdigit():
        while (
            end > start
            and not run[end - 1].isdigit()
            and (len(run[end - 1]) >= 3 or run[end - 1] in _UNITS)
        ):
            end -= 1
    return run[start:end]


def holds(text: str, wanted: Identifier) -> bool:
    """Whether the text holds this identifier as a whole: its groups are whole runs of the
    text, one after another; or one run spells it, separators aside. A country code (a run
    or request starting with +) may be missing on one side when ten or more digits remain."""
    plain = wanted[1:] if wanted and wanted[0] == COUNTRY else wanted
    if not plain:
        return False
    full = "".join(plain)
    dropped = "".join(plain[1:]) if plain is not wanted and len(plain) > 1 else None
    runs = _runs(text)
    for i, (run, plus, separated) in enumerate(runs):
        # A country code may be missing on one side, never different on both (+44 … is not
        # +1 …), and only when ten or more digits remain to compare.
        spellings = {full}
        if dropped is not None and not plus and len(dropped) >= 10:
            spellings.add(dropped)
        forms = [run]
        rest = "".join(run[1:])
        if plus and plain is wanted and len(run) > 1 and len(run[0]) <= 3 and len(rest) >= 10:
            forms.append(run[1:])
        # Words written onto a number ("1-year-old", "ORD-2024-5035" for a request that kept
        # only the digits of 「注文ORD-2024-5035」) are not part of it.
        core = _digit_core(run, plain)
        if core != run:
            forms.append(core)
        for form in forms:
            joined = "".join(form)
            if joined in spellings:
                return True
            # "+14159713077" is +1 415 971 3077 written without a space: its country code may
            # be missing on the other side, when ten or more digits remain.
            glued_country = plus and len(form) == 1 and joined.isdigit() and len(full) >= 10
            if glued_country and joined.endswith(full) and 0 < len(joined) - len(full) <= 3:
                return True
            # Whole runs, one after another: "10 am" holds 10am, "ord 2024 001" ORD-2024-001,
            # "DE 3094 5961 …" the IBAN DE3 094 596 ….
            groups = list(form)
            for following, _, _ in runs[i + 1 :]:
                if len(groups) >= len(plain) and len("".join(groups)) >= len(full):
                    break
                # Across a space only where letters meet digits ("DE 3094"): "1, 200" is
                # two numbers, not 1200.
                crosses = bool(groups) and groups[-1].isdigit() != following[0].isdigit()
                groups += following
                if crosses and "".join(groups) == full:
                    return True
            if tuple(groups) == plain or tuple(form) == plain:
                return True
        if _word_tail(run, separated, plain):
            return True
    return False


def _word_tail(run: list[str], separated: list[bool], plain: Identifier) -> bool:
    """A stored identifier that goes on after a separator with words only is the one asked
    for: "sk-17quami0uz-secret" holds sk-17quami0uz, a key given without its tail. A tail of
    digits or short groups is another identifier ("ORD-2024-001-B", "order_2024_0010"), and so
    is a tail glued on without a separator ("sk-17quami0uzx")."""
    n = len(plain)
    if len(run) <= n or tuple(run[:n]) != plain or not separated[n]:
        return False
    return all(group.isalpha() and len(group) >= 3 for group in run[n:])


def holds_all(text: str, wanted: list[Identifier]) -> bool:
    return all(holds(text, w) for w in wanted)


def shown(wanted: list[Identifier]) -> str:
    """The identifiers as a person would read them in a reason."""
    return ", ".join(
        ("+" + "-".join(w[1:])) if w and w[0] == COUNTRY else "-".join(w) for w in wanted
    )


_WIDE = {code - 0xFEE0: code for code in range(0xFF01, 0xFF5F)}
_NEEDLE = 3
"""The shortest group searched for as written inside a text."""


def needles(codes: Sequence[Identifier]) -> list[str]:
    """How the longest group of each identifier may be written inside a text that no word
    index splits (「メールの認証コードは５６６５３。」): as given, in capitals, and in
    full-width forms. A scan finds the memories that contain one; `holds_all` then decides."""
    out: list[str] = []
    for code in codes:
        group = max((g for g in code if g != COUNTRY), key=len, default="")
        if len(group) < _NEEDLE:
            continue
        for form in (group, group.upper()):
            out += [form, form.translate(_WIDE)]
    return list(dict.fromkeys(out))
