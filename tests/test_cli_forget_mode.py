"""`lethe forget --instruction`: forget mode from the command line (deterministic planner)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from lethe.cli import app

from .conftest import snapshot
from .test_cli_forget import SEED_000, isolated_env, live, remember, validator  # noqa: F401

runner = CliRunner()


def forget_mode(db: Path, *args: str) -> tuple[int, dict[str, object], str]:
    result = runner.invoke(app, ["forget", "--db", str(db), *args])
    body = json.loads(result.stdout) if result.stdout.strip() else {}
    if body:
        validator.validate(body)
    return result.exit_code, body, result.stderr


def test_instruction_plans_then_executes_with_a_go_ahead(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    ids = {t: remember(db, t) for t in SEED_000}
    before = snapshot(db)
    code, plan, _ = forget_mode(db, "--instruction", "Forget where I live", "-q", "San Francisco")
    assert code == 0 and plan["dryRun"] is True
    assert plan["plan"][0]["id"] == ids[SEED_000[0]]  # type: ignore[index]
    code, again, err = forget_mode(
        db, "--instruction", "Forget where I live", "-q", "San Francisco", "--execute"
    )
    assert code == 3 and "--yes" in err and again["dryRun"] is True
    assert snapshot(db) == before
    code, done, _ = forget_mode(
        db, "--instruction", "Forget where I live", "-q", "San Francisco", "--execute", "--yes"
    )
    assert code == 0 and done["dryRun"] is False and done["deletedIds"] == [ids[SEED_000[0]]]
    assert live(db) == {ids[t] for t in SEED_000[1:]}


def test_instruction_with_explicit_ids_and_a_filter(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
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
