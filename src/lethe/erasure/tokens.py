"""What a purge looks for afterwards: the erased text itself and its distinctive tokens.

A text can survive an erasure whole (a row, a page image, a file line) or in pieces (a
full-text index keeps words, not sentences; a long text spans overflow pages). So the scan
looks for:

- **windows** of the text: the whole text when short, else consecutive pieces of
  `WINDOW_BYTES` bytes (on character boundaries). A copy split across two pages still leaves
  most pieces whole;
- **distinctive tokens**, the words that would identify the text on their own:
  identifiers (a chunk with a digit in it, or an e-mail address: codes, phone numbers,
  amounts; not years, dates and times, which lethe writes itself in its files), capitalised
  words inside a sentence (names), long words (`LONG_WORD` letters or more), and runs of
  three or more kanji or katakana. Each must be at least `MIN_BYTES` bytes (`MIN_NUMBER` for
  an identifier): a shorter string turns up by chance in binary data (vectors, page
  headers). Tokens match only whole (no ASCII letter or digit next to them, nor a decimal
  point before a number). At most `MAX_TOKENS` per text, the longest first.

Everything is matched without ASCII case (a full-text index keeps words lower-cased), and
each token also in its lower-cased and accent-stripped forms, as the index may hold it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from lethe.common.scripts import has_cjk

WINDOW_BYTES = 96
"""Pieces of a long text the scan looks for; shorter than a page's usable space."""
MIN_BYTES = 5
"""A shorter token matches random bytes of a large file (a vector blob) by chance."""
MIN_NUMBER = 4
"""A number as short as a PIN (4821) is still looked for: it is matched only whole."""
MAX_TOKENS = 8
LONG_WORD = 9
"""Words this long are rare enough to identify a text (dictionary words seldom are)."""

_CHUNK = re.compile(r"\S+")
_EDGE = re.compile(r"^[\"'“‘(\[{<]+|[\"'”’)\]}>.,;:!?。、」』）]+$")
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u30a0-\u30ff\u31f0-\u31ff]{3,}")
_SENTENCE_END = re.compile(r"[.!?。！？]\s*$")
_CODE = re.compile(r"[0-9A-Za-z@._+\-/:#]*[0-9@][0-9A-Za-z@._+\-/:#]*")
"""An identifier inside a chunk: ASCII letters, digits and joiners around a digit (or an @),
so 「コード48213です」 gives 48213."""


@dataclass(frozen=True)
class Token:
    """A distinctive token of an erased text, with the kind of evidence it is."""

    text: str
    kind: str  # identifier, name, long word, run


_WHEN = re.compile(
    r"(?:19|20)\d\d(?:[-/.]\d{1,2}(?:[-/.]\d{1,2})?)?(?:[T ]?\d{1,2}:\d\d(?::\d\d)?)?"
    r"|\d{1,2}:\d\d(?::\d\d)?(?:am|pm)?|\d{1,2}[-/.]\d{1,2}[-/.](?:19|20)?\d\d",
    re.IGNORECASE,
)
"""Years, dates and times: lethe writes them itself (daily log names and headers, line
stamps, event times), so they identify no text."""


def _identifier(chunk: str) -> bool:
    return any(c.isdigit() for c in chunk) or ("@" in chunk and "." in chunk.split("@")[-1])


def distinctive(text: str) -> list[Token]:
    """The text's distinctive tokens (see the module's docstring), longest first."""
    found: dict[str, Token] = {}

    def add(value: str, kind: str) -> None:
        value = value.strip()
        least = MIN_NUMBER if kind == "identifier" else MIN_BYTES
        if len(value.encode()) >= least and value.lower() not in found:
            found[value.lower()] = Token(value, kind)

    previous = ""
    for raw in _CHUNK.findall(text):
        chunk = _EDGE.sub("", raw)
        if _identifier(chunk):
            for code in _CODE.findall(chunk):
                code = _EDGE.sub("", code)
                if _identifier(code) and not _WHEN.fullmatch(code):
                    add(code, "identifier")
        else:
            for word in _WORD.findall(chunk):
                if has_cjk(word):
                    continue
                starts_sentence = not previous or bool(_SENTENCE_END.search(previous))
                if word[:1].isupper() and not word.isupper() and not starts_sentence:
                    add(word, "name")
                elif (len(word) >= LONG_WORD and word.isascii()) or len(word) >= LONG_WORD + 3:
                    add(word, "long word")
        previous = raw
    for run in _CJK_RUN.findall(text):
        add(run, "run")
    ranked = sorted(found.values(), key=lambda t: -len(t.text.encode()))
    return ranked[:MAX_TOKENS]


def windows(text: str) -> list[str]:
    """The text whole when short, else its consecutive pieces of about `WINDOW_BYTES` bytes
    (the last piece joins the one before when it would be shorter than half a window); and
    the same of the text with its white space collapsed, as the workspace writes it."""
    out = _windows(text.strip())
    collapsed = " ".join(text.split())
    if collapsed != text.strip():
        out += [w for w in _windows(collapsed) if w not in out]
    return out


def _windows(data: str) -> list[str]:
    if len(data.encode()) <= WINDOW_BYTES * 2:
        return [data] if len(data.encode()) >= MIN_BYTES else []
    pieces: list[str] = []
    current: list[str] = []
    size = 0
    for ch in data:
        current.append(ch)
        size += len(ch.encode())
        if size >= WINDOW_BYTES:
            pieces.append("".join(current))
            current, size = [], 0
    if current:
        if size < WINDOW_BYTES // 2 and pieces:
            pieces[-1] += "".join(current)
        else:
            pieces.append("".join(current))
    return pieces


def forms(token: str, least: int = MIN_BYTES) -> list[str]:
    """The spellings an index may keep of a token: as written, lower-cased, and without
    accents (a full-text tokenizer that removes diacritics)."""
    lowered = token.lower()
    stripped = "".join(
        c for c in unicodedata.normalize("NFKD", lowered) if not unicodedata.combining(c)
    )
    out = [token]
    for form in (lowered, unicodedata.normalize("NFC", stripped)):
        if form not in out and len(form.encode()) >= least:
            out.append(form)
    return out
