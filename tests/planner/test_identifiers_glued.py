"""An identifier glued into a run of Japanese or Chinese (issue 24):
「メールの認証コードは５６６５３。」 holds 56653, though no word of the full-text
index splits it out and the vector barely sees it. The planner scans for it as written;
the exact-token rule still decides. On SQLite and PostgreSQL."""

from __future__ import annotations

from lethe import Lethe
from lethe.embed import Embedder
from lethe.planner import evidence
from lethe.planner.identifiers import identifiers, needles
from lethe.planner.wording import identifier_names
from tests.planner.support import marked

GLUED = "メールの認証コードは５６６５３。"
NEAR = [
    "メールの暗証番号は５６６１３です。",
    "マイナポータルのワンタイムコード:５６６５",
    "銀行のワンタイムコード:５６５５３",
    "会社のVPNの認証コードは566531です。",
]


def test_needles_are_the_longest_group_as_it_may_be_written() -> None:
    # The longest group: its digits, whatever case the letters before them are in.
    assert needles(identifiers("TM799161のコード")) == ["799161", "７９９１６１"]
    assert needles(identifiers("56653")) == ["56653", "５６６５３"]
    assert needles(identifiers("PIN 12")) == []


def test_a_run_of_japanese_is_one_word_when_counting_what_names_an_identifier() -> None:
    plain = evidence.words("認証コード")
    assert evidence.word_count("認証コード9666", plain) == 2
    assert (
        evidence.word_count(
            "マイナポータルの認証コード", evidence.words("マイナポータルの認証コード")
        )
        == 3
    )


def test_a_glued_identifier_is_found_and_only_its_holders_are_marked(
    db: str, embedder: Embedder
) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        target = mem.remember(GLUED)
        note = mem.remember("メモ:５６６５３はメール用。")
        for text in NEAR:
            mem.remember(text)
        for n in range(30):
            mem.remember(f"The user walked {n} km on day {n}.")
        assert mem.store.containing(["５６６５３"], mem._core.filters({}, ()), 10) == [
            target.id,
            note.id,
        ]
        plan = mem.plan_forget(query="56653は消してください")
        marked = {i.id for i in plan.items if i.action == "delete"}
        assert marked == {target.id, note.id}
        plan = mem.plan_forget(query="認証コード56653を削除して")
        assert target.id in {i.id for i in plan.items if i.action == "delete"}


def test_a_code_named_in_japanese_is_led_by_its_identifier_as_in_english() -> None:
    """「認証コード9666」 is an identifier with the words that name it, as "verification code
    9666" is: the one memory that holds it is meant, whatever it calls it."""

    texts = [
        ("メールのワンタイムコード:９６６６", 0.60),
        ("メールのワンタイムコード:６９６６", 0.60),
        ("マイナポータルの認証コードは９０６６。", 0.58),
    ]
    assert marked("認証コード9666を削除して", texts) == [texts[0][0]]


def test_the_japanese_words_around_an_identifier_name_it() -> None:
    assert identifier_names("認証コード476014") == evidence.words("認証コード")
    assert identifier_names("ＴＭ７９９１６１のコード") == evidence.words("コード")
    assert identifier_names("東京の田中さん") == frozenset()
    # Several memories hold it: each is meant, whatever it calls the code.
    texts = [
        ("マイナポータルのワンタイムコード:４７６０１４", 0.59),
        ("メモ:476014はマイナポータル用。", 0.63),
        ("マイナポータルの認証コードは４７６０１４１。", 0.61),
    ]
    assert sorted(marked("認証コード476014を削除して", texts)) == sorted(t for t, _ in texts[:2])


def test_an_acronym_is_nobody_whose_fact_it_is() -> None:
    reading = evidence.read("IBAN de46 9827 9871 7669 6454 71", frozenset())
    assert reading.owner is None
    target = "I wrote down the IBAN DE46982798717669645471."
    texts = [(target, 0.78), ("My IBAN is DE46982798717669645571.", 0.81)]
    assert marked("delete the note about IBAN de46 9827 9871 7669 6454 71", texts) == [target]


def test_a_name_glued_into_japanese_is_found_for_a_subject_request(
    db: str, embedder: Embedder
) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        hers = [
            mem.remember("Priyaさんは猫アレルギーがある。").id,
            mem.remember("Priyaさんは横浜に住んでいる。").id,
            mem.remember("Priya's medication: metformin 150 mg daily.").id,
        ]
        mem.remember("Priyankaさんは猫アレルギーがある。")
        for n in range(30):
            mem.remember(f"The user walked {n} km on day {n}.")
        plan = mem.plan_forget(query="forget all of it about Priya")
        assert {i.id for i in plan.items if i.action == "delete"} == set(hers)


def test_a_name_glued_into_a_japanese_request_is_scanned_for(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        his = [
            mem.remember("Tom has a physiotherapist appointment on Saturday 18 September.").id,
            mem.remember("Tom works at Siemens as a lawyer since 2016.").id,
        ]
        mem.remember("Tomás lives in Porto.")
        for n in range(30):
            mem.remember(f"The user walked {n} km on day {n}.")
        plan = mem.plan_forget(query="Tomさんのことは全部忘れて")
        assert {i.id for i in plan.items if i.action == "delete"} == set(his)
