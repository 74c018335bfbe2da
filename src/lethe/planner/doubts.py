"""Stage 5, doubts: why the top, though it holds everything the request names, may not be
the memory meant.

Each doubt is a named rule in `DOUBTS`, checked in that order; every one that fires is
recorded on the top's judgement (`Judgement.doubts`) and the first is the reason shown. Any
doubt caps the top's certainty below the bar: the plan then lists it with what would make it
certain (an id, a filter, an exact phrase) instead of marking it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from lethe.common.scripts import has_cjk
from lethe.planner import attributes, evidence, loans, rules, saying
from lethe.planner.ask import Ask
from lethe.planner.evidence import Reading
from lethe.planner.gate import Gated
from lethe.planner.judgement import Judgement
from lethe.planner.pool import Pool
from lethe.planner.saying import MARKERS, POSSESSED
from lethe.planner.score import Ranked

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
AUXILIARY = re.compile(
    r"\b(?:is|are|was|were|am|be|been|has|have|had|do|does|did)\b", re.IGNORECASE
)
"""A copula or an auxiliary: a request with one states something, it does not name it."""


@dataclass
class Context:
    """What the doubts look at: the request, the pool, and the top's standing."""

    ask: Ask
    pool: Pool
    gated: Gated
    ranked: Ranked
    margin: float

    @property
    def top(self) -> Judgement:
        return self.ranked.top

    @property
    def r(self) -> Reading:
        return self.pool.readings[self.top.memory.id]

    @property
    def content(self) -> frozenset[str]:
        return self.ranked.plain - MARKERS

    @cached_property
    def lacking(self) -> frozenset[str]:
        return saying.unsaid(self.ask.text, self.ranked.plain, self.r)

    @cached_property
    def identifier_led(self) -> bool:
        return identifier_led(self.ask, self.ranked.plain)


def identifier_led(ask: Ask, plain: frozenset[str]) -> bool:
    """The request is an identifier with at most two words naming what it is ("order number
    470-…", "booking 2Y74F8", "the password marble-50"), not a sentence about it ("the code for
    my bank login is 16621"): the identifier decides, whatever words the memory uses."""
    return (
        bool(ask.naming)
        and evidence.word_count(ask.text, plain) <= 2
        and not AUXILIARY.search(ask.text)
    )


def _nothing_named(ctx: Context) -> str | None:
    if not ctx.ask.codes and not ctx.ranked.plain and not ctx.ask.names:
        return "the request names nothing a memory could hold (no word, name or number)"
    return None


def _none_said(ctx: Context) -> str | None:
    content = ctx.content
    if ctx.ask.naming or not content:
        return None
    if content - saying.unsaid(ctx.ask.text, content, ctx.r):
        return None
    # "previous" is not what the request is about: "my previous address" against "my old
    # e-mail" shares only the time.
    return "says none of the request's words beyond its names: not certain"


def _verb_as_noun(ctx: Context) -> str | None:
    """ "where Kenji works" against "Kenji uses … for work mail": the request's verb is a noun
    there, another sense of the word."""
    acted = saying.as_verb(ctx.ask.text) & ctx.content & ctx.r.words
    if ctx.ask.naming or not acted or acted != ctx.content & ctx.r.words:
        return None
    if not saying.only_as_noun(ctx.r.text, acted):
        return None
    return f"says {', '.join(sorted(acted))} only as a noun, where the request does it: not certain"


def _barely_similar(ctx: Context) -> str | None:
    floor = QUESTION_FLOOR if _QUESTION.match(ctx.ask.text) else FLOOR
    if ctx.ask.naming or ctx.top.similarity >= floor:
        return None
    if saying.states_what_is_named(ctx.ask.text, ctx.content, ctx.r):
        return None
    return f"barely similar to the request (cosine {ctx.top.similarity:.2f}): not certain"


def _decided_by_identifier(ctx: Context) -> bool:
    """An identifier named alone that only the top holds: its words need no other support."""
    return ctx.identifier_led and not ctx.ranked.rest


def _said_elsewhere(ctx: Context) -> str | None:
    """The request's words the top does not say are said by other memories: it may mean one
    of those, or one not stored. A best match that says the request's words only in other
    wordings has not shown by its own words that it is the fact: then every other memory's
    words count, someone else's too ("Booked: dermatologist for Kenji" against "Maria's
    optician appointment" for "Maria's dermatologist booking")."""
    lacking = ctx.lacking
    if not lacking or _decided_by_identifier(ctx):
        return None
    obj, plain, r, top = ctx.ask.text, ctx.ranked.plain, ctx.r, ctx.top
    literal = bool(ctx.content & r.words)
    top_says = saying.says(obj, plain, r)
    excluded, unowned = ctx.gated.excluded, ctx.gated.unowned
    elsewhere: set[str] = set()
    for c in ctx.pool.candidates:
        shared = lacking & ctx.pool.readings[c.memory.id].words
        if shared and (
            not literal
            or c.memory.id not in excluded
            or (c.memory.id not in unowned and c.similarity >= top.similarity)
            # Another value's or another person's memory that says as much of the request
            # as the best match reads it as well ("Maria's studio Wi-Fi: tangerine-81" for
            # "Maria's studio Wi-Fi password is tangerine-82" against her office's): the
            # request may mean a fact that is not stored.
            or saying.says(obj, plain, ctx.pool.readings[c.memory.id]) >= top_says
        ):
            elsewhere |= shared
    weights = ctx.pool.weights
    unsaid = sum(weights.get(w, 0.0) for w in elsewhere)
    said = sum(weights.get(w, 0.0) for w in plain & r.words)
    if unsaid > UNSAID * (unsaid + said):
        return (
            f"does not say {', '.join(sorted(elsewhere))}, which the request says and other "
            "memories do: not certain"
        )
    return None


def _twin(ctx: Context) -> str | None:
    """The same sentence stored with another value: one that says a word of the request the
    top does not ("Lucas has a tortoise named Ziggy" against the user's "cat named Ziggy"),
    or two that only their values tell apart when the request names neither ("Alice reacts
    badly to peanuts" beside "… to latex", for "Alice reacts to sesame")."""
    lacking = ctx.lacking
    if not lacking or _decided_by_identifier(ctx):
        return None
    r, plain = ctx.r, ctx.ranked.plain
    for c in ctx.pool.candidates:
        other = ctx.pool.readings[c.memory.id]
        if c.memory.id == ctx.top.memory.id or saying.copy(r, other):
            continue
        if len(r.words ^ other.words) <= TWIN_DIFFERENCE and lacking & other.words:
            words = ", ".join(sorted(lacking & other.words))
            return (
                f"the same sentence with another value ({c.memory.id}) says {words}, which the "
                "request says and this one does not: not certain"
            )
        own = r.words - other.words - MARKERS
        twin = (
            c.memory.id not in ctx.gated.excluded and len(r.words ^ other.words) <= TWIN_DIFFERENCE
        )
        if twin and own and not own & plain:
            return (
                f"the same sentence is stored with another value ({c.memory.id}), and the "
                f"request names neither this one's ({', '.join(sorted(own))}): not certain"
            )
    return None


def _another_kind(ctx: Context) -> str | None:
    """The top names another kind of the thing the request names: the request says "shoe
    size", "home phone", "favorite book", "annual income", the memory says the same head or
    modifier with another word beside it ("T-shirt size", "mobile phone", "favorite movie",
    "annual rent"). It is a different fact, however many words they share."""
    lacking = ctx.lacking
    if ctx.ask.naming or not lacking:
        return None
    asked = _content_tokens(ctx.ask.text, ctx.ask.reading.names)
    have = _content_tokens(ctx.r.text, ctx.r.names)
    for (a, a_word), (b, b_word) in itertools.pairwise(asked):
        if not (a_word and b_word) or a_word.startswith("@") or b_word.startswith("@"):
            continue  # a compound of two content words, neither a name nor a time word
        if a_word in lacking and b_word not in lacking:
            # "shoe size" against "T-shirt size": the word before the one said.
            other = [x for x, (_, w) in enumerate(have) if w == b_word and x > 0]
            found = [have[x - 1] for x in other]
        elif b_word in lacking and a_word not in lacking:
            # "annual income" against "annual rent": the word after the one said.
            other = [x for x, (_, w) in enumerate(have) if w == a_word and x + 1 < len(have)]
            found = [have[x + 1] for x in other]
        else:
            continue
        for text, word in found:
            if (
                not word
                or word.startswith("@")
                or word in ctx.ask.reading.words
                or word in _NOT_KIND
                or evidence.verb_like(text.casefold())
            ):
                continue
            said = a if b_word in lacking else b
            shown = f"{text} {said}" if a_word in lacking else f"{said} {text}"
            return f"says {shown}, another kind than the request's {a} {b}: not certain"
    return None


_NOT_KIND = evidence.words(
    "via per about around over under into onto through across after before since until during "
    "without within among toward towards upon also only just very really still now then "
    "one two three four five six seven eight nine ten twelve several many few some both each "
    "every other another more most new old"
)
"""Words beside a noun that say how, when or how many, never which kind."""
_TOKEN = re.compile(r"[^\W\d_][\w'-]*")


def _content_tokens(text: str, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """The text's words in order, as written and as `evidence.words` reads them, function
    words and names left out (a name beside a word is no kind of it)."""
    out = []
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        if token.casefold().removesuffix("'s") in names:
            out.append(("", ""))  # a name breaks a compound
            continue
        read = evidence.words(token)
        if len(read) == 1:
            out.append((token, next(iter(read))))
        else:
            out.append(("", ""))
    return out


_PEOPLE = evidence.words(
    "sister brother wife husband mother father mum mom dad son daughter partner girlfriend "
    "boyfriend friend boss manager colleague neighbour neighbor cousin aunt uncle niece nephew "
    "grandmother grandfather grandma grandpa grandson granddaughter fiance fiancee kid kids "
    "child children parent parents landlord roommate flatmate dentist doctor lawyer user"
)
"""Who a fact is of: words that say whose it is, not what it is."""


_POSSESSOR = re.compile(r"\b([A-Za-z]+)'s\b")


def _relation_unsaid(ctx: Context) -> str | None:
    """The request names an attribute ("my boss's address", "Kim's mother's address") and
    the top says nothing of it but whose it would be ("The user's boss is Mr. Ortiz"): it
    states the relation, not the attribute, which may not be stored."""
    if ctx.ask.naming:
        return None
    lacking = ctx.lacking
    possessors = evidence.words(" ".join(_POSSESSOR.findall(ctx.ask.text)))
    if (ctx.content & ctx.r.words) - _PEOPLE - possessors:
        # It says something of the request beyond who: the attribute may be worded so.
        return None
    # The nouns of attributes ("address", "phone", "employer"), or what is asked of a thing
    # the memory only says the user has ("the user's cat's name" against "The user has a
    # cat"); a word of the thesaurus may have another sense ("books" read, "booked" a visit).
    named = {w for w in lacking if attributes.named(frozenset({w}))}
    if possessors & ctx.r.words and ctx.ask.plain - possessors - _PEOPLE <= lacking:
        named |= set(ctx.ask.plain - possessors - _PEOPLE - MARKERS)
        if evidence.names_something(ctx.r.text):
            named -= evidence.words("name names")  # "is called Miso" says its name
    if not named:
        return None
    return (
        f"does not say {', '.join(sorted(named))} in any way, which the request asks for: "
        "it may be a fact that is not stored"
    )


def _alike(ctx: Context) -> str | None:
    """ "the Vienna sausages" against two memories that both say it in its own words: the
    words do not tell them apart, and the vector alone never decides."""
    obj, plain = ctx.ask.text, ctx.ranked.plain
    said = plain & ctx.r.words
    if not said or ctx.ask.codes or ctx.ask.plural:
        return None
    acted = saying.as_verb(obj) & said
    lower = saying.lower_words(obj)
    alike = [
        j
        for j, _ in ctx.ranked.rest
        if said == plain - MARKERS
        and said <= ctx.pool.readings[j.memory.id].words
        # "where I work" against "the user's work laptop": a noun there, another sense.
        and not (acted and saying.only_as_noun(j.memory.content, acted, POSSESSED))
        # "the ginger biscuits" against "Ginger's parrot is called Biscuit": words the
        # request writes in lower case that it holds only as names are another sense.
        and not (said & lower) - saying.lower_words(j.memory.content)
    ]
    debt = loans.parties(obj) and loans.parties(ctx.top.memory.content)
    # Two debts between the same two people, the request naming no amount.
    alike += [j for j, _ in ctx.ranked.rest if debt and loans.parties(j.memory.content) == debt]
    if not alike:
        return None
    return (
        f"{alike[0].memory.id} says every word of the request this one does: only the "
        "vector tells them apart; name it by id, or say it more exactly"
    )


def _vector_disagrees(ctx: Context) -> str | None:
    """A memory the words rank lower is closer in meaning: neither signal is trusted alone.
    A closer memory that leaves a word unsaid is no rival when only the top states the
    attribute the request names ("my previous address" against the old e-mail address), nor
    in a script the embedder cannot read."""
    if ctx.identifier_led or has_cjk(ctx.ask.text):
        # The embedder reads English: on Japanese or Chinese its cosines are about the same
        # whatever the text says (0.5-0.7), so they cannot disagree with the words.
        return None
    top = ctx.top
    closer = [j for j, _ in ctx.ranked.rest if j.similarity > top.similarity + DISAGREE]
    obj, content, r = ctx.ask.text, ctx.content, ctx.r
    if closer and (
        saying.states_what_is_named(obj, content, r)
        or saying.says_all_without_spaces(obj, content, r)
    ):
        closer = [
            j for j in closer if not saying.unsaid(obj, content, ctx.pool.readings[j.memory.id])
        ]
    if not closer:
        return None
    return (
        f"the words and the vector disagree: {closer[0].memory.id} is closer in meaning "
        f"({closer[0].similarity:.2f} against {top.similarity:.2f})"
    )


def _narrow_lead(ctx: Context) -> str | None:
    if not ctx.ranked.rest or ctx.ranked.lead >= ctx.margin:
        return None
    return (
        f"ambiguous: leads the next candidate by {ctx.ranked.lead:.2f}, less than the margin "
        f"{ctx.margin}"
    )


@dataclass(frozen=True)
class Doubt:
    name: str
    check: Callable[[Context], str | None]


def _doubt(name: str, about: str, check: Callable[[Context], str | None]) -> Doubt:
    return Doubt(rules.rule(name, about), check)


DOUBTS: tuple[Doubt, ...] = (
    _doubt("names-nothing", "the request names no word, name or number", _nothing_named),
    _doubt("says-none", "the top says none of the request's words beyond its names", _none_said),
    _doubt("verb-as-noun", "the request's verb is only a noun in the top", _verb_as_noun),
    _doubt("barely-similar", "the top's cosine is under the floor", _barely_similar),
    _doubt("said-elsewhere", "words the top leaves unsaid are said by others", _said_elsewhere),
    _doubt("twin", "the same sentence is stored with another value", _twin),
    _doubt("another-kind", "the top names another kind of what the request names", _another_kind),
    _doubt(
        "relation-unsaid", "the top does not state the relation the request names", _relation_unsaid
    ),
    _doubt("alike", "another memory says every word the top says", _alike),
    _doubt("vector-disagrees", "a lower-ranked memory is closer in meaning", _vector_disagrees),
    _doubt("narrow-lead", "the top leads the next candidate by less than the margin", _narrow_lead),
)


def doubts(ctx: Context) -> list[tuple[str, str]]:
    """Every doubt that fires on the top, in order: (name, why)."""
    fired = []
    for doubt in DOUBTS:
        if not rules.on(doubt.name):
            continue
        why = doubt.check(ctx)
        if why is not None:
            rules.fire(doubt.name, ctx.top.memory.id)
            fired.append((doubt.name, why))
    return fired
