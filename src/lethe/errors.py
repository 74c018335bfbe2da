"""One exception type per failure a caller can act on.

Every error carries a message that says what was wrong and, where there is one, a `hint`
that says what to do next. Faces (CLI, MCP) print both; they never need to parse messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lethe.forget.change import UpdatePlan


class LetheError(Exception):
    """Base of every error lethe raises on purpose."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} ({self.hint})" if self.hint else self.message


class InvalidInput(LetheError):
    """An argument failed validation; nothing was changed."""


class ChangedSincePlanned(InvalidInput):
    """The memory changed between a change's plan and its execution; nothing was changed."""


class ContentChanged(InvalidInput):
    """The memory's text is no longer the one the caller saw (`expected_sha256`); nothing was
    changed. Carries what it is now."""

    def __init__(
        self, message: str, *, current_sha256: str, version: int, hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.current_sha256 = current_sha256
        self.version = version


class InvalidFilter(InvalidInput):
    """A filter expression could not be parsed or names an unknown field."""


class NotFound(LetheError):
    """The thing named does not exist (or is not visible in this namespace)."""


class MemoryNotFound(NotFound):
    """No live memory has this id."""


class EpisodeNotFound(NotFound):
    """No episode has this id."""


class VersionNotFound(NotFound):
    """The memory has no version with this number."""


class ConfirmationRequired(LetheError):
    """The change weakens a protection: it is confirmed like a forget. `plan` holds what it
    would do; execute it (`Lethe.execute(plan)`) once the person has agreed."""

    def __init__(self, message: str, *, plan: UpdatePlan, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.plan = plan


class LinkNotFound(NotFound):
    """The two memories are not linked with this kind."""


class StoreError(LetheError):
    """The database cannot be used as a lethe store."""


class StoreBusy(StoreError):
    """Another writer held the database longer than the busy timeout; retrying may work."""


class DatabaseNotWritable(StoreError):
    """The database file or its folder cannot be written."""


class NotALetheDatabase(StoreError):
    """The file exists but is not a lethe database."""


class SchemaTooNew(StoreError):
    """The database was written by a newer lethe than this one."""


class ServerUnavailable(StoreError):
    """A database server cannot be reached, refuses the credentials, or lacks what lethe needs
    (such as PostgreSQL's `vector` extension)."""


class WorkspaceError(LetheError):
    """The change is committed, but the markdown projection could not be written."""


class EmbedderUnavailable(LetheError):
    """The embedding model cannot be found or loaded."""


class EmbedderMismatch(StoreError):
    """The store holds vectors from another embedding model than the one given."""


class SigningKeyError(LetheError):
    """The key that signs erasure receipts cannot be used (unreadable, not an Ed25519 key,
    readable by others): the purge is refused before anything is erased."""
