"""`lethe purge` follows copies, on SQLite and PostgreSQL: a summary lethe made from the
purged memory is listed in the plan the CLI prints (a `rewrite` line and the "Also rewrites"
note) and, after --yes, holds the other source's text and no longer the purged one's."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from lethe import Lethe
from lethe.cli import app
from lethe.embed import Embedder
from tests.backends import both_stores, snapshot
from tests.clocks import Clock

SECRET = "User's locker combination is 31-07-44 at the north gym"
POTTERY = "User tried a pottery class on a rainy afternoon"

runner = CliRunner()


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's own database, workspace, settings and config out of every test."""
    for name in [n for n in os.environ if n.startswith("LETHE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("LETHE_CONFIG", str(tmp_path / "no-such-config.toml"))


def run(db: str, *args: str) -> Result:
    return runner.invoke(app, [*args, "--db", db])


def shown(db: str, memory_id: str) -> dict[str, Any]:
    result = run(db, "show", memory_id, "--json")
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    body: dict[str, Any] = json.loads(result.stdout)
    return body


@pytest.fixture
def summarized(db: str, embedder: Embedder) -> tuple[dict[str, str], str]:
    """Two memories compressed by a decay sweep into one summary lethe wrote (agent `lethe`,
    category `summary`, `summarizes` naming both), made through the Python API on a clock
    set back 60 days (the CLI runs on the wall clock)."""
    clock = Clock()
    clock.now = datetime.now(UTC) - timedelta(days=60)
    with Lethe.open(db, embedder=embedder, clock=clock, decay_policy="auto") as mem:
        ids = {text: mem.remember(text).id for text in (SECRET, POTTERY)}
        clock.advance(days=55)
        [summary_id] = mem.execute_sweep(mem.sweep()).summary_ids
        summary = mem.get(summary_id)
    assert (summary.agent, summary.category) == ("lethe", "summary")
    assert set(summary.metadata["summarizes"]) == set(ids.values())
    assert "31-07-44" in summary.content and "pottery" in summary.content
    return ids, summary_id


@both_stores
def test_purge_shows_and_rewrites_the_summary_made_from_its_target(
    db: str, summarized: tuple[dict[str, str], str]
) -> None:
    ids, summary_id = summarized
    before = snapshot(db)
    planned = run(db, "purge", ids[SECRET])
    assert planned.exit_code == 3, (planned.stdout, planned.stderr)  # no terminal to ask
    assert snapshot(db) == before, "a plan changes nothing"
    lines = planned.stdout.splitlines()
    assert [line for line in lines if line.startswith(f"rewrite {summary_id}  Summary of")]
    flat = " ".join(planned.stdout.split())
    assert (
        f"Would erase for good 1 memory. Also rewrites {summary_id} (a summary holding the "
        f"text of {ids[SECRET]}: those lines are removed)."
    ) in flat

    done = run(db, "purge", ids[SECRET], "--yes")
    assert done.exit_code == 0, (done.stdout, done.stderr, done.exception)
    assert f"erased {ids[SECRET]}" in done.stdout
    # The plan first says what it will do, the result what it did.
    assert f"Also rewrites {summary_id} (" in " ".join(done.stdout.split())
    assert f"Also rewrote {summary_id} (" in " ".join(done.stdout.split())
    summary = shown(db, summary_id)
    assert summary["status"] == "active", "rewritten, not purged: another source is left"
    assert summary["content"] == f"Summary of older memories:\n- {POTTERY}"
    assert summary["metadata"]["summarizes"] == [ids[POTTERY]]
    trash = run(db, "trash", "--json")
    assert trash.exit_code == 0, (trash.stdout, trash.stderr)
    held = {i["memory"]["id"]: i["memory"]["content"] for i in json.loads(trash.stdout)["items"]}
    assert held == {ids[POTTERY]: POTTERY}, "the sweep's other source stays, the purged one not"
    gone = run(db, "show", ids[SECRET], "--json")
    assert gone.exit_code == 1 and "31-07-44" not in gone.stdout + gone.stderr
