"""The tests' oracle: all-MiniLM-L6-v2 (or any BERT of its kind) as a pure numpy forward pass.

lethe's encoder runs on ONNX Runtime (lethe/embed/onnx_encoder.py) from a graph written
from the weights; this is the forward pass it replaced, written independently of that graph
from the same weights, and checked against sentence-transformers' own vectors
(tests/fixtures/minilm_reference.json). Tokenising, batching and pooling are the product's
(lethe/embed/sentence.py), so the two differ only in the transformer. It is not shipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lethe.embed.base import F32
from lethe.embed.model import MODEL_NAME
from lethe.embed.sentence import MAX_SEQ_LENGTH, Ids, SentenceEncoder
from lethe.embed.weights import load_weights
from lethe.errors import EmbedderUnavailable

_FF_ROWS = 128

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


class NumpyMiniLM(SentenceEncoder):
    """A BERT sentence encoder in numpy, CPU only; by default all-MiniLM-L6-v2, 384-d."""

    def __init__(self, model_dir: Path, batch_size: int = 64) -> None:
        model_dir = Path(model_dir)
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
        if config.get("hidden_act", "gelu") != "gelu":
            raise EmbedderUnavailable(f"unsupported activation {config['hidden_act']!r}")
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config.get("layer_norm_eps", 1e-12))
        w = load_weights(model_dir / "model.safetensors")
        self._word = w["embeddings.word_embeddings.weight"]
        self._pos = w["embeddings.position_embeddings.weight"]
        self._type0 = w["embeddings.token_type_embeddings.weight"][0]
        self._emb_ln = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        n_layers = int(config["num_hidden_layers"])
        self._layers = [_Layer(w, f"encoder.layer.{i}.") for i in range(n_layers)]
        super().__init__(
            (model_dir / "tokenizer.json").read_text(encoding="utf-8"),
            name=MODEL_NAME,
            dim=int(self._word.shape[1]),
            batch_size=batch_size,
            max_length=min(MAX_SEQ_LENGTH, int(self._pos.shape[0])),
        )

    def _hidden_states(self, ids: Ids, mask: Ids) -> F32:
        b, n = ids.shape
        x = self._word[ids] + self._pos[:n] + self._type0
        x = _layer_norm(x.reshape(b * n, self._dim), *self._emb_ln, self._eps)
        # Padded keys get a huge negative score so softmax gives them exactly zero weight,
        # which keeps a sentence's vector independent of what it was batched with.
        bias = ((1.0 - mask.astype(np.float32)) * np.float32(-1e9))[:, None, None, :]
        for layer in self._layers:
            x = self._block(layer, x, bias, b, n)
        return x.reshape(b, n, self._dim)

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
