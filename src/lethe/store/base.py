"""The contract between the engine and a storage backend.

The engine composes operations; a store makes each write block atomic and answers reads. A
backend keeps one guarantee above all: everything written inside one `transaction()` — rows,
vectors, full-text entries, links and the audit event — commits or vanishes together, and no
search ever returns a memory that is not live.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from lethe.common.filters import Filters
from lethe.model import Episode, Event, Gist, Link, Memory, MemoryVersion, Pending
from lethe.store.event_query import EventQuery
from lethe.store.reembed_base import Reembedding
from lethe.store.rows import Provenance
from lethe.store.vectors import Vector

F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class DecayColumns:
    """What a decay sweep reads of every live memory of a namespace, column by column.
    `last_access_at` is in POSIX seconds, the creation time for a memory never recalled."""

    ids: list[str]
    importance: F64
    last_access_at: F64
    accesses_total: F64
    accesses_30d: F64
    accesses_90d: F64
    always_kept: npt.NDArray[np.bool_]
    """Protected whatever the scores: a protected layer or a system id (pins are checked
    from `importance`)."""


class StoreTx(Protocol):
    """The write half of a store, valid only inside `Store.transaction()`."""

    @property
    def store(self) -> Store: ...

    def insert_memory(
        self, memory: Memory, vector: Vector, made: Provenance | None = None
    ) -> None: ...

    def update_memory(self, memory: Memory, vector: Vector | None, made: Provenance) -> None: ...

    def keep_version(self, memory_id: str, until: datetime) -> None: ...

    def insert_version(self, version: MemoryVersion) -> None: ...

    def drop_versions(self, memory_id: str, *, containing: Sequence[str] = ()) -> int: ...

    def set_version_vector(self, memory_id: str, version: int, vector: Vector) -> None: ...

    def redact_version(
        self, memory_id: str, version: int, content: str, content_sha256: str, vector: Vector
    ) -> bool:
        """An earlier state's text without a fact forgotten since (its number, times and
        author stay), with the vector of that text. False when there is no such state."""
        ...

    def owe(self, work: dict[str, Any], at: datetime) -> int: ...

    def upsert_link(self, link: Link) -> None: ...

    def delete_link(self, a: str, b: str, kind: str) -> bool: ...

    def insert_episode(self, episode: Episode, member_ids: Sequence[str | None]) -> None: ...

    def working_put(
        self, agent: str, namespace: str, memory_id: str, tokens: int, at: datetime
    ) -> None: ...

    def working_drop(self, agent: str, namespace: str, memory_id: str) -> None: ...

    def set_forgotten(
        self, memory_id: str, *, at: datetime, actor: str, reason: str | None
    ) -> bool: ...

    def set_expiry(
        self,
        memory_id: str,
        expires_at: datetime | None,
        *,
        by: str | None,
        at: datetime | None,
        held: bool = False,
    ) -> None:
        """When the memory ends (None: never), who set that and when, and whether it is
        held (`Memory.expiry_held`)."""
        ...

    def set_restored(self, memory_id: str) -> bool: ...

    def erase(self, memory_id: str) -> bool: ...

    def pending(self, session: str, operation: str, ids: Sequence[str]) -> dict[str, Pending]: ...

    def put_pending(self, pending: Pending) -> None: ...

    def drop_pending(self, session: str, operation: str, memory_id: str) -> None: ...

    def drop_expired_pending(self, now: datetime) -> list[Pending]: ...

    def append_event(
        self,
        *,
        op: str,
        actor: str,
        at: datetime,
        memory_id: str | None = None,
        namespace: str | None = None,
        reason: str | None = None,
        details: dict[str, Any] | None = None,
        content_sha256: str | None = None,
    ) -> int: ...


class Store(Protocol):
    @property
    def schema_version(self) -> int: ...

    def close(self) -> None: ...

    def transaction(self) -> AbstractContextManager[StoreTx]: ...

    def reembedding(self) -> Reembedding:
        """Moving the store to another embedding model (store/reembed_base.py)."""
        ...

    def vector_search(self, query: Vector, filters: Filters, n: int) -> list[tuple[str, float]]: ...

    def vector_search_many(
        self, queries: Vector, namespace: str, n: int, *, floor: float = -math.inf
    ) -> list[list[tuple[str, float]]]:
        """Each query's n best (id, cosine) in the namespace, best first, only those at or
        above `floor`."""
        ...

    def similarities(self, query: Vector, ids: Sequence[str]) -> dict[str, float]: ...

    def vector_search_in_context(
        self, query: Vector, filters: Filters, n: int
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]] | None]:
        """What recall's fusion (`lethe.common.ranking.fuse_with_context`) needs, as (id, cosine)
        lists best first: memories matching `filters` by their own vectors, and
        conversational ones by their context vectors (`lethe.common.context`); None for the second
        when the namespace holds no conversation. Together they hold the top n of the merged
        ranking (turns by context, the rest by their own vector); the first list may give
        the own cosine of only the turns among those."""
        ...

    def context_lexical_soon(self, text: str, filters: Filters, n: int) -> Future[list[str]]:
        """The best full-text matches of conversational memories' context texts, started
        now where the store can run it beside other work."""
        ...

    def conversational(self, ids: Iterable[str]) -> set[str]:
        """Which of these memories are ranked by a context."""
        ...

    def lexical_search(self, text: str, filters: Filters, n: int) -> list[str]: ...

    def lexical_search_soon(self, text: str, filters: Filters, n: int) -> Future[list[str]]:
        """`lexical_search`, started now; a store may run it beside the caller's work."""
        ...

    def containing(self, needles: Sequence[str], filters: Filters, n: int) -> list[str]:
        """Ids of memories matching `filters` whose text contains one of `needles` as written
        (a scan, not an index): an identifier glued into a run of Japanese, which no word
        of the full-text index holds. At most `n`, oldest first."""
        ...

    def get(self, memory_id: str) -> Memory | None: ...

    def get_many(self, ids: Sequence[str], *, active_only: bool = True) -> dict[str, Memory]: ...

    def gists(self, ids: Sequence[str]) -> dict[str, Gist]:
        """The live ones of these memories, read lean (`Gist`): a forget plan's candidates."""
        ...

    def vector_of(self, memory_id: str) -> Vector | None: ...

    def versions(self, memory_id: str) -> list[MemoryVersion]:
        """Every state of a memory (live or forgotten), the current one first."""
        ...

    def versions_replaced_since(
        self, ids: Sequence[str], since: datetime
    ) -> dict[str, list[MemoryVersion]]: ...

    def search_at(
        self, query: Vector, text: str, namespace: str, at: datetime, n: int
    ) -> tuple[list[tuple[str, int | None, float]], list[tuple[str, int | None]]]:
        """Both sides of a recall among the states the namespace's live memories had at
        `at`: top-n (id, version or None for the current state, cosine), and full-text
        matches (id, version), best first."""
        ...

    def similarities_at(
        self, query: Vector, keys: Sequence[tuple[str, int | None]]
    ) -> dict[tuple[str, int | None], float]:
        """The cosine to the query of each of these states (version None: the current one)."""
        ...

    def earlier_states(
        self, keys: Sequence[tuple[str, int]]
    ) -> dict[tuple[str, int], MemoryVersion]:
        """Earlier states of live memories by (id, version)."""
        ...

    def unembedded_versions(self, limit: int) -> list[tuple[str, int, str]]:
        """Earlier states without a vector: (id, version, text)."""
        ...

    def began(self, namespace: str) -> datetime | None:
        """When the namespace's record begins (first audit event, or oldest live memory)."""
        ...

    def live_ids_by_hash(self, namespace: str, hashes: Sequence[str]) -> list[str]: ...

    def live_ids_with_earlier_text(self, namespace: str, needle: str, limit: int) -> list[str]:
        """Live memories of the namespace an earlier version of which contains `needle`
        (case folded): what a request for an old text must still find."""
        ...

    def namespaces(self) -> list[str]:
        """Every namespace that holds a memory, live or in the trash."""
        ...

    def derived_from(self, ids: Sequence[str], namespace: str) -> list[Memory]:
        """Summaries lethe made (live or trashed) in this namespace from any of these ids
        (`metadata.summarizes`)."""
        ...

    def list_memories(
        self, filters: Filters, *, limit: int, offset: int
    ) -> tuple[list[Memory], int]: ...

    def links_of(self, memory_id: str) -> list[Link]: ...

    def get_link(self, a: str, b: str, kind: str) -> Link | None: ...

    def episode(self, episode_id: str) -> tuple[Episode, list[Memory], int] | None: ...

    def episode_member_ids(self, episode_id: str) -> list[str | None]: ...

    def episodes_of(self, memory_id: str) -> list[Episode]:
        """The episodes a memory belongs to, earliest first."""
        ...

    def events(self, query: EventQuery) -> list[Event]: ...

    def touch(self, ids: Sequence[str], at: datetime) -> None: ...

    def decay_columns(
        self, namespace: str, now: datetime, protected_layers: Sequence[str]
    ) -> DecayColumns: ...

    def recent_accesses(self, memory_id: str, now: datetime) -> tuple[int, int]: ...

    def namespace_vectors(self, namespace: str) -> tuple[list[str], Vector]: ...

    def working_set(self, agent: str, namespace: str) -> list[tuple[Memory, int, datetime]]: ...

    def working_entries(
        self, agent: str, namespace: str
    ) -> list[tuple[str, int, datetime, float, int]]:
        """An agent's working memory as eviction weighs it: (id, tokens, added_at,
        importance, access_count) of each live memory in it, without their text."""
        ...

    def fresh_links_close_in_time(
        self, namespace: str, window_s: float, limit: int
    ) -> list[Link]: ...

    def memory_ids(self) -> list[str]: ...

    def trash_ids(self) -> list[str]:
        """Ids of forgotten memories in insertion order (export writes the trash too)."""
        ...

    def events_between(self, start: datetime, end: datetime) -> list[Event]:
        """Events whose time lies in [start, end], in seq order: import reads them to
        recognise the events of a file it has already imported."""
        ...

    def iter_rows(self, table: str) -> Iterator[dict[str, Any]]: ...

    def trash(
        self, namespace: str | None, *, limit: int, offset: int, before: datetime | None = None
    ) -> tuple[list[Memory], int]: ...

    def due_expiries(self, now: datetime, *, limit: int) -> list[Memory]:
        """Live memories whose expiry is at or before `now`, earliest first."""
        ...

    def ids_with_prefixes(
        self, prefixes: Sequence[str], *, namespace: str | None, status: str
    ) -> list[str]:
        """Ids that start with one of `prefixes` (each an id's kind and some of its hex
        digits), of memories with this status, in this namespace (any, for None). Each
        prefix is one range of the id index: no scan of the table."""
        ...

    def pending_all(self, session: str | None = None) -> list[Pending]: ...

    def event_counts(
        self, ops: Sequence[str], *, since: datetime | None, namespace: str | None
    ) -> list[tuple[str, str, str, str, int]]: ...

    def compact(self) -> bool:
        """Clean up after an erasure; False when it could not finish (try again later)."""
        ...

    def owed(self) -> list[tuple[int, dict[str, Any]]]:
        """Work committed changes still owe after their commit (an erasure's cleanup, the
        workspace files), recorded in their transactions: a crash before it was done leaves
        it here for the next open to finish."""
        ...

    def settle(self, ids: Sequence[int]) -> None: ...

    def workspace_known(self) -> bool: ...

    def mark_workspace(self) -> None: ...

    def merge_owed(self, ids: Sequence[int], work: dict[str, Any]) -> None: ...

    # -- proof of erasure (`store/sqlite_proof.py`, `store/postgres_proof.py`) -------------

    erasure_methods: tuple[tuple[str, str], ...]
    """(place, how) of what this store's cleanup after a purge does, for the receipt."""
    unreachable: tuple[str, ...]
    """Copies this store cannot reach: named in every receipt, never touched."""

    def owned_files(self) -> list[Path]:
        """The files on this machine that this store writes (the byte scan reads them)."""
        ...

    def signing_key_path(self) -> Path: ...

    def held_texts(self, *, memories: bool) -> Iterator[tuple[str, str]]:
        """(memory id, or `table.column` of a record that is no memory; text) of every live
        row that may hold a person's words (`store/held.py`): the memories' own rows, or
        (`memories=False`) all the others."""
        ...

    def index_terms(self, words: Sequence[str]) -> set[str]:
        """The words a full-text index still lists with a document (what bytes cannot show)."""
        ...

    def save_receipt(self, receipt: dict[str, Any], settles: int | None = None) -> bool:
        """Keep a signed receipt. With `settles`, the owed work that promised it is settled in
        the same transaction, and when that work is already settled (another process kept the
        purge's receipt first) nothing is saved and the answer is False: one purge, one
        receipt."""
        ...

    def claim(self) -> AbstractContextManager[str]:
        """A token held while this process proves a purge, from before its commit until its
        receipt is kept. The operating system or the server lets go of it when the process
        ends, however it ends: that is how another process tells an interrupted purge from one
        still being checked (`claim_held`)."""
        ...

    def claim_held(self, token: str) -> bool:
        """Whether the process that took `token` still holds it. A token nobody holds any
        more is cleared on the way."""
        ...

    def receipts(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]: ...

    def receipt(self, receipt_id: str) -> dict[str, Any] | None: ...

    def receipt_key(self, key_id: str) -> str | None: ...
