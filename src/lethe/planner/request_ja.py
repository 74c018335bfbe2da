"""Reading a forget request in Japanese: the object, and whether it names a whole matter.

A Japanese request puts the instruction last: the object, a phrase naming what of it is
meant (のこと, について覚えていること, に関する記憶, の件), a scope word (全部, すべて,
きれいさっぱり), and the verb with its politeness (忘れて, 削除してください, 消しておいて,
忘れてくれる?). The instruction is peeled off from the end one layer at a time, so any
combination of the layers reads the same, and what is not recognised stays in the object
(which costs recall, never precision: every target must still hold what the object names).

A scope word, or a matter phrase (のこと, について, に関する, の件, の話, の記憶) after an object
that is one thing (「猫のこと」, 「田中さんの記憶」), asks for every memory of the object, as
"everything about" does in English; 「Xは忘れて」, 「Xを削除して」 and a matter phrase after an
object described by its parts (「自宅のWi-Fiのパスワードの記録」) name one fact.
"""

from __future__ import annotations

import re

_ENDING = r"(?:[?？!！。．.、,〜~ー…\s]|よ|ね|な|か|かな|ますか|ませんか)*$"
_VERB = re.compile(
    r"(?:(?:記憶|メモリ|頭)から)?"
    r"(?:忘れ|削除し|消し|消去し|抹消し|破棄し|削っ)"
    r"(?:て|ろ|ちゃって|ちゃえ|とい|てしま|ておい|とい)?"
    r"(?:ください|下さい|くださいね|ほしい|欲しい|もらえる|もらえます|もらいたい"
    r"|くれる|くれない|くれます|くれませんか|くれ|おいて|おいてください|いて|ね|て|う|え"
    r"|ほしいです|欲しいです|いただけます|いただけませんか|もらえませんか)*" + _ENDING
)
_NO_NEED = re.compile(
    r"(?:は|を|も)?\s*(?:もう)?\s*(?:覚えて|記憶して|知って|記録して|保存して)(?:い|お)?"
    r"(?:なくて|なくても)(?:いい|良い|大丈夫|構わない)(?:です|よ)?(?:ので|から|し)?\s*"
    r"(?:[、,]\s*)?$"
)
_SCOPE = re.compile(
    r"(?:は|を|も)?\s*(?:もう)?\s*(?P<scope>全部|ぜんぶ|すべて|全て|一切|まるごと|丸ごと|きれいさっぱり"
    r"|綺麗さっぱり|何もかも|完全に|残らず|跡形もなく|根こそぎ)(?:を|は)?\s*$"
)
_PARTICLE = re.compile(r"(?:は|を|も|って)\s*(?:もう)?\s*$|もう\s*$")
_MATTER = re.compile(
    r"(?:の(?:こと|事|件|話|話題|記憶|記録|情報|データ|メモ)"
    r"|(?:について|に関して|に関する|にまつわる|関連)(?:の)?"
    r"(?:(?:覚え|記録し|記憶し|知っ|保存し|メモし|書い)て(?:い|あ|お)?る)?"
    r"(?:の)?(?:こと|事|情報|記憶|記録|もの|話|内容|データ|メモ)?"
    r"|(?:で|が)?(?:覚え|記録し|記憶し|知っ|保存し)て(?:い|あ)る(?:こと|情報|記憶)?)\s*$"
)
_OWNER = re.compile(r"^(?:うちの|私の|わたしの|僕の|ぼくの|俺の|おれの|自分の|我が家の)")
_PLURAL = re.compile(r"(?<=[\u3400-\u9fff\u30a0-\u30ff])(?:たち|達|ら)$")
_LEADING_SCOPE = re.compile(r"^(?:全部|すべて|全て)\s*")
_NOMINAL = re.compile(r"(?<=[\u3041-\u3093])(?:こと|事|の)\s*$")
"""A clause made a noun (「吸っていること」): the fact it states, not a matter."""


def read_japanese(obj: str) -> tuple[str, bool] | None:
    """The object of a Japanese request and whether it asks for the whole matter; None when
    `obj` does not end in a Japanese instruction."""
    text = obj.strip()
    verb = _VERB.search(text)
    no_need = _NO_NEED.search(text) if verb is None else None
    if verb is None and no_need is None:
        return None
    text = text[: (verb or no_need).start()]  # type: ignore[union-attr]
    if verb is not None:
        need = _NO_NEED.search(text)
        if need and need.start() > 0:
            text = text[: need.start()]
    subject = False
    matters = False
    for _ in range(4):  # the layers, in any order: はもう全部, を全部, 全部は …
        before = text
        scope = _SCOPE.search(text)
        if scope and scope.start() > 0:
            subject = True
            text = text[: scope.start()]
        particle = _PARTICLE.search(text)
        if particle and particle.start() > 0:
            text = text[: particle.start()]
        matter = _MATTER.search(text)
        if matter and matter.start() > 0:
            text = text[: matter.start()]
            # 「田中さんのこと」, 「猫の記憶」: everything of one thing. 「自宅のWi-Fiのパスワード
            # の記録」 describes one fact by its parts, and stays that fact.
            matters = matters or "の" not in _OWNER.sub("", text)
            subject = subject or matters
        if text == before:
            break
    nominal = _NOMINAL.search(text)
    if nominal and nominal.start() > 0:
        text = text[: nominal.start()]
    lead = _LEADING_SCOPE.match(text)
    if lead and lead.end() < len(text):
        subject = True
        text = text[lead.end() :]
    owner = _OWNER.match(text)
    if owner and owner.end() < len(text):
        text = text[owner.end() :]
    plural = _PLURAL.search(text)
    if plural and plural.start() > 0:
        subject = True
        text = text[: plural.start()]
    text = text.strip(" \t\n,.;:!?-–—。、「」")
    return (text, subject) if text else None
