"""Work a committed change still owes: finished at every open and by `maintain`."""

from __future__ import annotations

from datetime import date
from typing import Any

from lethe.engine.base import OWED_RECEIPT, Core
from lethe.engine.proof import Proof
from lethe.errors import WorkspaceError


class OwedWork:
    """Finishes what committed changes owe (a process died between a commit and its
    cleanup): the workspace files, an erasure's cleanup, then a purge's receipt (`Proof`)."""

    def __init__(self, core: Core, proof: Proof) -> None:
        self._core = core
        self._proof = proof

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
        for owed_id, work in self._core.store.owed():
            if OWED_RECEIPT in work:
                receipts.append((owed_id, work[OWED_RECEIPT]))  # settled with the receipt kept
                continue
            if "workspace" in work and self._core.workspace is None:
                waiting.append((owed_id, work))  # for a process that projects the workspace
                continue
            if work.get("compact"):
                compact = True
                compacting.add(owed_id)
            files = work.get("workspace") or {}
            days.update((ns, date.fromisoformat(day)) for ns, day in files.get("days", []))
            curated.update(files.get("curated", []))
            done.append(owed_id)
        cleaned = not compact or self._core.store.compact()
        if not cleaned:
            done = [i for i in done if i not in compacting]
        if self._core.workspace is not None and (days or curated):
            try:
                self._core.workspace.refresh_days(days, curated)
            except OSError as exc:
                self._proof.finish_receipts(receipts, cleanup_done=cleaned, workspace_done=False)
                raise WorkspaceError(
                    f"the workspace files owed by earlier changes could not be written: {exc}",
                    hint=f"fix {self._core.workspace.root}; they are rewritten at the next open",
                ) from exc
        self._core.store.settle(done)
        signed = self._proof.finish_receipts(
            receipts, cleanup_done=cleaned, workspace_done=not waiting
        )
        if len(waiting) > 1:  # files still owed to a workspace: one row that does them all
            merged_days = sorted({tuple(d) for _, w in waiting for d in w["workspace"]["days"]})
            merged_curated = sorted({c for _, w in waiting for c in w["workspace"]["curated"]})
            self._core.store.merge_owed(
                [i for i, _ in waiting],
                {"workspace": {"days": [list(d) for d in merged_days], "curated": merged_curated}},
            )
        return len(done) + signed
