"""Issue 15 over MCP: nothing is lost except by forget.

An update keeps the state it replaces (`history`); a change that weakens a protection is
confirmed like a forget (a human's answer to an elicitation, or the same call twice) and is
never made on a `write` token; `remember` never refuses a near-duplicate and names it; the
audit actor is who is authenticated (the token, or the client's name over stdio), never the
`agent` argument. Driven by the SDK's client against `lethe mcp` processes.
"""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from tests.backends import both_stores, live_ids, run_sql, snapshot
from tests.mcp_support import (
    LETHE,
    call,
    elicitation,
    error,
    http_client,
    http_server,
    stdio_client,
    text,
)
from tests.near_pairs import NEAR_PAIRS

TOKENS = {
    "alice": "alice-token-0123456789abcdef",
    "writer": "writer-token-0123456789abcdef",
}
TOKEN_FILE = """
[[token]]
name = "alice"
token = "{alice}"
namespaces = ["default"]
role = "forget"

[[token]]
name = "writer"
token = "{writer}"
namespaces = ["default"]
role = "write"
"""

CAVEAT = "Never give the dog chocolate"
PINNED = "User is allergic to penicillin"
GOAL = "Run a marathon in 2027"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture
def served(db: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(TOKEN_FILE.format(**TOKENS), encoding="utf-8")
    with http_server(db, "--tokens", str(tokens)) as url:
        yield db, url


def memory_rows(db: str) -> list[tuple[Any, ...]]:
    """What a change would touch: the memories' fields and every kept version."""
    rows = run_sql(db, "SELECT id, content, layer, importance, version FROM memories ORDER BY id")
    versions = run_sql(
        db, "SELECT memory_id, version, content FROM memory_versions ORDER BY memory_id, version"
    )
    return [*rows, *versions]


async def protected(client: Any) -> tuple[str, str]:
    caveat = await call(client, "remember", content=CAVEAT, layer="caveat")
    pinned = await call(client, "remember", content=PINNED, importance=0.95)
    return caveat["memory"]["id"], pinned["memory"]["id"]


def audit(db: str, op: str) -> list[dict[str, Any]]:
    import json

    rows = run_sql(
        db, "SELECT memory_id, actor, details FROM events WHERE op = ? ORDER BY seq", (op,)
    )
    return [
        {
            "memory_id": r[0],
            "actor": r[1],
            "details": r[2] if isinstance(r[2], dict) else json.loads(r[2] or "{}"),
        }
        for r in rows
    ]


# -- a write token cannot weaken a protection -------------------------------------------------


def test_a_write_token_cannot_weaken_a_protection(served: tuple[str, str]) -> None:
    """Rewriting a caveat or a pinned memory, moving a caveat or a goal out of its layer,
    lowering a pin: each is refused to a `write` token, however often it asks and whether or
    not its client could ask a human; the store is unchanged. Changes that weaken nothing
    still go through."""
    db, url = served
    asked = elicitation("accept")

    async def scenario() -> None:
        async with http_client(url, TOKENS["alice"]) as alice:
            caveat, pinned = await protected(alice)
            goal = (await call(alice, "remember", content=GOAL, layer="goal"))["memory"]["id"]
        before = snapshot(db)
        attempts: list[tuple[str, dict[str, Any]]] = [
            (caveat, {"content": "Chocolate is fine for the dog"}),
            (caveat, {"layer": "semantic"}),
            (pinned, {"importance": 0.5}),
            (pinned, {"content": "User is not allergic to anything"}),
            (goal, {"layer": "episodic"}),
        ]
        for elicit in (None, asked):
            async with http_client(url, TOKENS["writer"], elicit=elicit) as writer:
                for memory_id, change in attempts:
                    for _ in range(2):  # a second call must not confirm the first
                        message = await error(
                            writer, "update_memory", memory_id=memory_id, **change
                        )
                        assert "role is 'write'" in message and "needs 'forget'" in message
                        assert "Nothing was changed" in message
        assert asked.asked == [], "no human is asked on behalf of a write token"
        assert snapshot(db) == before
        assert run_sql(db, "SELECT count(*) FROM pending_confirmations") == [(0,)]

        async with http_client(url, TOKENS["writer"]) as writer:
            tagged = await call(writer, "update_memory", memory_id=caveat, tags=["pets"])
            assert tagged["status"] == "updated" and tagged["memory"]["layer"] == "caveat"
            higher = await call(writer, "update_memory", memory_id=pinned, importance=0.99)
            assert higher["status"] == "updated" and higher["memory"]["importance"] == 0.99
            assert higher["lost"] == []

    run(scenario())


# -- a forget token, client without elicitation: two calls ------------------------------------


def test_unprotect_then_forget_by_two_calls_each(served: tuple[str, str]) -> None:
    """A client that cannot ask its human: the unprotect is pending until the same change is
    asked again; the forget that follows says the memory was protected moments ago."""
    db, url = served

    async def scenario() -> None:
        async with http_client(url, TOKENS["alice"]) as alice:
            caveat, pinned = await protected(alice)
            rows = memory_rows(db)
            first = await call(alice, "update_memory", memory_id=caveat, layer="semantic")
            assert first["status"] == "pending" and first["memory"]["layer"] == "caveat"
            assert first["lost"] and "caveat" in first["lost"][0]
            assert first["changes"] == [{"field": "layer", "old": "caveat", "new": "semantic"}]
            assert "Please confirm" in first["message"] and first["expires_in_seconds"] > 0
            assert memory_rows(db) == rows, "the first call changes nothing"
            second = await call(alice, "update_memory", memory_id=caveat, layer="semantic")
            assert second["status"] == "updated" and second["memory"]["layer"] == "semantic"
            assert second["memory"]["version"] == 2

            asked = await alice.call_tool("forget", {"memory_id": caveat})
            preview = asked.structured_content
            assert preview is not None and preview["status"] == "pending"
            assert "was protected" in preview["message"] and "until" in preview["message"]
            assert "alice changed it" in preview["was_protected"][caveat]
            assert "was protected" in text(asked)
            assert caveat in live_ids(db)
            done = await call(alice, "forget", memory_id=caveat)
            assert done["status"] == "executed" and caveat not in live_ids(db)

            lowered = await call(alice, "update_memory", memory_id=pinned, importance=0.5)
            assert lowered["status"] == "pending" and lowered["memory"]["importance"] == 0.95
            again = await call(alice, "update_memory", memory_id=pinned, importance=0.5)
            assert again["status"] == "updated" and again["memory"]["importance"] == 0.5

        [layer, importance] = audit(db, "update")
        assert layer["actor"] == importance["actor"] == "alice"
        assert layer["details"]["protection_fields"] == {
            "layer": {"old": "caveat", "new": "semantic"}
        }
        assert layer["details"]["confirmed"] == "two_call"
        assert importance["details"]["protection_fields"] == {
            "importance": {"old": 0.95, "new": 0.5}
        }
        requested = audit(db, "confirmation_requested")
        assert [r["details"]["operation"] for r in requested] == ["update", "forget", "update"]

    run(scenario())


def test_a_different_change_restarts_the_confirmation(served: tuple[str, str]) -> None:
    """The second call confirms only the same change: another one is previewed again."""
    db, url = served

    async def scenario() -> None:
        async with http_client(url, TOKENS["alice"]) as alice:
            caveat, _ = await protected(alice)
            rows = memory_rows(db)
            first = await call(alice, "update_memory", memory_id=caveat, content="Dogs: no cocoa")
            assert first["status"] == "pending"
            other = await call(alice, "update_memory", memory_id=caveat, content="Dogs: cocoa ok")
            assert other["status"] == "pending" and memory_rows(db) == rows
            done = await call(alice, "update_memory", memory_id=caveat, content="Dogs: cocoa ok")
            assert done["status"] == "updated" and done["memory"]["content"] == "Dogs: cocoa ok"
            assert done["memory"]["layer"] == "caveat", "the text changed, not the protection"

    run(scenario())


def test_one_session_cannot_confirm_anothers_change(served: tuple[str, str]) -> None:
    db, url = served

    async def scenario() -> None:
        async with (
            http_client(url, TOKENS["alice"]) as a,
            http_client(url, TOKENS["alice"]) as b,
        ):
            caveat, _ = await protected(a)
            rows = memory_rows(db)
            assert (await call(a, "update_memory", memory_id=caveat, layer="semantic"))[
                "status"
            ] == "pending"
            assert (await call(b, "update_memory", memory_id=caveat, layer="semantic"))[
                "status"
            ] == "pending"
            assert memory_rows(db) == rows
            assert (await call(a, "update_memory", memory_id=caveat, layer="semantic"))[
                "status"
            ] == "updated"

    run(scenario())


def test_clients_without_a_session_confirm_a_change_with_their_code(
    served: tuple[str, str],
) -> None:
    db, url = served

    async def scenario() -> None:
        async with (
            http_client(url, TOKENS["alice"], mode="auto") as a,
            http_client(url, TOKENS["alice"], mode="auto") as b,
        ):
            caveat, _ = await protected(a)
            rows = memory_rows(db)
            first = await call(a, "update_memory", memory_id=caveat, layer="semantic")
            assert first["status"] == "pending" and len(first["confirmation"]) == 16
            repeated = await call(b, "update_memory", memory_id=caveat, layer="semantic")
            assert repeated["status"] == "pending"
            assert repeated["confirmation"] != first["confirmation"]
            guessed = await call(
                b, "update_memory", memory_id=caveat, layer="semantic", confirmation="0" * 16
            )
            assert guessed["status"] == "pending" and memory_rows(db) == rows
            done = await call(
                a,
                "update_memory",
                memory_id=caveat,
                layer="semantic",
                confirmation=first["confirmation"],
            )
            assert done["status"] == "updated" and done["memory"]["layer"] == "semantic"

    run(scenario())


# -- a client with elicitation: the human answers -----------------------------------------------


@pytest.mark.parametrize(
    ("action", "confirm"),
    [("accept", True), ("accept", False), ("decline", True), ("cancel", True)],
    ids=["accept", "accept-but-no", "decline", "cancel"],
)
def test_elicitation_decides_a_protected_change(db: str, action: str, confirm: bool) -> None:
    callback = elicitation(action, confirm)
    executes = action == "accept" and confirm

    async def scenario() -> None:
        async with stdio_client(db, elicit=callback, name="desk") as client:
            caveat, _ = await protected(client)
            rows = memory_rows(db)
            answer = await call(client, "update_memory", memory_id=caveat, layer="semantic")
            if executes:
                assert answer["status"] == "updated" and answer["memory"]["layer"] == "semantic"
            else:
                assert answer["status"] == "declined" and answer["memory"]["layer"] == "caveat"
                assert memory_rows(db) == rows, "a no changes nothing"
                assert "nothing was changed" in answer["message"]

    run(scenario())
    [question] = callback.asked
    assert CAVEAT in question and 'layer: "caveat" -> "semantic"' in question
    assert "no longer be protected" in question and "caveat" in question
    if executes:
        [event] = audit(db, "update")
        assert event["details"]["confirmed"] == "elicitation" and event["actor"] == "desk"
        assert event["details"]["protection_fields"]["layer"] == {
            "old": "caveat",
            "new": "semantic",
        }
        assert audit(db, "forget_declined") == []
    else:
        assert audit(db, "update") == []
        [declined] = audit(db, "forget_declined")
        assert declined["details"]["operation"] == "update"
        assert declined["details"]["answer"] == ("cancel" if action == "cancel" else "decline")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_elicitation_over_http_in_both_eras(served: tuple[str, str], mode: str) -> None:
    db, url = served
    yes, no = elicitation("accept"), elicitation("decline")

    async def scenario() -> None:
        async with http_client(url, TOKENS["alice"]) as alice:
            _, pinned = await protected(alice)
        rows = memory_rows(db)
        async with http_client(url, TOKENS["alice"], elicit=no, mode=mode) as client:
            answer = await call(client, "update_memory", memory_id=pinned, importance=0.3)
            assert answer["status"] == "declined" and memory_rows(db) == rows
        async with http_client(url, TOKENS["alice"], elicit=yes, mode=mode) as client:
            answer = await call(client, "update_memory", memory_id=pinned, importance=0.3)
            assert answer["status"] == "updated" and answer["memory"]["importance"] == 0.3

    run(scenario())
    assert len(yes.asked) == 1 and len(no.asked) == 1
    assert "importance: 0.95 -> 0.3" in yes.asked[0]


def test_an_accept_without_an_answer_changes_nothing(db: str) -> None:
    """A client that accepts with no content has not said yes: it counts as a decline (on
    the record as one), not a crash, and nothing changes: only an explicit yes confirms."""
    callback = elicitation("accept", None)

    async def scenario() -> None:
        async with stdio_client(db, elicit=callback) as client:
            caveat, pinned = await protected(client)
            tea = (await call(client, "remember", content="User likes tea"))["memory"]["id"]
            rows = memory_rows(db)
            answer = await call(client, "update_memory", memory_id=pinned, importance=0.1)
            assert answer["status"] == "declined" and "without an answer" in answer["message"]
            answer = await call(client, "forget", memory_id=tea)
            assert answer["status"] == "declined" and "without an answer" in answer["message"]
            assert memory_rows(db) == rows and live_ids(db) == {caveat, pinned, tea}
            assert (await call(client, "recall", query="penicillin"))["hits"], "server lives"

    run(scenario())
    assert len(callback.asked) == 2
    answers = [(d["memory_id"], d["details"]["answer"]) for d in audit(db, "forget_declined")]
    assert len(answers) == 2 and {a for _, a in answers} == {"accept_without_content"}


@pytest.mark.slow
def test_the_forget_question_says_the_memory_was_protected_moments_ago(db: str) -> None:
    callback = elicitation("decline")

    async def scenario() -> str:
        async with stdio_client(db, elicit=elicitation("accept"), name="desk") as client:
            caveat, _ = await protected(client)
            await call(client, "update_memory", memory_id=caveat, layer="semantic")
        async with stdio_client(db, elicit=callback) as client:
            answer = await call(client, "forget", memory_id=caveat)
            assert answer["status"] == "declined" and caveat in live_ids(db)
        return caveat

    caveat = run(scenario())
    [question] = callback.asked
    assert question.startswith(f"Forget '{CAVEAT}' ({caveat})?")
    assert "was protected" in question and "desk changed it" in question


# -- history ------------------------------------------------------------------------------------


@both_stores
def test_history_lists_every_version(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db, name="notebook") as client:
            first = await call(client, "remember", content="User takes 50 mg of sertraline")
            memory_id = first["memory"]["id"]
            await call(
                client,
                "update_memory",
                memory_id=memory_id,
                content="User takes 75 mg of sertraline",
                reason="dose raised",
            )
            await call(client, "update_memory", memory_id=memory_id, importance=0.95)
            for _ in range(2):  # pinned now: its text changes by two calls
                last = await call(
                    client,
                    "update_memory",
                    memory_id=memory_id,
                    content="User takes 100 mg of sertraline",
                    reason="doctor's advice",
                )
            assert last["status"] == "updated"
            result = await client.call_tool("history", {"memory_id": memory_id})
            assert not result.is_error
            history = result.structured_content
            assert history is not None
            versions = history["versions"]
            assert [v["version"] for v in versions] == [4, 3, 2, 1]
            assert [v["current"] for v in versions] == [True, False, False, False]
            assert [v["content"] for v in versions] == [
                "User takes 100 mg of sertraline",
                "User takes 75 mg of sertraline",
                "User takes 75 mg of sertraline",
                "User takes 50 mg of sertraline",
            ]
            assert [v["op"] for v in versions] == ["update", "update", "update", "remember"]
            assert [v["reason"] for v in versions] == [
                "doctor's advice",
                None,
                "dose raised",
                None,
            ]
            assert {v["actor"] for v in versions} == {"notebook"}
            assert [v["importance"] for v in versions] == [0.95, 0.95, 0.5, 0.5]
            assert versions[1]["valid_until"] is not None and versions[0]["valid_until"] is None
            lines = text(result)
            assert "v4 (current)" in lines and "50 mg" in lines and "update_memory" in lines

    run(scenario())


def test_history_is_read_only_and_confined_to_the_namespace(served: tuple[str, str]) -> None:
    db, url = served

    async def scenario() -> None:
        async with http_client(url, TOKENS["alice"]) as alice:
            memory_id = (await call(alice, "remember", content="User likes jazz"))["memory"]["id"]
            before = snapshot(db)
            history = await call(alice, "history", memory_id=memory_id)
            assert [v["version"] for v in history["versions"]] == [1]
            assert snapshot(db) == before
            message = await error(alice, "history", memory_id=memory_id, namespace="work")
            assert "may not use namespace" in message
            unknown = memory_id[:-1] + ("0" if memory_id[-1] != "0" else "1")
            message = await error(alice, "history", memory_id=unknown)
            assert f"No memory {unknown} in namespace default" in message
            assert f'history(memory_id="{memory_id}")' in message, "the id it was close to"
            for _ in range(2):
                await call(alice, "forget", memory_id=memory_id)
            assert "in the trash" in await error(alice, "history", memory_id=memory_id)

    run(scenario())


READER = "reader-token-0123456789abcdef"


def test_a_read_token_never_reads_a_forgotten_fact_in_the_past(
    db: str, embedder: Embedder, tmp_path: Path
) -> None:
    """Issue 43: one fact of a memory forgotten (an edit) is gone from `history`, and from
    `get_memory` and `recall` as of every moment before, to a token that may only read."""
    with Lethe.open(db, embedder=embedder) as mem:
        memory_id = mem.remember("The user takes sertraline.").id
        moments = [datetime.now(UTC)]
        mem.update(memory_id, content="The user takes sertraline and is allergic to penicillin.")
        moments.append(datetime.now(UTC))
        result = mem.execute(mem.plan_forget(query="forget that I take sertraline"))
        assert result.edited == (memory_id,)
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(
        f'[[token]]\nname = "reader"\ntoken = "{READER}"\nnamespaces = ["default"]\n'
        'role = "read"\n',
        encoding="utf-8",
    )

    async def scenario(url: str) -> None:
        async with http_client(url, READER) as reader:
            said = [await reader.call_tool("history", {"memory_id": memory_id})]
            for moment in moments:
                at = moment.isoformat()
                said.append(
                    await reader.call_tool("get_memory", {"memory_id": memory_id, "as_of": at})
                )
                for query in ("sertraline", "what medication does the user take"):
                    said.append(
                        await reader.call_tool("recall", {"query": query, "k": 5, "as_of": at})
                    )
            for answer in said:  # what it shows of memories (a recall echoes its query)
                assert not answer.is_error, text(answer)
                out = answer.structured_content or {}
                shown = [out.get("memory"), out.get("versions"), out.get("hits")]
                assert "sertraline" not in f"{text(answer)} {shown}"
            versions = said[0].structured_content["versions"]  # type: ignore[index]
            assert [v["version"] for v in versions] == [3, 2, 1]
            assert versions[1]["content"] == "The user is allergic to penicillin."

    with http_server(db, "--tokens", str(tokens)) as url:
        run(scenario(url))


# -- remember never refuses ---------------------------------------------------------------------


OTHER_FACTS = (
    "The garden needs watering on Sundays",
    "Bob works at Shopify as a designer",
    "The cat is called Miso",
)


@pytest.mark.parametrize(("first", "second", "question"), NEAR_PAIRS.values(), ids=NEAR_PAIRS)
def test_remember_stores_near_duplicates_and_names_them(
    db: str, first: str, second: str, question: str
) -> None:
    """Similar is not same: a changed day, dose, negation, name or amount is stored beside
    its neighbour, named in the answer, and both are recalled."""

    async def scenario() -> None:
        async with stdio_client(db) as client:
            a = (await call(client, "remember", content=first))["memory"]["id"]
            result = await client.call_tool("remember", {"content": second})
            assert not result.is_error, text(result)
            answer = result.structured_content
            assert answer is not None
            b = answer["memory"]["id"]
            assert b != a and live_ids(db) == {a, b}
            assert answer["existing"] is False
            [near] = answer["near_duplicates"]
            assert near["id"] == a and near["content"] == first and near["similarity"] >= 0.95
            assert any(
                lk["kind"] == "near_duplicate" and {lk["a"], lk["b"]} == {a, b}
                for lk in answer["links"]
            )
            lines = text(result)
            assert f"near-duplicate {a} ({near['similarity']:.2f}): {first}" in lines
            assert "Both are stored" in lines
            for other in OTHER_FACTS:
                await call(client, "remember", content=other)
            recalled = await call(client, "recall", query=question, k=2)
            assert {h["memory"]["id"] for h in recalled["hits"]} == {a, b}, question

            rows = memory_rows(db)
            again = await client.call_tool("remember", {"content": second})
            stored = again.structured_content
            assert stored is not None and stored["existing"] is True
            assert stored["memory"]["id"] == b and memory_rows(db) == rows
            assert "Already remembered" in text(again)

    run(scenario())


# -- the audit actor is who is authenticated ----------------------------------------------------


def test_the_token_is_the_actor_never_the_agent(served: tuple[str, str]) -> None:
    db, url = served

    async def scenario() -> None:
        async with http_client(url, TOKENS["alice"], name="some-client") as alice:
            m = (await call(alice, "remember", content="Board meeting moved", agent="dashboard"))[
                "memory"
            ]
            assert m["agent"] == "dashboard"
            other = (await call(alice, "remember", content="User likes tea"))["memory"]["id"]
            await call(alice, "update_memory", memory_id=m["id"], tags=["work"])
            await call(alice, "link_memories", a=m["id"], b=other)
            await call(alice, "create_episode", summary="Tuesday", memory_ids=[m["id"], other])
            for _ in range(2):
                await call(alice, "forget", memory_id=other)
            await call(alice, "restore", memory_id=other)
            await call(alice, "consolidate")

        rows = run_sql(db, "SELECT op, actor FROM events ORDER BY seq")
        ops = [op for op, _ in rows]
        assert ops[:2] == ["remember", "remember"]
        for op in ("update", "link", "episode", "confirmation_requested", "forget", "restore"):
            assert op in ops
        assert {actor for op, actor in rows if op != "evict"} == {"alice"}, rows
        assert run_sql(db, "SELECT agent FROM memories WHERE id = ?", (m["id"],)) == [
            ("dashboard",)
        ]
        [remembered] = [e for e in audit(db, "remember") if e["memory_id"] == m["id"]]
        assert remembered["actor"] == "alice"

    run(scenario())


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_over_stdio_the_actor_is_the_clients_name(db: str, mode: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db, name="claude-code", mode=mode) as client:
            m = await call(client, "remember", content="User likes jazz", agent="dashboard")
            await call(client, "update_memory", memory_id=m["memory"]["id"], tags=["music"])
            for _ in range(2):
                await call(client, "forget", memory_id=m["memory"]["id"])

    run(scenario())
    rows = run_sql(db, "SELECT op, actor FROM events WHERE op <> 'evict' ORDER BY seq")
    assert [op for op, _ in rows] == ["remember", "update", "confirmation_requested", "forget"]
    assert {actor for _, actor in rows} == {"claude-code"}


def test_actor_option_overrides_the_clients_name(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db, "--actor", "Alice Smith", name="claude-code") as client:
            m = await call(client, "remember", content="User likes jazz")
            await call(client, "update_memory", memory_id=m["memory"]["id"], importance=0.7)

    run(scenario())
    rows = run_sql(db, "SELECT op, actor FROM events WHERE op <> 'evict' ORDER BY seq")
    assert rows == [("remember", "Alice Smith"), ("update", "Alice Smith")]


def test_actor_option_is_refused_with_tokens(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(TOKEN_FILE.format(**TOKENS), encoding="utf-8")
    db = str(tmp_path / "m.db")
    done = subprocess.run(
        [LETHE, "mcp", "--http", "--tokens", str(tokens), "--actor", "me", "--db", db],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "token" in done.stderr
    assert not (tmp_path / "m.db").exists()


def test_a_write_token_refused_an_expiry_is_told_it_would_forget_on_a_date(
    served: tuple[str, str],
) -> None:
    """Setting an expiry is a forget on a date, confirmed like one: the refusal to a write
    token says that, not that a protection ('None') is weakened or that a text changes."""
    db, url = served

    async def scenario() -> None:
        async with http_client(url, TOKENS["alice"]) as alice:
            made = await call(alice, "remember", content="The hotel door code is 4471")
        before = snapshot(db)
        async with http_client(url, TOKENS["writer"]) as writer:
            message = await error(
                writer,
                "update_memory",
                memory_id=made["memory"]["id"],
                expires_at="2099-12-01T18:00:00Z",
            )
        assert "would forget it on a date" in message and "2099-12-01T18:00:00" in message
        assert "None" not in message and "text would change" not in message
        assert "role is 'write'" in message and "needs 'forget'" in message
        assert snapshot(db) == before

    run(scenario())


def test_an_expiry_the_person_confirmed_is_loosened_only_by_a_confirmation(
    served: tuple[str, str],
) -> None:
    """A write token may push back or drop its own expiry, not one confirmed like a forget:
    that is refused (nothing changes) and says why; a forget token confirms it in two calls."""
    db, url = served

    async def scenario() -> None:
        async with http_client(url, TOKENS["alice"]) as alice:
            made = (await call(alice, "remember", content="The hotel door code is 4471"))["memory"]
            for _ in range(2):  # the same call twice: confirmed
                held = await call(
                    alice, "update_memory", memory_id=made["id"], expires_at="2099-01-01T00:00:00Z"
                )
            assert held["status"] == "updated" and held["memory"]["expiry_held"]
        before = snapshot(db)
        async with http_client(url, TOKENS["writer"]) as writer:
            for loosen in ({"expires_at": "2099-12-01T00:00:00Z"}, {"no_expiry": True}):
                message = await error(writer, "update_memory", memory_id=made["id"], **loosen)
                assert "set or confirmed by a person" in message and "needs 'forget'" in message
            assert snapshot(db) == before
            own = (await call(writer, "remember", content="Parking level 3", expires_in="1d"))[
                "memory"
            ]
            assert not own["expiry_held"]
            later = await call(
                writer, "update_memory", memory_id=own["id"], expires_at="2099-12-01T00:00:00Z"
            )
            assert later["status"] == "updated" and not later["memory"]["expiry_held"]
        async with http_client(url, TOKENS["alice"]) as alice:
            first = await call(alice, "update_memory", memory_id=made["id"], no_expiry=True)
            assert first["status"] == "pending" and first["memory"]["expires_at"] is not None
            second = await call(alice, "update_memory", memory_id=made["id"], no_expiry=True)
            assert second["status"] == "updated" and second["memory"]["expires_at"] is None

    run(scenario())


@pytest.mark.slow
def test_a_write_token_cannot_restore_what_a_held_expiry_ended(
    served: tuple[str, str],
) -> None:
    """The server keeps real time: the expiry is set a few seconds ahead (time enough for the
    two calls on a loaded machine), then the test waits until a read finds it in the trash."""
    from datetime import UTC, datetime, timedelta

    db, url = served

    async def scenario() -> None:
        ends = datetime.now(UTC) + timedelta(seconds=6)
        async with http_client(url, TOKENS["alice"]) as alice:
            made = (await call(alice, "remember", content="The hotel door code is 4471"))["memory"]
            for _ in range(2):
                await call(
                    alice, "update_memory", memory_id=made["id"], expires_at=ends.isoformat()
                )
        await asyncio.sleep(max(0.0, (ends - datetime.now(UTC)).total_seconds()) + 0.2)
        async with http_client(url, TOKENS["writer"]) as writer:
            trash = await call(writer, "list_trash")  # a read sends the due memory to the trash
            assert [t["memory"]["id"] for t in trash["items"]] == [made["id"]], trash
            before = snapshot(db)
            message = await error(writer, "restore", memory_id=made["id"])
            assert "set or confirmed" in message and "forget role" in message
            assert snapshot(db) == before
        async with http_client(url, TOKENS["alice"]) as alice:
            back = await call(alice, "restore", memory_id=made["id"])
            assert back["memory"]["expires_at"] is None

    run(scenario())
