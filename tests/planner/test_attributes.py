"""Paraphrased corrections (issue 24): the attribute a sentence states, not its words, says
which memory a new fact replaces — "moved to an AI-safety lab" replaces "works at Stripe";
"visited an AI-safety lab" replaces nothing. The sentences here are not the benchmark's."""

from __future__ import annotations

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.forget.corrections import ATTRIBUTE_SURE, likely_superseded
from lethe.planner.attributes import stated, uncertain
from tests.planner.support import memory as _memory


def _sure(new: str, texts: list[str]) -> list[str]:
    """The memories named with confidence (>= 0.9) as what `new` replaces."""
    memories = [_memory(n, t) for n, t in enumerate(texts)]
    by_id = {m.id: m.content for m in memories}
    named = likely_superseded(new, [(m, 0.3) for m in memories])
    return [by_id[s.id] for s in named if s.confidence >= 0.9]


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("Lena is employed by the regional water authority.", "employer"),
        ("Since March I have been working for a Dutch bank.", "employer"),
        ("Ravi accepted a job offer from Canonical.", "employer"),
        ("Ravi got hired by a logistics firm in Hamburg.", "employer"),
        ("I just started working at Figma.", "employer"),
        ("Omar started at Databricks in 2021.", "employer"),
        ("Lena is at Snowflake as of 2025.", "employer"),
        ("Ravi is a staff engineer at Monzo, based in Leeds.", "employer"),
        ("Kofi is a nurse at the city hospital.", "employer"),
        ("My partner and I rent an apartment in Ghent.", "residence"),
        ("We settled in a small village near Utrecht.", "residence"),
        ("Tomás resides in Valparaíso.", "residence"),
        ("Ines leased a Hyundai Ioniq.", "car"),
        ("I drive an old pickup.", "car"),
        ("Kofi has been vegetarian since university.", "diet"),
        ("I gave up meat last year.", "diet"),
        ("Noor is married to a violinist.", "relationship"),
        ("Ben broke up with his girlfriend.", "relationship"),
        ("I work out at the Crossfit box on Elm Street.", "gym"),
        ("Zara walks to work.", "commute"),
        ("Yusuf studies medicine at Charité.", "study"),
        ("You can call me on 0161 496 0000.", "phone"),
    ],
)
def test_a_construction_states_its_attribute(text: str, attribute: str) -> None:
    assert attribute in stated(text)


@pytest.mark.parametrize(
    "text",
    [
        # The same verbs in another sense: a shift, a feeling, a rental, a club, a test drive.
        "Lena works at the weekend at a café.",
        "Ravi lives in fear of the dentist.",
        "I rented a Toyota in Crete.",
        "Ines test-drove a Volvo XC40.",
        "Kofi joined a book club.",
        "Noor joined Maria for lunch.",
        "The hard drive in my laptop is failing.",
        "Sam drove a hard bargain with the landlord.",
        "I visited a climate lab on an open day.",
        "Ben read a vegan cookbook.",
        "The bus to work was late on Monday.",
        "I listen to podcasts while commuting.",
        "Zara met Tom at a wedding.",
        "A free trial pass for Basic-Fit came in the post.",
        "The meeting started at 9am.",
        "Zara started at Leeds University in 2019.",
        "Ben is at the dentist.",
        "Ines is a regular at The Crown.",
        "Noor is a volunteer at Oxfam.",
        # Said not to hold.
        "Lena does not work at Siemens.",
        "I never lived in Leeds.",
        "Neither Omar nor Lena works at Siemens.",
    ],
)
def test_another_sense_or_a_negation_states_nothing(text: str) -> None:
    assert stated(text) == frozenset()


def test_moving_to_a_bare_name_could_be_a_home_or_an_employer() -> None:
    assert stated("Ana moved to Porto") == {"residence", "employer"}
    assert uncertain("Ana moved to Porto")
    assert stated("Ana moved to a flat in Porto") == {"residence"}
    assert stated("Ana moved to a fintech startup") == {"employer"}
    assert not uncertain("Ana moved to a fintech startup")


def test_a_role_held_as_a_member_or_a_student_is_no_employer() -> None:
    assert stated("Tariq is a member at Anytime Fitness.") == {"gym"}
    assert stated("Tariq is a student at Oxford.") == {"study"}


OLD_JOB = "Priya works at Stripe as an analyst."


def test_a_paraphrased_correction_names_the_one_memory_of_that_attribute() -> None:
    memories = [
        OLD_JOB,
        "Priya lives in Dublin.",
        "Priya visited an AI-safety lab on an open day.",
        "Tom works at Stripe as an analyst.",
    ]
    assert _sure("Priya moved to an AI-safety lab", memories) == [OLD_JOB]
    assert _sure("Priya relocated to Cork", memories) == ["Priya lives in Dublin."]
    assert _sure("I went vegan", ["The user eats bacon most mornings."]) == [
        "The user eats bacon most mornings."
    ]


def test_someone_else_of_the_same_attribute_is_never_named() -> None:
    named = _sure("Tom joined a climate-tech startup", [OLD_JOB])
    assert named == []


@pytest.mark.parametrize(
    ("new", "memories"),
    [
        # Two memories of hers state an employer: which one changed is not said.
        ("Priya moved to an AI-safety lab", [OLD_JOB, "Priya works at a bakery on Saturdays."]),
        # The memory also states where she lives, which the new fact does not replace.
        ("Priya moved to an AI-safety lab", ["Priya works at Stripe and lives in Dublin."]),
        # "moved to Porto" may be a home or an employer.
        ("Priya moved to Porto", [OLD_JOB]),
        # A past fact is history, not what changes.
        ("Priya joined a research institute", ["Priya used to work at Stripe."]),
        # Said not to hold: nothing to replace.
        ("Priya joined a research institute", ["Priya does not work at Stripe."]),
        # The same value again is no correction.
        ("Priya works at Stripe", [OLD_JOB]),
    ],
)
def test_an_uncertain_paraphrase_names_nothing_with_confidence(
    new: str, memories: list[str]
) -> None:
    assert _sure(new, memories) == []


def test_words_that_name_a_memory_of_another_attribute_are_doubted() -> None:
    """A memory named by the words (same name, close vector) that states another attribute
    than the new fact is not what it replaces with confidence."""
    gym = _memory(1, "Priya trains at Urban Gym (no. 448812).")
    named = likely_superseded("Priya now works at Urban Outfitters (no. 448813)", [(gym, 0.9)])
    assert all(s.confidence <= 0.5 for s in named)


def test_remember_names_a_paraphrased_correction(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        old = mem.remember("Omar works at Stripe.")
        mem.remember("Omar visited an AI-safety lab during an open day.")
        mem.remember("Omar's sister works at Stripe too.")
        new = mem.remember("Omar moved to an AI-safety lab")
        sure = [s for s in new.likely_supersedes if s.confidence >= 0.9]
        assert [s.id for s in sure] == [old.id]
        assert sure[0].confidence == ATTRIBUTE_SURE
        assert any("employer" in e for e in sure[0].evidence)
        assert mem.get(old.id).content == "Omar works at Stripe.", "only named, not changed"


def test_remember_looks_further_than_the_linked_neighbours_for_what_it_replaces(
    db: str, embedder: Embedder
) -> None:
    """The memory a paraphrase replaces shares no word with it, so closer memories that only
    share its words (more than are linked) must not hide it."""
    topics = ["alignment", "interpretability", "evaluations", "red-teaming", "governance"]
    topics += ["robustness", "oversight", "forecasting"]
    with Lethe.open(db, embedder=embedder) as mem:
        old = mem.remember("Omar works at Stripe.")
        for topic in topics:
            mem.remember(f"Omar read a paper on {topic} from an AI-safety lab.")
        new = mem.remember("Omar moved to an AI-safety lab")
        closest = [h.memory.id for h in mem.recall("Omar moved to an AI-safety lab", k=7)]
        assert old.id not in closest, "the old memory is not among the linked neighbours"
        assert [s.id for s in new.likely_supersedes if s.confidence >= 0.9] == [old.id]


# An attack review's traps: the same verbs in another sense, wishes and questions, someone
# else's fact, a dated past, the same value again. None is a correction of the memory.
@pytest.mark.parametrize(
    ("new", "memory"),
    [
        ("Omar went to the hospital with a broken arm.", "Omar works at Stripe."),
        ("Omar joined his friends at a restaurant.", "Omar works at Stripe."),
        ("Omar joined Maria last night.", "Omar works at Stripe."),
        ("Omar works at a slower pace since the surgery.", "Omar works at Stripe."),
        ("Omar signed a contract with his landlord.", "Omar works at Stripe."),
        ("Omar moved to a different department.", "Omar works at Stripe."),
        ("Omar lives in sweatpants at the weekend.", "Omar lives in Dublin."),
        ("Omar moved to 2nd place in the league.", "Omar lives in Dublin."),
        ("Omar owns a holiday home in Portugal.", "Omar lives in Dublin."),
        ("Omar's work address is 5 Canal Street.", "Omar lives in Dublin."),
        ("Omar drives the kids to school every morning.", "Omar drives a Tesla Model 3."),
        ("Omar bought a Smart TV.", "Omar drives a Tesla Model 3."),
        ("Omar bought a toy Ferrari for his son.", "Omar drives a Tesla Model 3."),
        ("Omar loves the fish in his aquarium.", "Omar is vegan."),
        ("Omar is engaged in a lawsuit with his landlord.", "Omar is married to Lena."),
        ("Omar is seeing a physio for his knee.", "Omar is married to Lena."),
        ("Omar trains at dawn.", "Omar trains at PureGym on Elm Street."),
        ("Omar is a member of the non-profit board.", "Omar trains at PureGym on Elm Street."),
        ("Omar's phone is cracked.", "Omar's phone number is 07700 900123."),
        ("Omar studies at Starbucks on Sundays.", "Omar studies law at UCL."),
        ("Omar wants to work at Google.", "Omar works at Stripe."),
        ("Omar turned down a job at Google.", "Omar works at Stripe."),
        ("If Omar moves to a flat in Porto, he will sell his car.", "Omar lives in Dublin."),
        ("Does Omar still work at Stripe?", "Omar works at Stripe."),
        ("Omar said his boss moved to a startup.", "Omar works at Stripe."),
        ("Omar visited Lena, who just moved to a flat in Porto.", "Omar lives in Dublin."),
        ("Omar's company relocated to Leeds.", "Omar lives in Dublin."),
        ("I met Omar, who works at Google.", "I work at Stripe."),
        ("I relocated to Berlin.", "I met Omar at a party; he lives in Cork."),
        ("Omar joined Google in 2015 and left in 2019.", "Omar works at Stripe."),
        ("In 2010 Omar moved to a flat in Paris.", "Omar lives in Dublin."),
        ("Omar currently works at Stripe.", "Omar works at Stripe."),
        ("Omar still lives in Dublin with his cat.", "Omar lives in Dublin."),
        ("Omar now works for Lena Fischer.", "Lena works at Stripe."),
        ("Omar told me Lena works at Google.", "I work at Stripe."),
        ("Does Omar work at Google now?", "Omar works at Stripe."),
        ("Omar started working at Google and left after a year.", "Omar works at Stripe."),
    ],
)
def test_a_trap_is_never_named_as_what_the_new_fact_replaces(new: str, memory: str) -> None:
    assert _sure(new, [memory]) == []


@pytest.mark.parametrize(
    ("text", "attribute"),
    [
        ("黄丽2020年加入字节跳动。", "employer"),
        ("谢辉在美团工作。", "employer"),
        ("田中はソニーで働いている。", "employer"),
        ("田中は2020年にソニーに入社した。", "employer"),
        ("林杰住在长安街38号。", "residence"),
        ("佐藤は東京に住んでいる。", "residence"),
    ],
)
def test_a_construction_in_chinese_or_japanese_states_its_attribute(
    text: str, attribute: str
) -> None:
    assert attribute in stated(text)


def test_a_chinese_construction_said_not_to_hold_states_nothing() -> None:
    assert stated("王芳不在美团工作。") == frozenset()
    assert stated("李明喜欢打篮球") == frozenset()
