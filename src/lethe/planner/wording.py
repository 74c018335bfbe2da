"""When a word of a request is missing from a memory only because the memory words it
another way.

The description planner doubts a best match that leaves unsaid a word of the request which
other memories say: "forget Lucas's *personal* e-mail" must not take "Lucas's work e-mail".
That doubt is right when the missing word is a value or a qualifier (personal/work, cabin/
parents' house, dog/rabbit) and wrong when it is only another wording of the same attribute
("my *mobile* is +44 …" against "I can be reached on +44 …", "Maria's *address* is …"
against "Maria lives at …"). Two rules tell them apart, neither a threshold:

1. **A word that names an identifier is said by holding the identifier bare.** In "my
   mobile is +44 7700 900139", "plate EW-8478" or "the code was 44762", the head noun right
   before the identifier (or before the "is"/"was"/":" that leads to it) is what the
   identifier is. A memory that holds the identifier without naming it at all ("I can be
   reached on +44 …", "drives a Fiat 500 (HB-7017)") holds what the word names. One that
   names it otherwise ("My *home phone* is …" for "my fax is …", "My *birthday* is 12 June"
   for "my anniversary is 12 June") says another fact, and the word stays missing. Only
   the head counts: "personal" in "personal e-mail address is …" is a qualifier that tells
   two e-mail addresses apart, and stays a word the memory must say.
2. **Words of one attribute.** A small thesaurus of the relations that personal memories
   state (where someone lives, works, what they take, are allergic to, how they are reached,
   flights, debts, birthdays, memberships, partners): a memory that says another word of the
   same group says the attribute. The groups hold relation words only — never values or
   qualifiers of one kind (dog and rabbit, work and personal, dentist and optician are
   different facts and share no group), and never a word whose other common sense would join
   two unrelated facts ("flat" is also a coffee, "house" a place of its own, "take" is too
   common to say medication).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from lethe.planner import evidence
from lethe.planner.identifiers import holds_all, identifiers, plain_width

_GROUPS = (
    "phone telephone mobile cell cellphone reach reached reachable call",
    "address reside resides residence resident",
    "work works worked working job employer employed employee employment hired career "
    "occupation profession",
    "allergy allergies allergic allergen intolerant intolerance anaphylaxis",
    "medication medicine meds prescribed prescription dose dosage pill pills",
    "medical diagnosed diagnosis diagnoses 医療 診断 医疗 诊断 确诊",
    "flight flights fly flies flew flying flown",
    "birthday birthdate",
    "owe owes owed debt",
    "lend lent loan",
    "member membership subscription subscribed subscriber",
    "married marry spouse wife husband engaged fiance fiancee",
    "appointment booked booking scheduled",
    "car vehicle",
    "mail email",
    "password passcode passphrase passkey",
    "diet dietary",
    "language languages speak speaks spoke spoken fluent fluently",
    "use uses used using usage",
    "theme themes mode modes appearance テーマ モード 主题 模式 外观",
)
"""One relation per line: how a person is reached by phone, where they live, where they
work, what they are allergic to, what they are prescribed, what they were diagnosed with (a
medical fact), a flight, a birthday, a debt (who
owes), a loan (who lent: the other direction, so not the same words), a membership, a
partner, a booked visit, a car, e-mail, a secret that opens something, a diet, the languages
someone speaks, the use of something, how an app looks (its theme: dark mode). Kinds of one thing
are not its words: a landline is not a mobile, a home address not a billing one, so
"landline", "home", "work address" stay words a memory must say; nor is a word whose other
sense is as common ("reacts angrily", "a tablet", "a hard drive", "a plane tree", "gave
birth", "a mail box")."""


@lru_cache(maxsize=1)
def _kin() -> dict[str, frozenset[str]]:
    """Each word (as `evidence.words` reads it) with the other words of its group."""
    out: dict[str, set[str]] = {}
    for group in _GROUPS:
        stems = evidence.words(group)
        for s in stems:
            out.setdefault(s, set()).update(stems - {s})
    return {s: frozenset(k) for s, k in out.items()}


@lru_cache(maxsize=1)
def _relation_of() -> dict[str, int]:
    return {w: n for n, group in enumerate(_GROUPS) for w in evidence.words(group)}


def relations(words: Iterable[str]) -> frozenset[int]:
    """The relations (lines of the thesaurus) the words say: phone, address, work, …"""
    of = _relation_of()
    return frozenset(of[w] for w in words if w in of)


def said_otherwise(lacking: Iterable[str], said: frozenset[str]) -> frozenset[str]:
    """The lacking words whose relation the memory's words say in another word, or that a
    word of a kind of it says (a 予約 is a 予定)."""
    kin = _kin()
    return frozenset(
        w for w in lacking if (kin.get(w, frozenset()) | _KINDS.get(w, frozenset())) & said
    )


_KINDS = {
    word: evidence.words(kinds)
    for word, kinds in (("予定", "約束 予約 会議 面接 診察 検診 出張 旅行 飲み会 締切 集合"),)
}
"""A word said by any word of its kinds, one way only: 「1月24日の予定」 are the appointment,
the reservation and the meeting on that day (not the birthday), while 「会議」 is no 予約."""


_PHRASES = (
    # "reacts badly to latex", "I react to peanuts": a reaction *to* a thing, with at most a
    # word of how bad it is, is the allergy; "reacts angrily to criticism" is not.
    (
        re.compile(
            r"(?i)\b(react(?:s|ed|ing)?)\s+(?:(?:badly|severely|strongly|poorly|"
            r"terribly|very\s+badly)\s+)?to\b"
        ),
        "allergy",
    ),
    # "takes 200 mg of lisinopril": to take a dose is to be on a medication; "takes the
    # train" or "takes 20 minutes" is not.
    (
        re.compile(
            r"(?i)\b(take|takes|taking|took|taken)\s+(?:\d+(?:[.,]\d+)?\s*"
            r"(?:mg|mcg|µg|ml|iu|units?|tablets?|capsules?|puffs?)\b)"
        ),
        "medication",
    ),
    # "Daniel lives at 43 Maple Avenue": where someone lives is their home address, and
    # where they lived at, an address; "lived in Tokyo", "lives on pasta", a cat that lives
    # in the shed are not.
    (
        re.compile(
            r"(?:\b(?:I|we|you|he|she|they|[Uu]ser)|\b[A-Z][a-z]+)\s+(?:still\s+|now\s+)?"
            r"(live|lives)\s+at\b"
        ),
        "address home",
    ),
    (
        re.compile(
            r"(?:\b(?:I|we|you|he|she|they|[Uu]ser)|\b[A-Z][a-z]+)\s+(?:(lived)|used\s+to\s+(live))"
            r"\s+at\b"
        ),
        "address",
    ),
    # "where Daniel lives", "where do I live": a question for the address.
    (re.compile(r"(?i)\bwhere\b[^.;?]*?\b(live|lives|living)\b"), "address"),
    # "Maria joined Bosch in 2019 as a product manager": joining an organisation as a role
    # is working there; joining a club or a group is not.
    (
        re.compile(
            r"\b(join|joins|joined|joining)\s+(?:the\s+)?(?![^,.;]*\b(?:[Cc]lub|[Tt]eam|[Bb]and|"
            r"[Cc]hoir|[Ss]couts?|[Ss]ociety|[Ll]eague|[Gg]roup|[Gg]ym|[Cc]ross)\b)"
            r"[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*)*"
            r"\s+(?:in\s+\d{4}\s+)?as\s+an?\s+(?!member|volunteer|guest|coach|leader)[a-z]"
        ),
        "work",
    ),
    # "Julia drives a green Fiat", "the car I drive": to drive, said by someone or of a
    # thing, is to have a car; "a hard drive", "a drive to the coast" are nouns.
    (
        re.compile(
            r"\b(?:I|we|you|he|she|they|[A-Z][a-z]+)\s+(?:(?:still|now|used\s+to|no\s+longer)"
            r"\s+)?(drive|drives|drove)(?=\s*(?:$|[.,;?!])|\s+(?:a|an|the|my|his|her|their|our)"
            r"\s+(?!hard\b|bargain\b)[a-z]|\s+(?:in|until|since|before|after)\s+(?:\d{4}|the)\b)"
            r"|\b(drive|drives|drove)\s+(?:a|an|the|my|his|her|their|our)\s+(?!hard\b|bargain\b)[a-z]"
        ),
        "car",
    ),
)
"""Words whose relation depends on the words after them: a verb that says an attribute of
the `_GROUPS` only in this construction, and another thing elsewhere ("react", "take" are
in no group)."""


@lru_cache(maxsize=4096)
def phrased(text: str) -> dict[str, frozenset[str]]:
    """The relations a text says through a construction (`_PHRASES`), each with the words
    of the text that say it."""
    out: dict[str, set[str]] = {}
    for pattern, relation in _PHRASES:
        for m in pattern.finditer(text):
            said = next(g for g in m.groups() if g)
            out.setdefault(relation, set()).update(evidence.words(said))
    return {k: frozenset(v) for k, v in out.items()}


@lru_cache(maxsize=1)
def _relations() -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """Each relation a construction says: its group's words (the group named by its first
    word), and the words it says besides ("home" for "lives at")."""
    groups = {g.split()[0]: evidence.words(g) for g in _GROUPS}
    out = {}
    for _, relation in _PHRASES:
        group, *more = relation.split()
        out[relation] = (groups[group], evidence.words(" ".join(more)))
    return out


@lru_cache(maxsize=1)
def _phrase_words() -> frozenset[str]:
    """Every word a construction's relation says (its group's words and the others)."""
    return frozenset().union(*(group | more for group, more in _relations().values()))


def said_by_phrase(
    request: str, lacking: Iterable[str], memory: str, said: frozenset[str]
) -> frozenset[str]:
    """The lacking words whose relation one side says through a construction and the other
    in a word of its group or the same construction: "I react to peanuts" against "is
    allergic to peanuts", "Daniel's home address" against "Daniel lives at …", and the other
    way round."""
    relations = _relations()
    lacking = frozenset(lacking)
    asked = phrased(request)
    if not lacking & _phrase_words().union(*asked.values()):
        return frozenset()  # (no word lacking is one a construction could say)
    in_memory = phrased(memory)
    saying = said.union(*(relations[r][0] for r in in_memory))
    out: set[str] = set()
    for relation, used in asked.items():
        if relation in in_memory or relations[relation][0] & saying:
            out |= lacking & used
    for relation in in_memory:
        out |= lacking & relations[relation][0].union(relations[relation][1])
    return frozenset(out)


_USING = re.compile(r"(?i)\b(use|uses|used|using)\s+(\S*[@\d]\S*)")


def said_by_using(request: str, lacking: Iterable[str], memory: str) -> frozenset[str]:
    """ "I use sam.berg@gmail.com for personal mail": to use an identifier is only to have
    it; a memory that holds it says the verb, and the words after "for" say what it is."""
    verbs: set[str] = set()
    for verb, held in _used(request):
        if holds_all(memory, list(held)):
            verbs |= verb
    return frozenset(lacking) & verbs


@lru_cache(maxsize=4096)
def _used(request: str) -> tuple[tuple[frozenset[str], tuple[tuple[str, ...], ...]], ...]:
    """Each "use <identifier>" of the request: the verb's words and the identifier."""
    return tuple(
        (evidence.words(m.group(1)), tuple(identifiers(m.group(2))))
        for m in _USING.finditer(request)
    )


_HAVING = re.compile(
    r"\b(?:the|a|an)\s+[\w-]+(?:\s+[\w-]+)?\s+(?:I|we|you|he|she|they|[A-Z][a-z]+)\s+"
    r"(used|had|has|have|kept|owned|was\s+using)\b"
)


_HAVING_VERBS = evidence.words("used had has have kept owned was using")
"""Every word `_HAVING`'s verbs can say."""


def said_by_having(request: str, lacking: Iterable[str]) -> frozenset[str]:
    """ "the e-mail Sofia used in 2023", "the address Emma had in 2017": a verb of a
    relative clause that only says whose the thing was is said by any memory of theirs.
    (The request is read for them only when a lacking word is one of them.)"""
    unsaid = frozenset(lacking)
    if not unsaid & _HAVING_VERBS:
        return frozenset()
    verbs = evidence.words(" ".join(m.group(1) for m in _HAVING.finditer(request)))
    return unsaid & verbs


_PHONE_WORDS = frozenset(("phone", "telephone", "mobile", "cell", "cellphone"))
_NOT_PHONES = evidence.words(
    "fax pager account iban code pin order booking reference ticket passport licence license "
    "plate policy member membership card invoice tracking serial"
)
"""What else a number with a country code may be called."""
_INTERNATIONAL = re.compile(r"(?<![\w+])\+\d{1,3}[\s.-]?\(?\d{2,}")
"""A number written with a country code ("+44 7700 900118") is a phone number."""


def said_by_phone(lacking: Iterable[str], text: str) -> frozenset[str]:
    """ "phone" is said by a memory that holds a number with a country code and calls it
    nothing else ("Maria's number in 2020: +44 …"); one that speaks of a fax or an account
    does not."""
    found = frozenset(lacking) & evidence.words(" ".join(_PHONE_WORDS))
    if not found or not _INTERNATIONAL.search(text):
        return frozenset()
    return frozenset() if evidence.words(text) & _NOT_PHONES else found


_NUMBER = frozenset(("number", "no", "nr", "num"))
_NUMBER_DIGITS = 6
"""The fewest digits of what "number" names bare: a phone, member or account number — not a
day, a five-digit postcode, a PIN or a plate."""
_CAPITAL_NAME = re.compile(r"\b[A-Z]{2,6}\b\s*(?:[:=]|is|was)?\s*$")
"""An acronym right before an identifier names it ("IBAN: DE89 …", "PIN 4821")."""


def said_by_holding(lacking: Iterable[str], text: str) -> frozenset[str]:
    """ "number" is said by a memory that holds one bare ("Mobile of Alice: +351 912 822 199"
    is Alice's phone number); one that names what it holds otherwise ("the verification
    code … was 40804") holds a code, not a number."""
    found = frozenset(lacking) & evidence.words(" ".join(_NUMBER))
    held = found if found and _holds_number(text) else frozenset()
    return held | said_by_phone(lacking, text)


@lru_cache(maxsize=65536)
def _holds_number(text: str) -> bool:
    """The text holds a number bare: one of at least `_NUMBER_DIGITS` digits, not a year,
    that no word of the text names."""
    if names_identifiers(text):
        return False
    if any(_CAPITAL_NAME.search(text[: m.start()]) for m in _IDENTIFIER.finditer(text)):
        return False
    digits = (
        sum(len(g) for g in i if g.isdigit())
        for i in identifiers(text)
        if not _YEAR.fullmatch("".join(i))
    )
    return any(d >= _NUMBER_DIGITS for d in digits)


_COPULA = re.compile(
    r"\s*(?:\b(?:is|was|are|were)(?:\s+(?:on|at|in|for))?\b|[:=])\s*$", re.IGNORECASE
)
_HEAD = re.compile(r"([A-Za-z][A-Za-z'-]*)\s*$")
_IDENTIFIER = re.compile(r"(?<!\S)[^\s]*[0-9@][^\s]*")
_BEFORE_NOUN = re.compile(
    r"(?:^|[,;(]|\b(?:a|an|the|my|your|his|her|its|our|their|with|of|for|no|new|old|is|was|are|"
    r"were)|'s?)\s*$",
    re.IGNORECASE,
)
_PREFIX = re.compile(r"(?:\b[A-Z]{1,4}|[#$£€¥])\s*$")
"""Letters or a sign written before an identifier's digits belong to it ("IB 6616", "#42")."""
_CLAUSE = re.compile(r"[,;]|\bthat\b", re.IGNORECASE)
_PREPOSITION = re.compile(r"\s\b(?:at|of|for|to|in|on|from|with)\b", re.IGNORECASE)
_CALENDAR = re.compile(
    r"(?i)^(?:mon|tues|wednes|thurs|fri|satur|sun)day$|^(?:january|february|march|april|may|"
    r"june|july|august|september|october|november|december)$"
)
_YEAR = re.compile(r"(?:19|20)\d\d")
_MONTH_AFTER = re.compile(
    r"(?i)\s*(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
)
"""A day of a month is a date: any event may fall on it, so no word before it names it."""


_NAME_WORD = re.compile(r"(?<![\w'-])([a-z][a-z'-]*)\s*$")


@lru_cache(maxsize=65536)
def identifier_names(obj: str) -> frozenset[str]:
    """The words right before each identifier that name what it is ("order number" in
    "order number 470-…", "order" in "…from MediaMarkt, order 993-…"): the lowercase run
    that ends at the identifier, up to a determiner, a name or a punctuation mark. Other
    words of the request ("blender" in "Daniel ordered a blender …, order 993-…") say
    something about the thing the identifier names, which a memory holding it may not."""
    out: set[str] = set()
    obj = plain_width(obj)
    for m in _IDENTIFIER.finditer(obj):
        before = _PREFIX.sub("", obj[: m.start()])
        while (head := _NAME_WORD.search(before)) is not None:
            word = head.group(1)
            if not evidence.words(word):
                break
            out.update(evidence.words(word))
            before = before[: head.start()]
    # In Japanese the run right before it names it (認証コード476014), or the one after の
    # (TM799161のコード).
    for m in _CJK_NAMING.finditer(obj):
        out.update(evidence.words(m.group(1) or m.group(2)))
    return frozenset(out)


_CJK_RUN = "[\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff]+"
_CJK_NAMING = re.compile(
    f"({_CJK_RUN})(?=\\s*[A-Za-z]{{0,4}}[0-9])|(?<=[A-Za-z0-9])\\s*の({_CJK_RUN})"
)


@lru_cache(maxsize=65536)
def naming_words(obj: str) -> frozenset[str]:
    """The head noun right before each identifier of the request: "mobile" in "my mobile is
    +44 …", "plate" in "with plate EW-8478", "code" in "the verification code 44762". A
    lowercase word only (a name is a value, not what the value is) that is a noun — the
    identifier follows it through "is"/"was"/":", or a determiner, a preposition or the
    start of a clause comes before it (not "takes" in "Hannah takes 200 mg") — never a day or
    a month, nor before a date or a bare year (a date names a day, not the fact: "my
    birthday is 3 May" is not "gave birth on 3 May")."""
    out: set[str] = set()
    for m in _IDENTIFIER.finditer(obj):
        if _YEAR.fullmatch(m.group(0).strip(".,;)")) or _MONTH_AFTER.match(obj, m.end()):
            continue
        before = _PREFIX.sub("", obj[: m.start()])
        copula = _COPULA.search(before)
        if copula:
            # The subject of "is" is a noun phrase whose head comes before its first
            # preposition: "the password at Emma's parents' house is …" names a password.
            before = before[: copula.start()]
            phrase = _CLAUSE.split(before)[-1]
            first = _PREPOSITION.search(phrase)
            if first:
                before = before[: len(before) - len(phrase) + first.start()]
        head = _HEAD.search(before)
        if head is None:
            continue
        word = head.group(1)
        if not word.islower() or _CALENDAR.match(word):
            continue
        ahead = before[: head.start()]
        noun = copula is not None or _BEFORE_NOUN.search(ahead) is not None
        if not noun:
            prior = _HEAD.search(ahead)
            noun = (
                prior is not None
                and prior.group(1).islower()
                and bool(_BEFORE_NOUN.search(ahead[: prior.start()]))
            )
        if noun:
            out.update(evidence.words(word))
    return frozenset(out)


_AFTER = re.compile(r"[\s,]*(?:(?:in|of|for|on|at|as)\s+)?([a-z][a-z'-]+)")


@lru_cache(maxsize=65536)
def names_identifiers(text: str) -> bool:
    """Whether a memory says what one of its identifiers is: a head noun before it
    (`naming_words`), or a word right after it ("$85,000 in *savings*", "200 *mg*"). A
    memory that does not ("I can be reached on +44 …", "drives a Fiat 500 (HB-7017)")
    holds its identifiers bare."""
    if naming_words(text):
        return True
    for m in _IDENTIFIER.finditer(text):
        after = _AFTER.match(text, m.end())
        if after and evidence.words(after.group(1)):
            return True
    return False
