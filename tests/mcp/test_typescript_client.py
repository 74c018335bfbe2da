"""The official TypeScript SDK (`@modelcontextprotocol/sdk`, 1.x, the line most desktop and IDE
clients use) against `lethe mcp`, over stdio and HTTP: a client this project did not write.
`make test` installs the pinned SDK under .venv/node; `tests/mcp/ts_client.mjs` runs the steps
and prints what the SDK handed the client.

The 1.x client checks a result's structured content against the tool's output schema even on
an error: each refusal here must reach it as a tool error whose text holds the hint, never as
a thrown -32602."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_support import LETHE, http_server

pytestmark = pytest.mark.npm

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / ".venv" / "node" / "node_modules" / "@modelcontextprotocol" / "sdk"
CLIENT = Path(__file__).with_name("ts_client.mjs")
SERVER_ARGS = ["--tools", "full", "--allow-purge"]


class Server:
    """Where the TypeScript client reaches `lethe mcp`: a command it spawns, or a URL."""

    def __init__(self, db: Path, url: str | None) -> None:
        self.db, self.url = db, url

    def run(self, tmp: Path, steps: list[dict[str, Any]], elicit: str | None = None) -> list[Any]:
        assert (SDK / "package.json").exists(), f"{SDK} is missing: `make test` installs it"
        env = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
        transport: dict[str, Any] = (
            {"url": self.url}
            if self.url
            else {"command": LETHE, "args": ["mcp", "--db", str(self.db), *SERVER_ARGS], "env": env}
        )
        spec = tmp / f"spec-{len(list(tmp.glob('spec-*')))}.json"
        # Every client lists the tools first, and a 1.x client then checks each result's
        # structured content against the tool's output schema.
        steps = [{"list": True}, *steps]
        spec.write_text(json.dumps({"transport": transport, "elicit": elicit, "steps": steps}))
        done = subprocess.run(
            ["node", str(CLIENT), str(SDK), str(spec)],
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert done.returncode == 0, done.stderr
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        assert len(answers) == len(steps), done.stdout
        return answers[1:]


@pytest.fixture(params=["stdio", "http"])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Server]:
    db = tmp_path / "m.db"
    if request.param == "stdio":
        yield Server(db, None)
        return
    with http_server(db, *SERVER_ARGS) as url:
        yield Server(db, url)


def call(tool: str, **args: Any) -> dict[str, Any]:
    return {"call": tool, "args": args}


def answered(answer: dict[str, Any]) -> dict[str, Any]:
    """The structured content of a result that is no error."""
    assert "thrown" not in answer, answer
    result = answer["result"]
    assert not result.get("isError"), result
    out: dict[str, Any] = result["structuredContent"]
    return out


def refused(answer: dict[str, Any]) -> str:
    """The text of a refusal, as the model reads it: a tool error with a hint, not a
    protocol error thrown at the client."""
    assert "thrown" not in answer, answer["thrown"]
    result = answer["result"]
    assert result["isError"] is True and "structuredContent" not in result, result
    [content] = result["content"]
    message, sep, hint = content["text"].partition("\n---\n")
    assert sep and message and hint, content["text"]
    assert result["_meta"]["lethe/refusal"]["hint"] == hint
    return str(content["text"])


def test_a_typescript_client_remembers_recalls_forgets_restores_and_purges(
    server: Server, tmp_path: Path
) -> None:
    [listed, home, tea, code] = server.run(
        tmp_path,
        [
            {"list": True},
            call("remember", content="User lives in Lisbon", tags=["home"]),
            call("remember", content="User loves green tea", tags=["drink"]),
            call("remember", content="The user's locker code is 4471"),
        ],
    )
    assert {"remember", "recall", "forget", "restore", "purge"} <= set(listed["tools"])
    home_id, tea_id, code_id = (answered(a)["memory"]["id"] for a in (home, tea, code))

    [found, first, second, back, purge_1, purge_2] = server.run(
        tmp_path,
        [
            call("recall", query="what does the user drink", tags=["home"], k=5),
            call("forget", memory_id=tea_id),
            call("forget", memory_id=tea_id),
            call("restore", memory_id=tea_id),
            call("purge", memory_id=code_id),  # the name forget takes, too
            call("purge", memory_id=code_id),
        ],
    )
    assert [h["memory"]["id"] for h in answered(found)["hits"]] == [home_id]
    assert answered(first)["status"] == "pending"
    assert answered(second)["status"] == "executed"
    assert answered(back)["memory"]["id"] == tea_id
    assert answered(purge_1)["status"] == "pending"
    receipt = answered(purge_2)["receipt"]
    assert receipt["status"] == "erased"
    assert [m["id"] for m in receipt["memories"]] == [code_id]

    [asked] = server.run(tmp_path, [call("forget", memory_id=tea_id)], elicit="accept")
    assert answered(asked)["status"] == "executed" and asked["asked"]


def test_a_typescript_client_reads_every_refusals_hint(server: Server, tmp_path: Path) -> None:
    [home] = server.run(tmp_path, [call("remember", content="User lives in Lisbon")])
    home_id = answered(home)["memory"]["id"]
    typo = home_id[:-1] + ("0" if home_id[-1] != "0" else "1")
    [gone] = server.run(tmp_path, [call("remember", content="User loves green tea")])
    gone_id = answered(gone)["memory"]["id"]
    answers = server.run(
        tmp_path,
        [
            call("forget", memory_id=gone_id),
            call("forget", memory_id=gone_id),
            call("get_memory", memory_id=typo),
            call("get_memory", memory_id=gone_id),
            call("restore", memory_id=home_id),
            call("forget", memory_id=home_id, query="Lisbon"),
            call("update_memory", memory_id=home_id, importance=5),
            call("remember", content=""),
        ],
    )
    texts = [refused(a) for a in answers[2:]]
    assert f'did you mean "{home_id}"' in texts[0] or home_id in texts[0]
    assert "restore(" in texts[1] and "trash" in texts[1]
    assert "not in the trash" in texts[2]
    assert "not both" in texts[3]
    assert "importance" in texts[4]
    assert "content" in texts[5]
