"""Identifiers in a forget request decide by their exact tokens (issue 17's first step): a
memory holding another code, number or address is never marked, however close its vector."""

from __future__ import annotations

import pytest

from lethe import Lethe
from lethe.planner.identifiers import holds, holds_all, identifiers

CASES = [
    ("forget my address 150 Elm Road", "My address is 160 Elm Road", False),
    ("forget my address 150 Elm Road", "My address is 150 Elm Road", True),
    ("forget order ORD-2024-001", "Order ord 2024 001 shipped", True),
    ("forget order ORD-2024-001", "order_2024_0010 shipped", False),
    ("forget alice@acme.io", "alice.smith@acme.io is her mail", False),
    ("forget alice@acme.io", "mail: Alice@ACME.io", True),
    ("forget code 4821", "code 48213", False),
    ("コード48213を忘れて", "認証コードは48213です", True),
    ("forget code 48213", "認証コードは48213です", True),
    ("forget the PIN ４４７１", "PIN 4471", True),
    ("forget the dentist at 10am", "Dentist on Tuesday at 10 am", True),
    ("forget the dentist at 10am", "Dentist on Thursday at 3pm", False),
    ("forget the rent of 10² euros", "The rent is 102 euros", False),
    # One identifier, many spellings (issue 24) — and still never a longer one.
    ("forget +1 (555) 010-4477", "call 555 010 4477", True),
    ("forget 555 010 4477", "phone +1 (555) 010-4477", True),
    ("forget 5550104477", "phone +1 (555) 010-4477", True),
    ("forget +44 7700 900139", "+44 7700 090139", False),
    ("forget 555-0104", "555 0104 99", False),
    ("forget ORD2024001", "Order ORD-2024-001", True),
    ("forget Bob@Example.com ", "bob@example.com", True),
    ("forget 48 213", "code 48213", True),
    ("forget 1200", "owes €1,200", True),
    ("forget 1200", "items 1, 200", False),
    ("forget 12 3456789", "code 3456789", False),
    ("forget 2Y74F8", "ref 2Y74F89", False),
    ("forget the cat aged 1", "a 1-year-old cat", True),
    ("注文ORD-2024-5035は消して", "Order ORD-2024-5035 from Zara", True),
    ("forget the dentist at 10 am", "Dentist at 10am", True),
    # A key given without the words its stored form goes on with (issue 45) — never a key
    # that goes on with other characters.
    ("forget the API key sk-17quami0uz", "API key issued to ops: sk-17quami0uz-secret.", True),
    ("forget ORD-2024-001", "ORD-2024-001-secret was the test order", True),
    ("forget ORD-2024-001", "Order ORD-2024-001-B shipped", False),
    ("forget sk-17quami0uz", "key sk-17quami0uzx-secret", False),
    ("forget sk-17quami0uz", "key sk-17quami0uz-9-live", False),
]


@pytest.mark.parametrize(("request_text", "memory", "held"), CASES)
def test_an_identifier_is_held_only_by_its_exact_tokens(
    request_text: str, memory: str, held: bool
) -> None:
    assert holds_all(memory, identifiers(request_text)) is held


def test_a_request_without_identifiers_names_none() -> None:
    assert identifiers("forget about the dentist") == []


def test_a_twin_with_another_number_is_never_marked(mem: Lethe) -> None:
    right = mem.remember("My home address is 150 Elm Road, Springfield")
    twin = mem.remember("My home address is 160 Elm Road, Springfield")
    mem.remember("I like hiking on weekends")
    plan = mem.plan_forget(query="forget that my home address is 150 Elm Road, Springfield")
    marked = {i.id for i in plan.targets}
    assert twin.id not in marked
    assert marked == {right.id}, plan.notes
    [skipped] = [i for i in plan.items if i.id == twin.id]
    assert skipped.action == "skip" and "150" in skipped.reason
    nothing = mem.plan_forget(query="forget that my home address is 170 Elm Road, Springfield")
    assert nothing.targets == ()


def test_a_label_before_a_number_ends_at_its_colon() -> None:
    """ "in 2020: +44 7700 900707" is a year and a phone number, not one long number."""
    text = "Maria's number in 2020: +44 7700 900707."
    assert holds(text, ("2020",))
    assert holds(text, ("+", "44", "7700", "900707"))
    assert not holds("Call 2020-44-7700 now", ("2020",))


def test_a_short_code_word_written_apart_starts_the_number() -> None:
    """ "PO 2024 0110" is the order po-2024-0110 (not po-2024-01100, nor 2024-0110 alone);
    "with +49 …" and "at 10 am" keep their words out."""
    [order] = identifiers("Po 2024 0110")
    assert holds("Purchase order po-2024-0110 covers a coat.", order)
    assert not holds("Purchase order po-2024-01100 covers shoes.", order)
    [iban] = identifiers("de83 2690 7806 7304 2551 55")
    assert holds("Bob's IBAN is DE83-2690-7806-7304-2551-55.", iban)
    assert not holds("Bob's IBAN is DE83-2690-7806-7304-25.", iban)
    assert identifiers("anything with +49 151 2345 5514") == [("+", "49", "151", "2345", "5514")]
    assert identifiers("at 10 am") == [("10",)]


def test_an_identifier_written_into_japanese_or_chinese_keeps_its_letters() -> None:
    assert identifiers("注文番号SO-82942131のことは忘れて") == [("so", "82942131")]
    assert identifiers("+1 415 555 0898の番号を忘れて") == [("+", "1", "415", "555", "0898")]
    assert identifiers("请忘记+44 7700 900848这个号码") == [("+", "44", "7700", "900848")]
    assert identifiers("Ninaに貸した48000円のことは忘れて") == [("48000",)]


def test_one_number_spaced_another_way_or_with_its_country_code_glued() -> None:
    [iban] = identifiers("IBAN DE3 094 596 104 549 519 692 9")
    assert holds("Maria's IBAN is DE 3094 5961 0454 9519 6929.", iban)
    assert not holds("Maria's IBAN is DE 3094 5961 0454 9519 6928.", iban)
    [phone] = identifiers("phone number 415 971 3077")
    assert holds("Call Lucas on +14159713077 after 6 pm.", phone)
    assert not holds("Call Lucas on +14159713078 after 6 pm.", phone)
    assert not holds("items 1, 200", ("1200",)), "two numbers across a comma stay two"


def test_a_word_alone_before_a_colon_labels_the_identifier_after_it() -> None:
    """ "key:sk-8hmbr5xqt4-secret" and "https://api.acme.io/v2/events" hold the key and the
    endpoint: the label and the scheme are no part of them; "10:30" stays one time."""
    [key] = identifiers("API key sk-8hmbr5xqt4")
    assert holds("运维使用的API key:sk-8hmbr5xqt4-secret。", key)
    [url] = identifiers("api.acme.io/v2/events")
    assert holds("Webhook endpoint https://api.acme.io/v2/events fires on push.", url)
    assert identifiers("at 10:30") == [("10", "30")]
    assert holds("the meeting at 10:30", ("10", "30"))


def test_a_word_before_a_number_joined_by_its_own_separators_only_labels_it() -> None:
    """ "SSN 123-45-6789" is the number 123-45-6789 (held by "SSN on file: 123-45-6789" and by
    "123456789"); "PO 2024 0110", written in parts, keeps its word."""
    assert identifiers("SSN 123-45-6789") == [("123", "45", "6789")]
    assert holds("Customer alternate record: 123456789 (no dashes).", ("123", "45", "6789"))
    assert identifiers("card 4111-1111-1111-1111") == [("4111", "1111", "1111", "1111")]
    assert identifiers("Po 2024 0110") == [("po", "2024", "0110")]
