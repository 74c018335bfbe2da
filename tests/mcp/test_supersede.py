"""Corrections and recall over MCP (issue 17): `remember` with `supersedes`, recall's
`min_similarity`, and recall's answer saying its order is the fused score. Driven by the
SDK's client spawning `lethe mcp` over stdio, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

from tests.backends import run_sql, snapshot
from tests.mcp_support import call, error, stdio_client, text

OLD = "Alice works at Shopify as a data engineer"
NEW = "Alice now works at Stripe as a data engineer"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_remember_supersedes_replaces_in_place_and_history_keeps_the_old(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db, name="claude-code") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            schema = tools["remember"].input_schema["properties"]["supersedes"]
            assert schema["pattern"] == "^(mem|sys)_[0-9a-f]{12}$"
            said = tools["remember"].description or ""
            assert "supersedes: id of a memory this corrects" in said
            assert "updated in place" in said

            old = (await call(client, "remember", content=OLD, layer="semantic"))["memory"]["id"]
            result = await client.call_tool("remember", {"content": NEW, "supersedes": old})
            assert not result.is_error, text(result)
            out = result.structured_content
            assert out is not None
            assert (out["memory"]["id"], out["superseded"], out["superseded_version"]) == (
                old,
                old,
                1,
            )
            assert (out["memory"]["content"], out["memory"]["layer"], out["existing"]) == (
                NEW,
                "semantic",
                False,
            )
            answer = text(result)
            assert answer.startswith(f"Superseded {old} in default: {NEW}")
            assert f"- was (kept as version 1): {OLD}" in answer
            assert "Recall now finds only the new text" in answer

            hits = (await call(client, "recall", query="where does Alice work?"))["hits"]
            assert [h["memory"]["content"] for h in hits] == [NEW]
            history = (await call(client, "history", memory_id=old))["versions"]
            assert [(v["version"], v["op"], v["content"]) for v in history] == [
                (2, "supersede", NEW),
                (1, "remember", OLD),
            ]

            before = snapshot(db)
            again = await client.call_tool("remember", {"content": NEW, "supersedes": old})
            assert again.structured_content is not None
            assert again.structured_content["existing"] is True
            assert f"{old} in default already says: {NEW}" in text(again)
            assert snapshot(db) == before

        rows = run_sql(db, "SELECT actor FROM events WHERE op = 'supersede'")
        assert rows == [("claude-code",)], "the actor is the client, never an argument"

    run(scenario())


def test_remember_supersedes_refuses_a_protected_or_foreign_memory(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db) as client:
            caveat = await call(
                client, "remember", content="Never give the dog chocolate", layer="caveat"
            )
            caveat_id = caveat["memory"]["id"]
            work = await call(client, "remember", content=OLD, namespace="work")
            work_id = work["memory"]["id"]
            before = snapshot(db)
            message = await error(
                client,
                "remember",
                content="Chocolate is fine for the dog",
                supersedes=caveat_id,
            )
            assert f"{caveat_id} is protected (caveat-layer" in message
            assert "nothing was changed" in message
            assert f'update_memory(memory_id="{caveat_id}", content=…)' in message
            assert "the user must confirm it" in message
            message = await error(client, "remember", content=NEW, supersedes=work_id)
            assert f"No memory {work_id} in namespace default" in message
            assert "work" not in message, "nothing of the other namespace"
            message = await error(client, "remember", content=NEW, supersedes="mem_nope")
            assert "supersedes" in message
            assert snapshot(db) == before
            moved = await call(
                client, "remember", content=NEW, supersedes=work_id, namespace="work"
            )
            assert moved["superseded"] == work_id

    run(scenario())


def test_recall_says_it_is_ordered_by_the_fused_score_and_takes_a_floor(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "ordered by the fused score" in (tools["recall"].description or "")
            floor_schema = tools["recall"].input_schema["properties"]["min_similarity"]
            assert "cosine" in floor_schema["description"]
            for content in (
                "Alice prefers green tea over coffee",
                "Bob likes espresso in the morning",
                "The quarterly tax report is due in April",
            ):
                await call(client, "remember", content=content)

            result = await client.call_tool("recall", {"query": "what tea does Alice drink?"})
            answer = text(result)
            lines, guidance = answer.split("\n---\n")
            assert "Ordered by the fused score (vector and full-text ranks combined)" in guidance
            assert "not by similarity alone" in guidance
            hits = result.structured_content["hits"]  # type: ignore[index]
            assert len(hits) == 3
            for line, hit in zip(lines.splitlines(), hits, strict=True):
                assert line.startswith(
                    f"- {hit['memory']['id']} (score {hit['score']:.2f}, "
                    f"similarity {hit['similarity']:.2f})"
                )

            floor = (hits[0]["similarity"] + max(h["similarity"] for h in hits[1:])) / 2
            kept = await call(
                client, "recall", query="what tea does Alice drink?", min_similarity=floor
            )
            assert [h["memory"]["id"] for h in kept["hits"]] == [hits[0]["memory"]["id"]]
            assert kept["min_similarity"] == floor
            none = await client.call_tool(
                "recall", {"query": "what tea does Alice drink?", "min_similarity": 1.0}
            )
            assert "No memories matched at similarity >= 1." in text(none)
            for bad in (1.5, -0.1, "high"):
                await error(client, "recall", query="tea", min_similarity=bad)

    run(scenario())


def test_remember_says_what_the_new_fact_may_supersede(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db) as client:
            old = (await call(client, "remember", content=OLD))["memory"]["id"]
            rows = run_sql(db, "SELECT id, content, version FROM memories ORDER BY id")
            result = await client.call_tool("remember", {"content": NEW})
            out = result.structured_content
            assert out is not None and not result.is_error
            new = out["memory"]["id"]
            [likely] = out["likely_supersedes"]
            assert (likely["id"], likely["preview"]) == (old, OLD)
            assert 0 < likely["confidence"] <= 1 and likely["evidence"]
            answer = text(result)
            assert f"- may supersede {old} (confidence {likely['confidence']:.2f}: " in answer
            assert "; ".join(likely["evidence"]) in answer
            assert f"Both are stored. This may supersede {old}: " in answer
            assert f"remember it with supersedes={old}" in answer
            assert f"{new} is then a copy to forget, asking the user" in answer
            assert [
                r
                for r in run_sql(db, "SELECT id, content, version FROM memories ORDER BY id")
                if r[0] != new
            ] == rows, "only named, nothing changed"

            again = await call(client, "remember", content=NEW)
            assert again["existing"] is True and again["likely_supersedes"] == []
            done = await call(client, "remember", content=NEW, supersedes=old)
            assert done["likely_supersedes"] == []
            assert [n["id"] for n in done["near_duplicates"]] == [new]

    run(scenario())
