"""Text embedding: the `Embedder` protocol and the default MiniLM encoder."""

from lethe.embed.base import Embedder, Vectors
from lethe.embed.minilm import (
    MiniLMEmbedder,
    ModelLocation,
    fetch_model,
    find_model_dir,
    load_default_embedder,
)

__all__ = [
    "Embedder",
    "MiniLMEmbedder",
    "ModelLocation",
    "Vectors",
    "fetch_model",
    "find_model_dir",
    "load_default_embedder",
]
