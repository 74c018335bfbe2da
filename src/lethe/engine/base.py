"""State and helpers every part of the engine shares.

`Lethe` is assembled from one class per responsibility (memories, search, relations,
records); they all stand on this base, which holds the store, the embedder, the settings and
the clock, and knows how to look up a live memory and re-derive the workspace.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from lethe import validate
from lethe.config import Settings
from lethe.embed import Embedder
from lethe.errors import MemoryNotFound, WorkspaceError
from lethe.filters import Filters, filters_from_mapping
from lethe.model import Memory
from lethe.store.base import Store, StoreTx
from lethe.workspace import Workspace

Clock = Callable[[], datetime]
MAX_PAGE = 1000


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EngineBase:
    store: Store
    embedder: Embedder
    settings: Settings
    workspace: Workspace | None
    _clock: Clock

    def get(self, memory_id: str, *, namespace: str | None = None) -> Memory:
        """A live memory. With `namespace`, one from another namespace is "not found": callers
        confined to some namespaces (an MCP token) must not learn what lies outside them."""
        validate.memory_id(memory_id)
        memory = self.store.get(memory_id)
        if (
            memory is None
            or memory.status != "active"
            or (namespace is not None and memory.namespace != namespace)
        ):
            raise MemoryNotFound(
                f"Memory not found: {memory_id}", hint="search for it with recall or list"
            )
        return memory

    def _filters(self, filters: Filters | dict[str, Any] | None, where: Iterable[str]) -> Filters:
        if filters is None:
            base = Filters()
        elif isinstance(filters, Filters):
            base = filters
        else:
            base = filters_from_mapping(filters)
        validate.namespace(base.namespace)
        return base.with_expressions(where)

    def _fetch_for_workspace(
        self, namespace: str, since: datetime | None, until: datetime | None
    ) -> list[Memory]:
        flt = Filters(namespace=namespace, since=since, until=until)
        out: list[Memory] = []
        while True:
            items, total = self.store.list_memories(flt, limit=MAX_PAGE, offset=len(out))
            out.extend(items)
            if not items or len(out) >= total:
                return out

    def _entered(self, tx: StoreTx, memory: Memory, actor: str) -> None:
        """A memory is being written by its agent: working memory (if any) takes it in, in
        the same transaction."""

    def _bring_back(self, agent: str, namespace: str, memory_ids: Sequence[str]) -> None:
        """Recalled memories return to the recalling agent's working memory (if any)."""

    def _project(self, changed: Sequence[Memory]) -> None:
        """Re-derive the workspace files after a commit. The database is the truth: a file
        that cannot be written is reported, never a reason to undo the change."""
        if self.workspace is None or not changed:
            return
        try:
            self.workspace.refresh(changed)
        except OSError as exc:
            ids = ", ".join(m.id for m in changed[:3])
            raise WorkspaceError(
                f"saved ({ids}), but the workspace files could not be written: {exc}",
                hint=f"fix {self.workspace.root} (permissions, disk space); the files are "
                "rewritten at the next change",
            ) from exc
