"""The precondition (`expected_sha256`) through the MCP face (issue 46): the tools pass it to
the engine and never check it themselves. A stale hash is refused with nothing changed, and
the engine checks it once per call (at planning; the writing transaction checks the plan)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from lethe.engine import Lethe
from lethe.engine.base import Core
from lethe.mcp.loader import EngineLoader
from lethe.mcp.runtime import Runtime
from lethe.mcp.server import build_server
from tests.backends import snapshot
from tests.mcp_support import call, elicitation, error


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every check of a precondition against the store, by memory id."""
    seen: list[str] = []
    real = Core.expect

    def spy(self: Core, memory_id: str, expected: str | None, **kw: Any) -> None:
        if expected is not None:
            seen.append(memory_id)
        real(self, memory_id, expected, **kw)

    monkeypatch.setattr(Core, "expect", spy)
    yield seen


@asynccontextmanager
async def in_process(db: Path, elicit: Any = None) -> AsyncIterator[Client]:
    runtime = Runtime(loader=EngineLoader(lambda: Lethe.open(db)))
    kwargs: dict[str, Any] = {"mode": "legacy"}
    if elicit is not None:
        kwargs["elicitation_callback"] = elicit
    async with Client(build_server(runtime), **kwargs) as client:
        yield client


TEXT = "The hotel door code is 4471"


@pytest.mark.anyio
@pytest.mark.parametrize("tool", ["forget", "update_memory"])
@pytest.mark.parametrize("elicit", [None, "accept"])
async def test_a_stale_hash_is_refused_once_with_nothing_changed(
    tmp_path: Path, checks: list[str], tool: str, elicit: str | None
) -> None:
    db = tmp_path / "m.db"
    asked = elicitation(elicit) if elicit else None
    async with in_process(db, asked) as client:
        made = (await call(client, "remember", content=TEXT))["memory"]
        now = (await call(client, "update_memory", memory_id=made["id"], content="Code 5582"))[
            "memory"
        ]
        extra = {"content": "Code 9999", "layer": "goal"} if tool == "update_memory" else {}
        before = snapshot(db)
        checks.clear()
        stale = await error(
            client, tool, memory_id=made["id"], expected_sha256=made["content_sha256"], **extra
        )
        assert "changed since you saw it" in stale and now["content_sha256"] in stale
        assert snapshot(db) == before  # nothing changed, nothing asked, nothing pending
        assert checks == [made["id"]]  # checked once, by the engine
        assert not (asked and asked.asked)


@pytest.mark.anyio
async def test_the_current_hash_goes_through_the_two_calls_checked_once_each(
    tmp_path: Path, checks: list[str]
) -> None:
    db = tmp_path / "m.db"
    async with in_process(db) as client:
        made = (await call(client, "remember", content=TEXT))["memory"]
        checks.clear()
        for _ in range(2):
            done = await call(
                client, "forget", memory_id=made["id"], expected_sha256=made["content_sha256"]
            )
        assert done["status"] == "executed" and done["deleted_ids"] == [made["id"]]
        assert checks == [made["id"]] * 2


@pytest.mark.anyio
async def test_a_change_put_to_the_human_is_checked_once(tmp_path: Path, checks: list[str]) -> None:
    """Asked and answered: the precondition is checked when the question's plan is made; the
    yes executes that plan (its transaction checks it again), not another one."""
    db = tmp_path / "m.db"
    asked = elicitation("accept")
    async with in_process(db, asked) as client:
        made = (await call(client, "remember", content="Never give peanuts", layer="caveat"))[
            "memory"
        ]
        checks.clear()
        done = await call(
            client,
            "update_memory",
            memory_id=made["id"],
            layer="episodic",
            expected_sha256=made["content_sha256"],
        )
        assert done["status"] == "updated" and done["memory"]["layer"] == "episodic"
        assert len(asked.asked) == 1 and checks == [made["id"]]
