"""What a store does for `lethe reembed` (engine/reembed.py): vectors of the new model staged
beside the old ones, batch by batch, then swapped in all at once.

Staging is a table of its own (`reembed_vectors`: one row per memory, version 0, and per
earlier state that holds a vector), created on first use and dropped by the switch, with the
target model in the store's meta. Every batch commits, so a run that is killed continues
where it stopped; each staged row keeps the hash of the text it was made from, so a memory
changed meanwhile (the store stays in use with the old model until the switch) is embedded
again. A row's memory purged meanwhile takes its staged vector with it (a foreign key). The
switch replaces every vector, the model and the dimension in one transaction: until it
commits, every reader sees the old model throughout, and after it, the new one throughout.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]


def check_model(recorded: object, mine: str, where: str) -> None:
    """Refuse a write by a process whose model is no longer the store's: after a reembed a
    server still running the old model would write vectors of the wrong space (of the same
    dimension, nothing else would notice), and no later reembed would repair them."""
    from lethe.errors import EmbedderMismatch

    if recorded is not None and recorded != mine:
        raise EmbedderMismatch(
            f"{where} was moved to {recorded} (lethe reembed); this process still embeds with "
            f"{mine}, so it writes nothing",
            hint=f"restart it with LETHE_EMBEDDER={recorded}",
        )


def model_in(meta: dict[str, str], where: str) -> tuple[str, int]:
    """The model and dimension a store's meta records; refused when it is not lethe's."""
    from lethe.errors import NotALetheDatabase

    if meta.get("application") != "lethe" or "embedder" not in meta:
        raise NotALetheDatabase(f"{where} is not a lethe database")
    return str(meta["embedder"]), int(meta.get("dim", 0))


def check_embedder(meta: dict[str, str], where: str, embedder: str, dim: int) -> None:
    """Refuse to open a store with another model than the one its vectors were made by."""
    from lethe.errors import EmbedderMismatch

    if meta.get("embedder") != embedder or int(meta.get("dim", 0)) != dim:
        raise EmbedderMismatch(
            f"{where} holds vectors of {meta.get('embedder')} ({meta.get('dim')}-d), "
            f"not of {embedder} ({dim}-d)",
            hint="open it with the model it was made with (LETHE_EMBEDDER), or move it to this "
            "one with `lethe reembed --to MODEL`",
        )


TARGET_KEY = "reembed_target"
DIM_KEY = "reembed_dim"
TABLE = "reembed_vectors"


@dataclass(frozen=True)
class Unstaged:
    """A text whose vector in the new model is not staged yet (or was made from other text)."""

    memory_id: str
    version: int
    """0: the memory as it is; n: its earlier state n (`memory_versions`)."""
    content: str
    content_sha256: str
    after: tuple[int, str, int]
    """Where a scan continues past this row."""


@dataclass(frozen=True)
class Progress:
    staged: int
    """Vectors staged from the text they stand for now."""
    total: int
    """Vectors the store holds: one per memory, one per earlier state that has one."""


@dataclass(frozen=True)
class Switched:
    memories: int
    versions: int
    contexts: int
    late: int
    """Vectors embedded inside the switch: texts written after the last batch."""


Embed = Callable[[Sequence[str]], F32]


class Reembedding(Protocol):
    def recorded(self) -> tuple[str, int, str | None, int | None]:
        """The store's model and dimension, and the target and dimension of a reembed in
        progress (None, None when there is none)."""
        ...

    def begin(self, target: str, dim: int) -> None:
        """Record `target` as the model being moved to; vectors staged for another target
        are dropped first."""
        ...

    def unstaged(self, after: tuple[int, str, int] | None, limit: int) -> list[Unstaged]:
        """Up to `limit` texts still to embed, in a stable order, past `after`."""
        ...

    def stage(self, rows: Sequence[Unstaged], vectors: F32) -> None:
        """Keep these vectors, committed now."""
        ...

    def progress(self) -> Progress: ...

    def switch(self, embed: Embed, *, actor: str) -> Switched:
        """Swap every vector in, with the model and dimension, in one transaction (texts
        written since the last batch embedded inside it), audited as `reembed`."""
        ...

    def abandon(self) -> None:
        """Drop what was staged and the target: the store stays on its model."""
        ...
