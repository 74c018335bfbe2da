"""The records lethe hands out: memories, links, episodes, audit events and search hits.

They are immutable pydantic models so a caller can serialise any of them with
`model_dump(mode="json")` and can never mutate the store by editing a returned object.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from lethe.common.identifiers import (
    DEFAULT_AGENT,
    DEFAULT_NAMESPACE,
    Layer,
)

Status = Literal["active", "forgotten"]
CURATED_CATEGORIES = frozenset({"introspection", "relationship", "self_discovery", "lesson"})


def utcnow() -> datetime:
    return datetime.now(UTC)


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Memory(_Record):
    id: str
    namespace: str = DEFAULT_NAMESPACE
    agent: str = DEFAULT_AGENT
    content: str
    layer: Layer = "episodic"
    category: str = ""
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)
    importance: float = 0.5
    private: bool = False
    created_at: datetime
    updated_at: datetime
    last_accessed_at: datetime | None = None
    access_count: int = 0
    status: Status = "active"
    content_sha256: str
    forgotten_at: datetime | None = None
    forgotten_by: str | None = None
    forget_reason: str | None = None
    version: int = 1
    """1 when remembered; each update or revert makes the next (the earlier states are kept,
    see `Lethe.history`)."""
    expires_at: datetime | None = None
    """When the memory ends, as its owner asked ("keep this for a week"): from then on no read
    returns it, and it is turned into a soft delete audited as `expire`."""
    expiry_set_by: str | None = None
    expiry_set_at: datetime | None = None
    expiry_held: bool = False
    """The expiry is the person's: they chose it, or confirmed the change that set or brought
    it forward. Lengthening or removing it is confirmed like a forget, and an agent's own
    time-to-live never moves it. An agent's own expiry (set when it remembered) is not held:
    the agent may renew or drop it."""

    @property
    def is_system(self) -> bool:
        return self.id.startswith("sys_")

    @property
    def is_curated(self) -> bool:
        """Whether the memory belongs in the curated MEMORY.md of the workspace."""
        return self.importance >= 0.75 or self.category in CURATED_CATEGORIES

    def preview(self, limit: int = 80) -> str:
        return preview(self.content, limit)


def preview(content: str, limit: int = 80) -> str:
    """The text on one line, cut to `limit` characters."""
    text = " ".join(content.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class Gist:
    """What a forget plan reads of a live memory: its text, and the fields its plan item
    shows and is guarded by. A description plan reads some ninety candidates and makes an
    item of most; building each as a whole `Memory` (its tags, metadata and dates parsed and
    validated) cost more than reading it."""

    id: str
    namespace: str
    content: str
    content_sha256: str
    layer: str
    importance: float
    private: bool
    version: int

    def preview(self, limit: int = 80) -> str:
        return preview(self.content, limit)


class NearDuplicate(_Record):
    id: str
    content: str
    similarity: float
    private: bool = False


class Supersession(BaseModel):
    """A stored memory a new fact likely replaces (forget/corrections.py): its id, preview,
    how sure, and why (same person's, same attribute, another value)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    preview: str
    confidence: float
    evidence: tuple[str, ...]


class Remembered(Memory):
    """What `remember` returns: the memory, and what the store already held like it.

    `existing` is true when the same text (after Unicode and whitespace normalisation) was
    already live in the namespace: that memory is returned and nothing is written. Similar is
    not same: `near_duplicates` are stored neighbours at or above the duplicate threshold,
    kept beside the new memory and linked to it as `near_duplicate`, so the caller can decide
    whether both stay, one is updated, or one is forgotten.
    """

    existing: bool = False
    near_duplicates: tuple[NearDuplicate, ...] = ()
    superseded: str | None = None
    """With `remember(..., supersedes=ID)`: the id of the memory this text superseded — this
    very memory, updated in place (None when nothing was superseded)."""
    superseded_version: int | None = None
    """The version of it that now holds the superseded text (`history`); None when the
    memory already said this and nothing was written (`existing`)."""
    likely_supersedes: tuple[Supersession, ...] = ()
    """Stored memories of the namespace this new one likely replaces ("Alice now works at
    Stripe" after "Alice works at Shopify"), best first, each with a confidence and its
    evidence; only named, never changed: `remember(..., supersedes=ID)` replaces one. Empty
    for an exact duplicate and for a supersede."""

    def as_memory(self) -> Memory:
        return Memory(**self.model_dump(exclude=_REMEMBERED_ONLY))

    def __eq__(self, other: object) -> bool:
        """Equal to the stored memory it is: `mem.get(m.id) == m` holds."""
        if type(other) is Memory:
            return self.as_memory() == other
        return super().__eq__(other)

    __hash__ = Memory.__hash__


_REMEMBERED_ONLY = {
    "existing",
    "near_duplicates",
    "superseded",
    "superseded_version",
    "likely_supersedes",
}


class MemoryVersion(_Record):
    """One state of a memory: the current one, or an earlier one kept by an update.

    `actor`, `op` and `reason` say who made this state, how (`remember`, `update`, `revert`,
    `supersede`, `import`) and why; it was current from `valid_from` until `valid_until` (None:
    still is).
    """

    memory_id: str
    version: int
    current: bool
    agent: str
    content: str
    content_sha256: str
    layer: Layer
    category: str = ""
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)
    importance: float
    private: bool = False
    valid_from: datetime
    valid_until: datetime | None = None
    actor: str
    op: str
    reason: str | None = None
    expires_at: datetime | None = None
    """When this state was to end, as its owner asked (None: never)."""

    @property
    def is_system(self) -> bool:
        return self.memory_id.startswith("sys_")

    def preview(self, limit: int = 80) -> str:
        return preview(self.content, limit)


class Link(_Record):
    """An undirected, typed association; `a` < `b` so each pair is stored once."""

    a: str
    b: str
    kind: str = "related"
    confidence: float
    created_at: datetime
    updated_at: datetime

    @classmethod
    def between(cls, a: str, b: str, kind: str, confidence: float, at: datetime) -> Link:
        """A new link with its ends in canonical order."""
        low, high = sorted((a, b))
        return cls(a=low, b=high, kind=kind, confidence=confidence, created_at=at, updated_at=at)

    def other(self, memory_id: str) -> str:
        return self.b if memory_id == self.a else self.a


class Episode(_Record):
    id: str
    namespace: str = DEFAULT_NAMESPACE
    summary: str
    start_at: datetime
    end_at: datetime
    importance: float = 0.5
    created_at: datetime


class EpisodeView(_Record):
    """An episode as a reader sees it: only live members, plus how many are gone."""

    episode: Episode
    members: tuple[Memory, ...]
    missing: int

    @computed_field  # type: ignore[prop-decorator]
    @property
    def note(self) -> str | None:
        if not self.missing:
            return None
        noun = "memory no longer exists" if self.missing == 1 else "memories no longer exist"
        return f"{self.missing} {noun}"


class Event(_Record):
    """One audited state change. Append-only; written in the change's own transaction."""

    seq: int
    at: datetime
    op: str
    memory_id: str | None
    namespace: str | None
    actor: str
    reason: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)
    content_sha256: str | None = None


class RecallHit(_Record):
    memory: Memory
    similarity: float
    """Cosine similarity between the query and the memory, clamped to 0–1."""
    score: float
    """Fused rank score (reciprocal rank fusion), scaled so 1.0 = first on both lists."""
    vector_rank: int | None = None
    lexical_rank: int | None = None


class Page(_Record):
    items: tuple[Memory, ...]
    total: int
    offset: int
    limit: int


class Pending(_Record):
    """A two-call confirmation waiting for its second call (seed 000)."""

    session: str
    memory_id: str
    operation: Literal["forget", "purge", "update"]
    content_sha256: str
    """What was previewed: the content's hash (forget, purge), or the hash of the memory's
    state together with the change asked for (update)."""
    first_requested_at: datetime
    last_requested_at: datetime
    request_count: int
    expires_at: datetime


class Draft(BaseModel):
    """A memory not yet stored: what `remember_many` and import consume.

    `validated` is set by the engine once every field has passed its checks, so a bulk call
    validates each draft exactly once.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    content: str
    id: str | None = None
    namespace: str = DEFAULT_NAMESPACE
    agent: str = DEFAULT_AGENT
    layer: str = "episodic"
    category: str = ""
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)
    importance: float = 0.5
    private: bool = False
    created_at: datetime | None = None
    updated_at: datetime | None = None
    version: int = 1
    expires_at: datetime | None = None
    expiry_set_by: str | None = None
    expiry_set_at: datetime | None = None
    expiry_held: bool = False
    validated: bool = False


@dataclass(frozen=True)
class Note:
    """One thing to remember, as a value: what `remember` takes. A face builds it from its
    arguments and hands it to the engine whole; None means "not given" (the default then
    applies: agent `user`, layer `episodic`, importance 0.5, not private).

    It holds the values as given: the engine checks them where it takes the note (the same
    `InvalidInput` as the keywords of `remember`). Unlike `Draft` (a memory whose fields are
    all known, as an import carries them), a note says what the person asked: replace a
    stored memory (`supersedes`), end at an instant or after a while (`expires_at` /
    `expires_in`, held against an agent's loosening with `hold_expiry`), belong to a
    conversation (`session`). Tags given as a list (or any iterable but text and a mapping)
    are kept as a tuple."""

    content: str
    agent: str | None = None
    layer: str | None = None
    category: str | None = None
    tags: Iterable[str] | str | None = None
    metadata: dict[str, Any] | None = None
    importance: float | None = None
    private: bool | None = None
    allow_duplicate: bool = False
    supersedes: str | None = None
    expires_at: datetime | str | None = None
    expires_in: timedelta | str | None = None
    hold_expiry: bool = False
    session: str | None = None

    def __post_init__(self) -> None:
        tags = self.tags  # read once: a generator would be empty when read again
        if isinstance(tags, Iterable) and not isinstance(tags, str | Mapping | tuple):
            object.__setattr__(self, "tags", tuple(tags))

    def given(self) -> tuple[str, ...]:
        """The fields other than the content set to something other than their default."""
        return tuple(
            f.name
            for f in fields(self)
            if f.name != "content" and getattr(self, f.name) != f.default
        )


class ImportReport(_Record):
    imported: int
    skipped_duplicates: int = 0
    """Exact duplicates (the same normalised text already live in the namespace, or earlier in
    the same import): nothing to add."""
    near_duplicates: int = 0
    """Imported memories that have a near-duplicate neighbour, linked to it (never skipped)."""
    skipped_existing: int = 0
    linked: int = 0
    links: int = 0
    episodes: int = 0
    trashed: int = 0
    """How many of the imported memories went straight back to the trash."""
    events: int = 0
    versions: int = 0
    """Earlier states of imported memories (see `history`)."""
    skipped_events: int = 0
    """Audit events of the file the store already held (a re-import), or of a memory it
    purged, not appended."""
    skipped_purged: int = 0
    """Memories (and earlier states) of the file the store's audit records as purged: erased
    for good, so an export taken before the purge does not bring them back (`purged` names
    them). A text counts as purged in any state it had, as written or as the duplicate
    check reads it."""
    purged: tuple[str, ...] = ()
    """The ids of those memories; a version as `ID version N`; a line without an id is named
    by its text's hash (`sha256:…`), never by its text."""
    refused_versions: tuple[str, ...] = ()
    """Version records not earlier than their memory's own version (the file contradicts
    itself): not imported, each named by its line."""
