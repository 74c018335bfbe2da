"""Reading forget requests in Japanese (planner/request_ja.py): the instruction is peeled off
the end in layers, so every combination of matter phrase, scope word and politeness reads
the same object and scope."""

from __future__ import annotations

import pytest

from lethe.planner.request import read


@pytest.mark.parametrize(
    ("text", "obj", "scope"),
    [
        ("猫のことは全部忘れて", "猫", "subject"),
        ("猫のことは忘れてください", "猫", "subject"),
        ("ソラのことはもう全部消しておいて", "ソラ", "subject"),
        ("ハチのことはきれいさっぱり忘れてほしい", "ハチ", "subject"),
        ("猫についての情報は全部忘れてくれる?", "猫", "subject"),
        ("ルナに関する記憶はすべて削除してほしい", "ルナ", "subject"),
        ("田中さんの記憶を消して", "田中さん", "subject"),
        ("蓮くんについて記録してあることは全部消してください", "蓮くん", "subject"),
        ("うちの猫たちのことは全部忘れて", "猫", "subject"),
        ("引っ越しの件は忘れて", "引っ越し", "subject"),
        ("自宅のWi-Fiのパスワードの記録を消しておいて", "自宅のWi-Fiのパスワード", "fact"),
        ("1月24日の予定のことは忘れてください", "1月24日の予定", "fact"),
        ("1月24日の予定のことは全部忘れてください", "1月24日の予定", "subject"),
        ("歯医者の予約は忘れて", "歯医者の予約", "fact"),
        ("東京への出張を忘れてほしい", "東京への出張", "fact"),
        ("家賃を消去してください", "家賃", "fact"),
        ("東京に住んでいたことはもう覚えていなくていいので消して", "東京に住んでいた", "fact"),
        ("父がタバコを吸っていることは忘れて", "父がタバコを吸っている", "fact"),
        ("080-4841-8583を消去してほしい", "080-4841-8583", "fact"),
        ("パスポート番号は消しておいて", "パスポート番号", "fact"),
        ("全部忘れて、田中さんのこと", "全部忘れて、田中さんのこと", "fact"),
    ],
)
def test_a_request_reads_its_object_and_scope(text: str, obj: str, scope: str) -> None:
    request = read(text)
    assert (request.object, request.scope) == (obj, scope)


@pytest.mark.parametrize("text", ["猫のことは忘れないで", "歯医者の予約を覚えておいて", "猫"])
def test_what_is_no_instruction_to_forget_stays_the_object(text: str) -> None:
    """「忘れないで」 ("don't forget") asks the opposite: nothing is peeled off, so the
    planner searches the whole text and every target must hold all of it."""
    assert read(text).object == text
