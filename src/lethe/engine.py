"""`Lethe`, the facade: the one module that composes validation, embedder, store and workspace.

Faces (CLI, MCP server) call these methods and format what comes back; they hold no logic.
Every state change runs in one store transaction together with its audit event, and the
workspace files are re-derived only after that transaction has committed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from lethe import validate
from lethe.config import Settings
from lethe.embed import Embedder, Vectors, load_default_embedder
from lethe.errors import (
    DuplicateMemory,
    EpisodeNotFound,
    InvalidInput,
    LinkNotFound,
    MemoryNotFound,
)
from lethe.filters import Filters, filters_from_mapping
from lethe.model import (
    DEFAULT_AGENT,
    DEFAULT_NAMESPACE,
    Draft,
    Episode,
    EpisodeView,
    Event,
    ImportReport,
    Link,
    Memory,
    Page,
    RecallHit,
    new_episode_id,
    new_memory_id,
    utcnow,
)
from lethe.ranking import fuse
from lethe.store.base import Store, StoreTx
from lethe.store.sqlite import SQLiteStore
from lethe.transfer import export_records, parse_episode, parse_link, parse_record
from lethe.workspace import Workspace

Clock = Callable[[], datetime]
Progress = Callable[[int], None]
MAX_K = 100
MAX_PAGE = 1000


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Lethe:
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
        **settings: Any,
    ) -> Lethe:
        """Open (creating if needed) the store at `db`, else `LETHE_DB`, else the default path."""
        overrides = {**settings, **({"db": str(db)} if db is not None else {})}
        resolved = Settings.load(overrides=overrides)
        embedder = embedder or load_default_embedder()
        store = SQLiteStore(
            resolved.db,
            embedder=embedder.name,
            dim=embedder.dim,
            busy_timeout_ms=resolved.busy_timeout_ms,
        )
        return cls(store, embedder, resolved, clock=clock)

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

    # -- writing memories ----------------------------------------------------------------

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
        memory = Memory(
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
        tx.insert_memory(memory, vector)
        links = [
            (other, similarity)
            for other, similarity in neighbours
            if other != memory_id and similarity >= self.settings.autolink_threshold
        ][: self.settings.autolink_max]
        for other, similarity in links:
            tx.upsert_link(self._new_link(memory_id, other, "related", min(similarity, 1.0), now))
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
    ) -> Memory:
        """Change a memory in place; new content is re-embedded and the event keeps the old hash.

        `metadata` replaces the whole object; `merge_metadata` sets only the keys it names.
        """
        if metadata is not None and merge_metadata is not None:
            raise InvalidInput("give metadata (replace) or merge_metadata (merge), not both")
        old = self.get(memory_id)
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

    # -- reading memories ----------------------------------------------------------------

    def get(self, memory_id: str) -> Memory:
        validate.memory_id(memory_id)
        memory = self.store.get(memory_id)
        if memory is None or memory.status != "active":
            raise MemoryNotFound(
                f"Memory not found: {memory_id}", hint="search for it with recall or list"
            )
        return memory

    def recall(
        self,
        query: str,
        k: int = 10,
        filters: Filters | dict[str, Any] | None = None,
        *,
        where: Iterable[str] = (),
        touch: bool = True,
    ) -> list[RecallHit]:
        """Hybrid search: vector and full-text ranks fused; every hit carries its cosine."""
        text = validate.content(query, max_bytes=self.settings.max_content_bytes, what="query")
        k = validate.positive_int(k, "k", maximum=MAX_K)
        flt = self._filters(filters, where)
        vector = self.embedder.embed([text])[0]
        depth = max(50, 5 * k)
        vector_hits = self.store.vector_search(vector, flt, depth)
        lexical_ids = self.store.lexical_search(text, flt, depth)
        similarity = dict(vector_hits)
        missing = [i for i in lexical_ids if i not in similarity]
        similarity.update(self.store.similarities(vector, missing))
        ranked = fuse([i for i, _ in vector_hits], lexical_ids, k=self.settings.rrf_k)
        hits: list[RecallHit] = []
        for start in range(0, len(ranked), 2 * k):
            window = ranked[start : start + 2 * k]
            live = self.store.get_many([f.id for f in window])
            for f in window:
                if f.id in live and len(hits) < k:
                    hits.append(
                        RecallHit(
                            memory=live[f.id],
                            similarity=min(max(similarity.get(f.id, 0.0), 0.0), 1.0),
                            score=f.score,
                            vector_rank=f.vector_rank,
                            lexical_rank=f.lexical_rank,
                        )
                    )
            if len(hits) >= k:
                break
        if touch and hits:
            self.store.touch([h.memory.id for h in hits], self._clock())
        return hits

    def list_memories(
        self,
        filters: Filters | dict[str, Any] | None = None,
        *,
        where: Iterable[str] = (),
        limit: int = 50,
        offset: int = 0,
    ) -> Page:
        """Live memories matching the filters, newest first."""
        limit = validate.positive_int(limit, "limit", maximum=MAX_PAGE)
        if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
            raise InvalidInput(f"offset must be a whole number >= 0, got {offset!r}")
        items, total = self.store.list_memories(
            self._filters(filters, where), limit=limit, offset=offset
        )
        return Page(items=tuple(items), total=total, offset=offset, limit=limit)

    def _filters(self, filters: Filters | dict[str, Any] | None, where: Iterable[str]) -> Filters:
        if filters is None:
            base = Filters()
        elif isinstance(filters, Filters):
            base = filters
        else:
            base = filters_from_mapping(filters)
        validate.namespace(base.namespace)
        return base.with_expressions(where)

    # -- links ---------------------------------------------------------------------------

    def _new_link(self, a: str, b: str, kind: str, confidence: float, now: datetime) -> Link:
        low, high = sorted((a, b))
        return Link(a=low, b=high, kind=kind, confidence=confidence, created_at=now, updated_at=now)

    def link(
        self,
        a: str,
        b: str,
        *,
        kind: str = "related",
        confidence: float = 1.0,
        actor: str = DEFAULT_AGENT,
    ) -> Link:
        """Link two live memories of one namespace (re-linking sets the new confidence)."""
        kind = validate.label(kind, "link kind")
        confidence = validate.unit_interval(confidence, "confidence")
        first, _ = self._pair(a, b)
        now = self._clock()
        existing = self.store.get_link(a, b, kind)
        link = self._new_link(a, b, kind, confidence, now)
        if existing:
            link = link.model_copy(update={"created_at": existing.created_at})
        with self.store.transaction() as tx:
            tx.upsert_link(link)
            tx.append_event(
                op="link",
                actor=validate.label(actor, "actor"),
                at=now,
                memory_id=a,
                namespace=first.namespace,
                details={"other": b, "kind": kind, "confidence": confidence},
            )
        return link

    def unlink(self, a: str, b: str, *, kind: str = "related", actor: str = DEFAULT_AGENT) -> None:
        first, _ = self._pair(a, b)
        with self.store.transaction() as tx:
            if not tx.delete_link(a, b, kind):
                raise LinkNotFound(f"{a} and {b} are not linked as {kind!r}")
            tx.append_event(
                op="unlink",
                actor=validate.label(actor, "actor"),
                at=self._clock(),
                memory_id=a,
                namespace=first.namespace,
                details={"other": b, "kind": kind},
            )

    def bump(
        self,
        a: str,
        b: str,
        *,
        kind: str = "related",
        delta: float = 0.1,
        actor: str = DEFAULT_AGENT,
    ) -> Link:
        """Strengthen an existing link (confidence capped at 1.0)."""
        first, _ = self._pair(a, b)
        validate.unit_interval(abs(delta), "delta")
        now = self._clock()
        with self.store.transaction() as tx:
            existing = tx.store.get_link(a, b, kind)
            if existing is None:
                raise LinkNotFound(
                    f"{a} and {b} are not linked as {kind!r}", hint="create it with link first"
                )
            confidence = round(min(1.0, max(0.0, existing.confidence + delta)), 6)
            link = existing.model_copy(update={"confidence": confidence, "updated_at": now})
            tx.upsert_link(link)
            tx.append_event(
                op="bump",
                actor=validate.label(actor, "actor"),
                at=now,
                memory_id=a,
                namespace=first.namespace,
                details={"other": b, "kind": kind, "from": existing.confidence, "to": confidence},
            )
        return link

    def links(self, memory_id: str) -> list[Link]:
        self.get(memory_id)
        return self.store.links_of(memory_id)

    def _pair(self, a: str, b: str) -> tuple[Memory, Memory]:
        first, second = self.get(a), self.get(b)
        if a == b:
            raise InvalidInput("a memory cannot be linked to itself")
        if first.namespace != second.namespace:
            raise InvalidInput(
                f"{a} is in namespace {first.namespace!r} and {b} in {second.namespace!r}",
                hint="links never cross namespaces",
            )
        return first, second

    # -- episodes ------------------------------------------------------------------------

    def create_episode(
        self,
        summary: str,
        memory_ids: Sequence[str],
        *,
        start: datetime | None = None,
        end: datetime | None = None,
        importance: float = 0.5,
        namespace: str = DEFAULT_NAMESPACE,
        actor: str = DEFAULT_AGENT,
    ) -> Episode:
        """Group live memories of one namespace into an episode (time span defaults to theirs)."""
        summary = validate.content(
            summary, max_bytes=self.settings.max_content_bytes, what="summary"
        )
        namespace = validate.namespace(namespace)
        importance = validate.unit_interval(importance, "importance")
        members = [self.get(i) for i in dict.fromkeys(memory_ids)]
        for member in members:
            if member.namespace != namespace:
                raise InvalidInput(f"{member.id} is not in namespace {namespace!r}")
        now = self._clock()
        times = [m.created_at for m in members] or [now]
        start, end = start or min(times), end or max(times)
        if start > end:
            raise InvalidInput("an episode cannot end before it starts")
        episode = Episode(
            id=new_episode_id(),
            namespace=namespace,
            summary=summary,
            start_at=start,
            end_at=end,
            importance=importance,
            created_at=now,
        )
        with self.store.transaction() as tx:
            tx.insert_episode(episode, [m.id for m in members])
            tx.append_event(
                op="episode",
                actor=validate.label(actor, "actor"),
                at=now,
                namespace=namespace,
                details={"episode": episode.id, "members": [m.id for m in members]},
                content_sha256=sha256(summary),
            )
        return episode

    def get_episode(self, episode_id: str) -> EpisodeView:
        found = self.store.episode(validate.episode_id(episode_id))
        if found is None:
            raise EpisodeNotFound(f"Episode not found: {episode_id}")
        episode, members, missing = found
        return EpisodeView(episode=episode, members=tuple(members), missing=missing)

    # -- audit, import, export -------------------------------------------------------------

    def audit(
        self,
        *,
        memory_id: str | None = None,
        op: str | None = None,
        namespace: str | None = None,
        after_seq: int = 0,
        limit: int = 100,
    ) -> list[Event]:
        """Audit events in order; page with `after_seq` = the last `seq` seen."""
        if memory_id is not None:
            validate.memory_id(memory_id)
        if op is not None:
            validate.label(op, "op")
        if namespace is not None:
            validate.namespace(namespace)
        if isinstance(after_seq, bool) or not isinstance(after_seq, int) or after_seq < 0:
            raise InvalidInput(f"after_seq must be a whole number >= 0, got {after_seq!r}")
        limit = validate.positive_int(limit, "limit", maximum=10_000)
        return self.store.events(
            memory_id=memory_id, op=op, namespace=namespace, after_seq=after_seq, limit=limit
        )

    def export_records(self) -> Iterator[dict[str, Any]]:
        """Every memory, link and episode as JSON-ready records (the JSONL export format)."""
        return export_records(self.store)

    def import_records(
        self, records: Iterable[dict[str, Any]], *, progress: Progress | None = None, **options: Any
    ) -> ImportReport:
        """Import records as written by `export_records` (or minimal `{"content": …}` lines).

        Every record is parsed and validated before anything is written, so a bad line leaves
        the store untouched. Links and episodes are applied after the memories; those naming
        a memory that was not imported (a skipped duplicate, say) keep only what exists.
        """
        drafts: list[Draft] = []
        links: list[tuple[str, str, str, float]] = []
        episodes: list[tuple[dict[str, Any], list[str]]] = []
        for line, record in enumerate(records, start=1):
            kind = record.get("type", "memory") if isinstance(record, dict) else None
            if kind == "link":
                a, b, link_kind, confidence = parse_link(record, line)
                validate.memory_id(a)
                validate.memory_id(b)
                validate.unit_interval(confidence, f"line {line}: confidence")
                links.append((a, b, validate.label(link_kind, "link kind"), confidence))
            elif kind == "episode":
                fields, members = parse_episode(record, line)
                validate.episode_id(fields["id"])
                for member in members:
                    validate.memory_id(member)
                episodes.append((fields, members))
            else:
                draft = parse_record(record, line)
                try:
                    drafts.append(self._draft(draft.model_dump()))
                except InvalidInput as exc:
                    raise InvalidInput(f"line {line}: {exc.message}", hint=exc.hint) from None
        report = self.remember_many(drafts, progress=progress, **options)
        linked = sum(self._import_link(*link) for link in links)
        made = sum(self._import_episode(fields, members) for fields, members in episodes)
        return report.model_copy(update={"links": linked, "episodes": made})

    def _import_link(self, a: str, b: str, kind: str, confidence: float) -> bool:
        try:
            self.link(a, b, kind=kind, confidence=confidence, actor="import")
        except (MemoryNotFound, InvalidInput):
            return False
        return True

    def _import_episode(self, fields: dict[str, Any], members: list[str]) -> bool:
        if self.store.episode(fields["id"]) is not None:
            return False
        live = self.store.get_many(members)
        now = self._clock()
        episode = Episode(
            id=fields["id"],
            namespace=validate.namespace(fields["namespace"]),
            summary=validate.content(
                fields["summary"], max_bytes=self.settings.max_content_bytes, what="summary"
            ),
            start_at=fields["start_at"],
            end_at=fields["end_at"],
            importance=validate.unit_interval(fields["importance"], "importance"),
            created_at=now,
        )
        kept = [m for m in members if m in live and live[m].namespace == episode.namespace]
        with self.store.transaction() as tx:
            tx.insert_episode(episode, kept)
            tx.append_event(
                op="episode",
                actor="import",
                at=now,
                namespace=episode.namespace,
                details={"episode": episode.id, "members": kept},
                content_sha256=sha256(episode.summary),
            )
        return True

    # -- workspace -----------------------------------------------------------------------

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

    def _project(self, changed: Sequence[Memory]) -> None:
        if self.workspace is not None and changed:
            self.workspace.refresh(changed)
