"""Writing memories: remember, one or in bulk (update and revert are in `versions`)."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from lethe import validate
from lethe.embed import Vectors
from lethe.engine.base import sha256
from lethe.engine.versions import RETRIES, VersionOps
from lethe.errors import ChangedSincePlanned, ConfirmationRequired, InvalidInput
from lethe.expiry import expiry, parse_instant
from lethe.filters import Filters
from lethe.forget.change import UpdatePlan, plan_change, state_sha256
from lethe.forget.corrections import likely_superseded
from lethe.forget.identifiers import plain_width
from lethe.model import (
    DEFAULT_AGENT,
    DEFAULT_NAMESPACE,
    Draft,
    ImportReport,
    Link,
    Memory,
    NearDuplicate,
    Remembered,
    new_memory_id,
)
from lethe.store.base import StoreTx
from lethe.store.rows import Provenance
from lethe.store.vectors import Vector

Progress = Callable[[int], None]


NEAR_DUPLICATE = "near_duplicate"
"""The link kind between a memory and a stored one it is nearly identical to."""


def normalise(text: str) -> str:
    """The text as the exact-duplicate check compares it: Unicode NFC, full-width ASCII forms
    as plain ones (「４４７１」 is 4471), runs of whitespace as one space. Nothing else is
    folded: case, super- and subscripts (10² is not 102), circled and Roman numerals keep
    their meaning, since a code or a number written another way may be another one."""
    return " ".join(plain_width(unicodedata.normalize("NFC", text)).split())


def _same_fields(memory: Memory, draft: Draft, normalised: str) -> bool:
    return (
        normalise(memory.content) == normalised
        and memory.agent == draft.agent
        and memory.layer == draft.layer
        and memory.category == draft.category
        and set(memory.tags) == set(draft.tags)
        and _json(memory.metadata) == _json(draft.metadata)
        and memory.importance == draft.importance
        and memory.private == draft.private
        and memory.expires_at == draft.expires_at
    )


def _json(value: Any) -> str:
    """A value as JSON with sorted keys: `True` and `1` stay different."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def superseding_protected(plan: UpdatePlan, hint: str | None = None) -> ConfirmationRequired:
    """The refusal of a supersede that would weaken a protection; `hint` as a face spells
    the confirmed update (default: the Python API's)."""
    taken = f"take that away ({'; '.join(plan.lost)})" if plan.lost else "rewrite its text"
    return ConfirmationRequired(
        f"{plan.memory_id} is protected ({plan.protection}): superseding it would {taken}, a "
        "change confirmed like a forget, which remember never makes; nothing was changed",
        plan=plan,
        hint=hint
        or "show the change to the person; if they agree, execute the plan this error carries "
        f"(the update-with-confirmation path: update({plan.memory_id!r}, content=…), then "
        "execute(plan)); or remember the new fact without supersedes and keep both",
    )


def _near(near: Sequence[tuple[str, float]], found: dict[str, Memory]) -> tuple[NearDuplicate, ...]:
    return tuple(
        NearDuplicate(
            id=i, content=found[i].content, similarity=round(s, 4), private=found[i].private
        )
        for i, s in near
        if i in found
    )


def _draft_key(draft: Draft) -> tuple[Any, ...]:
    """What makes two drafts of one call exact duplicates of each other."""
    return (
        draft.namespace,
        normalise(draft.content),
        draft.agent,
        draft.layer,
        draft.category,
        frozenset(draft.tags),
        _json(draft.metadata),
        draft.importance,
        draft.private,
        draft.expires_at,
    )


class MemoryOps(VersionOps):
    def remember(
        self,
        content: str,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        agent: str | None = None,
        layer: str | None = None,
        category: str | None = None,
        tags: Iterable[str] | str | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        private: bool | None = None,
        allow_duplicate: bool = False,
        system: bool = False,
        actor: str | None = None,
        supersedes: str | None = None,
        expires_at: datetime | str | None = None,
        expires_in: timedelta | str | None = None,
    ) -> Remembered:
        """Store a memory and link it to its close neighbours. Never refuses one for being
        similar: similar is not same (embeddings barely see numbers, days, names and
        negation). Fields not given take their defaults: agent `user`, layer `episodic`,
        no category, tags or metadata, importance 0.5, not private.

        The same text, with the same fields, already live in the namespace is not stored
        twice: that memory comes back with `existing=True` and nothing is written (unless
        `allow_duplicate`). A near-duplicate (cosine >= the duplicate threshold) is stored,
        linked to its neighbour as `near_duplicate`, and named in `near_duplicates`.
        `actor` is who the audit log names (default: the agent). `likely_supersedes` names
        the stored memories the new one likely replaces (the same attribute of the same
        subject with another value), with a confidence and the evidence: nothing is changed
        for them; `supersedes` is how to replace one.

        `supersedes=ID` says the new text replaces what a live memory of the namespace says
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
        person's expiry must hold for what they said."""
        when = expiry(expires_at, expires_in, self._clock())
        if supersedes is not None:
            if when is not None:
                raise InvalidInput(
                    "supersedes with an expiry would set an expiry on a stored memory, which "
                    "is planned and confirmed like a forget; nothing was changed",
                    hint="remember the new fact with its expiry and without supersedes, or "
                    "supersede without an expiry",
                )
            return self._supersede(
                supersedes,
                content,
                namespace=namespace,
                given={
                    "layer": layer,
                    "category": category,
                    "tags": tags,
                    "metadata": metadata,
                    "importance": importance,
                    "private": private,
                },
                agent=agent,
                actor=actor,
                system=system,
            )
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
                "expires_at": when,
            }
        )
        who = validate.label(actor, "actor") if actor else draft.agent
        vector = self.embedder.embed([draft.content])[0]
        memory_id = new_memory_id(system=system)
        with self.store.transaction() as tx:
            neighbours = tx.store.vector_search(
                vector, Filters(namespace=draft.namespace), self.settings.autolink_max + 1
            )
            if not allow_duplicate:
                same = self._same_as(tx, draft, neighbours, system=system)
                if same is not None:
                    return Remembered(**same.model_dump(), existing=True)
            memory, _, near = self._insert(tx, draft, memory_id, vector, neighbours, who)
            self._entered(tx, memory, who)
            found = tx.store.get_many([i for i, _ in neighbours])
            likely = likely_superseded(
                memory.content, [(found[i], s) for i, s in neighbours if i in found]
            )
            owed = self._owe(tx, [memory])
        self._project([memory], owed)
        return Remembered(
            **memory.model_dump(),
            near_duplicates=_near(near, found),
            likely_supersedes=tuple(likely),
        )

    def _supersede(
        self,
        memory_id: str,
        content: str,
        *,
        namespace: str,
        given: dict[str, Any],
        agent: str | None,
        actor: str | None,
        system: bool,
    ) -> Remembered:
        """`remember(..., supersedes=ID)`: a versioned update of that memory in place."""
        validate.memory_id(memory_id)
        if system:
            raise InvalidInput(
                "system makes a new sys_ memory; a superseded memory keeps its id",
                hint="remember it without supersedes, or without system",
            )
        ns = validate.namespace(namespace or DEFAULT_NAMESPACE)
        changes = self._validated(
            {"content": content, **{k: v for k, v in given.items() if v is not None}}
        )
        given_agent = validate.label(agent, "agent") if agent else None
        who = validate.label(actor, "actor") if actor else given_agent
        vector = self.embedder.embed([changes["content"]])[0]
        for attempt in range(RETRIES):
            old = self._superseded(self.store.get(memory_id), memory_id, ns)
            plan = plan_change(
                old, changes, op="update", actor=who or old.agent, reason=None, now=self._clock()
            )
            if plan.needs_confirmation:
                raise superseding_protected(plan)
            if not plan.changes:  # it already says this: nothing to write (a retried call)
                return Remembered(**old.model_dump(), existing=True, superseded=old.id)
            try:
                return self._write_supersede(plan, vector)
            except ChangedSincePlanned:
                # Another writer changed it in between: plan again on its new state.
                if attempt == RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def _superseded(self, memory: Memory | None, memory_id: str, namespace: str) -> Memory:
        """The live memory of the namespace a `supersedes` names, or an error saying what to
        give instead. A memory of another namespace is reported as absent, as by `get`."""
        if memory is None or memory.namespace != namespace:
            raise InvalidInput(
                f"supersedes={memory_id}: no memory with this id in namespace {namespace!r}",
                hint="give the id of a live memory of this namespace, as recall or list show "
                "it; to supersede a memory of another namespace, remember in that namespace",
            )
        if memory.status != "active":
            raise InvalidInput(
                f"supersedes={memory_id}: that memory is in the trash",
                hint=f"restore({memory_id!r}) first to supersede it, or remember the new fact "
                "without supersedes",
            )
        return memory

    def _write_supersede(self, plan: UpdatePlan, vector: Vector) -> Remembered:
        """Apply a supersede's plan in one transaction: the version, the new state, links to
        near-duplicates of the new text and the `supersede` event."""
        with self.store.transaction() as tx:
            current = self._superseded(tx.store.get(plan.memory_id), plan.memory_id, plan.namespace)
            if state_sha256(current) != plan.base_sha256:
                raise ChangedSincePlanned(f"{current.id} changed while it was superseded")
            now = self._clock()
            neighbours = tx.store.vector_search(
                vector, Filters(namespace=current.namespace), self.settings.autolink_max + 1
            )
            near = [
                (other, min(s, 1.0))
                for other, s in neighbours
                if other != current.id and s >= self.settings.duplicate_threshold
            ]
            for other, similarity in near:
                tx.upsert_link(Link.between(current.id, other, NEAR_DUPLICATE, similarity, now))
            details: dict[str, Any] = {"superseded_version": current.version}
            if near:
                details["near_duplicates"] = {other: round(s, 4) for other, s in near}
            new = self._write_version(
                tx,
                current,
                plan.changes,
                vector if "content" in plan.changes else None,
                Provenance(plan.actor, "supersede"),
                now,
                details,
            )
            found = tx.store.get_many([i for i, _ in near])
            owed = self._owe(tx, [current, new])
        self._project([current, new], owed)
        return Remembered(
            **new.model_dump(),
            superseded=current.id,
            superseded_version=current.version,
            near_duplicates=_near(near, found),
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
                and _same_fields(memory, draft, wanted)
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
                        key = _draft_key(draft)
                        if key in seen or self._same_as(tx, draft, stored[i]) is not None:
                            report["skipped_duplicates"] += 1
                            continue
                        seen.add(key)
                    memory, links, near = self._insert(
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
                owed = self._owe(tx, added)
            report["imported"] += len(added)
            self._project(added, owed)
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

    def _draft(self, fields: dict[str, Any]) -> Draft:
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
    )


def _instant(value: Any, what: str) -> datetime | None:
    return None if value is None else parse_instant(value, what).astimezone(UTC)
