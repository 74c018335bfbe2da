"""Memories that hold two facts: the request forgets one, the plan edits the memory.

"Forget that I take sertraline" against "The user takes sertraline and is allergic to
penicillin": deleting the memory loses the allergy, keeping it keeps the sertraline. The
memory is read as its parts (sentences, and clauses joined by ";", "and", "but"); a part
holds the fact to forget when it holds a word, name or identifier of the request; a part that
holds none of them is another fact. When both kinds are there, the edit is the memory without
the request's parts — cut from the original text, never written anew — and it is proposed
only when the cut is clean:

- what remains is made only of the memory's own words, and holds every word of the parts
  kept (the subject of the sentence is carried over when the kept clause has none of its own:
  "… and is allergic to penicillin" becomes "The user is allergic to penicillin.");
- what goes is only the parts that hold the request's words.

Anything else (a part that cannot be cut, a subject that cannot be found) is not certain: the
plan says an edit is needed and marks nothing. Lists inside one clause ("allergic to penicillin
and peanuts") are not split: a bare noun after "and" belongs to the clause before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lethe.planner import evidence

# Where one fact ends and another begins: sentence ends, semicolons, and ", and" / "and" /
# "but" before a clause (a verb or a subject follows; see `_clause_start`).
_BOUNDARY = re.compile(
    r"\s*\n\s*(?:[-*•]\s+)?|(?<=[.!?])\s+|;\s*|,?\s+(?:and|but)\s+|。", re.IGNORECASE
)
_BULLET = re.compile(r"^\s*[-*•]\s+")
_WORD = re.compile(r"\w")
_WINDOW = 200
"""How far past a boundary its next words are read (a long memory stays linear)."""
_SUBJECT_WORDS = frozenset(
    """the a an my his her their our your its this that these those i he she they we you it
    there user""".split()  # noqa: SIM905
)
# Adverbs that lean on a clause before them ("…, and the user is allergic to nuts too").
_LEANING = re.compile(r"(?:,?\s+(?:too|as\s+well|also))(?=\s*[.!?]?\s*$)", re.IGNORECASE)
_LEAD_IN = re.compile(r"^(?:also|too)\s+", re.IGNORECASE)
_POINTS_BACK = re.compile(
    r"(?i)\b(?:it|its|there|them|these|those)\b|^\s*(?:this|that)\b"
    # "this"/"that" standing for something said before ("has stated this firmly", "said that
    # twice"): a pronoun, not before a noun of its own ("this car").
    r"|\b(?:this|that)(?=\s*(?:$|[.,;!?]|\s+(?:[a-z]+ly|too|again|twice|before|since|often)\b))"
)
_PERSON_PRONOUN = re.compile(r"(?i)^(?:he|she|they|his|her|their)\b")
_VERBISH = re.compile(
    r"^(?:is|are|was|were|am|has|have|had|does|do|did|can|will|would|should|could|used|"
    r"never|always|often|still|also|no|not|[a-z]+s|[a-z]+ed)\b"
)


@dataclass(frozen=True)
class Part:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Edit:
    """The memory without the fact to forget."""

    new_content: str
    kept: tuple[str, ...]


@dataclass(frozen=True)
class Split:
    """A memory read against a request: the edit, or why there can be none."""

    edit: Edit | None
    doubt: str | None
    """Set when the memory holds another fact but cannot be cut cleanly."""


def parts(text: str, *, every_and: bool = False) -> list[Part]:
    """The memory's facts, as spans of its text. A line break, a sentence end or a semicolon
    ends one; "and"/"but" ends one only before a clause ("and is allergic…"), not before a
    noun of a list ("penicillin and peanuts") nor inside a name ("Marks and Spencer", "Tom and
    Jerry", "between Monday and Friday"); "Dr." does not end a sentence. A span without a word
    ("; ...") is no part."""
    spans: list[Part] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        before, after = text[start : m.start()], text[m.end() : m.end() + _WINDOW]
        sep = m.group(0).strip(" ,").casefold()
        if not sep and not _sentence_end(before, after):
            continue
        if sep in ("and", "but") and not every_and and not _joins_clauses(before, after):
            continue
        if _WORD.search(before):
            spans.append(Part(start, m.start(), before))
        start = m.end()
    if _WORD.search(text[start:]):
        spans.append(Part(start, len(text), text[start:]))
    return spans


def _joins_clauses(before: str, after: str) -> bool:
    last = before.rstrip(" ,").rsplit(" ", 1)[-1]
    first, *rest = after.split(" ", 2)
    verb = bool(rest) and bool(_VERBISH.match(rest[0].casefold()))
    if _titled(last) and _titled(first.strip(",")) and not verb:
        return False  # "Marks and Spencer", "Paris and Rome", not "Milan, and Tom takes …"
    return _clause_start(after) and len(evidence.words(before[-_WINDOW:])) >= 2


def _titled(word: str) -> bool:
    """A capitalised word, not one in capitals ("Spencer", not "IS")."""
    return len(word) > 1 and word[0].isupper() and not word.isupper()


_ABBREVIATION = re.compile(
    r"(?:^|[\s(])(?:Dr|Mr|Mrs|Ms|Mx|St|Jr|Sr|Prof|Mt|Ft|No|Nr|Vol|vs|etc|approx|e\.g|i\.e)\.$",
    re.IGNORECASE,
)


def _sentence_end(before: str, after: str) -> bool:
    open_brackets = before.count("(") > before.count(")")
    return after[:1].isalpha() and not open_brackets and not _ABBREVIATION.search(before)


def _clause_start(text: str) -> bool:
    """Whether what follows "and"/"but" begins a clause (a subject or a verb), not a noun of a
    list: "and is allergic…", "and the user plays…", "and Nina lives…"."""
    word = text.split(" ", 1)[0].strip(",")
    if not word:
        return False
    if word[0].isupper() and not word.isupper():
        return True
    low = word.casefold()
    if low in _SUBJECT_WORDS:
        return True
    # A verb needs something after it ("and takes sertraline"); a lone word is a list's noun.
    rest = re.split(r"[.!?;。]", text, maxsplit=1)[0].split()
    return bool(_VERBISH.match(low)) and len(rest) >= 2


def holds_as_part(text: str, fact: str, owner_words: frozenset[str]) -> bool:
    """Whether one part of a longer memory is `fact` stored again ("Bob works at Atlassian,
    and Bob takes sertraline too" holds "Bob works at Atlassian."): the same fact, not a
    rival for the request."""
    found = parts(text)
    said = evidence.words(fact) - owner_words
    # "…; I speak Spanish as well": the adverb leans on the other part, it is no word of this.
    return len(found) > 1 and any(
        evidence.words(_LEANING.sub("", p.text.rstrip(" .!?"))) - owner_words == said for p in found
    )


def split(text: str, asked: frozenset[str], owner_words: frozenset[str]) -> Split | None:
    """Read a memory against the words a request asks about (`asked`: its content words, names
    and identifier tokens, as `evidence.words` reads them, without the words naming whose fact
    it is, `owner_words`). None: the memory is one fact, or every part is the request's (a
    deletion, as before)."""
    found = parts(text)
    cut = _split(text, found, asked, owner_words)
    if cut is not None:
        return cut
    # "I speak French and live in Paris", "likes tea and coffee": an "and" that may join
    # another fact (a part holding none of the request's words) cannot be told from one
    # inside the fact without a grammar — not certain either way.
    loose = parts(text, every_and=True)
    if len(loose) > len(found):
        covered = [bool(evidence.words(p.text) & asked) for p in loose]
        other = [p for p, c in zip(loose, covered, strict=True) if not c]
        if any(covered) and any(evidence.words(p.text) - owner_words for p in other):
            return Split(None, _uncut(other[0]))
    return None


def _split(
    text: str, found: list[Part], asked: frozenset[str], owner_words: frozenset[str]
) -> Split | None:
    if len(found) < 2:
        return None
    said = [evidence.words(p.text) for p in found]
    # A word every part says ("takes … and takes the bus", "does not … and does not …", a
    # kana pair two names share) tells the parts apart no better than the subject does.
    shared = frozenset.intersection(*said)
    mine = [bool(w & (asked - shared)) for w in said]
    if all(mine) or not any(mine):
        return None
    subject = _subject(found[0].text, asked)
    if subject is not None and evidence.words(subject) & asked:
        # "Sofia's parrot is called Biscuit and is 8 years old": the clause without a subject
        # of its own is about the parrot, the thing to forget — all of it is the fact.
        mine = [m or not _has_subject(p.text.strip()) for p, m in zip(found, mine, strict=True)]
    # A part that points back ("it costs £32 a month", "a nurse there") is about a thing
    # another part names: when that part goes, so does it.
    mine = [m or bool(_POINTS_BACK.search(p.text)) for p, m in zip(found, mine, strict=True)]
    if all(mine):
        return None
    kept = [p for p, m in zip(found, mine, strict=True) if not m]
    removed = [p for p, m in zip(found, mine, strict=True) if m]
    pieces: list[str] = []
    for p in kept:
        piece = _BULLET.sub("", p.text.strip()).rstrip(".!?。").strip()
        if removed[0].start < p.start:
            piece = _LEANING.sub("", piece)
            piece = _LEAD_IN.sub("", piece)
        if _PERSON_PRONOUN.match(piece):
            return Split(None, _uncut(p))
        if not _has_subject(piece):
            # The subject of the clause it continues: the nearest part before it that has one.
            lead = next(
                (q for q in reversed(found[: found.index(p)]) if _has_subject(q.text.strip())),
                None,
            )
            carried = _subject(lead.text, asked) if lead is not None else None
            if carried is None:
                return Split(None, _uncut(p))
            piece = f"{carried} {piece}"
        pieces.append(piece[0].upper() + piece[1:])
    end = "。" if text.rstrip().endswith("。") else "."
    new = " ".join(f"{p}{end}" for p in pieces)
    return Split(
        Edit(new, tuple(p.text.strip() for p in kept)),
        None,
    )


FORGOTTEN = "(this version held only a fact forgotten since)"
"""The text of an earlier version that said nothing but a fact forgotten later (or could not be
cut from it cleanly): the version keeps its place in the history, not the fact."""


def fact_words(old: str, new: str) -> frozenset[str]:
    """What a cut fact said that the facts kept do not: the words of a memory's text before an
    edit that its text after it lacks, without the verbs its clauses begin with ("takes" in
    "takes sertraline") unless nothing else is left. Earlier versions are read against these,
    as the planner read the memory against the request's words: "The user is on sertraline"
    holds the fact, "The user takes the bus" does not."""
    markers = {evidence.NOT, evidence.PAST, evidence.PRESENT}
    cut = evidence.words(old) - evidence.words(new) - markers
    verbs: set[str] = set()
    for part in parts(old, every_and=True):
        if evidence.words(part.text) & cut:
            verb = next((t for t in part.text.split() if _VERBISH.match(t.casefold())), "")
            verbs |= evidence.words(verb)
    return frozenset(cut - verbs) or frozenset(cut)


def without_fact(text: str, fact: frozenset[str]) -> str | None:
    """An earlier version's text without a fact an edit cut from its memory (`fact`, from
    `fact_words`), cut the same way the edit was: None when no part of it says the fact;
    `FORGOTTEN` when every part does, or when the other facts cannot be cut from it cleanly
    (an uncertain cut must not leave the fact behind: the version is history, not a live
    memory, and the edit already kept the other facts in the memory's current text)."""
    if not fact or text == FORGOTTEN:
        return None
    if not evidence.words(text) & fact:
        return None
    found = split(text, fact, frozenset())
    if found is not None and found.edit is not None:
        return found.edit.new_content
    return FORGOTTEN


def _uncut(part: Part) -> str:
    return (
        f"it also says {part.text.strip(' .')!r}, which cannot be cut apart from the fact to "
        "forget cleanly: edit it yourself (update), or name it by id to forget all of it"
    )


def _has_subject(piece: str) -> bool:
    first = _BULLET.sub("", piece).split(" ", 1)[0]
    return bool(first) and (_titled(first) or first.casefold() in _SUBJECT_WORDS)


def _subject(first_part: str, asked: frozenset[str]) -> str | None:
    """The subject of the first part: the words before its verb ("The user" in "The user
    takes sertraline", "Sofia's parrot" in "Sofia's parrot is called Biscuit"), or, when no
    verb is recognised, before its first word the request asks about. None when none."""
    tokens = _BULLET.sub("", first_part.strip()).split()
    for i, token in enumerate(tokens[1:], start=1):
        if _VERBISH.match(token.casefold()):
            return " ".join(tokens[:i]).strip(" ,") or None
    for i, token in enumerate(tokens):
        if evidence.words(token) & asked:
            return " ".join(tokens[:i]).strip(" ,") or None
    return None


def word_diff(old: str, new: str) -> str:
    """The edit as a person reads it: the words cut shown as [-…-], the rest as written."""
    out: list[str] = []
    old_words, new_words = old.split(), new.split()
    j = 0
    cut: list[str] = []
    for w in old_words:
        if j < len(new_words) and _same(w, new_words[j]):
            if cut:
                out.append(f"[-{' '.join(cut)}-]")
                cut = []
            out.append(new_words[j])
            j += 1
        else:
            cut.append(w)
    if cut:
        out.append(f"[-{' '.join(cut)}-]")
    out.extend(new_words[j:])
    return " ".join(out)


def _same(a: str, b: str) -> bool:
    return a.strip(".,;!?").casefold() == b.strip(".,;!?").casefold()
