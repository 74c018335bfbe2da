"""Changes to a memory that weaken what protects it, planned like a deletion.

An update never destroys (the earlier state is kept as a version), but it can still take a
memory out of reach of protection: lower a pin, move a caveat out of its layer, or rewrite
the text of a memory that may not be forgotten. Such a change is the first half of a
deletion, so it is planned and confirmed like one (two calls from one session, a human's
answer, a terminal prompt, or the plan object handed back). Everything else about an update
is an ordinary, versioned change.

Planning is pure: this module decides from the memory and the change; the engine reads,
writes and confirms.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from itertools import pairwise
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from lethe.forget.guard import Protection, protections
from lethe.model import Memory, MemoryVersion

VERSIONED_FIELDS = (
    "content",
    "layer",
    "category",
    "tags",
    "metadata",
    "importance",
    "private",
    "expires_at",
)
"""What a version keeps and a revert brings back. `agent` (whose memory it is) is never
changed by an update."""
PROTECTION_FIELDS = ("layer", "importance")
"""The fields whose old and new values every update event records: they decide protection."""

ChangeOp = Literal["update", "revert"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class FieldChange(_Frozen):
    field: str
    old: Any
    new: Any


class UpdatePlan(_Frozen):
    """What an update or revert would change, and whether it needs a confirmation.

    Execute it with `Lethe.execute(plan)`; it applies only while the memory is still in the
    state it was planned from (`base_version`, `base_sha256`).
    """

    id: str
    op: ChangeOp
    memory_id: str
    namespace: str
    created_at: datetime
    actor: str
    reason: str | None = None
    base_version: int
    base_sha256: str
    """The memory's state when planned (content and every versioned field)."""
    changes: dict[str, Any]
    """The new values, validated; empty when nothing would change."""
    diff: tuple[FieldChange, ...]
    revert_to: int | None = None
    preview: str
    protection: str | None = None
    """What protects the memory now (None: nothing)."""
    lost: tuple[str, ...] = ()
    """The protections this change would take away."""
    ends: datetime | None = None
    """The expiry this change sets or brings forward: from then on the memory leaves every
    read, so the change is confirmed like a forget (extending or removing one is not)."""
    needs_confirmation: bool
    confirmation_sha256: str
    """The state and the change together: what a two-call confirmation previews."""
    notes: str
    expected_sha256: str | None = None
    """The request's precondition: the content hash the caller last saw. Checked when the
    plan is made (`ContentChanged`) and again inside the transaction that applies it."""

    @property
    def changed(self) -> bool:
        return bool(self.changes)


class ChangeConfirmation(_Frozen):
    """The answer to one two-call request for a protected change."""

    status: Literal["executed", "pending"]
    session: str
    plan: UpdatePlan
    memory: Memory
    """The memory after the change when executed; as it stands when pending."""
    changed_since_preview: bool = False
    """This session had asked for another change (or the memory changed) since its first
    call: previewed again, not executed."""
    expires_in_seconds: int
    message: str


CHANGE_FIELDS = (
    "content",
    "layer",
    "category",
    "tags",
    "metadata",
    "merge_metadata",
    "importance",
    "private",
    "reason",
    "expires_at",
    "expires_in",
    "no_expiry",
    "expected_sha256",
)
"""What a `Change` carries: what `update` / `plan_update` take besides who asks (`actor`) and
where (`namespace`)."""


@dataclass(frozen=True)
class Change:
    """One change asked of a memory, as a value: what `update` / `plan_update` take (None:
    left as it is). A face builds it from its arguments and hands it to the engine whole.

    It holds the values as given: the engine checks them where it takes the change (the same
    `InvalidInput` as the keywords of `update`). `metadata` replaces the whole object,
    `merge_metadata` sets only the keys it names; `expires_at` / `expires_in` set when the
    memory ends, `no_expiry` removes its expiry; `reason` is what the audit log records;
    `expected_sha256` is the request's precondition: the content hash the caller last saw.
    Tags given as a list (or any iterable but text and a mapping) are kept as a tuple."""

    content: str | None = None
    layer: str | None = None
    category: str | None = None
    tags: Iterable[str] | str | None = None
    metadata: dict[str, Any] | None = None
    merge_metadata: dict[str, Any] | None = None
    importance: float | None = None
    private: bool | None = None
    reason: str | None = None
    expires_at: datetime | str | None = None
    expires_in: timedelta | str | None = None
    no_expiry: bool = False
    expected_sha256: str | None = None

    def __post_init__(self) -> None:
        tags = self.tags  # read once: a generator would be empty when planned again
        if isinstance(tags, Iterable) and not isinstance(tags, str | Mapping | tuple):
            object.__setattr__(self, "tags", tuple(tags))

    @property
    def given(self) -> bool:
        """Whether it asks for anything at all (a field other than its default)."""
        return any(getattr(self, f.name) != f.default for f in fields(self))

    def key(self) -> str:
        """The change as the key of the question shown for it: an answer confirms only the
        plan its own question was rendered from."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        if isinstance(values["tags"], tuple):
            values["tags"] = list(values["tags"])
        return json.dumps(values, sort_keys=True, ensure_ascii=False, default=str)


class ChangeOutcome(_Frozen):
    """What an update asked through a face came to (`Lethe.answer_change`):

    - `updated` / `unchanged`: nothing needed a confirmation; made at once (or nothing to do);
    - `executed` / `pending`: a step of the two-call rule (`confirmation`);
    - `confirmed`: the person said yes to the plan they were shown, made;
    - `declined`: their no (`declined` says which), nothing changed;
    - `not_open`: a yes to a question no longer open, nothing changed;
    - `role`: the change needs a confirmation the caller's role may not give, nothing changed.
    """

    status: Literal[
        "updated", "unchanged", "executed", "pending", "confirmed", "declined", "not_open", "role"
    ]
    plan: UpdatePlan | None = None
    memory: Memory | None = None
    """The memory after the change, or as it stands when nothing changed."""
    confirmation: ChangeConfirmation | None = None
    declined: Literal["decline", "cancel", "accept_without_content"] | None = None


def new_change_id() -> str:
    return "chg_" + secrets.token_hex(6)


def state_of(memory: Memory) -> dict[str, Any]:
    return {
        "content": memory.content,
        "layer": memory.layer,
        "category": memory.category,
        "tags": list(memory.tags),
        "metadata": memory.metadata,
        "importance": memory.importance,
        "private": memory.private,
        "expires_at": memory.expires_at,
    }


def version_state(version: MemoryVersion) -> dict[str, Any]:
    return {
        "content": version.content,
        "layer": version.layer,
        "category": version.category,
        "tags": list(version.tags),
        "metadata": version.metadata,
        "importance": version.importance,
        "private": version.private,
        "expires_at": version.expires_at,
    }


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def state_sha256(memory: Memory) -> str:
    """One hash for everything a change can touch, and the version: any change since a plan
    was made shows as another hash."""
    return _digest({**state_of(memory), "version": memory.version, "id": memory.id})


def plan_change(
    memory: Memory,
    changes: dict[str, Any],
    *,
    op: ChangeOp,
    actor: str,
    reason: str | None,
    now: datetime,
    revert_to: int | None = None,
) -> UpdatePlan:
    """Decide what a change does: only the fields that differ count, and it needs a
    confirmation when the memory is protected and the change rewrites its text or takes a
    protection away."""
    before = state_of(memory)
    changes = {k: tuple(v) if k == "tags" else v for k, v in changes.items()}
    effective = {k: v for k, v in changes.items() if _comparable(before[k]) != _comparable(v)}
    after = {**before, **effective}
    had = protections(memory.id, memory.layer, memory.importance)
    has = protections(memory.id, after["layer"], after["importance"])
    lost = tuple(p.reason for p in had if p.kind not in {q.kind for q in has})
    lost += _held_expiry_loosened(memory, effective)
    rewrites = bool(had) and "content" in effective
    ends = _ends(before["expires_at"], effective)
    needs = bool(effective) and (bool(lost) or rewrites or ends is not None)
    base = state_sha256(memory)
    return UpdatePlan(
        id=new_change_id(),
        op=op,
        memory_id=memory.id,
        namespace=memory.namespace,
        created_at=now,
        actor=actor,
        reason=reason,
        base_version=memory.version,
        base_sha256=base,
        changes=effective,
        diff=tuple(FieldChange(field=k, old=before[k], new=v) for k, v in effective.items()),
        revert_to=revert_to,
        preview=memory.preview(),
        protection=had[0].reason if had else None,
        lost=lost,
        ends=ends,
        needs_confirmation=needs,
        confirmation_sha256=_digest({"base": base, "changes": effective, "op": op}),
        notes=_notes(memory, effective, had, lost, rewrites, op, revert_to, ends, now),
    )


def _held_expiry_loosened(memory: Memory, effective: dict[str, Any]) -> tuple[str, ...]:
    """A held expiry (the person's) that the change would push back or remove: it guarded a
    forget the person chose, so loosening it is confirmed like one."""
    if not memory.expiry_held or memory.expires_at is None or "expires_at" not in effective:
        return ()
    new = effective["expires_at"]
    if new is not None and new <= memory.expires_at:
        return ()
    what = "remove it" if new is None else f"move it to {new.isoformat()}"
    return (
        f"its expiry at {memory.expires_at.isoformat()} was set or confirmed by a person, and "
        f"this would {what}",
    )


def _ends(old: datetime | None, effective: dict[str, Any]) -> datetime | None:
    """The expiry a change sets where there was none, or brings forward."""
    new = effective.get("expires_at")
    if new is None or (old is not None and new >= old):
        return None
    return new  # type: ignore[no-any-return]


def _comparable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return list(value)
    return value


def _notes(
    memory: Memory,
    effective: dict[str, Any],
    had: list[Protection],
    lost: tuple[str, ...],
    rewrites: bool,
    op: ChangeOp,
    revert_to: int | None,
    ends: datetime | None = None,
    now: datetime | None = None,
) -> str:
    if not effective:
        if op == "revert":
            return f"{memory.id} already holds version {revert_to}'s values; nothing to change."
        return f"Nothing to change in {memory.id}."
    what = f"revert {memory.id} to version {revert_to}" if op == "revert" else f"update {memory.id}"
    fields = ", ".join(effective)
    parts = [f"Would {what} ({fields}); version {memory.version} stays in its history."]
    if lost:
        parts.append(f"It would no longer be protected: {'; '.join(lost)}.")
    elif rewrites:
        parts.append(f"It is protected ({had[0].reason}) and its text would change.")
    if ends is not None and now is not None and ends <= now:
        parts.append(
            f"Its expiry ({ends.isoformat()}) has passed: it would expire at once, leave "
            "every read and go to the trash now, restorable for the trash's whole window."
        )
    elif ends is not None:
        parts.append(
            f"It would expire at {ends.isoformat()}: from then on nothing returns it and it "
            "is in the trash."
        )
    if lost or rewrites or ends is not None:
        parts.append("This needs the same confirmation as forgetting it.")
    return " ".join(parts)


def protection_event_details(old: Memory, new: Memory) -> dict[str, Any]:
    """What an update event records of protection: old and new values of the fields that
    decide it, and what protected the memory before and after."""
    before = protections(old.id, old.layer, old.importance)
    after = protections(new.id, new.layer, new.importance)
    return {
        "protection_fields": {
            name: {"old": getattr(old, name), "new": getattr(new, name)}
            for name in PROTECTION_FIELDS
            if getattr(old, name) != getattr(new, name)
        },
        "protected_before": [p.reason for p in before],
        "protected_after": [p.reason for p in after],
    }


def lost_recently(
    memory: Memory, history: list[MemoryVersion], since: datetime, now: datetime
) -> str | None:
    """If a state replaced at or after `since` (the confirmation window) was protected and the
    memory is not anymore, say so: a forget right after an unprotect must not look routine.
    `history` is the memory's, current version first."""
    if protections(memory.id, memory.layer, memory.importance):
        return None
    for newer, older in pairwise(history):
        if older.valid_until is None or older.valid_until < since:
            break
        was = protections(memory.id, older.layer, older.importance)
        if was:
            ago = max(0, int((now - older.valid_until).total_seconds()))
            return (
                f"it was protected ({was[0].reason}) until {ago} s ago, when {newer.actor} "
                f"changed it (version {older.version} -> {newer.version})"
            )
    return None
