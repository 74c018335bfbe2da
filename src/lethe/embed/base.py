"""The embedder contract the engine depends on.

The engine only ever needs three things from an embedding model: its name (recorded in the
database so a store is never searched with vectors from another model), its dimension, and a
batched `embed` that returns unit-length float32 rows. Anything that provides them can back a
store, which keeps the default MiniLM encoder replaceable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
F32 = npt.NDArray[np.float32]
"""Any float32 array: weights, hidden states (`Vectors` are what an encoder returns)."""


@runtime_checkable
class Embedder(Protocol):
    """A text encoder producing L2-normalised float32 vectors."""

    @property
    def name(self) -> str:
        """Stable identifier of the model, e.g. `sentence-transformers/all-MiniLM-L6-v2`."""
        ...

    @property
    def dim(self) -> int:
        """Length of each vector."""
        ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Encode `texts` into an array of shape (len(texts), dim), rows of unit length."""
        ...

    def count_tokens(self, text: str) -> int:
        """Number of tokens the model's tokenizer produces for `text` (no truncation)."""
        ...
