"""Which stored ids a mistyped id may have meant: only those within a small edit distance.

An id is a kind (`mem`, `sys`) and 12 hex digits. A caller who half-remembers one usually
gets one or two digits wrong, swaps two, or drops one and adds another; an id that shares
nothing but its kind with the one given is no suggestion at all. The ids within Levenshtein
distance 2 of the given one (of the same kind and length) are at most about 17,000 strings,
so they are written out and looked up by the store's id index: the cost does not grow with
the store (no scan of its rows), and the answer is exact.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from lethe.store.event_query import EventQuery

if TYPE_CHECKING:
    from lethe.store.base import Store

HEX = "0123456789abcdef"
MAX_DISTANCE = 2
"""How far (Levenshtein, on the hex digits) a suggestion may be from the id given."""
MAX_SUGGESTIONS = 3
PREVIEW_CHARS = 60
PREFIX_DIGITS = 6
"""Suggestions are found by id prefixes this long: one range of the id index each (about
3,800 of them), holding a row in 16**6 (17 million) of a store's ids."""


def neighbours(memory_id: str) -> list[str]:
    """Every id of the same kind and length whose hex digits are within edit distance
    `MAX_DISTANCE` (2) of `memory_id`'s, in a stable order; empty for what is not an id."""
    if not is_hex_id(memory_id):
        return []
    kind, _, digits = memory_id.partition("_")
    near: set[str] = set()
    n = len(digits)
    for i in range(n):
        for a in HEX:
            if a == digits[i]:
                continue
            one = digits[:i] + a + digits[i + 1 :]
            near.add(one)
            for j in range(i + 1, n):
                near.update(one[:j] + b + one[j + 1 :] for b in HEX if b != digits[j])
        # One digit dropped and another added elsewhere (a shift; a swap of two digits).
        dropped = digits[:i] + digits[i + 1 :]
        for j in range(n):
            near.update(dropped[:j] + c + dropped[j:] for c in HEX)
    near.discard(digits)
    return sorted(f"{kind}_{d}" for d in near)


def is_hex_id(memory_id: str) -> bool:
    """A kind, `_`, then hex digits: what `neighbours` can vary."""
    kind, sep, digits = memory_id.partition("_")
    return bool(kind and sep and digits) and all(c in HEX for c in digits)


def distance(a: str, b: str, limit: int = MAX_DISTANCE) -> int:
    """Levenshtein distance of `a` and `b`, or `limit + 1` once it is known to exceed it."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
        if min(row) > limit:
            return limit + 1
    return row[-1]


def ranked(memory_id: str, found: Iterable[str]) -> list[str]:
    """`found` (ids that exist) nearest to `memory_id` first, at most `MAX_SUGGESTIONS`,
    keeping only those within `MAX_DISTANCE`."""
    close = [(distance(memory_id, i), i) for i in found if i != memory_id]
    return [i for d, i in sorted(close) if d <= MAX_DISTANCE][:MAX_SUGGESTIONS]


def prefixes(memory_id: str) -> list[str]:
    """The `PREFIX_DIGITS`-digit id prefixes of every neighbour of `memory_id`: an edit
    beyond them leaves them as they are, so the neighbours of the id's first
    `PREFIX_DIGITS + 2` digits (a dropped digit pulls in the next) give them all."""
    kind, _, digits = memory_id.partition("_")
    head = f"{kind}_{digits[: PREFIX_DIGITS + 2]}"
    cut = len(kind) + 1 + PREFIX_DIGITS
    return sorted({n[:cut] for n in neighbours(head)} | {head[:cut]})


@dataclass(frozen=True)
class Suggestion:
    id: str
    preview: str
    """The start of its content, so that a model can tell whether it is the one meant."""


def close_ids(
    store: Store,
    memory_id: str,
    namespace: str | None,
    statuses: Sequence[str] = ("active",),
) -> list[Suggestion]:
    """The stored ids within `MAX_DISTANCE` edits of `memory_id` (nearest first, at most
    `MAX_SUGGESTIONS`), of memories with one of `statuses`, from `namespace` only (a
    suggestion must not reveal ids behind the isolation boundary), each with a preview."""
    if not is_hex_id(memory_id):
        return []
    ranges = prefixes(memory_id)
    found: list[str] = []
    for status in statuses:
        found += store.ids_with_prefixes(ranges, namespace=namespace, status=status)
    near = ranked(memory_id, found)
    held = store.get_many(near, active_only=False)
    return [Suggestion(i, held[i].preview(PREVIEW_CHARS)) for i in near if i in held]


State = Literal["live", "trash", "purged", "unknown"]


@dataclass(frozen=True)
class Whereabouts:
    """What became of an id that a caller named and that is not there as they wanted it."""

    memory_id: str
    state: State
    """`live` or `trash` (in the caller's namespace), `purged` (erased for good), or
    `unknown` (never seen there)."""
    at: datetime | None = None
    """When it was forgotten or purged."""
    by: str | None = None
    """Who forgot or purged it."""
    suggestions: tuple[Suggestion, ...] = ()
    """Ids that look like it, when it is unknown."""


def whereabouts(
    store: Store, memory_id: str, namespace: str | None, statuses: Sequence[str] = ("active",)
) -> Whereabouts:
    """Where `memory_id` is, seen from `namespace`; for an unknown id, the ids with one of
    `statuses` that look like it."""
    memory = store.get(memory_id)
    if memory is not None and (namespace is None or memory.namespace == namespace):
        if memory.status == "forgotten":
            return Whereabouts(memory_id, "trash", memory.forgotten_at, memory.forgotten_by)
        return Whereabouts(memory_id, "live")
    if memory is None:
        query = EventQuery(memory_id=memory_id, op="purge", namespace=namespace, limit=1)
        for event in store.events(query):
            return Whereabouts(memory_id, "purged", event.at, event.actor)
    close = close_ids(store, memory_id, namespace, statuses)
    return Whereabouts(memory_id, "unknown", suggestions=tuple(close))
