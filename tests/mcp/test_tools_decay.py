"""The decay tools over MCP (stdio, the SDK's client)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from tests.backends import live_ids, snapshot
from tests.mcp_support import call, error, stdio_client


def aged_store(db: str, embedder: Embedder) -> str:
    then = datetime.now(UTC) - timedelta(days=200)
    with Lethe.open(db, embedder=embedder, clock=lambda: then) as mem:
        old = mem.remember("User once owned a red bicycle").id
        mem.remember("Never store passwords in notes", layer="caveat")
    return old


@pytest.mark.slow
def test_sweep_reports_and_executes_only_under_auto(db: str, embedder: Embedder) -> None:
    old = aged_store(db, embedder)

    async def scenario() -> None:
        before = snapshot(db)
        async with stdio_client(db) as client:
            report = await call(client, "sweep")
            assert report["executed"] is False and report["drop"] == 1
            assert [s["id"] for s in report["samples"]] == [old]
            assert "policy is 'suggest'" in await error(
                client, "execute_sweep", plan_id="sweep_000000000000"
            )
        assert snapshot(db) == before
        async with stdio_client(db, env={"LETHE_DECAY_POLICY": "auto"}) as client:
            assert "plan_id of a sweep report" in await error(
                client, "execute_sweep", plan_id="sweep_000000000000"
            )
            report = await call(client, "sweep")
            assert report["executed"] is False and live_ids(db) == {old, *live_ids(db)}
            done = await call(client, "execute_sweep", plan_id=report["plan_id"])
            assert done["executed"] is True and done["dropped_ids"] == [old]
            again = await error(client, "execute_sweep", plan_id=report["plan_id"])
            assert "plan_id of a sweep report" in again, "a plan is carried out once"
            assert old in {i["memory"]["id"] for i in (await call(client, "list_trash"))["items"]}
        assert old not in live_ids(db) and len(live_ids(db)) == 1

    asyncio.run(scenario())


def test_consolidate_lists_pairs_and_points_to_forget(db: str) -> None:
    fun = "Today's conversation was fun. I learned a lot from Master."
    enjoyable = "Today's conversation was enjoyable. Master taught me many things."

    async def scenario() -> None:
        async with stdio_client(db) as client:
            a = (await call(client, "remember", content=fun))["memory"]["id"]
            b = (await call(client, "remember", content=enjoyable))["memory"]["id"]
            result = await client.call_tool("consolidate", {"threshold": 0.85})
            out = result.structured_content
            assert out is not None and out["total_pairs"] == 1
            [pair] = out["pairs"]
            assert {pair["a_id"], pair["b_id"]} == {a, b}
            text = result.content[0].text  # type: ignore[union-attr]
            assert f"A: {fun}" in text or f"B: {fun}" in text
            assert text.endswith(
                "If one is redundant, use forget to remove it. "
                "If both have value, consider which perspective to keep."
            )
            assert live_ids(db) == {a, b}, "consolidate never deletes"

    asyncio.run(scenario())


def test_context_and_recall_into_working_memory(db: str) -> None:

    async def scenario() -> None:
        async with stdio_client(db, env={"LETHE_WORKING_BUDGET_TOKENS": "8"}) as client:
            jazz = (await call(client, "remember", content="User likes jazz"))["memory"]["id"]
            for text in ("User owns a red bicycle", "User speaks Portuguese"):
                await call(client, "remember", content=text)
            working = await call(client, "context")
            assert working["budget"] == 8 and working["tokens"] <= 8
            assert jazz not in {i["id"] for i in working["items"]}, "evicted, oldest and cheap"
            assert (await call(client, "get_memory", memory_id=jazz))["memory"]["id"] == jazz
            hit = (await call(client, "recall", query="User likes jazz", k=1))["hits"][0]
            assert hit["memory"]["id"] == jazz
            await call(client, "update_memory", memory_id=jazz, importance=0.9)
            await call(client, "attend", memory_ids=[jazz], agent="user")
            back = await call(client, "context", agent="user")
            assert jazz in {i["id"] for i in back["items"]}
            assert f"[id:{jazz}]" in back["text"]

    asyncio.run(scenario())
