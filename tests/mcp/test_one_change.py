"""A change is one value through the layers (issue 46): the MCP tool, the command line and the
facade's keywords each build one `Change` and hand it to the engine whole, and the engine,
which checks it, refuses a bad value with the message the keywords always had.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from typer.testing import CliRunner

from lethe.cli import app
from lethe.engine import Lethe
from lethe.engine.versions import Versions
from lethe.errors import InvalidInput
from lethe.forget.change import Change, UpdatePlan
from lethe.mcp.loader import EngineLoader
from lethe.mcp.runtime import Runtime
from lethe.mcp.server import build_server
from tests.mcp_support import call

TEXT = "Miso the cat sleeps on the blue sofa"
NEW = "Miso the cat sleeps on the green sofa"
ASKED = Change(content=NEW, tags=("pets", "home"), importance=0.7, reason="new sofa")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's own database, settings and config out of the CLI's run."""
    for name in [n for n in os.environ if n.startswith("LETHE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("LETHE_CONFIG", str(tmp_path / "no-such-config.toml"))


@pytest.fixture
def planned(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, Change]]]:
    """Every change `Versions.plan_update` is handed, with its memory id."""
    seen: list[tuple[str, Change]] = []
    real = Versions.plan_update

    def spy(self: Versions, memory_id: str, change: Change, **kw: Any) -> UpdatePlan:
        seen.append((memory_id, change))
        return real(self, memory_id, change, **kw)

    monkeypatch.setattr(Versions, "plan_update", spy)
    yield seen


@asynccontextmanager
async def in_process(db: Path) -> AsyncIterator[Client]:
    runtime = Runtime(loader=EngineLoader(lambda: Lethe.open(db)))
    async with Client(build_server(runtime), mode="legacy") as client:
        yield client


@pytest.mark.anyio
async def test_the_mcp_tool_the_cli_and_the_facade_hand_the_engine_one_equal_change(
    tmp_path: Path, planned: list[tuple[str, Change]]
) -> None:
    db = tmp_path / "m.db"
    async with in_process(db) as client:
        made = (await call(client, "remember", content=TEXT))["memory"]
        planned.clear()
        await call(
            client,
            "update_memory",
            memory_id=made["id"],
            content=NEW,
            tags=["pets", "home"],
            importance=0.7,
            reason="new sofa",
        )
    assert planned == [(made["id"], ASKED)]
    planned.clear()

    args = ["update", made["id"], "--content", NEW, "--tag", "pets", "--tag", "home"]
    args += ["--importance", "0.7", "--reason", "new sofa", "--db", str(db)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    assert planned == [(made["id"], ASKED)]
    planned.clear()

    with Lethe.open(db) as mem:
        keywords = dict(content=NEW, tags=["pets", "home"], importance=0.7, reason="new sofa")
        mem.plan_update(made["id"], **keywords)  # type: ignore[arg-type]
        mem.update(made["id"], **keywords)  # type: ignore[arg-type]
        mem.plan_update(made["id"], change=ASKED)
    assert planned == [(made["id"], ASKED)] * 3


def test_a_bad_value_in_a_change_gets_the_message_its_keyword_gets(tmp_path: Path) -> None:
    with Lethe.open(tmp_path / "m.db") as mem:
        made = mem.remember(TEXT)
        bad: list[dict[str, Any]] = [
            {"importance": 2},
            {"importance": "high"},
            {"tags": 5},
            {"layer": "nowhere"},
            {"private": "yes"},
            {"metadata": {"a": 1}, "merge_metadata": {"b": 2}},
            {"expires_in": "soon"},
            {"expected_sha256": "abc"},
        ]
        for fields in bad:
            messages = [
                _refusal(mem.update, made.id, **fields),
                _refusal(mem.plan_update, made.id, change=Change(**fields)),
                _refusal(mem.update, made.id, change=Change(**fields)),
            ]
            assert len(set(messages)) == 1, (fields, messages)
        refused = _refusal(mem.update, made.id, change=Change(importance=2))
        assert refused == "importance must be between 0 and 1, got 2"
        assert mem.get(made.id).version == 1  # nothing was changed


def _refusal(method: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(InvalidInput) as refused:
        method(*args, **kwargs)
    return refused.value.message


def test_a_change_and_its_fields_as_keywords_at_once_are_refused(tmp_path: Path) -> None:
    with Lethe.open(tmp_path / "m.db") as mem:
        made = mem.remember(TEXT)
        with pytest.raises(InvalidInput, match="give a change or its fields"):
            mem.update(made.id, change=Change(content=NEW), importance=0.7)
        with pytest.raises(InvalidInput, match="change must be a Change"):
            mem.update(made.id, change={"content": NEW})  # type: ignore[arg-type]
        # who asks and where stay keywords beside the change
        done = mem.update(made.id, change=Change(content=NEW), actor="bob", namespace="default")
        assert done.content == NEW and mem.history(made.id)[0].actor == "bob"


def test_tags_given_once_as_a_generator_hold_for_every_plan() -> None:
    change = Change(tags=(t for t in ["pets", "home"]))
    assert change.tags == ("pets", "home") and change == Change(tags=["pets", "home"])
    assert change.key() == Change(tags=("pets", "home")).key()
