"""`lethe workspace rebuild`: the markdown projection re-derived from the database, on
SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.engine.workspace import Workspace
from tests.backends import both_stores
from tests.cli.test_app import assert_one_line_error, isolated_env, ok, run

__all__ = ["isolated_env"]


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*.md"))
        if not p.name.startswith(".")
    }


@both_stores
def test_rebuild_restores_a_damaged_workspace_exactly(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: Embedder
) -> None:
    workspace = tmp_path / "ws"
    monkeypatch.setenv("LETHE_WORKSPACE_DIR", str(workspace))
    ok(db, "remember", "Alice prefers green tea", "--importance", "0.8")
    ok(db, "remember", "The shed key is under the blue pot", "--namespace", "home")
    ok(db, "remember", "A private note", "--private")
    expected = tree(workspace)
    assert any(name.endswith("MEMORY.md") for name in expected)
    # damage it: a file edited by hand, one deleted, a stray day file
    day = next(p for p in workspace.rglob("memory/*.md"))
    day.write_text("edited by hand\n", encoding="utf-8")
    (workspace / "MEMORY.md").unlink()
    (workspace / "memory" / "1999-01-01.md").write_text("- stale line\n", encoding="utf-8")
    assert tree(workspace) != expected
    answer = json.loads(ok(db, "workspace", "rebuild", "--json").stdout)
    assert answer["namespaces"] == ["default", "home"]
    assert tree(workspace) == expected
    with Lethe.open(db, embedder=embedder) as mem:
        fresh = tmp_path / "fresh"
        Workspace(fresh, mem._core.fetch_for_workspace).rebuild(["default", "home"])
    assert tree(fresh) == expected
    assert "A private note" not in "".join(expected.values())
    text = ok(db, "workspace", "rebuild", "-n", "home").stdout
    assert "rebuilt 1 namespace" in text and "home" in text


def test_rebuild_without_a_workspace_is_a_clear_error(db: str) -> None:
    result = run(db, "workspace", "rebuild")
    assert_one_line_error(result, "no workspace is configured", "LETHE_WORKSPACE_DIR")


def test_rebuild_refuses_a_bad_namespace(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LETHE_WORKSPACE_DIR", str(tmp_path / "ws"))
    result = run(db, "workspace", "rebuild", "--namespace", "bad ns!")
    assert_one_line_error(result, "invalid namespace")
    assert not (tmp_path / "ws").exists()
