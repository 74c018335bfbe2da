"""`lethe forget --instruction`: forget mode from the command line (deterministic planner),
on a SQLite file and on PostgreSQL (the `db` fixture)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lethe.cli import app
from tests.backends import snapshot
from tests.cli.test_forgetting import (  # noqa: F401 (fixtures)
    SEED_000,
    isolated_env,
    live,
    remember,
    terminal,
    validator,
)

runner = CliRunner()


def forget_mode(db: str, *args: str) -> tuple[int, dict[str, object], str]:
    result = runner.invoke(app, ["forget", "--db", db, *args])
    body = json.loads(result.stdout) if result.stdout.strip() else {}
    if body:
        validator.validate(body)
    return result.exit_code, body, result.stderr


def test_instruction_plans_then_executes_with_a_go_ahead(db: str) -> None:
    ids = {t: remember(db, t) for t in SEED_000}
    before = snapshot(db)
    code, plan, _ = forget_mode(
        db, "--instruction", "Forget where I live", "-q", "I live in San Francisco"
    )
    assert code == 0 and plan["dryRun"] is True
    assert plan["plan"][0]["id"] == ids[SEED_000[0]]  # type: ignore[index]
    code, again, err = forget_mode(
        db, "--instruction", "Forget where I live", "-q", "I live in San Francisco", "--execute"
    )
    assert code == 3 and "--yes" in err and again["dryRun"] is True
    assert snapshot(db) == before
    code, done, _ = forget_mode(
        db,
        "--instruction",
        "Forget where I live",
        "-q",
        "I live in San Francisco",
        "--execute",
        "--yes",
    )
    assert code == 0 and done["dryRun"] is False and done["deletedIds"] == [ids[SEED_000[0]]]
    assert live(db) == {ids[t] for t in SEED_000[1:]}


def test_instruction_with_explicit_ids_and_a_filter(db: str) -> None:
    weak = remember(db, "User likes jazz")
    scripted = remember(db, "Pricing idea: charge per seat", "--meta", "sourcePath=ep01.md")
    other = remember(db, "User owns a red bicycle")
    code, done, _ = forget_mode(db, "--instruction", "Drop these", weak, "--execute", "--yes")
    assert code == 0 and done["deletedIds"] == [weak]
    code, by_source, _ = forget_mode(
        db,
        "--instruction",
        "Remove everything from ep01.md",
        "-q",
        "pricing",
        "--filter",
        '@metadata.sourcePath = "ep01.md"',
        "--execute",
        "--yes",
    )
    assert code == 0 and by_source["deletedIds"] == [scripted]
    assert live(db) == {other}


def test_instruction_refuses_options_it_does_not_use(db: str) -> None:
    remember(db, "User likes jazz")
    result = runner.invoke(
        app, ["forget", "--db", db, "--instruction", "x", "--tag", "a", "--agent", "b"]
    )
    assert result.exit_code == 1 and "does not take --agent, --tag" in result.stderr


@pytest.mark.usefixtures("terminal")
def test_declining_at_the_terminal_is_recorded(db: str) -> None:
    ids = {t: remember(db, t) for t in SEED_000}
    result = runner.invoke(
        app,
        ["forget", "--db", db, "--instruction", "Forget where I live", "-q",
         "I live in San Francisco", "--execute"],
        input="n\n",
    )  # fmt: skip
    assert result.exit_code == 0 and "declined" in result.stderr
    assert live(db) == set(ids.values())
    audit = json.loads(runner.invoke(app, ["audit", "--db", db, "--json"]).stdout)
    declined = [e for e in audit["items"] if e["op"] == "forget_declined"]
    assert [e["memory_id"] for e in declined] == [ids[SEED_000[0]]]
