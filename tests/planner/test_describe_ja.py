"""The description planner on Japanese memories (issue 22): requests read like their English
counterparts, words read whole (猫 is not 猫カフェ, 母 is not someone's お母さん), and exact
tokens (dates, numbers) that the request qualifies must be qualified in the memory too."""

from __future__ import annotations

from lethe import Lethe
from tests.planner.support import marked

ISSUE = [
    "ユーザーは東京に住んでいる",
    "ユーザーは猫を二匹飼っている",
    "ユーザーはコーヒーより紅茶が好き",
    "来週の月曜日に歯医者の予約がある",
]


def test_the_issue_s_request_marks_the_cat_and_nothing_else(mem: Lethe) -> None:
    ids = [mem.remember(text).id for text in ISSUE]
    plan = mem.plan_forget(query="猫のことは忘れて")
    assert [i.id for i in plan.items if i.action == "delete"] == [ids[1]]
    plan = mem.plan_forget(query="歯医者の予約は忘れて")
    assert [i.id for i in plan.items if i.action == "delete"] == [ids[3]]


def test_a_word_inside_another_word_is_not_the_word() -> None:
    texts = [
        ("ユーザーは猫を二匹飼っている", 0.45),
        ("ユーザーは先週末、猫カフェに初めて行った", 0.60),
        ("実家の玄関には大きな招き猫が置いてある", 0.55),
        ("田中さんは猫アレルギーがある", 0.58),
    ]
    assert marked("猫のことは全部忘れて", texts) == ["ユーザーは猫を二匹飼っている"]


def test_someone_else_s_mother_is_not_the_user_s() -> None:
    texts = [
        ("母の誕生日は7月9日", 0.50),
        ("母は最近、合唱サークルに入った", 0.52),
        ("清水さんのお母さんは料理教室を開いている", 0.66),
        ("友人のお母さんはピアノの先生だ", 0.64),
        ("祖母は広島で一人暮らしをしている", 0.60),
    ]
    got = marked("母のことは全部忘れて", texts)
    assert "清水さんのお母さんは料理教室を開いている" not in got
    assert "祖母は広島で一人暮らしをしている" not in got
    assert "友人のお母さんはピアノの先生だ" not in got
    assert got == ["母の誕生日は7月9日", "母は最近、合唱サークルに入った"]


def test_a_word_in_hiragana_tells_two_allergies_apart() -> None:
    texts = [("田中さんは猫アレルギーがある", 0.58), ("ユーザーはそばアレルギーがある", 0.55)]
    assert marked("そばアレルギーを消去してください", texts) == [texts[1][0]]


def test_the_plans_on_a_day_are_not_every_memory_of_that_day() -> None:
    texts = [
        ("1月24日の夜は森さんと食事の約束がある", 0.60),
        ("1月24日の午前10時に美容院の予約を入れた", 0.58),
        ("妹の誕生日は1月24日", 0.71),
    ]
    assert marked("1月24日の予定を全部削除して", texts) == [texts[0][0], texts[1][0]]
