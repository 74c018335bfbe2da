"""The planner for forgetting by description: which memories a request means.

It reads the request (`request.read`: the instruction apart from its object, one fact or a
whole subject), then judges every candidate the search found by what it holds, not only by
its cosine:

1. **What the object names must be there.** Identifiers (codes, numbers, e-mail addresses,
   amounts: `identifiers.py`), names (proper nouns, days, months) and whose fact it is (the
   user's, or a named person's: `evidence.py`). A candidate missing any of them, or about
   someone else, is never a target, however close its vector.
2. **The words decide among the rest.** Each remaining candidate scores its cosine plus the
   share of the object's words it holds, weighted by how rare each word is among the
   candidates (a word every candidate shares tells them apart no better than none).
3. **One clear winner, or nothing.** A fact request marks the best candidate (and copies of
   it: the same words, the same identifiers) only when its certainty clears the bar; the
   certainty is a logistic function of the winner's lead over the runner-up, its word share
   and its cosine, calibrated on the development benchmark (`bench/bench_forget_plan.py`
   reports how often marks at each certainty were right).
4. **A subject is its memories.** "Everything about Nina" marks the memories whose fact is
   Nina's; those that mention her beside someone else are listed for review. A subject that
   is a topic ("my trip to Japan", "my old flat") marks the memories that hold its anchor
   (the name it gives, or the one its closest memories share), are the user's, and do not
   say the opposite qualifier (old/previous against now/current/new).
5. **A list is several requests.** "Maria's cat, Marco's Etsy order and Julia's address"
   is planned part by part; the parts are kept only when each finds its own target.

Everything else is listed, with what would make it certain (an id, a filter, an exact
phrase); nothing is marked by similarity alone.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from lethe.forget import evidence
from lethe.forget.evidence import USER, Reading
from lethe.forget.identifiers import holds_all, identifiers, shown
from lethe.forget.request import Request, read
from lethe.model import Memory

MARK_BAR = 0.9
"""Certainty at or above which a candidate is marked for deletion."""
# Platt scaling of the fact decision (see the module docstring): fitted on the development
# benchmark by bench/fit_forget_certainty.py.
_BIAS = -6.0
_LEAD = 14.0
_SHARE = 3.0
_COSINE = 4.0

CERTAINTY_CAP = 0.99
"""No description is ever fully certain: an id is."""

Verdict = Literal["delete", "skip"]


@dataclass(frozen=True)
class Candidate:
    memory: Memory
    similarity: float


@dataclass
class Judgement:
    memory: Memory
    similarity: float
    verdict: Verdict
    certainty: float
    reason: str
    evidence: list[str] = field(default_factory=list)
    hint: str | None = None


@dataclass
class Decision:
    request: Request
    judgements: list[Judgement]
    ambiguous: bool


def decide(text: str, candidates: Sequence[Candidate], *, margin: float = 0.05) -> Decision:
    """Judge every candidate for the request. `margin`: the least lead (cosine plus word
    share) the best candidate of a fact request must have over the next one."""
    request = read(text)
    if not candidates:
        return Decision(request, [], False)
    common = evidence.lowercase_words([text, *(c.memory.content for c in candidates)])
    readings = {c.memory.id: evidence.read(c.memory.content, common) for c in candidates}
    if request.scope == "subject":
        judged = _subject(request, candidates, readings, common)
        if judged is not None:
            return Decision(request, judged, not any(j.verdict == "delete" for j in judged))
    parts = _parts(request.object)
    if len(parts) > 1:
        split = [_fact(p, candidates, readings, common, margin) for p in parts]
        marked = [{j.memory.id for j in js if j.verdict == "delete"} for js in split]
        if all(marked) and not set.intersection(*marked):
            return Decision(request, _merge(split), False)
    judged = _fact(request.object, candidates, readings, common, margin)
    if _plural(request.object):
        judged = _widen_plural(judged, request.object, readings)
    return Decision(request, judged, not any(j.verdict == "delete" for j in judged))


# -- one fact ------------------------------------------------------------------------------

UNSAID = 0.25
"""The best match may leave unsaid at most this share of the request's words that other
memories say (weighted by rarity): beyond it, the request may mean another memory."""
TWIN_DIFFERENCE = 4
"""Two memories whose words differ in at most this many (two each way: one or two slots)
are the same sentence with other values ("works at Novartis as an accountant" and "works at
Shopify as a pharmacist")."""
FLOOR = 0.45
"""A fact request's winner needs at least this cosine, unless identifiers decided it."""


def _fact(
    obj: str,
    candidates: Sequence[Candidate],
    readings: dict[str, Reading],
    common: frozenset[str],
    margin: float,
) -> list[Judgement]:
    wanted = evidence.read(obj, common)
    codes = identifiers(obj)
    names = [n for n in wanted.names if n != wanted.owner or wanted.owner != USER]
    weights = evidence.idf(list(readings.values()))
    judged: list[Judgement] = []
    eligible: list[tuple[Judgement, float]] = []
    unowned: set[str] = set()
    """Candidates excluded only because they are someone else's fact."""
    for c in candidates:
        r = readings[c.memory.id]
        missing = _missing(wanted, r, codes, names)
        share = evidence.coverage(wanted.words, r.words, weights)
        j = Judgement(c.memory, c.similarity, "skip", 0.0, "")
        if missing:
            j.reason = f"{missing}: never a target"
            if missing.startswith("is "):
                unowned.add(c.memory.id)
            judged.append(j)
            continue
        j.evidence = _held(codes, names, wanted, share, c.similarity)
        eligible.append((j, c.similarity + share))
    eligible.sort(key=lambda pair: -pair[1])
    if not eligible:
        return judged
    top, top_score = eligible[0]
    copies = [j for j, _ in eligible[1:] if _copy(readings[top.memory.id], readings[j.memory.id])]
    rest = [(j, s) for j, s in eligible[1:] if j not in copies]
    lead = top_score - rest[0][1] if rest else top_score
    share = top_score - top.similarity
    certainty = _certainty(lead, share, top.similarity)
    top.evidence.append(
        f"lead over the next candidate {lead:.2f}" if rest else "no other candidate qualifies"
    )
    doubt = _doubt(top, wanted, codes, names, candidates, readings, unowned)
    if rest and lead < margin:
        doubt = doubt or (
            f"ambiguous: leads the next candidate by {lead:.2f}, less than the margin {margin}"
        )
    if doubt:
        certainty = min(certainty, 0.5)
    top.certainty = certainty
    if certainty >= MARK_BAR:
        top.verdict = "delete"
        top.reason = f"the memory the request describes (certainty {certainty:.2f})"
        for j in copies:
            j.verdict, j.certainty = "delete", certainty
            j.reason = "the same fact stored again (the same words and identifiers)"
    else:
        top.reason = doubt or (
            f"best match, but not certain enough to delete (certainty {certainty:.2f} "
            f"< {MARK_BAR}): name it by id, or say it more exactly"
        )
        for j in copies:
            j.certainty = certainty
            j.reason = "a copy of the best match, which is not certain enough to delete"
    for j, s in rest:
        j.certainty = _certainty(s - top_score, s - j.similarity, j.similarity)
        j.reason = (
            "holds what the request names, but another memory matches it better"
            if certainty >= MARK_BAR
            else "holds what the request names; too close to other candidates to choose"
        )
    return [top, *copies, *(j for j, _ in rest), *judged]


def _doubt(
    top: Judgement,
    wanted: Reading,
    codes: list[tuple[str, ...]],
    names: list[str],
    candidates: Sequence[Candidate],
    readings: dict[str, Reading],
    unowned: set[str],
) -> str | None:
    """Why the best candidate, though it holds everything the request names, may not be the
    memory meant: it says none of the request's other words, it is barely similar, or a
    memory of the same kind says a word of the request that it does not (the request's
    value is the twin's: "pharmacist" in "Sofia works at Shopify as a pharmacist" when the
    best match says "accountant")."""
    r = readings[top.memory.id]
    plain = wanted.words - set(names) - {w for code in codes for w in code}
    if not codes and plain and not (plain & r.words):
        return "says none of the request's words beyond its names: not certain"
    if not codes and top.similarity < FLOOR:
        return f"barely similar to the request (cosine {top.similarity:.2f}): not certain"
    lacking = plain - r.words
    if not lacking:
        return None
    weights = evidence.idf(list(readings.values()))
    elsewhere = {
        w
        for c in candidates
        if c.memory.id not in unowned
        for w in lacking & readings[c.memory.id].words
    }
    unsaid = sum(weights.get(w, 0.0) for w in elsewhere)
    said = sum(weights.get(w, 0.0) for w in plain & r.words)
    if unsaid > UNSAID * (unsaid + said):
        return (
            f"does not say {', '.join(sorted(elsewhere))}, which the request says and other "
            "memories do: not certain"
        )
    for c in candidates:
        other = readings[c.memory.id]
        if c.memory.id == top.memory.id or c.memory.id in unowned or _copy(r, other):
            continue
        if len(r.words ^ other.words) <= TWIN_DIFFERENCE and lacking & other.words:
            words = ", ".join(sorted(lacking & other.words))
            return (
                f"the same sentence with another value ({c.memory.id}) says {words}, which the "
                "request says and this one does not: not certain"
            )
    return None


def _missing(
    wanted: Reading, r: Reading, codes: list[tuple[str, ...]], names: list[str]
) -> str | None:
    if codes and not holds_all(r.text, codes):
        return f"does not hold {shown(codes)} (named in the request)"
    absent = [n for n in names if not evidence.holds_names(r, [n])]
    if absent:
        return f"does not name {', '.join(absent)} (named in the request)"
    if wanted.owner and r.owner and wanted.owner != r.owner:
        whose = "the user's" if r.owner == USER else f"{r.owner.title()}'s"
        asked = "yours" if wanted.owner == USER else f"{wanted.owner.title()}'s"
        return f"is {whose} fact, the request asks about {asked}"
    return None


def _held(
    codes: list[tuple[str, ...]],
    names: list[str],
    wanted: Reading,
    share: float,
    similarity: float,
) -> list[str]:
    out = []
    if codes:
        out.append(f"holds {shown(codes)}")
    if names:
        out.append(f"names {', '.join(names)}")
    if wanted.owner:
        out.append("the user's fact" if wanted.owner == USER else f"{wanted.owner}'s fact")
    out.append(f"holds {share:.0%} of the request's words (rarer words weigh more)")
    out.append(f"cosine {similarity:.2f}")
    return out


def _copy(a: Reading, b: Reading) -> bool:
    """The same fact stored twice: the same identifiers, names and words (case, punctuation
    and function words aside)."""
    return (
        a.words == b.words
        and set(a.names) == set(b.names)
        and set(identifiers(a.text)) == set(identifiers(b.text))
    )


def _certainty(lead: float, share: float, similarity: float) -> float:
    z = _BIAS + _LEAD * lead + _SHARE * share + _COSINE * similarity
    return min(1.0 / (1.0 + math.exp(-z)), CERTAINTY_CAP)


# -- several facts -------------------------------------------------------------------------

_SEPARATOR = re.compile(r"\s*(?:,\s*(?:and\s+)?(?:also\s+)?|;\s*|\s+and\s+(?:also\s+)?|、|と)\s*")


def _parts(obj: str) -> list[str]:
    parts = [p for p in _SEPARATOR.split(obj) if p and p.strip()]
    if len(parts) < 2 or any(len(p.split()) < 2 and not identifiers(p) for p in parts):
        return [obj]
    return parts


def _merge(split: list[list[Judgement]]) -> list[Judgement]:
    best: dict[str, Judgement] = {}
    for judged in split:
        for j in judged:
            held = best.get(j.memory.id)
            if held is None or (j.verdict == "delete" and held.verdict != "delete"):
                best[j.memory.id] = j
    return sorted(best.values(), key=lambda j: (j.verdict != "delete", -j.similarity))


_PLURAL = re.compile(r"(?:\b(?:my|our|all|every|each)\b|'s)\s+(?:[a-z-]+\s+)?([a-z]{3,}[^s\W]s)\b")
_EVERY = re.compile(r"\b(?:all|every|each)\s+(?:(?:my|of\s+my|the)\s+)?([a-z]{3,})\b")


def _plural(obj: str) -> bool:
    """A request for every one of a kind: "all my appointments", "Tom's appointments",
    "every appointment I have"."""
    return bool(_PLURAL.search(obj) or _EVERY.search(obj)) and not identifiers(obj)


def _widen_plural(
    judged: list[Judgement], obj: str, readings: dict[str, Reading]
) -> list[Judgement]:
    """ "All my appointments": every candidate that qualifies and holds the plural noun's
    word (or, when none holds the word, none beyond the fact decision)."""
    found = [*_PLURAL.findall(obj), *_EVERY.findall(obj)]
    heads = {evidence._stem(w) for w in found} - evidence._STOP
    if not heads:
        return judged
    qualified = [j for j in judged if not j.reason.endswith("never a target")]
    holders = [j for j in qualified if heads & readings[j.memory.id].words]
    if len(holders) < 2:
        return judged
    for j in holders:
        j.verdict = "delete"
        j.certainty = max(j.certainty, MARK_BAR)
        j.reason = f"one of the {', '.join(sorted(heads))}s the request asks for (all of them)"
    return judged


# -- a whole subject -----------------------------------------------------------------------

_CONTRARY = {
    "old": {"now", "current", "new", "currently", "still", "next"},
}
_PAST = re.compile(r"\b(?:old|previous|former|ex|earlier|past|last)\b", re.IGNORECASE)
_PRESENT = re.compile(r"\b(?:now|current|currently|new|still|next|planning|plans)\b", re.IGNORECASE)
_FRIEND = re.compile(
    r"^(?:my\s+)?(?:(?:good|best|old|dear)\s+)?(?:friend|colleague|coworker|co-worker|boss|"
    r"manager|neighbour|neighbor|sister|brother|mother|father|mum|mom|dad|cousin|aunt|uncle|"
    r"partner|wife|husband|son|daughter)?\s*",
    re.IGNORECASE,
)


def _subject(
    request: Request,
    candidates: Sequence[Candidate],
    readings: dict[str, Reading],
    common: frozenset[str],
) -> list[Judgement] | None:
    wanted = evidence.read(request.object, common)
    person = _person(request.object, wanted)
    if person is not None:
        return _about_person(person, candidates, readings)
    codes = identifiers(request.object)
    if codes:
        return _holding(codes, candidates, readings)
    return _about_topic(request.object, wanted, candidates, readings)


def _person(obj: str, wanted: Reading) -> str | None:
    """The object is a person ("Nina", "my friend Carol", "Nina from work", 田中さん)."""
    rest = _FRIEND.sub("", obj.strip(), count=1)
    rest = re.sub(r"\s+(?:from|at)\s+(?:work|school|the\s+\w+|\w+)$", "", rest)
    rest = re.sub(r"(?:さん|様|くん|君|ちゃん|氏)?(?:の)?$", "", rest)
    folded = evidence.fold(rest).strip()
    folded = folded[:-2] if folded.endswith("'s") else folded
    return folded if folded and folded in wanted.names else None


def _about_person(
    person: str, candidates: Sequence[Candidate], readings: dict[str, Reading]
) -> list[Judgement]:
    out = []
    for c in candidates:
        r = readings[c.memory.id]
        j = Judgement(c.memory, c.similarity, "skip", 0.0, "")
        if not evidence.holds_names(r, [person]):
            j.reason = f"does not name {person.title()}: never a target"
        elif r.owner == person and not r.shared_owner:
            j.verdict, j.certainty = "delete", 0.95
            j.reason = f"a fact about {person.title()} (whose fact it is)"
            j.evidence = [f"{person.title()} is whose fact it is", f"cosine {c.similarity:.2f}"]
        else:
            j.certainty = 0.5
            j.reason = (
                f"mentions {person.title()} beside someone else: listed for review, not deleted"
            )
        out.append(j)
    return out


def _holding(
    codes: list[tuple[str, ...]], candidates: Sequence[Candidate], readings: dict[str, Reading]
) -> list[Judgement]:
    out = []
    for c in candidates:
        j = Judgement(c.memory, c.similarity, "skip", 0.0, "")
        if holds_all(c.memory.content, codes):
            j.verdict, j.certainty = "delete", 0.95
            j.reason = f"holds {shown(codes)}, which the request asks to forget everywhere"
            j.evidence = [f"holds {shown(codes)}"]
        else:
            j.reason = f"does not hold {shown(codes)} (named in the request): never a target"
        out.append(j)
    return out


def _about_topic(
    obj: str, wanted: Reading, candidates: Sequence[Candidate], readings: dict[str, Reading]
) -> list[Judgement] | None:
    past = bool(_PAST.search(obj))
    anchors = [n for n in wanted.names if n != wanted.owner]

    def fits(r: Reading) -> str | None:
        if r.owner not in (None, USER, wanted.owner) and r.owner not in anchors:
            return f"is {r.owner.title()}'s fact"
        if past and _PRESENT.search(r.text):
            return "says now/current/new: the request asks about the old one"
        return None

    if not anchors:
        seeds = [
            c for c in candidates if fits(readings[c.memory.id]) is None and c.similarity >= 0.4
        ][:3]
        counts: dict[str, int] = {}
        for c in seeds:
            for n in readings[c.memory.id].names:
                if n != USER:
                    counts[n] = counts.get(n, 0) + 1
        shared = [n for n, k in counts.items() if k >= 2]
        if len(shared) != 1:
            return None
        anchors = shared
    out = []
    label = ", ".join(a.title() for a in anchors)
    for c in candidates:
        r = readings[c.memory.id]
        j = Judgement(c.memory, c.similarity, "skip", 0.0, "")
        unfit = fits(r)
        if not evidence.holds_names(r, anchors):
            j.reason = f"does not name {label}: never a target"
        elif unfit:
            j.certainty = 0.3
            j.reason = f"names {label} but {unfit}: not a target"
        else:
            j.verdict, j.certainty = "delete", 0.92
            j.reason = f"part of the subject ({label})"
            j.evidence = [f"names {label}", f"cosine {c.similarity:.2f}"]
        out.append(j)
    return out
