"""A deterministic corpus of conversational memories and recall queries for the benchmarks.

There is no public data set to download here, so sentences are drawn (seeded) from templates
of the kinds of things an agent remembers about a user and a project: family and friends,
preferences, health, travel, work, technical decisions, plans, incidents. Every template has
several independent slots filled from word lists, and an optional lead-in or coda, so two
draws rarely agree on more than one slot and 100k sentences stay distinct both as strings and,
mostly, in embedding space (import skips near-duplicates at cosine >= 0.95 and the benchmark
reports how many).

Run it alone to print a sample: `python bench/corpus.py --size 20`.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from dataclasses import dataclass, field

from lethe.model import Draft


def _words(text: str) -> list[str]:
    """Word lists use hyphens inside multi-word entries, so splitting on spaces builds them."""
    return text.split()


# -- word lists --------------------------------------------------------------------------------

NAMES = _words(
    """Maria Ana Sofia Lucas Mateo Emma Olivia Liam Noah Amelia Chloe Hugo Leo Nina Omar
Yusuf Aisha Fatima Hiro Yuki Kenji Mei Wei Chen Priya Arjun Ravi Anika Sanjay Deepa Lars Ingrid
Sven Freya Astrid Pierre Camille Elodie Julien Margot Giulia Marco Luca Chiara Paolo Elena
Dmitri Olga Ivan Katya Sasha Pavel Tomasz Agnieszka Marta Jakub Zofia Kwame Amara Chidi Ngozi
Tunde Zara Layla Karim Nadia Samir Diego Carmen Javier Lucia Pablo Rosa Ines Tiago Beatriz Joao
Rafael Ethan Mason Ava Grace Harper Jack Owen Ruby Theo Isla Finn Maeve Declan Siobhan Niamh
Connor Aidan Bridget Gustav Henrik Mats Elin Annika Kofi Esi Abena Malik Imani Jamal Keisha
Andre Monique Simone Bruno Otto Greta Klaus Heidi Jonas Lena Felix Clara Mila Anton Vera Boris
Nikolai Irina Daria Selin Emre Deniz Elif Can Ayla Tariq Rania Hana Jin Soo Min Ji Hoon Bao Linh
Minh Thao Kai Leilani Mana Noa Talia Eitan Yael Avi Miriam"""
)

RELATIONS = _words(
    """sister brother mother father cousin aunt uncle grandmother grandfather daughter son
niece nephew wife husband partner stepfather stepmother godmother best-friend roommate neighbour
colleague manager mentor landlord dentist therapist coach"""
)

CITIES = _words(
    """Lisbon Porto Madrid Barcelona Valencia Seville Paris Lyon Marseille Bordeaux Nantes
Berlin Munich Hamburg Cologne Leipzig Vienna Zurich Geneva Basel Milan Rome Turin Naples Bologna
Florence Athens Thessaloniki Istanbul Izmir Warsaw Krakow Gdansk Prague Brno Budapest Bucharest
Sofia Belgrade Zagreb Ljubljana Oslo Bergen Stockholm Gothenburg Copenhagen Aarhus Helsinki
Tampere Reykjavik Dublin Cork Galway Edinburgh Glasgow Manchester Leeds Bristol Brighton London
Amsterdam Rotterdam Utrecht Antwerp Ghent Brussels Luxembourg Toronto Montreal Vancouver Calgary
Ottawa Boston Chicago Denver Austin Seattle Portland Atlanta Miami Phoenix Nashville Minneapolis
Pittsburgh Baltimore Philadelphia Brooklyn Oakland Sacramento Tucson Albuquerque Honolulu Anchorage
Mexico-City Guadalajara Bogota Medellin Lima Quito Santiago Buenos-Aires Montevideo Sao-Paulo
Recife Nairobi Lagos Accra Kigali Cairo Tunis Casablanca Johannesburg Cape-Town Dubai Doha Mumbai
Pune Bangalore Chennai Delhi Kathmandu Colombo Bangkok Hanoi Saigon Manila Jakarta Singapore
Kuala-Lumpur Taipei Seoul Busan Osaka Kyoto Tokyo Sapporo Shanghai Chengdu Melbourne Sydney
Brisbane Perth Adelaide Auckland Wellington"""
)

FOODS = _words(
    """cilantro olives mushrooms anchovies blue-cheese liquorice oysters tofu kimchi
sauerkraut beetroot eggplant okra brussels-sprouts pineapple-on-pizza coconut raw-onions
sushi ramen pho tacos falafel hummus paella risotto lasagne dumplings curry biryani shakshuka
croissants bagels sourdough dark-chocolate matcha espresso oat-milk black-coffee green-tea
chai kombucha IPA-beer red-wine natural-wine sparkling-water peanut-butter avocado-toast
poke-bowls pad-thai bibimbap goulash pierogi borscht ceviche empanadas arepas jollof-rice
injera tagine couscous gnocchi carbonara tiramisu cheesecake macarons baklava churros
mango-lassi licorice-tea fermented-soy durian natto"""
)

CUISINES = _words(
    """Thai Vietnamese Korean Japanese Sichuan Cantonese Indian Ethiopian Lebanese
Turkish Greek Italian Spanish Portuguese Peruvian Mexican Georgian Moroccan French Nordic
Persian Sri-Lankan Malaysian Filipino Brazilian Argentinian Polish Hungarian"""
)

HOBBIES = _words(
    """bouldering trail-running open-water-swimming sourdough-baking woodworking pottery
film-photography birdwatching chess gardening beekeeping knitting salsa-dancing
playing-the-cello playing-bass-guitar jazz-piano sailing kayaking ski-touring
mountain-biking fly-fishing board-games tabletop-RPGs speedcubing origami calligraphy
astronomy home-brewing cycling-touring marathon-training yoga Brazilian-jiu-jitsu fencing
archery rock-climbing surfing snowboarding scuba-diving restoring-old-motorcycles
3D-printing mechanical-keyboards ham-radio watercolour-painting bonsai crossword-puzzles
learning-Japanese learning-Portuguese learning-Mandarin choir-singing improv-theatre
urban-sketching foraging geocaching"""
)

PETS = _words(
    """dog cat rabbit parrot hamster tortoise ferret guinea-pig border-collie labrador
beagle dachshund greyhound corgi husky poodle maine-coon siamese-cat bengal-cat
cockatiel goldfish bearded-dragon"""
)

PET_NAMES = _words(
    """Biscuit Pepper Luna Milo Mochi Nala Pickles Olive Ziggy Waffles Juniper Tofu
Sprout Pixel Bean Noodle Cosmo Maple Hazel Bruno Rocket Clementine Fig Basil Ginger Otis
Poppy Ranger Smokey Tango Whiskers Yoda Zuzu Kiwi Toast Nugget Socks Bagel Pumpkin"""
)

DATABASES = _words(
    """PostgreSQL MySQL SQLite Redis Memcached MongoDB Cassandra DynamoDB ClickHouse
Elasticsearch OpenSearch Neo4j CockroachDB TimescaleDB DuckDB Valkey KeyDB ScyllaDB
FoundationDB Snowflake BigQuery"""
)

TOOLS = _words(
    """Kafka RabbitMQ NATS Celery Temporal Airflow Dagster Prefect Terraform Pulumi
Ansible Kubernetes Nomad Docker-Compose Helm ArgoCD GitHub-Actions GitLab-CI Jenkins
Buildkite CircleCI Grafana Prometheus Datadog Sentry Honeycomb OpenTelemetry Loki Jaeger
Nginx Envoy Traefik Caddy HAProxy Cloudflare Fastly Vault Keycloak Auth0 Stripe Twilio
SendGrid Mailgun S3 MinIO Lambda Fargate Cloud-Run Vercel Netlify Fly.io Render Heroku"""
)

LANGUAGES = _words(
    """Python Go Rust TypeScript Kotlin Java Scala Elixir Ruby C# Swift Zig Haskell
OCaml Clojure Dart Julia Lua"""
)

FRAMEWORKS = _words(
    """Django FastAPI Flask Rails Phoenix Spring-Boot Express NestJS Next.js Remix
SvelteKit Nuxt Angular React Vue SolidJS htmx Tailwind Axum Actix Gin Echo Ktor Quarkus
Laravel Symfony Flutter SwiftUI Jetpack-Compose Tauri Electron"""
)

COMPONENTS = _words(
    """session-cache billing-service search-index notification-queue auth-gateway
image-pipeline reporting-dashboard feature-flag-service rate-limiter audit-log
recommendation-engine checkout-flow onboarding-wizard admin-panel export-job
data-warehouse event-bus metrics-stack CI-pipeline staging-cluster mobile-API
GraphQL-layer webhook-dispatcher email-digest PDF-renderer geocoding-service
translation-service invoice-generator pricing-engine user-profile-service
file-upload-service chat-backend presence-service scheduler cron-runner
customer-portal partner-API SSO-integration password-reset-flow dark-mode-toggle
offline-sync search-autocomplete A/B-testing-framework load-balancer CDN-config
backup-system disaster-recovery-plan on-call-rotation status-page"""
)

REASONS = _words(
    """it-handles-traffic-bursts-better the-team-already-knows-it it-is-cheaper-at-our-scale
the-licence-is-permissive the-managed-version-removes-ops-work latency-dropped-in-the-benchmark
it-supports-multi-region-replication the-old-one-kept-leaking-memory the-vendor-raised-prices
it-has-better-observability the-migration-path-is-simpler it-passed-the-security-review
the-SDK-is-better-maintained it-keeps-the-deploy-under-five-minutes
the-client-asked-for-it-explicitly it-avoids-a-single-point-of-failure
the-prototype-worked-on-the-first-try the-documentation-is-excellent
we-need-strong-consistency-here eventual-consistency-is-acceptable-here
the-on-call-load-was-unbearable it-integrates-with-our-SSO"""
)

COMPANIES = _words(
    """Acme Globex Initech Umbrella Hooli Vandelay Stark-Industries Wayne-Enterprises
Soylent Cyberdyne Tyrell Aperture Black-Mesa Oscorp Pied-Piper Dunder-Mifflin Wonka
Massive-Dynamic Gringotts Monarch Nakatomi Blue-Sun Weyland Virtucon Bluth-Company Prestige
Sterling-Cooper Los-Pollos Gekko Duff Krusty Planet-Express Rekall Ollivanders
Northwind Contoso Fabrikam Tailspin Adventure-Works Litware Proseware Wingtip"""
)

ROLES = _words(
    """staff-engineer product-manager data-scientist designer SRE tech-lead CTO
engineering-manager QA-lead security-engineer ML-engineer frontend-developer
backend-developer solutions-architect developer-advocate recruiter analyst
nurse teacher architect lawyer accountant pharmacist physiotherapist chef
photographer journalist translator pilot veterinarian"""
)

CONDITIONS = _words(
    """a-peanut-allergy a-shellfish-allergy lactose-intolerance coeliac-disease
mild-asthma hay-fever migraines type-1-diabetes a-penicillin-allergy a-bad-knee
lower-back-pain tinnitus insomnia a-latex-allergy high-blood-pressure
a-gluten-sensitivity an-old-shoulder-injury eczema a-bee-sting-allergy
a-sesame-allergy"""
)

MEDICATIONS = _words(
    """ibuprofen an-antihistamine an-inhaler melatonin vitamin-D iron-supplements
insulin eye-drops a-nasal-spray magnesium omega-3 blood-pressure-tablets"""
)

APPOINTMENTS = _words(
    """dentist-appointment physio-session eye-test haircut vet-visit
parent-teacher-meeting job-interview performance-review visa-interview car-service
tax-advisor-meeting flat-viewing wedding-tasting driving-test piano-lesson
therapy-session annual-check-up passport-renewal mortgage-meeting"""
)

WEEKDAYS = _words("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
MONTHS = _words(
    """January February March April May June July August September October November
December"""
)
TIMES = _words(
    """7:30 8:00 8:45 9:15 10:00 10:30 11:15 noon 13:30 14:00 15:45 16:30 17:00 18:15
19:00 20:30"""
)

ITEMS = _words(
    """laptop bike passport car keys umbrella camera headphones guitar tent kayak
espresso-machine standing-desk e-reader drone telescope sewing-machine 3D-printer
monitor mechanical-keyboard running-shoes winter-coat watch vinyl-record-player
projector rice-cooker air-fryer hiking-boots snowboard ukulele synthesizer tablet
smartwatch microphone sleeping-bag road-bike cast-iron-pan"""
)

COLOURS = _words(
    """red blue green black white grey yellow orange purple teal navy olive burgundy
mustard-yellow forest-green"""
)

GENRES = _words(
    """jazz techno classical-music metal folk hip-hop k-pop bossa-nova shoegaze
country punk ambient-music film-scores opera reggae afrobeat synthwave blues"""
)

BOOK_ADJ = _words(
    """Silent Broken Hidden Last Distant Burning Glass Iron Salt Paper Quiet Hollow
Golden Forgotten Winter Midnight Crimson Endless Northern Little"""
)
BOOK_NOUN = _words(
    """Orchard Harbour Lantern Archive River Garden Cartographer Engine Island
Kingdom Tide Letters Mountain Observatory Signal Library Forest Bridge Atlas Season"""
)

TOPICS = _words(
    """the-migration-timeline the-hiring-plan the-Q3-roadmap the-pricing-change
the-security-audit the-API-deprecation the-data-retention-policy the-incident-review
the-team-offsite the-budget-cuts the-new-office the-vendor-contract the-launch-date
the-accessibility-audit the-GDPR-request the-SOC2-evidence the-design-system
the-performance-regression the-onboarding-docs the-test-flakiness the-cost-review
the-customer-churn-analysis the-partner-integration the-mobile-release the-rebranding
the-support-backlog the-compliance-training the-cloud-bill the-interview-loop
the-quarterly-planning the-architecture-review"""
)

FEELINGS = _words(
    """anxious excited frustrated relieved overwhelmed proud nervous optimistic
exhausted curious annoyed grateful"""
)

LEADS = _words(
    """Last-week, Yesterday, This-morning, On-Friday, During-the-standup, In-passing,
Over-lunch, Earlier-today, In-the-retro, Back-in-spring, Just-now, Apparently,
For-the-record, As-a-reminder, Note:"""
)

CODAS = _words(
    """according-to-the-user as-mentioned-in-chat per-the-meeting-notes
which-came-up-twice-this-month to-be-confirmed-later as-of-this-quarter
after-a-long-discussion without-much-debate"""
)

NUMBERS = list(range(2, 60))
YEARS = list(range(1995, 2027))


def _w(word: str) -> str:
    """Word lists use hyphens for multi-word entries so one split builds them."""
    return word.replace("-", " ")


# -- templates ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spec:
    """One generated memory: the text and the fields a realistic caller would set."""

    content: str
    category: str
    layer: str
    tags: tuple[str, ...] = ()
    importance: float = 0.5
    metadata: dict[str, object] = field(default_factory=dict)
    template: str = ""


Template = Callable[[random.Random], tuple[str, str, str, tuple[str, ...]]]


def _c(rng: random.Random, words: list[str]) -> str:
    return _w(rng.choice(words))


def _two(rng: random.Random, words: list[str]) -> tuple[str, str]:
    a, b = rng.sample(words, 2)
    return _w(a), _w(b)


def _book(rng: random.Random) -> str:
    return f"The {rng.choice(BOOK_ADJ)} {rng.choice(BOOK_NOUN)}"


def _family_move(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = (
        f"User's {_c(r, RELATIONS)} {r.choice(NAMES)} moved to {_c(r, CITIES)} "
        f"in {r.choice(MONTHS)} {r.choice(YEARS)}"
    )
    return text, "relationship", "semantic", ("family", "location")


def _family_job(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = (
        f"The user's {_c(r, RELATIONS)} {r.choice(NAMES)} works as a {_c(r, ROLES)} "
        f"at {_c(r, COMPANIES)} in {_c(r, CITIES)}"
    )
    return text, "relationship", "semantic", ("family", "work")


def _birthday(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = (
        f"{r.choice(NAMES)}, the user's {_c(r, RELATIONS)}, has a birthday on "
        f"{r.choice(MONTHS)} {r.randint(1, 28)}; they would like a {_c(r, ITEMS)} "
        f"or something related to {_c(r, HOBBIES)}"
    )
    return text, "relationship", "semantic", ("birthday", "gift")


def _dislike_food(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    food, other = _two(r, FOODS)
    text = r.choice(
        [
            f"The user dislikes {food} and asks {r.choice(NAMES)} to leave it out of the "
            f"{_c(r, CUISINES)} dishes they cook",
            f"User can't stand {food} but happily eats {other} at {r.choice(NAMES)}'s place "
            f"in {_c(r, CITIES)}",
            f"Avoid suggesting {food} when the user eats out with {r.choice(NAMES)}: "
            f"they say it tastes like {other}",
        ]
    )
    return text, "preference", "semantic", ("food", "dislike")


def _like_food(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    food, other = _two(r, FOODS)
    text = r.choice(
        [
            f"User's favourite {_c(r, CUISINES)} place in {_c(r, CITIES)} serves great {food}",
            f"The user orders {food} with {other} at the {_c(r, CUISINES)} place near the "
            f"office in {_c(r, CITIES)}",
            f"User loves {_c(r, CUISINES)} food, especially {food}, and cooks it for "
            f"{r.choice(NAMES)}",
        ]
    )
    return text, "preference", "semantic", ("food", "like")


def _hobby(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    hobby = _c(r, HOBBIES)
    text = r.choice(
        [
            f"User took up {hobby} with {r.choice(NAMES)} in {r.choice(YEARS)} after a trip "
            f"to {_c(r, CITIES)}",
            f"The user spends {r.choice(WEEKDAYS)} evenings {hobby} with {r.choice(NAMES)} "
            f"in {_c(r, CITIES)}",
            f"User wants to get better at {hobby} and asked {r.choice(NAMES)} which "
            f"{_c(r, ITEMS)} to buy",
            f"The user gave up {hobby} because of {_c(r, CONDITIONS)}, on {r.choice(NAMES)}'s "
            f"advice",
        ]
    )
    return text, "preference", "semantic", ("hobby",)


def _pet(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = r.choice(
        [
            f"User has a {_c(r, COLOURS)} {_c(r, PETS)} called {r.choice(PET_NAMES)}, "
            f"adopted in {_c(r, CITIES)} in {r.choice(YEARS)}",
            f"{r.choice(PET_NAMES)}, the user's {_c(r, PETS)}, is {r.randint(1, 16)} years old, "
            f"adores {r.choice(NAMES)} and is scared of the {_c(r, ITEMS)}",
            f"The user's {_c(r, RELATIONS)} {r.choice(NAMES)} looks after {r.choice(PET_NAMES)} "
            f"the {_c(r, PETS)} when the user travels",
        ]
    )
    return text, "relationship", "semantic", ("pet",)


def _health(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = r.choice(
        [
            f"User has {_c(r, CONDITIONS)} and takes {_c(r, MEDICATIONS)} "
            f"{r.choice(['daily', 'as needed', 'before exercise', 'at night'])} "
            f"since moving to {_c(r, CITIES)}, and avoids {_c(r, FOODS)}",
            f"The user's {_c(r, RELATIONS)} {r.choice(NAMES)} was diagnosed with "
            f"{_c(r, CONDITIONS)} in {r.choice(YEARS)}",
            f"Because of {_c(r, CONDITIONS)}, the user avoids {_c(r, FOODS)} and "
            f"{_c(r, HOBBIES)}, {r.choice(NAMES)} says",
        ]
    )
    return text, "health", "semantic", ("health",)


def _appointment(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = (
        f"User has a {_c(r, APPOINTMENTS)} with {r.choice(NAMES)} on {r.choice(WEEKDAYS)} "
        f"{r.choice(MONTHS)} {r.randint(1, 28)} at {r.choice(TIMES)} in {_c(r, CITIES)}"
    )
    return text, "schedule", "episodic", ("appointment",)


_PURPOSES = [
    "a conference",
    "a wedding",
    "a client visit",
    "a holiday",
    "a job interview",
    "a funeral",
    "a hackathon",
    "a family reunion",
    "a trade fair",
    "a concert",
]


def _travel(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    city, other = _two(r, CITIES)
    text = r.choice(
        [
            f"The user is flying to {city} with {r.choice(NAMES)} on {r.choice(MONTHS)} "
            f"{r.randint(1, 28)} for {r.choice(_PURPOSES)} and staying {r.randint(2, 14)} nights",
            f"User visited {city} with {r.choice(NAMES)} in {r.choice(YEARS)} and "
            f"loved the {_c(r, CUISINES)} food there",
            f"User wants to visit {city} and {other} with {r.choice(NAMES)} next "
            f"{r.choice(MONTHS)}",
        ]
    )
    return text, "travel", "episodic", ("travel",)


def _work(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    company, other = _two(r, COMPANIES)
    text = r.choice(
        [
            f"User started a new job as {_c(r, ROLES)} at {company} in {_c(r, CITIES)} in "
            f"{r.choice(MONTHS)} {r.choice(YEARS)}",
            f"The user's manager {r.choice(NAMES)} at {company} wants {_c(r, TOPICS)} ready by "
            f"{r.choice(WEEKDAYS)}",
            f"User left {company} after {r.randint(2, 11)} years because of "
            f"{_c(r, TOPICS)} and joined {other}",
            f"User feels {r.choice(FEELINGS)} about {_c(r, TOPICS)} at {company} and talked "
            f"to {r.choice(NAMES)} about it",
        ]
    )
    return text, "work", "episodic", ("work",)


def _decision(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = r.choice(
        [
            f"We decided to use {r.choice(DATABASES)} for the {_c(r, COMPONENTS)} because "
            f"{_c(r, REASONS)}",
            "The team chose {} over {} for the ".format(*_two(r, TOOLS)) + f"{_c(r, COMPONENTS)}",
            f"We are moving the {_c(r, COMPONENTS)} "
            + "from {} to {} ".format(*_two(r, LANGUAGES))
            + f"since {_c(r, REASONS)}",
            f"Decision: the {_c(r, COMPONENTS)} will be rebuilt with {_c(r, FRAMEWORKS)} "
            f"and {r.choice(DATABASES)}",
            f"We rejected {r.choice(DATABASES)} for the {_c(r, COMPONENTS)} in the "
            f"{_c(r, CITIES)} region; {r.choice(NAMES)} argued that {_c(r, REASONS)}",
        ]
    )
    return text, "decision", "semantic", ("decision", "architecture")


_RESOURCES = ["disk", "memory", "file handles", "connections", "quota", "threads", "inodes"]


def _incident(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = r.choice(
        [
            f"The {_c(r, COMPONENTS)} went down for {r.randint(3, 240)} minutes on "
            f"{r.choice(WEEKDAYS)} because {_c(r, TOOLS)} ran out of {r.choice(_RESOURCES)} "
            f"until {r.choice(NAMES)} restarted it",
            f"Root cause of the {r.choice(MONTHS)} outage: {r.choice(NAMES)} pushed a bad "
            f"{_c(r, TOOLS)} config to the {_c(r, COMPONENTS)}",
            f"{r.choice(NAMES)} fixed the {_c(r, COMPONENTS)} latency spike by adding an index "
            f"in {r.choice(DATABASES)} after {_c(r, TOOLS)} alerts fired",
        ]
    )
    return text, "incident", "episodic", ("incident", "ops")


def _lesson(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = r.choice(
        [
            f"Lesson learned from {r.choice(NAMES)}: always load-test the {_c(r, COMPONENTS)} "
            f"before changing {_c(r, TOOLS)} settings",
            f"Next time, ask {r.choice(NAMES)} before touching the {_c(r, COMPONENTS)}; "
            f"they own it together with the {_c(r, COMPONENTS)}",
            f"Never deploy the {_c(r, COMPONENTS)} on a {r.choice(WEEKDAYS)} without telling "
            f"{r.choice(NAMES)} in {_c(r, CITIES)}",
        ]
    )
    return text, "lesson", "learning", ("lesson",)


_FORMATS = ["bullet points", "short paragraphs", "tables", "code first", "plain English"]
_OPINIONS = ["confusing", "pleasant", "too magical", "slow to compile", "well designed"]


def _preference_work(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = r.choice(
        [
            "User prefers {} over {} for ".format(*_two(r, LANGUAGES))
            + f"{_c(r, COMPONENTS)} work with {r.choice(NAMES)}",
            f"The user wants {r.choice(NAMES)} to review every change to the "
            f"{_c(r, COMPONENTS)} at {_c(r, COMPANIES)}",
            f"User wants answers in {r.choice(_FORMATS)} when {r.choice(NAMES)} asks about "
            f"{_c(r, TOPICS)} and the {_c(r, COMPONENTS)}",
            f"User finds {_c(r, FRAMEWORKS)} {r.choice(_OPINIONS)} and would rather use "
            f"{_c(r, FRAMEWORKS)} for the {_c(r, COMPONENTS)}",
        ]
    )
    return text, "preference", "semantic", ("preference", "work")


def _music_books(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    genre, other = _two(r, GENRES)
    text = r.choice(
        [
            f"User listens to {genre} while working and {other} while {_c(r, HOBBIES)} "
            f"with {r.choice(NAMES)}",
            f"The user is reading {_book(r)} and recommended it to {r.choice(NAMES)}",
            f"User's favourite book is {_book(r)}, a gift from their {_c(r, RELATIONS)} "
            f"{r.choice(NAMES)}",
            f"User saw a {genre} concert in {_c(r, CITIES)} with {r.choice(NAMES)} in "
            f"{r.choice(MONTHS)}",
        ]
    )
    return text, "preference", "semantic", ("culture",)


_RACES = ["10k", "half marathon", "marathon", "triathlon", "trail ultra", "charity swim"]


def _plan(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = r.choice(
        [
            f"User plans to run a {r.choice(_RACES)} in {_c(r, CITIES)} with "
            f"{r.choice(NAMES)} from {_c(r, COMPANIES)} in {r.choice(MONTHS)}",
            f"The user is saving {r.randint(2, 60) * 100} euros a month for a {_c(r, ITEMS)} "
            f"and a trip to {_c(r, CITIES)} with {r.choice(NAMES)}",
            f"Goal: finish {_c(r, TOPICS)} at {_c(r, COMPANIES)} before {r.choice(NAMES)}'s "
            f"leave in {r.choice(MONTHS)}",
            f"User wants to learn {r.choice(LANGUAGES)} this year to help {r.choice(NAMES)} "
            f"with the {_c(r, COMPONENTS)}",
        ]
    )
    return text, "plan", "episodic", ("plan",)


def _home(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    text = r.choice(
        [
            f"User lives in a {r.randint(1, 5)}-bedroom flat in {_c(r, CITIES)} with "
            f"{r.choice(NAMES)} and a {_c(r, PETS)}",
            f"The user's {_c(r, ITEMS)} is {_c(r, COLOURS)} and was bought in "
            f"{_c(r, CITIES)} from {r.choice(NAMES)}",
            f"User lost their {_c(r, ITEMS)} on the train to {_c(r, CITIES)} while visiting "
            f"{r.choice(NAMES)}",
            f"The user lent their {_c(r, ITEMS)} to {r.choice(NAMES)} for a trip to "
            f"{_c(r, CITIES)}",
        ]
    )
    return text, "personal", "episodic", ("home",)


def _meeting(r: random.Random) -> tuple[str, str, str, tuple[str, ...]]:
    name, other = _two(r, NAMES)
    text = r.choice(
        [
            f"In the {r.choice(WEEKDAYS)} sync, {name} and {other} agreed to postpone "
            f"{_c(r, TOPICS)} by {r.randint(1, 8)} weeks",
            f"{name} from {_c(r, COMPANIES)} will send the draft of {_c(r, TOPICS)} by "
            f"{r.choice(WEEKDAYS)}",
            f"Action item for the user: review the proposal from {name} at {_c(r, COMPANIES)} "
            f"on {_c(r, TOPICS)} and the {_c(r, COMPONENTS)}",
        ]
    )
    return text, "meeting", "episodic", ("meeting",)


TEMPLATES: tuple[tuple[Template, int], ...] = (
    (_family_move, 5),
    (_family_job, 5),
    (_birthday, 3),
    (_dislike_food, 4),
    (_like_food, 4),
    (_hobby, 5),
    (_pet, 3),
    (_health, 3),
    (_appointment, 4),
    (_travel, 5),
    (_work, 6),
    (_decision, 9),
    (_incident, 5),
    (_lesson, 3),
    (_preference_work, 5),
    (_music_books, 4),
    (_plan, 4),
    (_home, 4),
    (_meeting, 6),
)


_LOWER_AFTER_LEAD = frozenset(
    _words("The We Because In Avoid Root Lesson: Next Never Goal: Decision: Action")
)


def _dress(rng: random.Random, text: str) -> str:
    """An optional lead-in and coda, as people actually phrase things to an agent."""
    roll = rng.random()
    if roll < 0.15:
        lead = _w(rng.choice(LEADS))
        first, _, rest = text.partition(" ")
        text = f"{lead} {first.lower() if first in _LOWER_AFTER_LEAD else first} {rest}"
    elif roll < 0.25:
        text = f"{text}, {_w(rng.choice(CODAS))}"
    return text + "."


def generate(n: int, seed: int = 0) -> list[Spec]:
    """`n` distinct memories, the same for the same `seed`."""
    rng = random.Random(seed)
    funcs = [t for t, _ in TEMPLATES]
    weights = [w for _, w in TEMPLATES]
    seen: set[str] = set()
    out: list[Spec] = []
    while len(out) < n:
        template = rng.choices(funcs, weights)[0]
        text, category, layer, tags = template(rng)
        text = _dress(rng, text)
        if text in seen:
            continue
        seen.add(text)
        importance = round(rng.choice([0.3, 0.4, 0.5, 0.5, 0.6, 0.7, 0.8]), 2)
        name = template.__name__.lstrip("_")
        out.append(Spec(text, category, layer, tags, importance, {"source": "bench"}, name))
    return out


def drafts(n: int, seed: int = 0) -> list[Draft]:
    """The corpus as engine drafts (not pre-validated: the engine validates each one)."""
    return [
        Draft(
            content=s.content,
            category=s.category,
            layer=s.layer,
            tags=s.tags,
            importance=s.importance,
            metadata=dict(s.metadata),
        )
        for s in generate(n, seed)
    ]


# -- queries -----------------------------------------------------------------------------------

QueryTemplate = Callable[[random.Random], str]

_QUERIES: tuple[QueryTemplate, ...] = (
    lambda r: f"Where did the user's {_c(r, RELATIONS)} move to?",
    lambda r: f"Where does {r.choice(NAMES)} work?",
    lambda r: f"What does {r.choice(NAMES)} do for a living?",
    lambda r: "What food does the user dislike?",
    lambda r: f"Does the user like {_c(r, FOODS)}?",
    lambda r: f"favourite {_c(r, CUISINES)} restaurant",
    lambda r: f"When is {r.choice(NAMES)}'s birthday and what gift would they like?",
    lambda r: "What are the user's hobbies?",
    lambda r: f"Has the user tried {_c(r, HOBBIES)}?",
    lambda r: "What is the name of the user's pet?",
    lambda r: f"who looks after the {_c(r, PETS)}",
    lambda r: "Is the user allergic to anything?",
    lambda r: f"Which medication does the user take for {_c(r, CONDITIONS)}?",
    lambda r: f"When is the {_c(r, APPOINTMENTS)}?",
    lambda r: f"appointments on {r.choice(WEEKDAYS)}",
    lambda r: f"trip to {_c(r, CITIES)}",
    lambda r: f"Has the user been to {_c(r, CITIES)}?",
    lambda r: f"Where did the user work before {_c(r, COMPANIES)}?",
    lambda r: f"What did we decide for the {_c(r, COMPONENTS)}?",
    lambda r: f"Why did we pick {r.choice(DATABASES)}?",
    lambda r: "{} vs {} decision".format(*_two(r, DATABASES)),
    lambda r: f"Which language is the {_c(r, COMPONENTS)} written in?",
    lambda r: f"outage caused by {r.choice(TOOLS)}",
    lambda r: f"What went wrong with the {_c(r, COMPONENTS)} last time?",
    lambda r: "lessons learned from past incidents",
    lambda r: f"Who owns the {_c(r, COMPONENTS)}?",
    lambda r: "How does the user like answers to be formatted?",
    lambda r: "Does the user prefer {} or {}?".format(*_two(r, LANGUAGES)),
    lambda r: "What music does the user listen to while working?",
    lambda r: "book recommendations the user liked",
    lambda r: f"Is the user training for a race in {_c(r, CITIES)}?",
    lambda r: "What is the user saving money for?",
    lambda r: "Where does the user live and with whom?",
    lambda r: f"Who borrowed the user's {_c(r, ITEMS)}?",
    lambda r: f"status of {_c(r, TOPICS)}",
    lambda r: f"What did {r.choice(NAMES)} promise to send?",
    lambda r: "open action items for the user",
    lambda r: f"How does the user feel about {_c(r, TOPICS)}?",
    lambda r: f"{r.choice(NAMES)} {_c(r, CITIES)}",
    lambda r: f"{_c(r, FRAMEWORKS)} rewrite",
)


def queries(n: int = 200, seed: int = 1) -> list[str]:
    """`n` distinct recall queries: questions, fragments and keyword pairs over the corpus."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    attempts = 0
    while len(seen) < n and attempts < 100 * n:
        attempts += 1
        seen.setdefault(rng.choice(_QUERIES)(rng), None)
    return list(seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--size", type=int, default=20, help="memories to print (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    parser.add_argument("--queries", type=int, default=10, help="queries to print (default 10)")
    args = parser.parse_args()
    for spec in generate(args.size, args.seed):
        print(f"[{spec.category}/{spec.layer}] {spec.content}")
    print()
    for query in queries(args.queries):
        print(f"? {query}")


if __name__ == "__main__":
    main()
