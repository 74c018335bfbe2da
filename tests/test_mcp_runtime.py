"""The MCP server's engine loader: a failed open (the model not downloadable yet, the
database not reachable) is reported to the caller, and the next call tries again."""

from __future__ import annotations

from typing import Any

import pytest

from lethe.errors import EmbedderUnavailable
from lethe.mcp.runtime import EngineLoader


def test_a_failed_open_is_tried_again_by_the_next_call() -> None:
    attempts: list[int] = []
    engine: Any = object()

    def open_engine() -> Any:
        attempts.append(1)
        if len(attempts) == 1:
            raise EmbedderUnavailable("could not download model.safetensors", hint="try again")
        return engine

    loader = EngineLoader(open_engine)
    with pytest.raises(EmbedderUnavailable, match="could not download"):
        loader.get()
    assert loader.get() is engine
    assert loader.get() is engine
    assert len(attempts) == 2, "a loaded engine is kept"
