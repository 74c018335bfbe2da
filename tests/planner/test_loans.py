"""One debt said from either side (planner/loans.py): the planner compares who lent to whom,
not whose sentence it is."""

from __future__ import annotations

import pytest

from lethe.planner.evidence import USER
from lethe.planner.loans import parties


@pytest.mark.parametrize(
    ("text", "lender", "borrower"),
    [
        ("Tom lent Alice £250 for a flight home.", "tom", "alice"),
        ("Alice owes Tom £250 (borrowed for a flight home).", "tom", "alice"),
        ("Alice borrowed £250 from Tom.", "tom", "alice"),
        ("Loan: €4800 from Tom to Nina, for a car repair.", "tom", "nina"),
        ("I lent Daniel £120 for a new laptop", USER, "daniel"),
        ("Daniel owes me £120.", USER, "daniel"),
        ("Nina owes the user €480.", USER, "nina"),
    ],
)
def test_lender_and_borrower_are_read_from_either_side(
    text: str, lender: str, borrower: str
) -> None:
    assert parties(text) == (lender, borrower)


@pytest.mark.parametrize(
    "text",
    ["The user likes Tom.", "Maria owes Sofia $120 and Sofia owes Tom $5.", "I owe it to myself"],
)
def test_no_debt_or_two_debts_read_as_none(text: str) -> None:
    assert parties(text) is None


@pytest.mark.parametrize(
    ("text", "debt"),
    [
        ("删除Alice欠我35000元这件事", (USER, "alice")),
        ("我借给Julia 5000元", (USER, "julia")),
        ("我向Tom借了200元", ("tom", USER)),
        ("Aliceに48000円を貸した。", (USER, "alice")),
        ("Tomさんから3万円借りた。", ("tom", USER)),
    ],
)
def test_a_debt_in_chinese_or_japanese_has_the_same_parties(
    text: str, debt: tuple[str, str]
) -> None:
    assert parties(text) == debt
