"""One JSON shape for every listing command (issue 44, part 4): `{"items": [...], paging}`,
never a bare list, with the paging fields docs/cli.md's "JSON output" table names."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lethe.cli import app

DOCS = Path(__file__).parents[2] / "docs" / "cli.md"

runner = CliRunner()


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's own database, workspace, settings and config out of the test."""
    for name in [n for n in os.environ if n.startswith("LETHE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("LETHE_CONFIG", str(tmp_path / "no-such-config.toml"))


def as_json(db: str, *args: str) -> Any:
    result = runner.invoke(app, [*args, "--db", db, "--json"])
    assert result.exit_code == 0, (args, result.stdout, result.stderr, result.exception)
    return json.loads(result.stdout)


def documented_paging() -> dict[str, set[str]]:
    """Each listing of docs/cli.md's "JSON output" table, with the fields beside `items`."""
    section = DOCS.read_text(encoding="utf-8").split("### JSON output", 1)[1].split("\n### ")[0]
    rows = re.findall(r"^\| `lethe ([a-z ]+?)(?: [A-Z]+)?` \|[^|\n]*\|([^|\n]*)\|$", section, re.M)
    # Backticked names outside parentheses: `total` (all that match), `offset`, `limit`.
    return {cmd: set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", rest))) for cmd, rest in rows}


def test_every_listing_prints_one_object_with_items(db: str) -> None:
    ids = [
        as_json(db, "remember", text)["id"]
        for text in (
            "Alice prefers green tea over coffee in the morning.",
            "The quarterly pricing review moved to Thursday at 14:00.",
            "Bob's flight to Lisbon lands at 09:40 on Friday.",
            "The back gate code is 7731.",
        )
    ]
    _, review, flight, gate = ids
    as_json(db, "update", review, "--content", "The pricing review moved to Friday.")
    as_json(db, "forget", flight, "--yes")
    as_json(db, "purge", gate, "--yes")

    # command: (arguments, the fields beside `items` with the values they must have)
    listings: dict[str, tuple[list[str], dict[str, Any]]] = {
        "list": (["list", "--limit", "7"], {"total": 2, "offset": 0, "limit": 7}),
        "recall": (["recall", "green tea", "-k", "3"], {"k": 3}),
        "history": (["history", review], {}),
        "audit": (["audit", "--after", "1", "--limit", "7"], {"after": 1, "limit": 7}),
        "trash": (
            ["trash", "--offset", "0", "--limit", "7"],
            {"total": 1, "offset": 0, "limit": 7},
        ),
        "receipt list": (["receipt", "list", "--limit", "7"], {"offset": 0, "limit": 7}),
    }
    for command, (args, paging) in listings.items():
        body = as_json(db, *args)
        assert isinstance(body, dict), f"lethe {command} --json printed a bare list"
        items = body.get("items")
        assert isinstance(items, list) and items, (command, body)
        assert all(isinstance(item, dict) for item in items), (command, items)
        assert body == {"items": items, **paging}, f"lethe {command} --json: {sorted(body)}"

    assert documented_paging() == {c: set(paging) for c, (_, paging) in listings.items()}
