"""The MCP server over stdio, driven by the SDK's own client spawning `lethe mcp`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.backends import both_stores, live_ids, run_sql, snapshot
from tests.mcp_support import call, elicitation, error, refusal, stdio_client, text

SEED_000 = [
    "User lives in San Francisco",
    "User visited San Francisco last year",
    "User loves California wine",
    "The Golden Gate Bridge is in the Bay Area",
]
READ_ONLY = {
    "recall",
    "get_memory",
    "get_episode",
    "history",
    "list_trash",
    "audit_log",
    "context",
    "search_memories",
    "sweep",
}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.mark.slow
def test_tools_list_annotations_and_schemas(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with stdio_client(tmp_path / "m.db") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == READ_ONLY | {
            "remember",
            "update_memory",
            "link_memories",
            "create_episode",
            "forget",
            "restore",
            "execute_sweep",
            "consolidate",
            "search_memories",
            "delete_memories",
            "attend",
        }, "purge is off unless --allow-purge"
        for name, tool in tools.items():
            assert tool.annotations is not None and tool.description
            assert tool.output_schema is not None, name
            assert tool.input_schema.get("additionalProperties") is False, name
            assert tool.annotations.read_only_hint is (name in READ_ONLY), name
        assert tools["forget"].annotations.destructive_hint is True  # type: ignore[union-attr]
        assert "Please confirm" in (tools["forget"].description or "")
        update = " ".join((tools["update_memory"].description or "").split())
        assert "Old versions stay in history until it is purged." in update
        memory_id = tools["get_memory"].input_schema["properties"]["memory_id"]
        assert memory_id["pattern"] == "^(mem|sys)_[0-9a-f]{12}$"
        assert tools["remember"].input_schema["properties"]["content"]["maxLength"] == 32768

        async with stdio_client(tmp_path / "m.db", "--allow-purge") as client:
            names = {t.name: t for t in (await client.list_tools()).tools}
        assert names["purge"].annotations.destructive_hint is True  # type: ignore[union-attr]

    run(scenario())


@both_stores
def test_seed_000_round_trip_and_audit(db: str) -> None:
    """remember → recall → forget by query (nothing deleted) → forget by id (pending) → same
    id again (deleted) → list_trash → restore → audit_log shows every step."""

    async def scenario() -> None:
        async with stdio_client(db) as client:
            ids = [(await call(client, "remember", content=t))["memory"]["id"] for t in SEED_000]
            hits = (await call(client, "recall", query="where does the user live?", k=2))["hits"]
            assert hits[0]["memory"]["id"] == ids[0] and 0 < hits[0]["similarity"] <= 1

            found = await client.call_tool("forget", {"query": "San Francisco"})
            assert found.structured_content["status"] == "candidates"  # type: ignore[index]
            top = [c["id"] for c in found.structured_content["candidates"][:2]]  # type: ignore[index]
            assert top == ids[:2]
            assert "---\nPick the exact id" in text(found)
            assert live_ids(db) == set(ids)

            first = await call(client, "forget", memory_id=ids[0])
            assert first["status"] == "pending" and first["pending_ids"] == [ids[0]]
            assert live_ids(db) == set(ids)
            second = await call(client, "forget", memory_id=ids[0])
            assert second["status"] == "executed" and second["deleted_ids"] == [ids[0]]
            assert live_ids(db) == set(ids[1:])
            for t, memory_id in zip(SEED_000[1:], ids[1:], strict=True):
                assert (await call(client, "recall", query=t, k=1))["hits"][0]["memory"][
                    "id"
                ] == memory_id

            trash = await call(client, "list_trash")
            assert [i["memory"]["id"] for i in trash["items"]] == [ids[0]]
            restored = await call(client, "restore", memory_id=ids[0])
            assert restored["memory"]["id"] == ids[0] and live_ids(db) == set(ids)

            events = (await call(client, "audit_log"))["events"]
            ops = [(e["op"], e["memory_id"]) for e in events]
            assert ops == [("remember", i) for i in ids] + [
                ("confirmation_requested", ids[0]),
                ("forget", ids[0]),
                ("restore", ids[0]),
            ]
            requested, forget_event = events[len(ids)], events[len(ids) + 1]
            assert requested["details"]["via"] == "two_call"
            assert requested["details"]["session"] == forget_event["details"]["session"]
            assert forget_event["details"]["session"].startswith("mcp-")
            assert forget_event["details"]["requests"] == 2

    run(scenario())


@pytest.mark.parametrize(
    ("action", "confirm", "deleted"),
    [
        ("accept", True, True),
        ("accept", False, False),
        ("decline", True, False),
        ("cancel", True, False),
    ],
    ids=["accept", "accept-but-no", "decline", "cancel"],
)
def test_elicitation_only_accept_deletes(
    db: str, action: str, confirm: bool, deleted: bool
) -> None:
    callback = elicitation(action, confirm)

    async def scenario() -> dict[str, Any]:
        async with stdio_client(db, elicit=callback) as client:
            home = (await call(client, "remember", content=SEED_000[0]))["memory"]["id"]
            other = (await call(client, "remember", content=SEED_000[2]))["memory"]["id"]
            before = snapshot(db)
            answer = await call(client, "forget", memory_id=home)
            if not deleted:
                after = snapshot(db)
                assert after["memories"] == before["memories"]
            assert live_ids(db) == ({other} if deleted else {home, other})
            answer["events"] = (await call(client, "audit_log"))["events"]
            answer["home"] = home
            return answer

    answer = run(scenario())
    assert callback.asked == [f"Forget '{SEED_000[0]}' ({answer['home']})?"]
    ops = [e["op"] for e in answer["events"]]
    if deleted:
        assert answer["status"] == "executed" and ops[-1] == "forget"
    else:
        assert answer["status"] == "declined" and answer["deleted_ids"] == []
        assert ops[-1] == "forget_declined"
        assert answer["events"][-1]["details"]["answer"] == (
            "cancel" if action == "cancel" else "decline"
        )


def test_elicitation_for_several_ids_and_never_for_a_malformed_call(db: str) -> None:
    callback = elicitation("accept")

    async def scenario() -> tuple[list[str], dict[str, Any]]:
        async with stdio_client(db, elicit=callback) as client:
            ids = [(await call(client, "remember", content=t))["memory"]["id"] for t in SEED_000]
            before = snapshot(db)
            message = await error(client, "forget", memory_id=ids[0], query="San Francisco")
            assert "not both" in message
            assert callback.asked == [], "a call that is refused asks the human nothing"
            assert snapshot(db) == before
            answer = await call(client, "forget", memory_ids=ids[:2])
            return ids, answer

    ids, answer = run(scenario())
    assert callback.asked == [f"Forget '{SEED_000[0]}' ({ids[0]}), '{SEED_000[1]}' ({ids[1]})?"]
    assert answer["status"] == "executed" and sorted(answer["deleted_ids"]) == sorted(ids[:2])
    assert live_ids(db) == set(ids[2:])


def test_forget_by_query_with_filters_lists_only_matching_candidates(db: str) -> None:

    async def scenario() -> None:
        async with stdio_client(db) as client:
            notes = await call(
                client, "remember", content=SEED_000[0], metadata={"source": "notes.md"}
            )
            chat = await call(client, "remember", content=SEED_000[1], metadata={"source": "chat"})
            before = snapshot(db)
            everything = await call(client, "forget", query="San Francisco")
            scoped = await call(
                client, "forget", query="San Francisco", filters={"source": "notes.md"}
            )
            assert snapshot(db) == before, "a query only lists candidates"
            found = {c["id"] for c in everything["candidates"]}
            assert {notes["memory"]["id"], chat["memory"]["id"]} <= found
            assert [c["id"] for c in scoped["candidates"]] == [notes["memory"]["id"]]
            assert scoped["status"] == "candidates" and scoped["deleted_ids"] == []
            # A request in words: the planner says which memory it means, and how sure it is.
            meant = await call(client, "forget", query="forget that I live in San Francisco")
            [first, *rest] = meant["candidates"]
            assert first["id"] == notes["memory"]["id"] and first["action"] == "delete"
            assert first["certainty"] >= 0.9 and first["evidence"]
            assert all(c["action"] == "skip" for c in rest)
            assert snapshot(db) == before, "still nothing deleted: execution is by id"

    run(scenario())


def test_a_compound_memory_is_listed_as_an_edit_to_apply_with_update(db: str) -> None:
    """The memory holds the fact to forget beside another: the candidate says to cut it out,
    with the text to keep, and that the update keeps the old text in the history (the CLI's
    forget cuts it from there too); forget by id would lose the other fact."""

    async def scenario() -> None:
        async with stdio_client(db) as client:
            both = await call(
                client,
                "remember",
                content="The user takes sertraline and is allergic to penicillin.",
            )
            await call(client, "remember", content="Tom takes sertraline.")
            before = snapshot(db)
            found = await client.call_tool("forget", {"query": "forget that I take sertraline"})
            body = found.structured_content
            assert body is not None and snapshot(db) == before
            [edit] = [c for c in body["candidates"] if c["id"] == both["memory"]["id"]]
            assert edit["action"] == "edit"
            assert edit["new_content"] == "The user is allergic to penicillin."
            assert "update_memory" in text(found) and "[-takes sertraline and-]" in text(found)
            # Honest about the history: an update keeps the old text there.
            assert "keeps the old text in the memory's history" in text(found)
            assert "lethe forget --query" in text(found)
            done = await call(
                client, "update_memory", memory_id=edit["id"], content=edit["new_content"]
            )
            assert done["memory"]["content"] == "The user is allergic to penicillin."
            assert done["memory"]["version"] == 2

    run(scenario())


@pytest.mark.slow
def test_one_session_cannot_confirm_anothers_forget(db: str) -> None:

    async def scenario() -> None:
        async with stdio_client(db) as a, stdio_client(db) as b:
            home = (await call(a, "remember", content=SEED_000[0]))["memory"]["id"]
            assert (await call(a, "forget", memory_id=home))["status"] == "pending"
            repeat = await call(b, "forget", memory_id=home)
            assert repeat["status"] == "pending" and repeat["deleted_ids"] == []
            assert home in live_ids(db)
            assert (await call(a, "forget", memory_id=home))["status"] == "executed"
            assert home not in live_ids(db)

    run(scenario())


def test_protected_memories_are_refused_with_reason_and_hint(db: str) -> None:

    async def scenario() -> None:
        async with stdio_client(db) as client:
            caveat = await call(client, "remember", content="Never drink and drive", layer="caveat")
            pinned = await call(
                client, "remember", content="User is allergic to nuts", importance=0.95
            )
            for memory, reason, way in (
                (caveat, "caveat-layer memories are protected", 'layer="semantic"'),
                (pinned, "pinned (importance 0.95 >= 0.9)", "importance=0.5"),
            ):
                memory_id = memory["memory"]["id"]
                for _ in range(2):
                    result = await client.call_tool("forget", {"memory_id": memory_id})
                    refused = refusal(result)
                    assert refused["error"] == "protected"
                    assert refused["memory_ids"] == [memory_id] and reason in refused["message"]
                    assert f'update_memory(memory_id="{memory_id}", {way})' in refused["hint"]
            assert len(live_ids(db)) == 2

    run(scenario())


def test_malformed_arguments_are_refused_and_the_server_lives(db: str) -> None:

    async def scenario() -> None:
        async with stdio_client(db) as client:
            await call(client, "remember", content="User likes jazz")
            before = snapshot(db)
            bad_calls: list[tuple[str, dict[str, Any], str]] = [
                ("remember", {"content": 42}, "content"),
                ("remember", {"content": "x", "bogus": 1}, "bogus"),
                ("remember", {"content": "x" * 40_000}, "content"),
                ("remember", {"content": "ok", "importance": 2}, "importance"),
                ("remember", {"content": "ok", "layer": "nope"}, "layer"),
                ("remember", {"content": "   "}, "empty"),
                ("recall", {"query": "jazz", "k": 0}, "k"),
                ("get_memory", {"memory_id": "mem_zz"}, "memory_id"),
                ("get_memory", {"memory_id": "mem_0123456789ab"}, "no memory mem_0123456789ab"),
                ("forget", {}, "memory_id"),
                ("forget", {"memory_id": "mem_0123456789ab", "query": "x"}, "not both"),
                ("forget", {"memory_ids": []}, "memory_ids"),
                ("purge", {"memory_ids": ["mem_0123456789ab"]}, "--allow-purge"),
                ("frobnicate", {}, "there is no tool 'frobnicate'"),
                ("recall", {"query": "jazz", "where": ["year >>> 3"]}, "filter"),
                ("audit_log", {"after_seq": 2**63}, "after_seq"),
                ("list_trash", {"offset": 10**30}, "offset"),
                ("delete_memories", {"ids": ["not an id"]}, "ids"),
                ("forget", {"memory_id": "mem_0123456789ab", "confirmation": "x"}, "confirmation"),
            ]
            for tool, args, needle in bad_calls:
                message = await error(client, tool, **args)
                assert needle.lower() in message.lower(), (tool, args, message)
            assert snapshot(db) == before
            assert (await call(client, "recall", query="jazz"))["hits"]

    run(scenario())


def test_unknown_id_gets_suggestions(db: str) -> None:

    async def scenario() -> None:
        async with stdio_client(db) as client:
            home = (await call(client, "remember", content=SEED_000[0]))["memory"]["id"]
            typo = home[:-1] + ("0" if home[-1] != "0" else "1")
            result = await client.call_tool("forget", {"memory_id": typo})
            missing = refusal(result)
            assert missing["error"] == "not_found" and missing["memory_ids"] == [typo]
            assert missing["suggestions"] == [{"id": home, "preview": SEED_000[0]}]
            assert f'forget(memory_id="{home}")' in missing["hint"] and "recall" in missing["hint"]

    run(scenario())


def test_links_episodes_and_updates(db: str) -> None:

    async def scenario() -> None:
        async with stdio_client(db) as client:
            a = (await call(client, "remember", content="User flew to Lisbon in May"))["memory"][
                "id"
            ]
            b = (await call(client, "remember", content="User ate pastéis de nata"))["memory"]["id"]
            link = await call(client, "link_memories", a=a, b=b, kind="trip", confidence=0.8)
            assert {link["a"], link["b"]} == {a, b} and link["confidence"] == 0.8
            episode = await call(client, "create_episode", summary="Lisbon trip", memory_ids=[a, b])
            assert {m["id"] for m in episode["members"]} == {a, b}
            updated = await call(
                client, "update_memory", memory_id=b, importance=0.7, tags=["food"]
            )
            assert updated["memory"]["importance"] == 0.7 and updated["memory"]["tags"] == ["food"]
            await call(client, "forget", memory_id=b)
            await call(client, "forget", memory_id=b)
            view = await call(client, "get_episode", episode_id=episode["id"])
            assert [m["id"] for m in view["members"]] == [a]
            assert view["missing"] == 1 and view["note"] == "1 memory no longer exists"
            got = await call(client, "get_memory", memory_id=a)
            assert got["links"] == []
            await call(client, "restore", memory_id=b)
            assert len((await call(client, "get_memory", memory_id=a))["links"]) == 1

    run(scenario())


def test_purge_needs_the_flag_and_a_confirmation(db: str) -> None:

    async def scenario() -> None:
        async with stdio_client(db, "--allow-purge") as client:
            secret = "User's passport number is X1234567"
            memory_id = (await call(client, "remember", content=secret))["memory"]["id"]
            first = await call(client, "purge", memory_ids=[memory_id])
            assert first["status"] == "pending" and first["operation"] == "purge"
            done = await call(client, "purge", memory_ids=[memory_id])
            assert done["status"] == "executed" and done["deleted_ids"] == [memory_id]
            events = (await call(client, "audit_log", memory_id=memory_id))["events"]
            assert [e["op"] for e in events] == ["remember", "confirmation_requested", "purge"]
            assert "X1234567" not in str(events)

    run(scenario())


def test_a_store_that_cannot_open_is_a_tool_error(tmp_path: Path) -> None:
    (tmp_path / "not-a-db").write_text("plain text, not SQLite", encoding="utf-8")

    async def scenario() -> None:
        async with stdio_client(tmp_path / "not-a-db") as client:
            assert "recall" in {t.name for t in (await client.list_tools()).tools}
            message = await error(client, "recall", query="jazz")
            assert "not a lethe database" in message.lower() or "not a database" in message
            assert (await client.list_tools()).tools, "the server is still alive"

    run(scenario())


@pytest.mark.parametrize("action", ["accept", "decline"])
def test_an_open_question_is_pending_until_the_human_answers(db: str, action: str) -> None:
    """While the client asks its human, the question is a pending confirmation (so the
    inspector can show it); an answer, yes or no, takes it away."""
    seen: list[list[tuple[Any, ...]]] = []
    answer_with = elicitation(action)

    async def callback(ctx: Any, params: Any) -> Any:
        seen.append(run_sql(db, "SELECT session, memory_id, operation FROM pending_confirmations"))
        return await answer_with(ctx, params)

    async def scenario() -> str:
        async with stdio_client(db, elicit=callback) as client:
            home = (await call(client, "remember", content=SEED_000[0]))["memory"]["id"]
            await call(client, "forget", memory_id=home)
            return str(home)

    home = run(scenario())
    assert len(seen) == 1 and len(seen[0]) == 1
    session, memory_id, operation = seen[0][0]
    assert session.startswith("asked:mcp-") and (memory_id, operation) == (home, "forget")
    assert run_sql(db, "SELECT session FROM pending_confirmations") == []
    assert (home in live_ids(db)) == (action == "decline")
