"""Changing a memory without losing it: update and revert as versioned, planned changes,
and history.

Every change keeps the state it replaces as a version, in the transaction that makes the
change and writes its audit event. A change that would weaken protection (see
`forget/change.py`) is confirmed like a forget: the plan object handed back (`execute`),
or the same change asked twice by one session within the time-to-live (`confirm_change`, in
`change_confirm.py`).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from lethe.common import validate
from lethe.common.expiry import expiry, parse_instant
from lethe.common.identifiers import DEFAULT_AGENT
from lethe.engine.base import Core, sha256
from lethe.engine.expiring import Expiry
from lethe.errors import (
    ChangedSincePlanned,
    ConfirmationRequired,
    InvalidInput,
    MemoryNotFound,
    VersionNotFound,
)
from lethe.forget.change import (
    CHANGE_FIELDS,
    VERSIONED_FIELDS,
    Change,
    UpdatePlan,
    plan_change,
    protection_event_details,
    state_sha256,
    version_state,
)
from lethe.forget.guard import protections
from lethe.model import Memory, MemoryVersion
from lethe.store.base import StoreTx
from lethe.store.rows import Provenance
from lethe.store.vectors import Vector

MAX_VERSION = 2**31 - 1
RETRIES = 3
"""Times `update` plans again when another writer changed the memory in between."""


class Versions:
    """Changes to a memory's text and fields, each one a new version: plan, confirm, write;
    history and revert."""

    def __init__(self, core: Core, expiry: Expiry) -> None:
        self._core = core
        self.store = core.store
        self.embedder = core.embedder
        self.settings = core.settings
        self._clock = core.clock
        self._expiry = expiry

    # -- planning --------------------------------------------------------------------------

    def plan_update(
        self,
        memory_id: str,
        change: Change,
        *,
        actor: str | None = None,
        namespace: str | None = None,
    ) -> UpdatePlan:
        """Preview an update: what would change, and whether it needs a confirmation
        because it weakens a protection. Nothing changes until the plan is executed.

        What is asked is one `Change` (the facade also takes its fields as keywords, and
        builds it of them); `actor` is who asks, `namespace` where the memory must be.

        `expires_at` / `expires_in` set when the memory ends (as at `remember`), `no_expiry`
        removes its expiry. Setting an expiry, or bringing one forward, is a deletion: the
        plan needs the same confirmation as a forget (`ends`), and a protected memory refuses
        it as it refuses a forget. Extending or removing an expiry is an ordinary change.

        `metadata` replaces the whole object; `merge_metadata` sets only the keys it names.
        `expected_sha256`: the content hash the caller last saw (`ContentChanged` when the text
        changed since); executing the plan then checks the memory is still as planned.
        """
        if not isinstance(change, Change):
            raise InvalidInput(f"a change must be a Change, got {type(change).__name__}")
        metadata = change.metadata
        if metadata is not None and change.merge_metadata is not None:
            raise InvalidInput("give metadata (replace) or merge_metadata (merge), not both")
        sha = change.expected_sha256
        expected = None if sha is None else validate.sha256_hex(sha)
        self._core.expect(memory_id, expected)  # the lookup below expires what is due
        old = self.live_for_change(memory_id, namespace, "update")
        if change.merge_metadata is not None:
            metadata = {**old.metadata, **validate.metadata(change.merge_metadata)}
        given: dict[str, Any] = {
            "content": change.content,
            "layer": change.layer,
            "category": change.category,
            "tags": change.tags,
            "metadata": metadata,
            "importance": change.importance,
            "private": change.private,
            "expires_at": expiry(change.expires_at, change.expires_in, self._clock()),
        }
        changes: dict[str, Any] = {k: v for k, v in given.items() if v is not None}
        if change.no_expiry:
            if "expires_at" in changes:
                raise InvalidInput("give an expiry or no_expiry, not both")
            changes["expires_at"] = None
        plan = _refused_if_protected(
            plan_change(
                old,
                self.validated(changes),
                op="update",
                actor=self._actor(actor, old),
                reason=self._reason(change.reason),
                now=self._clock(),
            ),
            old,
        )
        return plan.model_copy(update={"expected_sha256": expected}) if expected else plan

    def validated(self, changes: dict[str, Any]) -> dict[str, Any]:
        """The new values of a change, each checked as `remember` checks it. Only the
        versioned fields can change; anything else is refused (a plan is data a caller holds
        and could edit)."""
        unknown = sorted(set(changes) - set(VERSIONED_FIELDS))
        if unknown:
            raise InvalidInput(
                f"cannot change {', '.join(unknown)}",
                hint=f"an update changes only {', '.join(VERSIONED_FIELDS)}",
            )
        checked: dict[str, Any] = {}
        for name, value in changes.items():
            if name == "content":
                checked[name] = validate.content(value, max_bytes=self.settings.max_content_bytes)
            elif name == "layer":
                checked[name] = validate.layer(value)
            elif name == "category":
                checked[name] = validate.label(value, "category", allow_empty=True)
            elif name == "tags":
                checked[name] = tuple(validate.tags(value))
            elif name == "metadata":
                checked[name] = validate.metadata(value)
            elif name == "importance":
                checked[name] = validate.unit_interval(value, "importance")
            elif name == "expires_at":
                checked[name] = None if value is None else parse_instant(value).astimezone(UTC)
            elif not isinstance(value, bool):
                raise InvalidInput(f"private must be true or false, got {value!r}")
            else:
                checked[name] = value
        return checked

    def plan_revert(
        self,
        memory_id: str,
        version: int,
        *,
        actor: str | None = None,
        namespace: str | None = None,
        reason: str | None = None,
        expected_sha256: str | None = None,
    ) -> UpdatePlan:
        """Preview making an earlier version current again (as a new version: the history
        keeps every state, the one reverted from included). `expected_sha256` as for
        `plan_update`."""
        if isinstance(version, bool) or not isinstance(version, int):
            raise InvalidInput(f"version must be a whole number, got {version!r}")
        if version < 1:
            raise InvalidInput(f"versions start at 1, got {version}")
        expected = None if expected_sha256 is None else validate.sha256_hex(expected_sha256)
        self._core.expect(memory_id, expected)  # the lookup below expires what is due
        memory = self.live_for_change(memory_id, namespace, "revert")
        versions = self.store.versions(memory.id) if version <= MAX_VERSION else []
        target = next((v for v in versions if v.version == version), None)
        if target is None:
            raise VersionNotFound(
                f"{memory_id} has no version {version}",
                hint=f"its versions are 1 to {memory.version}; see history({memory_id!r})",
            )
        plan = _refused_if_protected(
            plan_change(
                memory,
                self.validated(version_state(target)),
                op="revert",
                actor=self._actor(actor, memory),
                reason=self._reason(reason) or f"revert to version {version}",
                now=self._clock(),
                revert_to=version,
            ),
            memory,
        )
        return plan.model_copy(update={"expected_sha256": expected}) if expected else plan

    # -- reading -----------------------------------------------------------------------------

    def history(self, memory_id: str, *, namespace: str | None = None) -> list[MemoryVersion]:
        """Every state of a live memory, the current one first, then the earlier ones newest
        first, each with who made it, when and why. Versions are never recalled, listed or
        written to the workspace; purge erases them with the memory."""
        memory = self.live_for_change(memory_id, namespace, "read the history of")
        return self.store.versions(memory.id)

    # -- executing ---------------------------------------------------------------------------

    def update(
        self,
        memory_id: str,
        change: Change,
        *,
        actor: str | None = None,
        namespace: str | None = None,
    ) -> Memory:
        """Change a memory; the state it replaces is kept as a version (`history`, `revert`).
        What is asked is one `Change`, as for `plan_update`.

        `expected_sha256`: the content hash the caller last saw. When the text changed since,
        nothing is changed and `ContentChanged` says so, with the current hash and version.
        `expires_at` / `expires_in` / `no_expiry` as for `plan_update`: setting or bringing
        forward an expiry raises `ConfirmationRequired` with the plan, like a forget.

        A change that weakens protection (the text of a protected memory, a pin lowered below
        0.9, a move out of the caveat or goal layer) is not made here: it raises
        `ConfirmationRequired` carrying the plan, to execute with `execute(plan)` once the
        person has agreed.
        """
        for attempt in range(RETRIES):
            # Checked again on every try (in the plan): a retry follows another writer's change.
            plan = self.plan_update(memory_id, change, actor=actor, namespace=namespace)
            try:
                return self._unconfirmed(plan)
            except ChangedSincePlanned:
                # Another writer changed it between planning and applying: these values are
                # still what the caller asked for, so plan them again on the new state (a
                # change that now weakens protection then asks for confirmation).
                if attempt == RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    def revert(
        self,
        memory_id: str,
        version: int,
        *,
        actor: str | None = None,
        namespace: str | None = None,
        reason: str | None = None,
        expected_sha256: str | None = None,
    ) -> Memory:
        """Make an earlier version current again, as a new version. Confirmed like an update
        when it weakens protection (`ConfirmationRequired`)."""
        plan = self.plan_revert(
            memory_id,
            version,
            actor=actor,
            namespace=namespace,
            reason=reason,
            expected_sha256=expected_sha256,
        )
        return self._unconfirmed(plan)

    def _unconfirmed(self, plan: UpdatePlan) -> Memory:
        if plan.needs_confirmation:
            raise ConfirmationRequired(
                f"{plan.notes}",
                plan=plan,
                hint="show the plan to the person; if they agree, execute(plan) "
                "(CLI: --yes or answer the prompt; MCP: the same call again, or their answer)",
            )
        return self.execute_change(plan)

    def rederived(self, plan: UpdatePlan, current: Memory) -> UpdatePlan:
        """The plan as the memory and its own changes make it now. A plan is data its holder
        could edit: what executes is only ever what this says, and only when it is what was
        shown (the same memory, state and changes, hence the same confirmation hash)."""
        if not isinstance(plan, UpdatePlan):
            raise InvalidInput("execute needs the UpdatePlan of plan_update or plan_revert")
        if current.id != plan.memory_id or current.namespace != plan.namespace:
            raise MemoryNotFound(f"Memory not found: {plan.memory_id}")
        if state_sha256(current) != plan.base_sha256:
            raise ChangedSincePlanned(
                f"{plan.memory_id} changed since this change was planned "
                f"(version {plan.base_version} -> {current.version})",
                hint="plan it again on the current version",
            )
        again = plan_change(
            current,
            self.validated(dict(plan.changes)),
            op=plan.op,
            actor=validate.label(plan.actor, "actor"),
            reason=self._reason(plan.reason),
            now=plan.created_at,
            revert_to=plan.revert_to,
        )
        if again.confirmation_sha256 != plan.confirmation_sha256:
            raise InvalidInput(
                f"this plan for {plan.memory_id} was altered after it was made",
                hint="plan the change again and show that plan",
            )
        return again.model_copy(update={"id": plan.id, "expected_sha256": plan.expected_sha256})

    def execute_change(
        self, plan: UpdatePlan, *, confirmed_via: str | None = None, hold_expiry: bool = False
    ) -> Memory:
        """Apply a plan while the memory is still in the state it was planned from.
        `hold_expiry`: a person gave the go-ahead (a confirmation, or the plan shown to them
        and executed), so an expiry it sets is theirs (`Memory.expiry_held`)."""
        current = self.live_for_change(plan.memory_id, plan.namespace, "change")
        plan = self.rederived(plan, current)
        if not plan.changes:
            return current
        ttl = timedelta(seconds=self.settings.confirm_ttl_seconds)
        now = self._clock()
        if plan.needs_confirmation and now - plan.created_at > ttl:
            raise InvalidInput(
                f"the plan for {plan.memory_id} expired ({int(ttl.total_seconds())} s)",
                hint="plan the change again and show it before executing",
            )
        vector = None
        if "content" in plan.changes:
            vector = self.embedder.embed([plan.changes["content"]])[0]
        with self.store.transaction() as tx:
            found = tx.store.get(plan.memory_id)
            if found is None or found.status != "active":
                raise MemoryNotFound(
                    f"Memory not found: {plan.memory_id}", hint="it was forgotten or purged"
                )
            current = found
            if plan.expected_sha256 is not None:  # the precondition, again at write time
                self._core.precondition(current, plan.expected_sha256)
            if state_sha256(current) != plan.base_sha256:
                raise ChangedSincePlanned(
                    f"{plan.memory_id} changed while this change was applied "
                    f"(version {plan.base_version} -> {current.version})",
                    hint="plan it again on the current version",
                )
            details: dict[str, Any] = {}
            if plan.revert_to is not None:
                details["reverted_to"] = plan.revert_to
            if plan.needs_confirmation:
                details["confirmed"] = confirmed_via or "plan"
                details["plan"] = plan.id
            new = self.write_version(
                tx,
                current,
                plan.changes,
                vector,
                Provenance(plan.actor, plan.op, plan.reason),
                now,
                details,
                hold=hold_expiry,
            )
            owed = self._core.owe(tx, [current, new])
        self._core.project([current, new], owed)
        return new

    def write_version(
        self,
        tx: StoreTx,
        current: Memory,
        changes: dict[str, Any],
        vector: Vector | None,
        made: Provenance,
        now: datetime,
        details: dict[str, Any],
        *,
        hold: bool = False,
    ) -> Memory:
        """Inside a change's transaction: keep the current state as a version, make the
        changed one current (with `vector` when the text changed) and append the audit event
        (op, actor and reason from `made`; `details` added to what every change records).
        `hold`: a person gave the go-ahead, so an expiry it sets is theirs (held). A held
        expiry brought forward by anyone stays held: the person's date still bounds it."""
        # A clock that stepped back must not make a version end before it began.
        now = max(now, current.updated_at)
        update: dict[str, Any] = {**changes, "updated_at": now, "version": current.version + 1}
        if "expires_at" in changes:  # who chose the new expiry, and when
            ends = changes["expires_at"] is not None
            update["expiry_set_by"] = made.actor if ends else None
            update["expiry_set_at"] = now if ends else None
            new_end = changes["expires_at"]
            earlier = (
                current.expiry_held
                and current.expires_at is not None
                and new_end is not None
                and new_end <= current.expires_at
            )
            update["expiry_held"] = ends and (hold or earlier)
        if "content" in changes:
            update["content_sha256"] = sha256(changes["content"])
        new = current.model_copy(update=update)
        tx.keep_version(current.id, now)
        tx.update_memory(new, vector, made)
        tx.append_event(
            op=made.op,
            actor=made.actor,
            at=now,
            memory_id=current.id,
            namespace=current.namespace,
            reason=made.reason,
            details={
                "fields": sorted(changes),
                "old_sha256": current.content_sha256,
                "version": new.version,
                "from_version": current.version,
                **protection_event_details(current, new),
                **details,
            },
            content_sha256=new.content_sha256,
        )
        return new

    # -- helpers -----------------------------------------------------------------------------

    def live_for_change(self, memory_id: str, namespace: str | None, verb: str) -> Memory:
        """A live memory, or an error that says whether it is in the trash."""
        validate.memory_id(memory_id)
        ns = validate.namespace(namespace) if namespace is not None else None
        self._expiry.expire_due()
        memory = self.store.get(memory_id)
        if memory is None or (ns is not None and memory.namespace != ns):
            raise MemoryNotFound(
                f"Memory not found: {memory_id}", hint="search for it with recall or list"
            )
        if memory.status != "active":
            raise MemoryNotFound(
                f"{memory_id} is in the trash; cannot {verb} it",
                hint=f"restore({memory_id!r}) first",
            )
        return memory

    def _actor(self, actor: str | None, memory: Memory) -> str:
        return validate.label(actor, "actor") if actor else memory.agent or DEFAULT_AGENT

    def _reason(self, reason: str | None) -> str | None:
        if reason is None:
            return None
        return validate.label(reason, "reason", allow_empty=True) or None


def _refused_if_protected(plan: UpdatePlan, memory: Memory) -> UpdatePlan:
    """An expiry set or brought forward on a protected memory is refused like a forget of
    it, with the same hint: protection is lifted first, by its own confirmed change."""
    if plan.ends is None:
        return plan
    found = protections(memory.id, memory.layer, memory.importance)
    if not found:
        return plan
    raise InvalidInput(
        f"{plan.memory_id} is protected ({found[0].reason}): an expiry would forget it, which "
        "protection refuses; nothing was changed",
        hint=found[0].hint,
    )


def asked(change: Change | None, **given: Any) -> Change:
    """The change a caller of the facade asked for: `change` whole, or the keywords of
    `update` / `plan_update` (a `Change` of them); both at once is refused."""
    built = Change(**given)
    if change is None:
        return built
    if not isinstance(change, Change):
        raise InvalidInput(f"change must be a Change, got {type(change).__name__}")
    if built.given:
        named = ", ".join(n for n in CHANGE_FIELDS if getattr(built, n) != getattr(Change(), n))
        raise InvalidInput(
            f"give a change or its fields ({named}), not both",
            hint="put every field in the Change",
        )
    return change
