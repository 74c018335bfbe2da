"""Imports from other memories (the MCP memory server's graph, mem0, markdown notes, the
chat exports of Claude.ai and ChatGPT).

The importers in `lethe.importers` only parse. Here every memory a source yields is checked
against lethe's rules before anything is written, so one malformed record refuses the whole
source; then the memories go through `remember_many` (batched, one transaction per batch,
exact duplicates skipped, so a re-import adds nothing) and the source's relations become
links, in batches too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from lethe import importers
from lethe.common import validate
from lethe.common.filters import Filters
from lethe.config import Settings
from lethe.embed import Embedder
from lethe.engine.base import Clock, sha256
from lethe.engine.duplicates import draft_key, normalise, same_fields
from lethe.engine.memories import Memories, Progress
from lethe.engine.purged import Purged, purged_in
from lethe.errors import InvalidInput
from lethe.importers import Note, Parsed, SourceRefused, SourceReport
from lethe.model import Draft, Link
from lethe.store.base import Store

IMPORT_ACTOR = "import"
_LINK_BATCH = 500
_HASH_BATCH = 500


@dataclass(frozen=True)
class SourceBatch:
    """A source read and checked, ready to import: nothing of it is stored yet."""

    parsed: Parsed
    drafts: list[Draft]
    purged: tuple[Note, ...] = ()
    """The memories this store purged that the source would bring back: left out."""

    @property
    def memories(self) -> int:
        """How many memories would be stored (duplicates included): a progress bar's end."""
        return len(self.drafts)


class SourceImports:
    """Imports from other memories' files (`read_source`, `import_source`, `import_from`)."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        clock: Clock,
        memories: Memories,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self._clock = clock
        self._memories = memories

    def read_source(
        self, source: str, path: str | Path, *, namespace: str | None = None
    ) -> SourceBatch:
        """Read a source of another memory and check every memory it yields, writing nothing.

        Raises `SourceRefused` naming every malformed record (with its line, array index,
        file:line or place in a chat export, and how to fix it) when there is any.
        """
        ns = None if namespace is None else validate.new_namespace(namespace)
        parsed = importers.read(
            source,
            Path(path),
            namespace=ns,
            now=self._clock(),
            max_bytes=self.settings.max_content_bytes,
        )
        problems = list(parsed.problems)
        drafts: list[Draft] = []
        for item in parsed.items:
            try:
                drafts.append(self._memories.draft(item.fields))
            except InvalidInput as exc:
                problems.append(Note(where=item.where, what=exc.message, hint=exc.hint))
        if problems:
            raise SourceRefused(parsed.source, parsed.path, problems)
        return _without_purged(parsed, drafts, purged_in(self.store))

    def import_source(
        self,
        batch: SourceBatch,
        *,
        dry_run: bool = False,
        progress: Progress | None = None,
        skip_duplicates: bool = True,
        auto_link: bool = True,
        batch_size: int = 64,
    ) -> SourceReport:
        """Store what `read_source` read: memories as `remember_many` does, then the links of
        the source's relations. `dry_run` reports what would be done and writes nothing."""
        parsed = batch.parsed
        report = SourceReport(
            source=parsed.source,
            path=parsed.path,
            dry_run=dry_run,
            records=parsed.records,
            memories=batch.memories + len(batch.purged),
            skipped_purged=len(batch.purged),
            namespaces=parsed.namespaces,
        )
        if dry_run:
            return self._dry_run(batch, report, skip_duplicates)
        stored = self._memories.remember_many(
            batch.drafts,
            batch_size=batch_size,
            skip_duplicates=skip_duplicates,
            auto_link=auto_link,
            progress=progress,
        )
        ids = self._stored_ids(batch, embed_missing=True)
        links, held, missed = self._link_relations(batch, ids)
        return report.model_copy(
            update={
                "imported": stored.imported,
                "skipped_duplicates": stored.skipped_duplicates,
                "near_duplicates": stored.near_duplicates,
                "linked": stored.linked,
                "links": links,
                "links_held": held,
                "not_kept": [*parsed.not_kept, *batch.purged, *missed],
            }
        )

    def import_from(
        self,
        source: str,
        path: str | Path,
        *,
        namespace: str | None = None,
        dry_run: bool = False,
        progress: Progress | None = None,
        skip_duplicates: bool = True,
        auto_link: bool = True,
    ) -> SourceReport:
        """Import another memory's data: `source` is `mcp-memory` (the MCP memory server's
        JSONL file), `mem0` (the JSON of mem0's get_all), `markdown` (a folder of notes),
        `claude` or `chatgpt` (the `conversations.json` of Claude.ai's or ChatGPT's data
        export, or the export's zip: a memory per turn, each conversation a session).
        `read_source` then `import_source`; see docs/migrate.md."""
        batch = self.read_source(source, path, namespace=namespace)
        return self.import_source(
            batch,
            dry_run=dry_run,
            progress=progress,
            skip_duplicates=skip_duplicates,
            auto_link=auto_link,
        )

    # -- finding what was stored ------------------------------------------------------------

    def _stored_ids(self, batch: SourceBatch, *, embed_missing: bool) -> list[str | None]:
        """The live memory that holds each observation of an entity (the one just imported,
        or the exact duplicate that made it skipped); a twin that differs only in spacing is
        found by its vector, as `remember` found it."""
        items = batch.parsed.items
        wanted = [i for i, item in enumerate(items) if item.entity is not None]
        found = self._live_twins(batch.drafts, wanted)
        missing = [i for i in wanted if found[i] is None]
        if embed_missing and missing:
            vectors = self.embedder.embed([batch.drafts[i].content for i in missing])
            for i, vector in zip(missing, vectors, strict=True):
                draft = batch.drafts[i]
                near = self.store.vector_search(
                    vector, Filters(namespace=draft.namespace), self.settings.autolink_max + 1
                )
                close = [m for m, s in near if s >= self.settings.duplicate_threshold]
                held = self.store.get_many(close)
                text = normalise(draft.content)
                found[i] = next(
                    (m for m in close if m in held and same_fields(held[m], draft, text)), None
                )
        return found

    def _live_twins(self, drafts: Sequence[Draft], positions: Sequence[int]) -> list[str | None]:
        """For each draft at `positions`, the first live memory of its namespace that says
        the same with the same fields (what `remember` skips it for), found by hash."""
        found: list[str | None] = [None] * len(drafts)
        by_namespace: dict[str, list[int]] = {}
        for i in positions:
            by_namespace.setdefault(drafts[i].namespace, []).append(i)
        for namespace, group in by_namespace.items():
            hashes = sorted({h for i in group for h in _hashes(drafts[i].content)})
            ids: list[str] = []
            for start in range(0, len(hashes), _HASH_BATCH):
                ids += self.store.live_ids_by_hash(namespace, hashes[start : start + _HASH_BATCH])
            memories = self.store.get_many(ids)
            by_text: dict[str, list[str]] = {}
            for memory_id in dict.fromkeys(ids):
                memory = memories.get(memory_id)
                if memory is not None and not memory.is_system:
                    by_text.setdefault(normalise(memory.content), []).append(memory_id)
            for i in group:
                text = normalise(drafts[i].content)
                found[i] = next(
                    (m for m in by_text.get(text, []) if same_fields(memories[m], drafts[i], text)),
                    None,
                )
        return found

    # -- relations ---------------------------------------------------------------------------

    def _pairs(
        self, batch: SourceBatch, ids: Sequence[str | None]
    ) -> tuple[list[tuple[str, str, str, str]], list[Note]]:
        """The links a source's relations make: (from-side memory, to-side memory, kind,
        namespace). Every memory of one entity is linked to the first memory of the other,
        so each of them is one step from the other entity, without a link per pair."""
        memories: dict[str, list[str]] = {}
        namespace: dict[str, str] = {}
        for i, item in enumerate(batch.parsed.items):
            memory_id = ids[i]
            if item.entity is not None and memory_id is not None:
                if memory_id not in memories.setdefault(item.entity, []):
                    memories[item.entity].append(memory_id)
                namespace[memory_id] = batch.drafts[i].namespace
        pairs: dict[tuple[str, str, str], tuple[str, str, str, str]] = {}
        missed: list[Note] = []
        for relation in batch.parsed.relations:
            first, second = memories.get(relation.source), memories.get(relation.target)
            if not first or not second:
                missed.append(
                    Note(
                        where=relation.where,
                        what=f"relation {relation.source!r} {relation.kind} "
                        f"{relation.target!r} has no memory at one end (not imported)",
                    )
                )
                continue
            ends = [(a, second[0]) for a in first] + [(first[0], b) for b in second[1:]]
            for a, b in ends:
                low, high = sorted((a, b))
                if a != b and (low, high, relation.kind) not in pairs:
                    pairs[(low, high, relation.kind)] = (a, b, relation.kind, namespace[a])
        return list(pairs.values()), missed

    def _link_relations(
        self, batch: SourceBatch, ids: Sequence[str | None]
    ) -> tuple[int, int, list[Note]]:
        """Make the relations' links, a batch per transaction, each with its audit event
        naming the relation's `from` side first (a link itself has no direction). Links
        the store holds already (a re-import) are counted, not made again."""
        pairs, missed = self._pairs(batch, ids)
        made = held = 0
        for start in range(0, len(pairs), _LINK_BATCH):
            now = self._clock()
            with self.store.transaction() as tx:
                for a, b, kind, namespace in pairs[start : start + _LINK_BATCH]:
                    if tx.store.get_link(a, b, kind) is not None:
                        held += 1
                        continue
                    tx.upsert_link(Link.between(a, b, kind, 1.0, now))
                    tx.append_event(
                        op="link",
                        actor=IMPORT_ACTOR,
                        at=now,
                        memory_id=a,
                        namespace=namespace,
                        details={"other": b, "kind": kind, "confidence": 1.0},
                    )
                    made += 1
        return made, held, missed

    def _dry_run(
        self, batch: SourceBatch, report: SourceReport, skip_duplicates: bool
    ) -> SourceReport:
        """What an import would do, read-only: exact duplicates are found by their text's
        hash (near-duplicates and automatic links need the vectors, which only the import
        computes)."""
        twins = self._live_twins(batch.drafts, range(len(batch.drafts)))
        duplicates = 0
        seen: set[tuple[object, ...]] = set()
        # A memory still to be stored gets a stand-in id, one per distinct draft.
        stand_ins: dict[tuple[object, ...], str] = {}
        ids: list[str | None] = []
        for i, (twin, draft) in enumerate(zip(twins, batch.drafts, strict=True)):
            key = draft_key(draft)
            if skip_duplicates:
                duplicates += twin is not None or key in seen
                seen.add(key)
            ids.append(twin or stand_ins.setdefault(key, f"new:{i}"))
        pairs, missed = self._pairs(batch, ids)
        held = sum(
            1
            for a, b, kind, _ in pairs
            if not a.startswith("new:")
            and not b.startswith("new:")
            and self.store.get_link(a, b, kind) is not None
        )
        return report.model_copy(
            update={
                "imported": batch.memories - duplicates,
                "skipped_duplicates": duplicates,
                "links": len(pairs) - held,
                "links_held": held,
                "not_kept": [*batch.parsed.not_kept, *batch.purged, *missed],
            }
        )


def _without_purged(parsed: Parsed, drafts: list[Draft], purged: Purged) -> SourceBatch:
    """The batch without what this store purged: each one named where the source holds it."""
    if not purged.texts:
        return SourceBatch(parsed, drafts)
    kept = [(item, d) for item, d in zip(parsed.items, drafts, strict=True) if not purged.holds(d)]
    if len(kept) == len(drafts):
        return SourceBatch(parsed, drafts)
    notes = tuple(
        Note(
            where=item.where,
            what=f"purged from {d.namespace!r} before: an import does not bring it back",
            hint="if the person wants it again, they can remember it",
        )
        for item, d in zip(parsed.items, drafts, strict=True)
        if purged.holds(d)
    )
    left = replace(parsed, items=[item for item, _ in kept])
    return SourceBatch(left, [d for _, d in kept], notes)


def _hashes(content: str) -> tuple[str, str]:
    return sha256(content), sha256(normalise(content))
