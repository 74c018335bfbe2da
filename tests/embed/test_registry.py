"""A multilingual embedder by choice: the `embedder` setting, the registry of published models,
and a model other than MiniLM found, fetched (pinned by digest) and run.

No multilingual weights can be downloaded here, so the model fetched and run is a tiny BERT
of paraphrase-multilingual-MiniLM-L12-v2's kind that the tests write (tests/tiny_bert.py),
served by a local HTTP server at the hub's path layout; its registry entry is injected."""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest
from tokenizers import Tokenizer

from lethe import Lethe
from lethe.config import DEFAULT_EMBEDDER, Settings
from lethe.embed import Embedder, OnnxEmbedder, find_model_dir, hub, load_embedder, registry
from lethe.embed.registry import ModelSpec
from lethe.errors import EmbedderMismatch, EmbedderUnavailable, InvalidInput
from tests.numpy_minilm import NumpyMiniLM
from tests.tiny_bert import CORPUS, spec_for, write_model

MULTILINGUAL = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"
TEXTS = ["私は毎朝コーヒーを飲みます。", "The meeting was moved to next Tuesday.", "猫", ""]


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture
def tiny(tiny_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> ModelSpec:
    """The tiny model as a registry entry, with an empty cache and no local folder."""
    spec = spec_for(tiny_dir)
    monkeypatch.setitem(registry.SUPPORTED, spec.name, spec)
    for var in ("LETHE_MODEL_DIR", "LETHE_MODEL_URL", "LETHE_OFFLINE", "HF_HUB_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LETHE_CACHE_DIR", str(tmp_path / "cache"))
    return spec


class _Quiet(SimpleHTTPRequestHandler):
    requests: ClassVar[list[str]] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        type(self).requests.append(self.path)
        super().do_GET()


@pytest.fixture
def hub_server(tiny: ModelSpec, tiny_dir: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """An HTTP hub serving the tiny model at /<repo>/resolve/<revision>/; yields the endpoint
    and the served folder (a test may tamper with it)."""
    root = tmp_path / "hub"
    served = root / tiny.repo / "resolve" / tiny.revision
    served.mkdir(parents=True)
    for f in tiny.files:
        shutil.copy(tiny_dir / f.name, served / f.name)
    _Quiet.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", served
    finally:
        server.shutdown()
        server.server_close()


def test_the_setting_defaults_to_minilm_and_reads_env_and_toml(tmp_path: Path) -> None:
    assert Settings.load(env={}).embedder == DEFAULT_EMBEDDER
    short = Settings.load(env={"LETHE_EMBEDDER": "paraphrase-multilingual-minilm-l12-v2"})
    assert short.embedder == MULTILINGUAL
    toml = tmp_path / "lethe.toml"
    toml.write_text(f'embedder = "{MULTILINGUAL}"\n', encoding="utf-8")
    assert Settings.load(env={"LETHE_CONFIG": str(toml)}).embedder == MULTILINGUAL


def test_an_unknown_model_is_refused_with_the_supported_names() -> None:
    with pytest.raises(InvalidInput) as info:
        Settings.load(env={"LETHE_EMBEDDER": "bert-base-uncased"})
    text = str(info.value)
    assert "bert-base-uncased" in text and DEFAULT_EMBEDDER in text and MULTILINGUAL in text
    with pytest.raises(InvalidInput, match="supported"):
        load_embedder("intfloat/multilingual-e5-small")


def test_the_multilingual_entry_is_pinned_like_the_default() -> None:
    spec = registry.resolve(MULTILINGUAL)
    assert spec.name != DEFAULT_EMBEDDER  # stores of the two refuse each other
    assert (spec.dim, spec.max_length, spec.pooling) == (384, 128, "mean")
    assert spec.fingerprint["vocab_size"] == 250037
    assert len(spec.revision) == 40 and int(spec.revision, 16) >= 0
    for f in spec.files:
        assert f.size > 0 and len(f.sha256) == 64 and int(f.sha256, 16) >= 0


def test_without_network_the_multilingual_model_says_what_to_do(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("LETHE_MODEL_DIR", raising=False)
    monkeypatch.setenv("LETHE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("LETHE_OFFLINE", "1")
    with pytest.raises(EmbedderUnavailable) as info:
        load_embedder(MULTILINGUAL)
    assert "LETHE_MODEL_DIR" in str(info.value) and "downloads are off" in str(info.value)
    assert not list((tmp_path / "cache").rglob("*.safetensors"))


def test_first_use_fetches_verifies_and_then_uses_the_cache(
    tiny: ModelSpec, hub_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint, _ = hub_server
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    embedder = load_embedder(tiny.name)
    assert embedder.name == tiny.name and embedder.dim == 32
    asked = sorted(r.rsplit("/", 1)[-1] for r in _Quiet.requests)
    assert asked == sorted(f.name for f in tiny.files)
    assert all(f"/{tiny.repo}/resolve/{tiny.revision}/" in r for r in _Quiet.requests)
    folder = hub.cached(tiny)
    assert folder is not None and folder == hub.cache_dir(tiny)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # never asked again
    assert hub.find(tiny) == folder
    vectors = embedder.embed(TEXTS)
    assert vectors.shape == (4, 32) and np.isfinite(vectors).all()
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_download_that_does_not_match_its_digest_is_never_used(
    tiny: ModelSpec, hub_server: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint, served = hub_server
    weights = served / tiny.weights.name
    data = bytearray(weights.read_bytes())
    data[len(data) // 2] ^= 0xFF
    weights.write_bytes(bytes(data))
    monkeypatch.setenv("HF_ENDPOINT", endpoint)
    with pytest.raises(EmbedderUnavailable, match="SHA-256") as info:
        hub.find(tiny)
    assert "LETHE_MODEL_DIR" in str(info.value)
    assert hub.cached(tiny) is None
    assert not (hub.cache_dir(tiny) / tiny.weights.name).exists()


def test_a_local_folder_of_another_model_is_refused(
    tiny: ModelSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LETHE_MODEL_DIR", str(find_model_dir()))  # MiniLM's files
    with pytest.raises(EmbedderUnavailable, match=f"is not {tiny.name}"):
        load_embedder(tiny.name)


def test_the_forward_pass_matches_the_numpy_oracle(tiny_dir: Path) -> None:
    spec = spec_for(tiny_dir)
    onnx = OnnxEmbedder(tiny_dir, name=spec.name, max_length=spec.max_length)
    oracle = NumpyMiniLM(tiny_dir)
    got, want = onnx.embed(TEXTS), oracle.embed(TEXTS)
    assert np.abs(got - want).max() < 1e-5
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # A text's vector does not depend on what it was batched with.
    alone = onnx.embed([TEXTS[0]])[0]
    assert np.abs(alone - got[0]).max() < 1e-6
    assert np.array_equal(onnx.embed([TEXTS[0]])[0], alone)
    assert float(got[0] @ got[1]) < 0.9999  # different texts, different vectors


def test_japanese_tokenises_into_known_pieces_and_pads_with_pad(tiny_dir: Path) -> None:
    tok = Tokenizer.from_file(str(tiny_dir / "tokenizer.json"))
    unk = tok.token_to_id("<unk>")
    for text in CORPUS[:6]:
        encoding = tok.encode(text)
        assert unk not in encoding.ids, (text, encoding.tokens)
        assert encoding.tokens[0] == "<s>" and encoding.tokens[-1] == "</s>"
        assert len(encoding.ids) > 5  # pieces, not one unknown blob
    spec = spec_for(tiny_dir)
    embedder = OnnxEmbedder(tiny_dir, name=spec.name, max_length=spec.max_length)
    assert embedder._pad_id == tok.token_to_id("<pad>") == 1


def test_lethe_open_uses_the_setting_and_stores_refuse_the_other_model(
    tiny: ModelSpec, tiny_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    db = str(tmp_path / "memory.db")
    monkeypatch.setenv("LETHE_EMBEDDER", tiny.name)
    monkeypatch.setenv("LETHE_MODEL_DIR", str(tiny_dir))
    with Lethe.open(db) as mem:
        assert (mem.embedder.name, mem.embedder.dim) == (tiny.name, 32)
        stored = mem.remember("私は毎朝コーヒーを飲みます。")
        hits = mem.recall("コーヒー")
        assert hits and hits[0].memory.id == stored.id
    monkeypatch.setenv("LETHE_EMBEDDER", DEFAULT_EMBEDDER)
    monkeypatch.delenv("LETHE_MODEL_DIR")
    with pytest.raises(EmbedderMismatch, match=tiny.name):
        Lethe.open(db)


def test_the_default_model_keeps_its_own_path(embedder: Embedder) -> None:
    assert load_embedder() is load_embedder(DEFAULT_EMBEDDER)
    assert load_embedder().name == embedder.name == DEFAULT_EMBEDDER
