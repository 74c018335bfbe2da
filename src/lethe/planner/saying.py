"""Whether a memory says what a request says, in any wording.

A request and the memory it means rarely share every word: "Kim employer" is said by "Kim
works at Stripe", "allergic to" by "reacts badly to", "licence plate HB-7017" by a memory
holding HB-7017 bare. `unsaid` is the request's words a memory does not say in any of these
ways; each way is a named rule (`rules`), tried only while words are still lacking, since
this is asked of every candidate.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lethe.common.scripts import has_cjk
from lethe.planner import attributes, evidence, loans, rules, wording
from lethe.planner.evidence import Reading
from lethe.planner.identifiers import identifiers

BARE_IDENTIFIER = rules.rule(
    "bare-identifier",
    "holding an identifier bare says whatever the request calls it ('licence plate HB-7017')",
)
OTHERWISE = rules.rule(
    "said-otherwise",
    "another word of the same group says it ('allergic' by 'reacts badly')",
)
ATTRIBUTE = rules.rule(
    "attribute-stated",
    "the noun of an attribute is said by a memory stating it now ('Kim employer' by 'Kim "
    "works at Stripe'); not by a past statement or a reading that could be either of two",
)
BEFORE = rules.rule(
    "said-before",
    "a label request ('Kim favorite color') is said by what a memory superseded: the memory "
    "that replaced another states the same attribute of the same subject",
)
HOLDING = rules.rule("said-by-holding", "what a memory holds names it ('a code' by '4471')")
SETTLED = rules.rule(
    "settled-before",
    "a reading that could be either of two attributes is settled by what the memory superseded",
)
USING = rules.rule("said-by-using", "a verb of use says its object's noun ('the car I drive')")
HAVING = rules.rule("said-by-having", "'have/own' in the request is said by any statement of it")
DEBT = rules.rule("debt-words", "the words of a debt are said by any memory stating the same one")
PHRASE = rules.rule("said-by-phrase", "a phrase of the request is said in another phrase")

_DEBT_WORDS = evidence.words("lend lent lends loan loaned owe owes owed debt borrow borrowed")


def unsaid(obj: str, plain: frozenset[str], r: Reading) -> frozenset[str]:
    """The request's words a memory does not say, in any wording (`wording`)."""
    lacking = plain - r.words
    named = wording.naming_words(obj) | wording.identifier_names(obj)
    if lacking & named and rules.on(BARE_IDENTIFIER) and not wording.names_identifiers(r.text):
        lacking = _said(BARE_IDENTIFIER, lacking, named)
    if lacking and rules.on(OTHERWISE):
        lacking = _said(OTHERWISE, lacking, wording.said_otherwise(lacking, r.words))
    # (Which attributes the memory states is read only when a lacking word names one.)
    if lacking and rules.on(ATTRIBUTE) and attributes.named(lacking):
        stated = attributes.stated_ever(r.text) if _of_the_past(obj) else _stated(r)
        found = {w for w in lacking if attributes.named(frozenset({w})) & stated}
        lacking = _said(ATTRIBUTE, lacking, frozenset(found))
    if lacking and r.earlier and rules.on(BEFORE) and label(obj) and not _moved_on(obj, r):
        lacking = _said(BEFORE, lacking, evidence.words(" ".join(r.earlier)))
    if lacking and rules.on(HOLDING):
        lacking = _said(HOLDING, lacking, wording.said_by_holding(lacking, r.text))
    if lacking and rules.on(USING):
        lacking = _said(USING, lacking, wording.said_by_using(obj, lacking, r.text))
    if lacking and rules.on(HAVING):
        lacking = _said(HAVING, lacking, wording.said_by_having(obj, lacking))
    debt = loans.parties(obj) if lacking and rules.on(DEBT) else None
    if debt and debt == loans.parties(r.text):
        lacking = _said(DEBT, lacking, _DEBT_WORDS)
    if lacking and rules.on(PHRASE):
        lacking = _said(PHRASE, lacking, wording.said_by_phrase(obj, lacking, r.text, r.words))
    return lacking


def _said(name: str, lacking: frozenset[str], said: frozenset[str]) -> frozenset[str]:
    if lacking & said:
        rules.fire(name)
    return lacking - said


def _moved_on(obj: str, r: Reading) -> bool:
    """The memory now states another attribute or relation than the request names ("Frank's
    email is …" after it superseded his phone number): what it replaced is no longer what it
    is about."""
    asked = evidence.words(obj)
    if _stated(r) - attributes.named(asked):
        return True
    return bool(wording.relations(r.words) - wording.relations(asked))


def _stated(r: Reading) -> frozenset[str]:
    """The attributes a memory states now. A reading that could be either of two ("moved to
    Porto": a home or an employer) is settled by what the memory superseded, which stated
    the same attribute; without that, it states neither."""
    stated = attributes.stated(r.text)
    if not attributes.uncertain(r.text):
        return stated
    if not r.earlier or not rules.on(SETTLED):
        return frozenset()
    return stated & attributes.stated_ever(" ".join(r.earlier))


def _of_the_past(obj: str) -> bool:
    """The request asks about a time ("my old address", "user residence Tokyo 2015"): a
    memory that says the attribute held then ("lived in Tokyo from 2015 to 2018") states it."""
    return evidence.PAST in evidence.words(obj) or bool(_YEAR.search(obj))


_YEAR = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")


@lru_cache(maxsize=4096)
def label(obj: str) -> bool:
    """The request is a label, a noun phrase naming an attribute ("Kim employer", "Dana
    favorite color", "user dietary preference"), not a statement of a value: no verb, no
    copula, nothing inflected as one."""
    if _HANGUL.search(obj):
        return False
    if _KANA.search(obj):
        # Japanese: a noun phrase ends on its head noun (田中の勤務先, 好きな色), a statement
        # on a verb or an adjective (好きなこと, 住んでいる).
        return not _KANA.fullmatch(obj.rstrip()[-1:])
    if has_cjk(obj):
        # Chinese: a noun phrase joins its head with 的 (王芳的工作单位); "我喜欢橄榄" is a
        # statement.
        return "的" in obj.rstrip("的")
    return not _VERB_LIKE.search(obj)


_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")
_KANA = re.compile(r"[\u3041-\u309f]+")


_VERB_LIKE = re.compile(
    r"\b(?:is|are|was|were|am|be|been|being|has|have|had|do|does|did|will|would|can|could|"
    r"should|must|may|might|not|no|never)\b|\b[a-z]+(?:ed|ing)\b"
    r"|\b(?:I|we|you|he|she|they)\s+[a-z]+|\b[A-Z][a-z]+\s+[a-z]+s\b"
    # A pronoun as a subject in German, French, Spanish, Italian, Portuguese: a statement.
    r"|\b(?i:ich|du|wir|je|tu|nous|vous|yo|nosotros|io|noi|eu|nós)\b|\bj'|(?i:^me\s)"
    # Contractions are verbs: "I'm allergic", "we've moved", "Kim's not", "Kim's been".
    r"|\b\w+'(?:m|re|ve|d|ll)\b|n't\b"
    r"|'s\s+(?:not|no|never|been|got|gone|going|a|an|on|in|at|from|very|so|too|still|now|"
    r"also|always|[a-z]+(?:ed|ing))\b",
)


def says(obj: str, plain: frozenset[str], r: Reading) -> int:
    """How many of the request's words a memory says, in any wording. A count, not a
    weighted share: a rare word of another value ("licence plate" beside a black Skoda)
    must not outweigh the several words the best match says ("drives a green Fiat")."""
    return len(plain - unsaid(obj, plain, r))


def copy(a: Reading, b: Reading) -> bool:
    """The same fact stored twice: the same identifiers, names and words (case, punctuation
    and function words aside)."""
    return (
        a.words == b.words
        and set(a.names) == set(b.names)
        and set(identifiers(a.text)) == set(identifiers(b.text))
    )


def states_what_is_named(obj: str, content: frozenset[str], r: Reading) -> bool:
    """The memory states the attribute the request names by its noun ("my old car" against
    "the user used to drive a grey VW Golf", "my 2018 address" against "in 2018 the user
    lived at …") and says every other word of it: the vector, which barely relates the
    two wordings, is not needed to tell it is the fact."""
    asked = attributes.named(content)
    return bool(asked & attributes.stated_ever(r.text)) and not unsaid(obj, content, r)


def says_all_without_spaces(obj: str, content: frozenset[str], r: Reading) -> bool:
    """A request in Japanese or Chinese whose every word the memory says: an English model
    gives text it cannot read about the same cosine whatever it says (0.5-0.7), so a
    memory closer by it that leaves a word of the request unsaid is no rival."""
    return has_cjk(obj) and bool(content) and not unsaid(obj, content, r)


def lower_words(text: str) -> frozenset[str]:
    """The words a text writes in lower case (`evidence.words` folds case away)."""
    return evidence.words(" ".join(_LOWER.findall(text)))


_LOWER = re.compile(r"(?<![\w'-])[a-z][a-z'-]*")


def as_verb(text: str) -> frozenset[str]:
    """Words the text uses as a verb: right after its subject ("Kenji works", "I cook")."""
    return frozenset(w for m in _SUBJECT_VERB.finditer(text) for w in evidence.words(m.group(1)))


def only_as_noun(text: str, wanted: frozenset[str], before: re.Pattern[str] | None = None) -> bool:
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
POSSESSED = re.compile(r"(?i)(?:\b(?:a|an|the|my|his|her|their|your|our|its)|\w's)\s+$")
"""A noun right after a determiner or a possessive ("the user's work laptop")."""

MARKERS = frozenset((evidence.PAST, evidence.PRESENT, evidence.NOT))
"""Words that say when or whether a fact holds, never what it is about."""
