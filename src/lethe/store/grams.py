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

from lethe.store.lexical import query_tokens

CJK_RANGES = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u3005-\u3007"  # 々 〆 〇
    "\u3041-\u3096"  # Hiragana
    "\u309d-\u309f"
    "\u30a1-\u30fa"  # Katakana
    "\u30fc-\u30ff"
    "\u3131-\u318e"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uac00-\ud7a3"  # Hangul syllables
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0002fa1f"  # extensions B-F, compatibility supplement
)
"""Characters written without spaces between words; punctuation (、。「」・) is not one."""
LATIN_RANGES = "0-9A-Za-z_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
"""The other characters a gram text keeps, as whole words: digits and Latin letters."""

_CJK = re.compile(f"[{CJK_RANGES}]")
_RUN = re.compile(f"[{CJK_RANGES}{LATIN_RANGES}]+")
_LATIN_WORD = re.compile(f"[{LATIN_RANGES}]+")
_HIRAGANA_ONLY = re.compile("^[\u3041-\u309f]+$")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
MAX_QUERY_GRAMS = 48


def has_cjk(text: str) -> bool:
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
            if i in latin_at:
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
    """The grams worth searching for a query holding CJK: each once, in order. Grams of
    hiragana alone are mostly particles and endings (は, の, につ, いて) that half the store
    holds; they are dropped when the query has anything else to search."""
    found = list(dict.fromkeys(grams(text)))
    content = [g for g in found if not _HIRAGANA_ONLY.match(g)]
    return (content or found)[:MAX_QUERY_GRAMS]


def gram_query(text: str) -> list[str]:
    """What to ask the gram index for: a query's grams, or, for a query without CJK, its
    words — the Latin words of texts that mix scripts are found only there (the word index
    holds 「ユーザーはpythonが好き」 as one token)."""
    return query_grams(text) if has_cjk(unicodedata.normalize("NFKC", text)) else query_tokens(text)
