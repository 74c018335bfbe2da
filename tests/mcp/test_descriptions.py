"""What a model reads of the tools is true (issue 19): every example call written in a tool's
description or in an argument's description is taken from a real server's `tools/list` and
run against it, and must not fail; the annotations say what each tool does (read-only,
destructive, a closed world); closed sets are enums."""

from __future__ import annotations

import ast
import asyncio
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcp import Client

from lethe.mcp.profiles import ROLE, TOOLS
from tests.mcp_support import call, stdio_client, text

DESTRUCTIVE = {"forget", "purge", "execute_sweep", "delete_memories"}
PLACEHOLDER_ID = "mem_…"
"""How a description writes "an id you were given"; the test puts a live memory's id in."""
PLACEHOLDER_CODE = "<code>"
"""How a description writes "the confirmation code the answer gave"; the test leaves it out
(a first call has none)."""
SEEDS = [
    ("User lives in San Francisco", {"source": "notes.md", "year": 2024}),
    ("Trip to Lisbon with Ana in May", {"source": "notes.md", "year": 2025}),
    ("Trip to Kyoto planned for the autumn", {"source": "calendar", "year": 2026}),
]


def descriptions(tool: Any) -> Iterator[str]:
    """A tool's description and every description inside its input schema."""
    if tool.description:
        yield tool.description

    def walk(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "description" and isinstance(value, str):
                    yield value
                else:
                    yield from walk(value)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    yield from walk(tool.input_schema)


def example_calls(text: str, names: set[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every `tool(arg=value, …)` in `text` whose name is a tool: each must be a call with
    literal keyword arguments (a description that writes one otherwise fails the test)."""
    for match in re.finditer(r"\b([a-z_]+)\(", text):
        name = match.group(1)
        if name not in names:
            continue
        closes = [i + 1 for i in range(match.end(), len(text)) if text[i] == ")"]
        for end in closes:
            try:
                node = ast.parse(text[match.start() : end], mode="eval").body
            except SyntaxError:
                continue
            break
        else:
            raise AssertionError(f"not a call with literal arguments: {text[match.start() :]!r}")
        assert isinstance(node, ast.Call) and not node.args, ast.unparse(node)
        arguments = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        yield name, arguments


def filled(arguments: dict[str, Any], memory_id: str) -> dict[str, Any]:
    """The example's arguments with its placeholders made real."""
    out = {}
    for key, value in arguments.items():
        if value == PLACEHOLDER_CODE:
            continue
        if value == PLACEHOLDER_ID:
            value = memory_id
        assert not (isinstance(value, str) and ("…" in value or "<" in value)), (
            f"{key}={value!r} is a placeholder this test does not know"
        )
        out[key] = value
    return out


async def listed(client: Client) -> dict[str, Any]:
    return {t.name: t for t in (await client.list_tools()).tools}


def test_every_example_in_a_description_runs(tmp_path: Path) -> None:
    ran: list[str] = []

    async def scenario() -> None:
        async with stdio_client(tmp_path / "m.db", "--tools", "full", "--allow-purge") as client:
            tools = await listed(client)
            for content, metadata in SEEDS:
                await call(client, "remember", content=content, metadata=metadata)
            for name, tool in tools.items():
                for said in descriptions(tool):
                    for target, arguments in example_calls(said, set(tools)):
                        fresh = await call(client, "remember", content=f"Example for {name}")
                        args = filled(arguments, fresh["memory"]["id"])
                        result = await client.call_tool(target, args)
                        shown = f"{target}({args}) from {name}'s description"
                        assert not result.is_error, f"{shown}: {text(result)}"
                        if target == "recall":
                            assert result.structured_content, shown
                            assert result.structured_content["hits"], f"{shown} finds nothing"
                        ran.append(shown)

    asyncio.run(scenario())
    print("\n".join(ran))
    examples = " ".join(ran)
    assert "recall({'query'" in examples and "'where': [" in examples
    assert "forget({'query'" in examples and "forget({'memory_id'" in examples


def test_a_wrong_example_would_be_caught() -> None:
    """The extractor finds the example that issue 19 reported, and refuses prose that only
    looks like a call."""
    wrong = 'narrow with where, e.g. recall(query="trips", where=["year >= 2025"]).'
    assert list(example_calls(wrong, {"recall"})) == [
        ("recall", {"query": "trips", "where": ["year >= 2025"]})
    ]
    try:
        list(example_calls("then call forget(the id) again", {"forget"}))
    except AssertionError:
        pass
    else:
        raise AssertionError("prose that looks like a call must fail the test")


def test_annotations_say_what_each_tool_does(tmp_path: Path) -> None:
    async def scenario() -> dict[str, Any]:
        async with stdio_client(tmp_path / "m.db", "--tools", "full", "--allow-purge") as client:
            return await listed(client)

    tools = asyncio.run(scenario())
    assert list(tools) == list(TOOLS)
    for name, tool in tools.items():
        notes = tool.annotations
        assert notes is not None, name
        assert notes.open_world_hint is False, f"{name} touches only this server's store"
        assert notes.read_only_hint is (ROLE[name] == "read"), name
        assert notes.destructive_hint is (name in DESTRUCTIVE), name
    assert "execute" not in tools["sweep"].input_schema["properties"], "the report only reports"
    assert tools["execute_sweep"].input_schema["required"] == ["plan_id"]


def test_closed_sets_are_enums_and_fields_say_what_they_are(tmp_path: Path) -> None:
    async def scenario() -> dict[str, Any]:
        async with stdio_client(tmp_path / "m.db", "--tools", "full") as client:
            return await listed(client)

    tools = asyncio.run(scenario())
    alternation = re.compile(r"\^\(?\w+(\|\w+)+\)?\$")

    def patterns(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "pattern" and isinstance(value, str):
                    yield value
                else:
                    yield from patterns(value)
        elif isinstance(node, list):
            for item in node:
                yield from patterns(item)

    for name, tool in tools.items():
        for pattern in patterns(tool.input_schema):
            assert not alternation.fullmatch(pattern), f"{name}: {pattern} should be an enum"
    assert tools["recall"].input_schema["properties"]["tags_mode"]["enum"] == ["any", "all"]
    summary = tools["create_episode"].input_schema["properties"]["summary"]
    assert "episode" in summary["description"] and "memory text" not in summary["description"]
    for name in ("search_memories", "delete_memories"):
        said = tools[name].description or ""
        assert said.startswith("Only for the forget-mode prompt") and "use forget" in said
