"""Writing memories: remember, one or in bulk (update and revert are in `versions`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np

from lethe.common import validate
from lethe.common.context import SESSION_KEY
from lethe.common.expiry import expiry, parse_instant
from lethe.common.filters import Filters
from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE, new_memory_id
from lethe.embed import Vectors
from lethe.engine.base import Core, sha256
from lethe.engine.duplicates import NEAR_DUPLICATE, draft_key, near_items, normalise, same_fields
from lethe.engine.superseding import Superseding
from lethe.engine.working import Working
from lethe.errors import InvalidInput
from lethe.forget.corrections import CANDIDATES, likely_superseded
from lethe.model import Draft, ImportReport, Link, Memory, Note, Remembered
from lethe.planner.caches import reads_texts
from lethe.store.base import StoreTx
from lethe.store.rows import Provenance

Progress = Callable[[int], None]


class Memories:
    """Remembering: one memory (`remember`) or many (`remember_many`), with duplicates caught."""

    def __init__(self, core: Core, superseding: Superseding, working: Working) -> None:
        self._core = core
        self.store = core.store
        self.embedder = core.embedder
        self.settings = core.settings
        self._clock = core.clock
        self._superseding = superseding
        self._working = working

    @reads_texts
    def remember(
        self,
        note: Note,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        actor: str | None = None,
        system: bool = False,
    ) -> Remembered:
        """Store a memory and link it to its close neighbours. Never refuses one for being
        similar: similar is not same (embeddings barely see numbers, days, names and
        negation). Fields not given take their defaults: agent `user`, layer `episodic`,
        no category, tags or metadata, importance 0.5, not private.

        What is asked is one `Note` (the facade also takes its fields as keywords and builds
        it of them); `namespace` is where it goes, `actor` who asks, `system` that lethe
        itself writes it.

        The same text, with the same fields, already live in the namespace is not stored
        twice: that memory comes back with `existing=True` and nothing is written (unless
        `allow_duplicate`). A near-duplicate (cosine >= the duplicate threshold) is stored,
        linked to its neighbour as `near_duplicate`, and named in `near_duplicates`.
        `actor` is who the audit log names (default: the agent). `likely_supersedes` names
        the stored memories the new one likely replaces (the same attribute of the same
        subject with another value), with a confidence and the evidence: nothing is changed
        for them; `supersedes` is how to replace one.

        `supersedes` (an id) says the new text replaces what a live memory of the namespace says
        ("Alice now works at Stripe" for "Alice works at Shopify"): that memory is updated
        in place, in one transaction — its earlier state becomes a version (`history`,
        `revert`), the new text and the fields given here apply, the others stay as they
        were (its agent too), and the audit event is a `supersede`. Recall then finds only
        the new text. The answer carries `superseded` (the id) and `superseded_version`
        (the version now holding the old text); a stored memory that already says exactly
        the new text is named in `near_duplicates` and linked, never merged away. A
        protected memory is not superseded silently: `ConfirmationRequired` carries the
        update plan, to execute once the person agrees.

        `expires_at` (an instant, ISO 8601 text or an aware datetime) or `expires_in` (a
        duration: "7d", "12h", "PT12H" or a timedelta) says when the memory ends, as the person
        asked ("keep this for a week"): from that instant no read returns it, and it goes to
        the trash, audited as `expire` (restorable until purged). It must lie in the future.
        A text already stored with another expiry, or none, is stored again, not merged: the
        person's expiry must hold for what they said. `hold_expiry` says the person chose
        it (the CLI's `remember --expires`): lengthening or removing it is then confirmed like a
        forget (`Memory.expiry_held`); an agent's own expiry is not held, and it may renew it.

        `session` names the conversation the memory is a turn of (`metadata.session`): it is
        then also ranked with the turns around it (`lethe.common.context`)."""
        if not isinstance(note, Note):
            raise InvalidInput(f"remember takes a Note, got {type(note).__name__}")
        when = expiry(note.expires_at, note.expires_in, self._clock())
        metadata = note.metadata
        if note.session is not None:
            metadata = with_session(metadata, note.session)
        if note.supersedes is not None:
            if when is not None:
                raise InvalidInput(
                    "supersedes with an expiry would set an expiry on a stored memory, which "
                    "is planned and confirmed like a forget; nothing was changed",
                    hint="remember the new fact with its expiry and without supersedes, or "
                    "supersede without an expiry",
                )
            return self._superseding.supersede(
                note.supersedes,
                note.content,
                namespace=namespace,
                given={
                    "layer": note.layer,
                    "category": note.category,
                    "tags": note.tags,
                    "metadata": metadata,
                    "importance": note.importance,
                    "private": note.private,
                },
                agent=note.agent,
                actor=actor,
                system=system,
            )
        draft = self.draft(
            {
                "content": note.content,
                "namespace": namespace,
                "agent": note.agent,
                "layer": note.layer,
                "category": note.category,
                "tags": note.tags,
                "metadata": metadata,
                "importance": note.importance,
                "private": note.private,
                "expires_at": when,
                "expiry_held": note.hold_expiry and when is not None,
            }
        )
        who = validate.label(actor, "actor") if actor else draft.agent
        vector = self.embedder.embed([draft.content])[0]
        memory_id = new_memory_id(system=system)
        with self.store.transaction() as tx:
            # A correction may share no word with what it replaces ("moved to an AI-safety
            # lab" for "works at Stripe"): it is looked for among more neighbours than are
            # linked.
            closest = tx.store.vector_search(
                vector,
                Filters(namespace=draft.namespace),
                max(self.settings.autolink_max + 1, CANDIDATES),
            )
            neighbours = closest[: self.settings.autolink_max + 1]
            if not note.allow_duplicate:
                same = self._same_as(tx, draft, neighbours, system=system)
                if same is not None:
                    return Remembered(**same.model_dump(), existing=True)
            memory, _, near = self.insert(tx, draft, memory_id, vector, neighbours, who)
            self._working.entered(tx, memory, who)
            found = tx.store.gists([i for i, _ in closest])
            likely = likely_superseded(
                memory.content, [(found[i], s) for i, s in closest if i in found]
            )
            owed = self._core.owe(tx, [memory])
        self._core.project([memory], owed)
        return Remembered(
            **memory.model_dump(),
            near_duplicates=near_items(near, found),
            likely_supersedes=tuple(likely),
        )

    def _same_as(
        self,
        tx: StoreTx,
        draft: Draft,
        neighbours: Sequence[tuple[str, float]],
        *,
        system: bool = False,
    ) -> Memory | None:
        """A live memory of the namespace that already says exactly this, with the same
        fields: the text equal once Unicode (NFKC) and whitespace are normalised — case,
        digits and punctuation still count. Found by the text's hash or among the closest
        neighbours (a normalised twin embeds alike)."""
        wanted = normalise(draft.content)
        hashes = sorted({sha256(draft.content), sha256(wanted)})
        ids = tx.store.live_ids_by_hash(draft.namespace, hashes)
        ids += [i for i, s in neighbours if s >= self.settings.duplicate_threshold]
        if not ids:
            return None
        found = tx.store.get_many(list(dict.fromkeys(ids)))
        for memory_id in dict.fromkeys(ids):
            memory = found.get(memory_id)
            if (
                memory is not None
                and memory.is_system == system
                and same_fields(memory, draft, wanted)
            ):
                return memory
        return None

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

        Exact duplicates (the same text and fields live in the namespace, or earlier in the
        same call) and ids that already exist are skipped and counted rather than failing the
        whole call; near-duplicates are stored and linked like `remember` does. A draft that
        carries an `id` is a memory being restored (an export): it is stored as it was, with
        no duplicate check and no auto-links, since its links travel in the export.
        """
        batch_size = validate.positive_int(batch_size, "batch_size", maximum=4096)
        report = {
            "imported": 0,
            "skipped_duplicates": 0,
            "near_duplicates": 0,
            "skipped_existing": 0,
            "linked": 0,
        }
        batch: list[Draft] = []
        seen: set[tuple[Any, ...]] = set()

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
                    if skip_duplicates and not restoring:
                        key = draft_key(draft)
                        if key in seen or self._same_as(tx, draft, stored[i]) is not None:
                            report["skipped_duplicates"] += 1
                            continue
                        seen.add(key)
                    memory, links, near = self.insert(
                        tx,
                        draft,
                        ids[i],
                        vectors[i],
                        candidates if auto_link and not restoring else [],
                    )
                    report["linked"] += links
                    report["near_duplicates"] += bool(near)
                    accepted.append(i)
                    added.append(memory)
                owed = self._core.owe(tx, added)
            report["imported"] += len(added)
            self._core.project(added, owed)
            if progress:
                progress(len(batch))
            batch.clear()

        for draft in drafts:
            batch.append(draft if draft.validated else self.draft(draft.model_dump()))
            if len(batch) >= batch_size:
                flush()
        flush()
        return ImportReport(**report)

    def _stored_neighbours(
        self, tx: StoreTx, batch: Sequence[Draft], vectors: Vectors
    ) -> list[list[tuple[str, float]]]:
        """Each batch item's closest stored memories, one matrix product per namespace."""
        want = self.settings.autolink_max + 1
        # Nothing weaker than both thresholds is linked or a duplicate (_insert, _same_as).
        floor = min(self.settings.autolink_threshold, self.settings.duplicate_threshold)
        by_namespace: dict[str, list[int]] = {}
        for i, draft in enumerate(batch):
            by_namespace.setdefault(draft.namespace, []).append(i)
        stored: list[list[tuple[str, float]]] = [[] for _ in batch]
        for namespace, positions in by_namespace.items():
            results = tx.store.vector_search_many(vectors[positions], namespace, want, floor=floor)
            for position, result in zip(positions, results, strict=True):
                stored[position] = result
        return stored

    def insert(
        self,
        tx: StoreTx,
        draft: Draft,
        memory_id: str,
        vector: np.ndarray[Any, Any],
        neighbours: Sequence[tuple[str, float]],
        actor: str | None = None,
    ) -> tuple[Memory, int, list[tuple[str, float]]]:
        """Insert one validated memory with its links and audit event. Neighbours at or above
        the duplicate threshold are linked as `near_duplicate`, the others above the autolink
        threshold as `related`. Returns the memory, the links made and the near-duplicates."""
        now = self._clock()
        memory = memory_from_draft(memory_id, draft, now)
        who = actor or memory.agent
        if memory.expires_at is not None and memory.expiry_set_by is None:
            memory = memory.model_copy(update={"expiry_set_by": who, "expiry_set_at": now})
        tx.insert_memory(memory, vector, Provenance(who, "remember"))
        others = [(o, min(s, 1.0)) for o, s in neighbours if o != memory_id]
        near = [(o, s) for o, s in others if s >= self.settings.duplicate_threshold]
        related = [
            (o, s)
            for o, s in others
            if self.settings.autolink_threshold <= s < self.settings.duplicate_threshold
        ][: max(0, self.settings.autolink_max - len(near))]
        for other, similarity in near:
            tx.upsert_link(Link.between(memory_id, other, NEAR_DUPLICATE, similarity, now))
        for other, similarity in related:
            tx.upsert_link(Link.between(memory_id, other, "related", similarity, now))
        details: dict[str, Any] = {
            "layer": memory.layer,
            "category": memory.category,
            "tags": list(memory.tags),
            "importance": memory.importance,
            "links": {other: round(similarity, 4) for other, similarity in near + related},
        }
        if near:
            details["near_duplicates"] = {other: round(s, 4) for other, s in near}
        if who != memory.agent:
            details["agent"] = memory.agent
        if memory.expires_at is not None:
            details["expires_at"] = memory.expires_at.isoformat()
        tx.append_event(
            op="remember",
            actor=who,
            at=now,
            memory_id=memory.id,
            namespace=memory.namespace,
            details=details,
            content_sha256=memory.content_sha256,
        )
        return memory, len(near) + len(related), near

    def draft(self, fields: dict[str, Any]) -> Draft:
        """Validate a memory's fields once, before any embedding or storage work."""
        return Draft(
            id=fields.get("id") and validate.memory_id(fields["id"]),
            content=validate.content(
                fields.get("content"), max_bytes=self.settings.max_content_bytes
            ),
            namespace=validate.new_namespace(fields.get("namespace") or DEFAULT_NAMESPACE),
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
            expires_at=_instant(fields.get("expires_at"), "expires_at"),
            expiry_set_by=fields.get("expiry_set_by")
            and validate.label(fields["expiry_set_by"], "expiry_set_by"),
            expiry_set_at=_instant(fields.get("expiry_set_at"), "expiry_set_at"),
            expiry_held=fields.get("expiry_held") is True,
            version=validate.positive_int(fields.get("version") or 1, "version", maximum=2**31 - 1),
            validated=True,
        )


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
        version=draft.version,
        expires_at=draft.expires_at,
        expiry_set_by=draft.expiry_set_by if draft.expires_at else None,
        expiry_set_at=draft.expiry_set_at if draft.expires_at else None,
        expiry_held=draft.expiry_held and draft.expires_at is not None,
    )


def _instant(value: Any, what: str) -> datetime | None:
    return None if value is None else parse_instant(value, what).astimezone(UTC)


def with_session(metadata: dict[str, Any] | None, session: str) -> dict[str, Any]:
    """The metadata with the conversation a memory belongs to; refused when the metadata
    already names another."""
    name = validate.label(session, "session")
    given = (metadata or {}).get(SESSION_KEY)
    if given is not None and str(given).strip(" ") != name:
        raise InvalidInput(
            f"session {name!r} and metadata.session {given!r} name two conversations",
            hint="give the session once",
        )
    return {**(metadata or {}), SESSION_KEY: name}


def noted(note: str | Note, **given: Any) -> Note:
    """The note a caller of the facade asked for: a `Note` whole, or the text and the keywords
    of `remember` (a `Note` of them); both at once is refused."""
    if not isinstance(note, Note):
        return Note(content=note, **given)
    named = Note(content="", **given).given()
    if named:
        raise InvalidInput(
            f"give a Note or its fields ({', '.join(named)}), not both",
            hint="put every field in the Note",
        )
    return note
