"""The MCP server's engine loader: a failed open (the model not downloadable yet, the
database not reachable) is reported to the caller, and the next call tries again."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from lethe.errors import EmbedderUnavailable
from lethe.mcp.loader import EngineLoader


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


def test_close_waits_for_an_open_under_way_and_closes_what_it_opened() -> None:
    """A server stopping while the store opens must not exit under the loader thread: an
    interpreter finalizing while that thread is inside ONNX Runtime aborted the process."""
    opening, release = threading.Event(), threading.Event()
    closed: list[str] = []

    class Engine:
        def close(self) -> None:
            closed.append("engine")

    def open_engine() -> Any:
        opening.set()
        release.wait(10)
        return Engine()

    loader = EngineLoader(open_engine)
    loader.start()
    assert opening.wait(10)
    closer = threading.Thread(target=loader.close)
    closer.start()
    closer.join(0.3)
    assert closer.is_alive(), "close returned while the open was still under way"
    release.set()
    closer.join(10)
    assert not closer.is_alive()
    assert closed == ["engine"], "the engine opened meanwhile is closed"


def test_close_before_any_open_returns_at_once() -> None:
    loader = EngineLoader(lambda: pytest.fail("close must not open the store"))
    started = time.monotonic()
    loader.close()
    assert time.monotonic() - started < 1.0


def test_a_second_close_closes_nothing_again() -> None:
    """The server's lifespan and `lethe mcp` itself both close the loader."""
    closed: list[int] = []

    class Engine:
        def close(self) -> None:
            closed.append(1)

    loader = EngineLoader(Engine)  # type: ignore[arg-type]
    loader.get()
    loader.close()
    loader.close()
    assert closed == [1]
