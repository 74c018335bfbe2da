"""`lethe mcp --http` answers a client's opening request before the MCP SDK has loaded, with
the answer the SDK would give, and then hands the session to the SDK: the early session's id
keeps working, the client's capabilities reach the SDK, and what the SDK would refuse is
never answered early. The server under test builds its SDK app only once a gate file
exists, so an answer that arrives while the gate is shut cannot have come from the SDK."""

from __future__ import annotations

import asyncio
import http.client
import json
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from lethe.mcp.handshake import answer_discover, answer_initialize
from tests.backends import live_ids
from tests.mcp.test_stdio import SEED_000
from tests.mcp_support import call, elicitation, gated_http_server, stop

CLIENT = {"name": "test-client", "version": "1.0"}
ACCEPT = "application/json, text/event-stream"
META = "io.modelcontextprotocol/"


def initialize(capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    params = {"protocolVersion": "2025-11-25", "capabilities": capabilities or {}}
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {**params, "clientInfo": CLIENT},
    }


def discover(capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    meta = {
        META + "protocolVersion": "2026-07-28",
        META + "clientInfo": CLIENT,
        META + "clientCapabilities": capabilities or {},
    }
    return {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}}


DISCOVER_HEADERS = {"mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover"}


class Answer:
    def __init__(self, response: http.client.HTTPResponse) -> None:
        self.status = response.status
        self.headers = {k.lower(): v for k, v in response.getheaders()}
        self.body = response.read()

    @property
    def message(self) -> dict[str, Any]:
        """The JSON-RPC message, from a JSON body or the one event of an SSE stream."""
        text = self.body.decode()
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
            assert len(data) == 1, text
            text = data[0]
        message: dict[str, Any] = json.loads(text)
        return message

    def shape(self) -> dict[str, str]:
        """The headers that do not vary from one answer to the next."""
        varying = {"date", "mcp-session-id", "content-length", "transfer-encoding"}
        return {k: v for k, v in self.headers.items() if k not in varying}


def exchange(
    url: str,
    method: str = "POST",
    body: dict[str, Any] | None = None,
    *,
    session: str | None = None,
    headers: dict[str, str] | None = None,
) -> Answer:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
    sent = {"content-type": "application/json", "accept": ACCEPT, **(headers or {})}
    if session is not None:
        sent |= {"mcp-session-id": session, "mcp-protocol-version": "2025-11-25"}
    try:
        payload = None if body is None else json.dumps(body)
        connection.request(method, parts.path, payload, sent)
        return Answer(connection.getresponse())
    finally:
        connection.close()


def still_waiting(*futures: Future[Any]) -> bool:
    """None of `futures` is answered within a moment (they cannot be before the gate)."""
    for future in futures:
        try:
            future.result(timeout=0.3)
        except TimeoutError:
            continue
        return False
    return True


def test_an_early_session_is_answered_and_then_served_by_the_sdk(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    with gated_http_server(tmp_path / "m.db", gate) as (url, _), ThreadPoolExecutor(4) as pool:
        opened = exchange(url, body=initialize())
        assert opened.status == 200
        early = answer_initialize(json.dumps(initialize()).encode())
        assert early is not None and opened.message == json.loads(early.body)
        ours = opened.headers["mcp-session-id"]
        assert len(ours) == 32

        discovered = exchange(url, body=discover(), headers=DISCOVER_HEADERS)
        early_discover = answer_discover(json.dumps(discover()).encode(), DISCOVER_HEADERS)
        assert early_discover is not None
        assert discovered.status == 200 and discovered.message == json.loads(early_discover.body)

        notified = pool.submit(
            exchange,
            url,
            body={"jsonrpc": "2.0", "method": "notifications/initialized"},
            session=ours,
        )
        listed = pool.submit(
            exchange, url, body={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session=ours
        )
        assert still_waiting(notified, listed), "answered without the SDK"
        gate.touch()

        assert notified.result(60).status == 202
        tools = listed.result(60)
        assert tools.status == 200 and tools.headers["mcp-session-id"] == ours
        assert tools.message["id"] == 2, "the SDK's own answer to initialize must not reach us"
        assert "remember" in {tool["name"] for tool in tools.message["result"]["tools"]}

        # The SDK now answers the same requests as the early path did, alike.
        sdk_opened = exchange(url, body=initialize({"x-lethe-test": {}}))
        assert sdk_opened.message == opened.message and sdk_opened.shape() == opened.shape()
        assert sdk_opened.headers["mcp-session-id"] not in (ours, None)
        sdk_discovered = exchange(
            url, body=discover({"x-lethe-test": {}}), headers=DISCOVER_HEADERS
        )
        assert sdk_discovered.message == discovered.message
        assert sdk_discovered.shape() == discovered.shape()

        ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
        assert exchange(url, body=ping, session=ours).message == {
            "jsonrpc": "2.0",
            "id": 3,
            "result": {},
        }
        assert exchange(url, body=ping, session=uuid.uuid4().hex).status == 404
        assert exchange(url, "DELETE", session=ours).status == 200
        assert exchange(url, body=ping, session=ours).status == 404


def test_an_opening_whose_body_ends_after_the_sdk_is_ready_goes_to_the_sdk(
    tmp_path: Path,
) -> None:
    """The body of an `initialize` arrives in two parts, the SDK becoming ready in between: the
    SDK answers it (an early answer now would open a session never handed to the SDK)."""
    gate = tmp_path / "gate"
    with gated_http_server(tmp_path / "m.db", gate) as (url, _), ThreadPoolExecutor(1) as pool:
        parts = urlsplit(url)
        body = json.dumps(initialize()).encode()
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=60)
        try:
            connection.putrequest("POST", parts.path)
            for name, value in (
                ("content-type", "application/json"),
                ("accept", ACCEPT),
                ("content-length", str(len(body))),
            ):
                connection.putheader(name, value)
            connection.endheaders(body[:20])
            waiting = pool.submit(exchange, url, body=initialize({"x-lethe-test": {}}))
            assert still_waiting(waiting)
            gate.touch()
            assert waiting.result(60).status == 200  # the SDK is ready
            connection.send(body[20:])
            opened = Answer(connection.getresponse())
        finally:
            connection.close()
        assert opened.status == 200 and opened.message["id"] == 1
        session = opened.headers["mcp-session-id"]
        listed = exchange(
            url, body={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session=session
        )
        assert listed.status == 200 and listed.message["result"]["tools"]


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"accept": "application/json"}, 406),
        ({"content-type": "text/plain"}, 400),
    ],
)
def test_what_the_sdk_would_refuse_waits_for_the_sdk(
    tmp_path: Path, headers: dict[str, str], status: int
) -> None:
    gate = tmp_path / "gate"
    with gated_http_server(tmp_path / "m.db", gate) as (url, _), ThreadPoolExecutor(2) as pool:
        refused = pool.submit(exchange, url, body=initialize(), headers=headers)
        modern = pool.submit(
            exchange, url, body=discover(), headers={**DISCOVER_HEADERS, **headers}
        )
        assert still_waiting(refused, modern), "answered early where the SDK refuses"
        gate.touch()
        assert refused.result(60).status == status
        assert modern.result(60).status == status


def test_a_host_or_origin_not_naming_this_server_whole_is_refused_at_once(
    tmp_path: Path,
) -> None:
    """On loopback a request must name this machine at this server's port, whole: a name
    that only begins like it, a user-info trick or another port is refused with 421 (Host)
    or 403 (Origin), before the SDK has loaded and after, and never answered early."""
    gate = tmp_path / "gate"
    with gated_http_server(tmp_path / "m.db", gate) as (url, _):
        port = urlsplit(url).port
        refusals = [
            ({"host": "evil.example:8765"}, 421),
            ({"host": f"127.0.0.1:{port}.evil.example"}, 421),
            ({"host": f"127.0.0.1:{port}@evil.example"}, 421),
            ({"host": "localhost:1"}, 421),
            ({"origin": "http://evil.example"}, 403),
            ({"origin": "http://localhost:1"}, 403),
            ({"origin": f"http://127.0.0.1:{port}.evil.example"}, 403),
        ]
        for opened in (False, True):
            if opened:
                gate.touch()
            for headers, status in refusals:
                answer = exchange(url, body=initialize(), headers=headers)
                assert answer.status == status, (headers, answer.body)
                assert b"jsonrpc" not in answer.body
        fine = exchange(url, body=initialize(), headers={"host": f"localhost:{port}"})
        assert fine.status == 200 and fine.message["id"] == 1


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_sdk_clients_start_before_the_sdk_has_loaded(tmp_path: Path, mode: str) -> None:
    """The client's opening request is answered while the gate is shut; its next request opens
    the gate. Elicitation then works: the SDK saw the client's capabilities."""
    gate, db = tmp_path / "gate", tmp_path / "m.db"
    opening = {"legacy": "initialize", "auto": "server/discover"}[mode]
    seen: list[tuple[str, bool]] = []

    def method(request: Any) -> str:
        name = json.loads(request.content).get("method") if request.content else None
        return str(name or request.method)

    async def on_request(request: Any) -> None:
        if method(request) != opening:
            gate.touch()

    async def on_response(response: Any) -> None:
        seen.append((method(response.request), gate.exists()))

    yes = elicitation("accept")

    async def scenario(url: str) -> None:
        async with create_mcp_http_client() as http:
            http.event_hooks = {"request": [on_request], "response": [on_response]}
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode=mode, elicitation_callback=yes) as client:
                memory = (await call(client, "remember", content=SEED_000[0]))["memory"]["id"]
                assert (await call(client, "forget", memory_id=memory))["status"] == "executed"

    with gated_http_server(db, gate) as (url, _):
        asyncio.run(scenario(url))
    assert seen[0] == (opening, False), seen
    assert len(yes.asked) == 1
    assert live_ids(str(db)) == set()


def test_a_build_that_fails_stops_the_server_and_says_why(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    with gated_http_server(tmp_path / "m.db", gate, fail=True) as (url, proc):
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(exchange, url, body=initialize({"x-lethe-test": {}}))
            assert still_waiting(waiting)
            gate.touch()
            answer = waiting.result(60)
        assert answer.status == 503 and b"the build broke on purpose" in answer.body
        assert proc.wait(30) != 0
        stop(proc)
        assert proc.stderr is not None and b"the build broke on purpose" in proc.stderr.read()
