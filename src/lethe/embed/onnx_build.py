"""An ONNX graph of a BERT encoder, written from `config.json` and `model.safetensors`.

The published `onnx/model.onnx` files are exported through torch, which lethe does not
install, and downloading one would be a second 90 MB file to pin and fetch beside the weights
already on the machine. The encoder is a few dozen standard operators, so it is written here
with `onnx.helper` straight from the weights, with the same interface as the sentence-
transformers export (`input_ids`, `attention_mask`, `token_type_ids` in, `last_hidden_state`
out) so any runner of that export can run this one.

The graph follows the torch export's shapes (separate Q/K/V projections, scores divided by
sqrt(head size), erf GELU written as `x * 0.5 * (1 + erf(x / sqrt 2))`) because those are the
patterns onnxruntime's optimizer recognises: it folds the scale into the attention product,
the bias and GELU into one kernel, and each residual Add into the LayerNorm after it. (Its
attention fusion matches only graphs of opset 12 and older, so attention stays as standard
operators here.) Everything that decides the bytes is fixed here (IR version, opset, names,
producer), so the same weights always give the same file and it can be cached by digest.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from lethe.embed.base import F32
from lethe.embed.weights import load_weights
from lethe.errors import EmbedderUnavailable

BUILDER_VERSION = 1
"""Part of the cache key: bump it whenever the graph written for the same weights changes."""
OPSET = 17
"""The first opset with LayerNormalization as a standard operator."""
IR_VERSION = 8
"""Pinned rather than taken from the installed `onnx`, whose default moves between releases
and would change the bytes (and the digest) of an otherwise identical graph."""
PRODUCER = "lethe.embed.onnx_build"
MASK_BIAS = -1e9
"""Added to the scores of padded keys: softmax then gives them exactly zero weight, so a
sentence's vector does not depend on what it was batched with (the tests' numpy oracle does
the same)."""


def _check_config(config: dict[str, Any]) -> None:
    """Refuse what the graph does not implement rather than compute something else."""
    problems = []
    if config.get("model_type", "bert") != "bert":
        problems.append(f"model_type {config['model_type']!r} (only 'bert')")
    if config.get("hidden_act", "gelu") != "gelu":
        problems.append(f"hidden_act {config['hidden_act']!r} (only exact 'gelu')")
    if config.get("position_embedding_type", "absolute") != "absolute":
        problems.append(f"position_embedding_type {config['position_embedding_type']!r}")
    missing = [
        k for k in ("hidden_size", "num_attention_heads", "num_hidden_layers") if k not in config
    ]
    if missing:
        problems.append(f"no {', '.join(missing)}")
    elif int(config["hidden_size"]) % int(config["num_attention_heads"]):
        problems.append("hidden_size is not a multiple of num_attention_heads")
    if problems:
        raise EmbedderUnavailable(
            f"cannot build an ONNX encoder for this model: unsupported {'; '.join(problems)}",
            hint="use a BERT-architecture sentence-transformers model",
        )


class _Graph:
    """Nodes and initializers with names given in creation order, so two builds of the same
    weights produce the same protobuf."""

    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.value_info: list[Any] = []
        self._count = 0

    def const(self, name: str, value: npt.NDArray[Any]) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, *inputs: str, out: str | None = None, **attrs: Any) -> str:
        from onnx import helper

        self._count += 1
        name = out or f"{op_type.lower()}_{self._count}"
        node = helper.make_node(op_type, list(inputs), [name], name=f"n{self._count}_{op_type}")
        node.attribute.extend(helper.make_attribute(k, v) for k, v in sorted(attrs.items()))
        self.nodes.append(node)
        return name

    def tokens(self, name: str, width: int) -> str:
        """Declare `name` a (batch, sequence, width) float tensor. onnxruntime fuses a
        residual Add into the LayerNorm after it only when both inputs' shapes are known,
        and its own inference leaves a MatMul's output dimensions unnamed."""
        from onnx import TensorProto, helper

        dims: list[str | int] = ["batch_size", "sequence_length", width]
        self.value_info.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, dims))
        return name


def build_model(config: dict[str, Any], weights: dict[str, F32]) -> Any:
    """The encoder as an `onnx.ModelProto`; `weights` keyed as in a BertModel checkpoint
    (any `bert.` prefix already stripped, as `weights.load_weights` does)."""
    from onnx import TensorProto, helper

    _check_config(config)
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    head = hidden // heads
    eps = float(config.get("layer_norm_eps", 1e-12))
    f32 = np.float32

    def w(key: str) -> F32:
        try:
            return weights[key]
        except KeyError:
            raise EmbedderUnavailable(
                f"cannot build an ONNX encoder: the weights have no {key}",
                hint="use a BERT-architecture sentence-transformers model",
            ) from None

    g = _Graph()
    g.const("word_embeddings", w("embeddings.word_embeddings.weight"))
    g.const("position_embeddings", w("embeddings.position_embeddings.weight"))
    g.const("token_type_embeddings", w("embeddings.token_type_embeddings.weight"))
    zero = g.const("i64_0", np.array([0], np.int64))
    one_i = g.const("i64_1", np.array([1], np.int64))
    two_i = g.const("i64_2", np.array([2], np.int64))
    heads_shape = g.const("heads_shape", np.array([0, 0, heads, head], np.int64))
    merged_shape = g.const("merged_shape", np.array([0, 0, hidden], np.int64))
    one = g.const("f32_1", np.array(1.0, f32))
    half = g.const("f32_half", np.array(0.5, f32))
    root2 = g.const("f32_sqrt2", np.array(math.sqrt(2.0), f32))
    scale = g.const("f32_sqrt_head", np.array(math.sqrt(head), f32))
    big = g.const("f32_mask_bias", np.array(MASK_BIAS, f32))
    mask_axes = g.const("mask_axes", np.array([1, 2], np.int64))

    def layer_norm(x: str, prefix: str, out: str | None = None) -> str:
        gamma = g.const(f"{prefix}.weight", w(f"{prefix}.weight"))
        beta = g.const(f"{prefix}.bias", w(f"{prefix}.bias"))
        normed = g.op("LayerNormalization", x, gamma, beta, out=out, axis=-1, epsilon=eps)
        return normed if out else g.tokens(normed, hidden)

    def dense(x: str, prefix: str) -> str:
        # torch's Linear stores (out, in); MatMul wants (in, out).
        weight = w(f"{prefix}.weight")
        width = int(weight.shape[0])
        kernel = g.const(f"{prefix}.weight", np.ascontiguousarray(weight.T))
        bias = g.const(f"{prefix}.bias", w(f"{prefix}.bias"))
        return g.tokens(g.op("Add", g.tokens(g.op("MatMul", x, kernel), width), bias), width)

    # Embeddings: word + absolute position (the first n rows) + token type, then LayerNorm.
    seq_len = g.op("Slice", g.op("Shape", "input_ids"), one_i, two_i, zero)
    positions = g.op("Slice", "position_embeddings", zero, seq_len, zero)
    summed = g.op(
        "Add",
        g.op("Add", g.op("Gather", "word_embeddings", "input_ids"), positions),
        g.op("Gather", "token_type_embeddings", "token_type_ids"),
    )
    x = layer_norm(summed, "embeddings.LayerNorm")

    # (1 - mask) * -1e9, shaped (batch, 1, 1, keys) to broadcast over heads and queries.
    keep = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    bias = g.op("Unsqueeze", g.op("Mul", g.op("Sub", one, keep), big), mask_axes)

    layers = int(config["num_hidden_layers"])
    for i in range(layers):
        p = f"encoder.layer.{i}."

        def split(t: str, perm: list[int]) -> str:
            return g.op("Transpose", g.op("Reshape", t, heads_shape), perm=perm)

        q = split(dense(x, f"{p}attention.self.query"), [0, 2, 1, 3])
        k = split(dense(x, f"{p}attention.self.key"), [0, 2, 3, 1])
        v = split(dense(x, f"{p}attention.self.value"), [0, 2, 1, 3])
        scores = g.op("Add", g.op("Div", g.op("MatMul", q, k), scale), bias)
        ctx = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        ctx = g.op("Reshape", g.op("Transpose", ctx, perm=[0, 2, 1, 3]), merged_shape)
        attn = g.tokens(g.op("Add", dense(ctx, f"{p}attention.output.dense"), x), hidden)
        x = layer_norm(attn, f"{p}attention.output.LayerNorm")
        h = dense(x, f"{p}intermediate.dense")
        erf = g.op("Erf", g.op("Div", h, root2))
        gelu = g.op("Mul", g.op("Mul", h, g.op("Add", erf, one)), half)
        out = g.tokens(g.op("Add", dense(gelu, f"{p}output.dense"), x), hidden)
        last = "last_hidden_state" if i == layers - 1 else None
        x = layer_norm(out, f"{p}output.LayerNorm", out=last)

    def io(name: str, elem: int, dims: list[str | int]) -> Any:
        return helper.make_tensor_value_info(name, elem, dims)

    token_dims: list[str | int] = ["batch_size", "sequence_length"]
    graph = helper.make_graph(
        g.nodes,
        "bert_encoder",
        [
            io(n, TensorProto.INT64, token_dims)
            for n in ("input_ids", "attention_mask", "token_type_ids")
        ],
        [io("last_hidden_state", TensorProto.FLOAT, [*token_dims, hidden])],
        initializer=g.initializers,
        value_info=g.value_info,
    )
    model = helper.make_model(
        graph,
        ir_version=IR_VERSION,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name=PRODUCER,
        producer_version=str(BUILDER_VERSION),
    )
    return model


def build_bytes(model_dir: Path) -> bytes:
    """The serialized encoder of the model in `model_dir` (config.json, model.safetensors)."""
    import onnx

    model_dir = Path(model_dir)
    try:
        config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbedderUnavailable(f"cannot read {model_dir / 'config.json'}: {exc}") from exc
    model = build_model(config, load_weights(model_dir / "model.safetensors"))
    onnx.checker.check_model(model)
    data: bytes = model.SerializeToString(deterministic=True)
    return data


def build(model_dir: Path, target: Path) -> str:
    """Write the encoder of the model in `model_dir` to `target`; return its SHA-256."""
    data = build_bytes(model_dir)
    write_atomic(target, data)
    return hashlib.sha256(data).hexdigest()


def write_atomic(target: Path, data: bytes) -> None:
    """Write to a temporary file beside `target`, sync, then rename over it: a reader sees
    the old file or the whole new one, never half of one, and two processes writing at once
    both leave a complete file (the last rename wins)."""
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(name)
        raise
