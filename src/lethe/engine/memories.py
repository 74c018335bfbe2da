"""Writing memories: remember (one or in bulk) and update."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from lethe import validate
from lethe.embed import Vectors
from lethe.engine.base import EngineBase, sha256
from lethe.errors import DuplicateMemory, InvalidInput, MemoryNotFound
from lethe.filters import Filters
from lethe.model import (
    DEFAULT_AGENT,
    DEFAULT_NAMESPACE,
    Draft,
    ImportReport,
    Link,
    Memory,
    new_memory_id,
)
from lethe.store.base import StoreTx

Progress = Callable[[int], None]


class MemoryOps(EngineBase):
    def remember(
        self,
        content: str,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        agent: str = DEFAULT_AGENT,
        layer: str = "episodic",
        category: str = "",
        tags: Iterable[str] | str | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float = 0.5,
        private: bool = False,
        allow_duplicate: bool = False,
        system: bool = False,
    ) -> Memory:
        """Store a memory, refusing a near-duplicate and linking it to its close neighbours."""
        draft = self._draft(
            {
                "content": content,
                "namespace": namespace,
                "agent": agent,
                "layer": layer,
                "category": category,
                "tags": tags,
                "metadata": metadata,
                "importance": importance,
                "private": private,
            }
        )
        vector = self.embedder.embed([draft.content])[0]
        memory_id = new_memory_id(system=system)
        with self.store.transaction() as tx:
            neighbours = tx.store.vector_search(
                vector, Filters(namespace=draft.namespace), self.settings.autolink_max + 1
            )
            if neighbours and not allow_duplicate:
                existing, similarity = neighbours[0]
                if similarity >= self.settings.duplicate_threshold:
                    raise DuplicateMemory(
                        f"a near-duplicate memory already exists: {existing} "
                        f"(similarity {similarity:.2f})",
                        existing_id=existing,
                        similarity=similarity,
                    )
            memory, _ = self._insert(tx, draft, memory_id, vector, neighbours)
            self._entered(tx, memory)
        self._project([memory])
        return memory

    def remember_many(
        self,
        drafts: Iterable[Draft],
        *,
        batch_size: int = 64,
        skip_duplicates: bool = True,
        auto_link: bool = True,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Bulk remember: batched embedding and search, one transaction per batch.

        Near-duplicates (of stored memories or of earlier items of the same call) and ids that
        already exist are skipped and counted rather than failing the whole call. A draft that
        carries an `id` is a memory being restored (an export): it is stored as it was, with
        no duplicate check and no auto-links, since its links travel in the export.
        """
        batch_size = validate.positive_int(batch_size, "batch_size", maximum=4096)
        report = {"imported": 0, "skipped_duplicates": 0, "skipped_existing": 0, "linked": 0}
        batch: list[Draft] = []

        def flush() -> None:
            if not batch:
                return
            vectors = self.embedder.embed([d.content for d in batch])
            ids = [d.id or new_memory_id() for d in batch]
            existing = self.store.get_many([d.id for d in batch if d.id], active_only=False)
            added: list[Memory] = []
            with self.store.transaction() as tx:
                stored = self._stored_neighbours(tx, batch, vectors)
                accepted: list[int] = []
                for i, draft in enumerate(batch):
                    if ids[i] in existing or ids[i] in (ids[j] for j in accepted):
                        report["skipped_existing"] += 1
                        continue
                    candidates = stored[i] + [
                        (ids[j], float(vectors[i] @ vectors[j]))
                        for j in accepted
                        if batch[j].namespace == draft.namespace
                    ]
                    candidates.sort(key=lambda pair: -pair[1])
                    restoring = draft.id is not None
                    threshold = self.settings.duplicate_threshold
                    if (
                        skip_duplicates
                        and not restoring
                        and candidates
                        and candidates[0][1] >= threshold
                    ):
                        report["skipped_duplicates"] += 1
                        continue
                    memory, links = self._insert(
                        tx,
                        draft,
                        ids[i],
                        vectors[i],
                        candidates if auto_link and not restoring else [],
                    )
                    report["linked"] += links
                    accepted.append(i)
                    added.append(memory)
            report["imported"] += len(added)
            self._project(added)
            if progress:
                progress(len(batch))
            batch.clear()

        for draft in drafts:
            batch.append(draft if draft.validated else self._draft(draft.model_dump()))
            if len(batch) >= batch_size:
                flush()
        flush()
        return ImportReport(**report)

    def _stored_neighbours(
        self, tx: StoreTx, batch: Sequence[Draft], vectors: Vectors
    ) -> list[list[tuple[str, float]]]:
        """Each batch item's closest stored memories, one matrix product per namespace."""
        want = self.settings.autolink_max + 1
        by_namespace: dict[str, list[int]] = {}
        for i, draft in enumerate(batch):
            by_namespace.setdefault(draft.namespace, []).append(i)
        stored: list[list[tuple[str, float]]] = [[] for _ in batch]
        for namespace, positions in by_namespace.items():
            results = tx.store.vector_search_many(vectors[positions], namespace, want)
            for position, result in zip(positions, results, strict=True):
                stored[position] = result
        return stored

    def _insert(
        self,
        tx: StoreTx,
        draft: Draft,
        memory_id: str,
        vector: np.ndarray[Any, Any],
        neighbours: Sequence[tuple[str, float]],
    ) -> tuple[Memory, int]:
        """Insert one validated memory with its auto-links and audit event; returns links made."""
        now = self._clock()
        memory = memory_from_draft(memory_id, draft, now)
        tx.insert_memory(memory, vector)
        links = [
            (other, similarity)
            for other, similarity in neighbours
            if other != memory_id and similarity >= self.settings.autolink_threshold
        ][: self.settings.autolink_max]
        for other, similarity in links:
            tx.upsert_link(Link.between(memory_id, other, "related", min(similarity, 1.0), now))
        tx.append_event(
            op="remember",
            actor=memory.agent,
            at=now,
            memory_id=memory.id,
            namespace=memory.namespace,
            details={
                "layer": memory.layer,
                "category": memory.category,
                "tags": list(memory.tags),
                "importance": memory.importance,
                "links": {other: round(similarity, 4) for other, similarity in links},
            },
            content_sha256=memory.content_sha256,
        )
        return memory, len(links)

    def _draft(self, fields: dict[str, Any]) -> Draft:
        """Validate a memory's fields once, before any embedding or storage work."""
        return Draft(
            id=fields.get("id") and validate.memory_id(fields["id"]),
            content=validate.content(
                fields.get("content"), max_bytes=self.settings.max_content_bytes
            ),
            namespace=validate.namespace(fields.get("namespace") or DEFAULT_NAMESPACE),
            agent=validate.label(fields.get("agent") or DEFAULT_AGENT, "agent"),
            layer=validate.layer(fields.get("layer") or "episodic"),
            category=validate.label(fields.get("category") or "", "category", allow_empty=True),
            tags=validate.tags(fields.get("tags")),
            metadata=validate.metadata(fields.get("metadata")),
            importance=validate.unit_interval(
                0.5 if fields.get("importance") is None else fields["importance"], "importance"
            ),
            private=bool(fields.get("private", False)),
            created_at=fields.get("created_at"),
            updated_at=fields.get("updated_at"),
            validated=True,
        )

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        layer: str | None = None,
        category: str | None = None,
        tags: Iterable[str] | str | None = None,
        metadata: dict[str, Any] | None = None,
        merge_metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        private: bool | None = None,
        actor: str | None = None,
        namespace: str | None = None,
    ) -> Memory:
        """Change a memory in place; new content is re-embedded and the event keeps the old hash.

        `metadata` replaces the whole object; `merge_metadata` sets only the keys it names.
        """
        if metadata is not None and merge_metadata is not None:
            raise InvalidInput("give metadata (replace) or merge_metadata (merge), not both")
        old = self.get(memory_id, namespace=namespace)
        changes: dict[str, Any] = {}
        if merge_metadata is not None:
            metadata = {**old.metadata, **validate.metadata(merge_metadata)}
        if content is not None:
            changes["content"] = validate.content(
                content, max_bytes=self.settings.max_content_bytes
            )
        if layer is not None:
            changes["layer"] = validate.layer(layer)
        if category is not None:
            changes["category"] = validate.label(category, "category", allow_empty=True)
        if tags is not None:
            changes["tags"] = validate.tags(tags)
        if metadata is not None:
            changes["metadata"] = validate.metadata(metadata)
        if importance is not None:
            changes["importance"] = validate.unit_interval(importance, "importance")
        if private is not None:
            changes["private"] = bool(private)
        who = validate.label(actor, "actor") if actor else old.agent
        changes = {k: v for k, v in changes.items() if getattr(old, k) != v}
        if not changes:
            return old
        vector = None
        if "content" in changes:
            vector = self.embedder.embed([changes["content"]])[0]
            changes["content_sha256"] = sha256(changes["content"])
        now = self._clock()
        new = old.model_copy(update={**changes, "updated_at": now})
        with self.store.transaction() as tx:
            current = tx.store.get(memory_id)
            if current is None or current.status != "active":
                raise MemoryNotFound(f"Memory not found: {memory_id}")
            if current.updated_at != old.updated_at:
                raise InvalidInput(
                    f"{memory_id} changed while this update was prepared", hint="retry the update"
                )
            tx.update_memory(new, vector)
            tx.append_event(
                op="update",
                actor=who,
                at=now,
                memory_id=memory_id,
                namespace=old.namespace,
                details={
                    "fields": sorted(k for k in changes if k != "content_sha256"),
                    "old_sha256": old.content_sha256,
                },
                content_sha256=new.content_sha256,
            )
        self._project([old, new])
        return new


def memory_from_draft(memory_id: str, draft: Draft, now: datetime) -> Memory:
    """The memory a validated draft becomes: its times kept when it has them (an import), the
    hash always derived from the content, never taken from outside."""
    return Memory(
        id=memory_id,
        namespace=draft.namespace,
        agent=draft.agent,
        content=draft.content,
        content_sha256=sha256(draft.content),
        layer=draft.layer,
        category=draft.category,
        tags=draft.tags,
        metadata=draft.metadata,
        importance=draft.importance,
        private=draft.private,
        created_at=draft.created_at or now,
        updated_at=draft.updated_at or draft.created_at or now,
    )
