"""Writing systems lethe treats apart: those written without spaces between words.

Japanese, Chinese and Korean text cannot be cut into words at spaces, so the full-text side
indexes it by characters (store/grams.py), and an embedding model trained on English alone
cannot read it (engine/search.py weighs its ranking less)."""

from __future__ import annotations

import re
import unicodedata

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
CJK = re.compile(f"[{CJK_RANGES}]")


def has_cjk(text: str) -> bool:
    """Whether `text` holds a CJK character (half-width katakana counts, as NFKC reads it)."""
    return (
        CJK.search(text) is not None or CJK.search(unicodedata.normalize("NFKC", text)) is not None
    )


STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "been",
        "but",
        "by",
        "do",
        "does",
        "did",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "she",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
"""English function words: neither searched for (store/lexical.py) nor read as part of an
identifier (planner/identifiers.py)."""
