"""Working memory operations: attend (add, evicting over budget) and context (read)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from lethe.common import validate
from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE
from lethe.config import Settings
from lethe.embed import Embedder
from lethe.engine.base import Clock
from lethe.engine.expiring import Expiry
from lethe.engine.working_set import Entry, Slot, WorkingContext, choose_evictions, context_of
from lethe.errors import InvalidInput, MemoryNotFound
from lethe.model import Memory
from lethe.store.base import Store, StoreTx

MAX_ATTEND = 100


class Working:
    """Each agent's working memory: what enters it, what is evicted, what it holds."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        clock: Clock,
        expiry: Expiry,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self._clock = clock
        self._expiry = expiry

    def context(
        self, agent: str = DEFAULT_AGENT, *, namespace: str = DEFAULT_NAMESPACE
    ) -> WorkingContext:
        """An agent's working memory, most valuable first; `.text` is ready for a prompt."""
        agent, namespace = validate.label(agent, "agent"), validate.namespace(namespace)
        self._expiry.expire_due()
        slots = self._slots(agent, namespace)
        return context_of(agent, namespace, self._budget(), slots, self._clock())

    def attend(
        self,
        memory_ids: Sequence[str] | str,
        *,
        agent: str = DEFAULT_AGENT,
        namespace: str = DEFAULT_NAMESPACE,
        actor: str | None = None,
    ) -> WorkingContext:
        """Bring memories into an agent's working memory. Over the token budget, the least
        valuable items are evicted: from working memory only (audited as `evict`, by `actor`,
        default the agent); the memories stay in long-term storage, recallable."""
        agent, namespace = validate.label(agent, "agent"), validate.namespace(namespace)
        who = validate.label(actor, "actor") if actor else agent
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        if len(ids) > MAX_ATTEND:
            raise InvalidInput(f"at most {MAX_ATTEND} memories at a time, got {len(ids)}")
        ids = list(dict.fromkeys(validate.memory_id(i) for i in ids))
        found = {i: m for i, m in self.store.get_many(ids).items() if m.namespace == namespace}
        missing = [i for i in ids if i not in found]
        if missing:
            raise MemoryNotFound(
                f"Memory not found in namespace {namespace!r}: {', '.join(missing)}",
                hint="attend takes live memories of the agent's namespace",
            )
        budget = self._budget()
        tokens = {i: self.embedder.count_tokens(found[i].content) for i in ids}
        too_large = [i for i in ids if tokens[i] > budget]
        admitted = [i for i in ids if i not in too_large]
        now = self._clock()
        with self.store.transaction() as tx:
            for memory_id in admitted:
                tx.working_put(agent, namespace, memory_id, tokens[memory_id], now)
            # Its answer shows the whole set: read once, and weighed from what was read.
            slots = [Slot(m, t, at) for m, t, at in tx.store.working_set(agent, namespace)]
            gone = set(self._evict(tx, agent, namespace, [s.entry for s in slots], now, who))
        kept = [s for s in slots if s.memory.id not in gone]
        return context_of(
            agent, namespace, budget, kept, now, evicted=sorted(gone), too_large=too_large
        )

    def _evict(
        self,
        tx: StoreTx,
        agent: str,
        namespace: str,
        entries: Sequence[Entry],
        now: datetime,
        actor: str,
    ) -> list[str]:
        """Evict the least valuable entries until the set fits the budget; the ids evicted."""
        budget = self._budget()
        evicted = choose_evictions(entries, budget, now)
        for entry in evicted:
            tx.working_drop(agent, namespace, entry.memory_id)
            tx.append_event(
                op="evict",
                actor=actor,
                at=now,
                memory_id=entry.memory_id,
                namespace=namespace,
                details={"agent": agent, "tokens": entry.tokens, "budget": budget},
            )
        return [e.memory_id for e in evicted]

    def entered(self, tx: StoreTx, memory: Memory, actor: str) -> None:
        """A new memory enters its agent's working memory. Eviction weighs a few columns of
        each entry (`working_entries`), never the set's memories: this runs in every remember."""
        tokens = self.embedder.count_tokens(memory.content)
        if tokens > self._budget():
            return
        agent, namespace, now = memory.agent, memory.namespace, memory.created_at
        tx.working_put(agent, namespace, memory.id, tokens, now)
        entries = [Entry(*row) for row in tx.store.working_entries(agent, namespace)]
        self._evict(tx, agent, namespace, entries, now, actor)

    def bring_back(self, agent: str, namespace: str, memory_ids: Sequence[str]) -> None:
        self.attend(memory_ids, agent=agent, namespace=namespace)

    def _slots(self, agent: str, namespace: str) -> list[Slot]:
        return [Slot(m, t, at) for m, t, at in self.store.working_set(agent, namespace)]

    def _budget(self) -> int:
        return self.settings.working_budget_tokens
