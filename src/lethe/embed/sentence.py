"""What a BERT sentence encoder does around its transformer, shared by every forward pass.

The tokenizer truncates to 256 tokens (sentence-transformers' setting: the shipped
tokenizer.json pads and truncates to a fixed 128), texts run in groups of neighbours in length
padded to the group's longest, and the last hidden state is mean-pooled over real tokens and
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

TOKEN_BUDGET = 512
"""Padded tokens per forward pass. The texts of one `embed` call are sorted by length and run
in groups of at most this many tokens (rows x the longest row), not in fixed batches:
bench/bench_encoder.py on 2 cores with ONNX Runtime (2026-11-28) measured import-sized calls
of 64 short memories at 124 texts/s as one padded batch and 172/s in groups of 512 tokens
(256: 142, 1024: 159, 2048: 136, 4096: 119); a trial with texts of ~120 tokens also
favoured 512 over 2048 (36.7 against 29.9/s). Smaller passes keep a layer's activations in
cache; sorting keeps padding small."""

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
        self._pad_id = pad_id(self._tok)
        self._tok.enable_truncation(max_length=max_length)
        self._tok.no_padding()  # embed pads each length group itself
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
        rows = [e.ids for e in self._tok.encode_batch(list(texts))]
        # Neighbours in length go together, so padding (wasted rows) stays small.
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
        for group in token_groups([len(rows[i]) for i in order], self.batch_size):
            idx = [order[i] for i in group]
            out[idx] = self._encode_ids([rows[i] for i in idx])
        return out

    def _encode_ids(self, rows: list[list[int]]) -> F32:
        width = max(len(r) for r in rows)
        ids = np.full((len(rows), width), self._pad_id, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for i, r in enumerate(rows):
            ids[i, : len(r)] = r
            mask[i, : len(r)] = 1
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


def pad_id(tok: Tokenizer) -> int:
    """The id padded positions carry: the tokenizer's own padding setting, else its pad token
    (BERT's `[PAD]` is 0, XLM-R's `<pad>` is 1, whose 0 is `<s>`). Padded positions are
    masked out of attention and pooling, so this changes no vector; it keeps the ids what the
    model was trained to see."""
    padding = tok.padding
    if padding:
        return int(padding["pad_id"])
    for token in ("[PAD]", "<pad>"):
        found = tok.token_to_id(token)
        if found is not None:
            return int(found)
    return 0


def token_groups(lengths: Sequence[int], max_rows: int) -> list[range]:
    """Consecutive groups of `lengths` (sorted ascending) of at most `max_rows` rows whose
    padded size (rows x longest) stays within TOKEN_BUDGET, a group holding at least one row.
    """
    groups: list[range] = []
    start = 0
    while start < len(lengths):
        end = start + 1
        while (
            end < len(lengths)
            and end - start < max_rows
            and (end - start + 1) * lengths[end] <= TOKEN_BUDGET
        ):
            end += 1
        groups.append(range(start, end))
        start = end
    return groups
