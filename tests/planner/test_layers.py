"""The planner sits below the engine and the store (docs/design.md): it reads text and
judges candidates that a search port hands it, and imports neither, nor any face."""

from __future__ import annotations

import ast
from pathlib import Path

import lethe.planner

ALLOWED = ("lethe.planner", "lethe.model", "lethe.common.scripts")
"""The lethe modules the planner may import: itself, the data types, the writing systems."""


def lethe_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name == "lethe" or name.startswith("lethe.")}


def test_the_planner_imports_neither_engine_nor_store_nor_a_face() -> None:
    folder = Path(lethe.planner.__file__).parent
    wrong = {
        f"{path.name}: {name}"
        for path in sorted(folder.glob("*.py"))
        for name in lethe_imports(path)
        if not any(name == a or name.startswith(a + ".") for a in ALLOWED)
    }
    assert wrong == set()


def test_an_import_of_the_engine_is_seen(tmp_path: Path) -> None:
    written = tmp_path / "stage.py"
    written.write_text("from lethe.engine.forgetting import ForgetOps\nimport lethe.store\n")
    assert lethe_imports(written) == {"lethe.engine.forgetting", "lethe.store"}
