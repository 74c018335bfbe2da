"""Reading a request for someone's (or something's) record: a whole subject, however asked.

"Dana profile information", "Frank's details", "Dana Kim medical record", "customer Zhang
Wei aka 张伟", "Ivan Petrov / Иван Петров", "project ATLAS-2024 PRJ-ATLAS-2024 record",
「田中の医療記録」, 「王芳的个人信息」: each names a subject — a person or a thing by its name,
or an identifier — in one spelling or several, and at most says what kind of record it is.
Such a request means every memory of that subject, not the one closest to its words.

The reading is by shape, not by a list of sentences. The object is cut into:

- *labels* before the subject, lower-case words or a short word in capitals ("customer",
  "patient", "SSN"): they say what the subject is, and narrow nothing;
- the *subject*: capitalised words, words of a script without case, identifiers; its
  spellings are the parts joined by "/", "aka", or written in two scripts side by side;
- an *apposition* after it ("Frank the engineer", "Charlie on the team"): which one is
  meant, narrowing nothing;
- *qualifiers* then *record nouns* ("medical record", "customer history"): a qualifier
  narrows the record to the memories that say it, in any wording.

Anything else — a verb, a lower-case word inside the subject, an attribute noun that is not
a record noun ("Dana's address") — is not a record: the request is judged as a fact.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from lethe.common.scripts import has_cjk
from lethe.planner.identifiers import identifiers, shown

RECORD_NOUNS = frozenset(
    (
        *("profile", "profiles", "information", "info", "data", "details", "record"),
        *("records", "file", "files", "history", "dossier", "everything", "account"),
        "accounts",
    )
)
"""Nouns that name what is kept about a subject as a whole, not one attribute of it."""
_COMPOUND_NOUNS = ("user account", "user accounts", "user data", "user profile")
"""Record nouns of two words ("user account": the account a person holds, not a user's)."""

_CJK_RECORD = re.compile(
    r"^(?P<subject>[^\sの的]+?)\s*[の的]\s*(?P<qualifiers>\S*?)"
    r"(?P<nouns>(?:プロフィール|個人情報|情報|記録|データ|履歴|カルテ|病歴|个人信息|个人资料|资料|"
    r"档案|信息|记录|数据|病历|履历)+)$"
)
_SPELLINGS = re.compile(r"\s+(?:/|aka|a\.k\.a\.|also\s+known\s+as)\s+|\s*/\s*", re.IGNORECASE)
_APPOSITION = frozenset(("the", "from", "on", "at", "in", "of", "who", "with"))
_DETERMINERS = frozenset(("the", "a", "an", "my", "our", "your", "his", "her", "their", "its"))
"""Before a subject they make it a thing or the user's ("the Lisbon trip"): no record."""
_LABEL = re.compile(r"[a-z][a-z-]*|[A-Z]{2,5}")
_QUALIFIER = re.compile(r"[a-z][a-z-]*")
_NAME = re.compile(r"[A-Z][\w'.-]*")
_VERB = re.compile(
    r"(?i:\b(?:is|are|was|were|am|be|been|has|have|had|do|does|did|will|would|can|could|not|"
    r"no)\b)|\b[a-z]+(?:ed|ing)\b"
)
"""A statement, not a record: a verb (a name that ends like one, "Mohammed", is no verb)."""


@dataclass(frozen=True)
class Record:
    """A request for what is kept about a subject."""

    subjects: tuple[str, ...]
    """Its spellings, as written: a memory holding any one of them is of the subject."""
    qualifiers: str
    """The words that say which part of the record ("medical", "customer", 医療), if any."""
    identified: bool = False
    """The subject is an identifier: every memory holding it, whatever else it says."""

    @property
    def subject(self) -> str:
        return " / ".join(self.subjects)


def record_of(obj: str, *, whole: bool = False) -> Record | None:
    """`whole`: the request already asks for a whole subject ("everything about …")."""
    text = obj.strip()
    m = _CJK_RECORD.match(text)
    if m is not None:
        subject = m.group("subject")
        return Record((subject,), m.group("qualifiers"), _code(subject))
    if _VERB.search(text):
        return None
    tokens = text.split()
    lowered = [t.casefold() for t in tokens]
    nouns = 0
    while tokens[: len(tokens) - nouns]:
        end = len(tokens) - nouns
        two = " ".join(lowered[end - 2 : end]) if end >= 2 else ""
        if two in _COMPOUND_NOUNS:
            nouns += 2
        elif lowered[end - 1] in RECORD_NOUNS:
            nouns += 1
        else:
            break
    body = tokens[: len(tokens) - nouns]
    start = 0
    while start < len(body) and _label(body, start):
        start += 1
    end = len(body)
    apposition = next(
        (i for i in range(start + 1, len(body)) if body[i].casefold() in _APPOSITION), None
    )
    qualifiers: list[str] = []
    if apposition is not None:
        end = apposition
    else:
        while end > start + 1 and _QUALIFIER.fullmatch(body[end - 1]):
            qualifiers.insert(0, body[end - 1])
            end -= 1
    core = " ".join(body[start:end])
    if not _subject(_SPELLINGS.sub(" ", core)):
        return None
    spellings = _spellings(core)
    if not spellings:
        return None
    said_more = apposition is not None or qualifiers or start
    if not (nouns or len(spellings) > 1 or (whole and said_more)):
        # "Dana's address" is one attribute: a subject named once, with no record noun,
        # is a record only when the request asks for all of it and says more ("everything
        # about Frank the engineer", "… client Riya", "… Olivia's languages"); "everything
        # about Nina" is the subject as such (`subject._person`).
        return None
    return Record(
        tuple(s.removesuffix("'s").removesuffix("'") for s in spellings),
        " ".join(qualifiers),
        all(_code(w) for w in _SPELLINGS.sub(" ", core).split()),
    )


def _label(body: list[str], at: int) -> bool:
    """A word before the subject that says what it is: lower case, or a short word in
    capitals right before an identifier ("SSN 123-45-6789")."""
    word = body[at]
    if at + 1 >= len(body) or not _LABEL.fullmatch(word) or word.casefold() in _DETERMINERS:
        return False
    if word.isupper():
        return bool(identifiers(body[at + 1]))
    return True


def _spellings(core: str) -> list[str]:
    """The subject's spellings: parts joined by "/" or "aka", then, inside each, runs of one
    script side by side ("Kim Minji 김민지"), and each identifier a run of codes holds ("PO
    2024 0110" is one, "ATLAS-2024 PRJ-ATLAS-2024" two), as `shown` writes it."""
    out: list[str] = []
    for part in _SPELLINGS.split(core):
        words = part.split()
        kinds = {_code(w) for w in words}
        if len(kinds) > 1:
            # A name beside an identifier ("Maria's 2020", "Po 2024 0110") is not two
            # spellings of one subject.
            return []
        run: list[str] = []
        for i, word in enumerate(words):
            code = _code(word) or (
                _LABEL.fullmatch(word) is not None
                and i + 1 < len(words)
                and _code(words[i + 1])
                and not _NAME.fullmatch(word)
            )
            kind = "code" if code else _script(word)
            if run and kind != run[0]:
                out += _closed(run)
                run = []
            if not run:
                run = [kind]
            run.append(word)
        if run:
            out += _closed(run)
    return out


def _closed(run: list[str]) -> list[str]:
    kind, words = run[0], run[1:]
    if kind != "code":
        return [" ".join(words)]
    joined = " ".join(words)
    found = identifiers(joined)
    if len(found) <= 1:
        return [joined]
    if all(len(identifiers(w)) == 1 for w in words):
        return words
    return [shown([c]) for c in found]


def _script(word: str) -> str:
    letters = [c for c in word if c.isalpha()]
    if not letters:
        return "other"
    name = unicodedata.name(letters[0], "")
    return name.split(" ", 1)[0] if name else "other"


def _code(word: str) -> bool:
    """An identifier written apart ("ATLAS-2024", "@dev"); digits inside a run of Japanese or
    Chinese (「1月24日の予定」) are a date or a count there, no subject."""
    return not has_cjk(word) and (bool(identifiers(word)) or "@" in word)


def _subject(spelling: str) -> bool:
    """Each word a name, a word of a script without case, or an identifier."""
    return all(
        _code(w)
        or _NAME.fullmatch(w)
        or has_cjk(w)
        or (any(c.isalpha() for c in w) and not any(c.isascii() and c.isalpha() for c in w))
        or _caseless_latin(w)
        for w in spelling.split()
    )


def _caseless_latin(word: str) -> bool:
    """A capitalised name with letters beyond ASCII ("Großmann", "Nguyễn")."""
    return word[:1].isupper() and all(c.isalpha() or c in "'-." for c in word)
