"""What a BERT sentence encoder does around its transformer, shared by every forward pass.

The tokenizer truncates to 256 tokens and pads per batch (sentence-transformers' settings:
the shipped tokenizer.json pads and truncates to a fixed 128), long inputs are batched with
neighbours in length, and the last hidden state is mean-pooled over real tokens and
L2-normalised. A subclass only runs the transformer (`_hidden_states`): onnxruntime in the
product (onnx_encoder.py), numpy in the tests' oracle (tests/numpy_minilm.py), so the two
differ in nothing else.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from lethe.embed.base import F32, Vectors

MAX_SEQ_LENGTH = 256

Ids = npt.NDArray[np.int64]


class SentenceEncoder(ABC):
    """An `Embedder` whose subclass supplies the transformer's last hidden state."""

    def __init__(
        self, tokenizer_json: str, *, name: str, dim: int, batch_size: int, max_length: int
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.batch_size = batch_size
        self._name = name
        self._dim = dim
        self._tok = Tokenizer.from_str(tokenizer_json)
        self._tok.enable_truncation(max_length=max_length)
        padding = self._tok.padding or {}
        pad_id = padding.get("pad_id", self._tok.token_to_id("[PAD]") or 0)
        self._tok.enable_padding(pad_id=pad_id, pad_token=padding.get("pad_token", "[PAD]"))
        self._tokenizer_json = tokenizer_json
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
        hidden = self._hidden_states(ids, mask)
        weights = mask.astype(np.float32)
        pooled: F32 = (weights[:, None, :] @ hidden)[:, 0, :]
        pooled /= np.maximum(weights.sum(axis=1, keepdims=True), np.float32(1e-9))
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))
        return pooled

    @abstractmethod
    def _hidden_states(self, ids: Ids, mask: Ids) -> F32:
        """The last hidden state, (batch, tokens, dim) float32, of token `ids` (batch,
        tokens) whose padding is 0 in `mask`. A padded token must not change the others'
        states, so that a sentence's vector does not depend on what it was batched with."""
