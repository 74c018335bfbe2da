"""The byte scan: every file lethe owns, read raw, searched for every needle at once.

Raw bytes, not SQL: a row deleted without `secure_delete`, an old page image in the WAL, a
stale vector snapshot or a workspace line are all invisible to a query and plain to anyone
who copies the file. Needles are matched without ASCII case, all at once (Aho-Corasick), so
the cost is one pass over the files whatever their number; each file's SHA-256 is taken in
the same pass, for the receipt.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import ahocorasick

CHUNK_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class ScannedFile:
    path: str
    bytes: int
    sha256: str


@dataclass(frozen=True)
class Hit:
    """Needle `needle` (an index into the caller's list) found in `path` at `offset`."""

    needle: int
    path: str
    offset: int


def _key(needle: str) -> str:
    # The automaton works on str: bytes as latin-1 are one character per byte.
    return needle.encode().lower().decode("latin-1")


def _alnum(ch: str) -> bool:
    return ch < "\x80" and ch.isalnum()


def scan(
    files: Sequence[Path], needles: Sequence[str], whole: Sequence[bool] = ()
) -> tuple[list[ScannedFile], list[Hit]]:
    """Each existing file (size and SHA-256 as read) and the first place each needle was
    found in each file. A needle marked `whole` counts only with no ASCII letter or digit
    right before or after it, nor a decimal point before a number (4821 is found neither in
    48213 nor in 0.4821). A file that vanished meanwhile (a
    WAL being truncated) is skipped."""
    automaton = ahocorasick.Automaton()
    longest = 1
    for index, needle in enumerate(needles):
        key = _key(needle)
        if not key:
            continue
        previous = automaton.get(key, None)
        automaton.add_word(key, (*previous, index) if previous else (index,))
        longest = max(longest, len(key))
    searching = len(automaton) > 0
    if searching:
        automaton.make_automaton()
    scanned: list[ScannedFile] = []
    hits: list[Hit] = []
    for path in files:
        seen: set[int] = set()
        digest = hashlib.sha256()
        size = 0
        tail = b""
        try:
            with path.open("rb") as handle:
                while chunk := handle.read(CHUNK_BYTES):
                    digest.update(chunk)
                    window = tail + chunk
                    if searching:
                        text = window.lower().decode("latin-1")
                        for end, found in automaton.iter(text):
                            for index in found:
                                key = _key(needles[index])
                                first = end - len(key) + 1
                                if (
                                    index < len(whole)
                                    and whole[index]
                                    and (
                                        (first > 0 and _alnum(text[first - 1]))
                                        or (end + 1 < len(text) and _alnum(text[end + 1]))
                                    )
                                ):
                                    continue
                                if index not in seen:
                                    seen.add(index)
                                    start = size - len(tail) + first
                                    hits.append(Hit(index, str(path), start))
                    tail = window[-(longest - 1) :] if longest > 1 else b""
                    size += len(chunk)
        except FileNotFoundError:
            continue
        scanned.append(ScannedFile(str(path), size, digest.hexdigest()))
    return scanned, hits
