"""Stage 3, gate: the candidates that cannot be the memory meant, whatever their score.

What the request names must be there: its identifiers, its names, whose fact it is, the
time it asks about (old or current) and its polarity. A candidate missing any of them is
never a target, however close its vector. Each gate is a named rule, tried in order; the
first that shuts a candidate out gives the reason shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lethe.planner import compound, evidence, loans, rules
from lethe.planner.ask import Ask, plural_heads
from lethe.planner.evidence import USER, Reading
from lethe.planner.identifiers import holds_all, identifiers, shown
from lethe.planner.pool import Pool
from lethe.planner.port import Candidate
from lethe.planner.saying import label

CODES = rules.rule("gate-identifiers", "a target holds every identifier the request names")
NAMES = rules.rule("gate-names", "a target gives every name the request gives")
TENSE = rules.rule("gate-tense", "old against now/current/new: the request asks for the other one")
POLARITY = rules.rule(
    "gate-polarity",
    "a target says it is so when the request does, or not; a label ('user pet ownership') "
    "states neither, so it means either",
)
DEBT = rules.rule("gate-debt", "a debt the other way round is not the debt meant")
STRANGER = rules.rule(
    "gate-stranger",
    "the user's fact is not one that names someone else and is not said to be theirs",
)
OWNER = rules.rule("gate-owner", "the request's owner (the user, a named person) is the target's")
INSTANCE = rules.rule(
    "gate-instance",
    "all of a kind ('my meetings') means its instances, not its word qualifying another noun "
    "('the meeting room is 4B')",
)
QUALIFIED = rules.rule(
    "gate-qualified",
    "a request for the old (current) one means a memory that says so, when one does",
)


@dataclass
class Gated:
    eligible: list[Candidate]
    """The candidates that may be meant, in the pool's order."""
    excluded: dict[str, str] = field(default_factory=dict)
    """Memory id -> why it is never a target, in the order they were shut out."""
    unowned: set[str] = field(default_factory=set)
    """Of those, the ones that are someone else's fact."""


def gate(ask: Ask, pool: Pool) -> Gated:
    gated = Gated([])
    heads = evidence.words(" ".join(plural_heads(ask.text))) if ask.plural else frozenset()
    for c in pool.candidates:
        found = _shut(ask, pool.reading(c))
        r = pool.reading(c)
        if found is None and heads & r.words and rules.on(INSTANCE) and not instance(r, heads):
            found = (INSTANCE, "says the kind's word but is no instance of it (no when, no which)")
        if found is None:
            gated.eligible.append(c)
            continue
        name, reason = found
        rules.fire(name, c.memory.id)
        gated.excluded[c.memory.id] = f"{reason}: never a target"
        if name in (STRANGER, OWNER):
            gated.unowned.add(c.memory.id)
    _qualify(ask, pool, gated)
    return gated


def _shut(ask: Ask, r: Reading) -> tuple[str, str] | None:
    """The first gate that shuts the memory out, and why."""
    wanted = ask.reading
    if ask.codes and rules.on(CODES) and not holds_all(r.text, list(ask.codes)):
        return CODES, f"does not hold {shown(list(ask.codes))} (named in the request)"
    absent = [n for n in ask.names if not evidence.holds_names(r, [n])]
    if absent and rules.on(NAMES):
        return NAMES, f"does not name {', '.join(absent)} (named in the request)"
    if rules.on(TENSE):
        past, present = evidence.PAST, evidence.PRESENT
        if past in wanted.words and past not in r.words and present in r.words:
            return TENSE, "says now/current/new, the request asks about the old one"
        if present in wanted.words and present not in r.words and past in r.words:
            return TENSE, "says old/previous, the request asks about the current one"
    if (
        rules.on(POLARITY)
        and wanted.negated != r.negated
        and not (label(ask.text) and not wanted.negated)
        and not _past_only(wanted, r)
        and not _part_agrees(wanted, r)
    ):
        said = "says it is not so" if r.negated else "says it is so"
        return POLARITY, f"{said}, the request {'the opposite' if r.negated else 'that it is not'}"
    debt = loans.parties(wanted.text)
    held = loans.parties(r.text) if debt else None
    if debt and held and rules.on(DEBT):
        # One debt said from either side ("Alice owes Tom" is "Tom lent Alice"): whose
        # sentence it is does not matter, only who lent to whom.
        if debt == held:
            return None
        if debt == held[::-1]:
            return DEBT, "says the debt goes the other way"
    if wanted.owner == USER and r.owner is None and rules.on(STRANGER):
        others = [n for n in r.names if n not in wanted.names and n not in evidence.CALENDAR]
        if others:
            return (
                STRANGER,
                f"is not said to be yours and names {', '.join(o.title() for o in others)}",
            )
    if wanted.owner and r.owner and wanted.owner != r.owner and rules.on(OWNER):
        whose = "the user's" if r.owner == USER else f"{r.owner.title()}'s"
        asked = "yours" if wanted.owner == USER else f"{wanted.owner.title()}'s"
        return OWNER, f"is {whose} fact, the request asks about {asked}"
    return None


def _qualify(ask: Ask, pool: Pool, gated: Gated) -> None:
    """A request for the old one ("my old phone number") means a memory that says it is
    past, when one does: one that says nothing of time is then the current one, or another."""
    if not rules.on(QUALIFIED):
        return
    for marker, what in ((evidence.PAST, "old"), (evidence.PRESENT, "current")):
        if marker not in ask.reading.words:
            continue
        saying = [c for c in gated.eligible if marker in pool.reading(c).words]
        if not saying:
            continue
        for c in gated.eligible:
            if marker not in pool.reading(c).words:
                rules.fire(QUALIFIED, c.memory.id)
                gated.excluded[c.memory.id] = (
                    f"does not say it is the {what} one, and another memory does: never a target"
                )
        gated.eligible = saying


def instance(r: Reading, heads: frozenset[str]) -> bool:
    """An instance of the kind says when or which (a day, a date, a time, an identifier) and
    uses the kind's word as its own noun, not to qualify another ("the meeting room is 4B",
    "the booking app is Kayak")."""
    if not (identifiers(r.text) or any(n in evidence.CALENDAR for n in r.names)):
        return False
    tokens = _TOKENS.findall(r.text)
    for i, token in enumerate(tokens):
        if not evidence.words(token) & heads:
            continue
        following = tokens[i + 1] if i + 1 < len(tokens) else ""
        if not evidence.words(following) or evidence.verb_like(following.casefold()):
            return True
    return False


_TOKENS = re.compile(r"[^\W\d_][\w'-]*|\d[\w:.-]*|[^\w\s]")


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
