"""A whole subject: every memory of it ("everything about Nina", "all about my trip to Japan").

A person is their memories: those whose fact is theirs (a debt they are party to, their
family's part), while one that mentions them beside someone else is listed for review. An
identifier asked for everywhere is every memory holding it. A topic ("my trip to Japan",
"my old flat") is the memories holding its anchor (the name it gives, or the one its
closest memories share), that are the user's, and do not say the opposite qualifier
(old/previous against now/current/new).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from lethe.planner import evidence, loans, rules, saying, wording
from lethe.planner.ask import YEAR, RequestReading
from lethe.planner.doubts import AUXILIARY, FLOOR
from lethe.planner.evidence import USER, Reading
from lethe.planner.identifiers import holds_all, identifiers, shown
from lethe.planner.judgement import Judgement
from lethe.planner.pool import Pool
from lethe.planner.port import Candidate
from lethe.planner.record import Record
from lethe.planner.saying import MARKERS

_CHINESE_NAME = re.compile(r"[\u4e00-\u9fff]{2,4}")
_KANA = re.compile(r"[\u3041-\u30ff]")
RECORD = rules.rule(
    "subject-record",
    "a request for someone's record ('Dana profile information', 'X medical record') is every "
    "memory of theirs that says its qualifiers",
)
PERSON = rules.rule(
    "subject-person", "a person named as the subject: every memory whose fact is theirs"
)
HOLDING = rules.rule(
    "subject-identifier", "an identifier asked for everywhere: every memory holding it"
)
ANOTHER_THING = rules.rule(
    "topic-another-thing", "the topic's name qualifies another noun there ('Dijon mustard')"
)
FAR_APART = rules.rule(
    "topic-far-apart", "names the topic but says none of its words and is far in meaning"
)
ACTED_ON = rules.rule(
    "topic-acted-on", "names the topic only as what a verb acts on ('writes Java'): another sense"
)

_FRIEND = re.compile(
    r"^(?:my\s+)?(?:(?:good|best|old|dear)\s+)?(?:friend|colleague|coworker|co-worker|boss|"
    r"manager|neighbour|neighbor|sister|brother|mother|father|mum|mom|dad|cousin|aunt|uncle|"
    r"partner|wife|husband|son|daughter)?\s*",
    re.IGNORECASE,
)


def subject(reading: RequestReading, pool: Pool) -> list[Judgement] | None:
    """The judgements of a whole-subject request, or None when it names no subject (it is
    then judged as a fact)."""
    ask = reading.ask
    if reading.record is not None and rules.on(RECORD):
        rules.fire(RECORD)
        return _about_record(reading.record, pool)
    if _CHINESE_NAME.fullmatch(ask.text) and not _KANA.search(reading.request.text):
        # 「删除关于王芳的所有信息」: a Chinese request for a person, whose name no capital
        # marks: their record, named first in each memory (not 李强是王芳的同事, not 王芳芳).
        rules.fire(RECORD)
        return _about_record(Record((ask.text,), ""), pool)
    wanted = ask.reading
    person = _person(ask.text, wanted)
    if person is not None and rules.on(PERSON):
        rules.fire(PERSON)
        return _about_person(person, pool.candidates, pool.readings)
    if any(not YEAR.fullmatch("".join(c)) for c in ask.written) and rules.on(HOLDING):
        rules.fire(HOLDING)
        codes = list(ask.written)
        names = [n for n in wanted.names if n != wanted.owner]
        return _holding(ask.text, wanted, codes, names, pool.candidates, pool.readings)
    return _about_topic(ask.text, wanted, pool.candidates, pool.readings)


def _about_record(record: Record, pool: Pool) -> list[Judgement]:
    """Someone's record ("Dana profile information", "Ivan Petrov / Иван Петров"): every
    memory that holds one of the subject's spellings and is its fact (or nobody's in
    particular: "Patient Dana Kim, DOB …"); one in which another person acts ("Kim works with
    Dana") is listed for review. Qualifiers ("medical") narrow it to the memories that say
    them, in any wording. An identifier's record is every memory holding one of its
    spellings, whatever else it says."""
    spellings = [_spelling(s) for s in record.subjects]
    asked = evidence.words(record.qualifiers) - MARKERS
    label = record.subject
    out = []
    for c in pool.candidates:
        r = pool.reading(c)
        j = Judgement(c.memory, c.similarity, "skip", 0.0, "")
        held = [s for s in spellings if _holds_spelling(r, s)]
        mine = [w for s in held for w in s.words]
        if not held:
            j.reason = f"does not name {label}: never a target"
        elif not record.identified and _debt_party(c.memory.content, mine):
            j.verdict, j.certainty = "delete", 0.95
            j.reason = f"a debt {label} is a party to (a fact of both parties)"
        elif not record.identified and not _theirs(r, mine):
            j.certainty = 0.5
            j.reason = f"mentions {label} beside someone else: listed for review, not deleted"
        elif (
            asked
            and not record.identified
            and (lacking := saying.unsaid(record.qualifiers, evidence.sayable(asked, r.text), r))
        ):
            j.certainty = 0.5
            j.reason = (
                f"part of {label}'s record, but does not say {', '.join(sorted(lacking))}: "
                "listed for review, not deleted"
            )
        else:
            j.verdict, j.certainty = "delete", 0.95
            j.reason = f"part of {label}'s record"
            j.evidence = [f"names {held[0].text}", f"cosine {c.similarity:.2f}"]
        out.append(j)
    return out


@dataclass(frozen=True)
class _Spelling:
    text: str
    codes: tuple[tuple[str, ...], ...]
    words: tuple[str, ...]
    """Its words without diacritics, case folded (José García: jose, garcia)."""


def _spelling(text: str) -> _Spelling:
    codes = tuple(identifiers(text))
    words = () if codes else tuple(bare(w) for w in text.split())
    return _Spelling(text, codes, words)


def bare(text: str) -> str:
    """Case folded, without diacritics: "José" and "Jose", "Müller" and "Muller" are one
    name written two ways."""
    return _unaccented(evidence.fold(text))


def _holds_spelling(r: Reading, spelling: _Spelling) -> bool:
    if spelling.codes:
        return holds_all(r.text, list(spelling.codes))
    capitals = {bare(c) for c in (*r.capitals, *r.names)}
    text = bare(r.text)
    # A name in Latin letters is a capitalised word ("Frank", not "a frank discussion"); one in
    # a script without case is found inside the text.
    plain = _unaccented(r.text)
    return all(
        w in capitals
        or (not w.isascii() and w in text)
        or (w.isascii() and _capitalised_in(w, plain))
        for w in spelling.words
    )


def _capitalised_in(word: str, text: str) -> bool:
    """The name written capitalised in the text, diacritics aside ("Nguyễn" for nguyen)."""
    for form in (word.capitalize(), word.upper()):
        if re.search(rf"(?<!\w){re.escape(form)}(?!\w)", text):
            return True
    return False


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
    # Whether some memory is of this person by the bare name: then one naming a longer name
    # ("Kim Kardashian") is someone who shares it. Read once, not per candidate.
    alone = any(
        evidence.holds_names(o, [person])
        and not _longer_name(o.text, person)
        and _theirs(o, [bare(person)])
        for o in readings.values()
    )
    for c in candidates:
        r = readings[c.memory.id]
        j = Judgement(c.memory, c.similarity, "skip", 0.0, "")
        if not evidence.holds_names(r, [person]):
            j.reason = f"does not name {person.title()}: never a target"
        elif _debt_party(c.memory.content, [bare(person)]):
            # "Maria owes Bill $1750": a debt is a fact of both its parties.
            j.verdict, j.certainty = "delete", 0.95
            j.reason = f"a debt {person.title()} is a party to (a fact of both parties)"
            j.evidence = [f"{person.title()} lent or borrowed", f"cosine {c.similarity:.2f}"]
        elif alone and _longer_name(r.text, person):
            # "Kim Kardashian's show", "Li Ming lives …", while another memory is of the Kim
            # or the Li meant: someone who shares the first name.
            j.certainty = 0.5
            j.reason = (
                f"names {person.title()} with another name after it, and another memory is "
                f"of {person.title()} alone: listed for review, not deleted"
            )
        elif _theirs(r, [bare(person)]):
            j.verdict, j.certainty = "delete", 0.95
            relative = r.owner.split(":", 1)[1] if r.owner and ":" in r.owner else None
            j.reason = (
                f"a fact of {person.title()}'s {relative} (part of what is known of her/him)"
                if relative
                else f"a fact about {person.title()} (whose fact it is)"
            )
            j.evidence = [f"{person.title()} is whose fact it is", f"cosine {c.similarity:.2f}"]
        else:
            j.certainty = 0.5
            j.reason = (
                f"mentions {person.title()} beside someone else: listed for review, not deleted"
            )
        out.append(j)
    return out


def _longer_name(text: str, person: str) -> bool:
    """The person's name goes on with another capitalised name ("Kim Jong-un", "Li Ming")."""
    return (
        re.search(rf"(?i:\b{re.escape(person)})[\s-]+[A-Z][\w-]*(?!\S*')", text) is not None
        and re.search(rf"(?i:\b{re.escape(person)})'s\b", text) is None
    )


def _theirs(r: Reading, mine: list[str]) -> bool:
    """The memory is the subject's fact: they own it, alone (or a relative of theirs does:
    "Alice's parents' house Wi-Fi"), or nobody is said to own it and they are named in it as
    a person ("Patient Dana Kim, DOB …"), or its first word only labels them ("Engineer Uma
    works…", "Customer José García placed…"). Not a fact they share ("Hannah and Daniel used
    to share a flat": listed), nor someone else's that mentions them ("The user borrowed a
    ladder from Nina; Tom had recommended it")."""
    if r.shared_owner:
        return False
    if not mine:
        return False
    if r.owner is None:
        return _named_first(r.text, mine, r.names)
    whose = bare(r.owner.split(":", 1)[0])
    if whose in mine:
        return True
    if r.owner != USER and whose not in _DETERMINING:
        return False  # someone else's ("Hugo travaille avec Léa")
    # Words that label the subject at the start ("User 김민지", "Same client Francois
    # Muller"): the owner read there says what the subject is, not who else.
    return _named_first(r.text, mine, r.names)


_DETERMINING = frozenset(
    ("same", "another", "other", "this", "that", "the", "new", "old", "former", "previous")
)
"""Words that start a memory capitalised and read as its owner, but only point at whom it is
about ("Same customer as Jose Garcia …")."""


def _named_first(text: str, mine: list[str], names: tuple[str, ...]) -> bool:
    """The subject is who the memory is about: named first, at most after words that label
    them ("Patient Dana Kim, DOB …", "Engineer Uma works…", "Customer 张伟 placed…", "患者王芳,
    …"), not after someone else ("Hugo travaille avec Léa", "李强是王芳的同事"), and not as the
    start of a longer name (王芳芳 is not 王芳)."""
    name = mine[0]
    plain = _unaccented(text)
    if name.isascii():
        # A word in the sense of a name ("Mark the calendar" is no person: `evidence.read`);
        # a name written with letters it does not read ("Nguyễn") is one.
        read = {bare(n) for n in names}
        if any(w not in read and _capitalised_in(w, text) for w in mine if w.isascii()):
            return False
        label = (
            r"^\W*(?:[A-Z][\w-]*((?:[\s,]+[a-z][\w-]*){0,4})[\s:,.(]+)?"
            rf"(?i:{re.escape(name)})\b"
        )
        m = re.match(label, plain)
        if m is None:
            return False
        between = (m.group(1) or "").replace(",", " ").split()
        if any(evidence.verb_like(w) for w in between):
            return False
        # More than one word of label only after a word that points ("Same customer as …"):
        # "Hugo a invité Léa" is Hugo's.
        first = plain.lstrip(" \"'([-*•").split(" ", 1)[0].casefold()
        return not between or first in _DETERMINING
    folded = bare(plain)
    at = folded.find(name)
    if at < 0:
        return False
    before, after = folded[:at], folded[at + len(name) :]
    if any(ch in _AFTER_NAME for ch in before):
        return False  # someone else's, with the name later in it ("李强是王芳的同事")
    # A label of a word or two before the name (患者, 客户, "Customer", "Branch office").
    latin = re.findall(r"[a-z]+", before)
    other = re.sub(r"[\W\da-z_]", "", before)
    if len(latin) > _LABEL_WORDS or len(other) > _LABEL_CHARS:
        return False
    return not (after[:1] and _ideograph(after[0]) and after[0] not in _AFTER_NAME)


def _ideograph(char: str) -> bool:
    return unicodedata.name(char, "").startswith("CJK UNIFIED IDEOGRAPH")


_LABEL_WORDS = 4
_LABEL_CHARS = 3
_AFTER_NAME = frozenset(
    "是在有的和与喜住会说工去要也都不没已被把给对从向跟为于今现搬跳加入曾还就才"
    "上下昨前刚正最常每很非一两几这那将经"
)
"""What follows a name written in Chinese or Japanese kanji where the name ends: a verb, a
particle, a conjunction, a time (王芳是…, 王芳在…, 周勇上个月…); another ideograph goes on
with the name (王芳芳)."""


def _unaccented(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text.replace("ß", "ss"))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _debt_party(text: str, mine: list[str]) -> bool:
    parties = loans.parties(text) or ()
    return any(bare(p) in mine for p in parties)


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
    plain = (
        wanted.words
        - evidence.words(" ".join(names))
        - evidence.words(" ".join(t for c in codes for t in c))
    ) - MARKERS
    naming = wording.identifier_names(obj)
    out = []
    for c in candidates:
        r = readings[c.memory.id]
        j = Judgement(c.memory, c.similarity, "skip", 0.0, "")
        absent = [n for n in names if not evidence.holds_names(r, [n])]
        if absent:
            j.reason = f"does not name {', '.join(absent)} (named in the request): never a target"
        elif holds_all(c.memory.content, codes):
            other = saying.unsaid(obj, evidence.sayable(plain, r.text), r) - naming
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
            if entity or noun is None or AUXILIARY.fullmatch(noun) or _FINITE_WORD.fullmatch(noun):
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
        other = (
            _another_thing(r.text, anchors, head)
            if said and head and rules.on(ANOTHER_THING)
            else None
        )
        if other and not unfit:
            unfit = f"names another thing ({other}): the name is used in another sense"
            rules.fire(ANOTHER_THING, c.memory.id)
        entity = said and _as_entity(r.text, anchors)
        apart = said and head and not (head & r.words) and not unfit and not entity
        if apart and c.similarity < FLOOR and rules.on(FAR_APART):
            rules.fire(FAR_APART, c.memory.id)
            unfit = (
                f"says none of {', '.join(sorted(head))} and is far in meaning "
                f"({c.similarity:.2f}): the name may be used in another sense"
            )
        elif apart and rules.on(ACTED_ON) and (acted := _acted_on(r.text, anchors)):
            # "writes Java at work" beside "the Java trip": a name that is only ever the thing
            # a verb acts on, with none of the request's words, is a language, a product…
            rules.fire(ACTED_ON, c.memory.id)
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
