"""The decay tools over MCP (stdio, the SDK's client)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from lethe import Lethe
from lethe.embed import Embedder

from .conftest import snapshot
from .mcp_support import call, error, stdio_client
from .test_mcp_stdio import live_ids


def aged_store(tmp_path: Path, embedder: Embedder) -> tuple[Path, str]:
    db = tmp_path / "m.db"
    then = datetime.now(UTC) - timedelta(days=200)
    with Lethe.open(db, embedder=embedder, clock=lambda: then) as mem:
        old = mem.remember("User once owned a red bicycle").id
        mem.remember("Never store passwords in notes", layer="caveat")
    return db, old


def test_sweep_reports_and_executes_only_under_auto(tmp_path: Path, embedder: Embedder) -> None:
    db, old = aged_store(tmp_path, embedder)

    async def scenario() -> None:
        before = snapshot(db)
        async with stdio_client(db) as client:
            report = await call(client, "sweep")
            assert report["executed"] is False and report["drop"] == 1
            assert [s["id"] for s in report["samples"]] == [old]
            assert "policy is 'suggest'" in await error(client, "sweep", execute=True)
        assert snapshot(db) == before
        async with stdio_client(db, env={"LETHE_DECAY_POLICY": "auto"}) as client:
            done = await call(client, "sweep", execute=True)
            assert done["executed"] is True and done["dropped_ids"] == [old]
            assert old in {i["memory"]["id"] for i in (await call(client, "list_trash"))["items"]}
        assert old not in live_ids(db) and len(live_ids(db)) == 1

    asyncio.run(scenario())
