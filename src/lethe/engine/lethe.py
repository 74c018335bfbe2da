"""`Lethe`, the facade: the one place that composes embedder, store, workspace and settings.

Faces (CLI, MCP server) call its methods and format what comes back; they hold no logic.
Every state change runs in one store transaction together with its audit event, and the
workspace files are re-derived only after that transaction has committed. The methods live in
one module per responsibility: `memories` (with `duplicates`), `superseding`, `search`,
`past`, `relations`, `records`, `forgetting`, `trash`, `expiring`, `sweeping`, `questions`,
`two_call`, `versions`, `change_confirm`.
"""

from __future__ import annotations

from pathlib import Path
from types import TracebackType
from typing import Any

from lethe.common.progress import ProgressBar
from lethe.config import Settings, is_postgres_dsn
from lethe.embed import Embedder, load_embedder
from lethe.engine.base import Clock
from lethe.engine.change_confirm import ChangeConfirmOps
from lethe.engine.consolidation import ConsolidateOps
from lethe.engine.expiring import ExpiryOps
from lethe.engine.forget_mode import ForgetModeOps
from lethe.engine.questions import QuestionOps
from lethe.engine.records import RecordOps
from lethe.engine.sweeping import SweepOps
from lethe.engine.two_call import TwoCallOps
from lethe.engine.working import WorkingOps
from lethe.engine.workspace import Workspace
from lethe.errors import WorkspaceError
from lethe.model import utcnow
from lethe.store.base import Store
from lethe.store.sqlite import SQLiteStore


class Lethe(
    RecordOps,
    SweepOps,
    ConsolidateOps,
    WorkingOps,
    ForgetModeOps,
    QuestionOps,
    TwoCallOps,
    ChangeConfirmOps,
    ExpiryOps,
):
    """Long-term memory for one store. Open it with `Lethe.open(path)`; close it when done."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        *,
        clock: Clock = utcnow,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self._clock = clock
        self.workspace = (
            Workspace(settings.workspace_dir, self._fetch_for_workspace)
            if settings.workspace_dir
            else None
        )

    @classmethod
    def open(
        cls,
        db: str | Path | None = None,
        *,
        embedder: Embedder | None = None,
        clock: Clock = utcnow,
        progress: ProgressBar | None = None,
        **settings: Any,
    ) -> Lethe:
        """Open (creating if needed) the store at `db`, else `LETHE_DB`, else the default path.
        A `postgresql://` DSN opens a PostgreSQL database (with pgvector) instead of a file.
        `progress` shows a schema migration that has to go through every memory."""
        overrides = {**settings, **({"db": str(db)} if db is not None else {})}
        resolved = Settings.load(overrides=overrides)
        embedder = embedder or load_embedder(resolved.embedder, resolved.threads)
        store = open_store(resolved, embedder.name, embedder.dim, progress)
        lethe = cls(store, embedder, resolved, clock=clock)
        try:
            if lethe.workspace is not None and not store.workspace_known():
                store.mark_workspace()  # from now on every process records what it owes it
            # A process that died between a commit and its cleanup left work owed: finish
            # it before serving (an erasure's traces first).
            lethe.settle_owed()
            lethe.expire_due()
        except WorkspaceError:
            pass  # the database is sound; the owed files stay recorded for a later open
        except BaseException:
            lethe.close()
            raise
        return lethe

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Lethe:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_store(
    settings: Settings, embedder: str, dim: int, progress: ProgressBar | None = None
) -> Store:
    """The store `settings.db` names, opened for vectors of `embedder` (refused when it holds
    another model's): a SQLite file, or a PostgreSQL database for a `postgresql://` DSN.
    `progress` shows a migration that goes through every row."""
    if is_postgres_dsn(settings.db):
        from lethe.store.postgres import PostgresStore

        return PostgresStore(
            settings.db,
            embedder=embedder,
            dim=dim,
            busy_timeout_ms=settings.busy_timeout_ms,
            context_window=(settings.context_before, settings.context_after),
            progress=progress,
        )
    return SQLiteStore(
        settings.db,
        embedder=embedder,
        dim=dim,
        busy_timeout_ms=settings.busy_timeout_ms,
        context_window=(settings.context_before, settings.context_after),
        threads=settings.threads,
        progress=progress,
    )
