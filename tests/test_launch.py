"""The installed scripts' entry points (lethe/launch.py): `--version` answers before the
command line loads, and every other call reaches it with its exit status."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from lethe import __version__

BIN = Path(sys.executable).parent

CHECK = """
import sys
sys.argv = ["{script}", "--version"]
from lethe import launch
try:
    launch.{entry}()
finally:
    print("loaded:", sorted(m for m in ("lethe.cli", "numpy", "pydantic") if m in sys.modules))
"""


@pytest.mark.parametrize(("script", "entry"), [("lethe", "lethe"), ("lethe-mcp", "lethe_mcp")])
def test_version_is_answered_before_the_command_line_loads(script: str, entry: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHECK.format(script=script, entry=entry)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"lethe {__version__}", "loaded: []"]


def test_the_scripts_keep_their_exit_status(tmp_path: Path) -> None:
    version = subprocess.run(
        [str(BIN / "lethe"), "--version"], capture_output=True, text=True, timeout=60
    )
    assert version.returncode == 0 and version.stdout.strip() == f"lethe {__version__}"
    missing = subprocess.run(
        [str(BIN / "lethe"), "show", "mem_000000000000", "--db", str(tmp_path / "none.db")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode != 0 and "error" in missing.stderr
    module = subprocess.run(
        [sys.executable, "-m", "lethe", "--version"], capture_output=True, text=True, timeout=60
    )
    assert module.returncode == 0 and module.stdout.strip() == f"lethe {__version__}"


BLAS = ("OPENBLAS_NUM_THREADS", "OPENBLAS_THREAD_TIMEOUT")

ENVIRONMENT = """
import os, sys
{before}
print([os.environ.get(name) for name in {names!r}])
"""


def _blas_after(before: str) -> list[str | None]:
    env = {k: v for k, v in os.environ.items() if k not in BLAS and k != "LETHE_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", ENVIRONMENT.format(before=before, names=BLAS)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**env, "LETHE_THREADS": "3"},
    )
    assert done.returncode == 0, done.stderr
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])


def test_importing_lethe_changes_nothing_in_the_process() -> None:
    """A program that embeds lethe owns its environment: not even the engine sets a variable."""
    assert _blas_after("import lethe, lethe.engine; lethe.Lethe") == [None, None]


def test_the_entry_points_tune_numpys_threads_before_it_loads() -> None:
    before = 'sys.argv = ["lethe", "--version"]\nfrom lethe import launch\nlaunch.lethe()'
    assert _blas_after(before) == ["3", "4"]
