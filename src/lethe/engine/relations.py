"""Links between memories and episodes that group them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from lethe.common import validate
from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE, new_episode_id
from lethe.config import Settings
from lethe.engine.base import Clock, sha256
from lethe.engine.past import Past
from lethe.errors import EpisodeNotFound, InvalidInput, LinkNotFound
from lethe.model import Episode, EpisodeView, Link, Memory
from lethe.store.base import Store


class Relations:
    """Links between memories and episodes that group them."""

    def __init__(self, store: Store, settings: Settings, clock: Clock, past: Past) -> None:
        self.store = store
        self.settings = settings
        self._clock = clock
        self._past = past

    def link(
        self,
        a: str,
        b: str,
        *,
        kind: str = "related",
        confidence: float = 1.0,
        actor: str = DEFAULT_AGENT,
        namespace: str | None = None,
    ) -> Link:
        """Link two live memories of one namespace (re-linking sets the new confidence)."""
        kind = validate.label(kind, "link kind")
        confidence = validate.unit_interval(confidence, "confidence")
        first, _ = self._pair(a, b, namespace)
        now = self._clock()
        existing = self.store.get_link(a, b, kind)
        link = Link.between(a, b, kind, confidence, now)
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

    def links(self, memory_id: str, *, namespace: str | None = None) -> list[Link]:
        self._past.get(memory_id, namespace=namespace)
        return self.store.links_of(memory_id)

    def neighbours(
        self, memory_id: str, *, namespace: str | None = None
    ) -> list[tuple[Link, Memory]]:
        """The live memories linked to a live one, with their links, strongest first."""
        links = self.links(memory_id, namespace=namespace)
        others = self.store.get_many([lk.other(memory_id) for lk in links])
        live = [(lk, others[lk.other(memory_id)]) for lk in links if lk.other(memory_id) in others]
        live.sort(key=lambda pair: (-pair[0].confidence, pair[1].id))
        return live

    def _pair(self, a: str, b: str, namespace: str | None = None) -> tuple[Memory, Memory]:
        first, second = (
            self._past.get(a, namespace=namespace),
            self._past.get(b, namespace=namespace),
        )
        if a == b:
            raise InvalidInput("a memory cannot be linked to itself")
        if first.namespace != second.namespace:
            raise InvalidInput(
                f"{a} is in namespace {first.namespace!r} and {b} in {second.namespace!r}",
                hint="links never cross namespaces",
            )
        return first, second

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
        members = [self._past.get(i, namespace=namespace) for i in dict.fromkeys(memory_ids)]
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

    def episodes_of(self, memory_id: str, *, namespace: str | None = None) -> list[Episode]:
        """The episodes a live memory belongs to, earliest first."""
        return self.store.episodes_of(self._past.get(memory_id, namespace=namespace).id)

    def get_episode(self, episode_id: str, *, namespace: str | None = None) -> EpisodeView:
        found = self.store.episode(validate.episode_id(episode_id))
        if found is None or (namespace is not None and found[0].namespace != namespace):
            raise EpisodeNotFound(f"Episode not found: {episode_id}")
        episode, members, missing = found
        return EpisodeView(episode=episode, members=tuple(members), missing=missing)
