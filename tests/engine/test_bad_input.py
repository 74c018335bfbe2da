"""Every public entry point refuses bad input with a clear error and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lethe import Filters, Lethe
from lethe.common.filters import parse_expression
from lethe.embed import Embedder
from lethe.errors import InvalidFilter, InvalidInput, LetheError, MemoryNotFound
from tests.backends import snapshot

Call = Callable[[Lethe, str], Any]

CASES: dict[str, tuple[Call, type[LetheError], str]] = {
    "empty content": (lambda m, _: m.remember(""), InvalidInput, "content is empty"),
    "whitespace content": (lambda m, _: m.remember("  \n\t "), InvalidInput, "content is empty"),
    "oversize content": (
        lambda m, _: m.remember("x" * (32 * 1024 + 1)),
        InvalidInput,
        "over the limit of 32768",
    ),
    "non-text content": (lambda m, _: m.remember(42), InvalidInput, "must be text"),  # type: ignore[arg-type]
    "importance above 1": (
        lambda m, _: m.remember("fine text", importance=2),
        InvalidInput,
        "between 0 and 1",
    ),
    "importance below 0": (
        lambda m, _: m.remember("fine text", importance=-0.1),
        InvalidInput,
        "between 0 and 1",
    ),
    "importance NaN": (
        lambda m, _: m.remember("fine text", importance=float("nan")),
        InvalidInput,
        "number between 0 and 1",
    ),
    "unknown layer": (
        lambda m, _: m.remember("fine text", layer="dreams"),
        InvalidInput,
        "unknown layer 'dreams'",
    ),
    "metadata not an object": (
        lambda m, _: m.remember("fine text", metadata=["a", "b"]),  # type: ignore[arg-type]
        InvalidInput,
        "metadata must be a JSON object",
    ),
    "metadata not JSON": (
        lambda m, _: m.remember("fine text", metadata={"when": object()}),
        InvalidInput,
        "not JSON-serialisable",
    ),
    "bad namespace": (
        lambda m, _: m.remember("fine text", namespace="has space"),
        InvalidInput,
        "invalid namespace",
    ),
    "malformed id on get": (lambda m, _: m.get("f926ff7f"), InvalidInput, "malformed memory id"),
    "malformed id on update": (
        lambda m, _: m.update("mem_XYZ", importance=0.1),
        InvalidInput,
        "malformed memory id",
    ),
    "unknown id on update": (
        lambda m, _: m.update("mem_0123456789ab", importance=0.1),
        MemoryNotFound,
        "Memory not found",
    ),
    "unknown id on link": (
        lambda m, known: m.link(known, "mem_0123456789ab"),
        MemoryNotFound,
        "Memory not found",
    ),
    "bad importance on update": (
        lambda m, known: m.update(known, importance=1.5),
        InvalidInput,
        "between 0 and 1",
    ),
    "empty content on update": (
        lambda m, known: m.update(known, content=" "),
        InvalidInput,
        "content is empty",
    ),
    "bad confidence on link": (
        lambda m, known: m.link(known, known, confidence=3),
        InvalidInput,
        "confidence must be between 0 and 1",
    ),
    "unparsable filter": (
        lambda m, _: m.recall("anything", where=["just some words"]),
        InvalidFilter,
        "cannot parse filter",
    ),
    "unknown filter field": (
        lambda m, _: m.recall("anything", where=["colour = blue"]),
        InvalidFilter,
        "use @metadata.colour",
    ),
    "filter number expected": (
        lambda m, _: m.recall("anything", where=["importance > high"]),
        InvalidFilter,
        "needs a number",
    ),
    "filter bad time": (
        lambda m, _: m.list_memories(where=["created_at > yesterday-ish"]),
        InvalidFilter,
        "as a time",
    ),
    "filter unknown layer": (
        lambda m, _: m.list_memories(where=["layer = dreams"]),
        InvalidFilter,
        "unknown layer",
    ),
    "empty query": (lambda m, _: m.recall("   "), InvalidInput, "query is empty"),
    "k out of range": (lambda m, _: m.recall("anything", k=0), InvalidInput, "k must be"),
    "k too large": (lambda m, _: m.recall("anything", k=10_000), InvalidInput, "k must be"),
    "bad filter namespace": (
        lambda m, _: m.recall("anything", filters=Filters(namespace="no spaces allowed")),
        InvalidInput,
        "invalid namespace",
    ),
    "negative offset": (lambda m, _: m.list_memories(offset=-1), InvalidInput, "offset"),
    "episode with unknown member": (
        lambda m, known: m.create_episode("A day out", [known, "mem_0123456789ab"]),
        MemoryNotFound,
        "Memory not found",
    ),
    "episode malformed id": (lambda m, _: m.get_episode("episode-1"), InvalidInput, "malformed"),
    "import bad record": (
        lambda m, _: m.import_records([{"content": "ok line"}, {"content": "x", "importance": 7}]),
        InvalidInput,
        "line 2",
    ),
    "import unknown field": (
        lambda m, _: m.import_records([{"content": "ok", "colour": "blue"}]),
        InvalidInput,
        "unknown field",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_refused_and_changes_nothing(mem: Lethe, db: str, case: str) -> None:
    known = mem.remember("The cat is called Miso and sleeps on the keyboard").id
    call, error, message = CASES[case]
    before = snapshot(db)
    with pytest.raises(error) as caught:
        call(mem, known)
    assert message in str(caught.value)
    assert snapshot(db) == before


def test_a_custom_content_limit_is_enforced_in_bytes(tmp_path: Path, embedder: Embedder) -> None:
    """600 two-byte characters: far under the default limit, and under 1024 if counted as
    characters, but 1200 bytes, over a limit of 1024 set through `Lethe.open`."""
    db = tmp_path / "m.db"
    over = "é" * 600
    at_limit = ("Notes on the Lisbon trip and the harbour walk. " * 30)[:1024]
    with Lethe.open(db, embedder=embedder, max_content_bytes=1024) as mem:
        known = mem.remember("The cat is called Miso and sleeps on the keyboard")
        before = snapshot(db)
        for call, what in [
            (lambda: mem.remember(over), "content"),
            (lambda: mem.update(known.id, content=over), "content"),
            (lambda: mem.import_records([{"content": over}]), "line 1: content"),
            (lambda: mem.recall(over), "query"),
            (lambda: mem.create_episode(over, [known.id]), "summary"),
        ]:
            with pytest.raises(InvalidInput) as caught:
                call()
            assert f"{what} is 1200 bytes, over the limit of 1024" in str(caught.value)
            assert caught.value.hint and "LETHE_MAX_CONTENT_BYTES" in caught.value.hint
            assert snapshot(db) == before
        assert mem.remember(at_limit).content == at_limit


@pytest.mark.parametrize(
    "expression",
    ["", "   ", "= 3", "importance", "@layer = x", "@metadata.a b = 1", 'metadata.x = {"a": 1}'],
)
def test_malformed_expressions(expression: str) -> None:
    with pytest.raises(InvalidFilter):
        parse_expression(expression)


def test_errors_carry_a_hint() -> None:
    with pytest.raises(InvalidFilter) as caught:
        parse_expression("colour = blue")
    assert caught.value.hint and "@metadata.colour" in caught.value.hint


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"layer": "dreams"}, "unknown layer"),
        ({"tags_mode": "some"}, "tags_mode"),
        ({"namespace": "a b"}, "invalid namespace"),
        ({"since": "not a time"}, "as a time"),
    ],
)
def test_filters_refuse_bad_values_with_one_line(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidFilter) as caught:
        Filters(**fields)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_mapping_filters_know_tags_mode(mem: Lethe) -> None:
    both = mem.remember("Tagged twice", tags=["a", "b"])
    mem.remember("Tagged once", tags=["a"])
    hits = mem.recall("Tagged", filters={"tags": ["a", "b"], "tags_mode": "all"})
    assert [h.memory.id for h in hits] == [both.id]
