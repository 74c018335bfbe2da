"""Corrections: `remember(..., supersedes=ID)` updates the memory it names in place, as a
version, in one transaction with links to near-duplicates of the new text and a `supersede`
event. A protected memory is never superseded silently."""

from __future__ import annotations

from typing import Any

from lethe.common import validate
from lethe.common.filters import Filters
from lethe.common.identifiers import DEFAULT_NAMESPACE
from lethe.engine.base import Core
from lethe.engine.duplicates import NEAR_DUPLICATE, near_items
from lethe.engine.versions import RETRIES, Versions
from lethe.errors import ChangedSincePlanned, ConfirmationRequired, InvalidInput
from lethe.forget.change import UpdatePlan, plan_change, state_sha256
from lethe.model import Link, Memory, Remembered
from lethe.store.rows import Provenance
from lethe.store.vectors import Vector


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


class Superseding:
    """`remember(..., supersedes=id)`: the new text becomes the old memory's next version."""

    def __init__(self, core: Core, versions: Versions) -> None:
        self._core = core
        self.store = core.store
        self.embedder = core.embedder
        self.settings = core.settings
        self._clock = core.clock
        self._versions = versions

    def supersede(
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
        changes = self._versions.validated(
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
            new = self._versions.write_version(
                tx,
                current,
                plan.changes,
                vector if "content" in plan.changes else None,
                Provenance(plan.actor, "supersede"),
                now,
                details,
            )
            found = tx.store.gists([i for i, _ in near])
            owed = self._core.owe(tx, [current, new])
        self._core.project([current, new], owed)
        return Remembered(
            **new.model_dump(),
            superseded=current.id,
            superseded_version=current.version,
            near_duplicates=near_items(near, found),
        )
