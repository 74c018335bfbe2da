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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from lethe.forget import attributes, compound, evidence, loans, wording
from lethe.forget.compound import Edit
from lethe.forget.evidence import USER, Reading
from lethe.forget.identifiers import holds_all, identifiers, shown
from lethe.forget.request import Request, read
from lethe.model import Memory
from lethe.scripts import has_cjk

MARK_BAR = 0.9
"""Certainty at or above which a candidate is marked for deletion."""
# The fact decision's certainty is a logistic function of its evidence (`_features`: whether
# it leads, its lead, word share, cosine, whether it says a word of the request, whether
# identifiers were named), its weights fitted on the development benchmark by
# bench/fit_forget_certainty.py (seed 17, every fact kind) and checked on another seed there.
WEIGHTS = {
    "bias": -1.54,
    "top": 2.84,
    "lead": 2.19,
    "share": 0.79,
    "cosine": 0.09,
    "said": 0.59,
    "codes": -0.11,
}

CERTAINTY_CAP = 0.99
IDENTIFIED = 0.95
"""The certainty of the one memory holding an identifier the request names on its own."""
"""No description is ever fully certain: an id is."""

Verdict = Literal["delete", "edit", "skip"]


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
    features: dict[str, float] | None = None
    """A fact decision's best candidate: the evidence its certainty was computed from."""
    doubt: str | None = None
    edit: Edit | None = None
    """For verdict `edit`: the memory without the fact to forget."""


@dataclass
class Decision:
    request: Request
    judgements: list[Judgement]
    ambiguous: bool


Similar = Callable[[str, Sequence[str]], dict[str, float]]
"""(text, memory ids) -> each memory's cosine to the text."""


def decide(
    text: str,
    candidates: Sequence[Candidate],
    *,
    margin: float = 0.05,
    similar: Similar | None = None,
) -> Decision:
    """Judge every candidate for the request. `margin`: the least lead (cosine plus word
    share) the best candidate of a fact request must have over the next one. `similar`
    gives the cosines of a part of a list request (each part is judged by its own)."""
    request = read(text)
    if not candidates:
        return Decision(request, [], False)
    texts = [text, *(c.memory.content for c in candidates)]
    common = evidence.lowercase_words(texts)
    named = evidence.named_words(texts)
    readings = {c.memory.id: evidence.read(c.memory.content, common, named) for c in candidates}
    if request.scope == "subject":
        judged = _subject(request, candidates, readings, common)
        if judged is not None:
            return Decision(request, judged, not any(j.verdict != "skip" for j in judged))
    parts = _parts(request.object)
    if len(parts) > 1:
        split = [
            _fact(p, _rescored(p, candidates, similar), readings, common, margin) for p in parts
        ]
        marked = [{j.memory.id for j in js if j.verdict != "skip"} for js in split]
        if all(marked) and not set.intersection(*marked):
            return Decision(request, _merge(split), False)
    judged = _fact(request.object, candidates, readings, common, margin)
    if _plural(request.object):
        judged = _widen_plural(judged, request.object, readings)
    return Decision(request, judged, not any(j.verdict != "skip" for j in judged))


# -- one fact ------------------------------------------------------------------------------

UNSAID = 0.25
"""The best match may leave unsaid at most this share of the request's words that other
memories say (weighted by rarity): beyond it, the request may mean another memory."""
DISAGREE = 0.05
"""A qualifying memory this much closer in cosine than the best match by words means the two
signals disagree: neither is trusted alone."""
TWIN_DIFFERENCE = 4
"""Two memories whose words differ in at most this many (two each way: one or two slots)
are the same sentence with other values ("works at Novartis as an accountant" and "works at
Shopify as a pharmacist")."""
FLOOR = 0.45
"""A fact request's winner needs at least this cosine, unless identifiers decided it."""
QUESTION_FLOOR = 0.40
"""... or this much when the request asks for the value ("what car I drive"): a question
and the fact that answers it share fewer words, so their cosines run lower."""
_QUESTION = re.compile(r"(?i)\s*(?:what|which|where|when|who|whom|whose|how)\b")


def _fact(
    obj: str,
    candidates: Sequence[Candidate],
    readings: dict[str, Reading],
    common: frozenset[str],
    margin: float,
) -> list[Judgement]:
    wanted = _request_reading(obj)
    codes = identifiers(obj) + _codes_in_capitals(obj)
    names = [n for n in wanted.names if n != wanted.owner or wanted.owner != USER]
    weights = evidence.idf(list(readings.values()))
    judged: list[Judgement] = []
    eligible: list[tuple[Judgement, float]] = []
    excluded: set[str] = set()
    """Candidates that cannot be the memory meant (they miss what the request names)."""
    unowned: set[str] = set()
    """Of those, the ones that are someone else's fact."""
    for c in candidates:
        r = readings[c.memory.id]
        missing = _missing(wanted, r, codes, names)
        sayable = evidence.sayable(wanted.words, r.text)
        # A word the memory says in another wording is said ("reacts badly to" for
        # "allergic to"): the words decide which memory is meant, not how it is worded.
        worded = (sayable - r.words) - _unsaid(obj, sayable, r)
        share = evidence.coverage(sayable, r.words | worded, weights)
        j = Judgement(c.memory, c.similarity, "skip", 0.0, "")
        if missing:
            j.reason = f"{missing}: never a target"
            excluded.add(c.memory.id)
            if missing.startswith("is "):
                unowned.add(c.memory.id)
            judged.append(j)
            continue
        j.evidence = _held(codes, names, wanted, share, c.similarity)
        eligible.append((j, c.similarity + share))
    eligible = _qualified(eligible, wanted, readings, judged, excluded)
    eligible.sort(key=lambda pair: -pair[1])
    if not eligible:
        return judged
    top, top_score = eligible[0]
    # Only the words the best match could say in its script count (a Chinese request over
    # an English memory: its Chinese words are none it could hold).
    plain = evidence.sayable(_plain(wanted, names, codes), top.memory.content)
    asked, owners = _asked(wanted, plain, names, codes)
    copies = [
        j
        for j, _ in eligible[1:]
        if _copy(readings[top.memory.id], readings[j.memory.id])
        or (
            # A part of it can be the best match stored again only if it holds all its words.
            readings[top.memory.id].words - owners <= readings[j.memory.id].words
            and compound.holds_as_part(j.memory.content, top.memory.content, owners)
        )
    ]
    rest = [(j, s) for j, s in eligible[1:] if j not in copies]
    lead = top_score - rest[0][1] if rest else top_score
    top.features = _features(
        lead, top_score - top.similarity, top.similarity, plain, codes, readings[top.memory.id]
    )
    certainty = certainty_of(top.features)
    top.evidence.append(
        f"lead over the next candidate {lead:.2f}" if rest else "no other candidate qualifies"
    )
    doubt = _doubt(
        top,
        obj,
        plain,
        codes,
        bool(names),
        weights,
        candidates,
        readings,
        excluded,
        unowned,
        not rest,
    )
    said = plain & readings[top.memory.id].words
    acted = _as_verb(obj) & said
    alike = [
        j
        for j, _ in rest
        if said == plain - _MARKERS
        and said <= readings[j.memory.id].words
        # "where I work" against "the user's work laptop": a noun there, another sense.
        and not (acted and _only_as_noun(j.memory.content, acted, _POSSESSED))
        # "the ginger biscuits" against "Ginger's parrot is called Biscuit": words the
        # request writes in lower case that it holds only as names are another sense.
        and not (said & _lower_words(obj)) - _lower_words(j.memory.content)
    ]
    debt = loans.parties(obj) and loans.parties(top.memory.content)
    # Two debts between the same two people, the request naming no amount.
    alike += [j for j, _ in rest if debt and loans.parties(j.memory.content) == debt]
    if said and not codes and alike and not doubt and not _plural(obj):
        # "the Vienna sausages" against two memories that both say it in its own words: the
        # words do not tell them apart, and the vector alone never decides.
        doubt = (
            f"{alike[0].memory.id} says every word of the request this one does: only the "
            "vector tells them apart; name it by id, or say it more exactly"
        )
    closer = [j for j, _ in rest if j.similarity > top.similarity + DISAGREE]
    content = plain - _MARKERS
    if closer and (
        _states_what_is_named(obj, content, readings[top.memory.id])
        or _says_all_without_spaces(obj, content, readings[top.memory.id])
    ):
        # "my previous address": the old e-mail address is closer in meaning, but only the
        # best match states an address; a closer memory that leaves a word unsaid is no rival.
        closer = [j for j in closer if not _unsaid(obj, content, readings[j.memory.id])]
    if closer and not doubt and not _identifier_led(obj, plain, codes):
        doubt = (
            f"the words and the vector disagree: {closer[0].memory.id} is closer in meaning "
            f"({closer[0].similarity:.2f} against {top.similarity:.2f})"
        )
    if rest and _identifier_led(obj, plain, codes):
        # An identifier named alone is to be forgotten wherever it is: every memory that
        # holds it is meant, not the best of them.
        held = [top, *copies, *(j for j, _ in rest)]
        naming_run = wording.identifier_names(obj)
        for j in held:
            # The words that name the identifier may be worded otherwise; any other word
            # of the request ("a blender" in "Daniel ordered a blender, order 993-…") says
            # which thing it is, and a holder that says another ("a tent") is not it.
            other = _unsaid(obj, plain, readings[j.memory.id]) - naming_run
            if other:
                j.certainty = 0.5
                j.doubt = j.reason = (
                    f"holds {shown(codes)}, but does not say {', '.join(sorted(other))}, "
                    "which the request says: not certain"
                )
                continue
            j.verdict, j.certainty = "delete", IDENTIFIED
            j.reason = f"holds {shown(codes)}, named alone in the request: every holder is meant"
            _cut(j, asked, owners)
        return [*held, *judged]
    if rest and lead < margin:
        doubt = doubt or (
            f"ambiguous: leads the next candidate by {lead:.2f}, less than the margin {margin}"
        )
    if not rest and not doubt and _identifier_led(obj, plain, codes):
        # An identifier named alone (or with one word) that one memory holds, with its
        # copies, is that memory: exact tokens decide identifiers.
        certainty = max(certainty, IDENTIFIED)
        top.evidence.append("the only memory that holds what the request names")
    top.doubt = doubt
    if doubt:
        certainty = min(certainty, 0.5)
    top.certainty = certainty
    if certainty >= MARK_BAR:
        top.verdict = "delete"
        top.reason = f"the memory the request describes (certainty {certainty:.2f})"
        for j in copies:
            j.verdict, j.certainty = "delete", certainty
            j.reason = "the same fact stored again (the same words and identifiers)"
        for j in (top, *copies):
            _cut(j, asked, owners)
    else:
        top.reason = doubt or (
            f"best match, but not certain enough to delete (certainty {certainty:.2f} "
            f"< {MARK_BAR}): name it by id, or say it more exactly"
        )
        for j in copies:
            j.certainty = certainty
            j.reason = "a copy of the best match, which is not certain enough to delete"
    for j, s in rest:
        f = _features(
            s - top_score, s - j.similarity, j.similarity, plain, codes, readings[j.memory.id]
        )
        j.certainty, j.features = certainty_of(f), f
        j.reason = (
            "holds what the request names, but another memory matches it better"
            if certainty >= MARK_BAR
            else "holds what the request names; too close to other candidates to choose"
        )
    return [top, *copies, *(j for j, _ in rest), *judged]


def _unsaid(obj: str, plain: frozenset[str], r: Reading) -> frozenset[str]:
    """The request's words a memory does not say, in any wording (`wording`). Each rule runs
    only while words are still lacking: this is asked of every candidate."""
    lacking = plain - r.words
    named = wording.naming_words(obj) | wording.identifier_names(obj)
    if lacking & named and not wording.names_identifiers(r.text):
        # Holding it bare says whatever the request calls it ("licence plate HB-7017").
        lacking -= named
    if lacking:
        lacking -= wording.said_otherwise(lacking, r.words)
    if lacking:
        # The noun of an attribute is said by a memory stating it now in any construction:
        # "Kim employer" by "Kim works at Stripe", "Tara diet" by "Tara went vegan"; not by
        # one that says it was so ("lived in Tokyo for two years" is no address), nor by a
        # reading that could be either of two ("moved to Porto": a home or an employer).
        stated = frozenset() if attributes.uncertain(r.text) else attributes.stated(r.text)
        lacking -= {w for w in lacking if attributes.named(frozenset({w})) & stated}
    if lacking:
        lacking -= wording.said_by_holding(lacking, r.text)
    if lacking:
        lacking -= wording.said_by_using(obj, lacking, r.text)
    if lacking:
        lacking -= wording.said_by_having(obj, lacking)
    debt = loans.parties(obj) if lacking else None
    if debt and debt == loans.parties(r.text):
        lacking -= _DEBT_WORDS
    if lacking:
        lacking -= wording.said_by_phrase(obj, lacking, r.text, r.words)
    return lacking


_DEBT_WORDS = evidence.words("lend lent lends loan loaned owe owes owed debt borrow borrowed")
"""The words of a debt, said by any memory that states the same one (`loans`)."""


def _says(obj: str, plain: frozenset[str], r: Reading) -> int:
    """How many of the request's words a memory says, in any wording. A count, not a
    weighted share: a rare word of another value ("licence plate" beside a black Skoda)
    must not outweigh the several words the best match says ("drives a green Fiat")."""
    return len(plain - _unsaid(obj, plain, r))


def _asked(
    wanted: Reading, plain: frozenset[str], names: list[str], codes: list[tuple[str, ...]]
) -> tuple[frozenset[str], frozenset[str]]:
    """What a part of a memory must hold to be the request's fact (its words, the names it
    gives beyond whose fact it is, its identifiers' tokens), and the words naming whose fact
    it is (held by every part of a memory about one person)."""
    owners = {"user"} if wanted.owner in (USER, None) else evidence.words(wanted.owner)
    named = evidence.words(" ".join(n for n in names if n != wanted.owner))
    tokens = evidence.words(" ".join(t for c in codes for t in c))
    return frozenset(plain | named | tokens) - owners, frozenset(owners)


def _cut(j: Judgement, asked: frozenset[str], owners: frozenset[str]) -> None:
    """A marked memory that also holds another fact is edited, not deleted
    (`compound.split`); when it cannot be cut cleanly, nothing is marked."""
    found = compound.split(j.memory.content, asked, owners)
    if found is None:
        return
    if found.edit is None:
        j.verdict, j.certainty = "skip", min(j.certainty, 0.5)
        j.doubt = j.reason = found.doubt or (
            "it also holds another fact, which cannot be cut from it cleanly: edit it "
            "yourself (update), or name it by id to forget all of it"
        )
        return
    j.verdict, j.edit = "edit", found.edit
    j.reason = (
        f"holds the fact the request describes and another ({'; '.join(found.edit.kept)}): "
        f"edited to keep the other (certainty {j.certainty:.2f})"
    )


def _qualified(
    eligible: list[tuple[Judgement, float]],
    wanted: Reading,
    readings: dict[str, Reading],
    judged: list[Judgement],
    excluded: set[str],
) -> list[tuple[Judgement, float]]:
    """A request for the old one ("my old phone number") means a memory that says it is
    past, when one does: one that says nothing of time is then the current one, or another."""
    kept = eligible
    for marker, what in ((evidence.PAST, "old"), (evidence.PRESENT, "current")):
        if marker not in wanted.words:
            continue
        saying = [(j, s) for j, s in kept if marker in readings[j.memory.id].words]
        if not saying:
            continue
        for j, _ in kept:
            if marker not in readings[j.memory.id].words:
                j.reason = (
                    f"does not say it is the {what} one, and another memory does: never a target"
                )
                excluded.add(j.memory.id)
                judged.append(j)
        kept = saying
    return kept


def _plain(wanted: Reading, names: list[str], codes: list[tuple[str, ...]]) -> frozenset[str]:
    """The request's words beyond its names and identifiers."""
    named = evidence.words(" ".join(names)) | evidence.words(" ".join(t for c in codes for t in c))
    return wanted.words - named


def _features(
    lead: float,
    share: float,
    similarity: float,
    plain: frozenset[str],
    codes: list[tuple[str, ...]],
    r: Reading,
) -> dict[str, float]:
    return {
        "top": 1.0 if lead > 0 else 0.0,
        "lead": lead,
        "share": share,
        "cosine": similarity,
        "said": 1.0 if (plain & r.words) or not plain else 0.0,
        "codes": 1.0 if codes else 0.0,
    }


def certainty_of(features: dict[str, float]) -> float:
    z = WEIGHTS["bias"] + sum(WEIGHTS[k] * v for k, v in features.items())
    return min(1.0 / (1.0 + math.exp(-z)), CERTAINTY_CAP)


def _lower_words(text: str) -> frozenset[str]:
    """The words a text writes in lower case (`evidence.words` folds case away)."""
    return evidence.words(" ".join(_LOWER.findall(text)))


_LOWER = re.compile(r"(?<![\w'-])[a-z][a-z'-]*")


def _states_what_is_named(obj: str, content: frozenset[str], r: Reading) -> bool:
    """The memory states the attribute the request names by its noun ("my old car" against
    "the user used to drive a grey VW Golf", "my 2018 address" against "in 2018 the user
    lived at …") and says every other word of it: the vector, which barely relates the
    two wordings, is not needed to tell it is the fact."""
    asked = attributes.named(content)
    return bool(asked & attributes.stated_ever(r.text)) and not _unsaid(obj, content, r)


def _says_all_without_spaces(obj: str, content: frozenset[str], r: Reading) -> bool:
    """A request in Japanese or Chinese whose every word the memory says: an English model
    gives text it cannot read about the same cosine whatever it says (0.5-0.7), so a
    memory closer by it that leaves a word of the request unsaid is no rival."""
    return has_cjk(obj) and bool(content) and not _unsaid(obj, content, r)


def _identifier_led(obj: str, plain: frozenset[str], codes: list[tuple[str, ...]]) -> bool:
    """The request is an identifier with at most two words naming what it is ("order number
    470-…", "booking 2Y74F8", "the password marble-50"), not a sentence about it ("the code for
    my bank login is 16621"): the identifier decides, whatever words the memory uses."""
    return bool(_naming(codes)) and evidence.word_count(obj, plain) <= 2 and not _VERB.search(obj)


def _naming(codes: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The identifiers that name a fact: a year only says when it held."""
    return [c for c in codes if not _YEAR.fullmatch("".join(c))]


def _as_verb(text: str) -> frozenset[str]:
    """Words the text uses as a verb: right after its subject ("Kenji works", "I cook")."""
    return frozenset(w for m in _SUBJECT_VERB.finditer(text) for w in evidence.words(m.group(1)))


def _only_as_noun(text: str, wanted: frozenset[str], before: re.Pattern[str] | None = None) -> bool:
    """Every time the text says one of the words, a determiner or a preposition comes right
    before it ("for work mail", "a cook")."""
    seen = False
    for m in re.finditer(r"[A-Za-z]+", text):
        if not evidence.words(m.group(0)) & wanted:
            continue
        seen = True
        if not (before or _NOUN_BEFORE).search(text[: m.start()]):
            return False
    return seen


_SUBJECT_VERB = re.compile(r"\b(?:I|we|you|he|she|they|[A-Z][a-z]+)\s+([a-z]{3,})\b")
_NOUN_BEFORE = re.compile(
    r"(?i)\b(?:a|an|the|my|his|her|their|your|our|its|for|of|at|from|by|with)\s+$"
)
_POSSESSED = re.compile(r"(?i)(?:\b(?:a|an|the|my|his|her|their|your|our|its)|\w's)\s+$")
"""A noun right after a determiner or a possessive ("the user's work laptop")."""

_MARKERS = frozenset((evidence.PAST, evidence.PRESENT, evidence.NOT))
"""Words that say when or whether a fact holds, never what it is about."""

_YEAR = re.compile(r"(?:19|20)\d\d")
"""A year qualifies a fact ("Maria's 2020 phone number"); it does not name it alone."""


_VERB = re.compile(r"\b(?:is|are|was|were|am|be|been|has|have|had|do|does|did)\b", re.IGNORECASE)


def _doubt(
    top: Judgement,
    obj: str,
    plain: frozenset[str],
    codes: list[tuple[str, ...]],
    named: bool,
    weights: dict[str, float],
    candidates: Sequence[Candidate],
    readings: dict[str, Reading],
    excluded: set[str],
    unowned: set[str],
    only_holder: bool,
) -> str | None:
    """Why the best candidate, though it holds everything the request names, may not be the
    memory meant: it says none of the request's words (only its vector links them), it is
    barely similar, or the request's words it does not say are said by
    other memories (the request may mean one of those, or one not stored; a memory that
    lacks a value the request names counts only when it is as close in meaning as the best
    match — farther, its words are how it is worded, not another meaning), or a memory of
    the same kind says a word of the request that it does not ("pharmacist" in "Sofia works
    at Shopify as a pharmacist" when the best match says "accountant"). A request that is an
    identifier with the words naming it ("order number 470-…") is decided by its
    identifier."""
    r = readings[top.memory.id]
    if not codes and not plain and not named:
        return "the request names nothing a memory could hold (no word, name or number)"
    naming = _naming(codes)
    content = plain - _MARKERS
    if not naming and content and not (content - _unsaid(obj, content, r)):
        # "previous" is not what the request is about: "my previous address" against "my old
        # e-mail" shares only the time.
        return "says none of the request's words beyond its names: not certain"
    acted = _as_verb(obj) & content & r.words
    if not naming and acted and acted == content & r.words and _only_as_noun(r.text, acted):
        # "where Kenji works" against "Kenji uses … for work mail": the request's verb is a
        # noun there, another sense of the word.
        return (
            f"says {', '.join(sorted(acted))} only as a noun, where the request does it: "
            "not certain"
        )
    floor = QUESTION_FLOOR if _QUESTION.match(obj) else FLOOR
    if not naming and top.similarity < floor and not _states_what_is_named(obj, content, r):
        return f"barely similar to the request (cosine {top.similarity:.2f}): not certain"
    if _identifier_led(obj, plain, codes) and only_holder:
        return None
    # A word it words otherwise is not lacking: the name of an identifier it holds ("my
    # mobile is +44 …" against "I can be reached on +44 …"), or another word of the same
    # attribute ("allergic" against "reacts badly"): `wording`.
    lacking = _unsaid(obj, plain, r)
    if not lacking:
        return None
    # A best match that says the request's words only in other wordings has not shown by
    # its own words that it is the fact: then every other memory's words count, someone
    # else's too ("Booked: dermatologist for Kenji" against "Maria's optician appointment"
    # for "Maria's dermatologist booking").
    literal = bool(content & r.words)
    top_says = _says(obj, plain, r)
    elsewhere: set[str] = set()
    for c in candidates:
        shared = lacking & readings[c.memory.id].words
        if shared and (
            not literal
            or c.memory.id not in excluded
            or (c.memory.id not in unowned and c.similarity >= top.similarity)
            # Another value's or another person's memory that says as much of the request
            # as the best match reads it as well ("Maria's studio Wi-Fi: tangerine-81" for
            # "Maria's studio Wi-Fi password is tangerine-82" against her office's): the
            # request may mean a fact that is not stored.
            or _says(obj, plain, readings[c.memory.id]) >= top_says
        ):
            elsewhere |= shared
    unsaid = sum(weights.get(w, 0.0) for w in elsewhere)
    said = sum(weights.get(w, 0.0) for w in plain & r.words)
    if unsaid > UNSAID * (unsaid + said):
        return (
            f"does not say {', '.join(sorted(elsewhere))}, which the request says and other "
            "memories do: not certain"
        )
    for c in candidates:
        other = readings[c.memory.id]
        # Someone else's twin counts too: "Lucas has a tortoise named Ziggy" says the word
        # ("tortoise") that the user's "cat named Ziggy" does not.
        if c.memory.id == top.memory.id or _copy(r, other):
            continue
        if len(r.words ^ other.words) <= TWIN_DIFFERENCE and lacking & other.words:
            words = ", ".join(sorted(lacking & other.words))
            return (
                f"the same sentence with another value ({c.memory.id}) says {words}, which the "
                "request says and this one does not: not certain"
            )
        own = r.words - other.words - {evidence.PAST, evidence.PRESENT, evidence.NOT}
        twin = c.memory.id not in excluded and len(r.words ^ other.words) <= TWIN_DIFFERENCE
        if twin and own and not own & plain:
            # "Alice reacts badly to peanuts" beside "… to latex": only the value tells
            # them apart, and the request names neither ("Alice reacts to sesame").
            return (
                f"the same sentence is stored with another value ({c.memory.id}), and the "
                f"request names neither this one's ({', '.join(sorted(own))}): not certain"
            )
    return None


_CAPITALS = re.compile(r"(?<![\w@.-])[A-Z]{5,}(?![\w@-])")


def _codes_in_capitals(obj: str) -> list[tuple[str, ...]]:
    """A run of five or more capitals with no digit ("QKLAUY", a booking reference) is a
    code too: it is matched exactly, like an identifier with digits."""
    return [(m.group(0).casefold(),) for m in _CAPITALS.finditer(obj)]


def _part_agrees(wanted: Reading, r: Reading) -> bool:
    """ "The user does not smoke and drinks tea": the clause holding the request's words
    ("I drink tea") says it is so; the negation belongs to the other clause."""
    asked = wanted.words - {evidence.NOT, evidence.PAST, evidence.PRESENT}
    found = compound.parts(r.text)
    if len(found) < 2 or not asked:
        return False
    holding = [p for p in found if evidence.words(p.text) & asked]
    return bool(holding) and all(evidence.negated(p.text) == wanted.negated for p in holding)


def _past_only(wanted: Reading, r: Reading) -> bool:
    """ "no longer in use" answers a request for the old one: there it says the fact is past,
    not that it is false."""
    if evidence.PAST not in wanted.words or wanted.negated:
        return False
    return r.negated and not evidence.negated(re.sub(r"(?i)no\s+longer", "", r.text))


_GERUND = re.compile(r"^\s*([A-Z][a-z]{2,}ing)\b(?!')")


def _stem_of(word: str) -> str:
    """A word as `evidence.lowercase_words` folds it."""
    return next(iter(evidence.lowercase_words([word.casefold()])), word.casefold())


def _request_reading(obj: str) -> Reading:
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


_LABEL = re.compile(r"(?<![\w@.-])([A-Z]{2,5})(?![\w@-])")


def _missing(
    wanted: Reading, r: Reading, codes: list[tuple[str, ...]], names: list[str]
) -> str | None:
    if codes and not holds_all(r.text, codes):
        return f"does not hold {shown(codes)} (named in the request)"
    absent = [n for n in names if not evidence.holds_names(r, [n])]
    if absent:
        return f"does not name {', '.join(absent)} (named in the request)"
    past, present = evidence.PAST, evidence.PRESENT
    if past in wanted.words and past not in r.words and present in r.words:
        return "says now/current/new, the request asks about the old one"
    if present in wanted.words and present not in r.words and past in r.words:
        return "says old/previous, the request asks about the current one"
    if wanted.negated != r.negated and not _past_only(wanted, r) and not _part_agrees(wanted, r):
        said = "says it is not so" if r.negated else "says it is so"
        return f"{said}, the request {'the opposite' if r.negated else 'that it is not'}"
    debt, held = loans.parties(wanted.text), loans.parties(r.text)
    if debt and held:
        # One debt said from either side ("Alice owes Tom" is "Tom lent Alice"): whose
        # sentence it is does not matter, only who lent to whom.
        if debt == held:
            return None
        if debt == held[::-1]:
            return "says the debt goes the other way: never the fact meant"
    if wanted.owner == USER and r.owner is None:
        others = [n for n in r.names if n not in wanted.names and n not in evidence.CALENDAR]
        if others:
            return f"is not said to be yours and names {', '.join(o.title() for o in others)}"
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


# -- several facts -------------------------------------------------------------------------

_JOINED = re.compile(r"\s(?:and|&)\s|;|、|と")
_SEPARATOR = re.compile(r"\s*(?:,\s*(?:and\s+)?(?:also\s+)?|;\s*|\s+and\s+(?:also\s+)?|、|と)\s*")


def _parts(obj: str) -> list[str]:
    """A list of things to forget ("Maria's cat, Marco's Etsy order and Julia's address"):
    only a list joined by "and" (or ";", 、, と) is split, and only when every part has its
    own anchor — a name, the user, or an identifier — so a fact with a comma in it ("Nina is
    on atorvastatin, 150 mg a day") stays one request."""
    if not _JOINED.search(obj):
        return [obj]
    parts = [p for p in _SEPARATOR.split(obj) if p and p.strip()]
    if len(parts) < 2:
        return [obj]
    for part in parts:
        reading = evidence.read(part, frozenset())
        if not (reading.names or reading.owner or identifiers(part)):
            return [obj]
    return parts


def _rescored(
    part: str, candidates: Sequence[Candidate], similar: Similar | None
) -> list[Candidate]:
    if similar is None:
        return list(candidates)
    cosines = similar(part, [c.memory.id for c in candidates])
    rescored = [Candidate(c.memory, cosines.get(c.memory.id, 0.0)) for c in candidates]
    return sorted(rescored, key=lambda c: -c.similarity)


def _merge(split: list[list[Judgement]]) -> list[Judgement]:
    best: dict[str, Judgement] = {}
    for judged in split:
        for j in judged:
            held = best.get(j.memory.id)
            if held is None or (j.verdict != "skip" and held.verdict == "skip"):
                best[j.memory.id] = j
    return sorted(best.values(), key=lambda j: (j.verdict == "skip", -j.similarity))


_PLURAL = re.compile(
    r"(?:\b(?:my|our|all|every|each)\b|'s)\s+(?:[a-z-]+\s+)?([a-z]{3,}[^s\W]s)\b"
    # A plural noun ends its phrase; "my sister works nights", "Tom's dog barks at night":
    # a verb goes on.
    r"(?=\s*(?:$|[.,;:?!)]|(?:and|or|with|from|of|for|that|which|too|as\s+well)\b))"
)
_EVERY = re.compile(r"\b(?:all|every|each)\s+(?:(?:my|of\s+my|the)\s+)?([a-z]{3,})\b")


def _plural(obj: str) -> bool:
    """A request for every one of a kind: "all my appointments", "Tom's appointments",
    "every appointment I have"."""
    return bool(_PLURAL.search(obj) or _EVERY.search(obj)) and not identifiers(obj)


def _widen_plural(
    judged: list[Judgement], obj: str, readings: dict[str, Reading]
) -> list[Judgement]:
    """ "All my appointments": every candidate that qualifies and holds the plural noun's
    word (or, when fewer than two hold it, none beyond the fact decision: "afraid of
    flights" alone is no flight)."""
    found = [*_PLURAL.findall(obj), *_EVERY.findall(obj)]
    # Read like the memories' words (Snowball stems): "appointments" is "appoint" there.
    heads = evidence.words(" ".join(found)) - _MARKERS
    if not heads:
        return judged
    qualified = [j for j in judged if not j.reason.endswith("never a target")]
    # The word itself, not another of its group: "a flight … booking ref" is no appointment.
    holders = [j for j in qualified if heads & readings[j.memory.id].words]
    if len(holders) < 2:
        return judged
    for j in holders:
        j.verdict = "delete"
        j.certainty = max(j.certainty, MARK_BAR)
        j.reason = f"the request asks for all of them ({', '.join(sorted(set(found)))})"
    return judged


# -- a whole subject -----------------------------------------------------------------------

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
    wanted = _request_reading(request.object)
    person = _person(request.object, wanted)
    if person is not None:
        return _about_person(person, candidates, readings)
    codes = identifiers(request.object)
    if _naming(codes):
        names = [n for n in wanted.names if n != wanted.owner]
        return _holding(request.object, wanted, codes, names, candidates, readings)
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
        elif person in (loans.parties(c.memory.content) or ()):
            # "Maria owes Bill $1750": a debt is a fact of both its parties.
            j.verdict, j.certainty = "delete", 0.95
            j.reason = f"a debt {person.title()} is a party to (a fact of both parties)"
            j.evidence = [f"{person.title()} lent or borrowed", f"cosine {c.similarity:.2f}"]
        elif r.owner is not None and r.owner.startswith(person + ":") and not r.shared_owner:
            # "Alice's parents' house Wi-Fi": her family's part of what is known about her.
            relative = r.owner.split(":", 1)[1]
            j.verdict, j.certainty = "delete", 0.95
            j.reason = f"a fact of {person.title()}'s {relative} (part of what is known of her/him)"
            j.evidence = [f"{person.title()}'s {relative}", f"cosine {c.similarity:.2f}"]
        else:
            j.certainty = 0.5
            j.reason = (
                f"mentions {person.title()} beside someone else: listed for review, not deleted"
            )
        out.append(j)
    return out


def _holding(
    obj: str,
    wanted: Reading,
    codes: list[tuple[str, ...]],
    names: list[str],
    candidates: Sequence[Candidate],
    readings: dict[str, Reading],
) -> list[Judgement]:
    """Every memory that holds the identifiers: the request asks to forget them everywhere.
    A word the request says besides ("1月24日の予定": the plans on that day) must be said by
    the holder too, in any wording; one that does not (the birthday on that day) is listed
    for review, not deleted."""
    plain = _plain(wanted, names, codes) - _MARKERS
    naming = wording.identifier_names(obj)
    out = []
    for c in candidates:
        r = readings[c.memory.id]
        j = Judgement(c.memory, c.similarity, "skip", 0.0, "")
        absent = [n for n in names if not evidence.holds_names(r, [n])]
        if absent:
            j.reason = f"does not name {', '.join(absent)} (named in the request): never a target"
        elif holds_all(c.memory.content, codes):
            other = _unsaid(obj, evidence.sayable(plain, r.text), r) - naming
            j.evidence = [f"holds {shown(codes)}"]
            if other:
                j.certainty = 0.5
                j.reason = (
                    f"holds {shown(codes)}, but does not say {', '.join(sorted(other))}, "
                    "which the request says: listed for review, not deleted"
                )
            else:
                j.verdict, j.certainty = "delete", 0.95
                j.reason = f"holds {shown(codes)}, which the request asks to forget everywhere"
        else:
            j.reason = f"does not hold {shown(codes)} (named in the request): never a target"
        out.append(j)
    return out


def _years(text: str) -> set[str]:
    return set(_YEARS.findall(text))


_YEARS = re.compile(r"(?<![\d.,])((?:19|20)\d\d)(?![\d.,]\d)")


def _as_entity(text: str, anchors: list[str]) -> bool:
    """The memory names the anchor as the place or the company itself: right after a
    preposition ("In Iceland the user lost…", "the commute to Spotify")."""
    for anchor in anchors:
        for m in re.finditer(rf"(?i)\b{re.escape(anchor)}\b", text):
            if _PREPOSITION_BEFORE.search(text[: m.start()].rstrip()):
                return True
    return False


def _another_thing(text: str, anchors: list[str], head: frozenset[str]) -> str | None:
    """ "Dijon mustard", "Turkey sandwiches", "the Java course": every time the memory names
    the anchor, the name qualifies a noun that is none of the request's words — another thing
    than the one asked about ("the Dijon office", "the Java trip")."""
    seen: list[str] = []
    for anchor in anchors:
        for m in re.finditer(rf"(?i)\b{re.escape(anchor)}\b(\s+([a-z]+))?", text):
            noun = m.group(2)
            before = text[: m.start()].rstrip()
            # After a preposition ("the commute to Atlassian took…") the name is the place or
            # the company itself, whatever follows.
            entity = bool(_PREPOSITION_BEFORE.search(before))
            if entity or noun is None or _VERB.fullmatch(noun) or _FINITE_WORD.fullmatch(noun):
                return None
            if not evidence.words(noun) or evidence.words(noun) & head:
                return None
            seen.append(f"{text[m.start() : m.end()]}")
    return seen[0] if seen else None


def _acted_on(text: str, anchors: list[str]) -> str | None:
    """Every time the memory names the anchor, a verb acts on it ("writes Java", "uses Slack"):
    the name is a thing, not a place or a company one goes to."""
    seen: list[str] = []
    for anchor in anchors:
        for m in re.finditer(rf"(?i)\b{re.escape(anchor)}\b", text):
            before = re.search(r"([a-z]+)\s+$", text[: m.start()])
            if before is None or not _ACTING.fullmatch(before.group(1)):
                return None
            seen.append(f"{before.group(1)} {text[m.start() : m.end()]}")
    return seen[0] if seen else None


_ACTING = re.compile(r"[a-z]{2,}(?:[^s]s|ed|ing)|uses|does")
"""A verb's inflected form ("writes", "coded", "learning"); "visited" and "to" are in
_PREPOSITION_BEFORE, which is looked at first."""

_PREPOSITION_BEFORE = re.compile(
    r"(?i)\b(?:to|in|at|from|of|for|with|near|about|around|across|visit|visited|visiting)$"
)
_FINITE_WORD = re.compile(r"[a-z]+(?:ed|ing)|took|went|made|had|was|were|is|are|has|did|got")


def _about_topic(
    obj: str, wanted: Reading, candidates: Sequence[Candidate], readings: dict[str, Reading]
) -> list[Judgement] | None:
    past = evidence.PAST in wanted.words
    anchors = [n for n in wanted.names if n != wanted.owner]
    # A year qualifies the topic ("my 2019 trip to Portugal"): its members need not say it,
    # but one that gives another year is another trip.
    years = _years(obj)

    def fits(r: Reading) -> str | None:
        mine = {None, wanted.owner} | ({USER} if wanted.owner in (None, USER) else set())
        # The user's topic takes in the user's relatives' part of it ("the user's manager at
        # Spotify was Alice" belongs to "my old job").
        relative = r.owner is not None and r.owner.startswith(USER + ":")
        if wanted.owner in (None, USER) and relative:
            return "says now/current/new" if past and evidence.PRESENT in r.words else None
        if r.owner not in mine and r.owner not in anchors and str(r.owner) not in obj.casefold():
            return "is the user's fact" if r.owner == USER else f"is {str(r.owner).title()}'s fact"
        if past and evidence.PRESENT in r.words:
            return "says now/current/new: the request asks about the old one"
        other_years = _years(r.text) - years
        if years and other_years and not years & _years(r.text):
            given, asked = ", ".join(sorted(other_years)), ", ".join(sorted(years))
            return f"says {given}, the request asks about {asked}"
        return None

    words: frozenset[str] = frozenset()
    # Only a name the person said can be a word in another sense; a name the closest memories
    # share (for "my previous apartment") is the topic's by construction.
    said = bool(anchors)
    if not anchors:
        seeds = [c for c in candidates if fits(readings[c.memory.id]) is None][:3]
        counts: dict[str, int] = {}
        for c in seeds:
            for n in readings[c.memory.id].names:
                if n not in (USER, wanted.owner):
                    counts[n] = counts.get(n, 0) + 1
        shared = [n for n, k in counts.items() if k >= 2]
        if len(shared) == 1:
            anchors = shared
        else:
            # No name to hold on to: the topic is its words ("歯医者", "the dentist").
            words = (
                wanted.words - {evidence.PAST, evidence.PRESENT} - evidence.words("old previous")
            )
            if not words:
                return None

    def holds(r: Reading) -> bool:
        return evidence.holds_names(r, anchors) if anchors else words <= r.words

    # A name that qualifies a thing ("the Vienna office", "my trip to Japan"): a memory that
    # names it but says none of that thing's words must at least be close in meaning —
    # "Vienna sausages" uses the name in another sense.
    head = wanted.words - evidence.words(" ".join(anchors)) - {evidence.PAST, evidence.PRESENT}
    out = []
    label = ", ".join(a.title() for a in anchors) or "the words " + ", ".join(sorted(words))
    for c in candidates:
        r = readings[c.memory.id]
        j = Judgement(c.memory, c.similarity, "skip", 0.0, "")
        unfit = fits(r)
        other = _another_thing(r.text, anchors, head) if said and head else None
        if other and not unfit:
            unfit = f"names another thing ({other}): the name is used in another sense"
        entity = said and _as_entity(r.text, anchors)
        apart = said and head and not (head & r.words) and not unfit and not entity
        if apart and c.similarity < FLOOR:
            unfit = (
                f"says none of {', '.join(sorted(head))} and is far in meaning "
                f"({c.similarity:.2f}): the name may be used in another sense"
            )
        elif apart and (acted := _acted_on(r.text, anchors)):
            # "writes Java at work" beside "the Java trip": a name that is only ever the thing
            # a verb acts on, with none of the request's words, is a language, a product…
            unfit = (
                f"says none of {', '.join(sorted(head))} and names it as what is acted on "
                f"({acted}): the name may be used in another sense"
            )
        if not holds(r):
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
