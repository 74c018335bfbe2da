"""The MCP server over streamable HTTP: the same tools, bearer tokens bound to namespaces and
roles, sessions kept apart; driven by the SDK's client against a `lethe mcp --http` process."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.backends import both_stores, events, live_ids, snapshot
from tests.mcp.test_stdio import SEED_000
from tests.mcp_support import (
    LETHE,
    call,
    elicitation,
    error,
    http_client,
    http_server,
    refusal,
    stdio_client,
    text,
)

TOKENS = {
    "owner": "owner-token-0123456789abcdef",
    "reader": "reader-token-0123456789abcdef",
    "pets": "pets-token-0123456789abcdef",
}
TOKEN_FILE = """
[[token]]
name = "owner"
token = "{owner}"
namespaces = ["default"]
role = "forget"

[[token]]
name = "reader"
token = "{reader}"
namespaces = ["default"]
role = "read"

[[token]]
name = "pets-app"
token = "{pets}"
namespaces = ["pets"]
role = "forget"
"""


@pytest.fixture
def served(db: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(TOKEN_FILE.format(**TOKENS), encoding="utf-8")
    with http_server(db, "--tokens", str(tokens)) as url:
        yield db, url


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@both_stores
def test_round_trip_over_http(served: tuple[str, str]) -> None:
    db, url = served

    async def scenario() -> None:
        async with http_client(url, TOKENS["owner"]) as client:
            ids = [(await call(client, "remember", content=t))["memory"]["id"] for t in SEED_000]
            assert (await call(client, "recall", query="San Francisco", k=1))["hits"]
            candidates = await call(client, "forget", query="San Francisco")
            assert candidates["status"] == "candidates" and live_ids(db) == set(ids)
            assert (await call(client, "forget", memory_id=ids[0]))["status"] == "pending"
            assert (await call(client, "forget", memory_id=ids[0]))["status"] == "executed"
            assert [i["memory"]["id"] for i in (await call(client, "list_trash"))["items"]] == [
                ids[0]
            ]
            await call(client, "restore", memory_id=ids[0])
            ops = [e["op"] for e in (await call(client, "audit_log"))["events"]]
            assert ops == ["remember"] * 4 + ["confirmation_requested", "forget", "restore"]
            assert live_ids(db) == set(ids)

    run(scenario())


@pytest.mark.slow
def test_http_serves_the_same_tools_as_stdio(served: tuple[str, str], tmp_path: Path) -> None:
    _, url = served

    async def scenario() -> tuple[list[Any], list[Any]]:
        async with http_client(url, TOKENS["owner"]) as client:
            over_http = (await client.list_tools()).tools
        async with stdio_client(tmp_path / "other.db") as client:
            over_stdio = (await client.list_tools()).tools
        return over_http, over_stdio

    over_http, over_stdio = run(scenario())
    assert len(over_http) >= 17
    assert [t.model_dump() for t in over_http] == [t.model_dump() for t in over_stdio]


def test_missing_or_wrong_token_gets_401(served: tuple[str, str]) -> None:
    db, url = served

    async def opened() -> None:
        async with http_client(url, TOKENS["owner"]) as client:
            await call(client, "remember", content=SEED_000[0])

    run(opened())
    before = snapshot(db)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {"Accept": "application/json, text/event-stream"}
    for auth in ({}, {"Authorization": "Bearer wrong-token-0123456789"}, {"Authorization": "x"}):
        response = httpx2.post(url, json=body, headers={**headers, **auth})
        assert response.status_code == 401
        assert response.headers["www-authenticate"].startswith("Bearer")
    assert snapshot(db) == before


def test_tokens_are_confined_to_their_namespaces_and_roles(served: tuple[str, str]) -> None:
    db, url = served

    async def scenario() -> None:
        async with http_client(url, TOKENS["owner"]) as owner:
            home = (await call(owner, "remember", content=SEED_000[0]))["memory"]["id"]
        async with http_client(url, TOKENS["pets"]) as pets:
            cat = (await call(pets, "remember", content="The cat is called Miso"))["memory"]
            assert cat["namespace"] == "pets"
            assert "may not use namespace 'default'" in await error(
                pets, "recall", query="San Francisco", namespace="default"
            )
            hits = (await call(pets, "recall", query="San Francisco"))["hits"]
            assert [h["memory"]["id"] for h in hits] == [cat["id"]]
            message = await error(pets, "get_memory", memory_id=home)
            assert f"No memory {home} in namespace pets" in message
            near = home[:-1] + ("0" if home[-1] != "0" else "1")
            for memory_id in (home, home, near):
                result = await pets.call_tool("forget", {"memory_id": memory_id})
                assert refusal(result)["error"] == "not_found"
                assert refusal(result)["suggestions"] == []
                assert "default" not in text(result), "nothing of the other namespace"
        async with http_client(url, TOKENS["reader"]) as reader:
            assert (await call(reader, "recall", query="San Francisco"))["hits"]
            for tool, args in (
                ("forget", {"memory_id": home}),
                ("forget", {"query": "San Francisco"}),
                ("remember", {"content": "User likes jazz"}),
                ("restore", {"memory_id": home}),
            ):
                assert "role is 'read'" in await error(reader, tool, **args)
        ops = events(db)
        assert ops == [("remember", home), ("remember", cat["id"])], "nothing else changed"
        assert home in live_ids(db)

    run(scenario())


def test_one_http_session_cannot_confirm_anothers_forget(served: tuple[str, str]) -> None:
    db, url = served

    async def scenario() -> None:
        async with (
            http_client(url, TOKENS["owner"]) as a,
            http_client(url, TOKENS["owner"]) as b,
        ):
            home = (await call(a, "remember", content=SEED_000[0]))["memory"]["id"]
            assert (await call(a, "forget", memory_id=home))["status"] == "pending"
            assert (await call(b, "forget", memory_id=home))["status"] == "pending"
            assert home in live_ids(db)
            assert (await call(a, "forget", memory_id=home))["status"] == "executed"

    run(scenario())


def test_clients_without_a_session_confirm_only_with_their_own_code(
    served: tuple[str, str],
) -> None:
    """The SDK's default (stateless) protocol sends no session id: two clients with one token
    look alike, so the first call hands out a code and only the call repeating it confirms."""
    db, url = served

    async def scenario() -> None:
        async with (
            http_client(url, TOKENS["owner"], mode="auto") as a,
            http_client(url, TOKENS["owner"], mode="auto") as b,
        ):
            home = (await call(a, "remember", content=SEED_000[0]))["memory"]["id"]
            first = await call(a, "forget", memory_id=home)
            assert first["status"] == "pending" and len(first["confirmation"]) == 16
            repeated = await call(b, "forget", memory_id=home)
            assert (
                repeated["status"] == "pending"
                and repeated["confirmation"] != first["confirmation"]
            )
            guessed = await call(b, "forget", memory_id=home, confirmation="0" * 16)
            assert guessed["status"] == "pending"
            bad = await error(b, "forget", memory_id=home, confirmation="not-a-code")
            assert "confirmation" in bad
            assert home in live_ids(db), "no other client's call confirmed it"
            done = await call(a, "forget", memory_id=home, confirmation=first["confirmation"])
            assert done["status"] == "executed" and home not in live_ids(db)
            refused = await client_error_prompt(b)
            assert "forget mode can delete only within an MCP session" in refused

    run(scenario())


async def client_error_prompt(client: Any) -> str:
    """Forget mode with deletions, asked by a client without a session: refused."""
    try:
        await client.get_prompt(
            "forget-mode", {"instruction": "forget my address", "dryRun": "false"}
        )
    except Exception as exc:
        return str(exc)
    raise AssertionError("forget mode with deletions was granted without a session")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_elicitation_over_http(served: tuple[str, str], mode: str) -> None:
    """Both protocol eras: a direct request (legacy) and the input-required retry (2026)."""
    db, url = served
    yes, no = elicitation("accept"), elicitation("decline")

    async def scenario() -> None:
        async with http_client(url, TOKENS["owner"], elicit=no, mode=mode) as client:
            home = (await call(client, "remember", content=SEED_000[0]))["memory"]["id"]
            assert (await call(client, "forget", memory_id=home))["status"] == "declined"
            assert home in live_ids(db)
        async with http_client(url, TOKENS["owner"], elicit=yes, mode=mode) as client:
            assert (await call(client, "forget", memory_id=home))["status"] == "executed"
            assert home not in live_ids(db)

    run(scenario())
    assert len(yes.asked) == 1 and len(no.asked) == 1


def test_non_loopback_bind_without_tokens_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [LETHE, "mcp", "--http", "--host", "0.0.0.0", "--db", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "refusing to serve 0.0.0.0 without tokens" in done.stderr
    assert not (tmp_path / "m.db").exists(), "nothing created when the start is refused"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "holds no [[token]] tables"),
        ('[[token]]\ntoken = "short"\n', "at least 16"),
        ('[[token]]\ntoken = "0123456789abcdef0"\nrole = "admin"\n', "role must be one of"),
        ('[[token]]\ntoken = "0123456789abcdef0"\nnamespaces = []\n', "non-empty list"),
        ('[[token]]\ntoken = "0123456789abcdef0"\nsecret = 1\n', "unknown keys: secret"),
        ("[[token]\n", "cannot read token file"),
    ],
    ids=["empty", "short", "role", "namespaces", "unknown-key", "not-toml"],
)
def test_bad_token_files_are_refused_at_start(tmp_path: Path, content: str, message: str) -> None:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(content, encoding="utf-8")
    done = subprocess.run(
        [LETHE, "mcp", "--http", "--tokens", str(tokens), "--db", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and message in done.stderr, done.stderr


@pytest.mark.slow
@both_stores
def test_several_servers_share_one_database(db: str, tmp_path: Path) -> None:
    """Two `lethe mcp --http` processes on one database, as a team deployment runs them: what
    one remembers the other recalls; a session of one cannot confirm a forget pending in the
    other; once forgotten, neither returns it; trash and audit are the same on both."""
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(TOKEN_FILE.format(**TOKENS), encoding="utf-8")

    async def scenario(first: str, second: str) -> None:
        async with (
            http_client(first, TOKENS["owner"]) as a,
            http_client(second, TOKENS["owner"]) as b,
        ):
            home = (await call(a, "remember", content=SEED_000[0]))["memory"]["id"]
            other = (await call(b, "remember", content=SEED_000[2]))["memory"]["id"]
            hits = (await call(b, "recall", query="where does the user live?", k=1))["hits"]
            assert hits[0]["memory"]["id"] == home
            assert (await call(a, "forget", memory_id=home))["status"] == "pending"
            assert (await call(b, "forget", memory_id=home))["status"] == "pending"
            assert home in live_ids(db), "b's call does not confirm a's"
            assert (await call(a, "forget", memory_id=home))["status"] == "executed"
            for client in (a, b):
                found = (await call(client, "recall", query="San Francisco", k=5))["hits"]
                assert home not in {h["memory"]["id"] for h in found}
            trash = await call(b, "list_trash")
            assert [i["memory"]["id"] for i in trash["items"]] == [home]
            assert (await call(b, "restore", memory_id=home))["memory"]["id"] == home
            hits = (await call(a, "recall", query="where does the user live?", k=1))["hits"]
            assert hits[0]["memory"]["id"] == home
        assert events(db) == [
            ("remember", home),
            ("remember", other),
            ("confirmation_requested", home),  # a's first call
            ("confirmation_requested", home),  # b's, which did not confirm a's
            ("forget", home),
            ("restore", home),
        ]

    with (
        http_server(db, "--tokens", str(tokens)) as first,
        http_server(db, "--tokens", str(tokens)) as second,
    ):
        run(scenario(first, second))
