"""Stage 4, score: the words decide among the candidates the gates let through.

Each candidate scores its cosine plus the share of the request's words it says (in any
wording, `saying`), weighted by how rare each word is among the candidates: a word every
candidate shares tells them apart no better than none. The best is the top; copies of it
(the same fact stored again) go with it. Its certainty is a logistic function of its lead
over the runner-up, its word share and its cosine, fitted on the development benchmark
(bench/fit_forget_certainty.py, seed 17, every fact kind; checked on another seed there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lethe.planner import compound, evidence, rules, saying
from lethe.planner.ask import Ask
from lethe.planner.evidence import USER, Reading
from lethe.planner.gate import Gated
from lethe.planner.identifiers import shown
from lethe.planner.judgement import Judgement
from lethe.planner.pool import Pool

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
"""No description is ever fully certain: an id is."""

COPIES = rules.rule(
    "copies",
    "a memory with the same words, names and identifiers as the top (or a part of it stored "
    "again) is the same fact: it goes with the top",
)


@dataclass
class Ranked:
    """The candidates in order, and the top's standing."""

    top: Judgement
    top_score: float
    copies: list[Judgement]
    rest: list[tuple[Judgement, float]]
    """The other eligible candidates with their scores, best first."""
    lead: float
    """The top's score over the runner-up's (its own score when it has none)."""
    plain: frozenset[str]
    """The request's words beyond names and identifiers that the top could say in its script."""
    asked: frozenset[str]
    """What a part of a memory must hold to be the request's fact (`compound.split`)."""
    owners: frozenset[str]
    """The words naming whose fact it is (held by every part of a memory about one person)."""
    certainty: float


def score(ask: Ask, pool: Pool, gated: Gated) -> Ranked | None:
    eligible: list[tuple[Judgement, float]] = []
    unseen = max(pool.weights.values(), default=1.0)
    for c in gated.eligible:
        r = pool.reading(c)
        sayable = evidence.sayable(ask.reading.words, r.text)
        # A word the memory says in another wording is said ("reacts badly to" for
        # "allergic to"): the words decide which memory is meant, not how it is worded.
        worded = (sayable - r.words) - saying.unsaid(ask.text, sayable, r)
        share = evidence.coverage(sayable, r.words | worded, pool.weights, unseen)
        j = Judgement(c.memory, c.similarity, "skip", 0.0, "")
        j.evidence = _held(ask, share, c.similarity)
        eligible.append((j, c.similarity + share))
    eligible.sort(key=lambda pair: -pair[1])
    if not eligible:
        return None
    top, top_score = eligible[0]
    # Only the words the best match could say in its script count (a Chinese request over
    # an English memory: its Chinese words are none it could hold).
    plain = evidence.sayable(ask.plain, top.memory.content)
    asked, owners = _asked(ask, plain)
    mine = pool.readings[top.memory.id]
    copies = [j for j, _ in eligible[1:] if _is_copy(mine, pool.readings[j.memory.id], owners)]
    for j in copies:
        rules.fire(COPIES, j.memory.id)
    rest = [(j, s) for j, s in eligible[1:] if j not in copies]
    lead = top_score - rest[0][1] if rest else top_score
    top.features = features(lead, top_score - top.similarity, top.similarity, plain, ask, mine)
    top.evidence.append(
        f"lead over the next candidate {lead:.2f}" if rest else "no other candidate qualifies"
    )
    ranked = Ranked(top, top_score, copies, rest, lead, plain, asked, owners, 0.0)
    ranked.certainty = certainty_of(top.features)
    return ranked


def _is_copy(top: Reading, other: Reading, owners: frozenset[str]) -> bool:
    if not rules.on(COPIES):
        return False
    return saying.copy(top, other) or (
        # A part of it can be the best match stored again only if it holds all its words.
        top.words - owners <= other.words and compound.holds_as_part(other.text, top.text, owners)
    )


def features(
    lead: float,
    share: float,
    similarity: float,
    plain: frozenset[str],
    ask: Ask,
    r: Reading,
) -> dict[str, float]:
    return {
        "top": 1.0 if lead > 0 else 0.0,
        "lead": lead,
        "share": share,
        "cosine": similarity,
        "said": 1.0 if (plain & r.words) or not plain else 0.0,
        "codes": 1.0 if ask.codes else 0.0,
    }


def certainty_of(found: dict[str, float]) -> float:
    z = WEIGHTS["bias"] + sum(WEIGHTS[k] * v for k, v in found.items())
    return min(1.0 / (1.0 + math.exp(-z)), CERTAINTY_CAP)


def _asked(ask: Ask, plain: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    wanted = ask.reading
    owners = {"user"} if wanted.owner in (USER, None) else evidence.words(wanted.owner)
    named = evidence.words(" ".join(n for n in ask.names if n != wanted.owner))
    tokens = evidence.words(" ".join(t for c in ask.codes for t in c))
    return frozenset(plain | named | tokens) - owners, frozenset(owners)


def _held(ask: Ask, share: float, similarity: float) -> list[str]:
    out = []
    if ask.codes:
        out.append(f"holds {shown(list(ask.codes))}")
    if ask.names:
        out.append(f"names {', '.join(ask.names)}")
    owner = ask.reading.owner
    if owner:
        out.append("the user's fact" if owner == USER else f"{owner}'s fact")
    out.append(f"holds {share:.0%} of the request's words (rarer words weigh more)")
    out.append(f"cosine {similarity:.2f}")
    return out
