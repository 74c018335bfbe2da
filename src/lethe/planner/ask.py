"""Stage 1, read: the request read once into what every later stage needs.

`request.read` splits the instruction from its object ("please forget" / "Dana's address")
and says whether the object is one fact or a whole subject. `Ask` then reads the object
once: its words, names, owner and polarity (`evidence.read`), the identifiers it names
(`identifiers`, and a run of capitals such as a booking reference), the names beyond whose
fact it is, and the parts of a list. No stage reads the request's text again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from lethe.planner import evidence
from lethe.planner.evidence import USER, Reading
from lethe.planner.identifiers import identifiers
from lethe.planner.record import Record, record_of
from lethe.planner.request import Request, read

Code = tuple[str, ...]


@dataclass(frozen=True)
class Ask:
    """What one object (a request, or one part of a list) asks to forget."""

    text: str
    reading: Reading
    """Its words, names, owner and polarity, read as a request is (`_reading`)."""
    codes: tuple[Code, ...]
    """The identifiers it names: codes, numbers, e-mail addresses, runs of capitals."""
    written: tuple[Code, ...]
    """Those of them written with digits or symbols (`identifiers`), not runs of capitals."""
    names: tuple[str, ...]
    """The names a target must give: every name but the user as owner."""
    plain: frozenset[str]
    """Its words beyond its names and identifiers."""
    naming: tuple[Code, ...]
    """The identifiers that name a fact (a year only says when it held)."""
    plural: bool
    """It asks for every one of a kind ("all my appointments", "Tom's appointments")."""

    @property
    def past(self) -> bool:
        return evidence.PAST in self.reading.words

    @property
    def present(self) -> bool:
        return evidence.PRESENT in self.reading.words


@dataclass(frozen=True)
class RequestReading:
    """The request as a whole: its instruction split off, its object read, and its parts
    when it lists several things."""

    request: Request
    ask: Ask
    parts: tuple[Ask, ...]
    """Two or more when the object is a list whose every part has its own anchor."""
    record: Record | None = None
    """The object asks for someone's record: a whole subject, however the request is worded."""


def read_request(text: str) -> RequestReading:
    request = read(text)
    ask = ask_of(request.object)
    record = record_of(request.object, whole=request.scope == "subject")
    if record is not None:
        request = replace(request, scope="subject")
    split = parts(request.object)
    chosen = tuple(ask_of(p) for p in split) if len(split) > 1 else ()
    return RequestReading(request, ask, chosen, record)


def ask_of(obj: str) -> Ask:
    reading = _reading(obj)
    written = tuple(identifiers(obj))
    codes = written + tuple(_codes_in_capitals(obj))
    names = tuple(n for n in reading.names if n != reading.owner or reading.owner != USER)

    named = evidence.words(" ".join(names)) | evidence.words(" ".join(t for c in codes for t in c))
    naming = tuple(c for c in codes if not YEAR.fullmatch("".join(c)))
    plural = bool(_PLURAL.search(obj) or _EVERY.search(obj)) and not written
    # A pair of characters across a particle (芳的, の勤) is no word of the request.
    plain = frozenset(w for w in reading.words - named if not _PARTICLE.search(w))
    return Ask(obj, reading, codes, written, names, plain, naming, plural)


_PARTICLE = re.compile(r"[的のはがをにで]")

YEAR = re.compile(r"(?:19|20)\d\d")
"""A year qualifies a fact ("Maria's 2020 phone number"); it does not name it alone."""

_CAPITALS = re.compile(r"(?<![\w@.-])[A-Z]{5,}(?![\w@-])")


def _codes_in_capitals(obj: str) -> list[Code]:
    """A run of five or more capitals with no digit ("QKLAUY", a booking reference) is a
    code too: it is matched exactly, like an identifier with digits."""
    return [(m.group(0).casefold(),) for m in _CAPITALS.finditer(obj)]


_GERUND = re.compile(r"^\s*([A-Z][a-z]{2,}ing)\b(?!')")
_LABEL = re.compile(r"(?<![\w@.-])([A-Z]{2,5})(?![\w@-])")


def _stem_of(word: str) -> str:
    """A word as `evidence.lowercase_words` folds it."""
    return next(iter(evidence.lowercase_words([word.casefold()])), word.casefold())


def _reading(obj: str) -> Reading:
    """The request's own reading: a capitalised word is a name unless the request itself
    writes it in lower case — the memories' spelling does not decide ("Frank lent me £50" is
    about Frank even when a memory speaks of a frank discussion). A word that starts an
    identifier ("PO 2024 0110") is part of it, not a name."""
    # A request that starts with a verb's -ing form ("Running at dawn") names an activity.
    gerund = {_stem_of(m.group(1)) for m in _GERUND.finditer(obj)}
    reading = evidence.read(obj, evidence.lowercase_words([obj]) | gerund)
    codes = identifiers(obj)
    groups = {g for code in codes for g in code}
    # A short word in capitals beside an identifier labels it ("the OTP 828353", "PIN 4471"):
    # the memory may say "one-time code"; it is no person's or place's name.
    labels = {w.casefold() for w in _LABEL.findall(obj)} if codes else set()
    drop = groups | labels
    if not drop & set(reading.names):
        return reading
    return replace(reading, names=tuple(n for n in reading.names if n not in drop))


# -- lists ---------------------------------------------------------------------------------

_JOINED = re.compile(r"\s(?:and|&)\s|;|、|と")
_SEPARATOR = re.compile(r"\s*(?:,\s*(?:and\s+)?(?:also\s+)?|;\s*|\s+and\s+(?:also\s+)?|、|と)\s*")


def parts(obj: str) -> list[str]:
    """A list of things to forget ("Maria's cat, Marco's Etsy order and Julia's address"):
    only a list joined by "and" (or ";", 、, と) is split, and only when every part has its
    own anchor — a name, the user, or an identifier — so a fact with a comma in it ("Nina is
    on atorvastatin, 150 mg a day") stays one request."""
    if not _JOINED.search(obj):
        return [obj]
    found = [p for p in _SEPARATOR.split(obj) if p and p.strip()]
    if len(found) < 2:
        return [obj]
    for part in found:
        reading = evidence.read(part, frozenset())
        if not (reading.names or reading.owner or identifiers(part)):
            return [obj]
    return found


# -- plurals -------------------------------------------------------------------------------

_PLURAL = re.compile(
    r"(?:\b(?:my|our|all|every|each)\b|'s)\s+(?:[a-z-]+\s+)?([a-z]{3,}[^s\W]s)\b"
    # A plural noun ends its phrase; "my sister works nights", "Tom's dog barks at night":
    # a verb goes on.
    r"(?=\s*(?:$|[.,;:?!)]|(?:and|or|with|from|of|for|that|which|too|as\s+well)\b))"
)
_EVERY = re.compile(r"\b(?:all|every|each)\s+(?:(?:my|of\s+my|the)\s+)?([a-z]{3,})\b")


def plural_heads(obj: str) -> list[str]:
    """The nouns a plural request asks for every one of ("appointments")."""
    return [*_PLURAL.findall(obj), *_EVERY.findall(obj)]
