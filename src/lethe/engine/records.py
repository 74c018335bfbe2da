"""The audit log and the import/export of whole stores."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from lethe import validate
from lethe.engine.base import sha256
from lethe.engine.memories import MemoryOps, Progress
from lethe.engine.relations import RelationOps
from lethe.errors import InvalidInput, MemoryNotFound
from lethe.model import Draft, Episode, Event, ImportReport
from lethe.transfer import Export, parse_episode, parse_link, parse_record


class RecordOps(MemoryOps, RelationOps):
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

    def export_records(self) -> Export:
        """Every memory, link and episode as JSON-ready records (the JSONL export format).

        Iterate the result for the records; its `memories` count is there before the first
        one, for a progress bar.
        """
        return Export(self.store)

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
