"""What the chat exports (`claude`, `chatgpt`) share: reading `conversations.json` wherever
the person has it, and turning a message into memories of one conversation.

A chat is a conversation, so each turn keeps `metadata.session` (the conversation's id) and
`metadata.speaker` (`user` or `assistant`): recall then ranks a turn with the turns around
it (`lethe.common.context`), which is what makes an elliptical answer ("Went hiking with my
sister") findable by the question it answers.

A turn longer than the store's content limit is not refused (a long answer is legitimate)
and not cut: it is split at paragraph, then line, then sentence, then word boundaries into
consecutive memories of the same conversation, each carrying `part` and `parts`.

Every field a turn gets is derived from the export alone, in a fixed order, so the same
export gives the same memories: a re-import is all exact duplicates, and a newer export of a
conversation adds only its new turns.
"""

from __future__ import annotations

import json
import lzma
import os
import re
import struct
import unicodedata
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from lethe.common.validate import MAX_LABEL_CHARS, unreadable_json
from lethe.errors import InvalidInput
from lethe.importers.parsed import NOT_UTF8_HINT, Item, Parsed, decode, shown

EXPORT_FILE = "conversations.json"
MAX_UNZIPPED_BYTES = 2 * 1024**3
"""The most `conversations.json` read out of a zip may hold once inflated: a real export of
years of chats is a few hundred MB, and a zip bomb must stop here, not in memory."""
MAX_ZIP_ENTRIES = 1_000_000
"""The most entries a zip may declare: an export with years of images holds tens of
thousands; Python's zipfile would spend memory on each of millions before reading one."""
_CHUNK = 1024 * 1024
_END_RECORD = 22
_LATEST = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC).timestamp()


def read_export(path: Path, what: str) -> tuple[bytes, str]:
    """The bytes of `conversations.json` and where they came from: the file itself, the one
    in a folder (the unzipped export), or the one inside the export's zip, read without
    unpacking anything else. A path that cannot be read is the caller's mistake, not a
    record's, so it raises rather than refusing records."""
    hint = f"give {EXPORT_FILE} from the {what} export (the zip, its folder, or the file)"
    if path.is_dir():
        inside = path / EXPORT_FILE
        if not inside.is_file():
            raise InvalidInput(f"{path} is a folder without {EXPORT_FILE}", hint=hint)
        path = inside
    if path.exists() and not path.is_file():
        # A device (/dev/zero never ends) or a pipe (opening it waits for a writer).
        raise InvalidInput(
            f"{path} is not a file (a device, a pipe or a socket)",
            hint=f"save the export to a file and give its path; {hint}",
        )
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
            if head != b"PK\x03\x04":
                return head + _read_all(handle, path, len(head)), str(path)
    except FileNotFoundError:
        raise InvalidInput(f"there is no file {path}", hint=hint) from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    return _from_zip(path, hint), f"{path}:{EXPORT_FILE}"


def _read_all(handle: BinaryIO, path: Path, size: int) -> bytes:
    """The rest of a file, or a refusal once it holds more than `MAX_UNZIPPED_BYTES`."""
    chunks: list[bytes] = []
    while chunk := handle.read(_CHUNK):
        size += len(chunk)
        if size > MAX_UNZIPPED_BYTES:
            raise InvalidInput(
                f"{path} is over {_bytes(MAX_UNZIPPED_BYTES)}; it was not read",
                hint="split its list of conversations into files under that size and import each",
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _from_zip(path: Path, hint: str) -> bytes:
    redo = f"unzip it yourself and give {EXPORT_FILE}"
    try:
        entries = _zip_entries(path)
        if entries is not None and entries > MAX_ZIP_ENTRIES:
            raise InvalidInput(
                f"the zip {path} declares {entries:,} entries, over the {MAX_ZIP_ENTRIES:,} "
                "an export holds; it was not read",
                hint=redo,
            )
        with zipfile.ZipFile(path) as archive:
            names = [
                info
                for info in archive.infolist()
                if not info.is_dir() and info.filename.rsplit("/", 1)[-1] == EXPORT_FILE
            ]
            if not names:
                raise InvalidInput(f"the zip {path} holds no {EXPORT_FILE}", hint=hint)
            if len(names) > 1:
                # Two exports zipped together, or one entry twice: reading either would
                # leave the other's conversations out without a word.
                listed = ", ".join(shown(i.filename) for i in names[:5])
                raise InvalidInput(
                    f"the zip {path} holds {len(names)} files named {EXPORT_FILE} ({listed}); "
                    "it is not one export",
                    hint=f"unzip it and give each {EXPORT_FILE} in turn",
                )
            [info] = names
            if info.file_size > MAX_UNZIPPED_BYTES:
                raise _too_big(path)
            chunks: list[bytes] = []
            size = 0
            with archive.open(info) as member:
                # The size a zip declares can lie: count what actually comes out.
                while chunk := member.read(_CHUNK):
                    size += len(chunk)
                    if size > MAX_UNZIPPED_BYTES:
                        raise _too_big(path)
                    chunks.append(chunk)
            return b"".join(chunks)
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        NotImplementedError,
        EOFError,
        zlib.error,  # a damaged deflate stream
        lzma.LZMAError,
        OSError,  # bz2's damaged stream, or the disk
    ) as exc:
        raise InvalidInput(
            f"{path} looks like a zip but cannot be read ({exc})", hint=redo
        ) from None
    except RuntimeError as exc:  # an encrypted member
        raise InvalidInput(f"cannot read {EXPORT_FILE} in {path}: {exc}", hint=redo) from None


def _zip_entries(path: Path) -> int | None:
    """How many entries the zip's end record declares, read before Python's `zipfile` builds
    an object for each (millions of them would fill the memory); None when there is no
    end record to read (then `zipfile` says what is wrong)."""
    with path.open("rb") as handle:
        handle.seek(0, os.SEEK_END)
        size = handle.tell()
        tail_size = min(size, _END_RECORD + 0xFFFF)  # the record, then a comment
        handle.seek(size - tail_size)
        tail = handle.read(tail_size)
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or len(tail) < at + _END_RECORD:
            return None
        (entries,) = struct.unpack_from("<H", tail, at + 10)
        locator = at - 20  # a Zip64 archive counts its entries in another record
        if entries != 0xFFFF or locator < 0 or tail[locator : locator + 4] != b"PK\x06\x07":
            return int(entries)
        (offset,) = struct.unpack_from("<Q", tail, locator + 8)
        if offset > size - 56:
            return None
        handle.seek(offset)
        record = handle.read(56)
        if record[:4] != b"PK\x06\x06":
            return None
        (entries,) = struct.unpack_from("<Q", record, 32)
        return int(entries)


def _too_big(path: Path) -> InvalidInput:
    return InvalidInput(
        f"{EXPORT_FILE} in {path} inflates to over {_bytes(MAX_UNZIPPED_BYTES)}; it was not read",
        hint=f"unzip it yourself and give {EXPORT_FILE}, if it really is that large",
    )


def _bytes(count: int) -> str:
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if count >= size:
            return f"{count / size:g} {unit}"
    return f"{count} bytes"


Conversation = Callable[[Parsed, "Turns", "Tally", Any, str], None]
"""An importer's reader of one conversation record: its turns go to `Turns`, what it leaves
out to `Tally`, its malformed parts to `Parsed.bad` (at the place given)."""


def read_conversations(
    path: Path,
    *,
    source: str,
    app: str,
    agent: str,
    hint: str,
    conversation: Conversation,
    namespace: str | None,
    max_bytes: int,
) -> Parsed:
    """A chat export read whole: a list of conversations (or `{"conversations": [...]}`),
    each read by `conversation`; nothing is validated against lethe's rules yet."""
    data, origin = read_export(path, app)
    parsed = Parsed(source, origin)
    export = load_json(parsed, data, hint)
    if parsed.problems:
        return parsed
    prefix = ""
    if isinstance(export, dict) and isinstance(export.get("conversations"), list):
        prefix, conversations = "conversations", export["conversations"]
    elif isinstance(export, list):
        conversations = export
    else:
        parsed.bad("file", f"expected a list of conversations, got {type_name(export)}", hint)
        return parsed
    turns = Turns(parsed, source, agent, namespace, max_bytes)
    tally = Tally()
    for index, record in enumerate(conversations):
        parsed.records += 1
        conversation(parsed, turns, tally, record, f"{prefix}[{index}]")
    turns.report_split()
    tally.report(parsed)
    return parsed


def type_name(value: Any) -> str:
    """A JSON value's type as a refusal names it."""
    return "null" if value is None else type(value).__name__


def load_json(parsed: Parsed, data: bytes, hint: str) -> Any:
    """The export's JSON, or None with the reason in `parsed.problems`: whatever the bytes
    hold, the answer is a refusal naming where, never a traceback."""
    text = decode(data)
    if isinstance(text, tuple):
        parsed.bad(f"line {text[0]}", text[1], NOT_UTF8_HINT)
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        parsed.bad(f"line {exc.lineno}", f"not valid JSON ({exc.msg} at column {exc.colno})", hint)
    except (RecursionError, ValueError) as exc:
        parsed.bad("file", unreadable_json(exc), hint)
    return None


def session_id(parsed: Parsed, value: Any, key: str, where: str, hint: str) -> str | None:
    """The conversation's id as lethe's session: one line of at most `MAX_LABEL_CHARS`."""
    if not isinstance(value, str) or not value.strip():
        parsed.bad(where, f"the conversation's id '{key}' is missing or not text", hint)
        return None
    if len(value.strip(" ")) > MAX_LABEL_CHARS or "\n" in value or "\r" in value:
        parsed.bad(
            where,
            f"the conversation's id '{key}' is not one line of at most {MAX_LABEL_CHARS} "
            "characters",
            hint,
        )
        return None
    return value.strip(" ")


def message_id(parsed: Parsed, value: Any, key: str, where: str, hint: str) -> str | None:
    if not isinstance(value, str) or not value.strip():
        parsed.bad(where, f"the message's id '{key}' is missing or not text", hint)
        return None
    return value


def epoch_time(parsed: Parsed, value: Any, key: str, where: str) -> datetime | None:
    """Seconds since 1970 (ChatGPT's `1704067200.123`). ChatGPT writes 0 or null for a time
    it does not know: that is no time, not 1970."""
    if value is None:
        return None
    number = not isinstance(value, bool) and isinstance(value, int | float)
    if number and value == 0:
        return None
    # Compared, not converted: a number of 400 digits is no float, and NaN fails both sides.
    if not number or not 0 < value <= _LATEST:
        parsed.bad(
            where,
            f"{key} {shown(value)} is not a time in seconds since 1970",
            "write it like 1704067200.5, or make it null",
        )
        return None
    return datetime.fromtimestamp(value, UTC)


def split(text: str, max_bytes: int) -> list[str]:
    """The text in consecutive parts of at most `max_bytes` (UTF-8), cut at the widest
    boundary that makes them fit; together they hold all of it, in order, less the
    whitespace at the cuts. A text that fits once the whitespace around it is gone (the
    store keeps no more) is one part."""
    text = text.strip()
    if _size(text) <= max_bytes:
        return [text] if text else []
    parts = [part.strip() for part in _pack(text, max_bytes, 0)]
    return [part for part in parts if part]


_BOUNDARIES = (
    re.compile(r"(?<=\n\n)"),
    re.compile(r"(?<=\n)"),
    re.compile(r"(?<=[.!?]\s)|(?<=[\u3002\uff01\uff1f\uff0e])"),
    re.compile(r"(?<=\s)"),
)
"""Where a long turn is split, best first: after a paragraph, a line, a sentence (`. `, or
the ideographic full stop of Chinese and Japanese, which no space follows), a word. Each
cut is zero-width: the pieces join back to the text exactly."""


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _pack(text: str, max_bytes: int, level: int) -> list[str]:
    if _size(text) <= max_bytes:
        return [text]
    if level == len(_BOUNDARIES):
        return _cut(text, max_bytes)
    units = [unit for unit in _BOUNDARIES[level].split(text) if unit]
    chunks: list[str] = []
    current, size = "", 0
    for unit in units:
        unit_size = _size(unit)
        if size + unit_size <= max_bytes:
            current, size = current + unit, size + unit_size
            continue
        if current:
            chunks.append(current)
        if unit_size <= max_bytes:
            current, size = unit, unit_size
        else:
            *whole, current = _pack(unit, max_bytes, level + 1)
            chunks += whole
            size = _size(current)
    if current:
        chunks.append(current)
    return chunks


def _cut(text: str, max_bytes: int) -> list[str]:
    """No boundary left (a line of 40,000 characters without a space): cut between what a
    reader sees as characters (an emoji with its skin tone or its ZWJ family, a flag, a
    letter with its accents), never inside one, nor inside a UTF-8 sequence. Only a
    "character" wider than a whole part (a letter under thousands of accents) is cut
    between its code points."""
    chunks: list[str] = []
    start = 0
    while start < len(text):
        end = _fit(text, start, max_bytes)
        cut = end
        while cut > start and cut < len(text) and _inside(text, cut, start):
            cut -= 1
        if cut == start:  # one character wider than a part
            cut = end
        chunks.append(text[start:cut])
        start = cut
    return chunks


def _fit(text: str, start: int, max_bytes: int) -> int:
    """Where the most characters from `start` that fit in `max_bytes` end (at least one)."""
    window = text[start : start + max_bytes]  # no character is narrower than a byte
    encoded = window.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return start + len(window)
    cut = max_bytes
    while cut > 0 and encoded[cut] & 0xC0 == 0x80:  # back to where a character starts
        cut -= 1
    return start + max(1, len(encoded[:cut].decode("utf-8", "surrogatepass")))


def _inside(text: str, at: int, start: int) -> bool:
    """Whether `at` falls inside one character as a reader sees it (see `_joins`)."""
    indicators = 0
    while at - indicators > start and _regional(text[at - indicators - 1]):
        indicators += 1
    return _joins(text[at - 1], text[at], indicators)


_ZWJ = "\u200d"


def _joins(before: str, char: str, indicators: int) -> bool:
    point = ord(char)
    if before == "\r" and char == "\n":
        return True
    if before == _ZWJ or char == _ZWJ:
        return True
    if unicodedata.category(char) in ("Mn", "Mc", "Me"):
        return True
    if (
        0xFE00 <= point <= 0xFE0F  # variation selectors (text or emoji style)
        or 0xE0100 <= point <= 0xE01EF
        or 0x1F3FB <= point <= 0x1F3FF  # skin tones
        or 0xE0020 <= point <= 0xE007F  # tags (the flags of England, Scotland, Wales)
    ):
        return True
    if _regional(before) and _regional(char):
        return indicators % 2 == 1
    previous = ord(before)
    if 0x1160 <= point <= 0x11FF or 0xD7B0 <= point <= 0xD7FF:  # a jamo vowel or final
        return 0x1100 <= previous <= 0x11FF or 0xAC00 <= previous <= 0xD7A3
    # a leading jamo, then another or a syllable
    return (0x1100 <= previous <= 0x115F or 0xA960 <= previous <= 0xA97F) and (
        0x1100 <= point <= 0x115F or 0xA960 <= point <= 0xA97F or 0xAC00 <= point <= 0xD7A3
    )


def _regional(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


@dataclass
class Tally:
    """What a whole export does not keep, said once per kind with how many and the first
    place it is: an export of years of chats would otherwise list thousands of lines."""

    counts: dict[str, int] = field(default_factory=dict)
    first: dict[str, str] = field(default_factory=dict)
    hints: dict[str, str | None] = field(default_factory=dict)

    def add(self, what: str, where: str, hint: str | None = None, count: int = 1) -> None:
        self.counts[what] = self.counts.get(what, 0) + count
        self.first.setdefault(what, where)
        self.hints.setdefault(what, hint)

    def report(self, parsed: Parsed) -> None:
        for what, count in self.counts.items():
            parsed.drop(
                self.first[what],
                f"{count:,} {what}" + (" (the first here)" if count > 1 else ""),
                self.hints[what],
            )


@dataclass(frozen=True)
class Segment:
    """A piece of a message that becomes memories: its text, or an attachment's or an
    artifact's, named in metadata so it can be told apart from what was said."""

    text: str
    label: dict[str, str] = field(default_factory=dict)


@dataclass
class Turns:
    """Adds the memories of one export's messages to `parsed`."""

    parsed: Parsed
    source: str
    agent: str
    namespace: str | None
    max_bytes: int
    split_turns: int = 0

    def add(
        self,
        where: str,
        segments: list[Segment],
        *,
        session: str,
        speaker: str,
        title: str | None,
        message: str,
        created_at: datetime | None,
        extra: dict[str, Any] | None = None,
    ) -> int:
        """The message's memories, in order; how many. A message that gives more than one
        (a long one split, or with attachments) numbers them `part` of `parts`."""
        pieces = [
            (piece, segment.label)
            for segment in segments
            for piece in split(segment.text, self.max_bytes)
        ]
        if len(pieces) > len(segments):
            self.split_turns += 1
        for number, (piece, label) in enumerate(pieces, start=1):
            metadata: dict[str, Any] = {
                "session": session,
                "speaker": speaker,
                "source": self.source,
                "message_id": message,
            }
            if title:
                metadata["title"] = title
            metadata.update(extra or {})
            metadata.update(label)
            if len(pieces) > 1:
                metadata["part"] = number
                metadata["parts"] = len(pieces)
            fields: dict[str, Any] = {
                "content": piece,
                "agent": self.agent,
                "metadata": metadata,
                "created_at": created_at,
                "updated_at": created_at,
            }
            if self.namespace is not None:
                fields["namespace"] = self.namespace
            self.parsed.items.append(Item(where, fields))
        return len(pieces)

    def report_split(self) -> None:
        if self.split_turns:
            self.parsed.drop(
                "turns",
                f"{self.split_turns:,} message(s) longer than the content limit "
                f"({self.max_bytes:,} bytes) are each kept as consecutive parts of their "
                "conversation (metadata.part of metadata.parts); nothing was cut",
                "raise LETHE_MAX_CONTENT_BYTES to keep them whole",
            )
