"""Which attribute of a person a sentence states, whatever words it uses: "moved to an
AI-safety lab" and "works at Stripe" both state an employer, "went vegan" and "eats bacon
almost every day" both a diet.

A correction that shares no word with what it replaces (issue 24: "the attribute, not the
wording, decides") is found through these readings. Each attribute is a handful of
constructions — a verb with its preposition, a noun with its copula — that state it in
general, never a list of the values seen in one data set; where a construction says
something else as often ("works at the weekend", "lives in fear", "rented a Fiat on
holiday", "joined a book club", "a free trial pass"), the construction leaves it out.

"moved to X" is read by what X is: an organisation noun (a lab, a startup, the city
hospital) says an employer, a dwelling or a settlement (a flat, a village) a home; a bare
name ("moved to Porto", "moved to Stripe") could be either, and is read as both, so a
correction built on it is never certain.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lethe.forget import evidence

EMPLOYER = "employer"
RESIDENCE = "residence"
CAR = "car"
DIET = "diet"
RELATIONSHIP = "relationship"
GYM = "gym"
COMMUTE = "commute"
STUDY = "study"
PHONE = "phone"

_ORG_NOUN = (
    r"(?:lab|labs|laboratory|startup|start-up|company|firm|hospital|clinic|studio|agency|bank|"
    r"university|college|institute|broadcaster|railway|ministry|council|charity|nonprofit|"
    r"non-profit|ngo|consultancy|corporation|business|newspaper|magazine|publisher|airline|"
    r"factory|organisation|organization|foundation|museum|newsroom|practice|school|"
    r"research\s+group|think\s+tank|scale-up|scaleup|enterprise|retailer|insurer|"
    r"bakery|restaurant|hotel|department|government|authority|regulator|fund)"
)
_DWELLING = (
    r"(?:flat|apartment|house|home|condo|village|town|city|suburb|countryside|coast|island|"
    r"neighbou?rhood|cottage|farm|country|seaside|place)"
)
_NP_TAIL = r"[^.;!?]*?"
"""The rest of a noun phrase, up to the clause's end."""
_CAP_OBJECT = r"[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*)*"
_NOT_A_TIME = r"(?!(?:the\s+)?(?:weekend|weekends|night|nights|home|the\s+moment)\b)"
_GYMISH = r"(?:gym|fit|fitness|crossfit|yoga|pilates|boulder|climbing|leisure\s+cent|health\s+club)"
_ANIMAL_FOOD = (
    r"(?:steaks?|beef|pork|bacon|ham|burgers?|hamburgers?|chicken|lamb|sausages?|salami|meat|"
    r"meats|veal|turkey|duck|fish|salmon|tuna|shrimps?|prawns?|seafood|cheese|milk|eggs?|"
    r"butter|yogh?urt|dairy|honey|ribs|brisket|kebabs?|pepperoni|chorizo)"
)
_CAR_BRAND = (
    r"(?:Toyota|VW|Volkswagen|Mazda|Tesla|Skoda|Škoda|Fiat|BMW|Audi|Mercedes(?:-Benz)?|Ford|"
    r"Honda|Nissan|Hyundai|Kia|Volvo|Renault|Peugeot|Citro[eë]n|Opel|Vauxhall|Seat|Cupra|"
    r"Subaru|Porsche|Jeep|Mini|Lexus|Chevrolet|Chevy|Dacia|Suzuki|Mitsubishi|Land\s+Rover|"
    r"Range\s+Rover|Jaguar|Polestar|BYD|Alfa\s+Romeo|Lancia|Saab|Dodge|Cadillac|Buick|"
    r"Chrysler|Infiniti|Acura|Lamborghini|Ferrari|Maserati|Bentley|Rivian|Lucid|MG|Smart)"
)
_DETERMINER = r"(?:a|an|the|his|her|my|their|our|your)"

_FRAMES: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = tuple(
    (frozenset(attrs.split()), re.compile(pattern))
    for attrs, pattern in (
        # -- where someone works
        (EMPLOYER, rf"(?i)\b(?:work|works|worked|working)\s+(?:at|for)\s+{_NOT_A_TIME}"),
        (EMPLOYER, r"(?i)\b(?:job|position|role|post|internship)\s+(?:at|with)\b"),
        (
            EMPLOYER,
            rf"(?i)\b(?:started|starts|starting|began|begins)\s+(?:work(?:ing)?\s+|a\s+job\s+)?"
            rf"(?:at|with|for)\s+(?![^.;!?]*{_GYMISH})(?=[A-Z]|{_DETERMINER}\s+{_NP_TAIL}\b{_ORG_NOUN}\b)",
        ),
        (EMPLOYER, r"(?i)\bemployer\b|\bemployed\s+(?:at|by)\b|\bhired\s+(?:by|at)\b"),
        (EMPLOYER, r"(?i)\b(?:offer|contract)\s+(?:from|with)\b"),
        (
            EMPLOYER,
            rf"(?i)\b(?:join|joins|joined|joining|moved|moves|switched|went|gone)\s+(?:over\s+)?"
            rf"to\s+{_DETERMINER}\s+{_NP_TAIL}\b{_ORG_NOUN}\b",
        ),
        (
            EMPLOYER,
            rf"(?i)\b(?:join|joins|joined|joining)\s+{_DETERMINER}\s+{_NP_TAIL}\b{_ORG_NOUN}\b",
        ),
        (
            EMPLOYER,
            # "joined Stripe", "joined Bosch in 2019": a name joined, not a person met for
            # lunch ("joined Maria for lunch") nor a club.
            rf"\b(?:join|joins|joined|joining)\s+(?!{_CAP_OBJECT}\s+(?:for|at|on|in\s+[a-z])\b)"
            rf"(?![^.;!?]*\b(?:[Cc]lub|[Tt]eam|[Bb]and|[Cc]hoir|[Ss]ociety|[Ll]eague)\b)"
            rf"{_CAP_OBJECT}\s*(?:$|[.,;!?]|\s+(?:as|in\s+\d{{4}}|last|this|after|from)\b)",
        ),
        (
            EMPLOYER,
            r"(?i)\b(?:quit|left|leaves|leaving|resigned\s+from)\s+(?:his|her|my|their)\s+job\b",
        ),
        (
            EMPLOYER,
            r"(?i)\b(?:retired|retires|got\s+laid\s+off|was\s+laid\s+off|is\s+unemployed)\b",
        ),
        # -- where someone lives
        (
            RESIDENCE,
            r"(?i)\b(?:live|lives|lived|living|reside|resides|resided|residing)\s+(?:in|at)\s+"
            r"(?!fear\b|hope\b|denial\b|the\s+(?:moment|past|present|shadow)\b)",
        ),
        (
            RESIDENCE,
            r"(?i)\bhome\s+is\s+(?:in|at)\b|(?<!mail\s)(?<!mail-)\baddress(?:\s+(?:is|of)\b|\s*:)|\bresident\s+of\b",
        ),
        (
            RESIDENCE,
            rf"(?i)\b(?:rent|rents|rented|renting|own|owns|bought|buys|leases?)\s+{_DETERMINER}\s+"
            r"(?:\w+\s+)?(?:flat|apartment|house|condo|room|place|home|cottage)\s+(?:in|at|on)\b",
        ),
        (
            RESIDENCE,
            r"(?i)\b(?:new\s+)?(?:place|flat|apartment|house|home)\s+is\s+(?:in|at|on)\b",
        ),
        (
            RESIDENCE,
            r"(?i)\b(?:relocated|relocates|relocating|relocate|emigrated|settled)\s+(?:to|in)\b",
        ),
        (RESIDENCE, r"(?i)\b(?:moved|moves|moving)\s+(?:house|home|out|back\s+home)\b"),
        (RESIDENCE, r"(?i)\bpacked\s+up\s+and\s+moved\b"),
        (RESIDENCE, r"(?i)\b(?:moved|moves|moving)\s+(?:back\s+)?(?:in)?to\s+\d"),
        (
            RESIDENCE,
            rf"(?i)\b(?:moved|moves|moving)\s+(?:back\s+)?to\s+{_DETERMINER}\s+{_NP_TAIL}\b{_DWELLING}\b",
        ),
        (
            f"{RESIDENCE} {EMPLOYER}",
            rf"\b(?:moved|moves|moving)\s+(?:back\s+)?to\s+{_CAP_OBJECT}\s*(?:$|[.,;!?]|\s+(?:in|last|this|after)\b)",
        ),
        # -- how someone is reached by phone
        (
            PHONE,
            r"(?i)\b(?:phone|mobile|cell|telephone)(?:\s+number)?(?:\s+(?:is|was|of)\b|\s*:)|"
            r"\breached\s+(?:on|at)\b|\bchanged\s+(?:(?:his|her|my|their|the)\s+)?"
            r"(?:phone\s+|mobile\s+)?number\b|\bnew\s+(?:phone\s+|mobile\s+)?number\b|"
            r"\bcall\s+(?:me|him|her|them)\s+on\b",
        ),
        # -- the car someone has
        (
            CAR,
            rf"(?i)(?<![\w-])(?:drive|drives|drove|driving)\s+{_DETERMINER}\s+(?!hard\b|bargain\b)[a-z]",
        ),
        (
            CAR,
            r"(?i)\bcar\s+is\b|\b(?:owns|has|have|bought|sold|got)\s+(?:a|an|the|his|her|my|their)\s+(?:new\s+)?car\b",
        ),
        (
            CAR,
            r"\b(?:bought|buys|got|leased|leases|purchased|traded\s+(?:up|in|down)\s+(?:to|for)|"
            r"switched\s+to|upgraded\s+to|swapped\s+\w+\s+\w+\s+for)\s+(?:a|an|the|his|her|my|their)?\s*"
            rf"(?:new\s+|used\s+|second-hand\s+)?(?:[a-z]+\s+)?{_CAR_BRAND}\b",
        ),
        (CAR, r"(?i)\btraded\s+(?:up|in|down)\b"),
        # -- what someone eats
        (
            DIET,
            r"(?i)\b(?:is|am|are|went|gone|going|turned|became|become|been|now|strictly|fully)\s+"
            r"(?:fully\s+|strictly\s+|completely\s+)?(?:vegan|vegetarian|pescatarian|pescetarian|"
            r"keto|paleo|carnivore|gluten-free|dairy-free|teetotal)\b",
        ),
        (DIET, r"(?i)\bplant-based\s+diet\b|\bdiet\s+is\b|\bon\s+a\s+\w+\s+diet\b"),
        (
            DIET,
            rf"(?i)\b(?:cut|cuts|cutting)\s+out\s+(?:all\s+)?(?:{_ANIMAL_FOOD}|animal\s+products|"
            r"gluten|sugar|carbs|alcohol)\b",
        ),
        (
            DIET,
            r"(?i)\b(?:stopped|stops|quit|gave\s+up)\s+(?:eating\s+|drinking\s+)?"
            rf"(?:{_ANIMAL_FOOD}|animal\s+products|alcohol)\b",
        ),
        (
            DIET,
            r"(?i)\b(?:eat|eats|ate|eating|love|loves|loved|adore|adores|enjoy|enjoys)\s+"
            rf"(?:\w+\s+)?{_ANIMAL_FOOD}\b",
        ),
        # -- whom someone is with
        (
            RELATIONSHIP,
            r"(?i)\b(?:is|am|are|was|were|still|now)\s+(?:happily\s+)?(?:single|married|divorced|"
            r"widowed|engaged|separated|dating|seeing\s+someone|in\s+a\s+relationship)\b",
        ),
        (
            RELATIONSHIP,
            r"(?i)\b(?:got|gets|getting)\s+(?:married|engaged|divorced)\b|\bbroke\s+up\b|"
            r"\bsplit\s+up\b|\bis\s+seeing\b|\bstarted\s+dating\b|\bmarried\s+to\b",
        ),
        (RELATIONSHIP, r"(?i)\b(?:has|have)\s+an?\s+(?:new\s+)?(?:boyfriend|girlfriend|partner)\b"),
        # -- where someone trains
        (
            GYM,
            rf"(?i)\b(?:train|trains|trained|training|exercise|exercises|exercised|work\s+out|"
            rf"works\s+out|worked\s+out|lifts)\s+at\s+{_NOT_A_TIME}",
        ),
        (
            GYM,
            r"(?i)\b(?:member|membership)\s+(?:of|at|with)\s+[^.;!?]*?"
            rf"{_GYMISH}",
        ),
        (
            GYM,
            r"(?i)\b(?:signed\s+up|signs\s+up|enrolled|joined|joins)\s+(?:at|with|for)?\s*[^.;!?]*?"
            rf"{_GYMISH}",
        ),
        (GYM, r"(?i)\bgym\s+is\b|\bgoes\s+to\s+(?:the\s+)?gym\b"),
        # -- how someone gets to work
        (COMMUTE, r"(?i)\bcommut(?:e|es|ed|ing)\s+(?:by|on|via)\b|\bcommute\s+is\b"),
        (
            COMMUTE,
            r"(?i)\b(?:drive|drives|drove|driving|cycle|cycles|cycled|cycling|bike|bikes|biked|"
            r"walk|walks|walked|walking|ride|rides|rode|run|runs|ran|scooters?)\s+to\s+"
            r"(?:work|the\s+office|(?:his|her|my|their)\s+(?:job|office))\b",
        ),
        (
            COMMUTE,
            r"(?i)\b(?:takes?|took|taking)\s+the\s+(?:train|bus|tram|metro|subway|tube|ferry|"
            r"underground)\s+to\s+(?:work|the\s+office)\b|\bgets?\s+to\s+(?:work|the\s+office)\s+by\b",
        ),
        # -- where someone studies
        (
            STUDY,
            r"(?i)\b(?:stud(?:y|ies|ied|ying)|enrolled|student)\s+(?:\w+\s+)?(?:at|in)\s+"
            r"(?=[A-Z]|the\s+university|a\s+university|university)",
        ),
    )
)
"""Per attribute, the constructions that state it (a pattern may state two: "moved to
Porto" is a home or an employer)."""

_BOTH = frozenset((RESIDENCE, EMPLOYER))


@lru_cache(maxsize=65536)
def stated(text: str) -> frozenset[str]:
    """The attributes the text states through a construction."""
    return _read(text)[0]


def uncertain(text: str) -> bool:
    """The text's home or employer comes only from a reading that could be either ("moved to
    Porto"): no construction settles which."""
    return _read(text)[1]


def stated_ever(text: str) -> frozenset[str]:
    """The attributes the text states, in the present or the past ("used to live at",
    "worked at"): what a request for an old value may mean."""
    return _read(text)[2]


@lru_cache(maxsize=65536)
def _read(text: str) -> tuple[frozenset[str], bool, frozenset[str]]:
    settled: set[str] = set()
    past: set[str] = set()
    ambiguous = False
    for attrs, pattern in _FRAMES:
        held = [m for m in pattern.finditer(text) if not _negated(text, m)]
        if not held:
            continue
        if len(attrs) > 1:
            ambiguous = True
        elif all(_past(text, m) for m in held):
            past |= attrs
        else:
            settled |= attrs
    ever = frozenset(settled | past)
    if ambiguous and not settled & _BOTH:
        return frozenset(settled | _BOTH), True, ever | _BOTH
    return frozenset(settled), False, ever


_NEGATION = re.compile(
    r"(?i)\b(?:not|never|no\s+longer|no|nor|neither|cannot|\w+n't|dislikes?|hates?)\b"
)
_CLAUSE_END = re.compile(r"[.,;:!?]|\bbut\b")


_PAST = re.compile(
    r"(?i)\b(?:used\s+to|lived|resided|worked|drove|trained|exercised|commuted|studied|"
    r"was|were|had|former|formerly|previously|until)\b"
)


def _past(text: str, match: re.Match[str]) -> bool:
    """The construction says what held before ("used to live at", "worked at", "was
    single"), not what holds now."""
    before = _CLAUSE_END.split(text[: match.start()])[-1]
    return bool(_PAST.search(before) or _PAST.search(match.group(0)))


def _negated(text: str, match: re.Match[str]) -> bool:
    """The construction is said not to hold: a negation in it, or before it in its clause
    ("does not work at", "never lived in") — not one in a clause of its own ("is single and
    not looking")."""
    before = _CLAUSE_END.split(text[: match.start()])[-1]
    return bool(_NEGATION.search(before) or _NEGATION.search(match.group(0)))


_NOUNS = {
    EMPLOYER: "job employer workplace",
    RESIDENCE: "address home flat apartment",
    CAR: "car vehicle",
    PHONE: "phone mobile telephone cellphone",
    DIET: "diet",
    RELATIONSHIP: "relationship boyfriend girlfriend",
    GYM: "gym",
    COMMUTE: "commute",
    STUDY: "studies degree",
}
"""The nouns that name each attribute in a request ("my old car", "my 2018 address")."""


@lru_cache(maxsize=1)
def _by_noun() -> dict[str, str]:
    return {w: attr for attr, nouns in _NOUNS.items() for w in evidence.words(nouns)}


def named(words: frozenset[str]) -> frozenset[str]:
    """The attributes a request's words name by their noun."""
    by_noun = _by_noun()
    return frozenset(by_noun[w] for w in words if w in by_noun)
