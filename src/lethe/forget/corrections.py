"""Which stored memory a new fact likely replaces: "Alice now works at Stripe" against
"Alice works at Shopify".

A new fact supersedes a stored one when both are the same person's (or nobody's), say the
same attribute (the same kind of sentence: close vectors, and the stored memory holds the
new fact's attribute words), and give it a different value (an identifier, a number or a
name that one holds and the other does not). A restatement with the same values is a
duplicate, not a correction; the same attribute of someone else is never named.

This only names the memory, with a confidence and the evidence: replacing it is the
caller's choice (`remember(..., supersedes=ID)`), which keeps the old text as a version.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from lethe.model import Gist, Supersession
from lethe.planner import attributes, evidence, loans, wording
from lethe.planner.evidence import USER, Reading
from lethe.planner.identifiers import Identifier, identifiers

SAME_KIND = 0.5
"""Cosine below which two memories are not taken to say the same attribute."""
SHOWN = 3
CANDIDATES = 20
"""How many of a new fact's closest memories are read for what it replaces."""
_MARKERS = re.compile(
    r"\b(?:now|new|newly|changed|moved|switched|went\s+up|went\s+down|no\s+longer|anymore|"
    r"actually|correction|update|updated|instead|since|became|is\s+now)\b",
    re.IGNORECASE,
)


_DATE_WORDS = evidence.words(" ".join(evidence.CALENDAR))
"""Days and months as `evidence.words` reads them (stems)."""


def likely_superseded(content: str, candidates: Sequence[tuple[Gist, float]]) -> list[Supersession]:
    """The live memories (best first, at most three) that `content` likely supersedes.
    `candidates` are the namespace's closest memories with their cosine to `content`."""
    if not candidates:
        return []
    said = attributes.stated(content)
    if not said and all(cosine < SAME_KIND for _, cosine in candidates):
        return []  # nothing says the same kind of fact, and no attribute could name one
    texts = [content, *(m.content for m, _ in candidates)]
    common = evidence.lowercase_words(texts)
    named = evidence.named_words(texts)
    new = evidence.read(content, common, named)
    new_codes = frozenset(identifiers(content))
    readings = {m.id: evidence.read(m.content, common, named) for m, _ in candidates}
    new = _owned_by_named(new, readings.values())
    weights = evidence.idf(list(readings.values()))
    marker_words = evidence.words(" ".join(_MARKERS.findall(content)))
    attribute = new.words - marker_words - {w for code in new_codes for w in code}
    # The names the new fact gives beyond whose fact it is are part of what it says ("Bob's
    # PureGym membership now costs €45" is about the PureGym membership, not another gym's).
    attribute -= {n for n in new.names if n == new.owner}
    keys = [n for n in new.names if n != new.owner and n not in evidence.CALENDAR]
    # Another memory of the same person that holds the names the new fact gives may be the
    # one it replaces ("Bob's Anytime Fitness membership" is no rival for his PureGym one).
    rivals = {
        i: r.words
        for i, r in readings.items()
        if _same_owner(new, r) and evidence.holds_names(r, keys)
    }
    debt = loans.parties(content)
    scored: list[tuple[float, Gist, float, list[str], bool]] = []
    for memory, cosine in candidates:
        old = readings[memory.id]
        if cosine < SAME_KIND or memory.content.strip() == content.strip():
            continue
        # Whose debt the stored memory states matters only when the new fact states one.
        held = loans.parties(memory.content) if debt else None
        if debt and held and debt == held[::-1]:
            # "Alice now owes Tom £300" never replaces "Alice lent Tom £40".
            continue
        if not _same_owner(new, old) and not (debt and debt == held):
            continue
        changed = _changed(new, old, new_codes, memory.content)
        if not changed:
            continue
        lacking = attribute - old.words
        lacking -= wording.said_otherwise(lacking, old.words)
        lacking -= wording.said_by_phrase(content, lacking, memory.content, old.words)
        lacking -= wording.said_by_holding(lacking, memory.content)
        share = evidence.coverage(frozenset(attribute), attribute - lacking, weights)
        why = [
            "the same person's fact" if new.owner else "nobody else's fact",
            f"says the same attribute ({share:.0%} of its words, cosine {cosine:.2f})",
            changed,
        ]
        # A rival that says a word of the new fact this one does not ("personal" in "my new
        # personal e-mail" against "… for work mail") may be the one it replaces. A day or a
        # month is the new value, not a word the old memory should say.
        unsaid = lacking - _DATE_WORDS
        elsewhere = sorted(
            w for w in unsaid if any(w in theirs for i, theirs in rivals.items() if i != memory.id)
        )
        if elsewhere:
            why.append(f"does not say {', '.join(elsewhere)}, which another memory of theirs does")
        scored.append((cosine + share, memory, share, why, bool(elsewhere)))
    scored.sort(key=lambda s: -s[0])
    out: list[Supersession] = []
    for n, (score, memory, share, why, doubted) in enumerate(scored[:SHOWN]):
        # Alone, a candidate leads only what any candidate would score: the floor of the
        # same kind, saying nothing of the new fact.
        rival = max((s for s, *_ in scored if s is not score), default=SAME_KIND)
        lead = score - rival if n == 0 else 0.0
        marked = bool(_MARKERS.search(content))
        z = -5.0 + 10.0 * lead + 4.0 * share + 2.0 * (score - share) + (1.0 if marked else 0.0)
        confidence = min(1.0 / (1.0 + math.exp(-z)), 0.5 if doubted else 0.99)
        if marked:
            why.append("the new fact says it is a change (now/new/changed…)")
        if n == 0:
            why.append(f"leads the next candidate by {lead:.2f}" if len(scored) > 1 else "alone")
        out.append(
            Supersession(
                id=memory.id,
                preview=memory.preview(),
                confidence=round(confidence, 3),
                evidence=tuple(why),
            )
        )
    return _by_attribute(content, said, new, candidates, readings, out)[:SHOWN]


def _owned_by_named(new: Reading, others: Iterable[Reading]) -> Reading:
    """A new fact whose subject is not a person ("the dermatologist rescheduled Priya to
    Friday") is the fact of the one person it names who has facts of their own among the
    candidates: it is Priya's appointment, not the user's."""
    if new.owner is not None:
        return new
    owners = {r.owner for r in others} - {None, USER}
    named = [n for n in dict.fromkeys(new.names) if n in owners]
    return replace(new, owner=named[0]) if len(named) == 1 else new


def _same_owner(new: Reading, old: Reading) -> bool:
    if new.owner is None or old.owner is None:
        return new.owner in (None, USER) and old.owner in (None, USER)
    return new.owner == old.owner and not old.shared_owner


def _changed(
    new: Reading, old: Reading, new_codes: frozenset[Identifier], old_text: str
) -> str | None:
    """What value differs between the two, if any: an identifier, a number or a name. Other
    words differ between any two sentences; they are not a value ("read a report by a research
    group" is not what "joined a research group" corrects)."""
    # Only a new fact that gives an identifier changes one: "Omar went vegan" says nothing
    # of the e-mail address Omar's other memory holds (so the old one's are not even read).
    if new_codes and new_codes != frozenset(identifiers(old_text)):
        return "a different value (identifier or number)"
    owner = {new.owner, old.owner}
    names_new = set(new.names) - owner
    names_old = set(old.names) - owner
    if names_new != names_old and names_new:
        return "a different name (" + ", ".join(sorted(names_new - names_old)) + ")"
    if names_old - names_new and not names_new:
        return "another value than " + ", ".join(sorted(names_old - names_new))
    return None


_TIME_MARKERS = frozenset((evidence.PAST, evidence.PRESENT, evidence.NOT))

ATTRIBUTE_SURE = 0.95
"""The confidence of a memory named because it is the one memory of the person stating the
attribute the new fact states (a paraphrase: "moved to an AI-safety lab" for "works at
Stripe"), with another value, and nothing else."""


def _by_attribute(
    content: str,
    said: frozenset[str],
    new: Reading,
    candidates: Sequence[tuple[Gist, float]],
    readings: dict[str, Reading],
    found: list[Supersession],
) -> list[Supersession]:
    """What the attribute the new fact states says of the words' verdicts (`found`).

    The one live memory of the same person stating the same attribute (`attributes.stated`),
    in the present, with another value, is what a paraphrased correction replaces, though
    they share no word. Two such memories, a memory that also states another attribute (its
    other fact would be replaced with it), or a new fact that could state two attributes
    ("moved to Porto") leave it uncertain. A memory the words name but which states another
    attribute than the new fact is doubted. `said`: the attributes the new fact states."""
    if not said:
        return found
    by_id = {m.id: m for m, _ in candidates}
    marker_words = evidence.words(" ".join(_MARKERS.findall(content)))
    same: list[Gist] = []
    for memory, _ in candidates:
        old = readings[memory.id]
        if memory.content.strip() == content.strip() or not _same_owner(new, old):
            continue
        if evidence.PAST in old.words:
            continue
        if attributes.stated(memory.content) & said:
            same.append(memory)
    unsure = attributes.uncertain(content)
    out = {s.id: s for s in found}
    for s in found:
        theirs = attributes.stated(by_id[s.id].content)
        if theirs and not theirs & said and s.confidence > 0.5:
            doubt = f"states their {_listed(theirs)}, not their {_listed(said)}"
            out[s.id] = s.model_copy(update={"confidence": 0.5, "evidence": (*s.evidence, doubt)})
    for memory in same:
        old = readings[memory.id]
        theirs = attributes.stated(memory.content)
        value = new.words - old.words - marker_words - {new.owner or ""} - _TIME_MARKERS
        given = set(new.names) - {new.owner}
        if given and given <= set(old.names) | old.capitals:
            # "Omar currently works at Stripe", "… lives in Dublin with his cat": the value
            # it gives is the one held.
            continue
        why = [
            "the same person's fact" if new.owner else "nobody else's fact",
            f"states the same attribute ({_listed(theirs & said)}) in other words",
        ]
        confidence = ATTRIBUTE_SURE
        if not value:
            continue
        if len(same) > 1:
            why.append(f"{len(same)} memories of theirs state it: which one is replaced is unclear")
            confidence = 0.5
        if theirs - said:
            why.append(
                f"also states their {_listed(theirs - said)}, which the new fact does not replace"
            )
            confidence = 0.5
        if unsure:
            why.append("the new fact could state either a home or an employer")
            confidence = 0.5
        prior = out.get(memory.id)
        if prior is not None and prior.confidence >= confidence:
            continue
        out[memory.id] = Supersession(
            id=memory.id,
            preview=memory.preview(),
            confidence=confidence,
            evidence=tuple(why),
        )
    return sorted(out.values(), key=lambda s: -s.confidence)


def _listed(attrs: Iterable[str]) -> str:
    return ", ".join(sorted(attrs))
