"""What the chat exports (`claude`, `chatgpt`) share: reading `conversations.json` wherever
the person has it, and turning a message into memories of one conversation.

A chat is a conversation, so each turn keeps `metadata.session` (the conversation's id) and
`metadata.speaker` (`user` or `assistant`): recall then ranks a turn with the turns around
it (`lethe.context`), which is what makes an elliptical answer ("Went hiking with my
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
import zipfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from lethe.errors import InvalidInput
from lethe.importers.parsed import NOT_UTF8_HINT, Item, Parsed, decode
from lethe.validate import MAX_LABEL_CHARS, unreadable_json

EXPORT_FILE = "conversations.json"
MAX_UNZIPPED_BYTES = 2 * 1024**3
"""The most `conversations.json` read out of a zip may hold once inflated: a real export of
years of chats is a few hundred MB, and a zip bomb must stop here, not in memory."""
_CHUNK = 1024 * 1024
_SEPARATORS = ("\n\n", "\n", ". ", " ")
"""Where a long turn is split, best first: paragraphs, lines, sentences, words."""
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
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
            if head != b"PK\x03\x04":
                return head + handle.read(), str(path)
    except FileNotFoundError:
        raise InvalidInput(f"there is no file {path}", hint=hint) from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {path}: {exc.strerror}") from None
    return _from_zip(path, hint), f"{path}:{EXPORT_FILE}"


def _from_zip(path: Path, hint: str) -> bytes:
    try:
        with zipfile.ZipFile(path) as archive:
            names = [
                info
                for info in archive.infolist()
                if not info.is_dir() and info.filename.rsplit("/", 1)[-1] == EXPORT_FILE
            ]
            if not names:
                raise InvalidInput(f"the zip {path} holds no {EXPORT_FILE}", hint=hint)
            # The shallowest one: an export puts it at the top, or in the one folder it has.
            info = min(names, key=lambda i: (i.filename.count("/"), i.filename))
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
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError) as exc:
        raise InvalidInput(
            f"{path} looks like a zip but cannot be read ({exc})",
            hint=f"unzip it yourself and give {EXPORT_FILE}",
        ) from None
    except RuntimeError as exc:  # an encrypted member
        raise InvalidInput(
            f"cannot read {EXPORT_FILE} in {path}: {exc}",
            hint=f"unzip it yourself and give {EXPORT_FILE}",
        ) from None


def _too_big(path: Path) -> InvalidInput:
    return InvalidInput(
        f"{EXPORT_FILE} in {path} inflates to over {MAX_UNZIPPED_BYTES // 1024**3} GiB; "
        "it was not read",
        hint=f"unzip it yourself and give {EXPORT_FILE}, if it really is that large",
    )


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


def iso_time(parsed: Parsed, value: Any, key: str, where: str) -> datetime | None:
    """An ISO-8601 time (Claude's `2024-07-26T10:29:36.630547Z`); one without a zone is UTC."""
    if value is None:
        return None
    when: datetime | None = None
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.strip())
            when = (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC)
        except (ValueError, OverflowError):  # year 1 minus an offset is no instant
            when = None
    if when is None:
        parsed.bad(
            where,
            f"{key} {_shown(value)} is not an ISO-8601 time",
            f"write it like 2024-07-26T10:29:36Z, or remove {key}",
        )
        return None
    return when


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
            f"{key} {_shown(value)} is not a time in seconds since 1970",
            "write it like 1704067200.5, or make it null",
        )
        return None
    return datetime.fromtimestamp(value, UTC)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def split(text: str, max_bytes: int) -> list[str]:
    """The text in consecutive parts of at most `max_bytes` (UTF-8), cut at the widest
    boundary that makes them fit; together they hold all of it, in order, less the
    whitespace at the cuts."""
    if len(text.encode("utf-8", "surrogatepass")) <= max_bytes:
        return [text.strip()] if text.strip() else []
    parts = [part.strip() for part in _pack(text, max_bytes, 0)]
    return [part for part in parts if part]


def _pack(text: str, max_bytes: int, level: int) -> list[str]:
    if len(text.encode("utf-8", "surrogatepass")) <= max_bytes:
        return [text]
    if level == len(_SEPARATORS):
        return _cut(text, max_bytes)
    separator = _SEPARATORS[level]
    pieces = text.split(separator)
    units = [piece + separator for piece in pieces[:-1]] + [pieces[-1]]
    chunks: list[str] = []
    current, size = "", 0
    for unit in units:
        unit_size = len(unit.encode("utf-8", "surrogatepass"))
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
            size = len(current.encode("utf-8", "surrogatepass"))
    if current:
        chunks.append(current)
    return chunks


def _cut(text: str, max_bytes: int) -> list[str]:
    """No boundary left (a line of 40,000 characters without a space): cut between
    characters, never inside one."""
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for char in text:
        width = len(char.encode("utf-8", "surrogatepass"))
        if size + width > max_bytes:
            chunks.append("".join(current))
            current, size = [], 0
        current.append(char)
        size += width
    if current:
        chunks.append("".join(current))
    return chunks


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
