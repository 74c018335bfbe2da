"""The engine: `Lethe` and the operations it is assembled from."""

from lethe.engine.base import sha256
from lethe.engine.lethe import Lethe
from lethe.engine.reembed import ReembedResult, reembed

__all__ = ["Lethe", "ReembedResult", "reembed", "sha256"]
