"""Reading a forget request: the instruction, its object, and whether it names one fact or
a whole subject.

People say "forget that my OTP was 481920", "please delete everything about Alice",
"Nina: delete all of that" or 「引っ越しの件は忘れて」. The planner searches with the object only
(the instruction's words — forget, delete, please, anything, remember — would pull in every
memory that mentions remembering), and a subject request ("everything", "all", "entirely",
「全部」) may mark every memory of its subject where a fact request marks one fact.

The instruction is recognised by its shape (a verb of forgetting at the start or at the end,
with the politeness and scope words around it), not by a list of whole sentences, so a new
phrasing of the same verbs still reads right; what is not recognised stays in the object,
which costs recall (the words are searched for) but never precision (every target must still
hold what the object names).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from lethe.planner.request_ja import read_japanese

Scope = Literal["fact", "subject"]

_VERB = (
    r"(?:forget|delete|remove|erase|drop|wipe|clear|scrub|purge|discard|get\s+rid\s+of"
    r"|stop\s+remembering|unlearn|lose"
    # German, French, Spanish, Italian, Portuguese: the verbs of forgetting and deleting, in
    # the forms a request uses (imperative, infinitive).
    r"|vergiss|vergessen|vergesst|lösch(?:e|en|t)?|entfern(?:e|en|t)?"
    r"|oublie[rz]?|supprime[rz]?|efface[rz]?|retire[rz]?"
    r"|olvida[rd]?|borra[rd]?|elimina[rd]?|suprime"
    r"|dimentica(?:re)?|cancella(?:re)?|esquece(?:r)?|apaga(?:r)?|remova)"
)
_POLITE = (
    r"(?:(?:please|pls|kindly|now|then|also|just|and|bitte|por\s+favor|per\s+favore)\s*,?\s+)*"
)
_ASK = (
    r"(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?"
    r"|i\s+(?:want|need|would\s+like|'d\s+like)\s+you\s+to\s+"
    r"|i'd\s+like\s+you\s+to\s+|you\s+(?:should|can|may|must)\s+|let's\s+|go\s+ahead\s+and\s+)?"
)
_SCOPE_WORDS = (
    r"(?:everything|anything|all|every\s+memory|every\s+note|each\s+memory|whatever"
    r"|alles|tout|todo|tutto|tudo"
    r"|what(?=\s+(?:you|that\s+you|u)\s+(?:know|remember|have|stored|saved|kept|recall)))"
)
_KNOW = (
    r"(?:\s+(?:you|that\s+you|u)\s+(?:know|remember|have|stored|saved|kept|recall)"
    r"(?:\s+(?:of|on))?)?"
)
_ABOUT = (
    r"about|on|regarding|concerning|related\s+to|of|über|von|sur|à\s+propos\s+de|sobre|"
    r"acerca\s+de|de|su|di"
)
_OBJECT_LEAD = (
    r"(?:(?:the\s+)?(?:fact|memory|memories|note|notes|thing|info|information|entry|entries)"
    r"\s+(?:that|about|on|of|regarding)\s+|(?:that|dass|que|qu'|che)\s*|about\s+|of\s+it\s+about\s+"
    r"|of\s+that\s+about\s+"
    r"|(?:with|containing|mentioning)\s+)?"
)
_LEADING = re.compile(
    rf"^\s*{_POLITE}{_ASK}{_POLITE}{_VERB},?\s+(?:(?P<scope>{_SCOPE_WORDS}){_KNOW}"
    rf"(?:\s+of\s+(?:it|that))?\s*(?:{_ABOUT})?\s+)?"
    rf"{_OBJECT_LEAD}",
    re.IGNORECASE,
)
_DONT_REMEMBER = re.compile(
    r"^\s*(?:i\s+)?(?:don't|do\s+not|no\s+longer)\s+(?:want|need)\s+you\s+to\s+"
    r"(?:remember|know|keep|store)\s+(?:(?P<scope>everything|anything|all)\s+(?:about\s+)?)?"
    r"(?:that\s+|about\s+)?",
    re.IGNORECASE,
)
_SCOPE_ALONE = re.compile(
    rf"^\s*(?P<scope>everything|all|anything|alles|tout|todo){_KNOW}\s+(?:{_ABOUT})\s+",
    re.IGNORECASE,
)
"""A description that is its scope and subject alone ("everything about Alice"), as an agent
passes it to a forget tool without the verb."""
_NO_NEED = re.compile(
    r"^\s*(?:i'd\s+rather\s+you\s+didn't\s+(?:know|remember|keep|recall)"
    r"|you\s+(?:don't|do\s+not)\s+need\s+to\s+know"
    r"|(?:please\s+)?never\s+(?:again\s+)?(?:recall|remember|mention|bring\s+up)(?:\s+again)?"
    r"|(?:please\s+)?(?:don't|do\s+not|no\s+longer)\s+(?:remember|keep|store)"
    r"|stop\s+remembering)\s+(?:that\s+|about\s+)?",
    re.IGNORECASE,
)
_TRAILING = re.compile(
    rf"\s*(?:[.;:,!?-]+\s*|\s+)(?:{_POLITE}{_ASK}{_POLITE})?"
    rf"(?:{_VERB}|(?:and\s+)?(?:please\s+)?{_VERB})\s+"
    r"(?:(?P<scope>all|everything)\s+(?:of\s+)?)?(?:it|that|this|them|those)"
    r"(?:\s+(?:too|as\s+well|please|entirely|completely|for\s+good|from\s+(?:your\s+)?memory))*"
    r"[\s,.!?]*(?:please)?[\s.!?]*$",
    re.IGNORECASE,
)
_TAIL_WORDS = re.compile(
    r"(?:[\s,]+(?P<scope>entirely|completely|altogether|wholesale|for\s+good|once\s+and\s+for\s+all)"
    r"|[\s,]+(?:anymore|any\s+more|any\s+longer|from\s+(?:your\s+)?memory|from\s+memory"
    r"|please|thanks|thank\s+you|too))+[\s.!?]*$",
    re.IGNORECASE,
)
_LABEL = re.compile(r"^\s*(?:correction|update|fyi|note|btw|actually)\b\s*[:,]?\s*", re.IGNORECASE)
_WH = re.compile(r"^(?:where|when|what|who|whom|which|how|why|whether)\b", re.IGNORECASE)

# Chinese: 「把X(的所有信息)都删掉」, 「删除(关于)X的一切」, 「X的事忘了吧」 (a subject), while
# 「删除Alice欠我35000元这件事」 ("this matter") is one fact.
_ZH_VERB = r"(?:删掉|删除|删了|忘掉|忘记|忘了|清除|去掉)"
_ZH_LEAD = re.compile(r"^(?:请|麻烦)?(?:你)?(?:把|将)")
_ZH_LEAD_VERB = re.compile(r"^(?:请|麻烦)?(?:你)?" + _ZH_VERB + r"(?P<about>关于)?")
_ZH_TAIL = re.compile(r"(?:都|全都|全部)?(?:给我)?" + _ZH_VERB + r"(?:吧|了|掉)?[。．.!！]*$")
_ZH_SCOPE = re.compile(
    r"(?:的)?(?:所有|全部|一切)(?:的)?(?:信息|记忆|内容|事情|事|东西|资料)?(?:都)?$"
    r"|的(?:事情|事)$"
)


@dataclass(frozen=True)
class Request:
    """A forget request read: what to search for, and how far it may reach."""

    text: str
    object: str
    """The request without its instruction: what the targets must say."""
    scope: Scope
    """`subject`: every memory about the object ("everything about Alice"); `fact`: one fact
    (or a few, when the object lists them)."""


def read(text: str) -> Request:
    """Split a request into its instruction and object. Never fails: an unrecognised
    instruction leaves the text as the object, a fact request."""
    raw = unicodedata.normalize("NFC", text).strip()
    obj = raw
    subject = False
    for pattern in (_DONT_REMEMBER, _NO_NEED, _LEADING, _SCOPE_ALONE):
        # Instructions are short: only the start is read, so a long or hostile request
        # costs no more than a short one (these patterns backtrack on long runs).
        m = pattern.match(obj[:WINDOW])
        if m and m.end() < len(obj):
            subject = subject or _scope(m)
            obj = obj[m.end() :]
            break
    m, at = _search_end(_TRAILING, obj)
    if m and at > 0:
        subject = subject or _scope(m)
        obj = obj[:at]
    m, at = _search_end(_TAIL_WORDS, obj)
    if m and at > 0:
        subject = subject or bool(re.search(r"entirely|completely|altogether|wholesale", m[0]))
        obj = obj[:at]
    japanese = read_japanese(obj[-WINDOW:]) if len(obj) <= WINDOW else None
    if japanese is not None:
        # 「〜の件」「〜のこと」「〜について」 name a matter, not one sentence: every memory of it.
        obj, subject = japanese[0], subject or japanese[1]
    obj, subject = _chinese(obj, subject)
    obj = _LABEL.sub("", obj).strip(" \t\n,.;:!?-–—。、「」")
    if re.match(r"^(?:all|every)\s+of\s+", obj, re.IGNORECASE):
        subject = True
    if _WH.match(obj):
        subject = False
    return Request(text=raw, object=obj or raw, scope="subject" if subject else "fact")


def _chinese(obj: str, subject: bool) -> tuple[str, bool]:
    """The object of a Chinese request, and whether it asks for a whole subject."""
    lead = _ZH_LEAD.match(obj) or _ZH_LEAD_VERB.match(obj)
    tail = _ZH_TAIL.search(obj)
    if lead is None and tail is None:
        return obj, subject
    start = lead.end() if lead else 0
    end = tail.start() if tail and tail.start() >= start else len(obj)
    if lead is not None and lead.groupdict().get("about"):
        subject = True
    inner = obj[start:end]
    scope = _ZH_SCOPE.search(inner)
    if scope and scope.start() > 0:
        subject = True
        inner = inner[: scope.start()]
    return (inner, subject) if inner.strip() else (obj, subject)


WINDOW = 200
"""How much of a request's start and end is read for its instruction."""


def _search_end(pattern: re.Pattern[str], obj: str) -> tuple[re.Match[str] | None, int]:
    """A pattern anchored at the end, searched in the last WINDOW characters only; returns
    the match and where it starts in `obj`."""
    offset = max(0, len(obj) - WINDOW)
    m = pattern.search(obj[offset:])
    return m, (offset + m.start()) if m else -1


def _scope(match: re.Match[str]) -> bool:
    word = match.groupdict().get("scope")
    return bool(word)
