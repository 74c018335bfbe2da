"""What every service of the engine shares: `Core`.

`Lethe` is composed of one service per responsibility (memories, search, relations,
forgetting, ...); each is built from what it uses, most of them from this `Core`, which holds
the store, the embedder, the settings, the clock and the workspace, and knows how to record
and do the work a committed change owes (its workspace files, an erasure's cleanup). Nothing
inherits from it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

from lethe.common import validate
from lethe.common.filters import Filters, filters_from_mapping
from lethe.config import Settings
from lethe.embed import Embedder
from lethe.engine.workspace import Workspace, touched
from lethe.errors import ContentChanged, InvalidInput, WorkspaceError
from lethe.model import Memory
from lethe.planner.caches import forget_texts
from lethe.store.base import Store, StoreTx

Clock = Callable[[], datetime]
MAX_PAGE = 1000
OWED_RECEIPT = "receipt"
"""The key of a purge's promised receipt in its owed work (`engine/proof.py`)."""


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Core:
    """The store, the embedder, the settings, the clock and the workspace, and the helpers
    every change uses: what it owes once committed (`owe`) and doing it (`project`)."""

    def __init__(self, store: Store, embedder: Embedder, settings: Settings, clock: Clock) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self.clock = clock
        self.workspace = (
            Workspace(settings.workspace_dir, self.fetch_for_workspace)
            if settings.workspace_dir
            else None
        )
        self._workspace_seen = False

    def now(self) -> datetime:
        """The engine's clock (a face computing a moment relative to now uses this one)."""
        return self.clock()

    def expect(
        self, memory_id: str, expected_sha256: str | None, *, namespace: str | None = None
    ) -> None:
        """Refuse a change to a memory whose text is no longer the one the caller saw: two
        agents sharing a store must not overwrite each other's change unknowingly. A memory
        that is not there (or in another namespace) is left to the caller's own lookup."""
        if expected_sha256 is None:
            return
        expected = validate.sha256_hex(expected_sha256)
        memory = self.store.get(validate.memory_id(memory_id))
        if memory is None or (namespace is not None and memory.namespace != namespace):
            return
        self.precondition(memory, expected)

    @staticmethod
    def precondition(memory: Memory, expected_sha256: str) -> None:
        """`ContentChanged` unless `memory` (as read now, at planning or inside the writing
        transaction) still has the text the caller saw."""
        if memory.content_sha256 != expected_sha256:
            raise ContentChanged(
                f"{memory.id} changed since you saw it: its text is now version "
                f"{memory.version}, content_sha256 {memory.content_sha256}; nothing was changed",
                current_sha256=memory.content_sha256,
                version=memory.version,
                hint="read it again (get), and decide on what it says now",
            )

    def filters(self, filters: Filters | dict[str, Any] | None, where: Iterable[str]) -> Filters:
        if filters is None:
            base = Filters()
        elif isinstance(filters, Filters):
            base = filters
        else:
            base = filters_from_mapping(filters)
        validate.namespace(base.namespace)
        return base.with_expressions(where)

    def fetch_for_workspace(
        self, namespace: str, since: datetime | None, until: datetime | None
    ) -> list[Memory]:
        flt = Filters(namespace=namespace, since=since, until=until)
        out: list[Memory] = []
        while True:
            items, total = self.store.list_memories(flt, limit=MAX_PAGE, offset=len(out))
            out.extend(items)
            if not items or len(out) >= total:
                return out

    def owe(
        self, tx: StoreTx, changed: Sequence[Memory] = (), *, erased: bool = False
    ) -> list[int]:
        """Record, in the change's own transaction, the work it owes once committed: the
        cleanup of an erasure (`erased`) and the workspace files of `changed`, one row each
        (a process without a workspace finishes the first and leaves the second). Done right
        after the commit by `project`; a crash in between leaves it for the next open."""
        owed = []
        now = self.clock()
        if erased:
            owed.append(tx.owe({"compact": True}, now))
        if changed and (self.workspace is not None or self.workspace_known()):
            # Recorded even by a process without a workspace when another one projects this
            # store: its files must lose what this change took away.
            days, curated = touched(changed)
            files = {
                "days": sorted([ns, day.isoformat()] for ns, day in days),
                "curated": sorted(curated),
            }
            owed.append(tx.owe({"workspace": files}, now))
        return owed

    def project(
        self, changed: Sequence[Memory], owed: Sequence[int] = (), *, erased: bool = False
    ) -> bool:
        """Do what a commit owes: after an erasure, the store's cleanup (full-text merge,
        vector snapshot, WAL) and the planner's caches of texts; then the workspace files.
        The database is the truth: a file that cannot be written is reported, never a reason
        to undo the change, and the owed work stays recorded for the next open. Returns
        whether an erasure's cleanup finished (True when there was none)."""
        owed = list(owed)
        cleaned = True
        if erased and owed:
            # The erasure's cleanup is recorded first. Done, it is settled at once (a failing
            # workspace write below must not make every later open compact again); not done
            # (a reader held the WAL), it stays owed for the next open or maintain.
            cleanup, owed = owed[:1], owed[1:]
            cleaned = self.store.compact()
            if cleaned:
                self.store.settle(cleanup)
        elif erased:
            cleaned = self.store.compact()
        if erased:
            forget_texts()  # nothing read of an erased text stays in this process either
        if self.workspace is not None and changed:
            try:
                self.workspace.refresh(changed)
            except OSError as exc:
                ids = ", ".join(m.id for m in changed[:3])
                raise WorkspaceError(
                    f"saved ({ids}), but the workspace files could not be written: {exc}",
                    hint=f"fix {self.workspace.root} (permissions, disk space); the files are "
                    "rewritten at the next open or change",
                ) from exc
        if self.workspace is not None:  # else its files wait for a process that has them
            self.store.settle(owed)
        return cleaned

    def rebuild_workspace(self, namespaces: Iterable[str] | str | None = None) -> list[str]:
        """Re-derive every workspace file from the database (all namespaces the store holds,
        or the ones named): the files are a projection, so this is always safe, and it mends
        files edited by hand or left behind by an older lethe. Returns the namespaces."""
        if self.workspace is None:
            raise InvalidInput(
                "no workspace is configured", hint="set LETHE_WORKSPACE_DIR or workspace_dir"
            )
        if namespaces is None:
            chosen = self.store.namespaces()
        elif isinstance(namespaces, str):
            chosen = [validate.namespace(namespaces)]
        elif isinstance(namespaces, Iterable):
            chosen = sorted({validate.namespace(n) for n in namespaces})
        else:
            raise InvalidInput(
                f"namespaces must be a list of names, got {type(namespaces).__name__}"
            )
        try:
            self.workspace.rebuild(chosen)
        except OSError as exc:
            raise WorkspaceError(
                f"the workspace files could not be written: {exc}",
                hint=f"fix {self.workspace.root} (permissions, disk space) and run it again",
            ) from exc
        return chosen

    def workspace_known(self) -> bool:
        """Whether some process projects this store (asked again until it says yes: a
        workspace may be set up while this process runs)."""
        if not self._workspace_seen:
            self._workspace_seen = self.store.workspace_known()
        return self._workspace_seen
