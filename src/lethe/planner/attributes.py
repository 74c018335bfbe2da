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

from lethe.planner import evidence

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
    r"non-profit|ngo|consultancy|corporation|newspaper|magazine|publisher|airline|factory|"
    r"organisation|organization|foundation|museum|newsroom|law\s+practice|research\s+group|"
    r"think\s+tank|scale-up|scaleup|retailer|insurer|bakery|authority|regulator)"
)
_DWELLING = (
    r"(?:flat|apartment|house|condo|village|town|city|suburb|countryside|coast|island|"
    r"neighbou?rhood|cottage|farm|seaside|bungalow|studio\s+flat)"
)
_WORDS = r"(?:(?!(?:at|with|for|in|on|to|of|from|that|who|which|and)\b)[\w&'-]+\s+){0,3}"
"""At most three words of a noun phrase before its head, none a preposition or a clause."""
_DET = r"(?:a|an|the|his|her|my|their|our|your)"
_CAP_OBJECT = r"[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*)*"
_ORG = rf"(?:{_CAP_OBJECT}|{_DET}\s+{_WORDS}{_ORG_NOUN}\b)"
"""What someone works at: a name, or a phrase headed by an organisation noun."""
_PLACE = rf"(?:{_CAP_OBJECT}|{_DET}\s+{_WORDS}{_DWELLING}\b|\d+\s+[A-Z])"
"""Where someone lives: a name, a phrase headed by a dwelling or a settlement, an address."""
_GYMISH = (
    r"(?:gym\b|\bfit|fitness\b|crossfit\b|\byoga\b|pilates\b|boulder|climbing\s+(?:gym|wall)|"
    r"leisure\s+cent(?:re|er)|health\s+club)"
)
_GYM = rf"(?:{_DET}\s+)?{_WORDS}[\w-]*{_GYMISH}"
_ANIMAL_FOOD = (
    r"(?:steaks?|beef|pork|bacon|ham|burgers?|hamburgers?|chicken|lamb|sausages?|salami|meat|"
    r"meats|veal|fish|salmon|tuna|shrimps?|prawns?|seafood|cheese|milk|eggs?|butter|"
    r"yogh?urt|dairy|ribs|brisket|kebabs?|pepperoni|chorizo)"
)
_CAR_BRAND = (
    r"(?:Toyota|VW|Volkswagen|Mazda|Tesla|Skoda|Škoda|Fiat|BMW|Audi|Mercedes(?:-Benz)?|Ford|"
    r"Honda|Nissan|Hyundai|Kia|Volvo|Renault|Peugeot|Citro[eë]n|Opel|Vauxhall|Seat|Cupra|"
    r"Subaru|Porsche|Jeep|Lexus|Chevrolet|Chevy|Dacia|Suzuki|Mitsubishi|Land\s+Rover|"
    r"Range\s+Rover|Jaguar|Polestar|BYD|Alfa\s+Romeo|Lancia|Saab|Dodge|Cadillac|Buick|"
    r"Chrysler|Infiniti|Acura|Lamborghini|Ferrari|Maserati|Bentley|Rivian|Lucid)"
)
_VEHICLE = (
    r"(?:car|van|truck|pickup|pick-up|SUV|suv|motorbike|motorcycle|hatchback|estate|saloon|"
    r"camper|campervan|convertible|minivan)"
)
_COLOUR = (
    r"(?:(?:new|used|second-hand|old|electric|hybrid|black|white|red|blue|grey|gray|green|"
    r"silver|yellow|orange|brown|dark|light)\s+)*"
)
_CAR = rf"(?:{_DET}\s+)?{_COLOUR}(?:{_CAR_BRAND}\b|{_VEHICLE}\b(?!'))"
"""A car someone has: a brand, or a vehicle noun, after colours and new/used."""
_STATED_CAR = rf"(?-i:{_CAR})"

_FRAMES: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = tuple(
    (frozenset(attrs.split()), re.compile(pattern))
    for attrs, pattern in (
        # -- where someone works
        (EMPLOYER, rf"\b(?:[Ww]ork|[Ww]orks|[Ww]orked|[Ww]orking)\s+(?:at|for)\s+{_ORG}"),
        (EMPLOYER, r"(?i)\b(?:job|position|role|post|internship)\s+(?:at|with)\b"),
        (EMPLOYER, r"(?i)\bjob\s+offer\s+from\b"),
        (EMPLOYER, r"(?i)\bemployer\s+(?:is|was)\b|\bemployed\s+(?:at|by)\b|\bhired\s+(?:by|at)\b"),
        (
            EMPLOYER,
            r"\b(?:(?:started|starts|starting|began|begins)\s+(?:working|work|a\s+(?:new\s+)?"
            r"(?:job|role|position))\s+(?:at|with|for)|(?:just|recently)\s+started\s+at)\s+"
            rf"{_ORG}",
        ),
        (
            EMPLOYER,
            # "started at Google in 2020": a start at a named organisation is a job; at a
            # school ("started at Stanford University") it is not.
            r"\b(?:started|starts|starting|began|begins)\s+(?:out\s+)?at\s+"
            rf"(?![^.,;]*\b(?:University|College|School|Academy)\b){_CAP_OBJECT}",
        ),
        (
            EMPLOYER,
            # "is at Snowflake as of 2025": a lasting stay at a named organisation.
            rf"\b(?:is|are|am)\s+(?:now\s+)?at\s+{_CAP_OBJECT}\s+(?:as\s+of|since)\s+"
            r"(?:(?:19|20)\d\d|last|this)\b",
        ),
        (
            EMPLOYER,
            # "is a senior engineer at Figma", "was a nurse at the city hospital": a role
            # at an organisation, not a membership, a course or a visit.
            r"\b(?:is|was|works\s+as|worked\s+as)\s+(?:a|an)\s+(?:[a-z-]+\s+){0,3}?[a-z-]+"
            r"(?<!member)(?<!student)(?<!volunteer)(?<!regular)(?<!guest)(?<!patient)"
            r"(?<!customer)(?<!visitor)(?<!fan)(?<!coach)(?<!intern)\s+(?:at|for)\s+"
            rf"{_ORG}",
        ),
        (
            EMPLOYER,
            rf"\b(?:[Jj]oin|[Jj]oins|[Jj]oined|[Jj]oining|[Mm]oved|[Mm]oves|[Ss]witched)\s+"
            rf"(?:over\s+)?to\s+{_DET}\s+{_WORDS}{_ORG_NOUN}\b",
        ),
        (
            EMPLOYER,
            rf"\b(?:[Jj]oin|[Jj]oins|[Jj]oined|[Jj]oining)\s+{_DET}\s+{_WORDS}{_ORG_NOUN}\b",
        ),
        (
            EMPLOYER,
            # "joined Stripe", "joined Bosch in 2019": a name joined, not a person met
            # ("joined Maria for lunch", "joined Anna after the meeting") nor a club.
            r"\b(?:join|joins|joined|joining)\s+"
            rf"(?![^.;!?]*\b(?:[Cc]lub|[Tt]eam|[Bb]and|[Cc]hoir|[Ss]ociety|[Ll]eague)\b)"
            rf"{_CAP_OBJECT}\s*(?:$|[.;!?]|\s+(?:as\s+an?|in\s+(?:[A-Z][a-z]+\s+)?\d{{4}}"
            r"(?:\s+as)?)\b)",
        ),
        (
            EMPLOYER,
            r"(?i)\b(?:quit|left|leaves|leaving|resigned\s+from)\s+(?:his|her|my|their)\s+job\b",
        ),
        (EMPLOYER, r"(?i)\b(?:retired|got\s+laid\s+off|was\s+laid\s+off|is\s+unemployed)\b"),
        # -- where someone lives
        (
            RESIDENCE,
            rf"\b(?:[Ll]ive|[Ll]ives|[Ll]ived|[Ll]iving|[Rr]eside|[Rr]esides|[Rr]esided|"
            rf"[Rr]esiding)\s+(?:in|at)\s+{_PLACE}",
        ),
        (RESIDENCE, rf"(?i)\bhome\s+is\s+(?:in|at)\s+(?-i:{_PLACE})|\bresident\s+of\b"),
        (
            RESIDENCE,
            r"(?i)(?<!work\s)(?<!office\s)(?<!billing\s)(?<!mail\s)(?<!mail-)(?<!shipping\s)"
            r"\baddress(?:\s+(?:is|of)\b|\s*:)",
        ),
        (
            RESIDENCE,
            rf"(?i)\b(?:rent|rents|rented|renting|leases?|leased)\s+{_DET}\s+"
            r"(?:\w+\s+)?(?:flat|apartment|house|condo|room|place|home|cottage)\s+(?:in|at|on)\b",
        ),
        (
            RESIDENCE,
            r"(?i)\b(?:new\s+)?(?:place|flat|apartment|house|home)\s+is\s+(?:in|at|on)\s+"
            rf"(?-i:{_PLACE})",
        ),
        (
            RESIDENCE,
            rf"\b(?:[Rr]elocated|[Rr]elocates|[Rr]elocating|[Ee]migrated|[Ss]ettled)\s+(?:to|in)\s+"
            rf"(?:{_CAP_OBJECT}|{_DET}\s+{_WORDS}{_DWELLING}\b)",
        ),
        (RESIDENCE, r"(?i)\b(?:moved|moves|moving)\s+(?:house|home|back\s+home)\b"),
        (RESIDENCE, r"(?i)\bpacked\s+up\s+and\s+moved\b"),
        (RESIDENCE, r"\b(?:[Mm]oved|[Mm]oves|[Mm]oving)\s+(?:back\s+)?(?:in)?to\s+\d+\s+[A-Z]"),
        (
            RESIDENCE,
            rf"\b(?:[Mm]oved|[Mm]oves|[Mm]oving)\s+(?:back\s+)?to\s+{_DET}\s+{_WORDS}{_DWELLING}\b",
        ),
        (
            f"{RESIDENCE} {EMPLOYER}",
            rf"\b(?:moved|moves|moving)\s+(?:back\s+)?to\s+{_CAP_OBJECT}\s*"
            r"(?:$|[.,;!?]|\s+(?:in|last|this|after)\b)",
        ),
        # -- the car someone has
        (CAR, rf"(?<![\w-])(?:[Dd]rive|[Dd]rives|[Dd]rove|[Dd]riving)\s+{_STATED_CAR}"),
        (CAR, rf"(?i)\bcar\s+is\s+(?-i:{_CAR})"),
        (
            CAR,
            r"\b(?:[Oo]wns|[Hh]as|[Hh]ave|[Bb]ought|[Ss]old|[Gg]ot|[Ll]eased|[Ll]eases|"
            r"[Pp]urchased|[Uu]pgraded\s+to|[Ss]witched\s+to|traded\s+(?:up|in|down)\s+(?:to|for))"
            rf"\s+{_STATED_CAR}",
        ),
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
            r"\b(?:eat|eats|ate|eating|love|loves|loved|adore|adores|enjoy|enjoys)\s+"
            rf"(?:[a-z]+\s+)?{_ANIMAL_FOOD}\b(?!\s+(?:radio|in|tank|bowl))",
        ),
        # -- whom someone is with
        (
            RELATIONSHIP,
            r"(?i)\b(?:is|am|are|was|were|still|now)\s+(?:happily\s+)?(?:single\b(?!-)|married|"
            r"divorced|widowed|engaged\b(?!\s+in)|separated|dating|seeing\s+someone|"
            r"in\s+a\s+relationship)",
        ),
        (
            RELATIONSHIP,
            r"(?i)\b(?:got|gets|getting)\s+(?:married|engaged|divorced)\b|\bbroke\s+up\s+with\b|"
            r"\bsplit\s+up\b|\bis\s+seeing\s+(?-i:[A-Z])|\bstarted\s+dating\b|\bmarried\s+to\b",
        ),
        (
            RELATIONSHIP,
            r"(?i)\b(?:has|have)\s+an?\s+(?:new\s+)?(?:boyfriend|girlfriend|partner\b(?!\s+for))",
        ),
        # -- where someone trains
        (
            GYM,
            r"(?i)\b(?:train|trains|trained|training|exercise|exercises|exercised|work\s+out|"
            rf"works\s+out|worked\s+out|lifts)\s+at\s+(?:(?-i:{_CAP_OBJECT})|{_GYM})",
        ),
        (GYM, rf"(?i)\b(?:member|membership)\s+(?:of|at|with)\s+{_GYM}"),
        (
            GYM,
            r"(?i)\b(?:signed\s+up|signs\s+up|enrolled|joined|joins)\s+(?:at|with|for)?\s*"
            rf"{_GYM}",
        ),
        (GYM, r"(?i)\bgym\s+is\b|\bgoes\s+to\s+(?:the\s+)?gym\b"),
        # -- how someone gets to work
        (COMMUTE, r"(?i)\bcommut(?:e|es|ed|ing)\s+(?:by|on|via)\b|\bcommute\s+is\b"),
        (
            COMMUTE,
            r"(?i)\b(?:drive|drives|drove|driving|cycle|cycles|cycled|cycling|bike|bikes|biked|"
            r"walk|walks|walked|walking|ride|rides|rode|scooters?)\s+to\s+"
            r"(?:work|the\s+office|(?:his|her|my|their)\s+(?:job|office))"
            r"(?=\s*(?:$|[.,;!?]|\s+(?:every|each|on|by|these|now|most|daily|in)\b))",
        ),
        (
            COMMUTE,
            r"(?i)\b(?:takes?|took|taking)\s+the\s+(?:train|bus|tram|metro|subway|tube|ferry|"
            r"underground)\s+to\s+(?:work|the\s+office)\b|\bgets?\s+to\s+(?:work|the\s+office)"
            r"\s+by\b",
        ),
        # -- where someone studies
        (
            STUDY,
            r"\b(?:[Ss]tud(?:y|ies|ied|ying)\s+[a-z]+(?:\s+[a-z]+)?\s+at\s+[A-Z]|"
            r"(?:[Ss]tudent|[Ee]nrolled)\s+(?:at|in)\s+(?:the\s+)?(?:[Uu]niversity|[A-Z]))",
        ),
        # -- how someone is reached by phone
        (
            PHONE,
            r"(?i)\b(?:phone|mobile|cell|telephone)(?:\s+number)?(?:\s+(?:is|was|of\s+[^:.]{1,30}:)\s*:?|"
            r"\s*:)\s*[+\d(]|^\s*\+\d[\d\s().-]{6,}\s+(?:was|is)\s+(?:\S+\s+){1,3}(?:phone\s+|mobile\s+)?"
            r"number\b|\breached\s+(?:on|at)\s+[+\d(]|\bchanged\s+(?:(?:his|her|my|their|"
            r"the)\s+)?(?:phone\s+|mobile\s+)?number\b|\bnew\s+(?:phone\s+|mobile\s+)?number"
            r"(?:\s+is|\s*:)\s*[+\d(]|\bcall\s+(?:me|him|her|them)\s+on\s+[+\d(]",
        ),
    )
)
"""Per attribute, the constructions that state it (a pattern may state two: "moved to
Porto" is a home or an employer). Each names what its object must be — a name or an
organisation for an employer, a place or a dwelling for a home, a brand or a vehicle for a
car — so the same verb in another sense ("works at a slower pace", "lives in the gym",
"drives the kids to school", "joined his friends at a restaurant") states nothing."""

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
    if _QUESTION.search(text):
        return frozenset(), False, frozenset()
    settled: set[str] = set()
    past: set[str] = set()
    ambiguous = False
    for attrs, pattern in _FRAMES:
        held = [m for m in pattern.finditer(text) if _holds(text, m)]
        if not held:
            continue
        if len(attrs) > 1:
            ambiguous = True
        elif all(_past(text, m) for m in held):
            past |= attrs
        else:
            settled |= attrs
    for attrs, pattern in () if text.isascii() else _CJK_FRAMES:
        held = [m for m in pattern.finditer(text) if not _cjk_negated(text, m)]
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


_CLAUSE_END = re.compile(r"[.,;:!?]|\bbut\b")


_CJK_FRAMES: tuple[tuple[frozenset[str], re.Pattern[str]], ...] = tuple(
    (frozenset(attrs.split()), re.compile(pattern))
    for attrs, pattern in (
        # Chinese: joining, working at, moving jobs to, taking up a post at an organisation.
        (EMPLOYER, r"加入|入职|跳槽(?:到|至)|就职于|任职于|在[^，。,.]{1,12}(?:工作|上班|任职)"),
        # Japanese: working at, joining, changing jobs to, being employed at.
        (EMPLOYER, r"で働|に入社|(?:に|へ)転職|に勤め|に勤務"),
        (RESIDENCE, r"住在|(?:搬到|搬去|搬进|搬至)|居住在|定居"),
        (RESIDENCE, r"に住|(?:に|へ)引っ?越|に在住"),
    )
)
"""Constructions of Japanese and Chinese text that state an employer or a home, read without
English grammar: the clause's person comes first, so only a negation before them in the
clause (不, 没, ない) undoes them. Each starts with a character beyond ASCII."""
_CJK_CLAUSE = re.compile(r"[。，、,.;；!?！？]")
_CJK_NOT = re.compile(r"不|没|ない|ません")


def _cjk_negated(text: str, match: re.Match[str]) -> bool:
    before = _CJK_CLAUSE.split(text[: match.start()])[-1]
    after = _CJK_CLAUSE.split(text[match.end() :])[0][:4]
    return bool(_CJK_NOT.search(before[-3:]) or _CJK_NOT.search(after))


_PAST = re.compile(
    r"(?i)\b(?:used\s+to|lived|resided|worked|drove|trained|exercised|commuted|studied|"
    r"was|were|had|former|formerly|previously|until)\b"
)


def _past(text: str, match: re.Match[str]) -> bool:
    """The construction says what held before ("used to live at", "worked at", "was
    single", "in 2010 Omar moved to…", "joined Google and left in 2019"), not what holds
    now."""
    before = _CLAUSE_END.split(text[: match.start()])[-1]
    after = _CLAUSE_END.split(text[match.end() :])[0]
    return bool(
        _PAST.search(before)
        or _EARLIER.search(before)
        or _PAST.search(match.group(0))
        or _YEAR.search(before)
        or _ENDED.search(after)
    )


_EARLIER = re.compile(r"(?i)\b(?:old|previous|ex)\b")
"""Before the construction only: "my previous address:"; "drives an old pickup" is now."""
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_ENDED = re.compile(r"(?i)\b(?:left|until|before|ended|quit)\b")
_QUESTION = re.compile(
    r"\?\s*$|^\s*(?i:does|do|did|is|are|was|were|has|have|will|can|could|would|should)\b"
)
_IRREALIS = re.compile(
    r"(?i)\b(?:wants?|wanted|would|might|may|could|should|hopes?|hoped|plans?|planned|"
    r"planning|thinking|considering|considers?|applied|applies|apply|turned\s+down|"
    r"declined|failed|if|whether|will|going\s+to|dreams?|wish(?:es)?|maybe|perhaps|"
    r"offered|asked)\b"
)
"""A construction under these is a wish, a plan or a condition, not a fact."""
_ELSEWHERE = re.compile(
    r"(?i)\b(?:who|which|that|whose|where|said|says|told|tells|heard|hears|thinks?|"
    r"thought|believes?|after|because|when|while|before|introduced|met|visited|and\s+(?:his|"
    r"her|their|my)\s+\w+)\b"
)
"""A construction after these is said of someone else (a relative or reported clause)."""
_LEAD = re.compile(
    r"(?i)(?:\s+|\b(?:a|an|the|new|now|still|just|recently|also|currently|finally|already|"
    r"used\s+to|accepted|landed|took|found|holds|started|began|signed|switched\s+to|went\s+on|"
    r"on|previous|old|former|current|first|home|permanent|usual|be|"
    r"officially|happily|actually|has|have|had|got|gets|is|am|are|was|were|been|can|"
    r"successfully)\b)*$"
)
_SUBJECT = re.compile(
    r"(?:^|\b(?:I|we|you|he|she|they|[Uu]ser|[Uu]ser's|my|his|her|their|our|your|My|His|Her|"
    r"Their|Our|Your|and)|[A-Z][\w'-]*|\w+'s)$"
)
_THIRD = re.compile(r"\b(?:he|she|they|He|She|They)$")


def _holds(text: str, match: re.Match[str]) -> bool:
    """The construction states a fact of the sentence's person: not said not to hold, not a
    wish or a plan, not in a clause about someone else ("his boss moved to…", "Lena, who
    lives in…", "Omar told me he works at…"), its subject the person or their possessive."""
    if _negated(text, match):
        return False
    before = _CLAUSE_END.split(text[: match.start()])[-1]
    if _IRREALIS.search(before) or _ELSEWHERE.search(before):
        return False
    lead = _LEAD.search(before)
    head = before[: lead.start()].rstrip() if lead is not None else before
    if not _SUBJECT.search(head):
        return False
    # "I met Omar at a party; he lives in Cork": in the user's memory, he is someone else.
    return not (_THIRD.search(head) and evidence.first_person(text))


def _negated(text: str, match: re.Match[str]) -> bool:
    """The construction is said not to hold: a negation in it, or before it in its clause
    ("does not work at", "never lived in") — not one in a clause of its own ("is single and
    not looking")."""
    before = _CLAUSE_END.split(text[: match.start()])[-1]
    return evidence.negated(before) or evidence.negated(match.group(0))


_NOUNS = {
    EMPLOYER: "job employer workplace employment 工作 单位 公司 职业 勤務 職場 会社 仕事",
    RESIDENCE: "address home flat apartment residence 地址 住址 住所 居住",
    CAR: "car vehicle",
    PHONE: "phone mobile telephone cellphone",
    DIET: "diet dietary",
    RELATIONSHIP: "relationship boyfriend girlfriend marital",
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
