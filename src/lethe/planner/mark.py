"""Stage 6, mark: the verdicts of a fact request, from the top's standing and its doubts.

One clear winner, or nothing: the top (and its copies) is marked only when its certainty
clears the bar and no doubt fired. Two requests reach further by what they say: an
identifier named alone is forgotten wherever it is held, and a plural ("all my
appointments") marks every candidate holding its noun. A marked memory that also holds
another fact is edited, not deleted (`compound.split`).
"""

from __future__ import annotations

from lethe.planner import compound, evidence, rules, saying, wording
from lethe.planner.ask import Ask, plural_heads
from lethe.planner.doubts import Context, doubts
from lethe.planner.gate import Gated, instance
from lethe.planner.identifiers import shown
from lethe.planner.judgement import MARK_BAR, Judgement
from lethe.planner.pool import Pool
from lethe.planner.saying import MARKERS
from lethe.planner.score import Ranked, certainty_of, features

IDENTIFIED = 0.95
"""The certainty of the one memory holding an identifier the request names on its own."""

EVERY_HOLDER = rules.rule(
    "every-holder",
    "an identifier named alone (with at most two words naming it) is forgotten in every "
    "memory holding it, unless that memory fails to say another word of the request",
)
ONLY_HOLDER = rules.rule(
    "only-holder", "the one memory holding an identifier named alone is certain"
)
CUT = rules.rule(
    "compound-cut", "a marked memory holding another fact is edited to keep the other, or refused"
)
PLURAL = rules.rule(
    "plural",
    "a plural request marks every qualifying instance of its noun, one that says when or "
    "which (two or more)",
)


def mark(ask: Ask, pool: Pool, gated: Gated, ranked: Ranked, margin: float) -> list[Judgement]:
    top, copies, rest = ranked.top, ranked.copies, ranked.rest
    ctx = Context(ask, pool, gated, ranked, margin)
    if rest and ctx.identifier_led and rules.on(EVERY_HOLDER):
        rules.fire(EVERY_HOLDER)
        held = [top, *copies, *(j for j, _ in rest)]
        _every_holder(ask, pool, ranked, held)
        return held
    fired = doubts(ctx)
    doubt = fired[0][1] if fired else None
    certainty = ranked.certainty
    if not rest and not doubt and ctx.identifier_led and rules.on(ONLY_HOLDER):
        # An identifier named alone (or with one word) that one memory holds, with its
        # copies, is that memory: exact tokens decide identifiers.
        rules.fire(ONLY_HOLDER, top.memory.id)
        certainty = max(certainty, IDENTIFIED)
        top.evidence.append("the only memory that holds what the request names")
    top.doubt, top.doubts = doubt, tuple(name for name, _ in fired)
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
            cut(j, ranked.asked, ranked.owners)
    else:
        top.reason = doubt or (
            f"best match, but not certain enough to delete (certainty {certainty:.2f} "
            f"< {MARK_BAR}): name it by id, or say it more exactly"
        )
        for j in copies:
            j.certainty = certainty
            j.reason = "a copy of the best match, which is not certain enough to delete"
    for j, s in rest:
        f = features(
            s - ranked.top_score,
            s - j.similarity,
            j.similarity,
            ranked.plain,
            ask,
            pool.readings[j.memory.id],
        )
        j.certainty, j.features = certainty_of(f), f
        j.reason = (
            "holds what the request names, but another memory matches it better"
            if certainty >= MARK_BAR
            else "holds what the request names; too close to other candidates to choose"
        )
    return [top, *copies, *(j for j, _ in rest)]


def _every_holder(ask: Ask, pool: Pool, ranked: Ranked, held: list[Judgement]) -> None:
    """An identifier named alone is to be forgotten wherever it is: every memory that holds
    it is meant, not the best of them. The words that name the identifier may be worded
    otherwise; any other word of the request ("a blender" in "Daniel ordered a blender, order
    993-…") says which thing it is, and a holder that says another ("a tent") is not it."""
    naming_run = wording.identifier_names(ask.text)
    codes = list(ask.codes)
    for j in held:
        other = saying.unsaid(ask.text, ranked.plain, pool.readings[j.memory.id]) - naming_run
        if other:
            j.certainty = 0.5
            j.doubt = j.reason = (
                f"holds {shown(codes)}, but does not say {', '.join(sorted(other))}, "
                "which the request says: not certain"
            )
            continue
        j.verdict, j.certainty = "delete", IDENTIFIED
        j.reason = f"holds {shown(codes)}, named alone in the request: every holder is meant"
        cut(j, ranked.asked, ranked.owners)


def cut(j: Judgement, asked: frozenset[str], owners: frozenset[str]) -> None:
    """A marked memory that also holds another fact is edited, not deleted
    (`compound.split`); when it cannot be cut cleanly, nothing is marked."""
    if not rules.on(CUT):
        return
    found = compound.split(j.memory.content, asked, owners)
    if found is None:
        return
    rules.fire(CUT, j.memory.id)
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


def widen_plural(judged: list[Judgement], ask: Ask, pool: Pool) -> list[Judgement]:
    """ "All my appointments": every candidate that qualifies and holds the plural noun's
    word (or, when fewer than two hold it, none beyond the fact decision: "afraid of
    flights" alone is no flight)."""
    if not rules.on(PLURAL):
        return judged
    found = plural_heads(ask.text)
    # Read like the memories' words (Snowball stems): "appointments" is "appoint" there.
    heads = evidence.words(" ".join(found)) - MARKERS
    if not heads:
        return judged
    qualified = [j for j in judged if not j.reason.endswith("never a target")]
    # The word itself, not another of its group: "a flight … booking ref" is no appointment;
    # and an instance of the kind, which says when or which ("the dentist appointment on
    # Tuesday at 3pm", "the Wi-Fi password is tangerine-82"), not the word in another sense
    # ("the appointment book is blue", "afraid of flights of stairs").
    holders = [
        j
        for j in qualified
        if heads & pool.readings[j.memory.id].words and instance(pool.readings[j.memory.id], heads)
    ]
    if len(holders) < 2:
        return judged
    for j in holders:
        rules.fire(PLURAL, j.memory.id)
        j.verdict = "delete"
        j.certainty = max(j.certainty, MARK_BAR)
        j.reason = f"the request asks for all of them ({', '.join(sorted(set(found)))})"
    return judged
