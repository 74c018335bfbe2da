"""The ONNX Runtime encoder must give the vectors of the numpy forward pass (the oracle,
tests/numpy_minilm.py), from a file it builds once, keeps, and never loads unchecked."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
import onnxruntime
import pytest
from safetensors.numpy import save_file

from lethe.common.threads import default_threads
from lethe.embed import Embedder, OnnxEmbedder, find_model_dir, onnx_build, onnx_cache
from lethe.errors import EmbedderUnavailable
from tests.embed.test_minilm_reference import FIXTURE, assert_matches
from tests.numpy_minilm import NumpyMiniLM

MODEL = find_model_dir()
TOLERANCE = 1e-5

TEXTS = [
    "",
    " ",
    ".",
    "a",
    "User lives in San Francisco",
    "東京は日本の首都で、人口は約千四百万人です。",
    "Der Zahnarzttermin ist am Dienstag um 10 Uhr.",
    "3.14159 2718 1e-9 0x1F 42% $1,000,000 -7",
    "Dentist appointment on Tuesday at 10am 🦷",
    "the quick brown fox jumps over the lazy dog " * 60,  # 540 tokens: truncated to 256
    "word " * 254,  # exactly 256 with [CLS] and [SEP]
    "Prefers answers in short bullet points, no emoji, British spelling.",
]


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache for the module, so the file is built once; never the user's own."""
    root = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LETHE_CACHE_DIR", str(root))
        yield root


@pytest.fixture(scope="module")
def onnx_embedder(cache: Path) -> OnnxEmbedder:
    return OnnxEmbedder(MODEL)


@pytest.fixture(scope="module")
def numpy_embedder() -> NumpyMiniLM:
    return NumpyMiniLM(MODEL)


def max_diff(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    assert a.shape == b.shape
    assert a.dtype == b.dtype == np.float32
    return float(np.abs(a.astype(np.float64) - b).max())


def test_same_vectors_one_at_a_time(
    onnx_embedder: OnnxEmbedder, numpy_embedder: NumpyMiniLM
) -> None:
    for text in TEXTS:
        assert max_diff(onnx_embedder.embed([text]), numpy_embedder.embed([text])) <= TOLERANCE


def test_same_vectors_in_mixed_batches(
    onnx_embedder: OnnxEmbedder, numpy_embedder: NumpyMiniLM
) -> None:
    texts = [*TEXTS, *(f"memory {i}: " + "tea and biscuits " * (i % 9) for i in range(60))]
    got = onnx_embedder.embed(texts)  # over batch_size: sorted by length, padded per batch
    assert max_diff(got, numpy_embedder.embed(texts)) <= TOLERANCE
    small = OnnxEmbedder(MODEL, batch_size=3, threads=1)
    assert max_diff(small.embed(TEXTS), got[: len(TEXTS)]) <= TOLERANCE
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_reference_fixture(onnx_embedder: OnnxEmbedder) -> None:
    """The check tests/embed/test_minilm_reference.py holds the numpy oracle to:
    sentence-transformers' own vectors."""
    data = json.loads(FIXTURE.read_text(encoding="utf-8"))
    texts = [item["text"] for item in data["items"]]
    want = np.array([item["embedding"] for item in data["items"]], dtype=np.float64)
    assert_matches(onnx_embedder.embed(texts), want)
    assert_matches(np.vstack([onnx_embedder.embed([t]) for t in texts]), want)


def test_same_top_ten_neighbours(onnx_embedder: OnnxEmbedder, numpy_embedder: NumpyMiniLM) -> None:
    people = ["sister", "brother", "manager", "dentist", "neighbour", "cousin", "coach"]
    cities = ["Lisbon", "Berlin", "Osaka", "Toronto", "Nairobi", "Lima", "Oslo"]
    things = ["tea", "coffee", "Rust", "PostgreSQL", "jazz", "climbing", "sourdough"]
    corpus = [
        f"The user's {p} moved to {c} and now likes {things[(i + j) % len(things)]}."
        for i, p in enumerate(people)
        for j, c in enumerate(cities)
    ]
    corpus += [
        f"We picked {t} for the {c} office after a long debate." for t in things for c in cities
    ]
    queries = ["Where did my sister move?", "what drink does the user like", "database choice",
               "hobbies", "who lives in Japan", "office in Canada", "music"]  # fmt: skip
    for embedder in (onnx_embedder, numpy_embedder):
        assert isinstance(embedder, Embedder)
    tops = []
    for embedder in (onnx_embedder, numpy_embedder):
        scores = embedder.embed(queries) @ embedder.embed(corpus).T
        tops.append(np.argsort(-scores, axis=1, kind="stable")[:, :10])
    assert np.array_equal(tops[0], tops[1])


def test_identity_and_counting(onnx_embedder: OnnxEmbedder, numpy_embedder: NumpyMiniLM) -> None:
    assert onnx_embedder.name == numpy_embedder.name
    assert onnx_embedder.dim == numpy_embedder.dim == 384
    assert onnx_embedder.embed([]).shape == (0, 384)
    for text in TEXTS:
        assert onnx_embedder.count_tokens(text) == numpy_embedder.count_tokens(text)
    assert 1 <= onnx_embedder.threads == default_threads() <= 4


def test_graph_is_the_published_interface_in_standard_ops(
    onnx_embedder: OnnxEmbedder,
) -> None:
    model = onnx.load(str(onnx_embedder.onnx_path))
    assert [(o.domain, o.version) for o in model.opset_import] == [("", 17)]
    ops = {n.op_type for n in model.graph.node}
    assert {"Erf", "LayerNormalization", "Softmax"} <= ops
    assert all(n.domain == "" for n in model.graph.node)

    def signature(values: list[onnx.ValueInfoProto]) -> list[tuple[str, int, list[str | int]]]:
        return [
            (
                v.name,
                v.type.tensor_type.elem_type,
                [d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim],
            )
            for v in values
        ]

    tokens: list[str | int] = ["batch_size", "sequence_length"]
    assert signature(list(model.graph.input)) == [
        (name, onnx.TensorProto.INT64, tokens)
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    assert signature(list(model.graph.output)) == [
        ("last_hidden_state", onnx.TensorProto.FLOAT, [*tokens, 384])
    ]


def test_build_is_deterministic(onnx_embedder: OnnxEmbedder) -> None:
    data = onnx_build.build_bytes(MODEL)
    assert data == onnx_embedder.onnx_path.read_bytes()


def test_cached_file_is_reused_without_building_or_hashing(
    onnx_embedder: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def forbidden(*args: object) -> None:
        raise AssertionError("must come from the cache as it is")

    monkeypatch.setattr(onnx_cache, "build_bytes", forbidden)
    monkeypatch.setattr(onnx_cache, "sha256_file", forbidden)
    assert onnx_cache.cached_onnx(MODEL) == onnx_embedder.onnx_path
    assert onnx_embedder.onnx_path.parent == onnx_cache.cache_folder()


@pytest.fixture
def own_cache(onnx_embedder: OnnxEmbedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of this test's own, holding a copy of the built file and its record."""
    monkeypatch.setenv("LETHE_CACHE_DIR", str(tmp_path))
    folder = onnx_cache.cache_folder()
    folder.mkdir(parents=True)
    built = onnx_embedder.onnx_path
    for path in (built, built.with_name(built.name + ".json")):
        (folder / path.name).write_bytes(path.read_bytes())
    return folder / built.name


def _counting_builds(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    builds: list[Path] = []
    real = onnx_build.build_bytes

    def counted(model_dir: Path) -> bytes:
        builds.append(model_dir)
        return real(model_dir)

    monkeypatch.setattr(onnx_cache, "build_bytes", counted)
    return builds


def _corrupt_truncate(path: Path) -> None:
    with path.open("r+b") as f:
        f.truncate(path.stat().st_size // 2)


def _corrupt_flip(path: Path) -> None:
    with path.open("r+b") as f:
        f.seek(path.stat().st_size // 2)
        byte = f.read(1)
        f.seek(-1, os.SEEK_CUR)
        f.write(bytes([byte[0] ^ 0xFF]))
    os.utime(path, ns=(0, path.stat().st_mtime_ns + 1_000_000))


def _corrupt_record(path: Path) -> None:
    path.with_name(path.name + ".json").write_text("{not json", encoding="utf-8")


@pytest.mark.parametrize(
    "corrupt", [_corrupt_truncate, _corrupt_flip, _corrupt_record, Path.unlink]
)
def test_corrupted_cache_is_rebuilt(
    own_cache: Path, monkeypatch: pytest.MonkeyPatch, corrupt: object
) -> None:
    good = hashlib.sha256(own_cache.read_bytes()).hexdigest()
    builds = _counting_builds(monkeypatch)
    assert onnx_cache.cached_onnx(MODEL) == own_cache
    assert builds == []  # the copy verifies (hashed once: its modification time is new)
    corrupt(own_cache)  # type: ignore[operator]
    assert onnx_cache.cached_onnx(MODEL) == own_cache
    assert builds == [MODEL]
    assert hashlib.sha256(own_cache.read_bytes()).hexdigest() == good
    assert not list(own_cache.parent.glob("*.partial"))
    assert (
        max_diff(OnnxEmbedder(MODEL).embed(TEXTS[:5]), NumpyMiniLM(MODEL).embed(TEXTS[:5]))
        <= TOLERANCE
    )


@pytest.fixture
def sessions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files onnxruntime was asked to load."""
    loaded: list[str] = []
    real = onnxruntime.InferenceSession

    def recording(path: str, *args: object, **kwargs: object) -> object:
        loaded.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(onnxruntime, "InferenceSession", recording)
    return loaded


def test_verified_file_is_loaded(
    onnx_embedder: OnnxEmbedder, tmp_path: Path, sessions: list[str]
) -> None:
    copy = tmp_path / "model.onnx"
    copy.write_bytes(onnx_embedder.onnx_path.read_bytes())
    digest = hashlib.sha256(copy.read_bytes()).hexdigest()
    embedder = OnnxEmbedder(MODEL, onnx_path=copy, onnx_sha256=digest.upper())
    assert sessions == [str(copy)]
    assert max_diff(embedder.embed(TEXTS), onnx_embedder.embed(TEXTS)) == 0.0


@pytest.mark.parametrize("damage", ["truncated", "flipped", "wrong digest", "missing"])
def test_unverified_file_is_refused_and_never_loaded(
    onnx_embedder: OnnxEmbedder, tmp_path: Path, sessions: list[str], damage: str
) -> None:
    copy = tmp_path / "model.onnx"
    copy.write_bytes(onnx_embedder.onnx_path.read_bytes())
    digest = hashlib.sha256(copy.read_bytes()).hexdigest()
    if damage == "truncated":
        _corrupt_truncate(copy)
    elif damage == "flipped":
        _corrupt_flip(copy)
    elif damage == "wrong digest":
        digest = hashlib.sha256(b"another file").hexdigest()
    else:
        copy.unlink()
    with pytest.raises(EmbedderUnavailable) as info:
        OnnxEmbedder(MODEL, onnx_path=copy, onnx_sha256=digest)
    assert str(copy) in str(info.value)
    assert "not loaded" in str(info.value) or damage == "missing"
    assert sessions == []


def test_size_is_checked_before_hashing(
    onnx_embedder: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = onnx_embedder.onnx_path
    monkeypatch.setattr(onnx_cache, "sha256_file", lambda p: pytest.fail("hashed"))
    with pytest.raises(EmbedderUnavailable, match="bytes, not the 12 expected"):
        onnx_cache.verify_onnx(path, "0" * 64, size=12)


def test_a_path_without_a_digest_is_refused(onnx_embedder: OnnxEmbedder) -> None:
    with pytest.raises(ValueError, match="onnx_sha256"):
        OnnxEmbedder(MODEL, onnx_path=onnx_embedder.onnx_path)


def test_two_processes_build_once(tmp_path: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from lethe.embed import onnx_cache
        real = onnx_cache.build_bytes
        def counted(model_dir):
            print("BUILT", flush=True)
            return real(model_dir)
        onnx_cache.build_bytes = counted
        print(onnx_cache.cached_onnx(Path(sys.argv[1])))
        """
    )
    env = {**os.environ, "LETHE_CACHE_DIR": str(tmp_path)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(MODEL)], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=300)[0].split() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert sum(out.count("BUILT") for out in outputs) == 1
    paths = {out[-1] for out in outputs}
    assert len(paths) == 1
    built = Path(paths.pop())
    record = json.loads(built.with_name(built.name + ".json").read_text(encoding="utf-8"))
    assert hashlib.sha256(built.read_bytes()).hexdigest() == record["sha256"]
    assert not list(built.parent.glob("*.partial"))


def _small_bert(folder: Path, config: dict[str, Any]) -> Path:
    """A BERT of another shape with random weights, under the MiniLM tokenizer."""
    rng = np.random.default_rng(7)
    h, inter = int(config["hidden_size"]), int(config["intermediate_size"])

    def r(*shape: int) -> npt.NDArray[np.float32]:
        return (rng.standard_normal(shape) * 0.05).astype(np.float32)

    w = {
        "embeddings.word_embeddings.weight": r(int(config["vocab_size"]), h),
        "embeddings.position_embeddings.weight": r(int(config["max_position_embeddings"]), h),
        "embeddings.token_type_embeddings.weight": r(int(config["type_vocab_size"]), h),
        "embeddings.LayerNorm.weight": 1 + r(h),
        "embeddings.LayerNorm.bias": r(h),
    }

    def dense(key: str, out: int, inp: int) -> None:
        w[f"{key}.weight"], w[f"{key}.bias"] = r(out, inp), r(out)

    for i in range(int(config["num_hidden_layers"])):
        p = f"bert.encoder.layer.{i}."  # a prefix, as in checkpoints saved from a task head
        for name in ("self.query", "self.key", "self.value", "output.dense"):
            dense(f"{p}attention.{name}", h, h)
        dense(f"{p}intermediate.dense", inter, h)
        dense(f"{p}output.dense", h, inter)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            w[f"{p}{ln}.weight"], w[f"{p}{ln}.bias"] = 1 + r(h), r(h)
    save_file(w, str(folder / "model.safetensors"))
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "tokenizer.json").symlink_to(MODEL / "tokenizer.json")
    return folder


def test_other_bert_shapes(cache: Path, tmp_path: Path) -> None:
    """Layers, heads, widths, positions and token types come from the config, as for a
    multilingual MiniLM-L12; the numpy oracle is the reference for any of them."""
    config = {
        "model_type": "bert", "hidden_act": "gelu", "hidden_size": 48, "num_attention_heads": 6,
        "num_hidden_layers": 3, "intermediate_size": 80, "vocab_size": 30522,
        "max_position_embeddings": 300, "type_vocab_size": 1, "layer_norm_eps": 1e-5,
    }  # fmt: skip
    folder = _small_bert(tmp_path, config)
    got = OnnxEmbedder(folder, name="small-bert").embed(TEXTS)
    assert got.shape == (len(TEXTS), 48)
    assert max_diff(got, NumpyMiniLM(folder).embed(TEXTS)) <= TOLERANCE


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("hidden_act", "relu"),
        ("position_embedding_type", "relative_key"),
        ("model_type", "roberta"),
    ],
)
def test_unsupported_configs_are_refused(key: str, value: str) -> None:
    config = json.loads((MODEL / "config.json").read_text(encoding="utf-8"))
    config[key] = value
    with pytest.raises(EmbedderUnavailable, match=value):
        onnx_build.build_model(config, {})


def test_an_unwritable_cache_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The encoder cache cannot be made (a file stands where its folder would be): the error
    names the folder and says what to set, and nothing is built."""
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    monkeypatch.setenv("LETHE_CACHE_DIR", str(blocker))
    with pytest.raises(EmbedderUnavailable, match="cannot create the encoder cache") as info:
        onnx_cache.cached_onnx(MODEL)
    assert "LETHE_CACHE_DIR" in str(info.value.hint)
    assert blocker.read_text() == "not a folder"


def test_the_runtime_writes_no_device_id_or_telemetry_queue(tmp_path: Path) -> None:
    """ONNX Runtime's official builds write a device id and a queue of telemetry events under
    ~/.cache/Microsoft on first use; lethe loads it with telemetry off. A fresh home, the real
    model from the machine's cache, one embedding."""
    from lethe.embed.download import cache_dir

    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LETHE_", "ORT_"))}
    env |= {"HOME": str(home), "LETHE_CACHE_DIR": str(cache_dir())}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from lethe.embed import load_default_embedder; "
            "print(load_default_embedder().embed(['a cat on a mat']).shape)",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "(1, 384)" in done.stdout
    assert not (home / ".cache" / "Microsoft").exists()
