"""What a text says, read cheaply enough to compare a request with every candidate: its words,
the names it gives, and whose fact it is.

A forget request and a memory are compared on more than one cosine (embeddings barely see
names, numbers and days). Three readings do that work:

- `words`: the content words, case-folded, possessives and plurals folded, function words
  dropped; text in scripts written without spaces (Japanese, Chinese) becomes character
  pairs, so a word inside a sentence is still found.
- `names`: proper nouns — a capitalised word that the texts around it never write in lower
  case (so "Birthday" at the start of a sentence is a word, "Nina" is a name), days and
  months included, and Japanese names written with an honorific (田中さん).
- `owner`: whose fact it is — the user (I, my, the user, 私…), a named person (the name in
  the possessive or as the subject of the first clause), or nobody said.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer  # type: ignore[import-untyped]

from lethe.planner.identifiers import plain_width

USER = "@user"
CALENDAR = frozenset(
    (
        *("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
        *("january", "february", "march", "april", "may", "june", "july", "august"),
        *("september", "october", "november", "december"),
    )
)
"""Days and months, folded as names are: a date, never whose fact it is or what it names."""
HOLIDAYS = frozenset(
    (
        *("christmas", "easter", "thanksgiving", "halloween", "hanukkah", "diwali", "ramadan"),
        *("eid", "passover", "pentecost", "whitsun", "carnival", "lent", "advent", "midsummer"),
    )
)
"""Feasts: a time of year, never whose fact it is ("the turkey for Thanksgiving")."""
_TIMES = CALENDAR | HOLIDAYS
PAST = "@past"
PRESENT = "@present"
NOT = "@not"
_PAST_WORDS = re.compile(
    r"\b(?:old|previous|previously|former|formerly|ex|used\s+to|no\s+longer|anymore|"
    r"earlier|past|last)\b|以前|前の|昔|元の|旧"
)
_PRESENT_WORDS = re.compile(
    r"\b(?:now|current|currently|new|newly|present|these\s+days|still|next|planning|plans)\b"
    r"|今の|現在|新しい"
)

_STOP = frozenset(
    """a an the and or but if then than that this these those there here of to in on at by for
    with from into onto about over under as is are was were be been being am do does did done
    have has had having it its it's he she him her his hers they them their theirs we us our
    ours you your yours i me my mine myself user users s t not no yes so too very also just
    only please can could would will shall should may might must what which who whom whose when
    where why how whether all any every each some everything anything something nothing
    forget delete remove erase memory memories note notes fact facts know remember thing things
    info information entry entries anymore now again let let's want need like rather
    who's what's that's one ones get got""".split()  # noqa: SIM905
)
# Words that can never be a person's name, even at the start of a sentence.
_NOT_NAMES = frozenset(
    """the a an my our your his her their this that these those i we you he she it they
    there here please forget delete remove erase note careful booked update correction
    fyi actually also and but or so if when where what who which how why""".split()  # noqa: SIM905
)
_FIRST_PERSONS = (
    r"\b(?:i|i'm|i've|i'd|i'll|my|me|mine|myself|user|user's)\b",
    r"私|僕|俺|自分|ユーザー",
    # German, French, Spanish, Italian, Portuguese.
    r"\b(?:ich|mein|meine|meinen|meinem|meiner|meines|mich|mir|je|j'|moi|mon|ma|mes|yo|mi|"
    r"mis|mio|mia|miei|mie|eu|meu|minha|meus|minhas)\b",
)
_FIRST_PERSON = re.compile("|".join(_FIRST_PERSONS), re.IGNORECASE)
_FIRST_PERSON_LOWER = re.compile(f"{_FIRST_PERSONS[0]}|{_FIRST_PERSONS[2]}")
"""`_FIRST_PERSON` for a text in ASCII, in lower case: found where the whole is (its letters
are all in lower case, and its Japanese words are never in such a text), and faster."""
_LATIN = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?|\d+", re.UNICODE)
# A lower-case word standing alone: not part of an address, a code or a file name.
_PLAIN_WORD = re.compile(r"(?<![\w@.\-/])[a-z]+(?:'[a-z]+)?(?![\w@\-/]|\.\w)")
_CJK = re.compile(r"[\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff66-\uff9f]+")
_CONTENT_CJK = re.compile(
    r"[\u3005\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+|[\u30a0-\u30ff\uff66-\uff9f]+"
)
# A word of kanji and katakana, read whole: 猫 in 猫カフェ or 猫アレルギー describes another
# thing, and 母 in 祖母 or 母校 is another word, so a single character is a word only where it
# stands alone. Kanji joined by one kana of a verb stem are one compound noun (招き猫, 飼い犬),
# and a word in hiragana after a particle leads the noun it is written against (そばアレルギー).
_JA_RUN = re.compile(
    r"(?:(?:(?<=[はがをにのでともへや、。「\s])|(?<![\s\S]))[\u3041-\u3093]{2,}(?=[\u3005\u30a0-\u30ff\u3400-\u9fff]))?"
    r"[\u3005\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]+"
    r"(?:[きいしりちみびぎけえせれ][\u3005\u3400-\u4dbf\u4e00-\u9fff]+)*"
    r"|[\uac00-\ud7af]+"
)
_HONORIFIC_BEFORE = re.compile(r"[おご]$")
_HONORIFIC_AFTER = re.compile(r"^(?:さん|様|さま|ちゃん|くん|君|氏)")


def _alone(char: str, before: str, after: str) -> str:
    """A one-character word, told apart from its honorific forms: お母さん and 妹さん are
    someone else's mother and sister, 母 and 妹 the user's own."""
    if _HONORIFIC_BEFORE.search(before):
        return before[-1] + char
    if _HONORIFIC_AFTER.match(after):
        return char + "さん"
    return char


_NEGATION_CJK = r"ない|ません|ず(?:に|、|。|$)|않|안\s|못\s|不|没有|沒有"
_NEGATIONS = (
    r"\b(?:not|never|no\s+longer|nor|neither|cannot|(?:do|does|did|is|are|was|were|ca|wo|"
    r"have|has|had|would|should|could)n't|dislikes?|disliked|hates?|hated|detests?|loathes?)\b",
    _NEGATION_CJK,
    # German, French, Spanish, Italian, Portuguese.
    r"\b(?:nicht|kein(?:e|en|er|em|es)?|nie|niemals|pas|jamais|aucun(?:e)?|nunca|jamás|"
    r"tampoco|non|mai|não)\b",
    r"\bne\s+(?:\S+\s+)?(?:pas|plus|jamais)\b",
    r"^\s*no\s",
)
_NEGATION = re.compile("|".join(_NEGATIONS), re.IGNORECASE)
_NEGATION_EACH = tuple(re.compile(p, re.IGNORECASE) for p in _NEGATIONS)
"""The alternatives of `_NEGATION` one by one: a text holds a match of the whole when it holds
a match of one of them, and each alone is searched several times faster than the whole (re
skips ahead to where it can start; the whole tries every alternative at every character)."""
_NEGATION_LOWER = tuple(
    (re.compile(p), needles)
    for p, needles in zip(
        _NEGATIONS,
        (
            ("no", "never", "neither", "n't", "dislike", "hate", "detest", "loathe"),
            None,
            ("nicht", "kein", "nie", "pas", "mai", "aucun", "nunca", "tampoco", "non"),
            ("ne",),
            ("no",),
        ),
        strict=True,
    )
    if needles is not None
)
"""... and, for a text in ASCII, matched in lower case without IGNORECASE, which is faster
still and finds the same: every letter the alternatives write is in lower case or beyond
ASCII (and none of those matches an ASCII letter in any case); the one in Japanese, Chinese
and Korean is never in such a text. Each alternative is tried only where the text holds one
of its needles, of which every word it can match in ASCII holds one ("not", "cannot" and
"no longer" hold "no"; "jamais" holds "mai")."""


def negated(text: str) -> bool:
    """It says not, never, no longer… (or ない/ません): `_NEGATION` is found in it."""
    if text.isascii():
        lower = text.lower()
        for pattern, needles in _NEGATION_LOWER:
            for needle in needles:
                if needle in lower:
                    if pattern.search(lower):
                        return True
                    break
        return False
    return any(p.search(text) for p in _NEGATION_EACH)


# A relative of the user or of a named person: "my sister's phone", "Frank's brother".
_RELATION = (
    r"(?:sister|brother|wife|husband|mother|father|mum|mom|dad|son|daughter|partner|"
    r"girlfriend|boyfriend|friend|boss|manager|colleague|neighbou?r|cousin|aunt|uncle|niece|"
    r"nephew|grandmother|grandfather|grandma|grandpa|grandson|granddaughter|fianc[ée]e?|kids?|"
    r"child|children|parents?|landlord|roommate|flatmate)"
)
_USER_RELATIVE = re.compile(
    rf"\b(?:my|our|the\s+user's|user's)\s+(?:\w+\s+)?({_RELATION})\b", re.IGNORECASE
)
_OTHER_RELATIVE = re.compile(
    r"(?i)\b(?:meine?[rsmn]?|mon|ma|mes|mi|mis|mio|mia|meu|minha)\s+"
    r"(bruder|schwester|mutter|vater|frau|mann|sohn|tochter|freund|freundin|chef|chefin|"
    r"kollege|kollegin|nachbar|nachbarin|onkel|tante|oma|opa|eltern|frère|sœur|soeur|mère|"
    r"père|femme|mari|fils|fille|ami|amie|patron|patronne|collègue|voisin|voisine|oncle|"
    r"grand-mère|grand-père|parents|hermano|hermana|madre|padre|esposa|esposo|marido|mujer|"
    r"hijo|hija|amigo|amiga|jefe|jefa|colega|vecino|vecina|tío|tía|abuela|abuelo|padres|"
    r"fratello|sorella|madre|padre|irmão|irmã|mãe|pai)\b"
    r"|^\s*(母|父|兄|姉|弟|妹|夫|妻|息子|娘|祖母|祖父|上司|同僚|友人|友達)(?:の|が|は)"
)
"""A relative of the user's in German, French, Spanish, Italian, Portuguese and Japanese
("de mon frère", "mi hermana", 「母の電話番号」): whose fact it is."""
_JA_SELF = re.compile(r"私|僕|俺|自分")
_JA_NAME = re.compile(
    r"([\u3005\u3400-\u4dbf\u4e00-\u9fff\u30a0-\u30ff]{1,6})(?:さん|様|くん|君|ちゃん|氏)"
)
# Where a clause starts: the text's start, after a sentence end, a colon or a dash, and after
# a lead-in that is no part of the fact ("FYI Daniel moved…", "Actually, Hannah got…").
# A title's full stop ("Dr. Patel") ends no sentence.
_CLAUSE = re.compile(
    # (The title is looked for behind the full stop once one is found, not at every character.)
    r"(?:^|\.(?<!\bdr\.)(?<!\bmr\.)(?<!\bmrs\.)(?<!\bms\.)(?<!\bprof\.)(?<!\bst\.)\s*|[;:!?。]\s*"
    r"|\s[-–—]\s)"
    r"(?:(?:fyi|btw|update|actually|correction|note|also|ok|okay|so|oh)\b[,:]?\s+)?"
    r"(?:(?:dr|mr|mrs|ms|prof)\.\s+)?",
    re.IGNORECASE,
)
# A capitalised word, a hyphenated name whole ("Anne-Marie"), never a piece of one.
# A name written into Japanese or Chinese text ("Aliceに48000円", "我借给Julia") is still one:
# only Latin letters and digits around it make it part of a longer word.
_CAPITAL = re.compile(
    r"(?<![A-Za-z0-9_@./\-])([A-Z][a-zA-Z\u00c0-\u024f]*(?:-[A-Z][a-zA-Z\u00c0-\u024f]*)*"
    r"(?:'[sS])?)(?![A-Za-z0-9_@/\-\u00c0-\u024f]|\.[A-Za-z0-9])"
)


# A verb right after a clause's first name: "Carol is", "Nina lives", "Tom joined".
_FINITE = re.compile(
    r"\s+(?:(?:now|still|also|just|recently|currently|never|often|always|already)\s+)?"
    r"(?:is|are|was|were|has|had|does|did|can|will|[a-z]+[a-rt-z]s|[a-z]{2,}ed)\b"
)


def fold(text: str) -> str:
    if text.isascii():  # already NFC, no full-width form
        return text.casefold()
    return plain_width(unicodedata.normalize("NFC", text)).casefold()


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    if word.endswith("'s"):
        word = word[:-2]
    elif word.endswith("'"):
        word = word[:-1]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


_ENGLISH = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def _root(word: str) -> str:
    """The Snowball (Porter 2) stem: "ordered" and "order", "allergies" and "allergy" meet —
    and "allergy" and "allergic", whose stems Snowball leaves one letter apart ("allergi",
    "allerg"), as "history" and "historic", "delivery" and "deliver" do."""
    if not (word.isascii() and word.isalpha()):
        return word
    stem = str(_ENGLISH.stemWord(word))
    return stem[:-1] if len(stem) >= 6 and stem.endswith("i") else stem


# The verb that names something ("a dog called Pepper", "named Pepper", "its name is Pepper")
# says nothing the name does not: "called" and "named" must not tell two wordings apart.
_NAMING = re.compile(r"\b(?:(?:is|was)\s+)?(?:called|named)\s+(?=[A-Z\"'])|\bname\s+is\s+(?=[A-Z])")
# An age said three ways ("aged 2", "2 years old", "a 2-year-old") is one word, and its "old"
# says nothing of the past.
_AGE = re.compile(r"\b(\d+)[\s-]*(?:years?|yrs?)[\s-]*old\b|\baged\s+(?=\d)")

# An e-mail address is mail, not an address: "my previous address" never means "my old
# e-mail address", and "my e-mail", "my email address" and "uses … for mail" are one word.
_EMAIL_ADDRESS = re.compile(r"\be-?mail(?:\s+address(?:es)?)?\b")


_NAMING_NEEDLES = ("name", "called")
"""`_NAMING` is tried only on a text holding one of these (as written)."""
_REWRITE_NEEDLES = ("old", "aged", "mail")
"""`_AGE` and `_EMAIL_ADDRESS` are tried only on a folded text holding one of these."""


@lru_cache(maxsize=65536)
def words(text: str) -> frozenset[str]:
    """Content words (folded, stemmed) and, for text without spaces, its character pairs."""
    # (Each pattern is tried only on a text holding the word it cannot match without.)
    named = any(n in text for n in _NAMING_NEEDLES)
    folded = fold(_NAMING.sub(" ", text) if named else text)
    if "old" in folded or "aged" in folded:
        folded = _AGE.sub(lambda m: f"{m.group(1) or ''} age ", folded)
    if "mail" in folded:
        folded = _EMAIL_ADDRESS.sub("mail", folded)
    out: set[str] = set()
    # Time qualifiers said many ways are one word each: "old", "previous", "used to", "no
    # longer" all say the fact is past; "now", "current", "new" that it is present.
    past = _PAST_WORDS.search(folded) is not None
    present = _PRESENT_WORDS.search(folded) is not None
    if past:
        out.add(PAST)
    if present:
        out.add(PRESENT)
    # ... and only that word: "previous" and "old", "used to" and "former" are one word.
    # So is a negation ("never", "does not", "doesn't"): polarity is compared on its own.
    ascii_only = folded.isascii()
    latin = folded if ascii_only else _CJK.sub(" ", folded)
    if negated(latin):
        out.add(NOT)
        latin = _NEGATION.sub(" ", latin)
    # (A text unchanged so far holds a qualifier to cut only where it was found above.)
    if past or latin is not folded:
        latin = _PAST_WORDS.sub(" ", latin)
    if present or latin is not folded:
        latin = _PRESENT_WORDS.sub(" ", latin)
    for token in _LATIN.findall(latin):
        stem = _stem(token)
        if token not in _STOP and stem not in _STOP and len(stem) > 1:
            out.add(_root(stem))
    # In Japanese the kanji and katakana carry the content; hiragana is mostly particles and
    # inflection, which would make every sentence look alike. (Every run is of characters
    # beyond ASCII.)
    if ascii_only:
        return frozenset(out)
    japanese = _JA_SELF.sub(" ", folded)
    for m in _JA_RUN.finditer(japanese):
        run = m.group()
        if len(run) == 1:
            out.add(_alone(run, japanese[: m.start()], japanese[m.end() :]))
        out.update(run[i : i + 2] for i in range(len(run) - 1))
    return frozenset(out)


def word_count(text: str, words_of_text: frozenset[str]) -> int:
    """How many words the text says: its Latin words, and each run of Japanese or Chinese
    as one (`words` reads such a run as character pairs, several per word)."""
    latin = [w for w in words_of_text if not _CONTENT_CJK.search(w)]
    return len(latin) + len(_CONTENT_CJK.findall(_JA_SELF.sub(" ", fold(text))))


def lowercase_words(texts: Iterable[str]) -> frozenset[str]:
    """Every word the texts write in lower case: a capitalised word among them is a common
    word at the start of a sentence, not a name."""
    tokens: set[str] = set()
    for text in texts:
        tokens.update(_PLAIN_WORD.findall(text))
    return frozenset(_stem(token.casefold()) for token in tokens)


@dataclass(frozen=True)
class Scan:
    """Where a text's clauses start and the capitalised words it writes: found once, for
    both `named_in` and `read` (the pool reads every candidate with both)."""

    starts: frozenset[int]
    capitals: tuple[re.Match[str], ...]


def scan(text: str) -> Scan:
    return Scan(frozenset(m.end() for m in _CLAUSE.finditer(text)), tuple(_CAPITAL.finditer(text)))


def named_words(texts: Iterable[str]) -> frozenset[str]:
    """Every word the texts write as a name somewhere: capitalised inside a clause, or in the
    possessive ("the Apple recruiter", "Dawn's flight")."""
    return named_in(scan(text) for text in texts)


def named_in(scans: Iterable[Scan]) -> frozenset[str]:
    """`named_words` of the texts scanned."""
    out: set[str] = set()
    for scanned in scans:
        for m in scanned.capitals:
            token = m.group(1)
            possessive = token.lower().endswith("'s")
            if possessive or m.start() not in scanned.starts:
                out.add(token.casefold()[:-2] if possessive else token.casefold())
    return frozenset(out)


def capitalised(text: str) -> frozenset[str]:
    """Every word the text writes capitalised, at a clause's start too (possessive folded)."""
    out = set()
    for m in _CAPITAL.finditer(text):
        token = m.group(1).casefold()
        out.add(token[:-2] if token.endswith("'s") else token)
    return frozenset(out)


@dataclass(frozen=True)
class Reading:
    text: str
    words: frozenset[str]
    names: tuple[str, ...]
    """Folded proper nouns, in order of appearance."""
    owner: str | None
    """USER, a folded name, or None."""
    shared_owner: bool = False
    """The first clause's subject is two people ("Alice and Nina share a flat")."""
    negated: bool = False
    """It says not, never, no longer… (or ない/ません): "does not like olives" is the opposite
    fact of "likes olives", never the same one."""
    capitals: frozenset[str] = frozenset()
    """Every capitalised word as written (folded, possessive folded, not stemmed), wherever
    it stands: where names are looked for."""
    earlier: tuple[str, ...] = ()
    """The texts this memory superseded, newest first (`remember(…, supersedes=…)`): a
    memory that replaced another states the same attribute of the same subject."""


_AFTER_OF = re.compile(r"\b(?:of|for)\s+$")
_SHARED = re.compile(r"\s+(?:and|&|with)\s+[A-Z]")
_SUBJECT_NEXT = re.compile(r"\s+[a-z]|(?![にをとへでやか])[\u3040-\u30ff\u3400-\u9fff]")


_RELATIVE = re.compile(rf"\b([^\W\d_][\w-]*?)(?:'s)?\s+({_RELATION})\b", re.IGNORECASE)


def _relative_of(owner: str, text: str) -> str | None:
    """ "Frank's brother": the relative named right after the owner, if any (one pattern for
    every name: compiling one per name costs more than the whole reading)."""
    for m in _RELATIVE.finditer(text):
        if m.group(1).casefold() == owner:
            return m.group(2).casefold()
    return None


# A verb right after a name at a clause's start makes it the clause's subject: "Dawn has a
# GP appointment", "Jack got the code", "Mark lives at" — not "Dawn light wakes the user",
# "Mark the calendar", nor a plural noun that only looks like a verb ("Ginger biscuits are").
_SUBJECT_VERB = re.compile(
    r"\s+(?:(?:still|now|also|just|never|often|always)\s+)?(?:is|was|has|had|does|did|can|will|"
    r"would|could|should|must|might|got|took|gave|went|made|lent|met|left|flew|drove|wrote|"
    r"bought|sold|sent|paid|said|told|found|kept|ran|saw|came|became|began|brought|won|lost|"
    r"spent|felt|held|knew|thought|ate|drank|broke|chose|wore|rode|stole|taught|threw|"
    r"[a-z]{2,}ed|[a-z]+[a-rt-z]s)\b(?!\s+(?:are|were|have)\b)"
)


_COMMAND = re.compile(r"\s+(?:the|a|an|my|your|our|this|that|these|those|down|up|off)\s")
"""A word that starts a sentence right before an article or a particle is a verb in the
imperative ("Mark the invoice 3312 as paid", "Mark down the Q3 budget")."""


def read(
    text: str,
    common: frozenset[str],
    named: frozenset[str] = frozenset(),
    earlier: tuple[str, ...] = (),
    scanned: Scan | None = None,
) -> Reading:
    """`common`: the words the texts around it write in lower case; `named`: those they
    also write as a name (`named_words`), which start a clause as a name when a verb
    follows; `earlier`: what the memory superseded (`Reading.earlier`); `scanned`: the
    text's `scan`, when the caller has it."""
    names: list[str] = []
    scanned = scanned or scan(text)
    starts = scanned.starts
    # Whose fact it is, by how surely the position says so: a possessive ("Sofia's address"),
    # then the subject of a clause before its verb ("Carol is a member of Anytime Fitness" is
    # Carol's), then "of/for NAME" ("Mobile of Hannah"), then a clause's first name.
    owners: dict[int, tuple[str, bool]] = {}
    mine = first_person(text)
    written: list[str] = []
    for m in scanned.capitals:
        token = m.group(1)
        written.append(token)
        possessive = token.lower().endswith("'s")
        # A name keeps its letters: only the possessive is folded (Lucas is not Luca).
        stem = token.casefold()[:-2] if possessive else token.casefold()
        at_start = m.start() in starts
        if stem in _NOT_NAMES or len(stem) < 2:
            continue
        if (
            at_start
            and not possessive
            and _stem(stem) in common
            and not (stem in named and _SUBJECT_VERB.match(text, m.end()))
        ):
            continue
        if at_start and not possessive and _COMMAND.match(text, m.end()):
            # "Mark the calendar …", "Mark down the budget": a command, not a person.
            continue
        if stem not in names:
            names.append(stem)
        if mine or stem in _TIMES:
            continue  # the first person's fact (said below), or a date's word: nobody's
        # A clause's subject is followed by its verb ("Nina reacts"), not by more of a name
        # ("San Francisco").
        # (or, in Japanese or Chinese, by the rest of the sentence: 「Juliaさんは…」, "Julia住在…")
        # — not by a particle that makes it an object: 「Aliceに貸した」 is lent to Alice.)
        if possessive:
            rank = 0
        elif at_start and _FINITE.match(text[m.end() : m.end() + 16]):
            rank = 1
        elif _AFTER_OF.search(text[max(0, m.start() - 5) : m.start()]):
            rank = 2
        elif at_start and _SUBJECT_NEXT.match(text[m.end() : m.end() + 2]):
            rank = 3
        else:
            continue
        # An acronym ("IBAN", "PIN") labels a thing; it is nobody whose fact it is.
        bare = token[:-2] if possessive else token
        if rank in owners or (len(bare) >= 2 and bare.isupper()):
            continue
        owners[rank] = (stem, bool(_SHARED.match(text[m.end() : m.end() + 12])))
    owner, shared = owners[min(owners)] if owners else (None, False)
    for m in () if text.isascii() else _JA_NAME.finditer(text):
        name = m.group(1)
        if name not in names:
            names.append(name)
        if owner is None and m.start() == 0:
            owner = name
            shared = text[m.end() : m.end() + 1] in ("と", "や", "&")
    if mine:
        owner, shared = USER, False
        # Whose fact "my sister's phone number" is: the sister's, when every first-person
        # word is one of a relative's.
        relatives = _USER_RELATIVE.findall(text) + [
            "".join(m.groups("")) for m in _OTHER_RELATIVE.finditer(text)
        ]
        if relatives and not _first_persons(text) > len(relatives):
            owner = f"{USER}:{relatives[0].casefold()}"
    elif (kin := _OTHER_RELATIVE.search(text)) is not None:
        # 「母の電話番号」: the user's mother's, though no word says "my".
        owner, shared = f"{USER}:{''.join(kin.groups('')).casefold()}", False
    elif owner is not None:
        relative = _relative_of(owner, text)
        if relative:
            owner = f"{owner}:{relative}"
    capitals = frozenset(
        t.casefold()[:-2] if t.lower().endswith("'s") else t.casefold() for t in written
    )
    said = words(text)
    return Reading(
        text=text,
        words=said,
        names=tuple(names),
        owner=owner,
        shared_owner=shared,
        negated=_says_not(text, said),
        capitals=capitals,
        earlier=earlier,
    )


def _says_not(text: str, said: frozenset[str]) -> bool:
    """`negated(text)`, taken from the text's `words` where they read it unchanged: an ASCII
    text none of whose rewrites (a name, an age, an e-mail address) applied was read for
    negation as it is, in lower case, as `negated` reads it."""
    if text.isascii() and not any(n in text for n in _NAMING_NEEDLES):
        lower = text.lower()
        if not any(n in lower for n in _REWRITE_NEEDLES):
            return NOT in said
    return negated(text)


def names_something(text: str) -> bool:
    """The text gives a name ("is called Miso", "named Rex", "its name is …")."""
    return _NAMING.search(text) is not None


def verb_like(word: str) -> bool:
    """The word reads as a finite verb after a subject ("works", "met", "lent", "is")."""
    return _SUBJECT_VERB.match(" " + word) is not None


def _first_persons(text: str) -> int:
    """How many first-person words the text says."""
    if text.isascii():
        return len(_FIRST_PERSON_LOWER.findall(text.lower()))
    return len(_FIRST_PERSON.findall(text))


def first_person(text: str) -> bool:
    """The text speaks of the user (I, my, the user, 私…)."""
    if text.isascii():
        return _FIRST_PERSON_LOWER.search(text.lower()) is not None
    return _FIRST_PERSON.search(text) is not None


def idf(readings: Sequence[Reading]) -> dict[str, float]:
    """Inverse document frequency of each word over the candidates: a word every candidate
    shares tells them apart no better than none."""
    n = len(readings)
    df: dict[str, int] = {}
    for r in readings:
        for w in r.words:
            df[w] = df.get(w, 0) + 1
    return {w: math.log((n + 1) / (c + 0.5)) for w, c in df.items()}


def coverage(
    request: frozenset[str],
    memory: frozenset[str],
    weights: dict[str, float],
    unseen: float | None = None,
) -> float:
    """The share of the request's words (weighted by how rare they are among the candidates;
    a word no candidate holds weighs most, `unseen`: the largest weight, when the caller has
    it) that the memory holds."""
    if unseen is None:
        unseen = max(weights.values(), default=1.0)
    total = sum(weights.get(w, unseen) for w in request)
    if total <= 0:
        return 0.0
    return sum(weights.get(w, unseen) for w in request if w in memory) / total


_TWO_LATIN = re.compile(r"[A-Za-z]{2}")


def sayable(words: Iterable[str], text: str) -> frozenset[str]:
    """The words a text could say in its own script: an English memory cannot say the
    request's 認証 (a kanji pair), a Japanese one cannot say "verification". Markers (@past…)
    belong to every script."""
    if text.isascii():  # (no character of Japanese, Chinese or Korean)
        has_cjk, has_latin = False, _TWO_LATIN.search(text) is not None
    else:
        has_cjk = bool(_CONTENT_CJK.search(text))
        has_latin = bool(_TWO_LATIN.search(_CJK.sub(" ", text)))
    out = set()
    for w in words:
        cjk = not w.isascii() and _CONTENT_CJK.search(w) is not None
        if w.startswith("@") or (cjk and has_cjk) or (not cjk and has_latin):
            out.add(w)
    return frozenset(out)


def holds_names(reading: Reading, names: Iterable[str]) -> bool:
    """Every name is a capitalised word of the memory (possessive folded): "Frank" is not
    "a frank discussion", "Lucas" never holds "Luca"; a name in a script without spaces is
    found inside the text (folded once, when one is looked for there)."""
    text = None
    for n in names:
        if n in reading.names or n in reading.capitals:
            continue
        if n.isascii():
            return False
        if text is None:
            text = fold(reading.text)
        if n not in text:
            return False
    return True
