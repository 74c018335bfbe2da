"""Which tools a client is shown (issue 19): `lethe mcp --tools core|full|a,b,c`, the size of
what a model is given, the caller's role over HTTP, and forget mode's tools joining the list
once the `forget-mode` prompt is requested. Every server here is a real `lethe mcp` process."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp import Client

from lethe.mcp.profiles import (
    CORE,
    CORE_BUDGET,
    FORGET_MODE,
    ROLE,
    TOOLS,
    model_visible,
    visible_size,
)
from tests.mcp.test_handshake import INITIALIZED, exchange, finish, line, read, request, spawn
from tests.mcp.test_http import TOKEN_FILE, TOKENS
from tests.mcp_support import LETHE, error, http_client, http_server, stdio_client, stdio_params

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "mcp.md"
WRITE_OR_MORE = {name for name, role in ROLE.items() if role != "read"}


def listed_raw(db: Path, *args: str) -> list[dict[str, Any]]:
    """The `tools` of a `tools/list` answer exactly as `lethe mcp` sends it over stdio."""
    proc = spawn(db, LETHE, "mcp", "--db", str(db), *args)
    try:
        exchange(proc, request("2025-06-18"))
        read(proc)
        exchange(proc, INITIALIZED, line({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}))
        answer = read(proc)
    finally:
        finish(proc)
    tools: list[dict[str, Any]] = answer["result"]["tools"]
    return tools


@pytest.mark.slow
def test_the_default_profile_is_core_and_fits_its_budget(tmp_path: Path) -> None:
    """`lethe mcp` with no --tools lists exactly the core tools, and what a model is given of
    them (names, titles, descriptions, input schemas as compact JSON) fits `CORE_BUDGET`."""
    tools = listed_raw(tmp_path / "m.db")
    assert [t["name"] for t in tools] == list(CORE)
    size = visible_size(tools)
    print(f"core profile: {len(tools)} tools, {size} characters")
    for tool in tools:
        print(f"  {tool['name']}: {visible_size([tool]) - 2}")
    assert size <= CORE_BUDGET, (
        f"the core tools take {size} characters of every conversation, over the budget of "
        f"{CORE_BUDGET}: shorten a description or a schema (see lethe.mcp.profiles)"
    )
    assert listed_raw(tmp_path / "m.db", "--tools", "core") == tools


def test_the_measure_is_what_tools_list_sends() -> None:
    """The size counts the keys a model is given, in the compact JSON of the wire form."""
    tool = {
        "name": "n",
        "title": "T",
        "description": "d\né",
        "inputSchema": {"type": "object"},
        "outputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True},
    }
    assert model_visible(tool) == {
        "name": "n",
        "title": "T",
        "description": "d\né",
        "inputSchema": {"type": "object"},
    }
    expected = '[{"name":"n","title":"T","description":"d\\né","inputSchema":{"type":"object"}}]'
    assert visible_size([tool]) == len(expected)
    assert visible_size([{**tool, "title": None}]) == len(expected) - len(',"title":"T"')


@pytest.mark.slow
def test_docs_give_the_measured_sizes(tmp_path: Path) -> None:
    """docs/mcp.md states each profile's size as measured here; a change to a description
    or a schema is not done until the docs say its new size."""
    core = visible_size(listed_raw(tmp_path / "m.db"))
    full = listed_raw(tmp_path / "m.db", "--tools", "full", "--allow-purge")
    text = DOCS.read_text(encoding="utf-8")
    said = dict(re.findall(r"^\| `(core|full)` \|[^|]*\| (\d[\d,]*) \|", text, re.M))
    assert said == {"core": f"{core:,}", "full": f"{visible_size(full):,}"}, (
        f"docs/mcp.md's profile table should say core {core:,} and full "
        f"{visible_size(full):,} (with --allow-purge)"
    )


@pytest.mark.slow
def test_full_lists_every_tool(tmp_path: Path) -> None:
    full = [t["name"] for t in listed_raw(tmp_path / "m.db", "--tools", "full")]
    assert full == [n for n in TOOLS if n != "purge"], "purge only with --allow-purge"
    with_purge = listed_raw(tmp_path / "m.db", "--tools", "full", "--allow-purge")
    assert [t["name"] for t in with_purge] == list(TOOLS)
    print(f"full profile: {len(with_purge)} tools, {visible_size(with_purge)} characters")


@pytest.mark.slow
def test_allow_purge_offers_purge_under_the_default_profile_too(tmp_path: Path) -> None:
    core = [t["name"] for t in listed_raw(tmp_path / "m.db")]
    with_purge = [t["name"] for t in listed_raw(tmp_path / "m.db", "--allow-purge")]
    assert "purge" not in core and with_purge == [*core, "purge"]


def test_lethe_mcp_help_shows_the_servers_options() -> None:
    """`lethe-mcp` is `lethe mcp`: its --help is the server's, not lethe's command list."""
    done = subprocess.run(
        [str(Path(LETHE).with_name("lethe-mcp")), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    for option in ("--http", "--tools", "--tokens", "--allow-purge"):
        assert option in done.stdout
    assert "remember" not in done.stdout.split("Options")[0]


def test_chosen_tools_are_exactly_those_and_others_are_refused(tmp_path: Path) -> None:
    db = tmp_path / "m.db"

    async def scenario() -> None:
        async with stdio_client(db, "--tools", "recall, get_memory") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == ["recall", "get_memory"]
            refused = await error(client, "remember", content="User likes jazz")
            assert "remember is not offered by this server" in refused
            assert "--tools" in refused

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("tools", "says"),
    [
        ("recall,frobnicate", "unknown tool(s): frobnicate"),
        (" , ", "no tool named"),
        ("purge", "purge is offered only with --allow-purge"),
    ],
)
def test_a_bad_tools_option_is_a_usage_error_naming_the_valid_tools(
    tmp_path: Path, tools: str, says: str
) -> None:
    done = subprocess.run(
        [LETHE, "mcp", "--tools", tools, "--db", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: Invalid value for --tools: "), done.stderr
    assert says in done.stderr
    assert done.stderr.count("\n") == 1, done.stderr
    if "unknown" in says:
        assert "tools: remember, recall, get_memory" in done.stderr
    assert not (tmp_path / "m.db").exists()


def test_each_token_lists_only_what_its_role_may_call(tmp_path: Path) -> None:
    """Over HTTP a read token is shown no tool that writes or forgets, and calling one is
    refused by role; a forget token is shown the whole profile."""
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(TOKEN_FILE.format(**TOKENS), encoding="utf-8")

    async def scenario(url: str) -> None:
        async with http_client(url, TOKENS["reader"]) as reader:
            shown = {t.name for t in (await reader.list_tools()).tools}
            assert shown == {n for n in TOOLS if ROLE[n] == "read"}
            assert not shown & WRITE_OR_MORE
            refused = await error(reader, "remember", content="User likes jazz")
            assert "role is 'read'" in refused and "needs 'write'" in refused
            refused = await error(reader, "forget", query="jazz")
            assert "role is 'read'" in refused and "needs 'forget'" in refused
        async with http_client(url, TOKENS["owner"]) as owner:
            shown = {t.name for t in (await owner.list_tools()).tools}
            assert shown == set(TOOLS) - {"purge"}

    with http_server(tmp_path / "m.db", "--tokens", str(tokens), "--tools", "full") as url:
        asyncio.run(scenario(url))


def test_a_read_token_lists_the_read_part_of_core(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(TOKEN_FILE.format(**TOKENS), encoding="utf-8")

    async def scenario(url: str) -> None:
        async with http_client(url, TOKENS["reader"]) as reader:
            shown = [t.name for t in (await reader.list_tools()).tools]
            assert shown == ["recall", "get_memory", "history"]

    with http_server(tmp_path / "m.db", "--tokens", str(tokens), "--tools", "core") as url:
        asyncio.run(scenario(url))


@pytest.mark.slow
def test_forget_mode_tools_join_the_list_with_the_prompt(tmp_path: Path) -> None:
    """Under core, search_memories and delete_memories are neither listed nor callable until
    this session requests the forget-mode prompt; then the server says its tools changed and
    lists them. Under full they are listed from the start."""
    notes: list[str] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ServerNotification):
            notes.append(message.method)

    async def scenario() -> None:
        params = stdio_params(tmp_path / "m.db", "--tools", "core")
        async with Client(params, mode="legacy", message_handler=on_message) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert not names & set(FORGET_MODE)
            refused = await error(client, "search_memories", query="red bicycle")
            assert "forget mode" in refused and "forget-mode prompt" in refused
            await client.get_prompt("forget-mode", {"instruction": "Forget my red bicycle"})
            for _ in range(50):
                if "notifications/tools/list_changed" in notes:
                    break
                await asyncio.sleep(0.1)
            assert "notifications/tools/list_changed" in notes
            names = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
            assert names == [*CORE, *FORGET_MODE]
            found = await client.call_tool("search_memories", {"query": "red bicycle"})
            assert not found.is_error
        async with stdio_client(tmp_path / "m.db", "--tools", "full") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert set(FORGET_MODE) <= names

    asyncio.run(scenario())


def test_the_server_declares_that_its_tool_list_changes(tmp_path: Path) -> None:
    proc = spawn(tmp_path / "m.db")
    try:
        exchange(proc, request("2025-06-18"))
        answer = read(proc)
    finally:
        finish(proc)
    assert answer["result"]["capabilities"]["tools"] == {"listChanged": True}
    assert json.dumps(answer)  # the early answer, which the SDK's must equal (test_mcp_handshake)
