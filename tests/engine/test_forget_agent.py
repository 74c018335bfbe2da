"""Forget mode's agent loop against a scripted stand-in for an OpenAI-compatible endpoint.

No LLM is reachable here. `ScriptedLLM` is a real HTTP server on loopback that answers each
chat-completions request with the next recorded assistant message (tool calls or a final
answer) and keeps every request it received — a named fake for the one part that cannot
exist in this environment. Everything on lethe's side (HTTP client, session, guards, store)
is real.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import jsonschema
import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.engine.forget_agent import LLMUnavailable
from lethe.schemas import load
from tests.backends import snapshot
from tests.engine.test_forgetting import SEED_000

validator = jsonschema.Draft202012Validator(load("forget-response"))


class ScriptedLLM:
    """Replays assistant messages in order; records the requests."""

    def __init__(self) -> None:
        self.script: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers["Content-Length"])
                outer.requests.append(json.loads(self.rfile.read(length)))
                outer.headers.append(dict(self.headers))
                message = outer.script.pop(0) if outer.script else {"content": "{}"}
                body = json.dumps(
                    {"choices": [{"message": {"role": "assistant", **message}}]}
                ).encode()
                self.send_response(200 if self.path == "/v1/chat/completions" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def tool_messages(self, n: int) -> list[dict[str, Any]]:
        """What lethe sent back for the tool calls of request n (the tool results)."""
        return [m for m in self.requests[n]["messages"] if m["role"] == "tool"]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    call.n += 1  # type: ignore[attr-defined]
    return {
        "id": f"call_{call.n}",  # type: ignore[attr-defined]
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


call.n = 0  # type: ignore[attr-defined]


def final(notes: str) -> dict[str, Any]:
    return {"content": json.dumps({"status": "ok", "index": "default", "plan": [], "notes": notes})}


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    stand_in = ScriptedLLM()
    yield stand_in
    stand_in.server.shutdown()


@pytest.fixture
def agent_mem(db: str, embedder: Embedder, llm: ScriptedLLM) -> Iterator[Lethe]:
    with Lethe.open(
        db,
        embedder=embedder,
        llm_base_url=llm.url,
        llm_model="scripted-model",
        llm_api_key="sk-test",
    ) as mem:
        yield mem


def ids_of(mem: Lethe) -> dict[str, str]:
    return {t: mem.remember(t).id for t in SEED_000}


def test_a_model_deleting_during_dry_run_is_refused(
    agent_mem: Lethe, llm: ScriptedLLM, db: str
) -> None:
    ids = ids_of(agent_mem)
    before = snapshot(db)
    llm.script = [
        {"tool_calls": [call("search_memories", query="I live in San Francisco")]},
        {"tool_calls": [call("delete_memories", ids=[ids[SEED_000[0]]])]},
        final("Planned the San Francisco memories."),
    ]
    answer = agent_mem.forget_instruction("Forget that I live in San Francisco")
    validator.validate(answer)
    assert answer["dryRun"] is True and answer["plan"][0]["id"] == ids[SEED_000[0]]
    refused = json.loads(llm.tool_messages(2)[-1]["content"])
    assert "dry run" in refused["error"]
    assert "lethe refused" in answer["notes"]
    assert snapshot(db) == before
    first = llm.requests[0]
    assert first["model"] == "scripted-model"
    assert {t["function"]["name"] for t in first["tools"]} == {"search_memories", "delete_memories"}
    assert "FORGET MODE" in first["messages"][0]["content"]
    assert llm.headers[0]["Authorization"] == "Bearer sk-test"


def test_a_fourth_search_is_refused(agent_mem: Lethe, llm: ScriptedLLM) -> None:
    ids_of(agent_mem)
    llm.script = [
        {"tool_calls": [call("search_memories", query=q)]}
        for q in ("San Francisco", "Bay Area", "California", "Golden Gate")
    ] + [final("done")]
    answer = agent_mem.forget_instruction("Forget San Francisco")
    validator.validate(answer)
    fourth = json.loads(llm.tool_messages(4)[-1]["content"])
    assert "at most 3 searches" in fourth["error"]
    accepted = [json.loads(m["content"]) for m in llm.tool_messages(3)]
    assert all("candidates" in a for a in accepted)


def test_sys_ids_and_unmatched_ids_are_never_deleted(agent_mem: Lethe, llm: ScriptedLLM) -> None:
    ids = ids_of(agent_mem)
    llm.script = [
        {"tool_calls": [call("search_memories", query="I live in San Francisco")]},
        {
            "tool_calls": [
                call(
                    "delete_memories",
                    ids=["sys_0123456789ab", ids[SEED_000[0]], ids[SEED_000[2]], "mem_bad"],
                )
            ]
        },
        final("Deleted."),
    ]
    answer = agent_mem.forget_instruction("Forget where I live", dry_run=False)
    validator.validate(answer)
    reply = json.loads(llm.tool_messages(2)[-1]["content"])
    assert "malformed" in reply["error"], "a bad id fails the whole call before any deletion"
    assert answer["deletedCount"] == 0
    live = {m.id for m in agent_mem.list_memories(limit=10).items}
    assert live == set(ids.values())


def test_an_execution_deletes_the_clear_match(agent_mem: Lethe, llm: ScriptedLLM) -> None:
    ids = ids_of(agent_mem)
    llm.script = [
        {"tool_calls": [call("search_memories", query="I live in San Francisco")]},
        {
            "tool_calls": [
                call(
                    "delete_memories", ids=["sys_0123456789ab", ids[SEED_000[0]], ids[SEED_000[2]]]
                )
            ]
        },
        final("Deleted the memory about where the user lives."),
    ]
    answer = agent_mem.forget_instruction("Forget where I live", dry_run=False)
    validator.validate(answer)
    assert answer["deletedIds"] == [ids[SEED_000[0]]]
    refused = {r["id"] for r in answer["refused"]}
    assert refused == {"sys_0123456789ab", ids[SEED_000[2]]}
    assert answer["notes"].startswith("Deleted the memory about where the user lives.")
    [event] = agent_mem.audit(op="forget")
    assert event.actor == "forget-mode" and event.reason.startswith("forget mode:")  # type: ignore[union-attr]


def test_an_unreachable_endpoint_is_a_clear_error(db: str, embedder: Embedder) -> None:
    with Lethe.open(
        db, embedder=embedder, llm_base_url="http://127.0.0.1:9/v1", llm_model="m"
    ) as mem:
        mem.remember("User likes jazz")
        before = snapshot(db)
        with pytest.raises(LLMUnavailable, match="could not be used"):
            mem.forget_instruction("Forget jazz")
        assert snapshot(db) == before
        fallback = mem.forget_instruction("Forget jazz", use_llm=False)
        validator.validate(fallback)


def test_a_sweep_compresses_with_an_llm_written_summary(
    db: str, embedder: Embedder, llm: ScriptedLLM
) -> None:
    from tests.engine.test_forgetting import Clock

    clock = Clock()
    settings = {"llm_base_url": llm.url, "llm_model": "scripted-model", "decay_policy": "auto"}
    with Lethe.open(db, embedder=embedder, clock=clock, **settings) as mem:
        a = mem.remember("User tried a pottery class").id
        b = mem.remember("User went to a jazz concert in spring").id
        clock.advance(days=55)
        plan = mem.sweep()
        assert {i.id for i in plan.items if i.action == "compress"} == {a, b}
        llm.script = [{"content": "Summary: pottery class; spring jazz concert."}]
        result = mem.execute_sweep(plan)
        assert mem.get(result.summary_ids[0]).content == (
            "Summary: pottery class; spring jazz concert."
        )
        request = llm.requests[-1]
        assert "tools" not in request
        assert "pottery class" in request["messages"][1]["content"]

        mem.restore(a)
        mem.restore(b)
        clock.advance(days=1)
        llm.server.shutdown()
        llm.server.server_close()
        before = snapshot(db)
        with pytest.raises(LLMUnavailable):
            mem.execute_sweep(mem.sweep())
        assert snapshot(db) == before, "a failed summary changes nothing"
