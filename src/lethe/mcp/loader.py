"""The engine, opened on a thread of its own from the moment the server starts.

Opening loads the embedding model and the store, which takes longer than importing the MCP
SDK; started first, the two overlap, and a client's first tool call waits for whichever ends
last instead of for both. This module imports neither the SDK nor the engine, so the open can
start before either has loaded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lethe.engine import Lethe

OPEN_TIMEOUT_S = 120.0
CLOSE_WAIT_S = 30.0
"""How long a server stopping while the store opens waits for the open to end."""


class EngineLoader:
    """Opens the store and loads the embedder on a thread started with the server."""

    def __init__(self, open_engine: Callable[[], Lethe]) -> None:
        self._open = open_engine
        self._ready = threading.Event()
        self._engine: Lethe | None = None
        self._error: BaseException | None = None
        self._started = False
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if not self._started:
                self._started = True
                threading.Thread(target=self._load, name="lethe-open", daemon=True).start()

    def _load(self) -> None:
        try:
            self._engine = self._open()
        except BaseException as exc:  # reported to every caller instead of dying unseen
            self._error = exc
        finally:
            self._ready.set()

    def get(self) -> Lethe:
        self.start()
        if not self._ready.wait(OPEN_TIMEOUT_S):
            raise TimeoutError("the memory store is still opening; try again in a moment")
        error = self._error
        if error is not None:
            with self._lock:
                # The next call opens again: the model may have been fetched meanwhile, the
                # network be back, the server be up (a failure is not kept until a restart).
                if self._error is error:
                    self._error = None
                    self._started = False
                    self._ready.clear()
            raise error
        assert self._engine is not None
        return self._engine

    def close(self) -> None:
        """Close the engine, after waiting (a bounded time) for an open still under way.

        The process exits after this: an interpreter that finalizes while the loader thread
        is inside native code (the encoder's ONNX Runtime session being created) can abort
        the process instead of exiting (seen as exit -6 on a client that closed at once).
        A second close does nothing: the server's lifespan and the process's end both call it."""
        with self._lock:
            started = self._started
        if started:
            self._ready.wait(CLOSE_WAIT_S)
        with self._lock:
            engine, self._engine = self._engine, None
        if engine is not None:
            engine.close()
