"""`lethe sweep` end to end: a report under every policy, execution only under `auto` with
the CLI's go-ahead contract (y/N, --yes, exit 3 without a terminal)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from typer.testing import CliRunner

from lethe import Lethe
from lethe.cli import app
from lethe.embed import Embedder
from tests.backends import snapshot
from tests.cli.test_forgetting import isolated_env, terminal  # noqa: F401 (fixtures)

runner = CliRunner()


@pytest.fixture
def old_store(db: str, embedder: Embedder) -> tuple[str, str, str]:
    """One memory idle for 200 days (a drop) and one written now (kept), on a SQLite file or
    a PostgreSQL database (the `db` fixture)."""
    then = datetime.now(UTC) - timedelta(days=200)
    with Lethe.open(db, embedder=embedder, clock=lambda: then) as mem:
        old = mem.remember("User once owned a red bicycle").id
    with Lethe.open(db, embedder=embedder) as mem:
        new = mem.remember("User started learning Portuguese").id
    return db, old, new


def sweep(db: str, *args: str, policy: str | None = None, input: str | None = None):  # type: ignore[no-untyped-def]
    env = {"LETHE_DECAY_POLICY": policy} if policy else {}
    return runner.invoke(app, ["sweep", "--db", db, *args], env=env, input=input)


def test_report_only_by_default(old_store: tuple[str, str, str]) -> None:
    db, old, _ = old_store
    before = snapshot(db)
    result = sweep(db, "--json")
    assert result.exit_code == 0, result.stderr
    plan = json.loads(result.stdout)
    assert plan["policy"] == "suggest" and plan["drop"] == 1 and plan["keep"] == 1
    assert [i["id"] for i in plan["samples"]] == [old]
    text = sweep(db).stdout
    assert old in text and "report only" in text
    refused = sweep(db, "--execute", "--yes")
    assert refused.exit_code == 1 and "policy is 'suggest'" in refused.stderr
    assert snapshot(db) == before


def test_off_proposes_nothing(old_store: tuple[str, str, str]) -> None:
    db, _, _ = old_store
    plan = json.loads(sweep(db, "--json", policy="off").stdout)
    assert plan["samples"] == [] and plan["policy"] == "off"


def test_auto_needs_a_go_ahead(old_store: tuple[str, str, str]) -> None:
    db, old, new = old_store
    before = snapshot(db)
    blocked = sweep(db, "--execute", policy="auto")
    assert blocked.exit_code == 3 and "--yes" in blocked.stderr
    assert snapshot(db) == before
    done = sweep(db, "--execute", "--yes", "--json", policy="auto")
    assert done.exit_code == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["dropped"] == [old] and result["compressed"] == []
    listed = runner.invoke(app, ["trash", "--db", db, "--json"])
    assert [i["memory"]["id"] for i in json.loads(listed.stdout)["items"]] == [old]
    assert new not in listed.stdout


@pytest.mark.usefixtures("terminal")
def test_auto_at_a_terminal_asks(old_store: tuple[str, str, str]) -> None:
    db, _, _ = old_store
    before = snapshot(db)
    declined = sweep(db, "--execute", policy="auto", input="n\n")
    assert declined.exit_code == 0 and "declined" in declined.stderr
    assert snapshot(db) == before
    accepted = sweep(db, "--execute", policy="auto", input="y\n")
    assert accepted.exit_code == 0 and "Dropped 1" in accepted.stdout


def test_consolidate_shows_pairs_and_deletes_nothing(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        a = mem.remember("Today's conversation was fun. I learned a lot from Master.").id
        b = mem.remember("Today's conversation was enjoyable. Master taught me many things.").id
    result = runner.invoke(app, ["consolidate", "--db", db, "--threshold", "0.85"])
    assert result.exit_code == 0, result.stderr
    assert f"{a} <-> {b}" in result.stdout or f"{b} <-> {a}" in result.stdout
    assert "use forget to remove it" in result.stdout
    body = json.loads(
        runner.invoke(app, ["consolidate", "--db", db, "--threshold", "0.85", "--json"]).stdout
    )
    assert body["total_pairs"] == 1 and body["bumped"] == []
    assert runner.invoke(app, ["consolidate", "--db", db, "--threshold", "2"]).exit_code == 1
    with Lethe.open(db, embedder=embedder) as mem:
        assert {m.id for m in mem.list_memories().items} == {a, b}


def test_context_prints_the_working_set(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        note = mem.remember("User likes jazz", agent="assistant")
    text = runner.invoke(app, ["context", "assistant", "--db", db]).stdout
    assert text.startswith("## Working memory of assistant (")
    assert f"- [episodic] User likes jazz [id:{note.id}]" in text
    body = json.loads(runner.invoke(app, ["context", "assistant", "--db", db, "--json"]).stdout)
    assert [i["id"] for i in body["items"]] == [note.id] and body["budget"] == 4000
    empty = runner.invoke(app, ["context", "nobody", "--db", db])
    assert empty.exit_code == 0 and "(empty)" in empty.stdout


@pytest.mark.usefixtures("terminal")
def test_execute_under_suggest_is_refused_before_asking(old_store: tuple[str, str, str]) -> None:
    db, _, _ = old_store
    before = snapshot(db)
    result = sweep(db, "--execute", input="y\n")
    assert result.exit_code == 1 and "policy is 'suggest'" in result.stderr
    assert "Compress" not in result.stderr + result.stdout, "never asked"
    assert snapshot(db) == before
