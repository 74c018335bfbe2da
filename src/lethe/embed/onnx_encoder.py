"""Sentence embeddings on ONNX Runtime: the same vectors as the numpy encoder (minilm.py),
from a graph built from the same weights (onnx_build.py).

Tokenising, batching and pooling are the numpy encoder's, line for line: the tokenizer
truncates to 256 tokens and pads per batch, long inputs are batched by length, and the
last hidden state is mean-pooled over real tokens and L2-normalised in numpy. Only the
transformer itself runs in onnxruntime, whose fused kernels (GELU with its bias, residual
with LayerNorm, scaled attention products) and thread pool do the same arithmetic in fewer
passes over memory.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tokenizers import Tokenizer

from lethe.embed.base import Vectors
from lethe.embed.minilm import F32, MAX_SEQ_LENGTH, MODEL_NAME
from lethe.embed.onnx_cache import cached_onnx, verify_onnx
from lethe.errors import EmbedderUnavailable
from lethe.threads import default_threads

ALLOW_SPINNING = False
"""Whether onnxruntime's idle pool threads busy-wait for the next task.

Spinning saves the wake-up of a sleeping thread between the graph's small operators, which
pays only while the cores are otherwise idle. On a loaded machine the spinning threads burn
the time slices the working thread needs, and on a small one they also take the cores from
whatever lethe runs right after the embedding (the vector search, SQLite): the same effect
that made lethe set OPENBLAS_THREAD_TIMEOUT. Measured with bench/bench_encoder.py on 2 cores,
two threads, one query at a time: idle, p50 4.6 ms either way; with two busy processes, p95
23.6 ms without spinning against 30.6 ms with it; with one other process busy on one core,
p50 7.1 ms against 16.7 ms. So it is off.
"""


def session_options(threads: int, *, spin: bool = ALLOW_SPINNING) -> Any:
    """One intra-op pool of `threads`, operators run one after another (the encoder is a
    chain, so an inter-op pool would only add threads that wait)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # its warnings are about graph tuning, not for lethe's users
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return options


class OnnxEmbedder:
    """A BERT sentence encoder run by onnxruntime on the CPU; by default all-MiniLM-L6-v2.

    Constructed like MiniLMEmbedder, from a model folder (config.json, model.safetensors,
    tokenizer.json). The ONNX file is the one built from that folder's weights and cached
    (onnx_cache.cached_onnx), unless `onnx_path` names another one, which is then used only
    if its SHA-256 is `onnx_sha256`."""

    def __init__(
        self,
        model_dir: Path,
        batch_size: int = 64,
        *,
        threads: int | None = None,
        spin: bool = ALLOW_SPINNING,
        onnx_path: Path | None = None,
        onnx_sha256: str | None = None,
        name: str = MODEL_NAME,
        max_length: int = MAX_SEQ_LENGTH,
    ) -> None:
        model_dir = Path(model_dir)
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if threads is not None and threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        self.batch_size = batch_size
        self.threads = threads if threads is not None else default_threads()
        self._name = name
        try:
            config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
            text = (model_dir / "tokenizer.json").read_text(encoding="utf-8")
        except (OSError, ValueError) as exc:
            raise EmbedderUnavailable(f"cannot read the model in {model_dir}: {exc}") from exc
        self._dim = int(config["hidden_size"])
        max_length = min(max_length, int(config.get("max_position_embeddings", max_length)))

        if onnx_path is not None:
            if onnx_sha256 is None:
                raise ValueError("onnx_path needs onnx_sha256: an unchecked file is never loaded")
            path = verify_onnx(Path(onnx_path), onnx_sha256)
        else:
            path = cached_onnx(model_dir)
        import onnxruntime as ort

        try:
            self._session = ort.InferenceSession(
                str(path), session_options(self.threads, spin=spin), ["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise EmbedderUnavailable(
                f"onnxruntime cannot load {path}: {exc}",
                hint="delete the file so that it is built again",
            ) from exc
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.onnx_path = path

        # As in MiniLMEmbedder: the shipped tokenizer.json pads and truncates to a fixed 128;
        # sentence-transformers uses 256 and pads per batch.
        self._tok = Tokenizer.from_str(text)
        self._tok.enable_truncation(max_length=max_length)
        padding = self._tok.padding or {}
        pad_id = padding.get("pad_id", self._tok.token_to_id("[PAD]") or 0)
        self._tok.enable_padding(pad_id=pad_id, pad_token=padding.get("pad_token", "[PAD]"))
        self._tokenizer_json = text
        self._counter_instance: Tokenizer | None = None
        self._counter_lock = threading.Lock()

    @property
    def name(self) -> str:
        return self._name

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def _counter(self) -> Tokenizer:
        """A second tokenizer for counting (truncation settings are shared state), built on
        first use, as in MiniLMEmbedder."""
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
        # Batching neighbours in length keeps padding (wasted rows) small.
        order = np.argsort(np.asarray(lengths), kind="stable")
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._encode_batch([texts[int(i)] for i in idx])
        return out

    def _encode_batch(self, texts: list[str]) -> F32:
        encs = self._tok.encode_batch(texts)
        ids = np.array([e.ids for e in encs], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = self._session.run(
            ["last_hidden_state"], {k: v for k, v in feed.items() if k in self._inputs}
        )
        weights = mask.astype(np.float32)
        pooled: F32 = (weights[:, None, :] @ hidden)[:, 0, :]
        pooled /= np.maximum(weights.sum(axis=1, keepdims=True), np.float32(1e-9))
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))
        return pooled
