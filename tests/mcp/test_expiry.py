"""MCP `remember` with `expires_at` / `expires_in` (issue 25), through a real client over
stdio: the expiry is set and returned, and a bad value is refused with nothing stored."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tests.backends import run_sql, snapshot
from tests.mcp_support import call, elicitation, error, stdio_client

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_remember_with_an_expiry_over_stdio(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    async with stdio_client(db) as client:
        made = await call(
            client, "remember", content="The hotel door code is 4471", expires_in="7d"
        )
        memory = made["memory"]
        assert memory["expires_at"] is not None
        before = snapshot(db)
        for bad, says in (
            ({"expires_in": "3 months"}, "months and years"),
            ({"expires_at": "2020-01-01"}, "not in the future"),
            ({"expires_at": "2099-01-01", "expires_in": "1d"}, "not both"),
        ):
            assert says in await error(client, "remember", content="Parking level 3", **bad)
            assert snapshot(db) == before
        got = await call(client, "get_memory", memory_id=memory["id"])
        assert got["memory"]["expires_at"] == memory["expires_at"]


def _expiry(db: Path, memory_id: str) -> object:
    return run_sql(db, "SELECT expires_at FROM memories WHERE id = ?", (memory_id,))[0][0]


async def test_a_client_without_elicitation_cannot_expire_a_memory_in_one_call(
    tmp_path: Path,
) -> None:
    """Setting an expiry on a stored memory is a forget: a client that cannot ask its human
    gets "Please confirm" and nothing changes until the same call comes again; that expiry is
    held, so a later one, or none, is confirmed the same way; a protected memory refuses it;
    a stale hash changes nothing."""
    db = tmp_path / "m.db"
    soon = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    later = (datetime.now(UTC) + timedelta(days=30)).isoformat()
    async with stdio_client(db) as client:
        made = (await call(client, "remember", content="The hotel door code is 4471"))["memory"]
        first = await call(client, "update_memory", memory_id=made["id"], expires_at=soon)
        assert first["status"] == "pending" and "Please confirm" in first["message"]
        assert _expiry(db, made["id"]) is None
        second = await call(client, "update_memory", memory_id=made["id"], expires_at=soon)
        assert second["status"] == "updated" and second["memory"]["expires_at"] is not None
        assert second["memory"]["expiry_held"]  # confirmed: loosening it is confirmed too
        for _ in range(2):
            extended = await call(client, "update_memory", memory_id=made["id"], expires_at=later)
        assert extended["status"] == "updated"
        for _ in range(2):
            removed = await call(client, "update_memory", memory_id=made["id"], no_expiry=True)
        assert removed["status"] == "updated" and removed["memory"]["expires_at"] is None
        assert made["content_sha256"]
        other = await call(
            client, "update_memory", memory_id=made["id"], content="The hotel door code is 5582"
        )
        stale = await error(
            client,
            "update_memory",
            memory_id=made["id"],
            content="The hotel door code is 9999",
            expected_sha256=made["content_sha256"],
        )
        assert "changed since you saw it" in stale and other["memory"]["content_sha256"] in stale
        fresh = await call(
            client,
            "update_memory",
            memory_id=made["id"],
            content="The hotel door code is 9999",
            expected_sha256=other["memory"]["content_sha256"],
        )
        assert fresh["status"] == "updated"
        caveat = (await call(client, "remember", content="Never email Bob.", layer="caveat"))[
            "memory"
        ]["id"]
        refused = await error(client, "update_memory", memory_id=caveat, expires_at=soon)
        assert "is protected" in refused and _expiry(db, caveat) is None


@pytest.mark.slow
async def test_an_expiry_asked_of_the_human_through_elicitation(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    soon = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    declined = elicitation("decline")
    async with stdio_client(db, elicit=declined) as client:
        made = (await call(client, "remember", content="The hotel door code is 4471"))["memory"]
        await client.call_tool("update_memory", {"memory_id": made["id"], "expires_at": soon})
        assert declined.asked and "expire" in declined.asked[0]
        assert _expiry(db, made["id"]) is None
    accepted = elicitation("accept")
    async with stdio_client(db, elicit=accepted) as client:
        done = await call(client, "update_memory", memory_id=made["id"], expires_at=soon)
        assert done["status"] == "updated" and _expiry(db, made["id"]) is not None


@pytest.mark.parametrize("elicit", [None, "accept"])
async def test_forget_with_the_hash_the_caller_saw(tmp_path: Path, elicit: str | None) -> None:
    """forget(memory_id, expected_sha256): refused with nothing deleted when the text changed
    since; with the current hash it goes through the usual confirmation."""
    db = tmp_path / "m.db"
    asked = elicitation("accept") if elicit else None
    async with stdio_client(db, elicit=asked) as client:
        made = (await call(client, "remember", content="The hotel door code is 4471"))["memory"]
        now = (await call(client, "update_memory", memory_id=made["id"], content="Code 5582"))[
            "memory"
        ]
        before = snapshot(db)
        stale = await error(
            client, "forget", memory_id=made["id"], expected_sha256=made["content_sha256"]
        )
        assert "changed since you saw it" in stale and now["content_sha256"] in stale
        if asked is None:
            assert snapshot(db) == before
        two = await error(
            client, "forget", memory_ids=[made["id"], made["id"]], expected_sha256="0" * 64
        )
        assert "exactly one memory_id" in two
        for _ in range(1 if asked else 2):
            done = await call(
                client, "forget", memory_id=made["id"], expected_sha256=now["content_sha256"]
            )
        assert done["status"] == "executed"
        assert run_sql(db, "SELECT status FROM memories")[0][0] == "forgotten"


async def test_recall_and_get_memory_as_of_over_stdio(tmp_path: Path) -> None:
    """`as_of` (issue 25, part 3) through a real client: the state a memory had then, and a
    memory forgotten since absent from the past too."""
    db = tmp_path / "m.db"
    async with stdio_client(db) as client:
        made = (await call(client, "remember", content="Alice works at Acme Corp"))["memory"]
        moment = datetime.now(UTC).isoformat()
        await call(client, "update_memory", memory_id=made["id"], content="Alice works at Globex")
        past = await call(client, "recall", query="Alice works", k=1, as_of=moment)
        assert past["hits"][0]["memory"]["content"] == "Alice works at Acme Corp"
        got = await call(client, "get_memory", memory_id=made["id"], as_of=moment)
        assert got["memory"]["content"] == "Alice works at Acme Corp"
        assert "in the future" in await error(
            client, "recall", query="Alice", as_of="2099-01-01T00:00:00Z"
        )
        for _ in range(2):  # no elicitation: the same call twice
            done = await call(client, "forget", memory_id=made["id"])
        assert done["status"] == "executed"
        gone = await call(client, "recall", query="Alice works", k=5, as_of=moment)
        assert made["id"] not in [h["memory"]["id"] for h in gone["hits"]]


async def test_remember_with_a_session_over_stdio(tmp_path: Path) -> None:
    """`session` (issue 21): the turn belongs to that conversation."""
    async with stdio_client(tmp_path / "m.db") as client:
        made = await call(client, "remember", content="Went hiking.", session="chat-1")
        assert made["memory"]["metadata"]["session"] == "chat-1"


async def test_times_without_an_offset_are_utc_over_mcp(tmp_path: Path, far_from_utc: str) -> None:
    """`expires_at` and `as_of` without an offset mean UTC in the server, whose local zone
    is 9 hours ahead."""
    db = tmp_path / "m.db"
    async with stdio_client(db, env={"TZ": far_from_utc}) as client:
        made = await call(
            client, "remember", content="Parking on level 3", expires_at="2099-12-01T18:00:00"
        )
        assert made["memory"]["expires_at"].startswith("2099-12-01T18:00:00")
        assert made["memory"]["expires_at"].endswith(("Z", "+00:00"))
        moment = datetime.now(UTC).replace(tzinfo=None).isoformat()
        await call(
            client, "update_memory", memory_id=made["memory"]["id"], content="Parking on level 4"
        )
        got = await call(client, "get_memory", memory_id=made["memory"]["id"], as_of=moment)
        assert got["memory"]["content"] == "Parking on level 3"
