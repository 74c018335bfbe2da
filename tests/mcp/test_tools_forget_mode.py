"""Forget mode over MCP: the `forget-mode` prompt and its two tools, with the SDK's client."""

from __future__ import annotations

import asyncio

import jsonschema

from lethe.schemas import load
from tests.backends import live_ids, snapshot
from tests.mcp.test_stdio import SEED_000
from tests.mcp_support import call, error, stdio_client

validator = jsonschema.Draft202012Validator(load("forget-response"))


def test_prompt_and_tools_in_dry_run_and_execution(db: str) -> None:

    async def scenario() -> None:
        async with stdio_client(db) as client:
            ids = [(await call(client, "remember", content=t))["memory"]["id"] for t in SEED_000]
            [prompt] = [p for p in (await client.list_prompts()).prompts if p.name == "forget-mode"]
            assert {(a.name, a.required) for a in prompt.arguments or []} == {
                ("instruction", True),
                ("dryRun", False),
                ("namespace", False),
            }
            rendered = await client.get_prompt("forget-mode", {"instruction": "Forget my home"})
            text = rendered.messages[0].content.text  # type: ignore[union-attr]
            assert "FORGET MODE" in text and "Forget my home" in text and "dryRun: true" in text

            before = snapshot(db)
            found = await call(client, "search_memories", query="I live in San Francisco")
            assert found["candidates"][0]["id"] == ids[0] and found["candidates"][0]["deletable"]
            assert "dry run" in await error(client, "delete_memories", ids=[ids[0]])
            for query in ("Bay Area", "California"):
                await call(client, "search_memories", query=query)
            assert "at most 3 searches" in await error(client, "search_memories", query="x")
            assert snapshot(db) == before

            await client.get_prompt(
                "forget-mode", {"instruction": "Forget my home", "dryRun": "false"}
            )
            await call(client, "search_memories", query="I live in San Francisco")
            done = await call(client, "delete_memories", ids=[ids[0], ids[1], "sys_0123456789ab"])
            assert done["deleted_ids"] == [ids[0]]
            assert {r["id"] for r in done["refused"]} == {ids[1], "sys_0123456789ab"}
            validator.validate(done["result"])
            assert done["result"]["deletedIds"] == [ids[0]]
            assert live_ids(db) == set(ids[1:])

    asyncio.run(scenario())
