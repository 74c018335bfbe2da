"""Arrows run down only (docs/design.md, "Layers of the code"): every package of lethe imports
only the ones below it, so a face never reaches the store and the core never reaches a face.
Read from the source with `ast`, type-only imports included: a reader follows those too."""

from __future__ import annotations

import ast
from pathlib import Path

import lethe

LAYERS: tuple[frozenset[str], ...] = tuple(
    frozenset(names.split())
    for names in (
        "__main__",
        "launch",
        "cli",
        "mcp ui",
        "integrations",
        "engine",
        "importers",
        "erasure",
        "forget",
        "planner",
        "store",
        "config",
        "embed",
        "model",
        "common",
        "errors",
        "prompts schemas",
    )
)
"""Top to bottom. Packages in one row do not import each other (the MCP server and the web
inspector are two faces side by side)."""

EXCEPTIONS = {
    ("errors.py", "lethe.forget.change"): "type only: ConfirmationRequired carries the plan",
}
"""Arrows that go up or sideways on purpose, each with its reason."""

ROOT = Path(lethe.__file__).parent


def rank(layer: str) -> int:
    return next(i for i, row in enumerate(LAYERS) if layer in row)


def layer_of(module: str) -> str:
    """`lethe.engine.forgetting` -> `engine`; `lethe.config` -> `config`."""
    return module.split(".")[1]


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "lethe":
                found.update(f"lethe.{alias.name}" for alias in node.names)
            else:
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("lethe.") and name != "lethe.__version__"}


def wrong_arrows(root: Path) -> list[str]:
    wrong = []
    for path in sorted(root.rglob("*.py")):
        where = path.relative_to(root)
        if where == Path("__init__.py"):
            continue  # the public names, imported on first use
        source = where.parts[0].removesuffix(".py")
        for module in sorted(imports(path)):
            target = layer_of(module)
            if target == source or (where.as_posix(), module) in EXCEPTIONS:
                continue
            if rank(target) <= rank(source):
                wrong.append(f"{where.as_posix()} imports {module}")
    return wrong


def test_every_package_has_a_layer() -> None:
    packages = {
        p.name.removesuffix(".py")
        for p in ROOT.iterdir()
        if p.suffix == ".py" or (p / "__init__.py").exists()
    }
    packages.discard("__init__")
    placed = set().union(*LAYERS)
    assert packages - placed == set(), "give the new package a row in LAYERS and docs/design.md"


def test_arrows_run_down_only() -> None:
    assert wrong_arrows(ROOT) == []


def test_every_exception_is_still_needed() -> None:
    for where, module in EXCEPTIONS:
        assert module in imports(ROOT / where), f"{where} no longer imports {module}: drop it"


def test_an_arrow_up_is_seen(tmp_path: Path) -> None:
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "x.py").write_text("from lethe.engine.lethe import Lethe\n")
    (tmp_path / "mcp").mkdir()
    (tmp_path / "mcp" / "y.py").write_text("import lethe.ui.app\nfrom lethe import config\n")
    assert wrong_arrows(tmp_path) == [
        "mcp/y.py imports lethe.ui.app",
        "store/x.py imports lethe.engine.lethe",
    ]
