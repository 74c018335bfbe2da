"""The engine: `Lethe`, the facade, and the services it is composed of."""

from lethe.engine.base import sha256
from lethe.engine.lethe import Lethe
from lethe.engine.reembed import ReembedResult, reembed

__all__ = ["Lethe", "ReembedResult", "reembed", "sha256"]
