"""Text embedding: the `Embedder` protocol and the encoders of the supported models (the default
MiniLM, and those of embed/registry.py) on ONNX Runtime."""

from lethe.embed.base import Embedder, Vectors
from lethe.embed.model import (
    ModelLocation,
    fetch_model,
    find_model_dir,
    load_default_embedder,
    load_embedder,
)
from lethe.embed.onnx_encoder import OnnxEmbedder

__all__ = [
    "Embedder",
    "ModelLocation",
    "OnnxEmbedder",
    "Vectors",
    "fetch_model",
    "find_model_dir",
    "load_default_embedder",
    "load_embedder",
]
