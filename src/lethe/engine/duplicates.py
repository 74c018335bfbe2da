"""What counts as the same memory: the exact-duplicate check of remember and import, and
how a near-duplicate is named in an answer."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from lethe.model import Draft, Gist, Memory, NearDuplicate
from lethe.planner.identifiers import plain_width

NEAR_DUPLICATE = "near_duplicate"
"""The link kind between a memory and a stored one it is nearly identical to."""


def normalise(text: str) -> str:
    """The text as the exact-duplicate check compares it: Unicode NFC, full-width ASCII forms
    as plain ones (「４４７１」 is 4471), runs of whitespace as one space. Nothing else is
    folded: case, super- and subscripts (10² is not 102), circled and Roman numerals keep
    their meaning, since a code or a number written another way may be another one."""
    return " ".join(plain_width(unicodedata.normalize("NFC", text)).split())


def same_fields(memory: Memory, draft: Draft, normalised: str) -> bool:
    return (
        normalise(memory.content) == normalised
        and memory.agent == draft.agent
        and memory.layer == draft.layer
        and memory.category == draft.category
        and set(memory.tags) == set(draft.tags)
        and as_json(memory.metadata) == as_json(draft.metadata)
        and memory.importance == draft.importance
        and memory.private == draft.private
        and memory.expires_at == draft.expires_at
        and memory.expiry_held == (draft.expiry_held and draft.expires_at is not None)
    )


def as_json(value: Any) -> str:
    """A value as JSON with sorted keys: `True` and `1` stay different."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def near_items(
    near: Sequence[tuple[str, float]], found: Mapping[str, Memory | Gist]
) -> tuple[NearDuplicate, ...]:
    return tuple(
        NearDuplicate(
            id=i, content=found[i].content, similarity=round(s, 4), private=found[i].private
        )
        for i, s in near
        if i in found
    )


def draft_key(draft: Draft) -> tuple[Any, ...]:
    """What makes two drafts of one call exact duplicates of each other."""
    return (
        draft.namespace,
        normalise(draft.content),
        draft.agent,
        draft.layer,
        draft.category,
        frozenset(draft.tags),
        as_json(draft.metadata),
        draft.importance,
        draft.private,
        draft.expires_at,
        draft.expiry_held and draft.expires_at is not None,
    )
