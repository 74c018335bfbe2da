"""Decay sweeps (seed 003) held back by policy (seed 004): plan in bulk, execute only under
`auto`, as one audited operation whose every effect can be restored from the trash."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from lethe import validate
from lethe.engine.memories import MemoryOps
from lethe.engine.trash import TrashOps
from lethe.errors import InvalidInput
from lethe.forget.decay import extractive_summary
from lethe.forget.guard import PROTECTED_LAYERS, protection
from lethe.forget.sweep import SweepItem, SweepPlan, SweepResult, build_plan, result_notes
from lethe.model import DEFAULT_AGENT, DEFAULT_NAMESPACE, Draft, Link, Memory, new_memory_id
from lethe.store.base import StoreTx

SUMMARY_AGENT = "lethe"


class SweepOps(TrashOps, MemoryOps):
    def sweep(self, *, namespace: str = DEFAULT_NAMESPACE, actor: str = DEFAULT_AGENT) -> SweepPlan:
        """Score every live memory of the namespace (heat, risk) and say what the policy would
        compress or drop. Never changes the store, whatever the policy."""
        namespace = validate.namespace(namespace)
        actor = validate.label(actor, "actor")
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

    def execute_sweep(self, plan: SweepPlan, *, actor: str | None = None) -> SweepResult:
        """Apply a sweep plan, only under the `auto` policy: drops become soft deletes, and the
        compressed memories become one summary memory (layer `learning`) that takes over their
        links, with the originals in the trash. A memory recalled, changed or protected since
        the plan is left alone."""
        if not isinstance(plan, SweepPlan):
            raise InvalidInput("execute_sweep needs the SweepPlan returned by sweep()")
        policy = self.settings.decay_policy
        if policy != "auto":
            raise InvalidInput(
                f"the decay policy is {policy!r}, so sweeps only report",
                hint="set decay_policy = auto (LETHE_DECAY_POLICY=auto) to let a sweep "
                "forget, or forget the ids you choose yourself",
            )
        who = validate.label(actor, "actor") if actor else plan.actor
        now = self._clock()
        if now - plan.created_at > timedelta(seconds=self.settings.confirm_ttl_seconds):
            raise InvalidInput("the sweep plan expired", hint="run sweep again and review it")
        live = self.store.get_many([i.id for i in plan.items])
        drops: list[tuple[SweepItem, Memory]] = []
        compresses: list[tuple[SweepItem, Memory]] = []
        skipped: list[str] = []
        for item in plan.items:
            memory = live.get(item.id)
            if memory is None or protection(memory) or _touched_since(memory, plan):
                skipped.append(item.id)
            else:
                (drops if item.action == "drop" else compresses).append((item, memory))
        if len(compresses) == 1:  # a summary of one memory only loses words: keep it
            skipped.append(compresses.pop()[0].id)
        private = any(m.private for _, m in compresses)
        contents = [m.content for _, m in compresses]
        summary_text = self._summary(contents, private=private) if compresses else ""
        vector = self.embedder.embed([summary_text])[0] if compresses else None
        touched: list[Memory] = []
        summary: Memory | None = None
        with self.store.transaction() as tx:
            for item, memory in drops:
                reason = f"decay sweep {plan.id}: risk {item.risk:g}, heat {item.heat:g}"
                self._sweep_forget(tx, memory, item, plan, who, now, reason, {})
                touched.append(memory)
            if compresses:
                assert vector is not None
                summary, _ = self._insert(
                    tx,
                    Draft(
                        content=summary_text,
                        namespace=plan.namespace,
                        agent=SUMMARY_AGENT,
                        layer="learning",
                        category="summary",
                        metadata={"summarizes": [m.id for _, m in compresses], "sweep": plan.id},
                        importance=max(m.importance for _, m in compresses),
                        private=private,
                    ),
                    new_memory_id(),
                    vector,
                    [],
                )
                merged = {m.id for _, m in compresses}
                for item, memory in compresses:
                    for link in tx.store.links_of(memory.id):
                        other = link.other(memory.id)
                        if other not in merged:
                            tx.upsert_link(
                                Link.between(summary.id, other, link.kind, link.confidence, now)
                            )
                    reason = f"compressed into {summary.id} by decay sweep {plan.id}"
                    extra = {"summary": summary.id}
                    self._sweep_forget(tx, memory, item, plan, who, now, reason, extra)
                    touched.append(memory)
            tx.append_event(
                op="sweep",
                actor=who,
                at=now,
                namespace=plan.namespace,
                details={
                    "plan": plan.id,
                    "dropped": [m.id for _, m in drops],
                    "compressed": [m.id for _, m in compresses],
                    "summary": summary.id if summary else None,
                    "skipped": skipped,
                },
            )
        self._project([*touched, *([summary] if summary else [])])
        dropped, compressed = tuple(m.id for _, m in drops), tuple(m.id for _, m in compresses)
        return SweepResult(
            plan_id=plan.id,
            namespace=plan.namespace,
            dropped=dropped,
            compressed=compressed,
            summary_id=summary.id if summary else None,
            skipped=tuple(skipped),
            notes=result_notes(dropped, compressed, skipped),
        )

    def _summary(self, contents: list[str], *, private: bool) -> str:
        """LLM-written when an endpoint is configured (a failure stops the sweep before it
        changes anything), else extractive: the memories' own first sentences. Private
        memories are never sent to an endpoint, and their summary is private too."""
        settings = self.settings
        if settings.llm_base_url and settings.llm_model and not private:
            from lethe.forget.agent import summarize

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


def _touched_since(memory: Memory, plan: SweepPlan) -> bool:
    accessed = memory.last_accessed_at
    return memory.updated_at > plan.created_at or (
        accessed is not None and accessed > plan.created_at
    )
