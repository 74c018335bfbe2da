"""Attack review of forgetting by description (planner/request.py, evidence.py, describe.py,
identifiers.py; engine/forgetting.py `_describe`). Plain cases are attacks the planner
defends (it marks the right memory, or nothing); `bug` cases are strict xfails: a memory the
request does not mean is marked, or a short text takes seconds. Abstaining is never a bug.
"""

from __future__ import annotations

import time

import pytest

from lethe import Lethe
from lethe.planner.request import read


def _marked(mem: Lethe, store: list[str], request: str) -> set[str]:
    ids = {mem.remember(text).id: text for text in store}
    return {ids.get(i.id, i.id) for i in mem.plan_forget(query=request).targets}


# (store, request, must be marked (None: anything, as long as the wrong ones are not), wrong)
CASES = [
    # -- defended -------------------------------------------------------------------------
    pytest.param(
        ["User likes olives.", "User does not like olives."],
        "forget that I like olives",
        {"User likes olives."},
        {"User does not like olives."},
        id="negated-twin",
    ),
    pytest.param(
        ["Alice's e-mail is alice.smith@acme.io.", "Alice's e-mail is alice@acme.io."],
        "forget alice@acme.io",
        {"Alice's e-mail is alice@acme.io."},
        {"Alice's e-mail is alice.smith@acme.io."},
        id="email-longer-local-part",
    ),
    pytest.param(
        ["Bob's e-mail is bob@example.com.au.", "John's e-mail is john.smith@acme.io."],
        "forget bob@example.com and smith@acme.io",
        set(),
        {"Bob's e-mail is bob@example.com.au.", "John's e-mail is john.smith@acme.io."},
        id="email-as-prefix-or-suffix-of-another",
    ),
    pytest.param(
        ["Order order_2024_0010 shipped.", "Order ORD-2024-001 shipped."],
        "forget ord 2024 001",
        {"Order ORD-2024-001 shipped."},
        {"Order order_2024_0010 shipped."},
        id="order-number-spelled-another-way",
    ),
    pytest.param(
        ["My phone number is +1 (555) 010-4477.", "My phone number used to be 555 010 4478."],
        "forget my phone number 555 010 4477",
        {"My phone number is +1 (555) 010-4477."},
        {"My phone number used to be 555 010 4478."},
        id="phone-spelled-another-way",
    ),
    pytest.param(
        ["My PIN is ４４７１.", "My locker code is 4472."],
        "forget my PIN 4471",
        {"My PIN is ４４７１."},
        {"My locker code is 4472."},
        id="full-width-digits",
    ),
    pytest.param(
        ["My card number is 5555 1234 5678 9012.", "I like tea."],
        "forget my PIN 1234",
        set(),
        {"My card number is 5555 1234 5678 9012."},
        id="digits-inside-a-longer-number",
    ),
    pytest.param(
        ["My address in 2023 was 12 Oak Street.", "My current address is 40 Pine Avenue."],
        "forget my 2023 address",
        {"My address in 2023 was 12 Oak Street."},
        {"My current address is 40 Pine Avenue."},
        id="dated-address",
    ),
    pytest.param(
        ["Alice lives in Paris.", "Alan lives in Rome."],
        "forget everything about Al",
        set(),
        {"Alice lives in Paris.", "Alan lives in Rome."},
        id="name-prefix-of-other-names",
    ),
    pytest.param(
        ["Alice's phone number is 555-0101.", "Alicia's phone number is 555-0199."],
        "forget Alice's phone number",
        {"Alice's phone number is 555-0101."},
        {"Alicia's phone number is 555-0199."},
        id="same-attribute-other-person",
    ),
    pytest.param(
        ["The user works at the Vienna office.", "The user loves Vienna sausage."],
        "forget that I work at the Vienna office",
        {"The user works at the Vienna office."},
        {"The user loves Vienna sausage."},
        id="place-name-other-sense-fact",
    ),
    pytest.param(
        ["田中さんは東京に住んでいる。", "中田さんは大阪に住む。", "田中太郎さんは京都にいる。"],
        "田中さんについて全部忘れて",
        {"田中さんは東京に住んでいる。"},
        {"中田さんは大阪に住む。", "田中太郎さんは京都にいる。"},
        id="japanese-name-inside-another",
    ),
    pytest.param(
        ["User likes olives.", "User does not like olives."],
        "Don't forget that I like olives",
        set(),
        {"User likes olives.", "User does not like olives."},
        id="dont-forget-is-not-a-request",
    ),
    pytest.param(
        ["Frank lives in Berlin.", "We had a frank discussion about the budget."],
        "forget everything about Frank",
        None,
        {"We had a frank discussion about the budget."},
        id="name-used-as-a-word",
    ),
    # -- found by the attack review, fixed ----------------------------------------------------
    pytest.param(
        ["The user works at the Vienna office.", "The user loves Vienna sausage."],
        "forget everything about the Vienna office",
        None,
        {"The user loves Vienna sausage."},
        id="topic-marks-everything-naming-its-place",
    ),
    pytest.param(
        ["My new phone number is 555-0199.", "My current address is 40 Pine Avenue."],
        "forget my old phone number",
        None,
        {"My new phone number is 555-0199."},
        id="old-marks-the-current-one",
    ),
    pytest.param(
        ["My sister's phone number is 555-0199.", "I like tea."],
        "forget my phone number",
        None,
        {"My sister's phone number is 555-0199."},
        id="relative-s-attribute-is-not-mine",
    ),
    pytest.param(
        ["The user dislikes olives.", "The user likes tea."],
        "forget that I like olives",
        None,
        {"The user dislikes olives."},
        id="antonym-is-the-opposite-fact",
    ),
    pytest.param(
        ["저는 올리브를 안 좋아해요.", "저는 차를 좋아해요."],
        "올리브 좋아해요 잊어줘",
        None,
        {"저는 올리브를 안 좋아해요."},
        id="korean-negation",
    ),
    pytest.param(
        ["オリーブが好きではない。", "お茶が好き。"],
        "オリーブが好きなことを忘れて",
        None,
        {"オリーブが好きではない。"},
        id="japanese-koto-skips-polarity",
    ),
    pytest.param(
        ["User likes olives.", "User does not like olives."],
        "I'd rather you didn't remember that I like olives",
        None,
        {"User does not like olives."},
        id="negated-instruction-flips-polarity",
    ),
    pytest.param(
        ["I like 🍕", "My password is hunter2"],
        "🙂",
        set(),
        {"I like 🍕"},
        id="emoji-only-request",
    ),
    pytest.param(
        ["Anne-Marie's birthday is on 3 May.", "Marie lives in Lyon."],
        "forget everything about Marie",
        {"Marie lives in Lyon."},
        {"Anne-Marie's birthday is on 3 May."},
        id="hyphenated-name",
    ),
    pytest.param(
        ["Tom's phone number is +1 555 010 4477.", "Tom likes tea."],
        "forget +44 555 010 4477",
        None,
        {"Tom's phone number is +1 555 010 4477."},
        id="other-country-code",
    ),
    pytest.param(
        ["Order ORD-2024-001-B shipped on Monday.", "Tom likes tea."],
        "forget order ORD-2024-001",
        None,
        {"Order ORD-2024-001-B shipped on Monday."},
        id="identifier-with-a-letter-suffix",
    ),
]


@pytest.mark.parametrize(("store", "request_text", "wanted", "wrong"), CASES)
def test_marks_only_what_the_request_means(
    mem: Lethe, store: list[str], request_text: str, wanted: set[str] | None, wrong: set[str]
) -> None:
    marked = _marked(mem, store, request_text)
    assert not marked & wrong, f"marked a memory the request does not mean: {marked & wrong}"
    if wanted is not None:
        assert marked == wanted


ODD = [
    "?!?!...;;;",
    "forget (((.*)))+[a-z]{2,}\\1 $^ \\",
    "\u202eforget my password\u202c",
    "forget \u200d\u200d",
    "forget everything about 𝔄𝔩𝔦𝔠𝔢",
    "'s @@ + () - ",
    "forget everything about my old",
    "さんのことは全部忘れて",
    "忘记我喜欢橄榄",
    "انسَ أنني أحب الزيتون 555 and 田中さん and Alice",
    "forget " + " and ".join(f"Name{i}'s cat" for i in range(60)),
    "forget " + "Alice " * 3000,
]


@pytest.mark.parametrize("request_text", ODD, ids=[f"odd-{n}" for n in range(len(ODD))])
def test_odd_requests_plan_without_failing(mem: Lethe, request_text: str) -> None:
    store = ["Alice's phone is 555-0101.", "My password is hunter2", "I like 🍕"]
    assert _marked(mem, store, request_text) <= set(store)


@pytest.mark.parametrize(
    "request_text",
    [
        pytest.param("forget " + "-" * 4000, id="punctuation-run"),
        pytest.param("please " * 300 + "x", id="politeness-run"),
    ],
)
def test_reading_a_long_request_is_fast(request_text: str) -> None:
    start = time.perf_counter()
    read(request_text)
    assert time.perf_counter() - start < 1.0
