"""Hardening of the MCP server, found by attack (issue 16): session keys that cannot collide,
HTTP sessions kept to the token that opened them, text that is not text refused with a
message (never a hang, never stored), and a sweep that forgets asked like a forget.

Driven over real transports: a `lethe mcp` process on stdio (raw JSON-RPC lines where the
SDK's client cannot even send the malformed input) and over streamable HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import select
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from lethe.embed import Embedder
from lethe.mcp.runtime import session_key
from tests.backends import live_ids, snapshot
from tests.mcp.test_tools_decay import aged_store
from tests.mcp_support import (
    LETHE,
    call,
    elicitation,
    error,
    free_port,
    http_client,
    http_server,
    stdio_client,
    stop,
    wait_for_port,
)

LONG_NAME = "assistant-" + "x" * 110  # 120 characters: past the old cut at 120 of the key
TOKENS = {"long": "long-token-0123456789abcdef", "other": "other-token-0123456789abcdef"}
TOKEN_FILE = f"""
[[token]]
name = "{LONG_NAME}"
token = "{TOKENS["long"]}"
namespaces = ["default"]
role = "forget"

[[token]]
name = "other"
token = "{TOKENS["other"]}"
namespaces = ["default"]
role = "forget"
"""
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


@pytest.fixture
def served(db: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(TOKEN_FILE, encoding="utf-8")
    with http_server(db, "--tokens", str(tokens)) as url:
        yield db, url


# -- session keys ---------------------------------------------------------------------------


def test_session_keys_differ_whatever_the_length_of_the_token_name() -> None:
    a, b = session_key("mcp", LONG_NAME, "session-a"), session_key("mcp", LONG_NAME, "session-b")
    assert a != b and len(a) <= 128 and len(b) <= 128
    assert session_key("mcp", "ab", "c") != session_key("mcp", "a", "bc")
    assert len(session_key("token", "n" * 128)) <= 128
    assert session_key("mcp", LONG_NAME, "s") == session_key("mcp", LONG_NAME, "s")


def test_two_sessions_of_a_long_named_token_cannot_confirm_each_other(
    served: tuple[str, str],
) -> None:
    db, url = served

    async def scenario() -> None:
        async with (
            http_client(url, TOKENS["long"]) as a,
            http_client(url, TOKENS["long"]) as b,
        ):
            home = (await call(a, "remember", content="User lives in Lisbon"))["memory"]["id"]
            assert (await call(a, "forget", memory_id=home))["status"] == "pending"
            assert (await call(b, "forget", memory_id=home))["status"] == "pending", (
                "another session's first call is its own first call"
            )
            assert home in live_ids(db)
            assert (await call(a, "forget", memory_id=home))["status"] == "executed"

    run(scenario())


# -- an HTTP session belongs to its token --------------------------------------------------

PATIENCE = 60.0
"""Seconds a request may take: the client's default (5) was once too short for a call under
the load of a full test run on two cores."""


def _post(url: str, **kwargs: Any) -> httpx2.Response:
    return httpx2.post(url, **{"timeout": PATIENCE, **kwargs})


def _delete(url: str, **kwargs: Any) -> httpx2.Response:
    return httpx2.delete(url, **{"timeout": PATIENCE, **kwargs})


def _open_session(url: str, token: str) -> str:
    auth = {"authorization": f"Bearer {token}"}
    opened = _post(url, json=INITIALIZE, headers={**HEADERS, **auth})
    assert opened.status_code == 200, opened.text
    session: str = opened.headers["mcp-session-id"]
    notified = _post(
        url,
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers={**HEADERS, **auth, "mcp-session-id": session},
    )
    assert notified.status_code == 202, notified.text
    return session


def _remember(url: str, headers: dict[str, str], content: str) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 99,
        "method": "tools/call",
        "params": {"name": "remember", "arguments": {"content": content}},
    }
    done = _post(
        url,
        json=body,
        headers={**HEADERS, **headers, "mcp-protocol-version": "2025-06-18"},
        timeout=120,
    )
    assert done.status_code == 200 and '"isError":false' in done.text, done.text


def test_another_token_cannot_end_or_use_a_session(served: tuple[str, str]) -> None:
    db, url = served
    session = _open_session(url, TOKENS["long"])
    theirs = {"authorization": f"Bearer {TOKENS['other']}", "mcp-session-id": session}
    mine = {"authorization": f"Bearer {TOKENS['long']}", "mcp-session-id": session}
    _remember(url, mine, "User lives in Lisbon")  # the store is open
    before = snapshot(db)

    ended = _delete(url, headers={**HEADERS, **theirs})
    assert ended.status_code == 403
    assert "not opened with your token" in ended.json()["error"]["message"]
    remember = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "remember", "arguments": {"content": "planted"}},
    }
    planted = _post(url, json=remember, headers={**HEADERS, **theirs})
    assert planted.status_code == 403
    assert snapshot(db) == before

    listed = _post(
        url,
        json={"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}},
        headers={**HEADERS, **mine, "mcp-protocol-version": "2025-06-18"},
    )
    assert listed.status_code == 200 and '"remember"' in listed.text, "the session lives on"
    assert _delete(url, headers={**HEADERS, **mine}).status_code in (200, 204)
    gone = _post(url, json=remember, headers={**HEADERS, **mine})
    assert gone.status_code == 404, "ended by its own token"


# -- text that is not text ------------------------------------------------------------------


class RawStdio:
    """`lethe mcp` on stdio, spoken to in raw lines (bytes the SDK's client cannot send)."""

    def __init__(self, db: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
        self.proc = subprocess.Popen(
            [LETHE, "mcp", "--db", db],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )

    def send(self, line: bytes | dict[str, Any]) -> None:
        raw = json.dumps(line).encode() if isinstance(line, dict) else line
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def answer(self, seconds: float = 60) -> dict[str, Any]:
        """The next line the server writes; fails (never hangs) if none comes."""
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], seconds)
        assert ready, "the server gave no answer"
        message: dict[str, Any] = json.loads(self.proc.stdout.readline())
        return message

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _tool_call(n: int, name: str, arguments: str) -> bytes:
    """A tools/call line with `arguments` spliced in as raw JSON text."""
    head = f'{{"jsonrpc":"2.0","id":{n},"method":"tools/call","params":{{"name":"{name}",'
    return head.encode() + b'"arguments":' + arguments.encode("utf-8", "surrogateescape") + b"}}"


def test_stdio_answers_text_that_is_not_text_and_stores_nothing(db: str) -> None:
    server = RawStdio(db)
    try:
        # Even the first line: bytes that are not UTF-8 are refused, not read as U+FFFD.
        server.send(
            json.dumps(INITIALIZE).replace("raw", "r\udcffw", 1).encode("utf-8", "surrogateescape")
        )
        refused = server.answer()
        assert refused["id"] == 1 and refused["error"]["code"] == -32700
        assert "not valid UTF-8 (byte 0xff" in refused["error"]["message"]
        server.send(INITIALIZE)
        assert server.answer()["result"]["serverInfo"]["name"] == "lethe"
        server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        server.send(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "remember", "arguments": {"content": "kept"}},
            }
        )
        assert server.answer()["id"] == 2
        before = snapshot(db)

        server.send(_tool_call(3, "remember", '{"content": "a \\ud800 b"}'))
        surrogate = server.answer()
        assert surrogate["id"] == 3 and surrogate["error"]["code"] == -32602
        message = surrogate["error"]["message"]
        assert "params.arguments.content holds a lone surrogate (\\ud800)" in message
        server.send(_tool_call(4, "recall", '{"query": "caf\udce9"}'))
        bad_bytes = server.answer()
        assert (
            bad_bytes["id"] == 4 and "not valid UTF-8 (byte 0xe9" in bad_bytes["error"]["message"]
        )
        # A notification has no answer; it is dropped and the server goes on.
        server.send(
            b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"x":"\\udfff"}}'
        )
        server.send(_tool_call(5, "remember", '{"content": "nul \\u0000 inside"}'))
        nul = server.answer()
        assert nul["id"] == 5 and nul["result"]["isError"] is True
        assert "content contains a NUL character" in nul["result"]["content"][0]["text"]
        server.send(_tool_call(6, "remember", '{"content": "ok", "metadata": {"k\\u0000": 1}}'))
        assert "a key in metadata contains a NUL" in server.answer()["result"]["content"][0]["text"]
        assert snapshot(db) == before

        server.send(_tool_call(7, "recall", '{"query": "kept"}'))
        alive = server.answer()
        assert alive["id"] == 7 and alive["result"]["isError"] is False
    finally:
        server.close()


def test_http_answers_text_that_is_not_text_with_a_clear_error(served: tuple[str, str]) -> None:
    db, url = served
    session = _open_session(url, TOKENS["long"])
    mine = {
        **HEADERS,
        "authorization": f"Bearer {TOKENS['long']}",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-06-18",
    }
    _remember(url, mine, "User lives in Lisbon")  # the store is open
    before = snapshot(db)
    surrogate = _post(
        url, content=_tool_call(8, "remember", '{"content": "\\udbff!"}'), headers=mine
    )
    assert surrogate.status_code == 400
    body = surrogate.json()
    assert body["id"] == 8 and "lone surrogate (\\udbff)" in body["error"]["message"]
    bad_bytes = _post(
        url, content=_tool_call(9, "remember", '{"content": "\udcc3("}'), headers=mine
    )
    assert bad_bytes.status_code == 400
    assert bad_bytes.json()["id"] == 9
    assert "not valid UTF-8 (byte 0xc3" in bad_bytes.json()["error"]["message"]
    assert snapshot(db) == before


def test_nul_in_any_tool_argument_is_a_tool_error(db: str) -> None:
    async def scenario() -> None:
        async with stdio_client(db) as client:
            kept = (await call(client, "remember", content="User likes tea"))["memory"]["id"]
            before = snapshot(db)
            for tool, arguments, where in (
                ("remember", {"content": "tea\x00"}, "content contains a NUL"),
                ("remember", {"content": "tea", "tags": ["a\x00b"]}, "tags[0] contains a NUL"),
                ("remember", {"content": "tea", "category": "\x00"}, "category contains a NUL"),
                ("recall", {"query": "tea\x00"}, "query contains a NUL"),
                ("recall", {"query": "tea", "where": ["x = \x00"]}, "where[0] contains a NUL"),
                (
                    "update_memory",
                    {"memory_id": kept, "content": "coffee\x00"},
                    "content contains a NUL",
                ),
            ):
                assert where in await error(client, tool, **arguments), tool
            assert snapshot(db) == before

    run(scenario())


# -- a sweep that forgets is asked like a forget --------------------------------------------


@pytest.mark.slow
def test_sweep_execute_asks_a_client_that_can_be_asked(db: str, embedder: Embedder) -> None:
    old = aged_store(db, embedder)
    no, yes = elicitation("decline"), elicitation("accept")
    auto = {"LETHE_DECAY_POLICY": "auto"}

    async def scenario() -> None:
        async with stdio_client(db, env=auto, elicit=no) as client:
            report = await call(client, "sweep")
            before = snapshot(db)
            declined = await call(client, "execute_sweep", plan_id=report["plan_id"])
            assert declined["executed"] is False and declined["dropped_ids"] == []
            assert "said no" in declined["message"]
            after = snapshot(db)
            assert {t: r for t, r in after.items() if t != "events"} == {
                t: r for t, r in before.items() if t != "events"
            }, "nothing but the record of the question and the answer"
            assert old in live_ids(db)
            trail = await call(client, "audit_log", op="forget_declined")
            [refusal] = [e for e in trail["events"] if e["details"].get("operation") == "sweep"]
            assert refusal["details"]["plan"] == report["plan_id"]
            asked = await call(client, "audit_log", op="confirmation_requested")
            assert [e["details"]["plan"] for e in asked["events"]] == [report["plan_id"]]
            again = await error(client, "execute_sweep", plan_id=report["plan_id"])
            assert "plan_id of a sweep report" in again, "a declined plan is dropped"
        async with stdio_client(db, env=auto, elicit=yes) as client:
            report = await call(client, "sweep")
            done = await call(client, "execute_sweep", plan_id=report["plan_id"])
            assert done["executed"] is True and done["dropped_ids"] == [old]

    run(scenario())
    assert len(no.asked) == 1 and len(yes.asked) == 1
    assert "red bicycle" in no.asked[0] and old in no.asked[0] and "forget 1 memory" in no.asked[0]


def test_sweep_execute_asks_over_the_2026_retry_flow(db: str, embedder: Embedder) -> None:
    old = aged_store(db, embedder)
    no = elicitation("decline")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
    port = free_port()
    proc = subprocess.Popen(
        [LETHE, "mcp", "--http", "--port", str(port), "--db", db, "--tools", "full"],
        env={**env, "LETHE_DECAY_POLICY": "auto"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )

    async def scenario() -> None:
        url = f"http://127.0.0.1:{port}/mcp"
        async with http_client(url, elicit=no, mode="auto") as client:
            report = await call(client, "sweep")
            declined = await call(client, "execute_sweep", plan_id=report["plan_id"])
            assert declined["executed"] is False and old in live_ids(db)

    try:
        wait_for_port(proc, port, "lethe mcp --http")
        run(scenario())
    finally:
        stop(proc)
    assert len(no.asked) == 1 and "red bicycle" in no.asked[0]
