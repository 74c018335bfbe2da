"""Moving a store to another embedding model (`lethe reembed --to NAME`).

A store's vectors are only comparable with queries of the model that made them, so a store
records its model and refuses any other. Changing model therefore means embedding every text
again — each memory as it is, and each earlier state that holds a vector — without losing the
store meanwhile: the new vectors are staged beside the old ones in committed batches (a run
that is stopped, killed or fails continues where it stopped when run again), and swapped in
with the model's name and dimension in one transaction at the end (store/reembed_base.py).
Until then the store is fully usable with the old model; contents, ids, versions and history
are never touched, only vectors.

This is not a `Lethe` method: a `Lethe` holds one model and a store opened for it, and the
switch ends that pairing. The store is opened here for the model it records, which need not
be loaded at all — only the target model is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from lethe.config import Settings, is_postgres_dsn
from lethe.embed import Embedder, load_embedder
from lethe.engine.lethe import open_store
from lethe.errors import EmbedderUnavailable, InvalidInput

Report = Callable[[int, int], None]
"""Called after each batch: (vectors staged, vectors in the store)."""

BATCH = 64


@dataclass(frozen=True)
class ReembedResult:
    db: str
    model_before: str
    model: str
    """The store's model now."""
    dim: int
    status: Literal["switched", "already", "cancelled"]
    """switched: moved to the target; already: it was on it; cancelled: a reembed to another
    model was under way and the target is the store's own model, so it was dropped."""
    resumed: int = 0
    """Vectors staged by an earlier, interrupted run and kept."""
    embedded: int = 0
    """Texts this run embedded (a text changed during the run counts again)."""
    memories: int = 0
    versions: int = 0
    conversations: int = 0
    """Conversations whose contexts were remade from the new vectors."""


def reembed(
    db: str | Path | None = None,
    *,
    to: str,
    embedder: Embedder | None = None,
    batch_size: int = BATCH,
    progress: Report | None = None,
    actor: str = "lethe",
    **settings: Any,
) -> ReembedResult:
    """Move the store at `db` (else LETHE_DB, else the default) to the model `to`, a registry
    name (embed/registry.py). `embedder`, when given, is the target model itself (its name
    must be `to`): what tests and embedding programs pass instead of a registry entry."""
    if batch_size < 1:
        raise InvalidInput(f"batch_size must be at least 1, not {batch_size}")
    resolved = Settings.load(overrides={**settings, **({"db": str(db)} if db else {})})
    target = _target_name(to, embedder)
    current, dim = _recorded(resolved)
    store = open_store(resolved, current, dim)
    try:
        moving = store.reembedding()
        in_progress = moving.recorded()[2]
        if target == current:
            if in_progress is not None:
                moving.abandon()
            status: Literal["already", "cancelled"] = "cancelled" if in_progress else "already"
            return ReembedResult(resolved.db, current, current, dim, status)
        model = embedder or load_embedder(target, resolved.threads)
        moving.begin(target, model.dim)
        before = moving.progress()
        if progress is not None:
            progress(before.staged, before.total)
        embedded = 0
        after: tuple[int, str, int] | None = None
        while rows := moving.unstaged(after, batch_size):
            vectors = _checked(model, model.embed([r.content for r in rows]), len(rows))
            moving.stage(rows, vectors)
            embedded += len(rows)
            after = rows[-1].after
            if progress is not None:
                progress(min(before.total, before.staged + embedded), before.total)

        def embed(texts: Any) -> Any:
            return _checked(model, model.embed(list(texts)), len(texts))

        done = moving.switch(embed, actor=actor)
    finally:
        store.close()
    return ReembedResult(
        db=resolved.db,
        model_before=current,
        model=target,
        dim=model.dim,
        status="switched",
        resumed=before.staged,
        embedded=embedded + done.late,
        memories=done.memories,
        versions=done.versions,
        conversations=done.contexts,
    )


def _target_name(to: str, embedder: Embedder | None) -> str:
    """The target's stored name, refused (before the store is opened) when unknown."""
    if embedder is not None:
        if to != embedder.name:
            raise InvalidInput(f"the embedder given is {embedder.name!r}, not {to!r}")
        return embedder.name
    from lethe.embed.registry import resolve

    return resolve(to).name


def _recorded(settings: Settings) -> tuple[str, int]:
    if is_postgres_dsn(settings.db):
        from lethe.store.postgres_reembed import recorded_model as recorded_in_postgres

        return recorded_in_postgres(settings.db, settings.busy_timeout_ms / 1000)
    from lethe.store.sqlite_reembed import recorded_model

    return recorded_model(Path(settings.db).expanduser())


def _checked(model: Embedder, vectors: Any, n: int) -> Any:
    """Refuse vectors that would corrupt the store rather than stage them."""
    array = np.asarray(vectors, dtype=np.float32)
    if array.shape != (n, model.dim) or not np.isfinite(array).all():
        raise EmbedderUnavailable(
            f"{model.name} returned vectors of shape {array.shape}, not ({n}, {model.dim}) "
            "finite numbers; nothing of this batch was kept"
        )
    return array
