"""Memories and candidates for tests of the description planner without a store."""

from __future__ import annotations

from datetime import UTC, datetime

from lethe.model import Memory
from lethe.planner.pipeline import decide
from lethe.planner.port import Candidate


def memory(n: int, text: str) -> Memory:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    return Memory(
        id=f"mem_{n:012x}", content=text, content_sha256="0" * 64, created_at=now, updated_at=now
    )


def marked(request: str, texts_and_cosines: list[tuple[str, float]]) -> list[str]:
    """The texts the planner marks for deletion, each candidate given its cosine."""
    candidates = [Candidate(memory(n, t), c) for n, (t, c) in enumerate(texts_and_cosines)]
    return [
        j.memory.content for j in decide(request, candidates).judgements if j.verdict == "delete"
    ]
