"""What to remember is one value through the layers (issue 46): the MCP tool, the command line
and the facade's keywords each build one `Note` and hand it to the engine whole, and the
engine, which checks it, refuses a bad value with the message the keywords always had.
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
from lethe.engine.memories import Memories
from lethe.errors import InvalidInput
from lethe.mcp.loader import EngineLoader
from lethe.mcp.runtime import Runtime
from lethe.mcp.server import build_server
from lethe.model import Note, Remembered
from tests.mcp_support import call

TEXT = "Miso the cat sleeps on the blue sofa"
ASKED = Note(TEXT, tags=("pets", "home"), importance=0.7, layer="semantic", session="s1")


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
def noted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Note, str, str | None]]]:
    """Every note `Memories.remember` is handed, with its namespace and actor."""
    seen: list[tuple[Note, str, str | None]] = []
    real = Memories.remember

    def spy(self: Memories, note: Note, **kw: Any) -> Remembered:
        seen.append((note, kw["namespace"], kw.get("actor")))
        return real(self, note, **kw)

    monkeypatch.setattr(Memories, "remember", spy)
    yield seen


@asynccontextmanager
async def in_process(db: Path) -> AsyncIterator[Client]:
    runtime = Runtime(loader=EngineLoader(lambda: Lethe.open(db)))
    async with Client(build_server(runtime), mode="legacy") as client:
        yield client


@pytest.mark.anyio
async def test_the_mcp_tool_the_cli_and_the_facade_hand_the_engine_one_equal_note(
    tmp_path: Path, noted: list[tuple[Note, str, str | None]]
) -> None:
    db = tmp_path / "m.db"
    async with in_process(db) as client:
        await call(
            client,
            "remember",
            content=TEXT,
            tags=["pets", "home"],
            importance=0.7,
            layer="semantic",
            session="s1",
            namespace="home",
        )
    [(note, namespace, _)] = noted
    assert (note, namespace) == (ASKED, "home")
    noted.clear()

    args = ["remember", TEXT, "--tag", "pets", "--tag", "home", "--importance", "0.7"]
    args += ["--layer", "semantic", "--session", "s1", "--namespace", "home", "--db", str(db)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    # the command line holds an expiry the person typed; there is none here to hold
    assert noted == [(Note(**{**vars(ASKED), "hold_expiry": True}), "home", None)]
    noted.clear()

    with Lethe.open(db) as mem:
        keywords: dict[str, Any] = dict(
            tags=["pets", "home"], importance=0.7, layer="semantic", session="s1"
        )
        first = mem.remember(TEXT, namespace="home", actor="bob", **keywords)
        second = mem.remember(ASKED, namespace="home", actor="bob")
    assert noted == [(ASKED, "home", "bob")] * 2
    assert second.existing and second.id == first.id


def test_a_bad_value_in_a_note_gets_the_message_its_keyword_gets(tmp_path: Path) -> None:
    with Lethe.open(tmp_path / "m.db") as mem:
        bad: list[dict[str, Any]] = [
            {"importance": 2},
            {"importance": "high"},
            {"tags": 5},
            {"layer": "nowhere"},
            {"expires_in": "soon"},
            {"session": ""},
            {"supersedes": "mem_missing", "expires_in": "1d"},
        ]
        for fields in bad:
            messages = [
                _refusal(mem.remember, TEXT, **fields),
                _refusal(mem.remember, Note(TEXT, **fields)),
            ]
            assert len(set(messages)) == 1, (fields, messages)
        refused = _refusal(mem.remember, Note(TEXT, importance=2))
        assert refused == "importance must be between 0 and 1, got 2"
        assert mem.list_memories().items == ()  # nothing was stored


def _refusal(method: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(InvalidInput) as refused:
        method(*args, **kwargs)
    return refused.value.message


def test_a_note_and_its_fields_as_keywords_at_once_are_refused(tmp_path: Path) -> None:
    with Lethe.open(tmp_path / "m.db") as mem:
        with pytest.raises(InvalidInput, match=r"give a Note or its fields \(tags\)"):
            mem.remember(Note(TEXT), tags=["pets"])
        with pytest.raises(InvalidInput, match="remember takes a Note"):
            mem._memories.remember({"content": TEXT})  # type: ignore[arg-type]
        assert mem.list_memories().items == ()
        # where, who asks and whether lethe writes it stay keywords beside the note
        made = mem.remember(Note(TEXT, agent="planner"), namespace="work", actor="bob")
        assert (made.namespace, made.agent) == ("work", "planner")
        assert mem.audit(memory_id=made.id)[0].actor == "bob"


def test_tags_given_once_as_a_generator_are_kept() -> None:
    note = Note(TEXT, tags=(t for t in ["pets", "home"]))
    assert note.tags == ("pets", "home") and note == Note(TEXT, tags=["pets", "home"])
    assert Note(TEXT).given() == () and Note(TEXT, private=False).given() == ("private",)
