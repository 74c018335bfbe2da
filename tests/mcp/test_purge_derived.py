"""Over MCP, a purge's question names the summary it rewrites, and yes rewrites it (both
stores, a real client over stdio)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import anyio

from lethe import Lethe
from lethe.embed import Embedder
from tests.backends import both_stores
from tests.mcp_support import call, elicitation, stdio_client


@both_stores
def test_the_purge_question_names_the_summary_it_rewrites(db: str, embedder: Embedder) -> None:
    now = [datetime(2026, 11, 20, 12, 0, tzinfo=UTC)]
    with Lethe.open(db, embedder=embedder, clock=lambda: now[0], decay_policy="auto") as mem:
        secret = mem.remember("User's locker combination is 31-07-44 at the north gym").id
        mem.remember("User tried a pottery class on a rainy afternoon")
        now[0] += timedelta(days=55)
        [summary] = mem.execute_sweep(mem.sweep()).summary_ids
    yes = elicitation("accept")

    async def scenario() -> None:
        async with stdio_client(db, "--allow-purge", elicit=yes) as client:
            done = await call(client, "purge", memory_ids=[secret])
            assert done["deleted_ids"] == [secret]
            found = await call(client, "recall", query="locker combination north gym", k=5)
            assert all("31-07-44" not in h["memory"]["content"] for h in found["hits"])

    anyio.run(scenario)
    [question] = yes.asked  # type: ignore[attr-defined]
    assert f"rewrites {summary}" in question and secret in question
    with Lethe.open(db, embedder=embedder) as mem:
        assert "31-07-44" not in mem.get(summary).content
