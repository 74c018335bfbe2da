"""Issue 19 point 2: errors a model can act on.

Every refusal has one shape: `isError: true`, one line saying what is wrong, then `---` and a
hint naming the tool and the arguments to call next; the structured content says the same
(`error`, `message`, `hint`, `memory_ids`, `suggestions`). A refusal changes nothing in the
store. Driven by the SDK's client against `lethe mcp` processes, on both stores.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from lethe import Lethe
from lethe.embed import Embedder
from lethe.mcp.profiles import TOOLS
from tests.backends import live_ids, run_sql, snapshot
from tests.mcp_support import (
    call,
    elicitation,
    http_client,
    http_server,
    refusal,
    stdio_client,
    text,
)

FULL = ("--tools", "full")
HOME = "User lives in San Francisco"
WINE = "User loves California wine"
CAVEAT = "Never give the dog chocolate"
PINNED = "User is allergic to penicillin"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def other(digit: str) -> str:
    return "0" if digit != "0" else "1"


def typo(memory_id: str, *positions: int) -> str:
    """`memory_id` with the hex digits at `positions` (0-11) changed."""
    chars = list(memory_id)
    for p in positions:
        chars[4 + p] = other(chars[4 + p])
    return "".join(chars)


async def refused(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must refuse; check the shape and return its structured content, with
    the text as `text`."""
    result = await client.call_tool(tool, arguments)
    shown = text(result)
    assert result.is_error, shown
    message, sep, hint = shown.partition("\n---\n")
    assert sep and "\n" not in message and "\n" not in hint, shown
    assert "Error executing tool" not in shown and "pydantic" not in shown, shown
    out = refusal(result)
    assert out["message"] == message and out["hint"] == hint, out
    assert "(" in hint or any(t in hint for t in TOOLS), f"the hint names a tool: {hint}"
    return {**out, "text": shown}


async def seeded(client: Client) -> dict[str, str]:
    ids = {}
    for name, content, extra in (
        ("home", HOME, {}),
        ("wine", WINE, {}),
        ("caveat", CAVEAT, {"layer": "caveat"}),
        ("pinned", PINNED, {"importance": 0.95}),
    ):
        ids[name] = (await call(client, "remember", content=content, **extra))["memory"]["id"]
    return ids


def test_an_unknown_id_is_refused_by_every_tool_without_unrelated_suggestions(db: str) -> None:
    """On a store whose ids share nothing with the one given but `mem_`, no tool suggests
    any (they used to suggest five unrelated ids); each names recall as the way to find one."""

    async def scenario() -> None:
        async with stdio_client(db, *FULL) as client:
            ids = await seeded(client)
            unknown = "mem_" + "".join(other(c) for c in ids["home"][4:])
            before = snapshot(db)
            calls: list[tuple[str, dict[str, Any], str]] = [
                ("get_memory", {"memory_id": unknown}, "memory_id"),
                ("update_memory", {"memory_id": unknown, "tags": ["x"]}, "memory_id"),
                ("history", {"memory_id": unknown}, "memory_id"),
                ("forget", {"memory_id": unknown}, "memory_id"),
                ("forget", {"memory_ids": [unknown]}, "memory_ids"),
                ("link_memories", {"a": ids["home"], "b": unknown}, "b"),
                ("create_episode", {"summary": "Trip", "memory_ids": [unknown]}, "memory_ids"),
                ("attend", {"memory_ids": [ids["wine"], unknown]}, "memory_ids"),
                ("remember", {"content": "User moved", "supersedes": unknown}, "supersedes"),
            ]
            for tool, args, _ in calls:
                out = await refused(client, tool, **args)
                assert out["error"] == "not_found", (tool, out)
                assert out["message"] == f"No memory {unknown} in namespace default.", out
                assert out["memory_ids"] == [unknown] and out["suggestions"] == [], out
                assert "recall(query=" in out["hint"], out
                assert not any(i in out["text"] for i in ids.values()), out
            restore = await refused(client, "restore", memory_id=unknown)
            assert restore["error"] == "not_found" and "list_trash()" in restore["hint"]
            episode = await refused(client, "get_episode", episode_id="ep_0123456789ab")
            assert episode["error"] == "not_found" and "create_episode" in episode["hint"]
            assert snapshot(db) == before

    run(scenario())


def test_a_one_digit_typo_suggests_the_id_with_a_preview(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db, *FULL) as client:
            ids = await seeded(client)
            home = ids["home"]
            before = snapshot(db)
            for tool, arg, args in (
                ("get_memory", "memory_id", {}),
                ("history", "memory_id", {}),
                ("forget", "memory_id", {}),
                ("update_memory", "memory_id", {"tags": ["x"]}),
            ):
                near = typo(home, 11)
                out = await refused(client, tool, **{arg: near}, **args)
                assert out["error"] == "not_found" and out["memory_ids"] == [near]
                assert out["suggestions"] == [{"id": home, "preview": HOME}], out
                assert f'{tool}({arg}="{home}")' in out["hint"], out
                assert f'{home} ("{HOME}")' in out["hint"], out
            # Two edits still suggest it: a swap, two wrong digits.
            swapped = home[:4] + home[5] + home[4] + home[6:]
            if swapped != home:
                out = await refused(client, "get_memory", memory_id=swapped)
                assert [s["id"] for s in out["suggestions"]] == [home]
            out = await refused(client, "get_memory", memory_id=typo(home, 0, 6))
            assert [s["id"] for s in out["suggestions"]] == [home]
            # Three do not, nor six digits in common at the start.
            for far in (typo(home, 0, 5, 11), typo(home, 6, 7, 8, 9, 10, 11)):
                out = await refused(client, "get_memory", memory_id=far)
                assert out["suggestions"] == [] and home not in out["text"], out
            many = await refused(client, "forget", memory_ids=[typo(home, 3), typo(home, 9)])
            assert [s["id"] for s in many["suggestions"]] == [home, home]
            assert f'forget(memory_ids=["{home}"])' in many["hint"]
            assert snapshot(db) == before

    run(scenario())


def test_an_id_in_the_trash_says_so_and_names_restore(db: str) -> None:
    """forget of an id already in the trash used to answer "Memory not found … did you
    mean …?" with isError false."""

    async def scenario() -> None:
        async with stdio_client(db, *FULL) as client:
            ids = await seeded(client)
            wine = ids["wine"]
            for _ in range(2):
                await call(client, "forget", memory_id=wine)
            assert wine not in live_ids(db)
            before = snapshot(db)
            again = await refused(client, "forget", memory_id=wine)
            assert again["error"] == "in_trash" and again["memory_ids"] == [wine]
            said = again["message"]
            assert said.startswith(f"{wine} is in the trash (forgotten by mcp on "), said
            assert "already forgotten: nothing to do" in again["hint"]
            assert f'restore(memory_id="{wine}")' in again["hint"]
            for tool, args in (
                ("get_memory", {"memory_id": wine}),
                ("update_memory", {"memory_id": wine, "content": "User loves wine"}),
                ("history", {"memory_id": wine}),
                ("link_memories", {"a": ids["home"], "b": wine}),
                ("attend", {"memory_ids": [wine]}),
                ("create_episode", {"summary": "Wine", "memory_ids": [wine]}),
            ):
                out = await refused(client, tool, **args)
                assert out["error"] == "in_trash", (tool, out)
                assert f'restore(memory_id="{wine}")' in out["hint"], out
                assert f"then call {tool} again" in out["hint"], out
            live = await refused(client, "restore", memory_id=ids["home"])
            assert live["error"] == "not_in_trash"
            assert f'get_memory(memory_id="{ids["home"]}")' in live["hint"]
            assert snapshot(db) == before
            back = await call(client, "restore", memory_id=wine)
            assert back["memory"]["id"] == wine

    run(scenario())


def test_a_purged_id_says_it_cannot_come_back(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db, "--allow-purge", *FULL) as client:
            wine = (await call(client, "remember", content=WINE))["memory"]["id"]
            for _ in range(2):
                await call(client, "purge", memory_ids=[wine])
            before = snapshot(db)
            out = await refused(client, "get_memory", memory_id=wine)
            assert out["error"] == "purged" and "erased for good" in out["message"]
            assert "cannot be restored" in out["hint"] and "remember(content=…)" in out["hint"]
            assert (await refused(client, "restore", memory_id=wine))["error"] == "purged"
            assert (await refused(client, "purge", memory_ids=[wine]))["error"] == "purged"
            assert snapshot(db) == before

    run(scenario())


def test_a_protected_memory_is_refused_with_its_reason_and_the_way_out(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db, *FULL) as client:
            ids = await seeded(client)
            caveat, pinned = ids["caveat"], ids["pinned"]
            before = snapshot(db)
            out = await refused(client, "forget", memory_id=caveat)
            assert out["error"] == "protected" and out["memory_ids"] == [caveat]
            assert "caveat-layer memories are protected" in out["message"]
            assert f'update_memory(memory_id="{caveat}", layer="semantic")' in out["hint"]
            assert f'then forget(memory_id="{caveat}")' in out["hint"]
            out = await refused(client, "forget", memory_id=pinned)
            assert "pinned (importance 0.95" in out["message"]
            assert f'update_memory(memory_id="{pinned}", importance=0.5)' in out["hint"]
            both = await refused(client, "forget", memory_ids=[caveat, pinned])
            assert both["memory_ids"] == [caveat, pinned] and both["error"] == "protected"
            assert snapshot(db) == before
            # With one forgettable id among them, that one is pending and the rest said.
            mixed = await call(client, "forget", memory_ids=[caveat, ids["wine"]])
            assert mixed["status"] == "pending" and mixed["pending_ids"] == [ids["wine"]]
            assert [r["id"] for r in mixed["refused"]] == [caveat]

    run(scenario())


def test_a_pending_confirmation_names_the_call_that_confirms_it(db: str) -> None:
    """Pending is not an error (a model that reads an error may simply call again, and the
    call again is the confirmation): its guidance names the exact call to make once the
    user agrees."""

    async def scenario() -> None:
        async with stdio_client(db, *FULL) as client:
            ids = await seeded(client)
            wine = ids["wine"]
            result = await client.call_tool("forget", {"memory_id": wine})
            assert not result.is_error
            guidance = text(result).split("\n---\n")[1]
            assert f'If they agree, call forget(memory_id="{wine}") within 300 s' in guidance
            near = typo(ids["home"], 2)
            result = await client.call_tool("forget", {"memory_ids": [wine, near]})
            shown = text(result)
            assert not result.is_error and f'did you mean {ids["home"]} ("{HOME}")?' in shown
            assert shown.count(near) == 1, "the missing id is said once, with its suggestion"

    run(scenario())


def test_schema_errors_are_one_line_naming_the_argument_and_its_form(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db, *FULL) as client:
            await call(client, "remember", content=HOME)
            before = snapshot(db)
            cases: list[tuple[str, dict[str, Any], str, str]] = [
                (
                    "get_memory",
                    {"memory_id": "mem_zz"},
                    "memory_id must be a memory id: mem_ and 12 hex digits (e.g. "
                    'mem_0123456789ab) (got "mem_zz")',
                    "with memory_id corrected",
                ),
                (
                    "get_memory",
                    {},
                    "memory_id is required: a memory id: mem_ and 12 hex digits",
                    "with memory_id given",
                ),
                (
                    "remember",
                    {"content": 42},
                    "content must be text of 1 to 32768 characters (got 42)",
                    "corrected",
                ),
                (
                    "remember",
                    {"content": "x", "bogus": 1},
                    "bogus is not an argument of remember",
                    "without bogus",
                ),
                (
                    "remember",
                    {"content": "x", "layer": "nope"},
                    'layer must be one of episodic, semantic, learning, caveat, goal (got "nope")',
                    "with layer corrected",
                ),
                (
                    "remember",
                    {"content": "x", "importance": 2},
                    "importance must be a number from 0 to 1 (got 2)",
                    "corrected",
                ),
                (
                    "recall",
                    {"query": "x", "k": 0},
                    "k must be an integer from 1 to 100 (got 0)",
                    "corrected",
                ),
                (
                    "recall",
                    {"query": "x", "tags_mode": "some"},
                    'tags_mode must be one of any, all (got "some")',
                    "corrected",
                ),
                (
                    "forget",
                    {"memory_ids": ["mem_0123456789ab", "nope"]},
                    "memory_ids[1] must be a memory id: mem_ and 12 hex digits",
                    "with memory_ids corrected",
                ),
                (
                    "forget",
                    {"memory_ids": []},
                    "memory_ids must be a list of 1 to 100 items",
                    "corrected",
                ),
                (
                    "audit_log",
                    {"after_seq": 2**63},
                    "after_seq must be an integer from 0 to",
                    "corrected",
                ),
                (
                    "remember",
                    {"content": "a\x00b"},
                    "content contains a NUL character",
                    "content as text",
                ),
            ]
            for tool, args, says, how in cases:
                out = await refused(client, tool, **args)
                assert out["error"] == "invalid_argument", (tool, args, out)
                assert out["message"].startswith(f"{tool}: ") or "NUL" in says, out
                assert says in out["message"], (says, out["message"])
                assert how in out["hint"] and f"Call {tool} again" in out["hint"], out
                assert (
                    "errors.pydantic.dev" not in out["text"]
                    and "validation error" not in out["text"]
                )
            unknown = await refused(client, "remember", content="x", bogus=1)
            assert "remember takes: content, " in unknown["hint"]
            assert snapshot(db) == before

    run(scenario())


@pytest.mark.slow
def test_delete_memories_outside_forget_mode_points_to_forget(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db, *FULL) as client:
            ids = await seeded(client)
            before = snapshot(db)
            out = await refused(client, "delete_memories", ids=[ids["wine"]])
            assert out["error"] == "forget_mode" and "works only in forget mode" in out["message"]
            assert f'forget(memory_ids=["{ids["wine"]}"])' in out["hint"]
            assert "dryRun false" not in out["hint"]
            await client.get_prompt("forget-mode", {"instruction": "Forget the wine"})
            out = await refused(client, "delete_memories", ids=[ids["wine"]])
            assert "dry run" in out["message"] and "forget-mode prompt again" in out["hint"]
            assert f'forget(memory_ids=["{ids["wine"]}"])' in out["hint"]
        async with stdio_client(db) as client:  # the core profile: forget mode is not shown
            out = await refused(client, "delete_memories", ids=[ids["wine"]])
            assert "forget mode" in out["message"] and "call forget" in out["hint"]
        assert snapshot(db) == before

    run(scenario())


def test_other_refusals_have_the_shape_too(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db, *FULL) as client:
            ids = await seeded(client)
            before = snapshot(db)
            both = await refused(client, "forget", memory_id=ids["wine"], query="wine")
            assert 'forget(query="wine")' in both["hint"]
            nothing = await refused(client, "forget")
            assert "forget(query=…)" in nothing["hint"]
            where = await refused(client, "recall", query="x", where=["year >= 2025"])
            assert "unknown filter field 'year'" in where["message"]
            assert "@metadata.year" in where["hint"] and "call recall again" in where["hint"]
            sweep = await refused(client, "execute_sweep", plan_id="sweep_0123456789ab")
            assert "policy is 'suggest'" in sweep["message"]
            assert snapshot(db) == before

    run(scenario())


TOKENS = {"reader": "reader-token-0123456789", "writer": "writer-token-0123456789"}
TOKEN_FILE = """
[[token]]
name = "reader"
token = "{reader}"
namespaces = ["default", "work"]
role = "read"

[[token]]
name = "writer"
token = "{writer}"
namespaces = ["default"]
role = "write"
"""


def test_a_role_or_namespace_not_allowed_says_what_is_needed(db: str, tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(TOKEN_FILE.format(**TOKENS), encoding="utf-8")

    async def scenario(url: str) -> None:
        async with http_client(url, TOKENS["writer"]) as writer:
            ids = await seeded(writer)
            before = snapshot(db)
            out = await refused(writer, "forget", memory_id=ids["wine"])
            assert out["error"] == "role"
            assert "role is 'write'; forget needs 'forget'" in out["message"]
            out = await refused(writer, "update_memory", memory_id=ids["pinned"], importance=0.1)
            assert out["error"] == "role" and "needs 'forget'" in out["message"]
            assert "Nothing was changed" in out["message"] and out["memory_ids"] == [ids["pinned"]]
            out = await refused(writer, "get_memory", memory_id=ids["wine"], namespace="work")
            assert out["error"] == "namespace" and "namespace 'work'" in out["message"]
            assert "namespaces are: default" in out["hint"]
        async with http_client(url, TOKENS["reader"]) as reader:
            out = await refused(reader, "remember", content="User likes jazz")
            assert out["error"] == "role" and "remember needs 'write'" in out["message"]
        assert snapshot(db) == before

    with http_server(db, "--tokens", str(tokens), "--tools", "full") as url:
        run(scenario(url))


def audit(db: str, op: str) -> list[dict[str, Any]]:
    rows = run_sql(db, "SELECT memory_id, details FROM events WHERE op = ? ORDER BY seq", (op,))
    return [
        {"memory_id": r[0], "details": r[1] if isinstance(r[1], dict) else json.loads(r[1])}
        for r in rows
    ]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_an_accept_without_an_answer_is_a_decline_on_the_record(db: str, mode: str) -> None:
    """A client that accepts the question with no content: no yes, so nothing is deleted or
    changed, the answer says so (no error naming an internal resolver), and the refusal is
    audited as `forget_declined` with the answer `accept_without_content`."""
    callback = elicitation("accept", None)

    async def scenario() -> None:
        async with stdio_client(db, *FULL) as client:
            ids = await seeded(client)
        rows = snapshot(db)["memories"]
        async with stdio_client(db, *FULL, elicit=callback, mode=mode) as client:
            result = await client.call_tool("forget", {"memory_id": ids["wine"]})
            shown = text(result)
            assert not result.is_error, shown
            assert "Resolver" not in shown and "lethe.mcp" not in shown, shown
            out = result.structured_content
            assert out is not None and out["status"] == "declined"
            assert "accepted without an answer" in out["message"], out
            answer = await call(client, "update_memory", memory_id=ids["pinned"], importance=0.1)
            assert answer["status"] == "declined" and "without an answer" in answer["message"]
        assert snapshot(db)["memories"] == rows
        declined = audit(db, "forget_declined")
        assert [(d["memory_id"], d["details"]["operation"]) for d in declined] == [
            (ids["wine"], "forget"),
            (ids["pinned"], "update"),
        ]
        assert {d["details"]["answer"] for d in declined} == {"accept_without_content"}

    run(scenario())
    assert len(callback.asked) == 2


def test_a_sweep_accepted_without_an_answer_is_declined(db: str, embedder: Embedder) -> None:
    from datetime import UTC, datetime, timedelta

    then = datetime.now(UTC) - timedelta(days=200)
    with Lethe.open(db, embedder=embedder, clock=lambda: then) as mem:
        old = mem.remember("User once owned a red bicycle").id
    callback = elicitation("accept", None)

    async def scenario() -> None:
        env = {"LETHE_DECAY_POLICY": "auto"}
        async with stdio_client(db, *FULL, elicit=callback, env=env) as client:
            report = await call(client, "sweep")
            done = await call(client, "execute_sweep", plan_id=report["plan_id"])
            assert done["executed"] is False and "without an answer" in done["message"]
        assert old in live_ids(db)
        [declined] = audit(db, "forget_declined")
        assert declined["details"]["operation"] == "sweep"
        assert declined["details"]["answer"] == "accept_without_content"

    run(scenario())
    assert len(callback.asked) == 1
