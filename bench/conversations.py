"""Seeded multi-session dialogues whose facts are split across turns, with questions about them.

The development benchmark of issue 21 ("Recall that understands conversation"). An agent that
stores a conversation turn by turn stores elliptical turns: to "What did you do on Saturday?"
the answer is "Went hiking at Mount Tam with my sister." - the answer never says Saturday and
the question never says hiking. A later question ("What did Maya do on Saturday?") then finds
the question turn, not the answer. This module writes such conversations (no network, no
model: templates and word lists, drawn from one seed) and, for every fact, questions a later
user would ask, each naming the turn(s) that carry the answer (the evidence).

Sessions are between a named user and an assistant, or between two named friends; every turn
is one memory with `metadata = {"session", "turn", "speaker"}` and a `created_at` that
increases within the session (sessions are spread over a year). A fact takes one of these
shapes, chosen first so that none dominates, then a template that supports it:

- `elliptical`: a turn asks for the fact and the next turn answers without repeating the
  question's words ("What did you do on Saturday?" / "Went hiking at Mount Tam..."); some
  chain a second, even shorter question ("And Sunday?" / "Slept, mostly...").
- `pronoun`: the fact is introduced, a pronoun or "it"/"there"/"that" refers back, and the
  answer follows ("I started a new job last week." / "Where is it?" / "At Lumen Labs...").
- `multi_turn`: the answer is two or three turns after the question (a stall, an
  interruption, a counter-question in between), or comes first and the turn it belongs to
  is only named two turns later ("Only 420 euros!" / "For what?" / "The sofa.").
- `correction`: the fact is stated, then corrected later in the same session ("Sorry, I
  meant Thursday at 9:20, not Tuesday at 9:20."); only the correction is the evidence, and
  the stated (wrong) turn is the decoy.
- `standalone`: a full sentence that needs no context - the guard that ranking with
  neighbours must not make worse. Either the person's own sentence, for facts whose key has
  words of its own ("My MRI scan is on Wednesday at 12:30."), or the fact said back to the
  person by name ("So Greta, your rent is 2,050 a month."), since questions name the person
  and "I" does not (both the person's words and the recap are then evidence).

Distractors share the facts' words in another sense: the same fact for another person (a
"twin", often the same key and value), negated twins ("I didn't go hiking at Mount Tam on
Saturday after all."), a question with no answer, and lines that merely mention the same days,
companies, pets or places. About a quarter of the sessions hold only distractors; the others
mix facts and distractors. Every fact has a key (person + what is asked, e.g. Maya + the day
"Saturday"); a key is used once in the whole store, by a fact or a distractor, so every
question has one answer. Nothing in the stored turns or metadata says which turn is a fact, a
distractor or which shape it has.

Questions name the person ("What did Maya do on Saturday?"); sessions usually greet by name,
and `speaker` says who spoke, so a reader of the session can always answer.

Run it alone to read a sample: `python bench/conversations.py --show 4`.
"""

from __future__ import annotations

import argparse
import random
import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from lethe.model import Draft

SHAPES = ("elliptical", "pronoun", "multi_turn", "correction", "standalone")
SHAPE_WEIGHTS = (0.28, 0.18, 0.18, 0.14, 0.22)
ASSISTANT = "assistant"
START = datetime(2024, 1, 8, 8, 0, tzinfo=UTC)

# -- word lists --------------------------------------------------------------------------------


def _items(text: str) -> list[str]:
    """A word list written as one string, entries separated by "|" (entries have spaces)."""
    return [" ".join(item.split()) for item in text.split("|")]


PEOPLE = _items(
    """Maya | Leo | Nina | Omar | Priya | Tomas | Sara | Jonas | Elena | Marco | Aisha | Ben |
Chloe | Daniel | Fatima | Hugo | Ingrid | Jamal | Kenji | Lucia | Mateo | Nadia | Oscar |
Paula | Rafael | Sofia | Theo | Uma | Victor | Wendy | Yusuf | Zoe | Amara | Bruno |
Clara | Dmitri | Emma | Felix | Greta | Hana | Ivan | Julia | Karim | Lena | Milo | Nora |
Otto | Pablo | Quinn | Rosa | Samir | Tara | Vera | Will | Yara | Zane | Alba | Boris |
Carmen | Diego | Esther | Finn | Gloria | Hiro | Iris | Joel | Keira | Luca | Mei |
Noah | Olga | Pedro | Rita | Simon | Talia | Ulrich | Valeria | Wanda | Xavier | Yuki |
Zara | Anton | Bianca | Cyrus | Delia | Emil | Farah | Gideon | Helga | Imran | Jade |
Kofi | Lorna | Magnus | Nico | Odile | Petra | Rohan | Selma | Tobias | Ursula | Vikram |
Willa | Ayla | Basil | Celine | Dario | Elif | Frida | Gustav | Ines | Jasper | Kira |
Lars | Mina | Nils | Orla | Pia | Reza | Sanna | Tariq | Vivian | Arjun | Beatrix |
Cosima | Declan | Esme | Flynn | Hamid | Ilse | Juno | Kasper | Liv | Mattias | Noor |
Oona"""
)

# People who are talked about but never take part (friends, tradespeople): never in PEOPLE.
OTHERS = _items(
    """Ana | Rob | Kate | Mike | Lucy | Pete | Jen | Dave | Sue | Alan | Beth | Carl | Dina |
Eric | Fran | Gus | Hal | Ivy | Jack | Kim | Lou | Meg | Ned | Pam | Ray | Sid | Tess |
Vic | Walt | Abby | Cole | Greg | Evan | Faye | Glen | Tina | Ian"""
)

BABY_NAMES = _items(
    """Arlo | Ivy | Otis | Mabel | Ezra | Wren | Jude | Hazel | Bea | Cora | Rowan | Elsie |
Caspar | Nell | Alfie | Maisie | Ronan | Edie | Ezio | Lila"""
)

DAYS = _items(
    """Saturday | Sunday | Friday night | the bank holiday | New Year's Eve | Easter Sunday |
Halloween | Christmas Eve | Boxing Day | Valentine's Day | midsummer | the long weekend |
Labour Day | Thanksgiving"""
)
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
MONTHS = _items(
    """January | February | March | April | May | June | July | August | September | October |
November | December"""
)
CLOCK = _items(
    """6:10 | 7:45 | 8:30 | 9:20 | 10:55 | 11:40 | 12:30 | 14:15 | 15:40 | 17:05 | 18:30 |
19:45 | 20:15 | 21:50"""
)

OUTDOOR = _items(
    """at Mount Tam | in Muir Woods | up Mission Peak | at Point Reyes | in the Marin Headlands |
at Castle Rock | along the Ridge Trail | in Tilden Park | in the Peak District | in
the Lake District | along the coast path | in the Black Forest"""
)
WATER = _items(
    """on Lake Merritt | at Half Moon Bay | at Stinson Beach | on the river | in the harbour |
at Bodega Bay | on Lake Tahoe | at the reservoir | at the lido"""
)
INDOOR = [
    "at the climbing gym",
    "at the leisure centre",
    "at the rink downtown",
    "at the new place on Main Street",
    "at the community hall",
]
ACTIVITIES = [
    ("hiking", OUTDOOR),
    ("trail running", OUTDOOR),
    ("mountain biking", OUTDOOR),
    ("camping", OUTDOOR),
    ("birdwatching", OUTDOOR),
    ("kayaking", WATER),
    ("paddleboarding", WATER),
    ("sailing", WATER),
    ("wild swimming", WATER),
    ("fishing", WATER),
    ("surfing", WATER),
    ("bouldering", INDOOR),
    ("ice skating", INDOOR),
    ("bowling", INDOOR),
    ("salsa dancing", INDOOR),
]
COMPANIONS = _items(
    """my sister | my brother | a few friends from work | my cousins | my dad | the kids | my
neighbour | an old school friend | my flatmate | my partner"""
)
RELATIVES = [  # (relative, subject pronoun, possessive)
    ("sister", "she", "her"),
    ("brother", "he", "his"),
    ("mum", "she", "her"),
    ("dad", "he", "his"),
    ("aunt", "she", "her"),
    ("uncle", "he", "his"),
    ("wife", "she", "her"),
    ("husband", "he", "his"),
    ("daughter", "she", "her"),
    ("son", "he", "his"),
    ("grandmother", "she", "her"),
    ("grandfather", "he", "his"),
]
SIBLINGS = [r for r in RELATIVES if r[0] in ("sister", "brother", "daughter", "son")]
CITIES = _items(
    """Lisbon | Porto | Madrid | Seville | Lyon | Marseille | Berlin | Hamburg | Vienna |
Zurich | Milan | Turin | Naples | Athens | Istanbul | Krakow | Prague | Budapest |
Ljubljana | Oslo | Bergen | Stockholm | Copenhagen | Helsinki | Reykjavik | Dublin |
Galway | Edinburgh | Glasgow | Bristol | Amsterdam | Utrecht | Ghent | Toronto |
Montreal | Vancouver | Boston | Denver | Austin | Seattle | Portland | Chicago | Nairobi |
Accra | Cairo | Mumbai | Bangalore | Hanoi | Manila | Singapore | Taipei | Seoul |
Osaka | Kyoto | Melbourne | Auckland"""
)
LANDMARKS = _items(
    """train station | old harbour | university | central park | cathedral | river | market
hall | botanical garden | football stadium | castle"""
)
RESTAURANTS = _items(
    """Casa Lina | The Golden Fig | Nori House | Trattoria Sole | The Blue Door | Bistro Margot |
Little Saigon Kitchen | El Farolito | The Copper Pot | Osteria Nonna | Shiro Ramen |
Le Petit Zinc | Spice Route | The Olive Tree | Taverna Kyma | Mama Lu's Dumplings | The
Smokehouse | Sakura Garden"""
)
OCCASIONS = _items(
    """the anniversary dinner | the team dinner | the graduation lunch | the book club dinner |
the farewell dinner | the engagement party | the reunion lunch | the christening lunch"""
)
APPOINTMENTS = _items(
    """dentist appointment | eye test | physio session | MRI scan | mortgage meeting | haircut |
driving test | visa interview | blood test | job interview | parent-teacher meeting |
car service | passport appointment"""
)
COMPANIES = _items(
    """Northwind | Fabrikam | Globex | Initech | Brightwave | Lumen Labs | Copperleaf | Tidal
Systems | Orbital Foods | Harbor Health | Bluebird Bank | Kestrel Games | Verdant Energy |
Atlas Freight | Nimbus Cloud | Pinecone Media | Quarry Robotics | Sundial Travel |
Redwood Insurance | Helix Bio | Foxglove Studio | Polaris Analytics | Cobalt Security |
Meridian Books"""
)
WORK_TEAMS = _items(
    """payments | search | data platform | mobile | design systems | growth | infrastructure |
customer support | fraud | analytics | billing | logistics"""
)
ROLES = _items(
    """nurse | civil engineer | primary school teacher | accountant | paramedic | architect |
pharmacist | software developer | chef | physiotherapist | journalist | lawyer |
electrician | dentist | pilot | social worker | vet | graphic designer | firefighter |
translator"""
)
WORKPLACES = _items(
    """the city hospital | a small firm downtown | the council | a bakery on the high street |
the university | a law firm in the centre | the airport | an agency in town | a start-up
by the docks | the fire station on Elm Road"""
)
PETS = _items(
    """puppy | kitten | rabbit | parrot | tortoise | beagle | labrador | greyhound | corgi |
hamster | cockatoo"""
)
PET_NAMES = _items(
    """Biscuit | Pepper | Luna | Mochi | Nala | Pickles | Ziggy | Waffles | Juniper | Sprout |
Pixel | Noodle | Cosmo | Maple | Hazel | Rocket | Clementine | Fig | Ginger | Otis |
Poppy | Ranger | Tango | Yoda | Kiwi | Nugget | Bagel | Pumpkin | Marble | Truffle |
Dumpling | Pretzel"""
)
VET_PROBLEMS = _items(
    """an ear infection | a sprained paw | worms | a tooth abscess | fleas | kennel cough | a
bee sting | an upset stomach | a torn claw | conjunctivitis"""
)
TREATMENTS = [
    "antibiotics",
    "drops twice a day",
    "a cone and lots of rest",
    "a special diet",
    "tablets with breakfast",
]
ALLERGENS = _items(
    """peanuts | cashews | shellfish | sesame | kiwi fruit | eggs | mustard | celery |
strawberries | walnuts | soy | mango"""
)
DISHES = _items(
    """mushroom risotto | chicken biryani | shakshuka | beef rendang | pad thai | lasagne | dal
makhani | paella | pierogi | gnocchi with sage butter | lamb tagine | ramen from scratch |
jollof rice | fish tacos | moussaka | bibimbap | goulash | spanakopita"""
)
INGREDIENTS = _items(
    """a spoonful of miso | smoked paprika | a splash of fish sauce | brown butter | a pinch of
cinnamon | anchovies | orange zest | a shot of espresso | preserved lemons | fresh dill"""
)
EVENTS = _items(
    """a friend's wedding | a pub quiz | a house party | a language exchange | a music festival |
a conference | a salsa class | a hackathon | a book club"""
)
CAR_MODELS = _items(
    """Toyota Corolla | Honda Civic | Subaru Outback | Volkswagen Golf | Ford Fiesta | Mazda 3 |
Skoda Octavia | Kia Niro | Tesla Model 3 | Renault Clio | Volvo V60 | Nissan Leaf |
Fiat 500"""
)
COLOURS = _items("""red | blue | silver | black | white | green | grey | yellow""")
BOUGHT = _items(
    """bike | sofa | laptop | tent | camera | guitar | winter coat | espresso machine |
standing desk | rowing machine | pram | telescope | sewing machine | mattress"""
)
BOOK_ADJ = _items(
    """Silent | Broken | Hidden | Last | Distant | Burning | Glass | Iron | Salt | Paper |
Quiet | Hollow | Golden | Forgotten | Winter | Midnight | Crimson | Northern"""
)
BOOK_NOUN = _items(
    """Orchard | Harbour | Lantern | Archive | River | Garden | Cartographer | Island | Tide |
Letters | Mountain | Observatory | Signal | Library | Forest | Bridge | Atlas"""
)
AUTHORS = _items(
    """Helen Vance | Marcus Reid | Ada Kowalski | Samuel Ito | Clara Moss | Jonah Pike | Leila
Haddad | Peter Lund | Grace Okafor | Tomas Ferreira"""
)
TOPICS = _items(
    """sailing | negotiation | sourdough baking | investing | Roman history | gardening |
marathon training | photography | chess openings | woodworking | public speaking |
beekeeping | astronomy"""
)
GIFTS = _items(
    """a record player | a cashmere scarf | a pasta maker | a smartwatch | a pottery class
voucher | a hammock | a fountain pen | concert tickets | a bread maker | a weekend away |
a leather wallet | a board game | a silk tie | a bonsai tree"""
)
CLASSES = _items(
    """pottery | Spanish | life drawing | salsa | coding | Italian cooking | yoga | jazz piano |
photography | woodwork | creative writing | first aid"""
)
RACES = _items(
    """the Berlin marathon | the city half marathon | the charity 10k | the Great North Run |
the trail ultra | the Lisbon half | the Bay to Breakers | the harbour swim"""
)
RACE_TIMES = _items("""3:41 | 1:52 | 4:05 | 2:09 | 0:48 | 1:37 | 5:12 | 3:58 | 0:56 | 2:44""")
CHILDREN = ["son", "daughter"]
SCHOOLS = _items(
    """Oakfield Primary | St Mary's | Riverside Academy | Hillcrest High | the Montessori on
Elm Street | Northgate School | Westbrook College | Greenway Primary | the International
School | Cedar Park"""
)
BODY = _items("""knee | back | shoulder | ankle | wrist | hip | elbow | neck""")
DIAGNOSES = _items(
    """a torn ligament | a mild sprain | tendonitis | a hairline fracture | a pinched nerve | a
bone bruise | bursitis | a strained muscle"""
)
MEDICATIONS = _items(
    """amoxicillin | an inhaler | ibuprofen gel | antihistamines | a steroid cream | iron
tablets | eye drops | a nasal spray | prednisolone"""
)
HOBBIES = _items(
    """pottery | bouldering | birdwatching | knitting | chess | beekeeping | woodworking | film
photography | archery | fencing | calligraphy | sourdough baking | bonsai | open-water
swimming | astronomy | juggling | skateboarding"""
)
VENUES = _items(
    """the Roundhouse | the Apollo | the Paradiso | the Fillmore | the Olympia | the Barbican |
the Blue Note | the old town hall | the Greek Theatre"""
)
BANDS = _items(
    """Echo Harbour | The Copper Foxes | Luna Park Orchestra | Static Bloom | The Wandering
Saints | Northern Lights Collective | Velvet Engine | The Quiet Storms | Honey and Ash |
Paper Lanterns | Nova Arcade | Saltwater Choir"""
)
FILMS = _items(
    """Last Train to Lisbon | The Glass Orchard | Night Swimmers | A Field of Kites | The
Lighthouse Keeper | Red Meridian | Paper Moons | The Long Return | Small Hours |
Tidewater | The Cartographer's Daughter | Ghost Signal"""
)
LOST_ITEMS = _items(
    """wallet | passport | phone | watch | wedding ring | bike lock | library card | car key |
glasses"""
)
FOUND_AT = _items(
    """under the seat of my sister's car | in the freezer | in my gym bag | behind the sofa
cushions | in the pocket of my winter coat | at the bottom of the laundry basket | in
the fruit bowl | under the doormat | in the glovebox | at my neighbour's house"""
)
CAFES = _items(
    """the café by the station | Bean There | the bakery on Rose Street | the library café |
the kiosk in the park | Flat White Co. | the tea room on the square"""
)
TRADES = [
    ("plumber", "leak under the sink"),
    ("electrician", "kitchen wiring"),
    ("locksmith", "broken front door lock"),
    ("roofer", "hole in the roof"),
    ("builder", "crack in the garden wall"),
    ("gas engineer", "boiler"),
    ("carpenter", "sticking back door"),
]
PROJECTS = _items(
    """quarterly report | grant application | website redesign | client pitch | annual budget |
migration plan | thesis draft | audit report | product launch plan | conference talk"""
)
COMPONENTS = _items(
    """billing service | search index | checkout page | mobile app | login flow |
recommendation engine | reporting dashboard | notification service | data pipeline |
image uploader"""
)
DATABASES = _items(
    """PostgreSQL | MySQL | MongoDB | Redis | Cassandra | DynamoDB | ClickHouse | SQLite |
Elasticsearch | CockroachDB"""
)
CAUSES = _items(
    """a race condition in the retry logic | an expired TLS certificate | a memory leak in the
image resizer | a missing database index | a timezone bug around midnight | a full disk
on the build server | a misconfigured load balancer | an infinite loop in the cache
warmer"""
)
COMMUTES = _items(
    """by bike | on the train | by bus | on foot | by ferry | by car | on an e-scooter | by
tram"""
)
EXAMS = _items(
    """the bar exam | the driving theory test | the statistics final | the Spanish B2 exam |
the nursing board exam | the accountancy exam | the grade six piano exam | the first aid
assessment"""
)
DRINKS = _items(
    """a flat white with oat milk | a double espresso | an iced latte | a cortado | a chai
latte with soy milk | a long black | a mocha with extra chocolate | a matcha latte"""
)
FOOTBALL = _items(
    """Arsenal | Celtic | Benfica | Ajax | Napoli | Boca Juniors | Liverpool | Real Betis |
Borussia Dortmund | Sporting | Hibernian | Everton | Lazio | Feyenoord"""
)
LANGUAGES = _items(
    """Portuguese | Japanese | Korean | Italian | Greek | Arabic | Dutch | Swedish | Turkish |
Mandarin | Polish | Hindi | Welsh"""
)
VOLUNTEERING = _items(
    """the food bank | the animal shelter | the community garden | the hospice shop | the
refugee centre | the youth football club | the repair café | the library's reading club"""
)


# -- templates ---------------------------------------------------------------------------------

Slots = dict[str, str]


@dataclass(frozen=True)
class Template:
    """One kind of fact and every way a conversation may carry it.

    `draw` fills the slots; `key` names the slots that, with the person, identify the fact
    (the questions must say them all); `value` is the slot a question asks for. Turn texts are
    `str.format` strings over the slots (a capitalised slot name gives the value capitalised).
    `teller` says who speaks the evidence: "S" the person the fact is about, "O" the other
    speaker (a recommendation). `standalone` sentences are said in the first person and so need
    the speaker to be understood: only a template with key slots (words a question shares with
    them) uses them alone; otherwise a stand-alone fact is said back by name (`recap`)."""

    name: str
    recap: str
    """The fact in the second person ("your door code is {code}"), for a turn that says it
    back to the person by name."""
    category: str
    draw: Callable[[random.Random], Slots]
    key: tuple[str, ...]
    value: str
    ask: tuple[str, ...]
    answer: tuple[str, ...]
    standalone: tuple[str, ...]
    questions: tuple[str, ...]
    negated: tuple[str, ...] = ()
    intro: tuple[str, ...] = ()
    follow: tuple[str, ...] = ()
    pron: tuple[str, ...] = ()
    chain: tuple[str, ...] = ()
    first: tuple[str, ...] = ()
    first_prompt: tuple[str, ...] = ()
    first_reply: tuple[str, ...] = ()
    group: str = ""
    teller: str = "S"
    friends_only: bool = False

    def shapes(self) -> tuple[str, ...]:
        out = ["elliptical", "multi_turn", "correction", "standalone"]
        if self.intro:
            out.append("pronoun")
        return tuple(out)


def _pick(**lists: Sequence[str]) -> Callable[[random.Random], Slots]:
    def draw(r: random.Random) -> Slots:
        return {name: r.choice(values) for name, values in lists.items()}

    return draw


def _day_activity(r: random.Random) -> Slots:
    act, places = r.choice(ACTIVITIES)
    return {
        "day": r.choice(DAYS),
        "act": act,
        "place": r.choice(places),
        "comp": r.choice(COMPANIONS),
    }


def _relative(r: random.Random, pool: Sequence[tuple[str, str, str]] = RELATIVES) -> Slots:
    rel, pron, poss = r.choice(pool)
    return {"rel": rel, "pron": pron, "poss": poss, "be": "she's" if pron == "she" else "he's"}


def _rel_job(r: random.Random) -> Slots:
    return {**_relative(r), "role": r.choice(ROLES), "org": r.choice(WORKPLACES)}


def _pet(r: random.Random) -> Slots:
    return {"pet": r.choice(PETS), "petname": r.choice(PET_NAMES)}


def _book() -> Callable[[random.Random], str]:
    return lambda r: f"The {r.choice(BOOK_ADJ)} {r.choice(BOOK_NOUN)}"


def _reading(r: random.Random) -> Slots:
    return {"book": _book()(r), "author": r.choice(AUTHORS), **_relative(r)}


def _book_rec(r: random.Random) -> Slots:
    return {"topic": r.choice(TOPICS), "book": _book()(r), "author": r.choice(AUTHORS)}


def _gift(r: random.Random) -> Slots:
    return {**_relative(r), "gift": r.choice(GIFTS)}


def _baby(r: random.Random) -> Slots:
    sex = r.choice([("boy", "he", "him"), ("girl", "she", "her")])
    return {
        **_relative(r, SIBLINGS),
        "baby": r.choice(BABY_NAMES),
        "sex": sex[0],
        "bpron": sex[1],
        "bobj": sex[2],
    }


def _wedding(r: random.Random) -> Slots:
    return {
        **_relative(r, SIBLINGS),
        "date": f"{r.choice(MONTHS)} {r.randint(1, 28)}",
        "city": r.choice(CITIES),
    }


def _appointment(r: random.Random) -> Slots:
    return {
        "appt": r.choice(APPOINTMENTS),
        "when": f"{r.choice(WEEKDAYS)} at {r.choice(CLOCK)}",
    }


def _price(r: random.Random) -> Slots:
    return {"item": r.choice(BOUGHT), "price": f"{r.randint(4, 240) * 10:,} euros"}


def _rent(r: random.Random) -> Slots:
    return {"rent": f"{r.randint(28, 104) * 25:,}", "street": r.choice(OTHERS) + " Street"}


def _match(r: random.Random) -> Slots:
    a, b = r.randint(0, 5), r.randint(0, 5)
    return {"day": r.choice(DAYS), "score": f"{a}-{b}"}


def _trade(r: random.Random) -> Slots:
    trade, problem = r.choice(TRADES)
    return {"trade": trade, "problem": problem, "who": r.choice(OTHERS)}


T = Template
TEMPLATES: tuple[Template, ...] = (
    T(
        name="day_activity",
        recap="on {day} you went {act} {place} with {comp}",
        category="leisure",
        draw=_day_activity,
        key=("day",),
        group="day",
        value="act",
        ask=(
            "What did you do on {day}?",
            "How was {day}? Did you get up to anything?",
            "Did you do anything fun on {day}?",
            "So what did you end up doing on {day}?",
        ),
        answer=(
            "Went {act} {place} with {comp}.",
            "{Act} {place}, with {comp}. Exhausting but worth it.",
            "Oh, {act} {place} - {comp} dragged me along.",
            "We went {act} {place}. Perfect weather for once.",
        ),
        standalone=(
            "On {day} I went {act} {place} with {comp}.",
            "I spent {day} {act} {place} with {comp}.",
        ),
        questions=(
            "What did {name} do on {day}?",
            "How did {name} spend {day}?",
            "What was {name} up to on {day}?",
        ),
        negated=(
            "I didn't go {act} {place} on {day} after all, it poured down.",
            "We were meant to go {act} on {day} but I never made it.",
        ),
        intro=("{Comp} took me somewhere new on {day}.", "{Day} was brilliant, by the way."),
        follow=("Oh yeah? Where did you go?", "Really? What was that?", "Tell me about it!"),
        pron=(
            "{Act} {place}. I want to go back there soon.",
            "We went {act} {place}. It was exactly what I needed.",
        ),
        chain=("And {day}?", "What about {day}?"),
        first=("Went {act} {place} with {comp}, it was lovely.",),
        first_prompt=("Nice! When was this?", "Oh, when was that?"),
        first_reply=("On {day}.", "{Day}. Perfect timing."),
    ),
    T(
        name="evening_plans",
        recap="on {day} you're having dinner at {rest} with {friend}",
        category="leisure",
        draw=_pick(day=DAYS, rest=RESTAURANTS, friend=OTHERS),
        key=("day",),
        group="day",
        value="rest",
        ask=("Any plans for {day}?", "What are you doing on {day}?"),
        answer=(
            "Dinner at {rest} with {friend}, then maybe a film.",
            "{Friend} booked us a table at {rest}.",
        ),
        standalone=("On {day} I'm having dinner with {friend} at {rest}.",),
        questions=("Where is {name} having dinner on {day}?", "What are {name}'s plans for {day}?"),
        negated=("I'm not going to {rest} on {day}, {friend} cancelled.",),
    ),
    T(
        name="holiday",
        recap="in {month} you're off to {city} for {nights} nights",
        category="travel",
        draw=_pick(month=MONTHS, city=CITIES, nights=[str(n) for n in range(3, 15)]),
        key=("month",),
        value="city",
        ask=("Where are you off to in {month}?", "Any holiday plans for {month}?"),
        answer=(
            "{City}, for {nights} nights. Mostly food and long walks.",
            "We booked {city}! {Nights} nights.",
        ),
        standalone=("In {month} I'm going on holiday to {city} for {nights} nights.",),
        questions=(
            "Where is {name} going on holiday in {month}?",
            "What is {name}'s holiday destination in {month}?",
        ),
        negated=("We're not going to {city} in {month} after all.",),
        intro=("We finally booked our {month} holiday.",),
        follow=("Oh nice, where is it?", "Where are you going?"),
        pron=("{City}! We've wanted to go there for years.",),
        first=("Just booked {nights} nights in {city}!",),
        first_prompt=("Oh, when's that?", "Lovely. When for?"),
        first_reply=("{Month}.", "In {month}, if work lets me."),
    ),
    T(
        name="new_job",
        recap="you work at {company} now, in the {team} team",
        category="work",
        draw=_pick(company=COMPANIES, team=WORK_TEAMS),
        key=(),
        value="company",
        ask=(
            "So where are you working now?",
            "Where did you end up taking the job?",
            "Which company did you go with in the end?",
        ),
        answer=("{Company}, in the {team} team.", "At {company} - {team}, like before."),
        standalone=(
            "I started a new job at {company}, in the {team} team.",
            "I work at {company} now, on the {team} team.",
        ),
        questions=(
            "Where does {name} work now?",
            "Which company did {name} join?",
            "Who is {name}'s new employer?",
        ),
        negated=("I didn't take the {company} job in the end.", "I turned down {company}."),
        intro=("I started a new job last week.", "I finally accepted an offer."),
        follow=("Oh, congrats! Where is it?", "Amazing - who is it with?"),
        pron=("At {company}, in the {team} team.", "It's {company}, {team} team."),
    ),
    T(
        name="relative_job",
        recap="your {rel} is a {role} at {org}",
        category="family",
        draw=_rel_job,
        key=("rel",),
        value="role",
        ask=("What does your {rel} do these days?", "Is your {rel} still working?"),
        answer=("{Be} a {role} at {org}.", "{Be} working as a {role} at {org} now."),
        standalone=("My {rel} works as a {role} at {org}.",),
        questions=(
            "What does {name}'s {rel} do for a living?",
            "What is the job of {name}'s {rel}?",
        ),
        negated=("My {rel} isn't a {role} any more.",),
        intro=("My {rel} just changed careers.",),
        follow=("Really? What does {pron} do now?",),
        pron=("{Be} a {role} at {org} and loves it.",),
    ),
    T(
        name="pet_name",
        recap="your {pet} is called {petname}",
        category="pets",
        draw=_pet,
        key=("pet",),
        value="petname",
        ask=("What did you call the new {pet}?", "What's the {pet}'s name again?"),
        answer=("{Petname}. It suits the little thing.", "{Petname} - the kids picked it."),
        standalone=("Our new {pet} is called {petname}.",),
        questions=("What is the name of {name}'s {pet}?", "What did {name} name the {pet}?"),
        negated=("We almost called our {pet} {petname}, but didn't.",),
        intro=("We adopted a {pet} last weekend!",),
        follow=("Aww! What's its name?", "What did you name it?"),
        pron=("{Petname}. It already owns the sofa.",),
    ),
    T(
        name="vet",
        first=("Just {problem}, thank goodness.",),
        first_prompt=("Who has?", "Sorry, who?"),
        first_reply=("The {pet}. The vet saw it this morning.",),
        recap="the vet says your {pet} has {problem}",
        category="pets",
        draw=_pick(pet=PETS, problem=VET_PROBLEMS, treatment=TREATMENTS),
        key=("pet",),
        group="vet",
        value="problem",
        ask=("What did the vet say about the {pet}?", "Did you take the {pet} to the vet?"),
        answer=("{Problem}, so {treatment} for a week.", "Yes. Just {problem}, poor thing."),
        standalone=("The vet said our {pet} has {problem} and needs {treatment}.",),
        questions=(
            "What did the vet say was wrong with {name}'s {pet}?",
            "What was the vet's diagnosis for {name}'s {pet}?",
        ),
        negated=("The vet said our {pet} doesn't have {problem}, thankfully.",),
        intro=("I had to rush the {pet} to the vet yesterday.",),
        follow=("Oh no, what was it?", "Is it okay? What did they find?"),
        pron=("It was {problem}. {Treatment} for a week.",),
    ),
    T(
        name="allergy",
        recap="you're allergic to {allergen}",
        category="health",
        draw=_pick(allergen=ALLERGENS),
        key=(),
        value="allergen",
        ask=("Anything you can't eat?", "Any allergies I should know about before dinner?"),
        answer=("{Allergen}. I swell up like a balloon.", "Only {allergen}, but it's a bad one."),
        standalone=("I'm allergic to {allergen}.", "I have a serious {allergen} allergy."),
        questions=("What is {name} allergic to?", "What food allergy does {name} have?"),
        negated=("I'm not allergic to {allergen}, I just don't like it.",),
        intro=("I ended up in A&E after the work dinner.",),
        follow=("What happened?", "Oh no, why?"),
        pron=("There was {allergen} in the sauce, and I react badly to that.",),
    ),
    T(
        name="fav_dish",
        recap="your favourite thing to cook is {dish}",
        category="food",
        draw=_pick(dish=DISHES),
        key=(),
        value="dish",
        ask=("What's your favourite thing to cook?", "What do you cook when friends come over?"),
        answer=("{Dish}, my grandmother's recipe.", "Probably {dish}. Hard to beat."),
        standalone=("My favourite dish to cook is {dish}.",),
        questions=("What is {name}'s favourite dish to cook?", "What does {name} like cooking?"),
        negated=("I never cook {dish}, too fiddly.",),
    ),
    T(
        name="secret_ingredient",
        recap="the secret in your {dish} is {secret}",
        category="food",
        draw=_pick(dish=DISHES, secret=INGREDIENTS),
        key=("dish",),
        value="secret",
        ask=("What's the secret ingredient in your {dish}?", "How do you make your {dish}?"),
        answer=("{Secret}. Don't tell anyone.", "Honestly? {Secret}, right at the end."),
        standalone=("The secret ingredient in my {dish} is {secret}.",),
        questions=(
            "What is the secret ingredient in {name}'s {dish}?",
            "What does {name} put in their {dish}?",
        ),
        negated=("I don't put {secret} in my {dish}, whatever people say.",),
        intro=("Everyone asked for the recipe of my {dish} again.",),
        follow=("Go on then, what's the trick?",),
        pron=("{Secret}. That's all it is, really.",),
    ),
    T(
        name="booking",
        first=("Got us a table at {rest}, {time}!",),
        first_prompt=("For what?", "Oh nice, what's the occasion?"),
        first_reply=("{Occasion}.", "For {occasion}, remember?"),
        recap="you booked {rest} for {occasion}, at {time}",
        category="plans",
        draw=_pick(occasion=OCCASIONS, rest=RESTAURANTS, time=CLOCK),
        key=("occasion",),
        value="rest",
        ask=("Where did you book for {occasion}?", "Did you find somewhere for {occasion}?"),
        answer=("{Rest}, at {time}.", "Yes - {rest}, {time}. Took ages to get a table."),
        standalone=("I booked {rest} for {occasion}, at {time}.",),
        questions=(
            "Where did {name} book for {occasion}?",
            "Which restaurant is {name} going to for {occasion}?",
        ),
        negated=("We're not going to {rest} for {occasion}, it was full.",),
        intro=("I finally got us a table for {occasion}.",),
        follow=("Where is it?", "Oh good, where?"),
        pron=("{Rest}, at {time}. It's the place by the river.",),
    ),
    T(
        name="appointment",
        recap="your {appt} is on {when}",
        category="plans",
        draw=_appointment,
        key=("appt",),
        value="when",
        ask=("When's your {appt}?", "What time is your {appt} again?"),
        answer=("{When}.", "{When}. I'll have to leave work early."),
        standalone=("My {appt} is on {when}.",),
        questions=("When is {name}'s {appt}?", "What day and time is {name}'s {appt}?"),
        negated=("I don't have the {appt} on {when} any more, I cancelled it.",),
        intro=("They finally gave me a slot for the {appt}.",),
        follow=("When is it?", "Great, when is that?"),
        pron=("{When}. Took weeks to get it.",),
        chain=("And the {appt}?", "What about your {appt}?"),
        first=("{When}, finally!",),
        first_prompt=("For what?", "What is?"),
        first_reply=("The {appt}.", "My {appt}, I've been waiting for ages."),
    ),
    T(
        name="flight",
        recap="your flight to {city} is at {time}, terminal {terminal}",
        category="travel",
        draw=_pick(city=CITIES, time=CLOCK, terminal=["1", "2", "3", "4", "5"]),
        key=("city",),
        value="time",
        ask=("What time is your flight to {city}?", "When do you fly out to {city}?"),
        answer=("{Time}, from terminal {terminal}.", "{Time}. Far too early."),
        standalone=("My flight to {city} leaves at {time} from terminal {terminal}.",),
        questions=(
            "What time is {name}'s flight to {city}?",
            "When does {name}'s flight to {city} leave?",
        ),
        negated=("My flight to {city} isn't at {time} any more, they moved it.",),
        intro=("I'm flying to {city} tomorrow.",),
        follow=("What time do you leave?", "Oh! When is it?"),
        pron=("{Time}, from terminal {terminal}. I'll sleep on the plane.",),
        first=("{Time}, from terminal {terminal}. Ugh.",),
        first_prompt=("What is?", "What's at {time}?"),
        first_reply=("My flight to {city}.", "The flight to {city}."),
    ),
    T(
        name="moving",
        recap="you're moving to {city}, near the {landmark}",
        category="home",
        draw=_pick(city=CITIES, landmark=LANDMARKS),
        key=(),
        value="city",
        ask=("Where are you moving to?", "So where's the new place?"),
        answer=("{City}, near the {landmark}.", "{City}! We found a flat close to the {landmark}."),
        standalone=("We're moving to {city}, near the {landmark}.",),
        questions=("Where is {name} moving to?", "Which city is {name} moving to?"),
        negated=("We're not moving to {city} after all.",),
        intro=("We're finally moving next month.",),
        follow=("Where to?", "Oh wow, where?"),
        pron=("{City} - the flat is right by the {landmark}.",),
    ),
    T(
        name="baby",
        recap="your {rel}'s baby is called {baby}",
        category="family",
        draw=_baby,
        key=("rel",),
        value="baby",
        ask=("What did your {rel} call the baby?", "Has your {rel} picked a name for the baby?"),
        answer=("{Baby}, after our grandad.", "{Baby}. Cute, right?"),
        standalone=("My {rel}'s new baby is called {baby}.",),
        questions=(
            "What is the name of {name}'s {rel}'s baby?",
            "What did {name}'s {rel} name the baby?",
        ),
        negated=("My {rel} didn't go with {baby} in the end.",),
        intro=("My {rel} had the baby on Tuesday!",),
        follow=("Congratulations! What did they call {bobj}?",),
        pron=("A little {sex}, {baby}. {Bpron} is tiny.",),
    ),
    T(
        name="met_partner",
        recap="you met your partner at {event} in {city}",
        category="family",
        draw=_pick(event=EVENTS, city=CITIES),
        key=(),
        value="event",
        ask=("How did you two meet?", "Where did you meet your partner?"),
        answer=("At {event} in {city}, years ago.", "{Event} in {city}. I spilled a drink."),
        standalone=("I met my partner at {event} in {city}.",),
        questions=("Where did {name} meet their partner?", "How did {name} meet their partner?"),
        negated=("I didn't meet my partner at {event}, that's a myth.",),
    ),
    T(
        name="car",
        recap="you bought a {colour} {model}",
        category="home",
        draw=_pick(colour=COLOURS, model=CAR_MODELS),
        key=(),
        value="model",
        ask=("What car did you end up buying?", "Which car did you go for?"),
        answer=("A {colour} {model}, second-hand.", "The {colour} {model}. Low mileage too."),
        standalone=("I bought a {colour} {model}, second-hand.",),
        questions=("What car did {name} buy?", "Which car did {name} end up getting?"),
        negated=("I didn't buy the {colour} {model}, too expensive.",),
        intro=("I finally replaced the old car.",),
        follow=("Nice, what did you get?", "What is it?"),
        pron=("A {colour} {model}. It drives like a dream.",),
    ),
    T(
        name="price",
        recap="you paid {price} for the {item}",
        category="money",
        draw=_price,
        key=("item",),
        value="price",
        ask=("How much did you pay for the {item}?", "What did the {item} cost you?"),
        answer=("{Price}, which felt like a steal.", "{Price}, plus delivery."),
        standalone=("I paid {price} for the {item}.",),
        questions=("How much did {name} pay for the {item}?", "What did {name}'s {item} cost?"),
        negated=("I didn't pay {price} for the {item}, that was the list price.",),
        intro=("I finally bought the {item} I was looking at.",),
        follow=("How much was it?", "Was it expensive in the end?"),
        pron=("{Price}. Cheaper than I expected.",),
        chain=("And the {item}?", "What about the {item}?"),
        first=("Only {price}!",),
        first_prompt=("For what?", "What was?"),
        first_reply=("The {item}.", "The new {item}, I finally bought one."),
    ),
    T(
        name="reading",
        recap="you're reading '{book}' by {author}",
        category="culture",
        draw=_reading,
        key=(),
        value="book",
        ask=("What are you reading at the moment?", "Read anything good lately?"),
        answer=("'{book}'. Slow start but it gets good.", "'{book}', by {author}."),
        standalone=("I'm reading '{book}' by {author}.",),
        questions=("What book is {name} reading?", "Which book is {name} reading at the moment?"),
        negated=("I gave up on '{book}', couldn't get into it.",),
        intro=("I started a novel my {rel} lent me.",),
        follow=("What's it called?", "Oh, which one is it?"),
        pron=("'{book}', by {author}. It's grim but brilliant.",),
    ),
    T(
        name="book_rec",
        recap="for {topic} you should read '{book}' by {author}",
        category="culture",
        draw=_book_rec,
        key=("topic",),
        value="book",
        teller="O",
        ask=("Can you recommend a book on {topic}?", "Any good books about {topic}?"),
        answer=("'{book}' by {author}. Short and practical.", "Try '{book}', it's very clear."),
        standalone=("If you want to learn about {topic}, read '{book}' by {author}.",),
        questions=(
            "Which book was recommended to {name} about {topic}?",
            "What book on {topic} did {name} get recommended?",
        ),
        negated=("Don't bother with '{book}' for {topic}, it's outdated.",),
    ),
    T(
        name="gift",
        recap="you're getting your {rel} {gift} for the birthday",
        category="family",
        draw=_gift,
        key=("rel",),
        value="gift",
        ask=("What are you getting your {rel} for the birthday?", "Got a present for your {rel}?"),
        answer=("{Gift}. {Pron} has been hinting for months.", "{Gift}, I think."),
        standalone=("I'm getting my {rel} {gift} for {poss} birthday.",),
        questions=(
            "What birthday present is {name} getting for their {rel}?",
            "What is {name} giving their {rel} for the birthday?",
        ),
        negated=("I'm not getting my {rel} {gift}, {pron} already has one.",),
        chain=("And your {rel}?", "What about your {rel}?"),
    ),
    T(
        name="birthday",
        recap="your birthday is on {date}",
        category="family",
        draw=lambda r: {"date": f"{r.choice(MONTHS)} {r.randint(1, 28)}"},
        key=(),
        value="date",
        ask=("When's your birthday again?", "When is your birthday?"),
        answer=("{Date}. Don't forget this time!", "{Date}, same as my grandad."),
        standalone=("My birthday is on {date}.",),
        questions=("When is {name}'s birthday?", "What date is {name}'s birthday?"),
        negated=("My birthday isn't {date}, people always get that wrong.",),
    ),
    T(
        name="class_signup",
        recap="you signed up for {cls} on {weekday} nights",
        category="leisure",
        draw=_pick(cls=CLASSES, weekday=WEEKDAYS),
        key=(),
        value="cls",
        ask=("What class did you sign up for?", "Which course did you pick in the end?"),
        answer=("{Cls}, {weekday} nights at the community centre.", "{Cls}. It starts soon."),
        standalone=("I signed up for a {cls} class on {weekday} nights.",),
        questions=("What class did {name} sign up for?", "Which course did {name} enrol in?"),
        negated=("I didn't sign up for {cls} in the end.",),
        intro=("I finally signed up for that evening course.",),
        follow=("Which one was it?", "Oh, what's it on?"),
        pron=("{Cls}, {weekday} nights. I'm nervous about it.",),
    ),
    T(
        name="match",
        recap="your match on {day} finished {score}",
        category="sport",
        draw=_match,
        key=("day",),
        group="day",
        value="score",
        ask=("How did the match go on {day}?", "What was the result on {day}?"),
        answer=("{Score}. I missed a penalty.", "{Score}, and we were robbed."),
        standalone=("Our football match on {day} finished {score}.",),
        questions=(
            "What was the score of {name}'s match on {day}?",
            "How did {name}'s football match end on {day}?",
        ),
        negated=("It didn't end {score} on {day}, that was the other game.",),
    ),
    T(
        name="race_time",
        recap="you did {race} in {rtime}",
        category="sport",
        draw=_pick(race=RACES, rtime=RACE_TIMES),
        key=("race",),
        value="rtime",
        ask=("What was your time in {race}?", "How fast did you do {race}?"),
        answer=("{Rtime}, a personal best!", "{Rtime}. My knee gave up near the end."),
        standalone=("I finished {race} in {rtime}.",),
        questions=("What was {name}'s time in {race}?", "How long did {name} take for {race}?"),
        negated=("I didn't finish {race} in {rtime}, that was my brother.",),
        first=("{Rtime}! A personal best!",),
        first_prompt=("What was?", "A personal best in what?"),
        first_reply=("My time in {race}.", "{Race}, this morning."),
    ),
    T(
        name="rent",
        recap="your rent is {rent} a month",
        category="home",
        draw=_rent,
        key=(),
        value="rent",
        ask=("How much is the rent on the new place?", "What are you paying for the flat?"),
        answer=("{Rent} a month, bills included.", "{Rent}. Steep, but the location is great."),
        standalone=("Our rent is {rent} a month, bills included.",),
        questions=("How much rent does {name} pay?", "What is {name}'s monthly rent?"),
        negated=("We're not paying {rent} for rent, that was the first offer.",),
        intro=("We signed for the flat on {street}!",),
        follow=("How much is it?", "Congrats! Is it pricey?"),
        pron=("{Rent} a month, bills included.",),
    ),
    T(
        name="door_code",
        recap="your door code is {code}",
        category="home",
        draw=lambda r: {"code": f"{r.randint(1000, 9999)}"},
        key=(),
        value="code",
        ask=("What's the door code at your place again?", "What's the code for your building?"),
        answer=("{Code}, then press the bell.", "{Code}. The keypad is a bit stiff."),
        standalone=("The door code for my building is {code}.",),
        questions=("What is the door code at {name}'s place?", "What code opens {name}'s door?"),
        negated=("The door code isn't {code} any more, they changed it.",),
    ),
    T(
        name="school",
        recap="your {child} got into {school}",
        category="family",
        draw=_pick(child=CHILDREN, school=SCHOOLS),
        key=("child",),
        value="school",
        ask=("Which school did your {child} get into?", "Did your {child} get a school place?"),
        answer=("{School}, the one by the river.", "Yes, {school}! First choice."),
        standalone=("My {child} got a place at {school}.",),
        questions=(
            "Which school is {name}'s {child} going to?",
            "What school did {name}'s {child} get into?",
        ),
        negated=("My {child} didn't get into {school}.",),
    ),
    T(
        name="doctor",
        recap="the doctor says it's {diag} in your {body}",
        category="health",
        draw=_pick(body=BODY, diag=DIAGNOSES),
        key=("body",),
        value="diag",
        ask=("What did the doctor say about your {body}?", "Did you get your {body} looked at?"),
        answer=("{Diag}. I have to rest for weeks.", "Yes, {diag}, apparently."),
        standalone=("The doctor said I have {diag} in my {body}.",),
        questions=(
            "What did the doctor say about {name}'s {body}?",
            "What is wrong with {name}'s {body}?",
        ),
        negated=("It's not {diag} in my {body}, the scan was clear.",),
        intro=("I finally saw someone about my {body}.",),
        follow=("And? What did they say?",),
        pron=("{Diag}. I have to rest it for weeks.",),
    ),
    T(
        name="prescription",
        recap="you're on {med} twice a day",
        category="health",
        draw=_pick(med=MEDICATIONS),
        key=(),
        value="med",
        ask=("What did they prescribe you?", "Did the GP give you anything for it?"),
        answer=("{Med}, twice a day for a week.", "{Med}. Already feeling better."),
        standalone=("The doctor prescribed me {med}, twice a day.",),
        questions=(
            "What medication was {name} prescribed?",
            "What did the doctor prescribe {name}?",
        ),
        negated=("I'm not taking {med} any more.",),
    ),
    T(
        name="hobby",
        recap="you've taken up {hobby}",
        category="leisure",
        draw=_pick(hobby=HOBBIES),
        key=(),
        value="hobby",
        ask=("So what's the new hobby?", "What are you doing with your evenings now?"),
        answer=("{Hobby}. I'm terrible at it, but it's fun.", "{Hobby}! Three times a week."),
        standalone=("I've taken up {hobby}.",),
        questions=("What new hobby did {name} take up?", "What hobby has {name} started?"),
        negated=("I quit {hobby}, it wasn't for me.",),
        intro=("I've got a new obsession.",),
        follow=("Oh no. What is it this time?",),
        pron=("{Hobby}. I've already bought all the gear for it.",),
    ),
    T(
        name="concert",
        first=("{Band} were incredible last night!",),
        first_prompt=("Where was that?", "Oh, where did they play?"),
        first_reply=("At {venue}.", "{Venue}. Packed."),
        recap="you saw {band} at {venue}",
        category="culture",
        draw=_pick(venue=VENUES, band=BANDS),
        key=("venue",),
        value="band",
        ask=("Who did you see at {venue}?", "Who was playing at {venue} the other night?"),
        answer=("{Band}! Nearly three hours, no break.", "{Band}. Best gig of the year."),
        standalone=("I saw {band} play at {venue}.",),
        questions=("Which band did {name} see at {venue}?", "Who did {name} see play at {venue}?"),
        negated=("I didn't get to see {band} at {venue}, tickets sold out.",),
        intro=("Went to a gig at {venue} last night.",),
        follow=("Ooh, who was it?",),
        pron=("{Band}! They played for nearly three hours.",),
    ),
    T(
        name="film",
        first=("'{film}' was so good, honestly.",),
        first_prompt=("Who did you go with?", "Did you go on your own?"),
        first_reply=("With {friend}.", "No, {friend} came too."),
        recap="you and {friend} saw '{film}'",
        category="culture",
        draw=_pick(friend=OTHERS, film=FILMS),
        key=("friend",),
        value="film",
        ask=("What did you and {friend} go and see?", "Which film did you watch with {friend}?"),
        answer=("'{film}'. Too long, but the ending was great.", "'{film}'. I cried, honestly."),
        standalone=("I watched '{film}' at the cinema with {friend}.",),
        questions=(
            "What film did {name} see with {friend}?",
            "Which film did {name} watch with {friend}?",
        ),
        negated=("{Friend} and I didn't see '{film}', it was sold out.",),
    ),
    T(
        name="lost_item",
        first=("{Found}! Can you believe it?",),
        first_prompt=("What was?", "Sorry, what?"),
        first_reply=("My {item}. I'd given up on it.", "The {item} I lost."),
        recap="your {item} turned up {found}",
        category="home",
        draw=_pick(item=LOST_ITEMS, found=FOUND_AT),
        key=("item",),
        value="found",
        ask=("Did your {item} ever turn up?", "Where was your {item} in the end?"),
        answer=("{Found}, of all places.", "{Found}. Finally!"),
        standalone=("I found my lost {item} {found}.",),
        questions=("Where did {name} find their {item}?", "Where was {name}'s lost {item}?"),
        negated=("My {item} wasn't {found}, I checked there twice.",),
        intro=("Guess what finally turned up this morning?",),
        follow=("Your {item}? Where was it?",),
        pron=("{Found}. No idea how it got there.",),
    ),
    T(
        name="meeting_place",
        recap="we're meeting at {cafe} at {time}",
        category="plans",
        draw=_pick(cafe=CAFES, time=CLOCK),
        key=(),
        value="cafe",
        friends_only=True,
        ask=("Where shall we meet tomorrow?", "Where do you want to meet tomorrow?"),
        answer=("{Cafe}, at {time}?", "How about {cafe}? Say {time}."),
        standalone=("Let's meet tomorrow at {cafe}, at {time}.",),
        questions=("Where did {name} suggest meeting {other}?", "Where is {name} meeting {other}?"),
        negated=("Let's not meet at {cafe} again, it's always packed.",),
    ),
    T(
        name="wedding",
        recap="your {rel}'s wedding is on {date}, near {city}",
        category="family",
        draw=_wedding,
        key=("rel",),
        value="date",
        ask=("When is your {rel}'s wedding?", "Have they set a date for your {rel}'s wedding?"),
        answer=("{Date}, at a vineyard near {city}.", "{Date}. Save the date!"),
        standalone=("My {rel}'s wedding is on {date}, near {city}.",),
        questions=(
            "When is {name}'s {rel}'s wedding?",
            "What date is the wedding of {name}'s {rel}?",
        ),
        negated=("My {rel}'s wedding isn't on {date} any more, they postponed.",),
        intro=("My {rel} is getting married!",),
        follow=("Amazing! When is it?",),
        pron=("{Date}, at a vineyard near {city}. We're all invited.",),
    ),
    T(
        name="football_team",
        recap="you support {team}",
        category="sport",
        draw=_pick(team=FOOTBALL),
        key=(),
        value="team",
        ask=("Who do you support?", "Which team are you cheering for these days?"),
        answer=("{Team}, since I was a kid.", "{Team}, sadly."),
        standalone=("I support {team}, have done since I was a kid.",),
        questions=("Which football team does {name} support?", "What team does {name} support?"),
        negated=("I don't support {team}, my dad does.",),
    ),
    T(
        name="tradesperson",
        recap="{who} the {trade} fixed your {problem}",
        category="home",
        draw=_trade,
        key=("problem",),
        value="who",
        ask=("Who fixed the {problem} in the end?", "Did you find someone for the {problem}?"),
        answer=(
            "A {trade} called {who}. Really reasonable.",
            "{Who}, the {trade} my neighbour uses.",
        ),
        standalone=("A {trade} called {who} fixed our {problem}.",),
        questions=(
            "Who fixed {name}'s {problem}?",
            "What is the name of the {trade} who fixed {name}'s {problem}?",
        ),
        negated=("{Who} didn't fix the {problem}, he never showed up.",),
    ),
    T(
        name="deadline",
        recap="your {project} is due on {date}",
        category="work",
        draw=lambda r: {
            "project": r.choice(PROJECTS),
            "date": f"{r.choice(MONTHS)} {r.randint(1, 28)}",
        },
        key=("project",),
        value="date",
        ask=("When is the {project} due?", "What's the deadline for the {project}?"),
        answer=("{Date}. Tight.", "{Date}, but my boss wants a draft sooner."),
        standalone=("The {project} is due on {date}.",),
        questions=(
            "When is {name}'s {project} due?",
            "What is the deadline for {name}'s {project}?",
        ),
        negated=("The {project} isn't due on {date} any more, they moved it.",),
        intro=("They dumped the {project} on me.",),
        follow=("Ugh. When's it due?",),
        pron=("{Date}, and nobody has started it.",),
    ),
    T(
        name="database",
        recap="your team chose {db} for the {component}",
        category="work",
        draw=_pick(component=COMPONENTS, db=DATABASES),
        key=("component",),
        value="db",
        ask=(
            "Which database did you go with for the {component}?",
            "What did the team pick for the {component} in the end?",
        ),
        answer=("{Db}, mostly because the team already knows it.", "{Db}. The benchmarks won."),
        standalone=("We chose {db} for the {component}.",),
        questions=(
            "Which database did {name}'s team choose for the {component}?",
            "What database does {name}'s {component} use?",
        ),
        negated=("We ruled out {db} for the {component}.",),
    ),
    T(
        name="bug",
        recap="the {component} crashes were caused by {cause}",
        category="work",
        draw=_pick(component=COMPONENTS, cause=CAUSES),
        key=("component",),
        group="bug",
        value="cause",
        ask=("What was causing the {component} crashes?", "Did you find the {component} bug?"),
        answer=("{Cause}. Took us two days to find.", "Yes - {cause}."),
        standalone=("The {component} crashes were caused by {cause}.",),
        questions=(
            "What caused the crashes in {name}'s {component}?",
            "What was the bug in {name}'s {component}?",
        ),
        negated=("It wasn't {cause} in the {component}, we checked that first.",),
        intro=("We finally found why the {component} kept crashing.",),
        follow=("Oh? What was it?",),
        pron=("{Cause}. Two days to find it.",),
    ),
    T(
        name="commute",
        recap="you get to work {mode}",
        category="work",
        draw=_pick(mode=COMMUTES, minutes=[str(5 * n) for n in range(2, 13)]),
        key=(),
        value="mode",
        ask=("How do you get to work now?", "How's the commute from the new place?"),
        answer=("{Mode}, about {minutes} minutes door to door.", "{Mode}. {Minutes} minutes."),
        standalone=("I get to work {mode}, about {minutes} minutes.",),
        questions=("How does {name} get to work?", "How does {name} commute?"),
        negated=("I don't go to work {mode} any more, too slow.",),
    ),
    T(
        name="exam",
        first=("Passed with {score}!",),
        first_prompt=("Passed what?", "Congrats! Which one?"),
        first_reply=("{Exam}.", "{Exam}, finally."),
        recap="you passed {exam} with {score}",
        category="study",
        draw=lambda r: {"exam": r.choice(EXAMS), "score": str(r.randint(52, 99))},
        key=("exam",),
        value="score",
        ask=("How did {exam} go?", "Did you get your results for {exam}?"),
        answer=("Passed! {Score} out of 100.", "{Score} percent. Just enough."),
        standalone=("I passed {exam} with {score} out of 100.",),
        questions=("What did {name} score on {exam}?", "What was {name}'s result in {exam}?"),
        negated=("I didn't get {score} on {exam}, that was the mock.",),
        intro=("The results for {exam} came out this morning.",),
        follow=("And? How did you do?",),
        pron=("Passed with {score}! I can't believe it.",),
    ),
    T(
        name="together",
        recap="you two have been together {years} years",
        category="family",
        draw=lambda r: {"years": str(r.randint(2, 25)), "month": r.choice(MONTHS)},
        key=(),
        value="years",
        ask=(
            "How long have you two been together now?",
            "How many years has it been with you two?",
        ),
        answer=("{Years} years in {month}.", "{Years} years! Feels like less."),
        standalone=("My partner and I have been together for {years} years.",),
        questions=(
            "How long has {name} been with their partner?",
            "How many years has {name} been with their partner?",
        ),
        negated=("We haven't been together {years} years, it's fewer.",),
    ),
    T(
        name="coffee",
        recap="your usual order is {drink}",
        category="food",
        draw=_pick(drink=DRINKS),
        key=(),
        value="drink",
        ask=("What do you usually order at the café?", "The usual? What is it again?"),
        answer=("{Drink}, no sugar.", "{Drink}. Extra hot."),
        standalone=("My usual café order is {drink}.",),
        questions=(
            "What does {name} usually order at the café?",
            "What is {name}'s usual café order?",
        ),
        negated=("I don't order {drink} any more.",),
    ),
    T(
        name="shoe_size",
        recap="you're a size {size}",
        category="personal",
        draw=lambda r: {"size": str(r.randint(36, 46))},
        key=(),
        value="size",
        ask=("What shoe size are you?", "What size do you take in trainers?"),
        answer=("{Size}, sometimes half a size up.", "A {size}. Why, are you buying me shoes?"),
        standalone=("I wear size {size} shoes.",),
        questions=("What shoe size does {name} wear?", "What is {name}'s shoe size?"),
        negated=("I'm not a size {size}, that's my brother.",),
    ),
    T(
        name="language",
        recap="you're learning {lang}",
        category="study",
        draw=_pick(lang=LANGUAGES),
        key=(),
        value="lang",
        ask=("Which language are you learning?", "What's the app teaching you these days?"),
        answer=("{Lang}, for the trip next year.", "{Lang}. The grammar is killing me."),
        standalone=("I'm learning {lang} for a trip next year.",),
        questions=("Which language is {name} learning?", "What language is {name} studying?"),
        negated=("I stopped learning {lang}.",),
        intro=("I've started learning a new language.",),
        follow=("Which one is it?",),
        pron=("{Lang}. I practise it every morning on the bus.",),
    ),
    T(
        name="volunteering",
        recap="you volunteer at {place} on {weekday}s",
        category="leisure",
        draw=_pick(place=VOLUNTEERING, weekday=WEEKDAYS),
        key=(),
        value="place",
        ask=("Where do you volunteer these days?", "Where's the volunteering gig?"),
        answer=("{Place}, every {weekday}.", "At {place}, sorting donations mostly."),
        standalone=("I volunteer at {place} every {weekday}.",),
        questions=("Where does {name} volunteer?", "Where does {name} do volunteer work?"),
        negated=("I don't volunteer at {place} any more.",),
        intro=("I've started volunteering on {weekday}s.",),
        follow=("That's great! Where is it?",),
        pron=("At {place}. I love it there.",),
    ),
)


def _placeholders(text: str) -> set[str]:
    return {name.lower() for _, name, _, _ in string.Formatter().parse(text) if name}


def _check(templates: Sequence[Template]) -> None:
    """The promises the shapes rely on, checked once: a question names every key slot and
    never the value; an ask names the key; an elliptical answer says the value, not the key."""
    for t in templates:
        key = set(t.key)
        for q in t.questions:
            p = _placeholders(q) - {"name", "other"}
            assert key <= p and t.value not in p, (t.name, q)
        for a in t.ask:
            assert key <= _placeholders(a), (t.name, a)
        for a in (*t.answer, *t.pron, *t.first):
            assert t.value in _placeholders(a), (t.name, a)
        for a in t.answer:
            assert not key & _placeholders(a), (t.name, a)
        for s in (*t.standalone, t.recap):
            assert key | {t.value} <= _placeholders(s), (t.name, s)
        if t.intro:
            assert t.follow and t.pron, t.name
            for i in t.intro:
                for f in t.follow:
                    assert key <= _placeholders(i) | _placeholders(f), (t.name, i, f)
        for c in t.chain:
            assert key <= _placeholders(c), (t.name, c)
        if t.first:
            assert t.first_prompt and t.first_reply, t.name
            for f in t.first_reply:
                assert key <= _placeholders(f), (t.name, f)


_check(TEMPLATES)
BY_NAME = {t.name: t for t in TEMPLATES}

# -- the other lines of a conversation ---------------------------------------------------------

REACTIONS = _items(
    """Nice! | Oh, lovely. | Ha, of course. | Good to know. | Oh no. | That sounds great. |
Fair enough. | Wow, okay. | Love that. | Classic."""
)
ASSISTANT_REACTIONS = _items(
    """Noted. | Got it, I'll keep that in mind. | Thanks for telling me. | Understood. | That
sounds lovely. | Okay, noted."""
)
SMALLTALK = [
    ("How's work been?", "Busy, as always. You know how it is."),
    ("Did you see the forecast?", "Rain all week, apparently."),
    ("Are you sleeping better?", "A bit, thanks for asking."),
    ("How are the kids?", "Loud. Happy, but loud."),
    ("Have you eaten yet?", "Not yet, I'm starving."),
    ("Sorry I missed your call.", "No worries, it wasn't urgent."),
    ("Is your internet working again?", "Finally, after three calls to support."),
    ("Did you finish that series?", "Two episodes left. No spoilers!"),
    ("Feeling any better today?", "Much better, thanks."),
    ("Long week?", "The longest. I need a holiday."),
    ("Are you still doing the early shifts?", "Only until the end of the month."),
    ("Did the parcel arrive?", "Yes, this morning. All in one piece."),
]
NOISE = _items(
    """The pool is closed on {day}, annoyingly. | Traffic will be awful on {day}, I bet. | My
{rel} is working on {day} again. | The market is only open on {day}. | Did you hear
{company} is laying people off? | {Company} keeps sending me recruiter emails. |
Apparently it rained all week in {city}. | I saw the cutest {pet} on the bus today. |
That {band} song is stuck in my head. | I read that {hobby} is good for stress. |
They're filming something near the {landmark}. | The queue at {rest} went round the
block. | My {appt} reminder went off by mistake. | There's a documentary about {topic}
on tonight. | Someone left {gift} on the train, can you imagine. | I keep seeing adverts
for the {model}. | Prices at {cafe} went up again. | My old {item} finally died."""
)
NULL_ANSWERS = [
    "Not sure yet, to be honest.",
    "Can't remember, honestly.",
    "Let me get back to you on that.",
    "Haven't sorted that out yet.",
    "No idea. Ask me next week.",
]
PAUSES = [  # the answer comes two or three turns after the question: (stall, reply, lead-in)
    ("Hang on, let me check.", None, "Okay, so: "),
    ("Good question, one sec.", None, ""),
    ("Why do you ask?", "Just curious!", ""),
    ("Why, are you keeping notes?", "Ha, maybe.", ""),
    ("Hmm, let me think.", "Take your time.", "Right. "),
    ("Sorry, someone's at the door - one minute.", "No worries.", "Sorry about that. "),
]
NAMED_FRAMES = [
    "Noted, {name}: {recap}.",
    "Got it, {name} - {recap}.",
    "So {name}, {recap}. I'll remember that.",
    "Okay {name}, {recap}. Good to know.",
]
RECOMMEND_FRAMES = ["{name}, {recap}.", "Honestly, {name}: {recap}.", "Easy, {name} - {recap}."]
CORRECTIONS = [
    "Sorry, I meant {new}, not {old}.",
    "Wait, I got that wrong: {new}, not {old}.",
    "Correction: {new}. I keep mixing it up with {old}.",
    "Oops - {new}, not {old}. Long day.",
    "Actually no, scratch that: {new}. Not {old}.",
]
FRIEND_OPEN = [
    ("Hey {b}! How's it going?", "{A}! Long time. All good here, you?"),
    ("Hi {b}, got a minute?", "Sure, {a}, what's up?"),
    ("{B}! Are you around?", "Yep, just got home. Hi {a}."),
    ("Morning {b}.", "Morning, {a}!"),
    ("Hey, you free to chat?", "Always. What's new?"),
]
ASSISTANT_OPEN = [
    ("Hi, it's {a} again.", "Welcome back, {a}. What's on your mind?"),
    ("Hello! {A} here.", "Hi {a}, good to hear from you. How can I help?"),
    ("Morning.", "Good morning, {a}. How are you today?"),
    ("Hey there.", "Hello again! What would you like to talk about?"),
]
CLOSERS = [
    "Anyway, I have to run. Talk soon!",
    "Okay, that's all for now. Thanks!",
    "Right, dinner's ready. Bye!",
    "Speak tomorrow.",
    "Thanks, that helps. Bye for now.",
]


def _noise_slots(r: random.Random) -> Slots:
    rel = _relative(r)
    return {
        "day": r.choice(DAYS),
        "rel": rel["rel"],
        "company": r.choice(COMPANIES),
        "city": r.choice(CITIES),
        "pet": r.choice(PETS),
        "band": r.choice(BANDS),
        "hobby": r.choice(HOBBIES),
        "landmark": r.choice(LANDMARKS),
        "rest": r.choice(RESTAURANTS),
        "appt": r.choice(APPOINTMENTS),
        "topic": r.choice(TOPICS),
        "gift": r.choice(GIFTS),
        "model": r.choice(CAR_MODELS),
        "cafe": r.choice(CAFES),
        "item": r.choice(BOUGHT),
    }


# -- the data set ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    index: int
    """Position in `Conversations.turns` (and in `drafts()`)."""
    session: str
    turn: int
    """1 for a session's first turn."""
    speaker: str
    content: str
    created_at: datetime


@dataclass(frozen=True)
class Question:
    text: str
    shape: str
    variant: str
    """How the shape was realised: qa, chain, pronoun, pause, value_first, correction, ..."""
    template: str
    category: str
    subject: str
    answer: str
    session: str
    evidence: tuple[int, ...]
    """Indexes into `Conversations.turns` of the turn(s) that carry the answer."""


@dataclass
class Conversations:
    seed: int
    sessions: list[str]
    turns: list[Turn]
    questions: list[Question]
    distractor_sessions: int = 0
    templates_used: dict[str, int] = field(default_factory=dict)

    def drafts(self) -> list[Draft]:
        """One draft per turn, in order (not pre-validated: the engine validates each)."""
        return [
            Draft(
                content=t.content,
                metadata={"session": t.session, "turn": t.turn, "speaker": t.speaker},
                created_at=t.created_at,
            )
            for t in self.turns
        ]

    def session_turns(self, session: str) -> list[Turn]:
        return [t for t in self.turns if t.session == session]


@dataclass
class _Line:
    speaker: str
    text: str
    evidence_of: list[int] = field(default_factory=list)


@dataclass
class _Fact:
    template: Template
    subject: str
    other: str
    slots: Slots
    shape: str
    variant: str


_AN = re.compile(r"\b([Aa]) (?=[AEIOUaeiou])")


def _fill(text: str, slots: Slots) -> str:
    full = dict(slots)
    for k, v in slots.items():
        full[k.capitalize()] = v[:1].upper() + v[1:]
    out = _AN.sub(r"\1n ", text.format(**full))
    return out[:1].upper() + out[1:]


class _Builder:
    def __init__(self, rng: random.Random, people: list[str]) -> None:
        self.r = rng
        self.people = people
        self.taken: set[tuple[str, ...]] = set()
        self.facts: list[_Fact] = []
        self.facts_questions: list[list[str]] = []
        self.pending: list[tuple[str, Template, Slots, str, int]] = []
        self.session_no = 0
        self.in_session: set[str] = set()  # templates already used in this session
        self.by_shape = {s: [t for t in TEMPLATES if s in t.shapes()] for s in SHAPES}

    # keys: one fact (or distractor) per person and key in the whole store
    def key(self, t: Template, person: str, slots: Slots) -> tuple[str, ...]:
        return (person, t.group or t.name, *(slots[k] for k in t.key))

    def claim(self, t: Template, person: str, slots: Slots) -> bool:
        k = self.key(t, person, slots)
        if k in self.taken:
            return False
        self.taken.add(k)
        return True

    def pair(self, kind: str) -> tuple[str, str]:
        a = self.r.choice(self.people)
        if kind == "assistant":
            return a, ASSISTANT
        b = self.r.choice([p for p in self.people if p != a])
        return a, b

    def opener(self, a: str, b: str) -> list[_Line]:
        if b == ASSISTANT:
            first, second = self.r.choice(ASSISTANT_OPEN)
        else:
            first, second = self.r.choice(FRIEND_OPEN)
        names = {"a": a, "b": b}
        return [_Line(a, _fill(first, names)), _Line(b, _fill(second, names))]

    def reaction(self, speaker: str) -> _Line:
        pool = ASSISTANT_REACTIONS if speaker == ASSISTANT else REACTIONS
        return _Line(speaker, self.r.choice(pool))

    def vocative(self, text: str, name: str) -> str:
        if name != ASSISTANT and self.r.random() < 0.25:
            return f"{name}, {text[:1].lower()}{text[1:]}"
        return text

    # -- facts -------------------------------------------------------------------------------

    def new_fact(
        self, t: Template, subject: str, other: str, slots: Slots, shape: str, variant: str
    ) -> int:
        self.facts.append(_Fact(t, subject, other, slots, shape, variant))
        n = self.r.choices([1, 2], [0.65, 0.35])[0]
        self.facts_questions.append(self.r.sample(t.questions, min(n, len(t.questions))))
        return len(self.facts) - 1

    def fact_block(self, a: str, b: str) -> tuple[list[_Line], list[_Line]]:
        """The lines of one fact, and lines to say later in the session (a correction)."""
        r = self.r
        subject, other = (a, b) if b == ASSISTANT or r.random() < 0.5 else (b, a)
        shape = r.choices(SHAPES, SHAPE_WEIGHTS)[0]
        for _ in range(50):
            t = r.choice(self.by_shape[shape])
            if (t.friends_only and other == ASSISTANT) or t.name in self.in_session:
                continue
            slots = t.draw(r)
            if self.claim(t, subject, slots):
                break
        else:
            return [], []
        self.in_session.add(t.name)
        teller, asker = (subject, other) if t.teller == "S" else (other, subject)
        later: list[_Line] = []
        if shape == "elliptical":
            f = self.new_fact(t, subject, other, slots, shape, "qa")
            lines = [
                _Line(asker, self.vocative(_fill(r.choice(t.ask), slots), teller)),
                _Line(teller, _fill(r.choice(t.answer), slots), [f]),
            ]
            if t.chain and r.random() < 0.5:
                for _ in range(10):
                    more = t.draw(r)
                    if any(more[k] != slots[k] for k in t.key) and self.claim(t, subject, more):
                        g = self.new_fact(t, subject, other, more, shape, "chain")
                        lines += [
                            _Line(asker, _fill(r.choice(t.chain), more)),
                            _Line(teller, _fill(r.choice(t.answer), more), [g]),
                        ]
                        break
            if r.random() < 0.6:
                lines.append(self.reaction(asker))
        elif shape == "pronoun":
            f = self.new_fact(t, subject, other, slots, shape, "pronoun")
            lines = [
                _Line(teller, _fill(r.choice(t.intro), slots)),
                _Line(asker, _fill(r.choice(t.follow), slots)),
                _Line(teller, _fill(r.choice(t.pron), slots), [f]),
            ]
            if r.random() < 0.5:
                lines.append(self.reaction(asker))
        elif shape == "multi_turn":
            if t.first and r.random() < 0.5:
                f = self.new_fact(t, subject, other, slots, shape, "value_first")
                lines = [
                    _Line(teller, _fill(r.choice(t.first), slots), [f]),
                    _Line(asker, _fill(r.choice(t.first_prompt), slots)),
                    _Line(teller, _fill(r.choice(t.first_reply), slots)),
                ]
            else:
                f = self.new_fact(t, subject, other, slots, shape, "pause")
                pause, reply, lead = r.choice(PAUSES)
                lines = [
                    _Line(asker, self.vocative(_fill(r.choice(t.ask), slots), teller)),
                    _Line(teller, pause),
                ]
                if reply:
                    lines.append(_Line(asker, reply))
                answer = _fill(r.choice(t.answer), slots)
                if lead.endswith(": ") and _lowerable(answer):
                    answer = lead + answer[:1].lower() + answer[1:]
                elif lead:
                    answer = lead + answer
                lines.append(_Line(teller, answer, [f]))
            if r.random() < 0.5:
                lines.append(self.reaction(asker))
        elif shape == "correction":
            for _ in range(20):
                old = t.draw(r)
                if old[t.value] != slots[t.value]:
                    break
            old = {**slots, t.value: old[t.value]}
            f = self.new_fact(t, subject, other, slots, shape, "correction")
            if r.random() < 0.5:
                lines = [_Line(teller, _fill(r.choice(t.standalone), old))]
            else:
                lines = [
                    _Line(asker, self.vocative(_fill(r.choice(t.ask), old), teller)),
                    _Line(teller, _fill(r.choice(t.answer), old)),
                ]
            lines.append(self.reaction(asker))
            fix = r.choice(CORRECTIONS)
            later = [_Line(teller, _fill(fix, {"new": slots[t.value], "old": old[t.value]}), [f])]
        elif t.key and r.random() < 0.5:
            f = self.new_fact(t, subject, other, slots, shape, "statement")
            lines = [_Line(teller, _fill(r.choice(t.standalone), slots), [f])]
            if r.random() < 0.7:
                lines.append(self.reaction(asker))
        else:
            # Said back by name: the turn holds the person, the key and the value. After the
            # person's own words (a statement, or an answer to a question), as an assistant
            # or a friend confirms what they heard; both of those turns carry the answer.
            f = self.new_fact(t, subject, other, slots, shape, "named")
            yours = {k: _yours(v) for k, v in slots.items()}
            recap = _AN.sub(r"\1n ", t.recap.format(**yours))
            if t.teller == "O":
                frame = r.choice(RECOMMEND_FRAMES)
                lines = [
                    _Line(subject, _fill(r.choice(t.ask), slots)),
                    _Line(other, _fill(frame, {"name": subject, "recap": recap}), [f]),
                ]
            else:
                frame = r.choice(NAMED_FRAMES)
                if r.random() < 0.5:
                    lines = [_Line(teller, _fill(r.choice(t.standalone), slots), [f])]
                else:
                    lines = [
                        _Line(asker, _fill(r.choice(t.ask), slots)),
                        _Line(teller, _fill(r.choice(t.answer), slots), [f]),
                    ]
                lines.append(_Line(asker, _fill(frame, {"name": subject, "recap": recap}), [f]))
        if r.random() < 0.4:
            self.pending.append(("twin", t, slots, subject, self.session_no))
        if t.negated and r.random() < 0.3:
            self.pending.append(("negated", t, slots, subject, self.session_no))
        return lines, later

    # -- distractors -------------------------------------------------------------------------

    def distractor_block(self, a: str, b: str) -> list[_Line]:
        r = self.r
        humans = [p for p in (a, b) if p != ASSISTANT]
        if self.pending and r.random() < 0.75:
            for _ in range(min(4, len(self.pending))):
                i = r.randrange(len(self.pending))
                kind, t, slots, was, said_in = self.pending[i]
                options = [p for p in humans if p != was]
                if options and said_in != self.session_no and t.name not in self.in_session:
                    self.pending.pop(i)
                    speaker = r.choice(options)
                    other = b if speaker == a else a
                    lines = self.twin(kind, t, slots, speaker, other)
                    if lines:
                        return lines
        roll = r.random()
        if roll < 0.4:
            speaker = r.choice(humans)
            other = b if speaker == a else a
            for _ in range(20):
                t = r.choice(TEMPLATES)
                if t.teller != "S" or (t.friends_only and other == ASSISTANT):
                    continue
                slots = t.draw(r)
                if self.claim(t, speaker, slots):
                    return [
                        _Line(other, self.vocative(_fill(r.choice(t.ask), slots), speaker)),
                        _Line(speaker, r.choice(NULL_ANSWERS)),
                    ]
        if roll < 0.75:
            speaker = r.choice(humans)
            other = b if speaker == a else a
            return [
                _Line(speaker, _fill(r.choice(NOISE), _noise_slots(r))),
                self.reaction(other),
            ]
        if b == ASSISTANT:  # an assistant has no week to talk about
            return [_Line(a, r.choice(SMALLTALK)[1]), self.reaction(b)]
        first, second = r.choice(SMALLTALK)
        return [_Line(a, first), _Line(b, second)]

    def twin(self, kind: str, t: Template, slots: Slots, speaker: str, other: str) -> list[_Line]:
        """The same fact, or its negation, said by someone else (no question asks for it)."""
        r = self.r
        if t.friends_only and other == ASSISTANT:
            return []
        subject = speaker
        chosen = None
        same_key = r.random() < 0.5
        for attempt in range(6):
            s = dict(slots) if attempt == 0 and same_key else {**t.draw(r), t.value: slots[t.value]}
            if self.claim(t, subject, s):
                chosen = s
                break
        if chosen is None:
            return []
        self.in_session.add(t.name)
        if kind == "negated":
            return [_Line(speaker, _fill(r.choice(t.negated), chosen)), self.reaction(other)]
        teller, asker = (subject, other) if t.teller == "S" else (other, subject)
        if r.random() < 0.5:
            return [
                _Line(asker, self.vocative(_fill(r.choice(t.ask), chosen), teller)),
                _Line(teller, _fill(r.choice(t.answer), chosen)),
                self.reaction(asker),
            ]
        return [_Line(teller, _fill(r.choice(t.standalone), chosen)), self.reaction(asker)]

    # -- sessions ----------------------------------------------------------------------------

    def session(self, turns: int, with_facts: bool) -> list[_Line]:
        r = self.r
        self.session_no += 1
        self.in_session = set()
        kind = "assistant" if r.random() < 0.4 else "friends"
        a, b = self.pair(kind)
        lines = self.opener(a, b) if r.random() < 0.85 else []
        target = max(4, round(r.gauss(turns, turns * 0.2)))
        later: list[_Line] = []
        facts = 0
        while len(lines) < target - 1 or (with_facts and facts == 0):
            if with_facts and (facts == 0 or r.random() < 0.6) and facts < 4:
                block, more = self.fact_block(a, b)
                facts += bool(block)
            else:
                block, more = self.distractor_block(a, b), []
            lines += block
            if later:
                lines += later
            later = more
            if not block and not more and facts == 0:
                break
        lines += later
        lines.append(_Line(r.choice([p for p in (a, b) if p != ASSISTANT]), r.choice(CLOSERS)))
        return lines


def _yours(text: str) -> str:
    """A first-person phrase said back to its speaker ("my sister" -> "your sister")."""
    return re.sub(r"\bmy\b", "your", re.sub(r"\bMy\b", "Your", text))


def _lowerable(text: str) -> bool:
    """Whether an answer's first word may be lower-cased after a lead-in (not a name)."""
    first = text.split(" ", 1)[0]
    return first in {"Went", "Yes", "Yes,", "Oh,", "We", "Only", "Probably", "At", "Passed!", "A"}


def generate(
    sessions: int = 300,
    turns: int = 10,
    seed: int = 21,
    *,
    distractor_share: float = 0.25,
) -> Conversations:
    """`sessions` dialogues of about `turns` turns each, the same for the same arguments."""
    if sessions < 1 or turns < 4:
        raise ValueError("need at least one session of at least four turns")
    rng = random.Random(seed)
    n_people = min(len(PEOPLE), max(12, sessions // 3))
    people = rng.sample(PEOPLE, n_people)
    builder = _Builder(rng, people)
    n_distractor = round(sessions * distractor_share)
    raw: list[tuple[list[_Line], bool]] = []
    for i in range(sessions):
        with_facts = i < sessions - n_distractor
        raw.append((builder.session(turns, with_facts), with_facts))

    # Spread the sessions over a year and number them in time order, so that neither a
    # session's id nor its date says whether it was written as a fact or a distractor session.
    starts = sorted(
        START + timedelta(minutes=rng.randrange(365 * 24 * 60)) for _ in range(sessions)
    )
    order = rng.sample(range(sessions), sessions)
    out_turns: list[Turn] = []
    names: list[str] = []
    evidence: dict[int, list[int]] = {}
    fact_session: dict[int, str] = {}
    for rank, which in enumerate(order):
        lines, _ = raw[which]
        sid = f"conv-{rank + 1:04d}"
        names.append(sid)
        at = starts[rank]
        for n, line in enumerate(lines, start=1):
            at += timedelta(seconds=rng.randint(15, 240))
            index = len(out_turns)
            out_turns.append(Turn(index, sid, n, line.speaker, line.text, at))
            for f in line.evidence_of:
                evidence.setdefault(f, []).append(index)
                fact_session[f] = sid

    questions: list[Question] = []
    used: dict[str, int] = {}
    for f, fact in enumerate(builder.facts):
        if f not in evidence:  # pragma: no cover - every fact is said
            raise AssertionError(f"fact {f} has no evidence turn")
        t = fact.template
        used[t.name] = used.get(t.name, 0) + 1
        ctx = {**fact.slots, "name": fact.subject, "other": _other_name(fact.other)}
        for q in builder.facts_questions[f]:
            questions.append(
                Question(
                    text=_fill(q, ctx),
                    shape=fact.shape,
                    variant=fact.variant,
                    template=t.name,
                    category=t.category,
                    subject=fact.subject,
                    answer=fact.slots[t.value],
                    session=fact_session[f],
                    evidence=tuple(evidence[f]),
                )
            )
    questions.sort(key=lambda q: q.evidence)
    return Conversations(
        seed=seed,
        sessions=names,
        turns=out_turns,
        questions=questions,
        distractor_sessions=n_distractor,
        templates_used=dict(sorted(used.items())),
    )


def _other_name(other: str) -> str:
    return "the assistant" if other == ASSISTANT else other


def show(data: Conversations, sessions: int | None = None) -> str:
    """Sessions as text, each evidence turn marked with the questions it answers."""
    answers: dict[int, list[Question]] = {}
    for q in data.questions:
        for i in q.evidence:
            answers.setdefault(i, []).append(q)
    out: list[str] = []
    for sid in data.sessions[:sessions]:
        turns = data.session_turns(sid)
        out.append(f"== {sid} ({turns[0].created_at:%Y-%m-%d %H:%M})")
        for t in turns:
            out.append(f"  {t.turn:2d} {t.speaker:>9}: {t.content}")
            for q in answers.get(t.index, []):
                out.append(f"       <- [{q.shape}/{q.variant}] {q.text} -> {q.answer}")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description="Print a sample of the conversation data set.")
    parser.add_argument("--sessions", type=int, default=300, help="sessions to generate (300)")
    parser.add_argument("--turns", type=int, default=10, help="turns per session (10)")
    parser.add_argument("--seed", type=int, default=21, help="seed (21)")
    parser.add_argument("--show", type=int, default=6, help="sessions to print (6)")
    args = parser.parse_args()
    data = generate(args.sessions, args.turns, args.seed)
    print(show(data, args.show))
    shapes: dict[str, int] = {}
    for q in data.questions:
        shapes[q.shape] = shapes.get(q.shape, 0) + 1
    print(
        f"\n{len(data.turns)} turns in {len(data.sessions)} sessions "
        f"({data.distractor_sessions} of distractors only), {len(data.questions)} questions: "
        + ", ".join(f"{s} {shapes.get(s, 0)}" for s in SHAPES)
    )
    print(f"{len(data.templates_used)} of {len(TEMPLATES)} templates used")


if __name__ == "__main__":
    main()
