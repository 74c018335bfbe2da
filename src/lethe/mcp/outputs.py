"""What tools answer: a structured object (with its output schema) and, for the model, the
same data as text in ego-mcp's style: the data, then `---`, then one or two lines of
guidance saying what to do next."""

from __future__ import annotations

from typing import Any, Literal

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ConfigDict

from lethe.forget.plan import PlanItem
from lethe.forget.results import NotFoundItem
from lethe.model import Event, Link, Memory


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


class HitOut(Output):
    memory: MemoryOut
    similarity: float
    score: float


class RecallOut(Output):
    query: str
    namespace: str
    hits: list[HitOut]


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
        )


class MissingOut(Output):
    id: str
    suggestions: list[str]
    message: str

    @classmethod
    def of(cls, item: NotFoundItem) -> MissingOut:
        return cls(id=item.id, suggestions=list(item.suggestions), message=item.message)


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
    return f"- {c.id}{score} {c.preview}{extra}"
