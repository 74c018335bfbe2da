"""What tools answer: a structured object (with its output schema) and, for the model, the
same data as text in ego-mcp's style: the data, then `---`, then one or two lines of
guidance saying what to do next."""

from __future__ import annotations

import json
from typing import Any, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict, Field

from lethe.forget.change import FieldChange
from lethe.forget.plan import PlanItem
from lethe.forget.results import NotFoundItem
from lethe.model import Event, Link, Memory, MemoryVersion, NearDuplicate, Supersession


class Output(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemoryOut(Output):
    id: str
    namespace: str
    agent: str
    content: str
    layer: str
    category: str
    tags: list[str]
    metadata: dict[str, Any]
    importance: float
    private: bool
    created_at: str
    updated_at: str
    access_count: int
    version: int
    """How many states it has had; the earlier ones are in `history`."""
    expires_at: str | None = None
    """When it ends, as its owner asked (ISO 8601); absent when it never does."""
    expiry_held: bool = False
    """The person set or confirmed that expiry: pushing it back or removing it is confirmed
    like a forget (forget role). An expiry the agent set itself is not held."""
    content_sha256: str = ""
    """The hash of its text: give it as expected_sha256 to change only this text."""

    @classmethod
    def of(cls, m: Memory) -> MemoryOut:
        return cls(
            id=m.id,
            namespace=m.namespace,
            agent=m.agent,
            content=m.content,
            layer=m.layer,
            category=m.category,
            tags=list(m.tags),
            metadata=m.metadata,
            importance=m.importance,
            private=m.private,
            created_at=m.created_at.isoformat(),
            updated_at=m.updated_at.isoformat(),
            access_count=m.access_count,
            version=m.version,
            expires_at=None if m.expires_at is None else m.expires_at.isoformat(),
            expiry_held=m.expiry_held,
            content_sha256=m.content_sha256,
        )


class LinkOut(Output):
    a: str
    b: str
    kind: str
    confidence: float

    @classmethod
    def of(cls, link: Link) -> LinkOut:
        return cls(a=link.a, b=link.b, kind=link.kind, confidence=link.confidence)


class MemoryDetail(Output):
    memory: MemoryOut
    links: list[LinkOut]


class NearDuplicateOut(Output):
    id: str
    content: str
    similarity: float
    private: bool

    @classmethod
    def of(cls, n: NearDuplicate) -> NearDuplicateOut:
        return cls(id=n.id, content=n.content, similarity=n.similarity, private=n.private)


class SupersessionOut(Output):
    id: str
    preview: str
    confidence: float
    evidence: list[str]

    @classmethod
    def of(cls, s: Supersession) -> SupersessionOut:
        return cls(id=s.id, preview=s.preview, confidence=s.confidence, evidence=list(s.evidence))


class RememberOut(Output):
    memory: MemoryOut
    links: list[LinkOut]
    existing: bool
    """The same text with the same fields was already remembered: that memory, nothing new."""
    near_duplicates: list[NearDuplicateOut]
    """Stored memories nearly identical to this one (cosine >= 0.95): both are kept, linked
    `near_duplicate`; the caller decides whether one should be updated or forgotten."""
    superseded: str | None = None
    """With `supersedes`: the id of the memory this text replaced (this one, updated in place;
    its earlier text is in `history`)."""
    superseded_version: int | None = None
    """The version that now holds the replaced text (None: it already said this)."""
    likely_supersedes: list[SupersessionOut] = []
    """Stored memories this new one likely replaces (same subject and attribute, another
    value), best first, with confidence and evidence; nothing was changed in them:
    `remember` with `supersedes` replaces one."""


class FieldChangeOut(Output):
    field: str
    old: Any
    new: Any

    @classmethod
    def of(cls, c: FieldChange) -> FieldChangeOut:
        return cls(field=c.field, old=_plain(c.old), new=_plain(c.new))


UpdateStatus = Literal["updated", "unchanged", "pending", "declined"]


class UpdateOut(Output):
    status: UpdateStatus
    memory: MemoryOut
    """After the change when updated; as it stands otherwise."""
    links: list[LinkOut]
    changes: list[FieldChangeOut]
    protection: str | None
    """What protected the memory before this change."""
    lost: list[str]
    """The protections this change takes away (it then needs a confirmation)."""
    message: str
    expires_in_seconds: int | None = None
    confirmation: str | None = None
    """For a client without a session: the code the confirming call must repeat."""


class VersionOut(Output):
    version: int
    current: bool
    content: str
    layer: str
    category: str
    tags: list[str]
    metadata: dict[str, Any]
    importance: float
    private: bool
    agent: str
    valid_from: str
    valid_until: str | None
    actor: str
    op: str
    reason: str | None
    content_sha256: str

    @classmethod
    def of(cls, v: MemoryVersion) -> VersionOut:
        return cls(
            version=v.version,
            current=v.current,
            content=v.content,
            layer=v.layer,
            category=v.category,
            tags=list(v.tags),
            metadata=v.metadata,
            importance=v.importance,
            private=v.private,
            agent=v.agent,
            valid_from=v.valid_from.isoformat(),
            valid_until=v.valid_until.isoformat() if v.valid_until else None,
            actor=v.actor,
            op=v.op,
            reason=v.reason,
            content_sha256=v.content_sha256,
        )


class HistoryOut(Output):
    memory_id: str
    namespace: str
    versions: list[VersionOut]
    """The current state first, then the earlier ones, newest first."""


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


class HitOut(Output):
    memory: MemoryOut
    similarity: float
    score: float


class RecallOut(Output):
    query: str
    namespace: str
    hits: list[HitOut]
    """Ordered by `score` (vector and full-text ranks fused), not by similarity alone."""
    min_similarity: float | None = None
    """The floor asked for: no hit has a lower similarity."""


class EpisodeOut(Output):
    id: str
    namespace: str
    summary: str
    start_at: str
    end_at: str
    importance: float
    members: list[MemoryOut]
    missing: int
    note: str | None


class CandidateOut(Output):
    id: str
    preview: str
    similarity: float | None
    action: str
    reason: str
    protection: str | None
    hint: str | None
    warning: str | None
    was_protected: str | None = None
    """It lost its protection moments ago (within the confirmation window): who and when."""
    certainty: float | None = None
    """How sure the planner is that the request means this memory (0-1; >= 0.9 marks it)."""
    evidence: list[str] = []
    new_content: str | None = None
    """Action `edit`: the memory holds the fact beside another; this is its text without the
    fact (apply it with update_memory, which keeps the old text as a version)."""
    diff: str | None = None
    """Action `edit`: the words cut, marked [-…-]."""

    @classmethod
    def of(cls, item: PlanItem) -> CandidateOut:
        return cls(
            id=item.id,
            preview=item.preview,
            similarity=None if item.similarity is None else round(item.similarity, 4),
            action=item.action,
            reason=item.reason,
            protection=item.protection,
            hint=item.hint,
            warning=item.warning,
            was_protected=item.was_protected,
            certainty=item.certainty,
            evidence=list(item.evidence),
            new_content=item.new_content,
            diff=item.diff,
        )


class SuggestionOut(Output):
    id: str
    preview: str
    """The start of its content."""


class MissingOut(Output):
    id: str
    state: Literal["unknown", "trash", "purged"] = "unknown"
    """Not in this namespace, already in the trash, or purged (erased for good)."""
    suggestions: list[SuggestionOut]
    """For an unknown id: ids within two edits of it, nearest first, with previews."""
    message: str

    @classmethod
    def of(cls, item: NotFoundItem) -> MissingOut:
        return cls(
            id=item.id,
            state=item.state,
            suggestions=[
                SuggestionOut(id=i, preview=p)
                for i, p in zip(item.suggestions, item.previews, strict=False)
            ],
            message=item.message,
        )

    def line(self) -> str:
        """What the model reads about it."""
        if self.state == "trash":
            return f'- {self.id} is already in the trash: restore(memory_id="{self.id}") undoes it'
        if self.state == "purged":
            return f"- {self.id} was purged (erased for good): it cannot be restored"
        close = ", ".join(f'{s.id} ("{s.preview}")' for s in self.suggestions)
        return f"- not found: {self.id}" + (f"; did you mean {close}?" if close else "")


ForgetStatus = Literal[
    "candidates", "pending", "executed", "partial", "declined", "refused", "changed", "not_found"
]


class ForgetOut(Output):
    status: ForgetStatus
    operation: Literal["forget", "purge"]
    namespace: str
    message: str
    candidates: list[CandidateOut] = []
    deleted_ids: list[str] = []
    pending_ids: list[str] = []
    changed_ids: list[str] = []
    refused: list[CandidateOut] = []
    not_found: list[MissingOut] = []
    expires_in_seconds: int | None = None
    confirmation: str | None = None
    """For a client without a session: the code the confirming call must repeat."""
    was_protected: dict[str, str] = {}
    """Targets that lost their protection moments ago (id -> who and when): an unprotect
    followed by a forget is not routine."""
    receipt: dict[str, Any] | None = Field(
        default=None,
        description="A purge's signed erasure receipt, as lethe stored it (JSON object): "
        "receipt_id, status ('erased' only when the byte scan and the recall probes found "
        "nothing; else 'incomplete'), memories (ids and SHA-256 of each erased text, never "
        "the words), places, scan, probes, limits, public_key, key_id and an Ed25519 "
        "signature over the rest (Lethe.verify_receipt checks it against the store).",
    )
    """A purge's signed erasure receipt (engine/proof.py), passed through unchanged so its
    signature holds; None for a forget and while a purge awaits its confirmation."""


class TrashEntryOut(Output):
    memory: MemoryOut
    forgotten_at: str | None
    forgotten_by: str | None
    reason: str | None
    purge_after: str | None


class TrashOut(Output):
    namespace: str
    total: int
    items: list[TrashEntryOut]


class EventOut(Output):
    seq: int
    at: str
    op: str
    memory_id: str | None
    namespace: str | None
    actor: str
    reason: str | None
    details: dict[str, Any]
    content_sha256: str | None

    @classmethod
    def of(cls, e: Event) -> EventOut:
        return cls(
            seq=e.seq,
            at=e.at.isoformat(),
            op=e.op,
            memory_id=e.memory_id,
            namespace=e.namespace,
            actor=e.actor,
            reason=e.reason,
            details=e.details,
            content_sha256=e.content_sha256,
        )


class AuditOut(Output):
    namespace: str
    events: list[EventOut]
    next_after_seq: int | None


def reply(data: Output, lines: list[str], guidance: str) -> CallToolResult:
    """One answer: structured content for programs, text with guidance for the model."""
    text = "\n".join([*lines, "---", guidance])
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=data.model_dump(mode="json"),
    )


def memory_line(m: MemoryOut, similarity: float | None = None) -> str:
    score = f" ({similarity:.2f})" if similarity is not None else ""
    tags = f" #{' #'.join(m.tags)}" if m.tags else ""
    return f"- {m.id}{score} [{m.layer}] {m.content}{tags}"


def candidate_line(c: CandidateOut) -> str:
    score = f" ({c.similarity:.2f})" if c.similarity is not None else ""
    extra = f" — {c.protection}; {c.hint}" if c.protection else ""
    if c.certainty is not None and not c.protection:
        sure = {"delete": "the memory meant", "edit": "holds the fact and another"}.get(
            c.action, "not certain"
        )
        extra += f" — {sure} (certainty {c.certainty:.2f}): {c.reason}"
    if c.new_content is not None and c.diff is None:
        extra += (
            " — only its earlier versions hold it, not its text: `lethe forget --query … "
            "--execute` cuts it from them; forget(memory_id) would forget the whole memory"
        )
    elif c.new_content is not None:
        extra += (
            f" — do not delete it: cut the fact out ({c.diff}) with "
            f"update_memory(memory_id={c.id!r}, content={c.new_content!r}) once the user agrees"
        )
    if c.was_protected:
        extra += f" — note: {c.was_protected}"
    return f"- {c.id}{score} {c.preview}{extra}"


def change_line(c: FieldChangeOut, limit: int = 300) -> str:
    return f"- {c.field}: {_shown(c.old, limit)} -> {_shown(c.new, limit)}"


def version_line(v: VersionOut) -> str:
    when = v.valid_from[:19].replace("T", " ")
    why = f' ("{v.reason}")' if v.reason else ""
    now = " (current)" if v.current else ""
    tags = f" #{' #'.join(v.tags)}" if v.tags else ""
    return (
        f"- v{v.version}{now} {when} {v.op} by {v.actor}{why}: [{v.layer}] {v.content}{tags} "
        f"(importance {v.importance:g})"
    )


def _shown(value: Any, limit: int) -> str:
    if isinstance(value, str) and len(value) > limit:
        value = value[: limit - 1] + "…"
    return json.dumps(value, ensure_ascii=False, default=str)
