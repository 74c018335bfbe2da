"""The official MCP Inspector (npm `@modelcontextprotocol/inspector`, CLI mode) against
`lethe mcp`: a second, independent client implementation. `make test` installs it under
.venv/node; run the suite through `make test` so it is there."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.mcp_support import LETHE

pytestmark = pytest.mark.npm

ROOT = Path(__file__).resolve().parents[2]
INSPECTOR = ROOT / ".venv" / "node" / "node_modules" / ".bin" / "mcp-inspector"


def inspect(db: Path, *args: str) -> Any:
    assert INSPECTOR.exists(), f"{INSPECTOR} is missing: `make test` installs it with npm"
    done = subprocess.run(
        [str(INSPECTOR), "--cli", LETHE, "mcp", "--db", str(db), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_inspector_lists_tools_and_calls_remember_and_recall(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    tools = {t["name"]: t for t in inspect(db, "--method", "tools/list")["tools"]}
    assert {"remember", "recall", "forget", "history"} <= set(tools)
    assert tools["forget"]["annotations"]["destructiveHint"] is True
    assert tools["recall"]["annotations"]["readOnlyHint"] is True

    stored = inspect(
        db,
        "--method", "tools/call",
        "--tool-name", "remember",
        "--tool-arg", "content=User lives in Lisbon",
    )  # fmt: skip
    memory_id = stored["structuredContent"]["memory"]["id"]
    assert stored["content"][0]["text"].startswith(f"Remembered {memory_id}")

    found = inspect(
        db,
        "--method", "tools/call",
        "--tool-name", "recall",
        "--tool-arg", "query=where does the user live",
        "--tool-arg", "k=3",
    )  # fmt: skip
    [hit] = found["structuredContent"]["hits"]
    assert hit["memory"]["id"] == memory_id and hit["similarity"] > 0.5
    assert "\n---\n" in found["content"][0]["text"]


def test_inspector_reads_a_refusal_and_its_hint(tmp_path: Path) -> None:
    """A refusal is a tool error the Inspector shows as it came: its text with the hint, and no
    structured content to check against the tool's output schema."""
    done = subprocess.run(
        [
            str(INSPECTOR), "--cli", LETHE, "mcp", "--db", str(tmp_path / "m.db"),
            "--method", "tools/call",
            "--tool-name", "get_memory",
            "--tool-arg", "memory_id=mem_000000000000",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode != 0, "the Inspector exits non-zero on a tool error"
    result = json.loads(done.stdout)
    assert result["isError"] is True and "structuredContent" not in result
    message, _, hint = result["content"][0]["text"].partition("\n---\n")
    assert "No memory mem_000000000000" in message and "recall(" in hint
    assert result["_meta"]["lethe/refusal"]["error"] == "not_found"
