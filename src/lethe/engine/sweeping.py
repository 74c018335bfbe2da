"""Decay sweeps (seed 003) held back by policy (seed 004): plan in bulk, execute only under
`auto`, as one audited operation whose every effect can be restored from the trash."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

import numpy as np

from lethe.common import validate
from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE, new_memory_id
from lethe.engine.base import Core
from lethe.engine.expiring import Expiry
from lethe.engine.memories import Memories
from lethe.engine.past import Past
from lethe.errors import InvalidInput
from lethe.forget.decay import extractive_summary
from lethe.forget.guard import PROTECTED_LAYERS, protection
from lethe.forget.sweep import (
    SweepItem,
    SweepPlan,
    SweepResult,
    Vitality,
    build_plan,
    result_notes,
    vitality,
)
from lethe.model import Draft, Link, Memory
from lethe.store.base import DecayColumns, StoreTx
from lethe.store.vectors import Vector

SUMMARY_AGENT = "lethe"
SUMMARY_GROUP = 20
"""Memories per summary: enough to save space, few enough that a summary stays readable."""


class Sweeping:
    """Decay: a sweep plans what has faded, and merges or forgets it once confirmed."""

    def __init__(self, core: Core, expiry: Expiry, past: Past, memories: Memories) -> None:
        self._core = core
        self.store = core.store
        self.embedder = core.embedder
        self.settings = core.settings
        self._clock = core.clock
        self._expiry = expiry
        self._past = past
        self._memories = memories

    def sweep(self, *, namespace: str = DEFAULT_NAMESPACE, actor: str = DEFAULT_AGENT) -> SweepPlan:
        """Score every live memory of the namespace (heat, risk) and say what the policy would
        compress or drop. Never changes the store, whatever the policy."""
        namespace = validate.namespace(namespace)
        actor = validate.label(actor, "actor")
        self._expiry.expire_due()
        now = self._clock()
        columns = self.store.decay_columns(namespace, now, sorted(PROTECTED_LAYERS))
        return build_plan(
            columns,
            namespace=namespace,
            policy=self.settings.decay_policy,
            now=now,
            actor=actor,
            compress_at=self.settings.decay_compress_risk,
            drop_at=self.settings.decay_drop_risk,
        )

    def vitality(self, memory_id: str, *, namespace: str | None = None) -> Vitality:
        """A live memory's heat and forgetting risk today, scored as a sweep scores it."""
        memory = self._past.get(memory_id, namespace=namespace)
        now = self._clock()
        last30, last90 = self.store.recent_accesses(memory.id, now)
        last = memory.last_accessed_at or memory.created_at
        kept = memory.layer in PROTECTED_LAYERS or memory.id.startswith("sys_")
        columns = DecayColumns(
            ids=[memory.id],
            importance=np.array([memory.importance]),
            last_access_at=np.array([last.timestamp()]),
            accesses_total=np.array([float(memory.access_count)]),
            accesses_30d=np.array([float(last30)]),
            accesses_90d=np.array([float(last90)]),
            always_kept=np.array([kept]),
        )
        return vitality(
            columns,
            now,
            compress_at=self.settings.decay_compress_risk,
            drop_at=self.settings.decay_drop_risk,
        )

    def execute_sweep(self, plan: SweepPlan, *, actor: str | None = None) -> SweepResult:
        """Apply a sweep plan, only under the `auto` policy: drops become soft deletes, and the
        compressed memories become summary memories (layer `learning`, at most
        `SUMMARY_GROUP` originals each) that take over their links, with the originals in the
        trash. Every target is checked again inside the transaction: one recalled, changed,
        protected or gone since the plan is left alone."""
        if not isinstance(plan, SweepPlan):
            raise InvalidInput("execute_sweep needs the SweepPlan returned by sweep()")
        self.check_sweep_allowed()
        who = validate.label(actor, "actor") if actor else plan.actor
        now = self._clock()
        if now - plan.created_at > timedelta(seconds=self.settings.confirm_ttl_seconds):
            raise InvalidInput("the sweep plan expired", hint="run sweep again and review it")
        live = self.store.get_many([i.id for i in plan.items])
        skipped: list[str] = [i.id for i in plan.items if i.id not in live]
        drops = [(i, live[i.id]) for i in plan.items if i.action == "drop" and i.id in live]
        compressing = [
            (i, live[i.id]) for i in plan.items if i.action == "compress" and i.id in live
        ]
        # A memory that ends when its owner said is never folded into a summary that would
        # outlive it: it stays as it is until its expiry (or a drop) takes it.
        skipped += [i.id for i, m in compressing if m.expires_at is not None]
        groups = _groups([(i, m) for i, m in compressing if m.expires_at is None])
        skipped += [g[0][0].id for g in groups if len(g) == 1]  # one memory: nothing to merge
        groups = [g for g in groups if len(g) > 1]
        # Summaries are written (and embedded) before the transaction: an LLM that fails or
        # writes too much stops the sweep before anything changed.
        summaries = []
        for group in groups:
            private = any(m.private for _, m in group)
            text = validate.content(
                self._summary([m.content for _, m in group], private=private),
                max_bytes=self.settings.max_content_bytes,
                what="summary",
            )
            summaries.append((group, text, private))
        vectors = list(self.embedder.embed([text for _, text, _ in summaries])) if summaries else []
        touched: list[Memory] = []
        made: list[Memory] = []
        dropped: list[str] = []
        compressed: list[str] = []
        with self.store.transaction() as tx:

            def still_due(memory: Memory) -> bool:
                current = tx.store.get(memory.id)
                return (
                    current is not None
                    and current.status == "active"
                    and current.content_sha256 == memory.content_sha256
                    and not protection(current)
                    and not _touched_since(current, plan)
                )

            for item, memory in drops:
                if not still_due(memory):
                    skipped.append(item.id)
                    continue
                reason = f"decay sweep {plan.id}: risk {item.risk:g}, heat {item.heat:g}"
                self._sweep_forget(tx, memory, item, plan, who, now, reason, {})
                touched.append(memory)
                dropped.append(memory.id)
            for (group, text, private), vector in zip(summaries, vectors, strict=True):
                if not all(still_due(m) for _, m in group):
                    skipped += [m.id for _, m in group]  # the summary was written for all
                    continue
                summary = self._merge(tx, plan, group, text, private, vector, who, now)
                made.append(summary)
                touched += [m for _, m in group]
                compressed += [m.id for _, m in group]
            tx.append_event(
                op="sweep",
                actor=who,
                at=now,
                namespace=plan.namespace,
                details={
                    "plan": plan.id,
                    "dropped": dropped,
                    "compressed": compressed,
                    "summaries": [m.id for m in made],
                    "skipped": skipped,
                },
            )
            owed = self._core.owe(tx, [*touched, *made])
        self._core.project([*touched, *made], owed)
        return SweepResult(
            plan_id=plan.id,
            namespace=plan.namespace,
            dropped=tuple(dropped),
            compressed=tuple(compressed),
            summary_ids=tuple(m.id for m in made),
            skipped=tuple(skipped),
            notes=result_notes(dropped, compressed, skipped),
        )

    def sweep_asked(self, plan: SweepPlan, *, session: str, actor: str) -> None:
        """Record that the human behind `session` is being asked whether to carry out this
        sweep (one event for the plan, as a forget records its question)."""
        self._sweep_event(plan, "confirmation_requested", session, actor, {"via": "elicitation"})

    def sweep_declined(
        self,
        plan: SweepPlan,
        *,
        session: str,
        actor: str,
        answer: Literal["decline", "cancel", "accept_without_content"] = "decline",
    ) -> None:
        """The human said no to a sweep: nothing is forgotten, and that is on the record."""
        self._sweep_event(plan, "forget_declined", session, actor, {"answer": answer})

    def _sweep_event(
        self, plan: SweepPlan, op: str, session: str, actor: str, extra: dict[str, Any]
    ) -> None:
        if not isinstance(plan, SweepPlan):
            raise InvalidInput("needs the SweepPlan of sweep()")
        with self.store.transaction() as tx:
            tx.append_event(
                op=op,
                actor=validate.label(actor, "actor"),
                at=self._clock(),
                namespace=plan.namespace,
                details={
                    "operation": "sweep",
                    "plan": plan.id,
                    "session": validate.label(session, "session"),
                    "drop": plan.drop,
                    "compress": plan.compress,
                    **extra,
                },
            )

    def check_sweep_allowed(self) -> None:
        """Refuse unless the decay policy lets sweeps execute (`auto`)."""
        policy = self.settings.decay_policy
        if policy != "auto":
            raise InvalidInput(
                f"the decay policy is {policy!r}, so sweeps only report",
                hint="set decay_policy = auto (LETHE_DECAY_POLICY=auto) to let a sweep "
                "forget, or forget the ids you choose yourself",
            )

    def _merge(
        self,
        tx: StoreTx,
        plan: SweepPlan,
        group: list[tuple[SweepItem, Memory]],
        text: str,
        private: bool,
        vector: Vector,
        actor: str,
        now: datetime,
    ) -> Memory:
        """One summary memory for a group: it takes over their links; they go to the trash."""
        summary, _, _ = self._memories.insert(
            tx,
            Draft(
                content=text,
                namespace=plan.namespace,
                agent=SUMMARY_AGENT,
                layer="learning",
                category="summary",
                metadata={"summarizes": [m.id for _, m in group], "sweep": plan.id},
                importance=max(m.importance for _, m in group),
                private=private,
            ),
            new_memory_id(),
            vector,
            [],
            actor,
        )
        merged = {m.id for _, m in group}
        for item, memory in group:
            for link in tx.store.links_of(memory.id):
                other = link.other(memory.id)
                if other not in merged:
                    tx.upsert_link(Link.between(summary.id, other, link.kind, link.confidence, now))
            reason = f"compressed into {summary.id} by decay sweep {plan.id}"
            self._sweep_forget(tx, memory, item, plan, actor, now, reason, {"summary": summary.id})
        return summary

    def _summary(self, contents: list[str], *, private: bool) -> str:
        """LLM-written when an endpoint is configured (a failure stops the sweep before it
        changes anything), else extractive: the memories' own first sentences. Private
        memories are never sent to an endpoint, and their summary is private too."""
        settings = self.settings
        if settings.llm_base_url and settings.llm_model and not private:
            from lethe.engine.forget_agent import summarize

            return summarize(
                contents,
                base_url=settings.llm_base_url,
                model=settings.llm_model,
                api_key=settings.llm_api_key,
            )
        return extractive_summary(contents)

    def _sweep_forget(
        self,
        tx: StoreTx,
        memory: Memory,
        item: SweepItem,
        plan: SweepPlan,
        actor: str,
        now: datetime,
        reason: str,
        extra: dict[str, Any],
    ) -> None:
        tx.set_forgotten(memory.id, at=now, actor=actor, reason=reason)
        tx.append_event(
            op="forget",
            actor=actor,
            at=now,
            memory_id=memory.id,
            namespace=memory.namespace,
            reason=reason,
            details={"tier": "decay", "sweep": plan.id, "risk": item.risk, "heat": item.heat}
            | extra,
            content_sha256=memory.content_sha256,
        )


def _groups(items: list[tuple[SweepItem, Memory]]) -> list[list[tuple[SweepItem, Memory]]]:
    """Compressions in bounded groups, one summary each: memories of one agent, private ones
    apart from the rest (a private summary never holds public memories' words and vice
    versa), oldest first, at most SUMMARY_GROUP per summary."""
    by_kind: dict[tuple[str, bool], list[tuple[SweepItem, Memory]]] = {}
    for item, memory in sorted(items, key=lambda pair: pair[1].created_at):
        by_kind.setdefault((memory.agent, memory.private), []).append((item, memory))
    return [
        members[start : start + SUMMARY_GROUP]
        for members in by_kind.values()
        for start in range(0, len(members), SUMMARY_GROUP)
    ]


def _touched_since(memory: Memory, plan: SweepPlan) -> bool:
    accessed = memory.last_accessed_at
    return memory.updated_at > plan.created_at or (
        accessed is not None and accessed > plan.created_at
    )
