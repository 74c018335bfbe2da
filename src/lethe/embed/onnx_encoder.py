"""Sentence embeddings on ONNX Runtime, from a graph built from the model's weights
(onnx_build.py).

Tokenising, batching and pooling are the shared ones (sentence.py): only the transformer
itself runs in onnxruntime, whose fused kernels (GELU with its bias, residual with
LayerNorm, scaled attention products) and thread pool do the arithmetic of a numpy forward
pass in fewer passes over memory. Its vectors are those of the numpy forward pass lethe
used before, kept as the tests' oracle (tests/numpy_minilm.py), to within 1e-6.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from lethe.common.threads import resolve as resolve_threads
from lethe.embed.base import F32
from lethe.embed.model import MODEL_NAME
from lethe.embed.onnx_cache import encoder_file, verify_onnx
from lethe.embed.sentence import MAX_SEQ_LENGTH, Ids, SentenceEncoder
from lethe.errors import EmbedderUnavailable

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


def runtime() -> Any:
    """ONNX Runtime, loaded with its telemetry off unless the person chose otherwise
    (`ORT_DISABLE_TELEMETRY`): on first use its official builds otherwise write a device id
    and a queue of events to upload under ~/.cache/Microsoft, which a memory that promises
    privacy must not do behind its user's back."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort

    return ort


def session_options(threads: int, *, spin: bool = ALLOW_SPINNING) -> Any:
    """One intra-op pool of `threads`, operators run one after another (the encoder is a
    chain, so an inter-op pool would only add threads that wait)."""
    ort = runtime()

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3  # its warnings are about graph tuning, not for lethe's users
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return options


class OnnxEmbedder(SentenceEncoder):
    """A BERT sentence encoder run by onnxruntime on the CPU; by default all-MiniLM-L6-v2.

    Constructed from a model folder (config.json, tokenizer.json, and model.safetensors or,
    in the download cache, onnx/model.onnx). The ONNX file is the downloaded one, else the
    one built from that folder's weights and cached (onnx_cache.encoder_file), unless
    `onnx_path` names another one, which is then used only if its SHA-256 is `onnx_sha256`."""

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
        if threads is not None and threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        self.threads = resolve_threads(threads)
        try:
            config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
            text = (model_dir / "tokenizer.json").read_text(encoding="utf-8")
        except (OSError, ValueError) as exc:
            raise EmbedderUnavailable(f"cannot read the model in {model_dir}: {exc}") from exc
        super().__init__(
            text,
            name=name,
            dim=int(config["hidden_size"]),
            batch_size=batch_size,
            max_length=min(max_length, int(config.get("max_position_embeddings", max_length))),
        )

        if onnx_path is not None:
            if onnx_sha256 is None:
                raise ValueError("onnx_path needs onnx_sha256: an unchecked file is never loaded")
            path = verify_onnx(Path(onnx_path), onnx_sha256)
        else:
            path = encoder_file(model_dir)
        ort = runtime()

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

    def _hidden_states(self, ids: Ids, mask: Ids) -> F32:
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = self._session.run(
            ["last_hidden_state"], {k: v for k, v in feed.items() if k in self._inputs}
        )
        result: F32 = hidden
        return result
