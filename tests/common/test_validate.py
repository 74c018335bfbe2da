"""Text checks shared by every entry point (lethe.common.validate), through the Python API on both
stores: a NUL or a lone surrogate in anything stored, an offset no store can hold and a
namespace named like a workspace file are each one InvalidInput, and nothing changes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from lethe import Lethe
from lethe.errors import InvalidInput
from tests.backends import run_sql, snapshot

HUGE = 10**20


def _cases(kept: str) -> list[tuple[str, Callable[[Lethe], Any], str]]:
    return [
        ("content NUL", lambda m: m.remember("tea\x00coffee"), "content contains a NUL"),
        ("content surrogate", lambda m: m.remember("tea \ud800"), "content contains a lone"),
        ("agent NUL", lambda m: m.remember("tea", agent="a\x00"), "agent contains a NUL"),
        ("category", lambda m: m.remember("tea", category="\x00"), "category contains a NUL"),
        ("tag", lambda m: m.remember("tea", tags=["ok", "t\x00"]), "tag contains a NUL"),
        (
            "metadata value",
            lambda m: m.remember("tea", metadata={"k": ["x", "y\x00"]}),
            "metadata.k[1] contains a NUL",
        ),
        (
            "metadata key",
            lambda m: m.remember("tea", metadata={"\udcff": 1}),
            "a key in metadata contains a lone surrogate",
        ),
        ("query", lambda m: m.recall("tea\x00"), "query contains a NUL"),
        ("update", lambda m: m.plan_update(kept, content="x\x00"), "content contains a NUL"),
        ("reason", lambda m: m.forget([kept], reason="\x00", session="s"), "reason contains"),
        ("offset", lambda m: m.list_memories(offset=HUGE), "offset must be a whole number"),
        ("trash offset", lambda m: m.list_trash(offset=HUGE), "offset must be a whole number"),
        ("after_seq", lambda m: m.audit(after_seq=HUGE), "after_seq must be a whole number"),
        ("namespace", lambda m: m.remember("x", namespace="MEMORY.md"), "is reserved"),
    ]


CASES = [name for name, _, _ in _cases("mem_0123456789ab")]


@pytest.mark.parametrize("case", CASES)
def test_unstorable_input_is_refused_and_changes_nothing(mem: Lethe, db: str, case: str) -> None:
    kept = mem.remember("User drinks green tea", layer="semantic").id
    [(_, call, message)] = [c for c in _cases(kept) if c[0] == case]
    before = snapshot(db)
    with pytest.raises(InvalidInput) as raised:
        call(mem)
    assert message in str(raised.value)
    assert snapshot(db) == before


def test_a_reserved_namespace_an_older_lethe_made_can_still_be_read(mem: Lethe, db: str) -> None:
    """Only storing into `memory` or `MEMORY.md` is refused: what is already there stays
    reachable, to read, export and forget."""
    kept = mem.remember("Made before the names were reserved", namespace="notes")
    run_sql(db, "UPDATE memories SET namespace = 'memory' WHERE id = ?", (kept.id,))
    [found] = mem.list_memories({"namespace": "memory"}).items
    assert found.id == kept.id
    plan = mem.plan_forget([kept.id], filters={"namespace": "memory"})
    assert [i.id for i in plan.targets] == [kept.id]
