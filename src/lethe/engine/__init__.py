"""The engine: `Lethe` and the operations it is assembled from."""

from lethe.engine.base import sha256
from lethe.engine.lethe import Lethe

__all__ = ["Lethe", "sha256"]
