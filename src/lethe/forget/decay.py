"""Heat and forgetting risk (seed 003), computed for whole columns at once.

A sweep over a million memories must not loop in Python: every function here takes numpy
arrays (one element per memory) and returns arrays. The formulas are seed 003's, with the
access counts of the last 30 and 90 days taken from a real per-day access log instead of
being guessed from the total.
"""

from __future__ import annotations

import re
from typing import Literal

import numpy as np
import numpy.typing as npt

F64 = npt.NDArray[np.float64]
Action = Literal["keep", "compress", "drop"]
ACTIONS: tuple[Action, ...] = ("keep", "compress", "drop")
Policy = Literal["off", "suggest", "auto"]


def heat(
    *, accesses_30d: F64, accesses_90d: F64, accesses_total: F64, days_idle: F64, importance: F64
) -> F64:
    """0-100: how alive a memory is. Frequent, recent and important memories are hot.
    `days_idle` counts from the last recall, or from creation for a memory never recalled."""
    recency = np.select(
        [days_idle <= 7, days_idle <= 30, days_idle <= 90], [20.0, 10.0, 0.0], default=-10.0
    )
    score = (
        np.minimum(accesses_30d * 3.0, 30.0)
        + np.minimum(accesses_90d, 20.0)
        + recency
        + np.minimum(accesses_total * 0.5, 15.0)
        + importance * 15.0
    )
    out: F64 = np.clip(score, 0.0, 100.0)
    return out


def risk(*, heat: F64, importance: F64, days_idle: F64, protected: npt.NDArray[np.bool_]) -> F64:
    """How ripe a memory is for forgetting: cold, unimportant and long untouched. Protected
    memories have no risk at all."""
    value = (1.0 - heat / 100.0) * (1.0 - importance) * days_idle * (1.0 + days_idle / 30.0)
    out: F64 = np.where(protected, 0.0, value)
    return out


def decide(risk_: F64, *, compress_at: float, drop_at: float) -> npt.NDArray[np.int8]:
    """Per memory an index into ACTIONS: 0 keep, 1 compress, 2 drop."""
    return np.select([risk_ >= drop_at, risk_ >= compress_at], [2, 1], default=0).astype(np.int8)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_ABBREVIATION = re.compile(r"(?:\b[A-Z][a-z]{0,2}|\b[a-z]|e\.g|i\.e|etc|vs)\.$")


def _first_sentence(text: str) -> str:
    """Up to the first sentence end that is not an abbreviation ("Dr.", "e.g.", "St.")."""
    for match in _SENTENCE_END.finditer(text):
        head = text[: match.start()]
        if not _ABBREVIATION.search(head):
            return head
    return text


SUMMARY_HEADER = "Summary of older memories:"


def summary_line(text: str, *, limit: int = 200) -> str:
    """The line an extractive summary holds for one memory: its first sentence, shortened."""
    first = _first_sentence(" ".join(text.split()))
    return first if len(first) <= limit else first[: limit - 1] + "…"


def extractive_summary(contents: list[str], *, limit: int = 200) -> str:
    """A summary made of the memories' own words: the first sentence of each, shortened.
    Used when no LLM is configured; it invents nothing."""
    lines = [summary_line(text, limit=limit) for text in contents]
    return SUMMARY_HEADER + "\n" + "\n".join(f"- {line}" for line in lines)
