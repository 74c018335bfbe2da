"""The import and export of whole stores."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from lethe.common import validate
from lethe.engine.base import Core, sha256
from lethe.engine.expiring import Expiry
from lethe.engine.memories import Memories, Progress, memory_from_draft
from lethe.engine.purged import Purged, purged_in
from lethe.engine.transfer import (
    Export,
    Forgotten,
    LinkRecord,
    parse_episode,
    parse_event,
    parse_link,
    parse_record,
    parse_version,
)
from lethe.errors import InvalidInput
from lethe.model import Draft, Episode, ImportReport, Link, Memory, MemoryVersion
from lethe.store.base import StoreTx
from lethe.store.rows import Provenance
from lethe.store.vectors import Vector

IMPORT_ACTOR = "import"
_REDACTED = {"redacted": True}


@dataclass
class _Parsed:
    """Every record of an import, validated, before anything is written."""

    restoring: list[tuple[Draft, Forgotten | None, Provenance | None]] = field(default_factory=list)
    versions: list[MemoryVersion] = field(default_factory=list)
    drafts: list[Draft] = field(default_factory=list)
    links: list[LinkRecord] = field(default_factory=list)
    episodes: list[tuple[dict[str, Any], list[str | None]]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    refused_versions: list[str] = field(default_factory=list)


@dataclass
class _Restored:
    purged: list[str] = field(default_factory=list)
    imported: int = 0
    trashed: int = 0
    skipped_existing: int = 0
    links: int = 0
    episodes: int = 0
    events: int = 0
    skipped_events: int = 0
    versions: int = 0


@contextmanager
def _on_line(line: int) -> Iterator[None]:
    """Name the line in any validation error raised for it."""
    try:
        yield
    except InvalidInput as exc:
        if exc.message.startswith(f"line {line}:"):
            raise
        raise InvalidInput(f"line {line}: {exc.message}", hint=exc.hint) from None


def _event_keys(
    at: datetime,
    op: str,
    memory_id: str | None,
    namespace: str | None,
    actor: str,
    content_sha256: str | None,
    reason: str | None,
    details: dict[str, Any],
) -> tuple[tuple[Any, ...], tuple[Any, ...], bool]:
    """An event's identity with and without its content-bearing parts, and whether a purge
    has redacted those: a redacted copy is still the same event."""
    short = (at, op, memory_id, namespace, actor, content_sha256)
    full = (*short, reason, json.dumps(details, sort_keys=True, default=str))
    return full, short, details == _REDACTED and reason is None


class Records:
    """Whole stores in and out: lethe's own export format here, other memories' formats in
    `SourceImports` (`import_from`)."""

    def __init__(self, core: Core, expiry: Expiry, memories: Memories) -> None:
        self._core = core
        self.store = core.store
        self.embedder = core.embedder
        self.settings = core.settings
        self._clock = core.clock
        self._expiry = expiry
        self._memories = memories

    def export_records(self) -> Export:
        """The whole memory as JSON-ready records (the JSONL export format): live and
        forgotten memories, links, episodes and the audit log.

        Iterate the result for the records; its `memories` count is there before the first
        one, for a progress bar.
        """
        self._expiry.expire_due()
        return Export(self.store)

    def import_records(
        self, records: Iterable[dict[str, Any]], *, progress: Progress | None = None, **options: Any
    ) -> ImportReport:
        """Import records as written by `export_records` (or minimal `{"content": …}` lines).

        Every record is parsed and validated before anything is written, so a bad line leaves
        the store untouched. Records that carry an id (an export) are written in one
        transaction, memories, trash, links, episodes and audit events together; ids already
        present are skipped. Plain `{"content": …}` lines are then remembered in batches
        like `remember_many`: near-duplicates skipped, neighbours auto-linked.
        """
        parsed = self._parse_import(records)
        purged = purged_in(self.store)
        restored = self._restore(parsed, purged, progress, options.get("batch_size", 64))
        drafts = []
        for draft in parsed.drafts:
            if purged.holds(draft):
                restored.purged.append(f"sha256:{sha256(draft.content)}")
            else:
                drafts.append(draft)
        report = self._memories.remember_many(drafts, progress=progress, **options)
        return report.model_copy(
            update={
                "skipped_purged": len(restored.purged),
                "purged": tuple(restored.purged),
                "refused_versions": tuple(parsed.refused_versions),
                "imported": report.imported + restored.imported,
                "skipped_existing": report.skipped_existing + restored.skipped_existing,
                "trashed": restored.trashed,
                "links": restored.links,
                "episodes": restored.episodes,
                "events": restored.events,
                "versions": restored.versions,
                "skipped_events": restored.skipped_events,
            }
        )

    # -- reading an import ------------------------------------------------------------------

    def _parse_import(self, records: Iterable[dict[str, Any]]) -> _Parsed:
        parsed = _Parsed()
        versions_seen: set[tuple[str, int]] = set()
        version_lines: dict[tuple[str, int], int] = {}
        for line, record in enumerate(records, start=1):
            kind = record.get("type", "memory") if isinstance(record, dict) else None
            with _on_line(line):
                if kind == "link":
                    parsed.links.append(self._check_link(parse_link(record, line)))
                elif kind == "episode":
                    parsed.episodes.append(self._check_episode(*parse_episode(record, line)))
                elif kind == "event":
                    parsed.events.append(self._check_event(parse_event(record, line)))
                elif kind == "version":
                    version = self._check_version(parse_version(record, line), versions_seen)
                    parsed.versions.append(version)
                    version_lines[(version.memory_id, version.version)] = line
                else:
                    memory = parse_record(record, line)
                    draft = self._memories.draft(memory.draft.model_dump())
                    if draft.id is None:
                        parsed.drafts.append(draft)
                    else:
                        parsed.restoring.append((draft, memory.forgotten, memory.made))
        current = {d.id: d.version for d, _, _ in parsed.restoring}
        for version in parsed.versions:
            own = current.get(version.memory_id)
            if own is not None and version.version >= own:
                # An "earlier" state numbered at or past the memory's own version contradicts
                # the file: it is not imported, and the report says so (never a silent drop).
                line = version_lines[(version.memory_id, version.version)]
                parsed.refused_versions.append(
                    f"line {line}: version {version.version} of {version.memory_id} is not "
                    f"earlier than the memory's own version {own}"
                )
        return parsed

    def _check_link(self, link: LinkRecord) -> LinkRecord:
        validate.memory_id(link.a)
        validate.memory_id(link.b)
        validate.unit_interval(link.confidence, "confidence")
        kind = validate.label(link.kind, "link kind")
        return replace(link, kind=kind)

    def _check_episode(
        self, fields: dict[str, Any], members: list[str | None]
    ) -> tuple[dict[str, Any], list[str | None]]:
        for member in members:
            if member is not None:
                validate.memory_id(member)
        if fields["start_at"] > fields["end_at"]:
            raise InvalidInput("episode start_at is after its end_at")
        checked = {
            **fields,
            "id": validate.episode_id(fields["id"]),
            "namespace": validate.namespace(fields["namespace"]),
            "summary": validate.content(
                fields["summary"], max_bytes=self.settings.max_content_bytes, what="summary"
            ),
            "importance": validate.unit_interval(fields["importance"], "importance"),
        }
        return checked, members

    def _check_version(self, version: MemoryVersion, seen: set[tuple[str, int]]) -> MemoryVersion:
        """An earlier state is checked like a memory being remembered: a revert may make it
        current again."""
        validate.memory_id(version.memory_id)
        validate.positive_int(version.version, "version", maximum=2**31 - 1)
        if (version.memory_id, version.version) in seen:
            raise InvalidInput(f"version {version.version} of {version.memory_id} is given twice")
        seen.add((version.memory_id, version.version))
        if version.valid_until is not None and version.valid_until < version.valid_from:
            raise InvalidInput("version valid_until is before its valid_from")
        return version.model_copy(
            update={
                "agent": validate.label(version.agent, "agent"),
                "content": validate.content(
                    version.content, max_bytes=self.settings.max_content_bytes
                ),
                "layer": validate.layer(version.layer),
                "category": validate.label(version.category, "category", allow_empty=True),
                "tags": validate.tags(version.tags),
                "metadata": validate.metadata(version.metadata),
                "importance": validate.unit_interval(version.importance, "importance"),
                "actor": validate.label(version.actor, "actor"),
                "op": validate.label(version.op, "op"),
                "reason": None
                if version.reason is None
                else validate.label(version.reason, "reason", allow_empty=True) or None,
            }
        )

    def _check_event(self, event: dict[str, Any]) -> dict[str, Any]:
        if event["memory_id"] is not None:
            validate.memory_id(event["memory_id"])
        if event["namespace"] is not None:
            validate.namespace(event["namespace"])
        return event

    # -- writing it --------------------------------------------------------------------------

    def _restore(
        self, parsed: _Parsed, purged: Purged, progress: Progress | None, batch_size: int
    ) -> _Restored:
        """Write the records that carry ids, all in one transaction. Everything the writes
        depend on (what already exists, the vectors) is read or computed before it opens.
        What the store purged stays out, with its versions and its events."""
        done = _Restored()
        named = {d.id for d, _, _ in parsed.restoring if d.id}
        named.update(end for link in parsed.links for end in (link.a, link.b))
        named.update(m for _, members in parsed.episodes for m in members if m)
        # Links and episodes may also name memories the target holds and the file does not.
        existing = self.store.get_many(sorted(named), active_only=False)
        fresh: dict[str, tuple[Draft, Forgotten | None, Provenance | None]] = {}
        for draft, forgotten, made in parsed.restoring:
            if draft.id in existing or draft.id in fresh:
                done.skipped_existing += 1
            elif purged.holds(draft):
                done.purged.append(draft.id or "")
            elif draft.id is not None:
                fresh[draft.id] = (draft, forgotten, made)
        if progress and (done.skipped_existing or done.purged):
            progress(done.skipped_existing + len(done.purged))
        now = self._clock()
        memories: list[tuple[Memory, Vector, Forgotten | None, Provenance | None]] = []
        batch_size = validate.positive_int(batch_size, "batch_size", maximum=4096)
        items = list(fresh.items())
        for start in range(0, len(items), batch_size):
            chunk = items[start : start + batch_size]
            vectors = self.embedder.embed([draft.content for _, (draft, _, _) in chunk])
            for (memory_id, (draft, forgotten, made)), vector in zip(chunk, vectors, strict=True):
                memory = memory_from_draft(memory_id, draft, now)
                memories.append((memory, vector, forgotten, made))
            if progress:
                progress(len(chunk))
        namespaces = {m.id: m.namespace for m in existing.values()}
        namespaces.update((m.id, m.namespace) for m, _, _, _ in memories)
        versions = []
        for v in parsed.versions:
            if v.memory_id not in fresh or v.version >= fresh[v.memory_id][0].version:
                continue
            if purged.holds_text(fresh[v.memory_id][0].namespace, v.content):
                # An earlier state of another memory must not carry a purged text back in.
                done.purged.append(f"{v.memory_id} version {v.version}")
                continue
            versions.append(v)
        links = self._new_links(parsed.links, namespaces, set(existing), now)
        episodes = self._new_episodes(parsed.episodes, namespaces, now)
        events = [e for e in self._new_events(parsed.events) if e["memory_id"] not in purged.ids]
        done.skipped_events = len(parsed.events) - len(events)
        if not (memories or links or episodes or events or versions):
            return done
        with self.store.transaction() as tx:
            for event in events:
                tx.append_event(**event)
            for memory, vector, forgotten, made in memories:
                _write_memory(tx, memory, vector, forgotten, made, now)
            for version in {(v.memory_id, v.version): v for v in versions}.values():
                tx.insert_version(version)
            for link, named_first in links:
                tx.upsert_link(link)
                tx.append_event(
                    op="link",
                    actor=IMPORT_ACTOR,
                    at=now,
                    memory_id=named_first,
                    namespace=namespaces[link.a],
                    details={
                        "other": link.other(named_first),
                        "kind": link.kind,
                        "confidence": link.confidence,
                    },
                )
            for episode, members in episodes:
                tx.insert_episode(episode, members)
                tx.append_event(
                    op="episode",
                    actor=IMPORT_ACTOR,
                    at=now,
                    namespace=episode.namespace,
                    details={"episode": episode.id, "members": members},
                    content_sha256=sha256(episode.summary),
                )
            live = [m for m, _, forgotten, _ in memories if forgotten is None]
            owed = self._core.owe(tx, live)
        self._core.project(live, owed)
        done.imported = len(memories)
        done.trashed = sum(1 for _, _, forgotten, _ in memories if forgotten is not None)
        done.versions = len({(v.memory_id, v.version) for v in versions})
        done.links, done.episodes, done.events = len(links), len(episodes), len(events)
        return done

    def _new_links(
        self,
        records: list[LinkRecord],
        namespaces: dict[str, str],
        existed: set[str],
        now: datetime,
    ) -> list[tuple[Link, str]]:
        """The links to make, each with the end its record names first (the event's memory).
        A link needs both ends (live or in the trash) in one namespace; one the target
        already holds is left as it is."""
        made: list[tuple[Link, str]] = []
        seen: set[tuple[str, str, str]] = set()
        for record in records:
            a, b = record.a, record.b
            if a == b or a not in namespaces or namespaces.get(b) != namespaces[a]:
                continue
            low, high = sorted((a, b))
            if (low, high, record.kind) in seen:
                continue
            seen.add((low, high, record.kind))
            if a in existed and b in existed and self.store.get_link(a, b, record.kind):
                continue
            created = record.created_at or now
            link = Link(
                a=low,
                b=high,
                kind=record.kind,
                confidence=record.confidence,
                created_at=created,
                updated_at=record.updated_at or created,
            )
            made.append((link, a))
        return made

    def _new_episodes(
        self,
        records: list[tuple[dict[str, Any], list[str | None]]],
        namespaces: dict[str, str],
        now: datetime,
    ) -> list[tuple[Episode, list[str | None]]]:
        """Episodes the target lacks, with the members it holds in the episode's namespace;
        a member the source had purged stays a gap."""
        made: list[tuple[Episode, list[str | None]]] = []
        seen: set[str] = set()
        for fields, members in records:
            if fields["id"] in seen or self.store.episode(fields["id"]) is not None:
                continue
            seen.add(fields["id"])
            episode = Episode(**{**fields, "created_at": fields["created_at"] or now})
            kept = [m for m in members if m is None or namespaces.get(m) == episode.namespace]
            made.append((episode, kept))
        return made

    def _new_events(self, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The file's events the target does not hold yet, in file order.

        An event counts as held when the target has one with the same time, op, memory,
        namespace, actor and hash, and the same details and reason unless a purge redacted
        either copy. So a re-import appends nothing, while events of other stores, which
        never share all of these, are all appended.
        """
        if not events:
            return []
        slack = timedelta(milliseconds=1)
        held = self.store.events_between(
            min(e["at"] for e in events) - slack, max(e["at"] for e in events) + slack
        )
        full_held: set[tuple[Any, ...]] = set()
        short_held: set[tuple[Any, ...]] = set()
        short_redacted: set[tuple[Any, ...]] = set()
        for e in held:
            full, short, redacted = _event_keys(
                e.at, e.op, e.memory_id, e.namespace, e.actor, e.content_sha256, e.reason, e.details
            )
            full_held.add(full)
            short_held.add(short)
            if redacted:
                short_redacted.add(short)
        new = []
        for event in events:
            full, short, redacted = _event_keys(**event)
            if redacted:
                held_already = short in short_held
            else:
                held_already = full in full_held or short in short_redacted
            if not held_already:
                new.append(event)
        return new


def _write_memory(
    tx: StoreTx,
    memory: Memory,
    vector: Vector,
    forgotten: Forgotten | None,
    made: Provenance | None,
    now: datetime,
) -> None:
    """Insert one memory, straight into the trash when it comes from there: inside one
    transaction it is never live, not even for a moment."""
    tx.insert_memory(memory, vector, made)
    details: dict[str, Any] = {"status": "active"}
    if forgotten is not None:
        tx.set_forgotten(memory.id, at=forgotten.at, actor=forgotten.by, reason=forgotten.reason)
        details = {
            "status": "forgotten",
            "forgotten_at": forgotten.at.isoformat(),
            "forgotten_by": forgotten.by,
        }
    tx.append_event(
        op="import",
        actor=IMPORT_ACTOR,
        at=now,
        memory_id=memory.id,
        namespace=memory.namespace,
        details=details,
        content_sha256=memory.content_sha256,
    )
