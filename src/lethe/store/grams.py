"""Full text for scripts written without spaces: Japanese, Chinese, Korean.

The word index (`lexical.py`) splits text at spaces and punctuation, so 「ユーザーは東京に住んで
いる」 is one token and 東京 inside it can never match. Without a dictionary a sentence in
these scripts cannot be cut into words, so the gram index cuts it into every character and
every pair of neighbouring characters — the CJK bigrams of Lucene's CJK analyzer and
Elasticsearch's `cjk_bigram`. A word of one character (猫) matches its unigram, a longer
one (東京, 歯医者) the bigrams it is made of, so the short words that make up most of
Japanese nouns are found by the index itself; a trigram index (FTS5 `trigram`, `pg_trgm`)
cannot match a word shorter than three characters, and the PostgreSQL server lethe is tested
with does not ship `pg_trgm`.

A text holding no such character gives no grams, so a store in English pays nothing. In a
text that does, the Latin words and numbers count too (「Pythonが好き」 holds `python`),
and a pair across a script boundary is a gram (5月, 月3, 3日 in 「5月3日」) so dates and
counters are found as written.

Both stores compute the same grams: SQLite through `lethe_grams`, this module's function
registered on the connection that writes; PostgreSQL through a PL/pgSQL twin
(`postgres_schema.py`, migration 11) that a test holds to this one. Changing what a gram is
means a migration that rebuilds both indexes: the index deletes a row's grams by computing
them again from its text.
"""

from __future__ import annotations

import re
import unicodedata

from lethe.common.scripts import CJK, CJK_RANGES
from lethe.store.lexical import query_tokens

LATIN_RANGES = "0-9A-Za-z_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
"""The other characters a gram text keeps, as whole words: digits and Latin letters."""

_CJK = CJK
_RUN = re.compile(f"[{CJK_RANGES}{LATIN_RANGES}]+")
_LATIN_WORD = re.compile(f"[{LATIN_RANGES}]+")
_HIRAGANA = re.compile("[\u3041-\u309f]")
_KANA = re.compile("[\u3041-\u309f\u30a1-\u30fa]")
_CONTENT_RUN = re.compile(
    "[\u3005-\u3007\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\U00020000-\U0002fa1f]+"
)
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
MAX_QUERY_GRAMS = 48
MAX_WORD = 64
"""The longest Latin word a gram text keeps: a longer one is a key or an encoded blob, no
word anyone searches for, and PostgreSQL refuses a lexeme over 2,046 bytes."""


def has_cjk(text: str) -> bool:
    """For text already NFKC-normalised."""
    return _CJK.search(text) is not None


def grams(text: str) -> list[str]:
    """The gram tokens of `text` in order; none when it holds no CJK character.

    Only ASCII letters are lowered: PostgreSQL's `lower` under the C locale lowers no other,
    and the two stores must agree."""
    text = unicodedata.normalize("NFKC", text)
    if not has_cjk(text):
        return []
    text = text.translate(_ASCII_LOWER)
    out: list[str] = []
    for run in _RUN.finditer(text):
        chars = run.group()
        cjk = [_CJK.match(c) is not None for c in chars]
        latin_at = {m.start(): m.group() for m in _LATIN_WORD.finditer(chars)}
        for i, char in enumerate(chars):
            if i in latin_at and len(latin_at[i]) <= MAX_WORD:
                out.append(latin_at[i])
            if cjk[i]:
                out.append(char)
            if i + 1 < len(chars) and (cjk[i] or cjk[i + 1]):
                out.append(chars[i : i + 2])
    return out


def index_text(text: str) -> str:
    """What the SQLite gram index holds for `text`: its grams, space-separated."""
    return " ".join(grams(text))


def query_grams(text: str) -> list[str]:
    """The grams worth searching for a query holding CJK: each once, in order.

    A query is a sentence, not a word, so not every gram of it is worth ranking by. Dropped,
    when the query has anything else to search: grams holding hiragana (particles and
    endings — は, の, 猫の, は忘 — that half the store holds), and the single characters of a
    longer run of kanji or katakana (仕 and 事 of 仕事: the pair says it, the characters
    alone match every other word they are part of). A character standing alone between
    hiragana (猫 in 猫のエサ) is a word of its own and stays."""
    text = unicodedata.normalize("NFKC", text)
    found = list(dict.fromkeys(grams(text)))
    inside: set[str] = set()
    # Chinese has no kana to set its words apart: a run is a sentence, and its one-character
    # words (猫 in 我有猫吗) are searched; in Japanese a run of kanji is a word.
    if _KANA.search(text):
        for run in _CONTENT_RUN.finditer(text.translate(_ASCII_LOWER)):
            if len(run.group()) > 1:
                inside.update(run.group())
    content = [
        g
        for g in found
        if not _HIRAGANA.search(g) and not (len(g) == 1 and g in inside and _CJK.match(g))
    ]
    return (content or found)[:MAX_QUERY_GRAMS]


def gram_query(text: str) -> list[str]:
    """What to ask the gram index for: a query's grams, or, for a query without CJK, its
    words — the Latin words of texts that mix scripts are found only there (the word index
    holds 「ユーザーはpythonが好き」 as one token)."""
    return query_grams(text) if has_cjk(unicodedata.normalize("NFKC", text)) else query_tokens(text)
