"""State and helpers every part of the engine shares.

`Lethe` is assembled from one class per responsibility (memories, search, relations,
records); they all stand on this base, which holds the store, the embedder, the settings and
the clock, and knows how to look up a live memory and re-derive the workspace.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from typing import Any

from lethe.common import validate
from lethe.common.filters import Filters, filters_from_mapping
from lethe.config import Settings
from lethe.embed import Embedder
from lethe.engine.workspace import Workspace, touched
from lethe.errors import ContentChanged, InvalidInput, MemoryNotFound, WorkspaceError
from lethe.model import Memory
from lethe.store.base import Store, StoreTx

Clock = Callable[[], datetime]
MAX_PAGE = 1000
OWED_RECEIPT = "receipt"
"""The key of a purge's promised receipt in its owed work (`engine/proof.py`)."""


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EngineBase:
    store: Store
    embedder: Embedder
    settings: Settings
    workspace: Workspace | None
    _clock: Clock

    def now(self) -> datetime:
        """The engine's clock (a face computing a moment relative to now uses this one)."""
        return self._clock()

    def expire_due(self) -> list[str]:
        """Turn the memories whose expiry has come into soft deletes (`ExpiryOps`): every read
        calls it first, so an expired memory is never returned."""
        return []

    def get(self, memory_id: str, *, namespace: str | None = None) -> Memory:
        """A live memory. With `namespace`, one from another namespace is "not found": callers
        confined to some namespaces (an MCP token) must not learn what lies outside them."""
        validate.memory_id(memory_id)
        self.expire_due()
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

    def _embed_earlier(self) -> int:
        return 0  # `PastOps`

    def check_unchanged(
        self, memory_id: str, expected_sha256: str, *, namespace: str | None = None
    ) -> None:
        """Raise `ContentChanged` unless the memory's text is still the one with this hash
        (a face checks it before a confirmation flow that binds the previewed text)."""
        self.expire_due()
        self._expect(memory_id, expected_sha256, namespace=namespace)

    def _expect(
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
        if memory.content_sha256 != expected:
            raise ContentChanged(
                f"{memory_id} changed since you saw it: its text is now version "
                f"{memory.version}, content_sha256 {memory.content_sha256}; nothing was changed",
                current_sha256=memory.content_sha256,
                version=memory.version,
                hint="read it again (get), and decide on what it says now",
            )

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

    def _owe(
        self, tx: StoreTx, changed: Sequence[Memory] = (), *, erased: bool = False
    ) -> list[int]:
        """Record, in the change's own transaction, the work it owes once committed: the
        cleanup of an erasure (`erased`) and the workspace files of `changed`, one row each
        (a process without a workspace finishes the first and leaves the second). Done right
        after the commit by `_project`; a crash in between leaves it for the next open."""
        owed = []
        now = self._clock()
        if erased:
            owed.append(tx.owe({"compact": True}, now))
        if changed and (self.workspace is not None or self._workspace_known()):
            # Recorded even by a process without a workspace when another one projects this
            # store: its files must lose what this change took away.
            days, curated = touched(changed)
            files = {
                "days": sorted([ns, day.isoformat()] for ns, day in days),
                "curated": sorted(curated),
            }
            owed.append(tx.owe({"workspace": files}, now))
        return owed

    def _project(
        self, changed: Sequence[Memory], owed: Sequence[int] = (), *, erased: bool = False
    ) -> bool:
        """Do what a commit owes: after an erasure, the store's cleanup (full-text merge,
        vector snapshot, WAL); then the workspace files. The database is the truth: a file
        that cannot be written is reported, never a reason to undo the change, and the owed
        work stays recorded for the next open. Returns whether an erasure's cleanup finished
        (True when there was none)."""
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

    def _workspace_known(self) -> bool:
        """Whether some process projects this store (asked again until it says yes: a
        workspace may be set up while this process runs)."""
        if not getattr(self, "_workspace_seen", False):
            self._workspace_seen = self.store.workspace_known()
        return bool(self._workspace_seen)

    def _finish_receipts(
        self,
        owed: Sequence[tuple[int, dict[str, Any]]],
        *,
        cleanup_done: bool,
        workspace_done: bool,
    ) -> int:
        """Sign the receipts interrupted purges still owe (`ProofOps`)."""
        return 0

    def settle_owed(self) -> int:
        """Finish the work committed changes still owe (a process died between a commit and
        its cleanup): run at every open and by `maintain`. Work on the workspace files waits
        for a process that has a workspace. A purge's receipt comes last, once its cleanup
        has run, and says how far that got. Returns how many pieces were finished."""
        done: list[int] = []
        compact = False
        compacting: set[int] = set()
        days: set[tuple[str, date]] = set()
        curated: set[str] = set()
        waiting: list[tuple[int, dict[str, Any]]] = []
        receipts: list[tuple[int, dict[str, Any]]] = []
        for owed_id, work in self.store.owed():
            if OWED_RECEIPT in work:
                receipts.append((owed_id, work[OWED_RECEIPT]))  # settled with the receipt kept
                continue
            if "workspace" in work and self.workspace is None:
                waiting.append((owed_id, work))  # for a process that projects the workspace
                continue
            if work.get("compact"):
                compact = True
                compacting.add(owed_id)
            files = work.get("workspace") or {}
            days.update((ns, date.fromisoformat(day)) for ns, day in files.get("days", []))
            curated.update(files.get("curated", []))
            done.append(owed_id)
        cleaned = not compact or self.store.compact()
        if not cleaned:
            done = [i for i in done if i not in compacting]
        if self.workspace is not None and (days or curated):
            try:
                self.workspace.refresh_days(days, curated)
            except OSError as exc:
                self._finish_receipts(receipts, cleanup_done=cleaned, workspace_done=False)
                raise WorkspaceError(
                    f"the workspace files owed by earlier changes could not be written: {exc}",
                    hint=f"fix {self.workspace.root}; they are rewritten at the next open",
                ) from exc
        self.store.settle(done)
        signed = self._finish_receipts(receipts, cleanup_done=cleaned, workspace_done=not waiting)
        if len(waiting) > 1:  # files still owed to a workspace: one row that does them all
            merged_days = sorted({tuple(d) for _, w in waiting for d in w["workspace"]["days"]})
            merged_curated = sorted({c for _, w in waiting for c in w["workspace"]["curated"]})
            self.store.merge_owed(
                [i for i, _ in waiting],
                {"workspace": {"days": [list(d) for d in merged_days], "curated": merged_curated}},
            )
        return len(done) + signed
