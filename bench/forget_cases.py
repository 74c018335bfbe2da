"""Generated cases for forgetting by description (issue 17): personal memories, a request, and
the exact set of memories the request means.

Deterministic (seeded), no download, no network. Each case is one namespace's memories, a
request as a person would type it, its kind, and the indexes of the memories it targets
(empty when the right answer is to mark nothing). The distractors are built to trap
shortcuts: they share the target's person, topic, words and numbers and differ in one slot
(a code one digit off, the same appointment for someone else, a person named alike, the same
topic at another date), and every case also holds unrelated memories of the same person.

Kinds (issue 17, "How it is measured"):

- `restated`   the request restates the fact ("forget that my dentist appointment is on ...");
               value-near twins (another day, another dose, another code) are in the store;
- `question`   the request asks for what the memory answers ("forget where Alice works");
- `keyword`    a short description ("the dentist appointment", "forget Bob's phone number");
- `identifier` a code, e-mail address, phone number, amount or order number, alone or with a
               word of context; near identifiers (one digit off, transposed, a longer id with
               the target as prefix) are stored beside it;
- `subject`    a whole subject ("everything about Alice", "what you know about my old job");
               a person named alike, the same facts about others and memories that only
               mention the subject beside someone else are not targets;
- `japanese`   Japanese requests over Japanese memories (「歯医者の件は忘れて」), an English
               request over a Japanese memory holding the same identifier, and the reverse;
- `multiple`   two or three facts in one request, or a plural ("all my appointments");
- `correction` the request is a new fact ("Alice now works at Siemens"): the target is the
               memory it supersedes (planners cannot do this yet; recorded for later);
- `nothing`    the request matches nothing stored, only its near misses: mark nothing.

Kinds of issue 24 (the wording fights back):

- `spelling`   the request spells the target's identifier otherwise than the memory (e-mail
               case and whitespace, `+1 (555) 010-4477` / `555 010 4477`, `ORD-2024-001` /
               `ord 2024 001`, full-width digits `４４７１`, a code split by spaces or dashes);
               beside it a longer identifier with the target's as prefix, a shorter one that
               is the target's prefix, an e-mail extending the local part, one digit off,
               the same digits under another prefix or in another group order;
- `crosslang`  an identifier, a name or a number in an English request that a Japanese or
               Chinese memory holds, and the other way round; near identifiers and names
               alike in the memory's language (and in the request's);
- `compound`   one memory holds two facts and the request forgets one: the answer is an edit
               of it (`Case.edits`: the text that should remain), not a deletion; the same two
               facts of someone else stored separately, and a memory holding only the kept
               fact, are not targets;
- `negation`   the request's fact has a negated (or positive) twin stored, which is never a
               target; sometimes only the twin is stored (then the answer is nothing);
- `dates`      "my 2023 address" is the memory dated 2023, not the current one, another
               year's, the same year's other attribute nor someone else's; "my old phone
               number" is the one marked old/previous, not the current one;
- `paraphrase` a correction sharing no word with what it supersedes ("the user moved to an
               AI-safety lab" supersedes "the user works at Stripe"): the target is the
               superseded memory, as in `correction`; distractors share the new fact's words;
- `sense`      a word used in another sense ("everything about Frank" beside "a frank
               discussion", "the Vienna office" beside "Vienna sausages"), both ways: the
               other-sense memories are never targets; sometimes only they are stored.

A new kind is added by writing a generator `(rng) -> Built` and registering it in
`GENERATORS`; each case draws from its own generator (seeded by seed, kind and number), so a
new kind never changes the cases of another.

    python bench/forget_cases.py --cases-per-kind 3     # print a sample
"""

from __future__ import annotations

import argparse
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# -- the case ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    kind: str
    form: str
    """Which variant of its kind (e.g. `en-request-ja-memory`, `plural`), for analysis."""
    memories: tuple[str, ...]
    roles: tuple[str, ...]
    """Per memory: `target`, or what kind of distractor it is (`value-near`, `other-person`,
    `similar-name`, `other-key`, `same-person`, `mention`, `filler`, ...)."""
    request: str
    targets: frozenset[int]
    edits: dict[int, str] = field(default_factory=dict, hash=False)
    """Targets that must be edited, not deleted (a memory holding two facts of which the
    request forgets one): index -> the text that should remain. Empty for most kinds."""


@dataclass
class Built:
    """What a kind's generator returns; fillers and shuffling are added around it."""

    form: str
    request: str
    memories: list[tuple[str, str]] = field(default_factory=list)
    """(text, role); role `target` marks the expected set."""
    edits: dict[str, str] = field(default_factory=dict)
    """Target text -> the text that should remain of it (an edit, not a deletion)."""


# -- word lists ----------------------------------------------------------------------------

# Names used by cases, each with one spelled alike (the trap for names).
ALIKE = {
    "Alice": "Alicia",
    "Bob": "Rob",
    "Carol": "Caroline",
    "Daniel": "Danielle",
    "Priya": "Priyanka",
    "Tom": "Tomas",
    "Maria": "Marta",
    "Kenji": "Kenta",
    "Sofia": "Sonia",
    "Lucas": "Luca",
    "Emma": "Emily",
    "Omar": "Omer",
    "Hannah": "Hanna",
    "Julia": "Julian",
    "Marco": "Mario",
    "Nina": "Nino",
}
NAMES = list(ALIKE)
# Fillers use names no case uses, so they can never be a target.
FILLER_NAMES = ["Greta", "Otto", "Ingrid", "Felix", "Nadia", "Samir", "Yusuf", "Hugo", "Elif"]

PROFS = ["dentist", "optician", "physiotherapist", "dermatologist", "GP", "therapist"]
DOCTORS = ["Okafor", "Okoro", "Lindqvist", "Lindberg", "Tanaka", "Takata", "Moreau", "Patel"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August"]
MONTHS += ["September", "October", "November", "December"]
TIMES = ["8:30", "9:00", "10:30", "11:15", "13:45", "14:00", "15:30", "16:15", "17:00"]
COMPANIES = ["Stripe", "Shopify", "Spotify", "Siemens", "Deloitte", "Novartis", "Nokia"]
COMPANIES += ["Zalando", "Zendesk", "Atlassian", "Adobe", "Philips", "Ericsson", "Bosch"]
ROLES = ["data engineer", "product manager", "nurse", "teacher", "accountant", "designer"]
ROLES += ["backend developer", "pharmacist", "sales lead", "lawyer"]
STREETS = ["Rua Augusta", "Baker Street", "Elm Road", "Kastanienallee", "Calle Mayor"]
STREETS += ["Rue Oberkampf", "Maple Avenue", "Mill Lane", "Via Roma", "Prinsengracht"]
CITIES = ["Lisbon", "Porto", "London", "Leeds", "Berlin", "Munich", "Madrid", "Paris"]
CITIES += ["Milan", "Amsterdam", "Vienna", "Dublin", "Oslo", "Prague"]
SERVICES = ["bank login", "e-mail account", "VPN", "tax portal", "pharmacy app", "phone carrier"]
SHOPS = ["IKEA", "Amazon", "Zara", "MediaMarkt", "Decathlon", "Etsy"]
ITEMS = ["a bookshelf", "a desk lamp", "running shoes", "a blender", "a winter coat", "a tent"]
ITEMS += ["a monitor", "a rug"]
DRUGS = ["sertraline", "metformin", "lisinopril", "atorvastatin", "omeprazole", "levothyroxine"]
DOSES = ["25", "50", "75", "100", "150", "200"]
ALLERGENS = ["penicillin", "peanuts", "shellfish", "latex", "sesame", "ibuprofen", "bee stings"]
ANIMALS = ["dog", "cat", "rabbit", "parrot", "tortoise"]
PET_NAMES = ["Biscuit", "Pepper", "Luna", "Milo", "Nala", "Ziggy", "Mochi", "Olive"]
CARS = ["blue Toyota Corolla", "grey VW Golf", "red Mazda 3", "white Tesla Model 3"]
CARS += ["black Skoda Octavia", "green Fiat 500"]
AIRLINES = ["LH", "BA", "AF", "KL", "IB", "TP"]
DESTS = ["Munich", "Milan", "Madrid", "Málaga", "Tokyo", "Toronto", "Athens", "Austin"]
PLACES = ["parents' house", "office", "cabin", "studio", "holiday flat"]
PASSWORD_WORDS = ["sunflower", "bluefish", "tangerine", "marble", "comet"]
GYMS = ["FitLife", "Urban Gym", "PureGym", "Basic-Fit", "Anytime Fitness"]
EMAIL_DOMAINS = ["example.com", "acme.io", "mailbox.org", "fastmail.com", "gmail.com"]
LAST_NAMES = ["Smith", "Moreau", "Schmidt", "Rossi", "Silva", "Novak", "Berg", "Khan"]


# -- grammar -------------------------------------------------------------------------------

USER = ""


def grammar(who: str, *, request: bool, first_person_note: bool = False) -> dict[str, str]:
    """Template fields for a person: the user is "the user" in a memory (or "I" in the
    person's own note) and "I"/"my" in a request; anyone else is their name."""
    if who == USER:
        if request or first_person_note:
            return {"S": "I", "P": "my", "O": "me", "is": "am", "has": "have", "s": "", "es": ""}
        return {
            "S": "the user",
            "P": "the user's",
            "O": "the user",
            "is": "is",
            "has": "has",
            "s": "s",
            "es": "es",
        }
    return {"S": who, "P": f"{who}'s", "O": who, "is": "is", "has": "has", "s": "s", "es": "es"}


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def articles(text: str) -> str:
    return re.sub(r"\b([Aa]) ([aeiouAEIOU])", r"\1n \2", text)


def placeholders(template: str) -> set[str]:
    return set(re.findall(r"\{(\w+)\}", template))


def render(template: str, slots: dict[str, str], g: dict[str, str]) -> str:
    return articles(cap(template.format(**slots, **g)))


# -- identifiers and values a slot away ----------------------------------------------------


def digits(rng: random.Random, n: int) -> str:
    return str(rng.randint(1, 9)) + "".join(str(rng.randint(0, 9)) for _ in range(n - 1))


def one_digit_off(rng: random.Random, text: str) -> str:
    places = [i for i, c in enumerate(text) if c.isdigit()]
    i = rng.choice(places[1:] if len(places) > 1 else places)
    new = rng.choice([d for d in "0123456789" if d != text[i]])
    return text[:i] + new + text[i + 1 :]


def transposed(rng: random.Random, text: str) -> str:
    pairs = [
        i
        for i in range(len(text) - 1)
        if text[i].isdigit() and text[i + 1].isdigit() and text[i] != text[i + 1]
    ]
    if not pairs:
        return one_digit_off(rng, text)
    i = rng.choice(pairs)
    return text[:i] + text[i + 1] + text[i] + text[i + 2 :]


def near_number(rng: random.Random, text: str) -> str:
    return (one_digit_off if rng.random() < 0.6 else transposed)(rng, text)


def other(rng: random.Random, pool: Sequence[str], *avoid: str) -> str:
    return rng.choice([p for p in pool if p not in avoid])


def date(rng: random.Random) -> str:
    return f"{rng.choice(WEEKDAYS)} {rng.randint(1, 28)} {rng.choice(MONTHS)}"


def near_date(rng: random.Random, value: str) -> str:
    day, num, month = value.split()
    if rng.random() < 0.5:
        n = int(num) + rng.choice([-7, -1, 1, 7])
        n = n if 1 <= n <= 28 else int(num) + 2
        return f"{other(rng, WEEKDAYS, day)} {n} {month}"
    return f"{day} {num} {other(rng, MONTHS, month)}"


def phone(rng: random.Random) -> str:
    pattern = rng.choice(
        ["+44 7700 900{3}", "+1 415 555 0{3}", "+49 151 2345 {4}", "+351 912 {3} {3}"]
    )
    return re.sub(r"\{(\d)\}", lambda m: digits(rng, int(m.group(1))), pattern)


def email(rng: random.Random, first: str) -> str:
    return f"{first.lower()}.{rng.choice(LAST_NAMES).lower()}@{rng.choice(EMAIL_DOMAINS)}"


def near_email(rng: random.Random, value: str) -> str:
    local, domain = value.split("@")
    first, last = local.split(".")
    choice = rng.randrange(3)
    if choice == 0:
        return f"{first}@{domain}"  # a shorter address of the same person
    if choice == 1:
        return f"{first}.{last}@{other(rng, EMAIL_DOMAINS, domain)}"
    return f"{first}.{last}{rng.randint(1, 9)}@{domain}"


def order_number(rng: random.Random) -> str:
    style = rng.randrange(3)
    if style == 0:
        return f"ORD-{rng.choice(['2023', '2024', '2025'])}-{digits(rng, 4)}"
    if style == 1:
        return f"{digits(rng, 3)}-{digits(rng, 7)}-{digits(rng, 7)}"
    return f"#{digits(rng, 8)}"


def near_order(rng: random.Random, value: str) -> str:
    if rng.random() < 0.3:
        return value + str(rng.randint(0, 9))  # the target is a prefix of it
    return near_number(rng, value)


def amount(rng: random.Random) -> str:
    currency = rng.choice(["€", "£", "$"])
    return f"{currency}{rng.choice([85, 120, 250, 340, 480, 650, 1200, 1750])}"


def near_amount(rng: random.Random, value: str) -> str:
    currency, number = value[0], value[1:]
    if rng.random() < 0.4:
        return f"{currency}{int(number) * 10}"
    return currency + near_number(rng, number)


def plate(rng: random.Random) -> str:
    letters = "ABCDEFGHJKLMNPRSTVWXYZ"
    pick = "".join(rng.choice(letters) for _ in range(2))
    return f"{pick}-{digits(rng, 4)}"


def booking_ref(rng: random.Random) -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(rng.choice(alphabet) for _ in range(6))


def near_ref(rng: random.Random, value: str) -> str:
    i = rng.randrange(len(value))
    return (
        value[:i]
        + rng.choice([c for c in "ABCDEFGHJKLMNPQRSTUVWXYZ" if c != value[i]])
        + (value[i + 1 :])
    )


# -- families of facts ---------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    """One kind of personal fact. `keys` (with the person) say which fact it is; the other
    slots are its value. Question and keyword templates name every key, so a distractor
    that differs in a key is told apart by the request; restatements name the values too."""

    name: str
    sample: Callable[[random.Random, str], dict[str, str]]
    """(rng, who) -> slots."""
    near: dict[str, Callable[[random.Random, str], str]]
    """How to make each value slot a near miss."""
    memory: tuple[str, ...]
    restate: tuple[str, ...]
    question: tuple[str, ...]
    keyword: tuple[str, ...]
    keys: tuple[str, ...] = ()
    ident: str | None = None
    """The slot holding an identifier (for identifier requests)."""
    ident_phrases: tuple[str, ...] = ("{x}",)
    correct: str | None = None
    """The slot a correction changes, with `update` templates for the new fact."""
    update: tuple[str, ...] = ()


def _slots(**makers: Callable[[random.Random], str]) -> Callable[[random.Random, str], dict]:
    def sample(rng: random.Random, who: str) -> dict[str, str]:
        return {k: make(rng) for k, make in makers.items()}

    return sample


def _pick(pool: Sequence[str]) -> Callable[[random.Random], str]:
    return lambda rng: rng.choice(pool)


def _resample(pool: Sequence[str]) -> Callable[[random.Random, str], str]:
    return lambda rng, v: other(rng, pool, v)


FAMILIES: dict[str, Family] = {}


def family(f: Family) -> None:
    """Register a family, checking that every memory names its person and every question or
    keyword names the person and the keys (else a distractor would match the request)."""
    person = {"S", "P", "O"}
    for t in f.memory:
        assert placeholders(t) & person, t
    for t in f.question + f.keyword + f.restate:
        assert placeholders(t) & person and set(f.keys) <= placeholders(t), t
    FAMILIES[f.name] = f


family(
    Family(
        name="appointment",
        keys=("prof",),
        sample=_slots(prof=_pick(PROFS), day=date, time=_pick(TIMES), doc=_pick(DOCTORS)),
        near={"day": near_date, "time": _resample(TIMES), "doc": _resample(DOCTORS)},
        memory=(
            "{P} {prof} appointment is on {day} at {time} with Dr. {doc}.",
            "{S} {has} a {prof} appointment with Dr. {doc} on {day} at {time}.",
            "Booked: {prof} for {O} on {day}, {time}, Dr. {doc}.",
        ),
        restate=(
            "{P} {prof} appointment is on {day} at {time}",
            "{S} {is} seeing Dr. {doc}, the {prof}, on {day} at {time}",
            "{S} {has} the {prof} on {day} at {time}",
        ),
        question=(
            "when {P} {prof} appointment is",
            "when {S} {is} seeing the {prof}",
            "which day {P} {prof} appointment is on",
        ),
        keyword=("{P} {prof} appointment", "the {prof} appointment of {O}", "{P} {prof} booking"),
        correct="day",
        update=(
            "{P} {prof} appointment moved to {new}",
            "actually {P} {prof} appointment is now on {new}",
            "the {prof} rescheduled {O} to {new}",
        ),
    )
)
family(
    Family(
        name="employer",
        sample=_slots(
            company=_pick(COMPANIES), role=_pick(ROLES), year=lambda r: str(r.randint(2012, 2024))
        ),
        near={"company": _resample(COMPANIES), "role": _resample(ROLES)},
        memory=(
            "{S} work{s} at {company} as a {role} since {year}.",
            "{P} employer is {company}; {S} {is} a {role} there.",
            "{S} joined {company} in {year} as a {role}.",
        ),
        restate=("{S} work{s} at {company} as a {role}", "{P} job is {role} at {company}"),
        question=("where {S} work{s}", "who {P} employer is", "what company {S} work{s} for"),
        keyword=("{P} job", "{P} employer", "{P} workplace"),
        correct="company",
        update=(
            "{S} now work{s} at {new}",
            "{P} new employer is {new}",
            "{S} just started at {new}",
        ),
    )
)
family(
    Family(
        name="address",
        sample=_slots(
            n=lambda r: str(r.randint(2, 180)), street=_pick(STREETS), city=_pick(CITIES)
        ),
        near={"n": lambda r, v: str(int(v) + r.choice([-2, 2, 10])), "city": _resample(CITIES)},
        memory=(
            "{S} live{s} at {n} {street}, {city}.",
            "{P} address is {n} {street} in {city}.",
            "Home address of {O}: {n} {street}, {city}.",
        ),
        restate=("{S} live{s} at {n} {street} in {city}", "{P} address is {n} {street}, {city}"),
        question=("where {S} live{s}", "what {P} home address is"),
        keyword=("{P} address", "{P} home address", "the address of {O}"),
        correct="street",
        update=("{S} moved to 14 {new}", "{P} new address is 14 {new}"),
    )
)
family(
    Family(
        name="phone",
        sample=_slots(phone=phone),
        near={"phone": near_number},
        memory=(
            "{P} phone number is {phone}.",
            "{S} can be reached on {phone}.",
            "Mobile of {O}: {phone}.",
        ),
        restate=("{P} phone number is {phone}", "{P} mobile is {phone}"),
        question=("what {P} phone number is", "which number {S} can be reached on"),
        keyword=("{P} phone number", "{P} mobile number", "the phone number of {O}"),
        ident="phone",
        ident_phrases=("{x}", "the number {x}", "phone number {x}", "anything with {x}"),
        correct="phone",
        update=("{P} new phone number is {new}", "{S} changed number, it is now {new}"),
    )
)
family(
    Family(
        name="email",
        sample=lambda rng, who: {
            "email": email(rng, who or rng.choice(["sam", "jo", "alex"])),
            "use": rng.choice(["work", "personal"]),
        },
        near={"email": near_email, "use": lambda r, v: "personal" if v == "work" else "work"},
        keys=("use",),
        memory=(
            "{P} {use} e-mail is {email}.",
            "{S} use{s} {email} for {use} mail.",
            "E-mail ({use}) of {O}: {email}.",
        ),
        restate=("{P} {use} e-mail address is {email}", "{S} use{s} {email} for {use} mail"),
        question=("what {P} {use} e-mail address is", "which address {S} use{s} for {use} mail"),
        keyword=("{P} {use} e-mail", "{P} {use} e-mail address"),
        ident="email",
        ident_phrases=("{x}", "the address {x}", "anything with {x}", "e-mail {x}"),
        correct="email",
        update=("{P} new {use} e-mail is {new}", "{S} switched {use} mail to {new}"),
    )
)
family(
    Family(
        name="code",
        keys=("service",),
        sample=_slots(service=_pick(SERVICES), code=lambda r: digits(r, r.choice([5, 6]))),
        near={"code": near_number},
        memory=(
            "The verification code for {P} {service} was {code}.",
            "{P} {service} one-time code: {code}.",
            "{S} got the code {code} for the {service}.",
        ),
        restate=(
            "{P} {service} verification code was {code}",
            "the code for {P} {service} is {code}",
        ),
        question=(
            "what the verification code for {P} {service} was",
            "which code {S} got for the {service}",
        ),
        keyword=("{P} {service} verification code", "{P} {service} code"),
        ident="code",
        ident_phrases=("{x}", "the code {x}", "verification code {x}", "the OTP {x}"),
    )
)
family(
    Family(
        name="order",
        keys=("shop",),
        sample=_slots(shop=_pick(SHOPS), item=_pick(ITEMS), order=order_number, day=date),
        near={"order": near_order, "item": _resample(ITEMS), "day": near_date},
        memory=(
            "{P} order {order} from {shop} ({item}) arrives on {day}.",
            "{S} ordered {item} from {shop}, order number {order}.",
            "{shop} order {order} for {O}: {item}, delivery {day}.",
        ),
        restate=(
            "{S} ordered {item} from {shop}, order {order}",
            "{P} {shop} order {order} is {item}",
        ),
        question=("what {S} ordered from {shop}", "when {P} {shop} order arrives"),
        keyword=("the {shop} order of {O}", "{P} {shop} order"),
        ident="order",
        ident_phrases=("{x}", "order {x}", "order number {x}", "the order {x}"),
    )
)
family(
    Family(
        name="loan",
        keys=("to",),
        sample=lambda rng, who: {
            "to": other(rng, NAMES, who),
            "amount": amount(rng),
            "why": rng.choice(
                ["a car repair", "rent", "a flight home", "a new laptop", "the deposit"]
            ),
        },
        near={"amount": near_amount},
        memory=(
            "{S} lent {to} {amount} for {why}.",
            "{to} owes {O} {amount} (borrowed for {why}).",
            "Loan: {amount} from {O} to {to}, for {why}.",
        ),
        restate=("{S} lent {to} {amount} for {why}", "{to} owes {O} {amount}"),
        question=("how much {S} lent {to}", "how much {to} owes {O}"),
        keyword=("the money {S} lent {to}", "{to}'s loan from {O}"),
        ident="amount",
        ident_phrases=("the {x}", "the {x} loan", "the {x} {to} owes"),
    )
)
family(
    Family(
        name="medication",
        sample=_slots(drug=_pick(DRUGS), dose=_pick(DOSES)),
        near={"dose": _resample(DOSES), "drug": _resample(DRUGS)},
        memory=(
            "{S} take{s} {dose} mg of {drug} every morning.",
            "{P} medication: {drug} {dose} mg daily.",
        ),
        restate=("{S} take{s} {dose} mg of {drug}", "{S} {is} on {drug}, {dose} mg a day"),
        question=("what medication {S} take{s}", "which pills {S} take{s} in the morning"),
        keyword=("{P} medication", "{P} prescription", "{P} daily pills"),
        correct="dose",
        update=("{P} {drug} dose went up to {new} mg", "{S} take{s} {new} mg of {drug} now"),
    )
)
family(
    Family(
        name="allergy",
        sample=_slots(allergen=_pick(ALLERGENS)),
        near={"allergen": _resample(ALLERGENS)},
        memory=(
            "{S} {is} allergic to {allergen}.",
            "{P} allergy: {allergen} (severe).",
            "Careful: {S} react{s} badly to {allergen}.",
        ),
        restate=("{S} {is} allergic to {allergen}", "{S} react{s} to {allergen}"),
        question=("what {S} {is} allergic to", "which allergy {S} {has}"),
        keyword=("{P} allergy", "{P} allergies"),
    )
)
family(
    Family(
        name="birthday",
        sample=lambda rng, who: {"bday": f"{rng.randint(1, 28)} {rng.choice(MONTHS)}"},
        near={"bday": lambda r, v: f"{int(v.split()[0]) % 28 + 1} {v.split()[1]}"},
        memory=(
            "{P} birthday is on {bday}.",
            "Birthday of {O}: {bday}.",
            "Birthday of {O}: {bday}.",
        ),
        restate=("{P} birthday is on {bday}", "{S} was born on {bday}"),
        question=("when {P} birthday is", "what day {S} was born"),
        keyword=("{P} birthday", "the birthday of {O}"),
    )
)
family(
    Family(
        name="pet",
        keys=("animal",),
        sample=lambda rng, who: {
            "animal": rng.choice(ANIMALS),
            "pet": rng.choice(PET_NAMES),
            "age": str(rng.randint(1, 14)),
        },
        near={"pet": _resample(PET_NAMES), "age": lambda r, v: str(int(v) + r.choice([1, 2, 3]))},
        memory=(
            "{P} {animal} is called {pet} and is {age} years old.",
            "{S} {has} a {age}-year-old {animal} named {pet}.",
        ),
        restate=("{P} {animal} is called {pet}", "{S} {has} a {animal} named {pet}, aged {age}"),
        question=("what {P} {animal} is called", "what the name of {P} {animal} is"),
        keyword=("{P} {animal}", "{P} pet {animal}"),
    )
)
family(
    Family(
        name="car",
        sample=_slots(car=_pick(CARS), plate=plate),
        near={"plate": near_number, "car": _resample(CARS)},
        memory=("{P} car is a {car}, licence plate {plate}.", "{S} drive{s} a {car} ({plate})."),
        restate=("{S} drive{s} a {car} with plate {plate}", "{P} car is the {car}, {plate}"),
        question=("what car {S} drive{s}", "what {P} licence plate is"),
        keyword=("{P} car", "{P} licence plate"),
        ident="plate",
        ident_phrases=("{x}", "plate {x}", "the car {x}"),
        correct="car",
        update=("{S} sold the old car and now drive{s} a {new}", "{P} new car is a {new}"),
    )
)
family(
    Family(
        name="flight",
        keys=("dest",),
        sample=lambda rng, who: {
            "dest": rng.choice(DESTS),
            "flight": f"{rng.choice(AIRLINES)} {digits(rng, 4)}",
            "day": date(rng),
            "ref": booking_ref(rng),
        },
        near={"day": near_date, "flight": near_number, "ref": near_ref},
        memory=(
            "{P} flight to {dest} is {flight} on {day}, booking reference {ref}.",
            "{S} fl{ies} to {dest} on {day} ({flight}, ref {ref}).",
        ),
        restate=("{P} flight to {dest} is {flight} on {day}", "{S} fl{ies} to {dest} on {day}"),
        question=("when {P} flight to {dest} is", "what {P} booking reference for {dest} is"),
        keyword=("{P} flight to {dest}", "the {dest} flight of {O}", "{P} {dest} booking"),
        ident="ref",
        ident_phrases=("booking {x}", "the booking reference {x}", "{x}"),
    )
)
family(
    Family(
        name="wifi",
        keys=("place",),
        sample=lambda rng, who: {
            "place": rng.choice(PLACES),
            "pw": f"{rng.choice(PASSWORD_WORDS)}-{digits(rng, 2)}",
        },
        near={"pw": near_number},
        memory=("The Wi-Fi password at {P} {place} is {pw}.", "{P} {place} Wi-Fi: {pw}."),
        restate=("the Wi-Fi password at {P} {place} is {pw}", "{P} {place} Wi-Fi password is {pw}"),
        question=("what the Wi-Fi password at {P} {place} is",),
        keyword=("the Wi-Fi password at {P} {place}", "{P} {place} Wi-Fi"),
        ident="pw",
        ident_phrases=("{x}", "the password {x}"),
    )
)
family(
    Family(
        name="gym",
        keys=("gym",),
        sample=lambda rng, who: {
            "gym": rng.choice(GYMS),
            "member": digits(rng, 6),
            "fee": rng.choice(["€29", "€35", "€39", "€45", "£32"]),
        },
        near={"member": near_number, "fee": near_amount},
        memory=(
            "{P} {gym} membership number is {member}; it costs {fee} a month.",
            "{S} {is} a {gym} member (no. {member}, {fee}/month).",
        ),
        restate=(
            "{P} {gym} membership is number {member} at {fee} a month",
            "{S} pay{s} {gym} {fee} a month",
        ),
        question=("how much {P} {gym} membership costs", "what {P} {gym} member number is"),
        keyword=("{P} {gym} membership", "the {gym} membership of {O}"),
        ident="member",
        ident_phrases=("{x}", "member number {x}", "membership {x}"),
        correct="fee",
        update=("{P} {gym} membership now costs {new} a month", "{gym} raised {P} fee to {new}"),
    )
)

# Families whose request can be a whole "which X" question without a value (for keyword and
# question kinds every family works; identifier requests need `ident`).
IDENT_FAMILIES = [f for f in FAMILIES.values() if f.ident]
CORRECT_FAMILIES = [f for f in FAMILIES.values() if f.correct]


def fam_grammar(rng: random.Random, who: str) -> dict[str, str]:
    """A memory about the user is written "the user ..." by an agent, or "I ..." in the
    person's own note (one in four)."""
    return grammar(who, request=False, first_person_note=who == USER and rng.random() < 0.25)


def natural(templates: Sequence[str], g: dict[str, str]) -> list[str]:
    """Templates that read well for this person: "of me" does not."""
    if g["O"] != "me":
        return list(templates)
    return [t for t in templates if "of {O}" not in t]


def mem_text(rng: random.Random, fam: Family, slots: dict[str, str], who: str) -> str:
    g = fam_grammar(rng, who)
    if not natural(fam.memory, g):
        g = grammar(who, request=False)
    g["ies"] = "ies" if g["s"] else "y"
    return render(rng.choice(natural(fam.memory, g)), slots, g)


def req_part(rng: random.Random, templates: Sequence[str], slots: dict[str, str], who: str) -> str:
    g = grammar(who, request=True)
    g["ies"] = "ies" if g["s"] else "y"
    return articles(rng.choice(natural(templates, g) or templates).format(**slots, **g))


def someone(rng: random.Random, *avoid: str) -> str:
    """The user half the time, else a named person."""
    if USER not in avoid and rng.random() < 0.5:
        return USER
    return other(rng, NAMES, *avoid)


def alike_or_other(rng: random.Random, who: str) -> tuple[str, str]:
    """Another person for the same fact: named alike when there is such a name."""
    if who != USER and rng.random() < 0.6:
        return ALIKE[who], "similar-name"
    return someone(rng, who), "other-person"


# -- request forms -------------------------------------------------------------------------

THAT = (
    "forget that {x}",
    "please forget that {x}",
    "can you forget that {x}?",
    "delete the memory that {x}",
    "remove the fact that {x}",
    "I don't want you to remember that {x} anymore",
    "{X}. Forget that, please.",
    "{X} - delete that",
    "please delete that {x}",
)
NOUN = (
    "forget {x}",
    "please delete {x}",
    "remove {x}",
    "can you forget {x}?",
    "{X}",
    "forget about {x}",
    "delete the note about {x}",
    "please drop {x} from your memory",
    "could you erase {x}?",
)
WH = (
    "forget {x}",
    "please forget {x}",
    "can you forget {x}?",
    "I'd rather you didn't know {x}; forget it",
    "stop remembering {x}",
    "you don't need to know {x} anymore, delete it",
    "delete what you know about {x}",
)
SUBJECT = (
    "forget everything about {x}",
    "delete what you know about {x}",
    "remove everything about {x}",
    "can you forget all about {x}?",
    "please erase anything you remember about {x}",
    "wipe every memory about {x}",
    "{X}: delete all of that",
    "I want you to forget {x} entirely",
    "forget all of it about {x}",
)
CORRECTION = ("{X}", "{X}.", "Update: {x}.", "Actually, {x}.", "Correction: {x}", "FYI {x}")


def frame(rng: random.Random, frames: Sequence[str], x: str, *, exact: bool = False) -> str:
    """The object `x` in one of the instruction forms. `exact`: x may start with an
    identifier, whose case is kept (a password is not a sentence)."""
    text = rng.choice(frames).format(x=x, X=x if exact else cap(x))
    if rng.random() < 0.3 and not (exact and text.startswith(x)):
        text = cap(text)
    return text


# -- fillers -------------------------------------------------------------------------------

FILLER_TEMPLATES = (
    "{N} recommended the novel '{book}'.",
    "The user is reading '{book}' and likes it so far.",
    "The user prefers {coffee} in the morning.",
    "The user's favourite band is {band}.",
    "The user is learning {lang} on weekends.",
    "{N} makes great {dish}.",
    "The user wants to try cooking {dish} at home.",
    "The user watched {show} last weekend and found it slow.",
    "The tomatoes on the balcony need watering every other day.",
    "{N} from book club suggested '{book}' for next month.",
    "The user supports {team} but rarely watches the games.",
    "The user finds open-plan offices too noisy.",
    "{N} is into {hobby} these days.",
    "The user would like to take up {hobby} next year.",
    "The user dislikes {dish} with too much garlic.",
    "The user listens to podcasts about {topic} while commuting.",
)
FILLER_SLOTS = {
    "book": ["The Overstory", "Piranesi", "Klara and the Sun", "Middlemarch", "The Dispossessed"],
    "coffee": ["black coffee", "a flat white", "green tea", "a cortado"],
    "band": ["Radiohead", "Khruangbin", "Daft Punk", "Fleetwood Mac", "Bonobo"],
    "lang": ["Portuguese", "Italian", "Korean", "Dutch"],
    "dish": ["shakshuka", "risotto", "dumplings", "paella", "ramen", "moussaka"],
    "show": ["a documentary about octopuses", "the new detective series", "an old western"],
    "team": ["Benfica", "Arsenal", "Celtic", "Ajax"],
    "hobby": ["bouldering", "pottery", "birdwatching", "sourdough baking", "chess"],
    "topic": ["history", "architecture", "economics", "astronomy"],
}


def fillers(rng: random.Random, count: int) -> list[tuple[str, str]]:
    out: list[str] = []
    while len(out) < count:
        slots = {k: rng.choice(v) for k, v in FILLER_SLOTS.items()}
        text = rng.choice(FILLER_TEMPLATES).format(N=rng.choice(FILLER_NAMES), **slots)
        if text not in out:
            out.append(text)
    return [(t, "filler") for t in out]


# -- distractors shared by the English kinds -----------------------------------------------


def key_distractors(
    rng: random.Random,
    fam: Family,
    slots: dict[str, str],
    who: str,
    taken: set[str],
    *,
    same_person: bool = True,
) -> list[tuple[str, str, dict[str, str], str]]:
    """The same fact for another person (named alike when possible, same values: the hardest
    twin), the same family under another key (the optician instead of the dentist), and
    other facts of the same person. Returns (text, role, slots, who)."""
    out: list[tuple[str, str, dict[str, str], str]] = []
    who2, role = alike_or_other(rng, who)
    s2 = dict(slots)
    if s2.get("to") == who2:
        s2["to"] = other(rng, NAMES, who2, who)
    out.append((mem_text(rng, fam, s2, who2), role, s2, who2))
    for key in fam.keys:
        for _ in range(8):
            s3 = {**slots, key: fam.sample(rng, who)[key]}
            if s3[key] != slots[key]:
                out.append((mem_text(rng, fam, s3, who), "other-key", s3, who))
                break
    if same_person:
        for f2 in rng.sample([f for f in FAMILIES.values() if f.name != fam.name], 2):
            s4 = f2.sample(rng, who)
            out.append((mem_text(rng, f2, s4, who), "same-person", s4, who))
    kept = []
    for d in out:
        if d[0] not in taken:
            taken.add(d[0])
            kept.append(d)
    return kept


def value_distractors(
    rng: random.Random,
    fam: Family,
    slots: dict[str, str],
    who: str,
    taken: set[str],
    count: int,
    within: Sequence[str] | None = None,
) -> list[tuple[str, str]]:
    """The same fact of the same person with one value a slot away (another day, dose or
    code): only a request that restates or names the value tells them apart."""
    out: list[tuple[str, str]] = []
    names = [n for n in fam.near if within is None or n in within]
    for _ in range(count * 3 if names else 0):
        if len(out) >= count:
            break
        slot = rng.choice(names)
        s2 = dict(slots)
        s2[slot] = fam.near[slot](rng, slots[slot])
        if s2[slot] == slots[slot]:
            continue
        text = mem_text(rng, fam, s2, who)
        if text not in taken:
            taken.add(text)
            out.append((text, "value-near"))
    return out


# -- the kinds -----------------------------------------------------------------------------


def gen_restated(rng: random.Random) -> Built:
    fam = rng.choice(list(FAMILIES.values()))
    who = someone(rng)
    slots = fam.sample(rng, who)
    target = mem_text(rng, fam, slots, who)
    taken = {target}
    template = rng.choice(fam.restate)
    b = Built(form=fam.name, request=frame(rng, THAT, req_part(rng, [template], slots, who)))
    b.memories.append((target, "target"))
    b.memories += value_distractors(rng, fam, slots, who, taken, 2, placeholders(template))
    b.memories += [(t, r) for t, r, _, _ in key_distractors(rng, fam, slots, who, taken)]
    return b


def gen_question(rng: random.Random) -> Built:
    fam = rng.choice(list(FAMILIES.values()))
    who = someone(rng)
    slots = fam.sample(rng, who)
    target = mem_text(rng, fam, slots, who)
    b = Built(form=fam.name, request=frame(rng, WH, req_part(rng, fam.question, slots, who)))
    b.memories.append((target, "target"))
    b.memories += [(t, r) for t, r, _, _ in key_distractors(rng, fam, slots, who, {target})]
    return b


def gen_keyword(rng: random.Random) -> Built:
    fam = rng.choice(list(FAMILIES.values()))
    who = someone(rng)
    slots = fam.sample(rng, who)
    target = mem_text(rng, fam, slots, who)
    b = Built(form=fam.name, request=frame(rng, NOUN, req_part(rng, fam.keyword, slots, who)))
    b.memories.append((target, "target"))
    b.memories += [(t, r) for t, r, _, _ in key_distractors(rng, fam, slots, who, {target})]
    return b


def gen_identifier(rng: random.Random) -> Built:
    fam = rng.choice(IDENT_FAMILIES)
    assert fam.ident is not None
    who = someone(rng)
    slots = fam.sample(rng, who)
    target = mem_text(rng, fam, slots, who)
    taken = {target}
    ident = slots[fam.ident]
    phrase = rng.choice(fam.ident_phrases).format(x=ident, **slots)
    b = Built(form=fam.name, request=frame(rng, NOUN, phrase, exact=True))
    b.memories.append((target, "target"))
    # Near identifiers of the same fact (an older code, a longer order number) ...
    near = fam.near[fam.ident]
    for _ in range(6):
        if len([m for m in b.memories if m[1] == "near-identifier"]) >= 2:
            break
        s2 = dict(slots)
        s2[fam.ident] = near(rng, ident)
        if ident in s2[fam.ident] and not s2[fam.ident].startswith(ident):
            continue
        text = mem_text(rng, fam, s2, who)
        if text not in taken and s2[fam.ident] != ident:
            taken.add(text)
            b.memories.append((text, "near-identifier"))
    # ... and of the same kind for someone else, and the person's other facts.
    b.memories += [
        (t, r)
        for t, r, s, _ in key_distractors(
            rng, fam, {**slots, fam.ident: near(rng, ident)}, who, taken
        )
    ]
    return b


def subject_person(rng: random.Random, name: str) -> Built:
    twin = ALIKE[name]
    fams = rng.sample(list(FAMILIES.values()), rng.randint(3, 5))
    taken: set[str] = set()
    memories: list[tuple[str, str]] = []
    for fam in fams:
        slots = fam.sample(rng, name)
        text = mem_text(rng, fam, slots, name)
        if text in taken:
            continue
        taken.add(text)
        memories.append((text, "target"))
        # The same fact for the person named alike, or for the user, half the time.
        if rng.random() < 0.6:
            who2 = twin if rng.random() < 0.6 else USER
            s2 = fam.sample(rng, who2)
            t2 = mem_text(rng, fam, s2, who2)
            # A twin's fact that happens to name the subject ("Loan: $1750 from Rob to Bob")
            # is also the subject's: it would be no distractor.
            if t2 not in taken and not mentions(name, t2):
                taken.add(t2)
                memories.append((t2, "similar-name" if who2 == twin else "other-person"))
    # Memories whose subject is someone else that only mention the subject.
    third = other(rng, NAMES, name, twin)
    mention = rng.choice(
        [
            f"{third} met {name} at the conference in {rng.choice(CITIES)}.",
            f"The user borrowed a ladder from {third}; {name} had recommended it.",
            f"{third}'s birthday party is on {date(rng)}; {name} is invited too.",
            f"{third} and {name} used to share a flat in {rng.choice(CITIES)}.",
        ]
    )
    memories.append((mention, "mention"))
    # Facts about the person named alike that have no twin among the targets.
    fam = rng.choice(list(FAMILIES.values()))
    t3 = mem_text(rng, fam, fam.sample(rng, twin), twin)
    if t3 not in taken:
        memories.append((t3, "similar-name"))
    x = rng.choice([name, name, f"my friend {name}", f"{name} from work"])
    return Built(form="person", request=frame(rng, SUBJECT, x), memories=memories)


def mentions(name: str, text: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", text) is not None


# Whole subjects that are not a person: targets are the memories of the old one, distractors
# the same facts of the current one (which share every word but the name and the tense).
def subject_topic(rng: random.Random) -> Built:
    choice = rng.randrange(3)
    if choice == 0:
        old, new = rng.sample(COMPANIES, 2)
        boss, boss2 = rng.sample(NAMES, 2)
        targets = [
            f"The user used to work at {old} as a {rng.choice(ROLES)}.",
            f"The user's manager at {old} was {boss}.",
            f"The commute to {old} took the user {rng.choice([35, 40, 50, 65])} minutes each way.",
            f"The user left {old} in {rng.choice(MONTHS)} {rng.randint(2019, 2024)}"
            " because of the reorganisation.",
            f"At {old} the user's salary was"
            f" {rng.choice(['€52,000', '€61,000', '£48,000'])} a year.",
        ]
        others = [
            (f"The user now works at {new} as a {rng.choice(ROLES)}.", "current"),
            (f"The user's manager at {new} is {boss2}.", "current"),
            (f"The commute to {new} takes {rng.choice([20, 25, 30])} minutes by bike.", "current"),
            (f"{rng.choice(NAMES)} still works at {old}.", "other-person"),
        ]
        x = rng.choice(
            [f"my old job at {old}", "my old job", f"my time at {old}", "my previous job"]
        )
    elif choice == 1:
        old_city, new_city = rng.sample(CITIES, 2)
        street = rng.choice(STREETS)
        targets = [
            f"The user's previous flat was at {rng.randint(2, 90)} {street}, {old_city}.",
            f"The landlord of the user's old flat in {old_city} was {rng.choice(NAMES)}.",
            f"The old flat in {old_city} had a leaking bathroom ceiling.",
            f"The user paid {rng.choice(['€850', '€1,100', '£950'])} rent for the {old_city} flat.",
        ]
        others = [
            (
                f"The user now lives at {rng.randint(2, 90)}"
                f" {other(rng, STREETS, street)}, {new_city}.",
                "current",
            ),
            (f"The user's current landlord in {new_city} is {rng.choice(NAMES)}.", "current"),
            (f"The new flat in {new_city} has a balcony facing south.", "current"),
            (f"{rng.choice(NAMES)} lives in {old_city} too.", "other-person"),
        ]
        x = rng.choice([f"my old flat in {old_city}", "my old flat", "my previous apartment"])
    else:
        trip, other_trip = rng.sample(
            ["Japan", "Iceland", "Portugal", "Mexico", "Norway", "Vietnam"], 2
        )
        year = rng.randint(2019, 2024)
        targets = [
            f"The user went to {trip} in {year} with {rng.choice(NAMES)}.",
            f"In {trip} the user lost a passport and had to visit the embassy.",
            f"The best meal of the {trip} trip was in a tiny place near the station.",
            f"The user's {trip} trip cost about {rng.choice(['€3,000', '€2,400', '$4,100'])}.",
        ]
        others = [
            (f"The user is planning a trip to {other_trip} next spring.", "other-trip"),
            (f"The user went to {other_trip} in {year - 1} and loved the hiking.", "other-trip"),
            (f"{rng.choice(NAMES)} wants to visit {trip} next year.", "other-person"),
        ]
        x = rng.choice([f"my trip to {trip}", f"the {trip} trip", f"my {year} trip to {trip}"])
    k = rng.randint(3, len(targets))
    memories = [(t, "target") for t in rng.sample(targets, k)] + others
    return Built(form="topic", request=frame(rng, SUBJECT, x), memories=memories)


def gen_subject(rng: random.Random) -> Built:
    return subject_person(rng, rng.choice(NAMES)) if rng.random() < 0.6 else subject_topic(rng)


def gen_multiple(rng: random.Random) -> Built:
    style = rng.randrange(3)
    if style == 2:
        # A plural: every appointment of one person, not those of others.
        who = someone(rng)
        profs = rng.sample(PROFS, rng.randint(2, 3))
        fam = FAMILIES["appointment"]
        b = Built(form="plural", request="")
        taken: set[str] = set()
        for prof in profs:
            s = {**fam.sample(rng, who), "prof": prof}
            b.memories.append((mem_text(rng, fam, s, who), "target"))
            taken.add(b.memories[-1][0])
        who2, role = alike_or_other(rng, who)
        s = {**fam.sample(rng, who2), "prof": profs[0]}
        b.memories.append((mem_text(rng, fam, s, who2), role))
        for f2 in rng.sample([f for f in FAMILIES.values() if f.name != "appointment"], 2):
            b.memories.append((mem_text(rng, f2, f2.sample(rng, who), who), "same-person"))
        g = grammar(who, request=True)
        x = rng.choice(["all {P} appointments", "{P} appointments", "every appointment {S} {has}"])
        b.request = frame(rng, NOUN, x.format(**g))
        return b
    fams = rng.sample(list(FAMILIES.values()) if style == 0 else IDENT_FAMILIES, rng.randint(2, 3))
    b = Built(form="list" if style == 0 else "identifiers", request="")
    taken = set()
    parts = []
    for fam in fams:
        who = someone(rng)
        slots = fam.sample(rng, who)
        text = mem_text(rng, fam, slots, who)
        if text in taken:
            continue
        taken.add(text)
        b.memories.append((text, "target"))
        if style == 0:
            parts.append(req_part(rng, fam.keyword, slots, who))
            d = key_distractors(rng, fam, slots, who, taken, same_person=False)
            b.memories += [(t, r) for t, r, _, _ in d]
        else:
            assert fam.ident is not None
            parts.append(rng.choice(fam.ident_phrases).format(x=slots[fam.ident], **slots))
            b.memories += value_distractors(rng, fam, slots, who, taken, 1, [fam.ident])
    joined = ", ".join(parts[:-1]) + rng.choice([" and ", ", and also "]) + parts[-1]
    b.request = frame(rng, NOUN, joined, exact=style == 1)
    return b


def gen_correction(rng: random.Random) -> Built:
    fam = rng.choice(CORRECT_FAMILIES)
    assert fam.correct is not None
    who = someone(rng)
    slots = fam.sample(rng, who)
    target = mem_text(rng, fam, slots, who)
    new = slots[fam.correct]
    for _ in range(20):
        if new != slots[fam.correct]:
            break
        new = fam.sample(rng, who)[fam.correct]
    if fam.correct == "street":
        new = f"{other(rng, STREETS, slots['street'])}, {slots['city']}"
    update = req_part(rng, fam.update, {**slots, "new": new}, who)
    b = Built(form=fam.name, request=frame(rng, CORRECTION, update))
    b.memories.append((target, "target"))
    b.memories += [(t, r) for t, r, _, _ in key_distractors(rng, fam, slots, who, {target})]
    return b


def gen_nothing(rng: random.Random) -> Built:
    """The request's fact is not stored; only its near misses are."""
    style = rng.randrange(4)
    if style == 3:
        # "Everything about Alicia" when only Alice (and others) are stored.
        name = rng.choice(NAMES)
        absent = ALIKE[name]
        b = subject_person(rng, name)
        b.memories = [
            ("similar-name" if r == "target" else r, t)[::-1]
            for t, r in b.memories
            if not mentions(absent, t)
        ]
        b.request = frame(rng, SUBJECT, rng.choice([absent, f"my friend {absent}"]))
        b.form = "absent-person"
        return b
    fam = rng.choice(IDENT_FAMILIES if style == 0 else list(FAMILIES.values()))
    who = someone(rng)
    slots = fam.sample(rng, who)
    taken: set[str] = set()
    b = Built(form="", request="")
    stored = slots
    if style == 0:
        # An identifier near every stored one (one digit off, transposed, a prefix of it).
        assert fam.ident is not None
        b.form = "near-identifier"
        ident = slots[fam.ident]
        for _ in range(4):
            s2 = {**slots, fam.ident: fam.near[fam.ident](rng, ident)}
            text = mem_text(rng, fam, s2, who)
            if s2[fam.ident] != ident and text not in taken and len(b.memories) < 2:
                taken.add(text)
                b.memories.append((text, "near-identifier"))
                stored = s2
        phrase = rng.choice(fam.ident_phrases).format(x=ident, **slots)
        b.request = frame(rng, NOUN, phrase, exact=True)
    elif style == 1:
        # The same fact of another person is stored (below), not this person's.
        b.form = "other-person"
        if rng.random() < 0.5:
            b.request = frame(rng, NOUN, req_part(rng, fam.keyword, slots, who))
        else:
            b.request = frame(rng, THAT, req_part(rng, fam.restate, slots, who))
    else:
        # The same person's fact with another value (day, dose, code) is stored.
        b.form = "other-value"
        template = rng.choice(fam.restate)
        b.memories += value_distractors(rng, fam, slots, who, taken, 2, placeholders(template))
        b.request = frame(rng, THAT, req_part(rng, [template], slots, who))
        if not b.memories:
            return gen_nothing(rng)
    for t, r, _, _ in key_distractors(rng, fam, stored, who, taken):
        b.memories.append((t, r))
    return b


# -- Japanese ------------------------------------------------------------------------------

JA_NAMES = ["田中", "田村", "中田", "佐藤", "佐々木", "鈴木", "鈴村", "山田", "山本", "高橋"]
JA_ALIKE = {
    "田中": "田村",
    "田村": "中田",
    "中田": "田中",
    "佐藤": "佐々木",
    "佐々木": "佐藤",
    "鈴木": "鈴村",
    "鈴村": "鈴木",
    "山田": "山本",
    "山本": "山田",
    "高橋": "高田",
}
JA_PROFS = ["歯医者", "眼科", "皮膚科", "整体", "耳鼻科", "美容院"]
JA_DAYS = ["月曜日", "火曜日", "水曜日", "木曜日", "金曜日", "土曜日"]
JA_CITIES = ["大阪", "京都", "福岡", "札幌", "横浜", "名古屋", "神戸", "仙台"]
JA_SERVICES = ["銀行", "メール", "会社のVPN", "マイナポータル"]


def ja_phone(rng: random.Random) -> str:
    return f"090-{digits(rng, 4)}-{digits(rng, 4)}"


def gen_japanese(rng: random.Random) -> Built:
    style = rng.randrange(5)
    b = Built(form="", request="")
    if style == 0:
        # 「歯医者の件は忘れて」: every memory of that topic, none of the others.
        prof, prof2, prof3 = rng.sample(JA_PROFS, 3)
        day, day2 = rng.sample(JA_DAYS, 2)
        targets = [
            f"{day}の午前{rng.randint(9, 11)}時に{prof}の予約がある。",
            f"{prof}の先生は{rng.choice(JA_NAMES)}先生で、駅前のクリニック。",
            f"{prof}の治療費は{rng.choice(['3000', '5200', '8000'])}円だった。",
        ]
        k = rng.randint(1, 3)
        b.memories = [(t, "target") for t in rng.sample(targets, k)]
        b.memories += [
            (f"{day2}の午後{rng.randint(1, 5)}時に{prof2}の予約がある。", "other-key"),
            (f"{prof3}には来月行く予定。", "other-key"),
            (f"{rng.choice(JA_NAMES)}さんの{prof}は{day}の午後。", "other-person"),
        ]
        b.form = "ja-topic"
        b.request = rng.choice(
            [
                f"{prof}の件は忘れて",
                f"{prof}のことは全部削除して",
                f"{prof}に関する記憶を消してください",
                f"{prof}のことは忘れてください",
            ]
        )
        if k == 1 or rng.random() < 0.5:
            # The other person's appointment is a different subject only for "my" dentist.
            b.request = "私の" + b.request
        else:
            b.memories = [m for m in b.memories if m[1] != "other-person"]
        return b
    if style == 1:
        # Person subject in Japanese, with names written alike (田中 / 田村 / 中田).
        name = rng.choice(JA_NAMES)
        twin = JA_ALIKE[name]
        facts = [
            f"{name}さんの電話番号は{ja_phone(rng)}。",
            f"{name}さんは{rng.choice(JA_CITIES)}に住んでいる。",
            f"{name}さんの誕生日は{rng.randint(1, 12)}月{rng.randint(1, 28)}日。",
            f"{name}さんは猫アレルギーがある。",
        ]
        b.memories = [(t, "target") for t in rng.sample(facts, rng.randint(2, 4))]
        b.memories += [
            (f"{twin}さんの電話番号は{ja_phone(rng)}。", "similar-name"),
            (f"{twin}さんは{rng.choice(JA_CITIES)}に住んでいる。", "similar-name"),
            (
                f"{rng.choice([n for n in JA_NAMES if n not in (name, twin)])}さんと"
                f"{name}さんは同じ大学の出身。",
                "mention",
            ),
        ]
        b.form = "ja-person"
        b.request = rng.choice(
            [
                f"{name}さんについて覚えていることは全部忘れて",
                f"{name}さんのことは全部削除して",
                f"{name}さんに関する記憶をすべて消してください",
            ]
        )
        return b
    if style == 2:
        # One fact restated in Japanese, beside the same fact with another value or person.
        name = rng.choice(JA_NAMES)
        city, city2 = rng.sample(JA_CITIES, 2)
        twin = JA_ALIKE[name]
        b.memories = [
            (f"{name}さんは来月{city}に引っ越す予定。", "target"),
            (f"{name}さんは去年{city2}から引っ越してきた。", "same-person"),
            (f"{twin}さんは来月{city}に引っ越す予定。", "similar-name"),
            (f"私は来年{city}に引っ越したい。", "other-person"),
        ]
        b.form = "ja-restated"
        b.request = rng.choice(
            [
                f"{name}さんが{city}に引っ越すことは忘れて",
                f"{name}さんの{city}への引っ越しの件は削除して",
            ]
        )
        return b
    # An identifier across languages: English request, Japanese memory, or the reverse.
    code = digits(rng, rng.choice([5, 6]))
    near = near_number(rng, code)
    service = rng.choice(JA_SERVICES)
    if style == 3:
        b.memories = [
            (f"{service}の認証コードは{code}。", "target"),
            (f"{service}の認証コードは{near}(古いもの)。", "near-identifier"),
            (f"{rng.choice(JA_NAMES)}さんの電話番号は{ja_phone(rng)}。", "other-key"),
            (f"{rng.choice(JA_DAYS)}に{rng.choice(JA_PROFS)}の予約がある。", "other-key"),
        ]
        b.form = "en-request-ja-memory"
        b.request = frame(
            rng,
            NOUN,
            rng.choice([f"the verification code {code}", code, f"the code {code}"]),
            exact=True,
        )
        return b
    order = order_number(rng)
    b.memories = [
        (
            f"Order {order} from {rng.choice(SHOPS)} ({rng.choice(ITEMS)}) arrives on {date(rng)}.",
            "target",
        ),
        (
            f"Order {near_order(rng, order)} from {rng.choice(SHOPS)}"
            f" ({rng.choice(ITEMS)}) was returned.",
            "near-identifier",
        ),
        (f"The verification code for the bank login was {code}.", "other-key"),
    ]
    b.form = "ja-request-en-memory"
    b.request = rng.choice(
        [
            f"注文番号{order}のことは忘れて",
            f"{order}の注文を削除して",
            f"注文{order}は消してください",
        ]
    )
    return b


# -- issue 24: when the wording fights back ------------------------------------------------


def person_g(rng: random.Random, who: str, *, request: bool = False) -> dict[str, str]:
    """`grammar` with the auxiliaries the kinds below need ("does not", "doesn't")."""
    g = grammar(who, request=True) if request else fam_grammar(rng, who)
    first = g["S"] == "I"
    g["do"] = "do" if first else "does"
    g["dont"] = "don't" if first else "doesn't"
    g["ies"] = "ies" if g["s"] else "y"
    return g


def sentence(template: str, g: dict[str, str], **slots: str) -> str:
    """A memory's text: capitalised, articles fixed."""
    return articles(cap(template.format(**slots, **g)))


def phrase(template: str, g: dict[str, str], **slots: str) -> str:
    """A request's object (framed and capitalised by `frame`)."""
    return articles(template.format(**slots, **g))


WORD = re.compile(r"\w+")
FUNCTION_WORDS = frozenset(
    WORD.findall(
        "a an the and also but or of to in on at for with by from as is am are was were be been "
        "has have had do does did not no it its this that these those there then so too now "
        "can could will would i me my you your"
    )
)


def words(text: str) -> set[str]:
    return set(WORD.findall(text.casefold()))


def content_words(text: str) -> set[str]:
    return words(text) - FUNCTION_WORDS


# Full-width forms of ASCII letters, digits and the hyphen (what a Japanese IME types).
FULL_WIDTH = {c: chr(ord(c) + 0xFEE0) for c in "0123456789-" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ"}


def full_width(text: str) -> str:
    return "".join(FULL_WIDTH.get(c, c) for c in text)


def recase(rng: random.Random, text: str, avoid: str = "") -> str:
    """The same text in another letter case (never `avoid`, when there is another)."""
    options = [
        text.lower(),
        text.upper(),
        re.sub(r"[a-z]+", lambda m: m.group(0).capitalize(), text.lower()),
        text[:1].upper() + text[1:].lower(),
    ]
    fresh = [o for o in dict.fromkeys(options) if o != avoid]
    return rng.choice(fresh or options)


def pad(rng: random.Random, text: str) -> str:
    """Stray whitespace around an identifier, as pasted."""
    return rng.choice([f"{text} ", f" {text}", f"  {text} ", text])


# Spelling: one identifier written another way, beside identifiers a separator or a digit away.

EMAIL_USES = ["work", "personal", "billing", "old"]
EMAIL_MEMORY = (
    "{P} {use} e-mail is {x}.",
    "{S} use{s} {x} for {use} mail.",
    "E-mail ({use}) of {O}: {x}.",
)


def spell_email(rng: random.Random) -> Built:
    who = someone(rng)
    first = (who or rng.choice(["sam", "jo", "alex", "kim"])).lower()
    last = rng.choice(LAST_NAMES).lower()
    domain = rng.choice(EMAIL_DOMAINS)
    local = first if rng.random() < 0.5 else f"{first}.{last}"
    address = f"{local}@{domain}"
    stored = address if rng.random() < 0.6 else recase(rng, address)
    asked = recase(rng, address, avoid=stored)
    uses = rng.sample(EMAIL_USES, 4)

    def line(x: str, use: str, person: str = who) -> str:
        g = person_g(rng, person)
        return sentence(rng.choice(natural(EMAIL_MEMORY, g)), g, x=x, use=use)

    b = Built(form="email", request="")
    b.memories.append((line(stored, uses[0]), "target"))
    near: list[tuple[str, str]] = []
    if "." in local:
        near.append((f"{first}@{domain}", "shorter-identifier"))  # the target extends it
        near.append((f"{local}{rng.choice(['.work', '.jr', '2'])}@{domain}", "longer-identifier"))
    else:
        near.append((f"{local}.{last}@{domain}", "longer-identifier"))  # extends the local part
        near.append((f"{rng.choice(['j.', 'm', 'the'])}{local}@{domain}", "contains-identifier"))
    near.append((f"{local}@{other(rng, EMAIL_DOMAINS, domain)}", "other-domain"))
    near.append((f"{local[:-1]}@{domain}", "one-char-off"))
    for (x, role), use in zip(rng.sample(near, 3), uses[1:], strict=True):
        b.memories.append((line(x if rng.random() < 0.5 else recase(rng, x), use), role))
    who2 = someone(rng, who)
    b.memories.append((line(email(rng, who2 or "sam"), uses[0], who2), "other-person"))
    if rng.random() < 0.3:
        # The same address spelled a third way in another memory: also a target.
        b.form = "email-twice"
        b.memories.append(
            (f"Invoices for {person_g(rng, who)['O']} go to {address.upper()}.", "target")
        )
    x = rng.choice(["{x}", "the address {x}", "e-mail {x}", "anything with {x}"])
    b.request = frame(rng, NOUN, x.format(x=pad(rng, asked)), exact=True)
    if rng.random() < 0.3:
        b.request += " "
    return b


PHONE_FORMATS = (
    "+1 ({a}) {e}-{l}",
    "({a}) {e}-{l}",
    "{a} {e} {l}",
    "{a}-{e}-{l}",
    "+1 {a} {e} {l}",
    "+1-{a}-{e}-{l}",
    "{a}.{e}.{l}",
    "+1{a}{e}{l}",
    "{a}{e}{l}",
)
PHONE_MEMORY = (
    "{P} phone number is {x}.",
    "{S} can be reached on {x}.",
    "Mobile of {O}: {x}.",
    "Call {O} on {x} after 6 pm.",
)


def spell_phone(rng: random.Random) -> Built:
    who = someone(rng)
    parts = {
        "a": rng.choice(["555", "415", "212", "646", "617", "303"]),
        "e": f"{rng.randint(0, 999):03d}",
        "l": f"{rng.randint(0, 9999):04d}",
    }
    stored_fmt, asked_fmt, third_fmt = rng.sample(PHONE_FORMATS, 3)

    def line(fmt: str, p: dict[str, str], person: str = who) -> str:
        g = person_g(rng, person)
        return sentence(rng.choice(natural(PHONE_MEMORY, g)), g, x=fmt.format(**p))

    b = Built(form="phone", request="")
    b.memories.append((line(stored_fmt, parts), "target"))
    near = [
        ({**parts, "l": one_digit_off(rng, parts["l"])}, "one-digit-off"),
        ({**parts, "e": one_digit_off(rng, parts["e"])}, "one-digit-off"),
        ({**parts, "l": transposed(rng, parts["l"])}, "transposed"),
        (
            {**parts, "a": other(rng, ["555", "415", "212", "646", "617", "303"], parts["a"])},
            "other-area",
        ),
    ]
    for p, role in rng.sample(near, 2):
        if p != parts:
            b.memories.append((line(stored_fmt, p), role))
    who2 = someone(rng, who)
    b.memories.append(
        (line(stored_fmt, {**parts, "l": f"{rng.randint(0, 9999):04d}"}, who2), "other-person")
    )
    if rng.random() < 0.3:
        b.form = "phone-twice"
        g = person_g(rng, who)
        b.memories.append(
            (
                sentence("{P} landlord has {P} number as {x}.", g, x=third_fmt.format(**parts)),
                "target",
            )
        )
    x = rng.choice(["{x}", "the number {x}", "phone number {x}", "anything with {x}"])
    b.request = frame(rng, NOUN, x.format(x=asked_fmt.format(**parts)), exact=True)
    return b


ORDER_KINDS = {
    "ORD": (
        "order",
        (
            "Order {x} from {shop} ({item}) arrives on {day}.",
            "{S} ordered {item} from {shop}, order {x}.",
        ),
    ),
    "INV": (
        "invoice",
        ("Invoice {x} from {shop} ({item}) is paid.", "{shop} sent {O} invoice {x} for {item}."),
    ),
    "RMA": (
        "return",
        (
            "Return {x} for {item} from {shop} is still open.",
            "{S} sent {item} back to {shop}, return {x}.",
        ),
    ),
    "PO": (
        "purchase order",
        (
            "Purchase order {x} covers {item} from {shop}.",
            "{S} raised purchase order {x} for {item}.",
        ),
    ),
}
ORDER_FORMATS = (
    "{P}-{Y}-{N}",
    "{p}_{Y}_{N}",
    "{P}/{Y}/{N}",
    "{P} {Y} {N}",
    "{P}{Y}{N}",
    "{p}-{Y}-{N}",
)


def spell_order(rng: random.Random) -> Built:
    who = someone(rng)
    prefix = rng.choice(list(ORDER_KINDS))
    year = str(rng.randint(2022, 2025))
    seq = f"{rng.randint(1, 99):03d}" if rng.random() < 0.6 else f"{rng.randint(1, 99):03d}0"
    stored_fmt, asked_fmt, third_fmt = rng.sample(ORDER_FORMATS, 3)

    def code(fmt: str, pre: str, y: str, n: str) -> str:
        return fmt.format(P=pre, p=pre.lower(), Y=y, N=n)

    def line(x: str, pre: str, person: str = who) -> str:
        g = person_g(rng, person)
        shop, item = rng.choice(SHOPS), rng.choice(ITEMS)
        templates = natural(ORDER_KINDS[pre][1], g) or ORDER_KINDS[pre][1]
        return sentence(rng.choice(templates), g, x=x, shop=shop, item=item, day=date(rng))

    b = Built(form="order", request="")
    b.memories.append((line(code(stored_fmt, prefix, year, seq), prefix), "target"))
    near = [
        ((prefix, year, seq + str(rng.randint(0, 9))), "longer-identifier"),  # target is its prefix
        ((prefix, year, one_digit_off(rng, seq)), "one-digit-off"),
        ((prefix, other(rng, ["2022", "2023", "2024", "2025"], year), seq), "other-year"),
        ((other(rng, list(ORDER_KINDS), prefix), year, seq), "other-prefix"),
    ]
    if seq.endswith("0"):
        near.append(((prefix, year, seq[:-1]), "shorter-identifier"))  # the target extends it
    picked = [near[0], *rng.sample(near[1:], 2)]
    for (pre, y, n), role in picked:
        if (pre, y, n) != (prefix, year, seq):
            b.memories.append((line(code(stored_fmt, pre, y, n), pre), role))
    if rng.random() < 0.25:
        b.form = "order-twice"
        b.memories.append((f"Keep the receipt for {code(third_fmt, prefix, year, seq)}.", "target"))
    label = ORDER_KINDS[prefix][0]
    x = rng.choice(["{x}", f"{label} {{x}}", f"the {label} {{x}}", "anything with {x}"])
    asked = code(asked_fmt, prefix, year, seq)
    asked = asked if rng.random() < 0.5 else recase(rng, asked)
    b.request = frame(rng, NOUN, x.format(x=asked), exact=True)
    return b


JA_CODE_MEMORY = (
    "{svc}の認証コードは{x}。",
    "{svc}の暗証番号は{x}です。",
    "{svc}のワンタイムコード:{x}",
)
JA_CODE_REQUEST = (
    "{x}のコードは忘れて",
    "認証コード{x}を削除して",
    "{x}は消してください",
    "{x}のことは忘れて",
)


def spell_full_width(rng: random.Random) -> Built:
    """Full-width digits (and letters) on one side, plain ones on the other."""
    code = digits(rng, rng.choice([4, 5, 6]))
    if rng.random() < 0.25:
        code = rng.choice(["AB", "KX", "TM"]) + code
    variant = rng.randrange(3)
    # 0: Japanese memory full-width, Japanese request plain; 1: the reverse;
    # 2: English memory plain, English request full-width (typed with a Japanese IME).
    mem_wide = variant == 0
    b = Built(form=["ja-wide-memory", "ja-wide-request", "en-wide-request"][variant], request="")
    services = rng.sample(JA_SERVICES, 3) if variant < 2 else rng.sample(SERVICES, 3)

    def line(x: str, svc: str) -> str:
        x = full_width(x) if mem_wide else x
        if variant < 2:
            return rng.choice(JA_CODE_MEMORY).format(svc=svc, x=x)
        g = person_g(rng, USER)
        return sentence(rng.choice(FAMILIES["code"].memory), g, code=x, service=svc)

    b.memories.append((line(code, services[0]), "target"))
    near = [
        (one_digit_off(rng, code), "one-digit-off"),
        (code + str(rng.randint(0, 9)), "longer-identifier"),
        (code[:-1], "shorter-identifier"),
        (transposed(rng, code), "transposed"),
    ]
    for (x, role), svc in zip(rng.sample(near, 2), services[:2], strict=True):
        if x != code:
            b.memories.append((line(x, svc), role))
    b.memories.append((line(one_digit_off(rng, code), services[2]), "other-key"))
    if rng.random() < 0.3:
        # The same code in the other width in another memory: also a target.
        b.form += "-twice"
        x = code if mem_wide else full_width(code)
        b.memories.append(
            (
                f"メモ:{x}は{services[0]}用。"
                if variant < 2
                else f"Note: {x} is for the {services[0]}.",
                "target",
            )
        )
    asked = code if mem_wide else full_width(code)
    if variant < 2:
        b.request = rng.choice(JA_CODE_REQUEST).format(x=asked)
    else:
        x = rng.choice(["the code {x}", "{x}", "verification code {x}"])
        b.request = frame(rng, NOUN, x.format(x=asked), exact=True)
    return b


SPLIT_LABELS = [
    "library card number",
    "membership number",
    "customer number",
    "insurance number",
    "tracking number",
]
SPLIT_MEMORY = (
    "{P} {label} is {x}.",
    "The {label} of {O}: {x}.",
    "{S} wrote down the {label} {x}.",
)


def group(text: str, sizes: Sequence[int], sep: str) -> str:
    out, i = [], 0
    for n in sizes:
        if i >= len(text):
            break
        out.append(text[i : i + n])
        i += n
    if i < len(text):
        out.append(text[i:])
    return sep.join(out)


def spell_split(rng: random.Random) -> Built:
    """A long code split by spaces or dashes one way in the memory, another in the request."""
    who = someone(rng)
    iban = rng.random() < 0.3
    if iban:
        raw = "DE" + digits(rng, 2) + digits(rng, 18)
        label = "IBAN"
    else:
        raw = digits(rng, rng.choice([8, 10, 12]))
        label = rng.choice(SPLIT_LABELS)
    spellings: list[Callable[[str], str]] = [
        lambda t: group(t, [4] * 6, " "),
        lambda t: group(t, [4] * 6, "-"),
        lambda t: t,
        lambda t: group(t, [3] * 8, " "),
        lambda t: group(t, [2, 4, 4, 4, 4], " "),
    ]
    stored, asked = rng.sample(spellings, 2)
    while asked(raw) == stored(raw):
        asked = rng.choice(spellings)

    def line(t: str, person: str = who) -> str:
        g = person_g(rng, person)
        return sentence(rng.choice(natural(SPLIT_MEMORY, g)), g, x=stored(t), label=label)

    b = Built(form="iban" if iban else "split", request="")
    b.memories.append((line(raw), "target"))
    head = raw[:4]
    near = [
        (head + one_digit_off(rng, raw[4:]), "one-digit-off"),
        (raw + digits(rng, rng.choice([1, 4])), "longer-identifier"),  # the target is its prefix
        (raw[:-4], "shorter-identifier"),  # the target extends it
        (
            raw[4:8] + raw[:4] + raw[8:] if not iban else head + raw[8:12] + raw[4:8] + raw[12:],
            "groups-reordered",
        ),
    ]
    for t, role in rng.sample(near, 3):
        if t != raw:
            b.memories.append((line(t), role))
    b.memories.append((line(head + digits(rng, len(raw) - 4), someone(rng, who)), "other-person"))
    x = rng.choice(["{x}", f"the {label} {{x}}", f"{label} {{x}}", "anything with {x}"])
    text = asked(raw)
    b.request = frame(
        rng, NOUN, x.format(x=text.lower() if iban and rng.random() < 0.5 else text), exact=True
    )
    return b


def gen_spelling(rng: random.Random) -> Built:
    maker = rng.choice([spell_email, spell_phone, spell_order, spell_full_width, spell_split])
    return maker(rng)


# Across languages: English request over a Japanese or Chinese memory, and the reverse.

ZH_SERVICES = ["银行", "邮箱", "公司VPN", "支付宝"]
ZH_DAYS = ["周一", "周二", "周三", "周四", "周五", "周六"]
ZH_CITIES = ["上海", "北京", "深圳", "杭州", "成都", "南京"]
ZH_NAMES = ["王伟", "李娜", "张伟", "刘洋", "陈静"]
ZH_ALIKE = {"王伟": "王玮", "李娜": "李娟", "张伟": "张炜", "刘洋": "刘阳", "陈静": "陈晶"}

CROSS_MEMORY: dict[str, dict[str, tuple[str, ...]]] = {
    "ja": {
        "code": ("{svc_ja}の認証コードは{x}。", "{svc_ja}のワンタイムコードは{x}です。"),
        "phone": ("{ja_name}さんの電話番号は{x}。", "{ja_name}さんの携帯は{x}です。"),
        "order": ("注文番号{x}の荷物は{ja_day}に届く。", "{x}の注文は{ja_day}に発送された。"),
    },
    "zh": {
        "code": ("{svc_zh}的验证码是{x}。", "我的{svc_zh}动态码:{x}"),
        "phone": ("{zh_name}的手机号是{x}。", "{zh_name}的电话:{x}"),
        "order": ("订单号{x}的包裹{zh_day}到。", "{x}这个订单{zh_day}已经发货。"),
    },
    "en": {
        "code": (
            "The verification code for the {svc} was {x}.",
            "The user's {svc} one-time code: {x}.",
        ),
        "phone": ("{name}'s phone number is {x}.", "{name} can be reached on {x}."),
        "order": (
            "Order {x} from {shop} arrives on {day}.",
            "The user ordered {item} from {shop}, order {x}.",
        ),
    },
}
CROSS_REQUEST: dict[str, dict[str, tuple[str, ...]]] = {
    "ja": {
        "code": ("{x}のコードは忘れて", "認証コード{x}を削除して"),
        "phone": ("電話番号{x}は消してください", "{x}の番号を忘れて"),
        "order": ("注文番号{x}のことは忘れて", "{x}の注文を削除して"),
    },
    "zh": {
        "code": ("请忘记验证码{x}", "把{x}这个验证码删掉"),
        "phone": ("删除电话号码{x}", "请忘记{x}这个号码"),
        "order": ("请删除订单{x}", "忘掉订单号{x}"),
    },
    "en": {
        "code": ("the code {x}", "verification code {x}", "{x}"),
        "phone": ("the number {x}", "phone number {x}", "{x}"),
        "order": ("order {x}", "the order {x}", "{x}"),
    },
}


def cross_ident(rng: random.Random, lang: str, what: str) -> str:
    if what == "code":
        return digits(rng, rng.choice([5, 6]))
    if what == "phone":
        return {
            "ja": ja_phone(rng),
            "zh": f"1{rng.choice('3589')}{digits(rng, 9)}",
            "en": phone(rng),
        }[lang]
    return f"{rng.choice(['ORD', 'SO', 'JD'])}-{digits(rng, 8)}"


def cross_line(rng: random.Random, lang: str, what: str, x: str) -> str:
    slots = {
        "svc": rng.choice(SERVICES),
        "svc_ja": rng.choice(JA_SERVICES),
        "svc_zh": rng.choice(ZH_SERVICES),
        "ja_name": rng.choice(JA_NAMES),
        "zh_name": rng.choice(ZH_NAMES),
        "name": rng.choice(NAMES),
        "ja_day": rng.choice(JA_DAYS),
        "zh_day": rng.choice(ZH_DAYS),
        "day": date(rng),
        "shop": rng.choice(SHOPS),
        "item": rng.choice(ITEMS),
    }
    return rng.choice(CROSS_MEMORY[lang][what]).format(x=x, **slots)


def cross_identifier(rng: random.Random, req: str, mem: str) -> Built:
    what = rng.choice(["code", "phone", "order"])
    x = cross_ident(rng, mem, what)
    b = Built(form=f"{req}-request-{mem}-memory", request="")
    b.memories.append((cross_line(rng, mem, what, x), "target"))
    near = [(one_digit_off(rng, x), "one-digit-off"), (transposed(rng, x), "transposed")]
    near.append((x + str(rng.randint(0, 9)), "longer-identifier"))
    for y, role in rng.sample(near, 2):
        if y != x:
            b.memories.append((cross_line(rng, mem, what, y), role))  # the memory's language
    y = near_number(rng, x)
    if y != x:
        b.memories.append((cross_line(rng, req, what, y), "near-identifier"))  # the request's
    other_what = other(rng, ["code", "phone", "order"], what)
    b.memories.append(
        (cross_line(rng, mem, other_what, cross_ident(rng, mem, other_what)), "other-key")
    )
    template = rng.choice(CROSS_REQUEST[req][what])
    if req == "en":
        b.request = frame(rng, NOUN, template.format(x=x), exact=True)
    else:
        b.request = template.format(x=x)
    return b


CROSS_FACTS = {
    "ja": (
        "{n}さんは{ja_city}に住んでいる。",
        "{n}さんの誕生日は{m}月{d}日。",
        "{n}さんは猫アレルギーがある。",
        "{n}さんの電話番号は{ja_phone}。",
    ),
    "zh": (
        "{n}住在{zh_city}。",
        "{n}的生日是{m}月{d}日。",
        "{n}对花生过敏。",
        "{n}的手机号是{zh_phone}。",
    ),
}
CROSS_SUBJECT = {
    "ja": ("{n}さんのことは全部忘れて", "{n}さんについて覚えていることは全部削除して"),
    "zh": ("请忘记关于{n}的一切", "把{n}的所有信息都删掉"),
}


def cross_facts(rng: random.Random, lang: str, name: str, count: int) -> list[str]:
    """`count` different facts about `name` (never two birthdays)."""
    return [
        template.format(
            n=name,
            ja_city=rng.choice(JA_CITIES),
            zh_city=rng.choice(ZH_CITIES),
            m=rng.randint(1, 12),
            d=rng.randint(1, 28),
            ja_phone=ja_phone(rng),
            zh_phone=f"1{rng.choice('3589')}{digits(rng, 9)}",
        )
        for template in rng.sample(CROSS_FACTS[lang], count)
    ]


def cross_name(rng: random.Random) -> Built:
    variant = rng.randrange(3)
    lang = rng.choice(["ja", "zh"])
    b = Built(form="", request="")
    if variant == 0:
        # "forget everything about Alice" over Japanese / Chinese memories naming Alice.
        name = rng.choice(NAMES)
        twin = ALIKE[name]
        b.memories = [(t, "target") for t in cross_facts(rng, lang, name, rng.randint(2, 3))]
        if rng.random() < 0.5:
            fam = rng.choice(list(FAMILIES.values()))
            b.memories.append((mem_text(rng, fam, fam.sample(rng, name), name), "target"))
        b.memories += [(t, "similar-name") for t in cross_facts(rng, lang, twin, 2)]
        b.memories.append(
            (cross_facts(rng, lang, other(rng, NAMES, name, twin), 1)[0], "other-person")
        )
        b.form = f"en-request-{lang}-memory-name"
        b.request = frame(rng, SUBJECT, rng.choice([name, f"my friend {name}"]))
    elif variant == 1:
        # The same in a Japanese / Chinese request over English memories.
        name = rng.choice(NAMES)
        twin = ALIKE[name]
        for fam in rng.sample(list(FAMILIES.values()), rng.randint(2, 3)):
            b.memories.append((mem_text(rng, fam, fam.sample(rng, name), name), "target"))
        for fam in rng.sample(list(FAMILIES.values()), 2):
            b.memories.append((mem_text(rng, fam, fam.sample(rng, twin), twin), "similar-name"))
        b.form = f"{lang}-request-en-memory-name"
        b.request = rng.choice(CROSS_SUBJECT[lang]).format(n=name)
    else:
        # A Japanese / Chinese name in an English request ("forget everything about 田中").
        names, alike = (JA_NAMES, JA_ALIKE) if lang == "ja" else (ZH_NAMES, ZH_ALIKE)
        name = rng.choice(names)
        twin = alike[name]
        b.memories = [(t, "target") for t in cross_facts(rng, lang, name, rng.randint(2, 3))]
        b.memories += [(t, "similar-name") for t in cross_facts(rng, lang, twin, 2)]
        b.form = f"en-request-{lang}-name"
        b.request = frame(
            rng, SUBJECT, name + ("さん" if lang == "ja" and rng.random() < 0.5 else "")
        )
    return b


def cross_number(rng: random.Random) -> Built:
    """An amount: English request over a Japanese / Chinese memory, or the reverse."""
    lang = rng.choice(["ja", "zh"])
    name = rng.choice(NAMES)
    n = str(rng.choice([12000, 35000, 48000, 85000, 120000, 250000]))
    near = [str(int(n) + rng.choice([500, 1000, -1000])), n + "0", transposed(rng, n)]
    native = {"ja": "{who}に{n}円を貸した。", "zh": "我借给{who} {n}元。"}[lang]
    english = "The user lent {who} {n} {unit} for {why}."
    why = rng.choice(["a car repair", "rent", "a flight home", "a new laptop"])
    unit_en = {"ja": "yen", "zh": "yuan"}[lang]
    b = Built(form="", request="")
    english_request = rng.random() < 0.5

    def line(v: str, w: str) -> str:
        if english_request:
            return native.format(who=w, n=v)
        return english.format(who=w, n=v, unit=unit_en, why=why)

    if english_request:
        b.form = f"en-request-{lang}-memory-number"
        b.request = frame(
            rng, THAT, rng.choice([f"I lent {name} {n} {unit_en}", f"{name} owes me {n} {unit_en}"])
        )
    else:
        b.form = f"{lang}-request-en-memory-number"
        b.request = {
            "ja": rng.choice(
                [f"{name}に貸した{n}円のことは忘れて", f"{name}への{n}円の貸しを削除して"]
            ),
            "zh": rng.choice([f"请忘记我借给{name}的{n}元", f"删除{name}欠我{n}元这件事"]),
        }[lang]
    b.memories.append((line(n, name), "target"))
    for v in rng.sample([v for v in near if v != n], 2):
        b.memories.append((line(v, name), "near-identifier"))
    b.memories.append((line(n, ALIKE[name]), "similar-name"))
    return b


def gen_crosslang(rng: random.Random) -> Built:
    style = rng.randrange(6)
    if style < 4:
        req, mem = [("en", "ja"), ("en", "zh"), ("ja", "en"), ("zh", "en")][style]
        return cross_identifier(rng, req, mem)
    return cross_name(rng) if style == 4 else cross_number(rng)


# Compound memories: two facts in one memory, one to forget; the answer is an edit.

COMPOUND_FACTS: dict[str, tuple[str, Callable[[random.Random, str], dict[str, str]], str]] = {
    # name: (predicate, slots, a memory holding only this fact, with more to it)
    "drug": (
        "take{s} {drug}",
        _slots(drug=_pick(DRUGS)),
        "{P} {drug} prescription is renewed every three months.",
    ),
    "allergy": (
        "{is} allergic to {allergen}",
        _slots(allergen=_pick(ALLERGENS)),
        "{P} {allergen} allergy was confirmed by a test in {year}.",
    ),
    "job": (
        "work{s} at {company}",
        _slots(company=_pick(COMPANIES)),
        "{S} {has} been at {company} for {k} years.",
    ),
    "city": (
        "live{s} in {city}",
        _slots(city=_pick(CITIES)),
        "{P} flat in {city} is close to the river.",
    ),
    "pet": (
        "{has} a {animal} called {pet}",
        _slots(animal=_pick(ANIMALS), pet=_pick(PET_NAMES)),
        "{pet}, {P} {animal}, needs a vet visit in {month}.",
    ),
    "car": (
        "drive{s} a {car}",
        _slots(car=_pick(CARS)),
        "{P} {car} needs new tyres before winter.",
    ),
    "sport": (
        "play{s} {sport} on {day}s",
        _slots(sport=_pick(["tennis", "squash", "football", "volleyball"]), day=_pick(WEEKDAYS)),
        "{P} {sport} club charges {fee} a season.",
    ),
    "lang": (
        "speak{s} {lang}",
        _slots(lang=_pick(["German", "French", "Spanish", "Greek"])),
        "{S} learned {lang} during a year abroad.",
    ),
    "gym": (
        "{is} a member of {gym}",
        _slots(gym=_pick(GYMS)),
        "{P} {gym} membership renews in {month}.",
    ),
}
COMPOUND_JOINS: tuple[str, ...] = (
    "{S} {a} and {b}.",
    "{S} {a}, and {S} {b} too.",
    "{S} {a}; {S} {b} as well.",
)
COMPOUND_JOINS += ("{S} {a}. {S} {b}.",)


def gen_compound(rng: random.Random) -> Built:
    who = someone(rng)
    forget, keep = rng.sample(list(COMPOUND_FACTS), 2)
    slots = {
        "year": str(rng.randint(2015, 2024)),
        "k": str(rng.randint(2, 9)),
        "month": rng.choice(MONTHS),
        "fee": rng.choice(["€120", "€240", "£180"]),
    }
    for name in (forget, keep):
        slots.update(COMPOUND_FACTS[name][1](rng, who))
    first = rng.random() < 0.5  # whether the fact to forget comes first in the memory
    a, b_ = (forget, keep) if first else (keep, forget)
    g = person_g(rng, who)
    join = rng.choice(COMPOUND_JOINS)
    pred = {n: COMPOUND_FACTS[n][0].format(**slots, **g) for n in (forget, keep)}
    text = articles(join.format(S=g["S"], a=pred[a], b=pred[b_]))
    text = ". ".join(cap(s) for s in text.split(". "))
    kept = sentence("{S} {x}.", g, x=pred[keep])
    b = Built(form=f"forget-{forget}-keep-{keep}", request="")
    b.memories.append((text, "target"))
    b.edits[text] = kept
    # The same two facts of someone else, stored separately: not targets.
    who2, role = alike_or_other(rng, who)
    g2 = person_g(rng, who2)
    for name in (forget, keep):
        b.memories.append((sentence("{S} " + COMPOUND_FACTS[name][0] + ".", g2, **slots), role))
    # A memory holding only the kept fact (with more to it): not a target.
    g3 = person_g(rng, who)
    b.memories.append((sentence(COMPOUND_FACTS[keep][2], g3, **slots), "kept-fact"))
    if rng.random() < 0.25:
        # The fact to forget also stored alone: that memory is deleted.
        b.form += "+alone"
        g4 = person_g(rng, who)
        b.memories.append(
            (sentence("{S} " + COMPOUND_FACTS[forget][0] + ".", g4, **slots), "target")
        )
    gr = person_g(rng, who, request=True)
    b.request = frame(rng, THAT, phrase("{S} " + COMPOUND_FACTS[forget][0], gr, **slots))
    return b


# Negation: "forget that I like olives" is not "the user does not like olives".

NEG_FACTS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    (
        "like{s} {x}",
        ("{do} not like {x}", "{dont} like {x}"),
        ("olives", "mushrooms", "coriander", "blue cheese", "oysters", "liquorice", "anchovies"),
    ),
    (
        "drink{s} {x}",
        ("never drink{s} {x}", "{do} not drink {x}", "{dont} drink {x}"),
        ("alcohol", "milk", "energy drinks", "fizzy drinks"),
    ),
    (
        "{is} {x}",
        ("{is} not {x}", "{is} no longer {x}"),
        ("vegetarian", "a smoker", "an early riser", "religious"),
    ),
    (
        "{has} {x}",
        ("{do} not have {x}", "{dont} have {x}"),
        ("a driving licence", "health insurance", "a garden", "a passport"),
    ),
    ("{is} allergic to {x}", ("{is} not allergic to {x}",), tuple(ALLERGENS)),
    (
        "want{s} {x}",
        ("{do} not want {x}", "{dont} want {x}"),
        ("children", "to move abroad", "a big wedding", "a dog"),
    ),
    (
        "enjoy{s} {x}",
        ("{do} not enjoy {x}", "{dont} enjoy {x}", "never enjoy{s} {x}"),
        ("camping", "karaoke", "horror films", "board games"),
    ),
    (
        "speak{s} {x}",
        ("{do} not speak {x}", "{dont} speak {x}"),
        ("German", "French", "Spanish", "Greek"),
    ),
    ("eat{s} {x}", ("never eat{s} {x}", "{do} not eat {x}"), ("pork", "meat", "fish", "sushi")),
)


def gen_negation(rng: random.Random) -> Built:
    pos, negs, values = rng.choice(NEG_FACTS)
    x = rng.choice(values)
    who = someone(rng)
    style = rng.choices(
        ["positive", "negative", "positive-absent", "negative-absent"], [7, 7, 3, 3]
    )[0]
    asked_negative = style.startswith("negative")

    def pred(negative: bool) -> str:
        return rng.choice(negs) if negative else pos

    def line(negative: bool, person: str = who, value: str = x) -> str:
        return sentence("{S} " + pred(negative) + ".", person_g(rng, person), x=value)

    b = Built(form=style, request="")
    if not style.endswith("absent"):
        b.memories.append((line(asked_negative), "target"))
    b.memories.append((line(not asked_negative), "polarity-twin"))
    who2, role = alike_or_other(rng, who)
    b.memories.append((line(asked_negative, who2), role))
    b.memories.append((line(asked_negative, who, other(rng, values, x)), "other-key"))
    fam = rng.choice(list(FAMILIES.values()))
    b.memories.append((mem_text(rng, fam, fam.sample(rng, who), who), "same-person"))
    gr = person_g(rng, who, request=True)
    b.request = frame(rng, THAT, phrase("{S} " + pred(asked_negative), gr, x=x))
    return b


# Dates and qualifiers: "my 2023 address", "my old phone number".

DATED: dict[str, dict[str, Any]] = {
    "address": {
        "value": lambda rng, who: (
            f"{rng.randint(2, 90)} {rng.choice(STREETS)}, {rng.choice(CITIES)}"
        ),
        "year": (
            "In {year} {S} lived at {v}.",
            "{P} address in {year}: {v}.",
            "{year}: {S} lived at {v}.",
        ),
        "current": ("{S} live{s} at {v}.", "{P} current address is {v}."),
        "old": (
            "{P} old address was {v}.",
            "{S} used to live at {v}.",
            "{P} previous address: {v}.",
        ),
        "ask_year": (
            ("NOUN", "{P} {year} address"),
            ("WH", "where {S} lived in {year}"),
            ("NOUN", "the address {S} had in {year}"),
        ),
        "ask_old": (
            ("NOUN", "{P} old address"),
            ("NOUN", "{P} previous address"),
            ("WH", "where {S} used to live"),
        ),
    },
    "employer": {
        "value": lambda rng, who: rng.choice(COMPANIES),
        "year": ("In {year} {S} worked at {v}.", "{P} employer in {year} was {v}."),
        "current": ("{S} work{s} at {v}.", "{P} employer is {v}."),
        "old": (
            "{P} old employer was {v}.",
            "{S} used to work at {v}.",
            "{P} previous job was at {v}.",
        ),
        "ask_year": (("NOUN", "{P} {year} job"), ("WH", "where {S} worked in {year}")),
        "ask_old": (
            ("NOUN", "{P} old job"),
            ("NOUN", "{P} previous employer"),
            ("WH", "where {S} used to work"),
        ),
    },
    "phone": {
        "value": lambda rng, who: phone(rng),
        "year": ("In {year} {P} phone number was {v}.", "{P} number in {year}: {v}."),
        "current": ("{P} phone number is {v}.", "{P} current number is {v}."),
        "old": (
            "{P} old phone number was {v}.",
            "{P} previous number, no longer in use: {v}.",
            "{v} was {P} number until last year.",
        ),
        "ask_year": (("NOUN", "{P} {year} phone number"), ("NOUN", "the number {S} had in {year}")),
        "ask_old": (
            ("NOUN", "{P} old phone number"),
            ("NOUN", "{P} previous number"),
            ("NOUN", "the number {S} used to have"),
        ),
    },
    "email": {
        "value": lambda rng, who: email(rng, who or rng.choice(["sam", "jo", "alex"])),
        "year": ("In {year} {P} e-mail address was {v}.", "{P} e-mail in {year}: {v}."),
        "current": ("{P} e-mail address is {v}.", "{S} use{s} {v} for mail."),
        "old": (
            "{P} old e-mail address was {v}.",
            "{S} used to use {v} for mail.",
            "{P} previous e-mail: {v}.",
        ),
        "ask_year": (
            ("NOUN", "{P} {year} e-mail address"),
            ("NOUN", "the e-mail {S} used in {year}"),
        ),
        "ask_old": (("NOUN", "{P} old e-mail address"), ("NOUN", "{P} previous e-mail")),
    },
    "car": {
        "value": lambda rng, who: f"{rng.choice(CARS)} ({plate(rng)})",
        "year": ("In {year} {S} drove a {v}.", "{P} car in {year}: a {v}."),
        "current": ("{S} drive{s} a {v}.", "{P} car is a {v}."),
        "old": ("{P} old car was a {v}.", "{S} used to drive a {v}.", "{P} previous car: a {v}."),
        "ask_year": (("NOUN", "{P} {year} car"), ("NOUN", "the car {S} drove in {year}")),
        "ask_old": (("NOUN", "{P} old car"), ("NOUN", "the car {S} used to drive")),
    },
}


def gen_dates(rng: random.Random) -> Built:
    attr = rng.choice(list(DATED))
    spec = DATED[attr]
    other_attr = other(rng, list(DATED), attr)
    who = someone(rng)
    by_year = rng.random() < 0.5
    year, year2 = (str(y) for y in rng.sample(range(2016, 2024), 2))

    used: set[str] = set()

    def value(a: str, person: str = who) -> str:
        """A value no other memory of the case holds (the current address is not the 2023
        one)."""
        for _ in range(20):
            v: str = DATED[a]["value"](rng, person)
            if v not in used:
                break
        used.add(v)
        return v

    def line(a: str, kind: str, person: str = who, y: str = year) -> str:
        g = person_g(rng, person)
        return sentence(rng.choice(DATED[a][kind]), g, v=value(a, person), year=y)

    qualifier = "year" if by_year else "old"
    b = Built(form=f"{attr}-{'year' if by_year else 'old'}", request="")
    b.memories.append((line(attr, qualifier), "target"))
    b.memories.append((line(attr, "current"), "current"))
    if by_year:
        b.memories.append((line(attr, "year", y=year2), "other-year"))
    who2, role = alike_or_other(rng, who)
    b.memories.append((line(attr, qualifier, who2), role))
    b.memories.append((line(other_attr, qualifier), "other-key"))  # same year / also old
    frames, template = rng.choice(spec["ask_year" if by_year else "ask_old"])
    gr = person_g(rng, who, request=True)
    b.request = frame(rng, NOUN if frames == "NOUN" else WH, phrase(template, gr, year=year))
    return b


# Paraphrased corrections: the new fact shares no word with the memory it supersedes.

ORGS = ["an AI-safety lab", "a climate-tech startup", "the city hospital", "a small design studio"]
ORGS += ["a research group at the university", "the public broadcaster", "the national railway"]
PARAPHRASE: dict[str, dict[str, Any]] = {
    "employer": {
        "families": ("employer",),
        "slots": lambda rng: {"old": rng.choice(COMPANIES), "new": rng.choice(ORGS)},
        "old": ("{S} work{s} at {old}.", "{P} employer is {old}.", "{S} {has} a job at {old}."),
        "new": ("{S} moved to {new}", "{S} joined {new}", "{S} started a new role with {new}"),
        "trap": ("{S} visited {new} during an open day.", "{S} read a report by {new} last week."),
    },
    "residence": {
        "families": ("address",),
        "slots": lambda rng: dict(zip(("old", "new"), rng.sample(CITIES, 2), strict=True)),
        "old": ("{S} live{s} in {old}.", "{P} home is in {old}.", "{S} rent{s} a flat in {old}."),
        "new": (
            "{S} relocated to {new}",
            "{S} packed up and moved to {new}",
            "{P} new place is in {new}",
        ),
        "trap": (
            "{S} spent a weekend in {new} last spring.",
            "{S} would like to visit {new} again.",
        ),
    },
    "car": {
        "families": ("car",),
        "slots": lambda rng: dict(zip(("old", "new"), disjoint(rng, CARS), strict=True)),
        "old": ("{S} drive{s} a {old}.", "{P} car is a {old}."),
        "new": ("{S} bought a {new} to replace the old one", "{S} traded up to a {new}"),
        "trap": ("{S} rented a {new} on holiday last year.", "{S} test-drove a {new} once."),
    },
    "diet": {
        "families": (),
        "slots": lambda rng: {"old": rng.choice(["steak", "burgers", "bacon"]), "new": ""},
        "old": ("{S} love{s} {old}.", "{S} eat{s} {old} almost every day."),
        "new": (
            "{S} went vegan",
            "{S} switched to a plant-based diet",
            "{S} cut out all animal products",
        ),
        "trap": ("{S} bought a vegan cookbook for a friend.", "{S} switched banks last month."),
    },
    "relationship": {
        "families": (),
        "slots": lambda rng: {"old": "", "new": rng.choice(FILLER_NAMES)},
        "old": ("{S} {is} single.", "{S} {is} single and not looking."),
        "new": ("{S} got engaged to {new}", "{S} {is} seeing someone called {new}"),
        "trap": ("{new} got engaged last summer.", "{S} met {new} at a friend's barbecue."),
    },
    "gym": {
        "families": ("gym",),
        "slots": lambda rng: dict(zip(("old", "new"), disjoint(rng, GYMS), strict=True)),
        "old": ("{S} {is} a member of {old}.", "{S} train{s} at {old}."),
        "new": ("{S} signed up at {new}", "{S} now exercise{s} at {new}"),
        "trap": ("{S} got a free trial pass for {new}.", "{new} opened a branch near the station."),
    },
    "commute": {
        "families": ("car",),
        "slots": lambda rng: {"old": "", "new": ""},
        "old": ("{S} commute{s} by car.", "{S} drive{s} to the office every day."),
        "new": ("{S} cycle{s} to work these days", "{S} take{s} the train to work now"),
        "trap": (
            "{S} bought a bike helmet for the kids.",
            "The train strike delayed {O} on Monday.",
        ),
    },
}


def disjoint(rng: random.Random, pool: Sequence[str]) -> tuple[str, str]:
    """Two values sharing no word ("red Mazda 3" and "white Tesla Model 3" share one)."""
    while True:
        a, b = rng.sample(pool, 2)
        if not words(a) & words(b):
            return a, b


def gen_paraphrase(rng: random.Random) -> Built:
    attr = rng.choice(list(PARAPHRASE))
    spec = PARAPHRASE[attr]
    who = someone(rng)
    slots = spec["slots"](rng)
    g = person_g(rng, who)
    person = words(" ".join(grammar(who, request=r)[k] for r in (True, False) for k in "SPO"))
    for _ in range(20):
        target = sentence(rng.choice(spec["old"]), g, **slots)
        new = phrase(rng.choice(spec["new"]), person_g(rng, who, request=True), **slots)
        if not (content_words(target) & content_words(new)) - person:
            break
    else:
        raise AssertionError(f"no paraphrase without a shared word for {attr}")
    b = Built(form=attr, request=frame(rng, CORRECTION, new))
    b.memories.append((target, "target"))
    # The same attribute of someone else, with the old value: not superseded.
    who2, role = alike_or_other(rng, who)
    b.memories.append((sentence(rng.choice(spec["old"]), person_g(rng, who2), **slots), role))
    # The same person's memory sharing the new fact's words, about something else.
    b.memories.append(
        (sentence(rng.choice(spec["trap"]), person_g(rng, who), **slots), "shares-words")
    )
    unrelated = [f for f in FAMILIES.values() if f.name not in spec["families"]]
    for fam in rng.sample(unrelated, 2):
        b.memories.append((mem_text(rng, fam, fam.sample(rng, who), who), "same-person"))
    return b


# Words that are not the entity: "Frank" and "a frank discussion".

# A name that is also a word: memories using the word, each with how a request names it.
NAME_SENSES: dict[str, tuple[tuple[str, str], ...]] = {
    "Frank": (
        (
            "The user had a frank discussion with the landlord about the rent.",
            "the frank discussion with the landlord",
        ),
        (
            "Frank feedback from the manager: the report was too long.",
            "the frank feedback on the report",
        ),
        (
            "The doctor was frank about the risks of the knee surgery.",
            "how frank the doctor was about the knee surgery",
        ),
    ),
    "Bill": (
        ("The electricity bill is due on Friday.", "the electricity bill"),
        ("Bill for the car repair came to €480.", "the bill for the car repair"),
        ("The user split the restaurant bill with the colleagues.", "the restaurant bill"),
    ),
    "Rose": (
        ("The rose bush on the balcony needs pruning in March.", "the rose bush on the balcony"),
        ("Rose petals were scattered at the user's wedding.", "the rose petals at the wedding"),
    ),
    "Mark": (
        ("There is a coffee mark on the user's white sofa.", "the coffee mark on the sofa"),
        (
            "Mark the calendar: the tax return is due in May.",
            "the note to mark the calendar for the tax return",
        ),
    ),
    "Amber": (
        ("The user got a fine for crossing on an amber light.", "the amber light fine"),
        ("Amber earrings were a gift from the user's aunt.", "the amber earrings"),
    ),
    "Jack": (
        ("The car jack is in the boot under the spare tyre.", "where the car jack is"),
        ("The user needs a new jack for the old record player.", "the jack for the record player"),
    ),
    "Ginger": (
        ("The user drinks ginger tea when feeling sick.", "the ginger tea"),
        ("Ginger biscuits are the user's guilty pleasure.", "the ginger biscuits"),
    ),
    "Dawn": (
        ("The user goes running at dawn on weekdays.", "running at dawn"),
        (
            "Dawn light wakes the user because the bedroom has no blinds.",
            "the dawn light in the bedroom",
        ),
    ),
    "Grace": (
        (
            "The library gives a three-day grace period for late returns.",
            "the library grace period",
        ),
        (
            "The user said grace at the family dinner for the first time.",
            "saying grace at the family dinner",
        ),
    ),
    "Robin": (
        ("A robin nests in the hedge behind the user's house.", "the robin in the hedge"),
        ("Robin eggs were found in the garden shed.", "the robin eggs in the shed"),
    ),
}
# A place or company that is also a thing: the entity's topic and the other-sense memories.
PLACE_SENSES: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {
    "Vienna": (
        "office",
        (
            (
                "The user bought Vienna sausages for the barbecue.",
                "the Vienna sausages for the barbecue",
            ),
            (
                "Vienna sausages are the kids' favourite snack.",
                "the kids' snack of Vienna sausages",
            ),
        ),
    ),
    "Brussels": (
        "office",
        (
            ("The user cannot stand Brussels sprouts.", "the Brussels sprouts"),
            ("Brussels sprouts are on the Christmas menu.", "the Brussels sprouts on the menu"),
        ),
    ),
    "Dijon": (
        "office",
        (
            ("Dijon mustard is on the shopping list.", "the Dijon mustard on the shopping list"),
            (
                "The user's salad dressing needs Dijon mustard.",
                "the salad dressing with Dijon mustard",
            ),
        ),
    ),
    "Turkey": (
        "trip",
        (
            ("The user is roasting a turkey for Thanksgiving.", "the turkey for Thanksgiving"),
            ("Turkey sandwiches were left over from the party.", "the turkey sandwiches"),
        ),
    ),
    "Java": (
        "trip",
        (
            ("The user writes Java at work and finds it verbose.", "Java at work"),
            ("The Java course at the community college starts in May.", "the Java course"),
        ),
    ),
    "Jersey": (
        "trip",
        (
            ("The user bought a football jersey for the nephew.", "the football jersey"),
            ("The user's cycling jersey is torn at the shoulder.", "the torn cycling jersey"),
        ),
    ),
    "Champagne": (
        "trip",
        (
            ("The user bought champagne for the wedding toast.", "the champagne for the wedding"),
            ("A bottle of champagne is chilling in the fridge.", "the champagne in the fridge"),
        ),
    ),
    "Panama": (
        "trip",
        (
            (
                "The user wore a Panama hat at the garden party.",
                "the Panama hat from the garden party",
            ),
            ("Panama hats are sold at the market on Saturdays.", "the Panama hats at the market"),
        ),
    ),
    "China": (
        "trip",
        (
            ("The good china is only used at Christmas.", "the good china"),
            ("The user broke a china cup from the grandmother's set.", "the broken china cup"),
        ),
    ),
    "Apple": (
        "interview",
        (
            ("The user baked an apple pie for the neighbours.", "the apple pie for the neighbours"),
            ("Apple juice gives the user a stomach ache.", "the apple juice"),
        ),
    ),
}
PLACE_TOPIC = {
    "office": (
        "The user's team moved to the {X} office in {month}.",
        "The {X} office has a rooftop terrace.",
        "The user's badge for the {X} office is number {n}.",
        "The {X} office manager is {name}.",
    ),
    "trip": (
        "The user's trip to {X} is booked for {month}.",
        "In {X} the user wants to see the old town first.",
        "The budget for the {X} trip is €{n}.",
        "{name} is joining the user on the {X} trip.",
    ),
    "interview": (
        "The user has a job interview at {X} on {day}.",
        "The {X} recruiter is called {name}.",
        "The user prepared a case study for the {X} interview.",
        "The {X} interview has a second round with the team lead.",
    ),
}
PLACE_REQUEST = {
    "office": ("the {X} office", "our {X} office"),
    "trip": ("the {X} trip", "my trip to {X}"),
    "interview": ("the {X} interview", "my interview at {X}"),
}
OTHER_PLACES = {
    "office": ["Berlin", "Lisbon", "Madrid", "Oslo"],
    "trip": ["Iceland", "Norway", "Portugal"],
    "interview": ["Spotify", "Siemens", "Nokia"],
}


def gen_sense(rng: random.Random) -> Built:
    style = rng.choices(["entity", "entity-absent", "word"], [5, 2, 3])[0]
    b = Built(form="", request="")
    if rng.random() < 0.5:
        name = rng.choice(list(NAME_SENSES))
        senses = list(NAME_SENSES[name])
        rng.shuffle(senses)
        b.form = f"name-{style}"
        facts = []
        for fam in rng.sample(list(FAMILIES.values()), rng.randint(2, 4)):
            facts.append(mem_text(rng, fam, fam.sample(rng, name), name))
        if style == "word":
            # "forget about the electricity bill": the bill, not Bill's memories.
            b.memories.append((senses[0][0], "target"))
            b.memories += [(t, "other-key") for t, _ in senses[1:]]
            b.memories += [(t, "name-sense") for t in facts]
            b.request = frame(rng, NOUN, senses[0][1])
            return b
        if style == "entity":
            b.memories += [(t, "target") for t in facts]
        b.memories += [(t, "other-sense") for t, _ in senses]
        fam = rng.choice(list(FAMILIES.values()))
        twin = other(rng, NAMES)
        b.memories.append((mem_text(rng, fam, fam.sample(rng, twin), twin), "other-person"))
        b.request = frame(
            rng, SUBJECT, rng.choice([name, f"my friend {name}", f"{name} from work"])
        )
        return b
    x = rng.choice(list(PLACE_SENSES))
    topic, senses_t = PLACE_SENSES[x]
    senses = list(senses_t)
    rng.shuffle(senses)
    b.form = f"{topic}-{style}"
    slots = {
        "X": x,
        "month": rng.choice(MONTHS),
        "n": digits(rng, 4),
        "name": rng.choice(NAMES),
        "day": date(rng),
    }
    facts = [t.format(**slots) for t in rng.sample(PLACE_TOPIC[topic], rng.randint(2, 4))]
    y = rng.choice(OTHER_PLACES[topic])
    other_topic = rng.choice(PLACE_TOPIC[topic]).format(**{**slots, "X": y})
    if style == "word":
        # "forget the Vienna sausages": the sausages, not the Vienna office.
        b.memories.append((senses[0][0], "target"))
        b.memories += [(t, "other-key") for t, _ in senses[1:]]
        b.memories += [(t, "entity-sense") for t in facts]
        b.request = frame(rng, NOUN, senses[0][1])
        return b
    if style == "entity":
        b.memories += [(t, "target") for t in facts]
    b.memories += [(t, "other-sense") for t, _ in senses]
    b.memories.append((other_topic, "other-key"))
    b.request = frame(rng, SUBJECT, rng.choice(PLACE_REQUEST[topic]).format(X=x))
    return b


GENERATORS: dict[str, Callable[[random.Random], Built]] = {
    "restated": gen_restated,
    "question": gen_question,
    "keyword": gen_keyword,
    "identifier": gen_identifier,
    "subject": gen_subject,
    "japanese": gen_japanese,
    "multiple": gen_multiple,
    "correction": gen_correction,
    "nothing": gen_nothing,
    "spelling": gen_spelling,
    "crosslang": gen_crosslang,
    "compound": gen_compound,
    "negation": gen_negation,
    "dates": gen_dates,
    "paraphrase": gen_paraphrase,
    "sense": gen_sense,
}
KINDS = tuple(GENERATORS)
FILLERS_PER_CASE = 8


def build_case(kind: str, n: int, seed: int) -> Case:
    rng = random.Random(f"{seed}:{kind}:{n}")
    built = GENERATORS[kind](rng)
    memories = built.memories + fillers(rng, FILLERS_PER_CASE)
    rng.shuffle(memories)
    seen: set[str] = set()
    unique = []
    for text, role in memories:
        if text not in seen:
            seen.add(text)
            unique.append((text, role))
    return Case(
        id=f"{kind}-{n:03d}",
        kind=kind,
        form=built.form,
        memories=tuple(t for t, _ in unique),
        roles=tuple(r for _, r in unique),
        request=built.request,
        targets=frozenset(i for i, (_, r) in enumerate(unique) if r == "target"),
        edits={i: built.edits[t] for i, (t, r) in enumerate(unique) if t in built.edits},
    )


MAY_BE_NOTHING = ("negation", "sense")
"""Kinds whose right answer is sometimes to mark nothing (beside `nothing`)."""


def check(case: Case) -> None:
    """What a generator must guarantee, whatever the draw."""
    assert case.request.strip(), case
    assert len(set(case.memories)) == len(case.memories), case
    if case.kind == "nothing":
        assert not case.targets, case
    elif case.kind not in MAY_BE_NOTHING:
        assert case.targets, case
    assert set(case.edits) <= case.targets, case
    assert bool(case.edits) == (case.kind == "compound"), case
    for i, kept in case.edits.items():
        # What remains is the memory less one fact: no word the memory does not hold.
        assert kept != case.memories[i] and words(kept) <= words(case.memories[i]), case


def cases(per_kind: int = 40, seed: int = 17, kinds: Sequence[str] = KINDS) -> list[Case]:
    out = []
    for kind in kinds:
        for n in range(per_kind):
            case = build_case(kind, n, seed)
            check(case)
            out.append(case)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases-per-kind", type=int, default=2)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--kind", action="append", choices=KINDS, help="only these kinds")
    args = parser.parse_args()
    for case in cases(args.cases_per_kind, args.seed, args.kind or KINDS):
        print(f"== {case.id} ({case.form}): {case.request!r}")
        for i, (text, role) in enumerate(zip(case.memories, case.roles, strict=True)):
            if role != "filler":
                mark = "*" if i in case.targets else " "
                print(f"  {mark} [{i:2d}] {role:<16} {text}")
                if i in case.edits:
                    print(f"         {'-> edit to':<16} {case.edits[i]}")


if __name__ == "__main__":
    main()
