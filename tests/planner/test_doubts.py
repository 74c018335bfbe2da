"""The doubts (planner/doubts.py): why the best candidate may not be the memory meant."""

from __future__ import annotations

from lethe.planner import rules
from tests.planner.support import marked

FILLER = ("The print queue is down for maintenance.", 0.1)


def test_another_kind_of_the_thing_named_is_another_fact() -> None:
    """ "shoe size" is not "T-shirt size", "home phone" not "mobile phone", "annual income"
    not "annual rent": the memory names another kind beside the word it shares."""
    assert marked("user shoe size", [("The user's T-shirt size is M.", 0.7), FILLER]) == []
    assert marked("Dana home phone", [("Dana's mobile phone is 07700 900123.", 0.7), FILLER]) == []
    assert marked("user annual income", [("The user's annual rent is £14,400.", 0.7), FILLER]) == []
    kept = ("The user's shoe size is 42.", 0.7)
    assert marked("user shoe size", [kept, FILLER]) == [kept[0]]


def test_a_word_of_how_or_how_many_beside_the_noun_is_no_other_kind() -> None:
    stored = [("Customer is on the Enterprise plan and pays via wire transfer.", 0.7), FILLER]
    assert marked("customer payment wire transfer", stored) != []
    with rules.without("another-kind"):
        assert marked("user shoe size", [("The user's T-shirt size is M.", 0.7), FILLER]) != []


def test_a_memory_of_the_relation_is_not_the_attribute_of_the_relative() -> None:
    boss = ("The user's boss is Mr. Ortiz.", 0.75)
    assert marked("forget my boss's address", [boss, FILLER]) == []
    with rules.without("relation-unsaid"):
        assert marked("forget my boss's address", [boss, FILLER]) == [boss[0]]


def test_what_is_asked_of_a_thing_the_user_has_is_not_having_it() -> None:
    cat = ("The user has a cat.", 0.75)
    assert marked("user's cat's name", [cat, FILLER]) == []
    named = ("The user's cat is called Miso.", 0.75)
    assert marked("user's cat's name", [named, FILLER]) == [named[0]]
