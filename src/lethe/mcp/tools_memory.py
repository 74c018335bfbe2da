"""Tools that store and read memories: remember, recall, get_memory, link_memories,
create_episode, get_episode. Each parses, calls the engine, formats. Changing a memory
(update_memory, history) is in `tools_change`."""

# No `from __future__ import annotations`: the SDK reads these signatures at run time, and
# `Resolve(...)` in an annotation must see the local resolver it names.
from datetime import datetime
from typing import TYPE_CHECKING, Annotated

from mcp.server.mcpserver import (
    Context,
)
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from lethe.engine.superseding import superseding_protected
from lethe.errors import ConfirmationRequired
from lethe.mcp.outputs import (
    EpisodeOut,
    HitOut,
    LinkOut,
    MemoryDetail,
    MemoryOut,
    NearDuplicateOut,
    RecallOut,
    RememberOut,
    SupersessionOut,
    memory_line,
    reply,
)
from lethe.mcp.params import (
    Content,
    EpisodeId,
    EpisodeSummary,
    ExpiresAt,
    ExpiresIn,
    Importance,
    Label,
    LayerName,
    MemoryId,
    Metadata,
    Namespace,
    Query,
    Tags,
    TagsMode,
    ToolSpec,
    Where,
    strict_tools,
    tool_errors,
)
from lethe.mcp.refusals import Refused, call
from lethe.mcp.runtime import Runtime
from lethe.model import EpisodeView, Memory, Note, Remembered

if TYPE_CHECKING:
    from lethe.engine import Lethe

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)


def with_links(mem: "Lethe", memory: Memory, namespace: str) -> MemoryDetail:
    """A memory as tools return it: with its links to live memories of its namespace."""
    links = [LinkOut.of(link) for link in mem.links(memory.id, namespace=namespace)]
    return MemoryDetail(memory=MemoryOut.of(memory), links=links)


def superseded_text(mem: "Lethe", m: Remembered, namespace: str) -> str:
    """The text a supersede replaced ('' when nothing was superseded)."""
    if m.superseded_version is None:
        return ""
    old = [v for v in mem.history(m.id, namespace=namespace) if v.version == m.superseded_version]
    return old[0].content if old else ""


def _hit_line(h: HitOut) -> str:
    """A recall result as the model reads it: both numbers named, so the order (by score) is
    not taken for an order by similarity."""
    m = h.memory
    tags = f" #{' #'.join(m.tags)}" if m.tags else ""
    return (
        f"- {m.id} (score {h.score:.2f}, similarity {h.similarity:.2f}) [{m.layer}] "
        f"{m.content}{tags}"
    )


def _episode(view: EpisodeView) -> EpisodeOut:
    e = view.episode
    return EpisodeOut(
        id=e.id,
        namespace=e.namespace,
        summary=e.summary,
        start_at=e.start_at.isoformat(),
        end_at=e.end_at.isoformat(),
        importance=e.importance,
        members=[MemoryOut.of(m) for m in view.members],
        missing=view.missing,
        note=view.note,
    )


def memory_tools(rt: Runtime) -> list[Tool]:
    def remember(
        content: Content,
        ctx: Context,
        layer: LayerName | None = None,
        category: Label | None = None,
        tags: Tags | None = None,
        metadata: Metadata | None = None,
        importance: Annotated[
            float | None, Field(ge=0.0, le=1.0, description="Default 0.5; >= 0.9 pins it")
        ] = None,
        private: Annotated[bool | None, Field(description="Not in workspace files")] = None,
        agent: Label | None = None,
        namespace: Namespace = None,
        allow_duplicate: bool = False,
        supersedes: MemoryId | None = None,
        expires_at: ExpiresAt | None = None,
        expires_in: ExpiresIn | None = None,
        session: Label | None = None,
    ) -> Annotated[CallToolResult, RememberOut]:
        with tool_errors() as about:
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            about.ids(mem, ns, supersedes=supersedes)
            try:
                note = Note(
                    content,
                    agent=agent,
                    layer=layer,
                    category=category,
                    tags=tags,
                    metadata=metadata,
                    importance=importance,
                    private=private,
                    allow_duplicate=allow_duplicate,
                    supersedes=supersedes,
                    expires_at=expires_at,
                    expires_in=expires_in,
                    session=session,
                )
                m = mem.remember(note, namespace=ns, actor=rt.actor(ctx, grant))
            except ConfirmationRequired as exc:
                target = exc.plan.memory_id
                change = call("update_memory", memory_id=target, content=...)
                raise Refused(
                    f"{superseding_protected(exc.plan).message}.",
                    f"To change it, call {change}: it shows the change and the user must "
                    "confirm it; or remember the new fact without supersedes and keep both.",
                    kind="protected",
                    memory_ids=[target],
                ) from None
            detail = with_links(mem, m, ns)
            was = superseded_text(mem, m, ns)
        out = RememberOut(
            memory=detail.memory,
            links=detail.links,
            existing=m.existing,
            near_duplicates=[NearDuplicateOut.of(n) for n in m.near_duplicates],
            superseded=m.superseded,
            superseded_version=m.superseded_version,
            likely_supersedes=[SupersessionOut.of(s) for s in m.likely_supersedes],
        )
        if m.existing and m.superseded:
            lines = [f"{m.id} in {ns} already says: {m.content}", "Nothing was changed."]
        elif m.existing:
            lines = [
                f"Already remembered as {m.id} in {ns}: {m.content}",
                "Nothing new was stored.",
            ]
        elif m.superseded:
            lines = [
                f"Superseded {m.id} in {ns}: {m.content}",
                f"- was (kept as version {m.superseded_version}): {was}",
            ]
        else:
            lines = [f"Remembered {m.id} in {ns}: {m.content}"]
        near = {n.id for n in out.near_duplicates}
        lines += [
            f"- near-duplicate {n.id} ({n.similarity:.2f}): {n.content}"
            for n in out.near_duplicates
        ]
        if not m.superseded:
            lines += [
                f"- linked to {other} ({lk.kind}, {lk.confidence:.2f})"
                for lk in out.links
                for other in [lk.b if lk.a == m.id else lk.a]
                if other not in near
            ]
        lines += [
            f"- may supersede {s.id} (confidence {s.confidence:.2f}: {'; '.join(s.evidence)}): "
            f"{s.preview}"
            for s in out.likely_supersedes
        ]
        if out.likely_supersedes:
            first = out.likely_supersedes[0].id
            guidance = (
                f"Both are stored. This may supersede {first}: if the new fact replaces it, "
                f"remember it with supersedes={first} ({first} then says it and keeps the old "
                f"text in its history; {m.id} is then a copy to forget, asking the user). If "
                "both are true, keep both."
            )
            if out.near_duplicates:
                guidance += (
                    " Similar is not same: compare the near-duplicates; if two say the same, "
                    "forget one."
                )
        elif out.near_duplicates:
            guidance = (
                "Both are stored. Similar is not same: compare them. If both are true, keep "
                "both; if the new one corrects the old, update_memory or forget the old one "
                "(by id, asking the user); if they say the same, forget one."
            )
        elif m.superseded and not m.existing:
            guidance = (
                "Recall now finds only the new text; history shows the old one, and "
                "update_memory can change it back."
            )
        elif m.existing:
            guidance = "It was already stored; use this id to update, link or forget it."
        else:
            guidance = "Use this id to update, link or forget it later."
        return reply(out, lines, guidance)

    def recall(
        query: Query,
        ctx: Context,
        k: Annotated[int, Field(ge=1, le=100)] = 10,
        layer: LayerName | None = None,
        category: Label | None = None,
        tags: Tags | None = None,
        tags_mode: TagsMode = "any",
        agent: Label | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        where: Where | None = None,
        namespace: Namespace = None,
        min_similarity: Annotated[
            float | None,
            Field(
                ge=0.0,
                le=1.0,
                description="Drop hits less similar (cosine)",
            ),
        ] = None,
        as_of: datetime | None = None,
    ) -> Annotated[CallToolResult, RecallOut]:
        with tool_errors():
            mem, _, ns = rt.enter(ctx, "read", namespace)
            filters = {
                "namespace": ns,
                "layer": layer,
                "category": category,
                "tags": tags,
                "tags_mode": tags_mode,
                "agent": agent,
                "since": since,
                "until": until,
            }
            hits = mem.recall(
                query,
                k,
                {k_: v for k_, v in filters.items() if v is not None},
                where=where or (),
                min_similarity=min_similarity,
                as_of=as_of,
            )
        out = RecallOut(
            query=query,
            namespace=ns,
            min_similarity=min_similarity,
            hits=[
                HitOut(
                    memory=MemoryOut.of(h.memory),
                    similarity=round(h.similarity, 4),
                    score=round(h.score, 4),
                )
                for h in hits
            ],
        )
        if not hits:
            floor = "" if min_similarity is None else f" at similarity >= {min_similarity:g}"
            return reply(
                out, [f"No memories matched{floor}."], "Try other words, or remember it first."
            )
        lines = [_hit_line(h) for h in out.hits]
        return reply(out, lines, RECALL_ORDER)

    def get_memory(
        memory_id: MemoryId,
        ctx: Context,
        namespace: Namespace = None,
        as_of: datetime | None = None,
    ) -> Annotated[CallToolResult, MemoryDetail]:
        with tool_errors() as about:
            mem, _, ns = rt.enter(ctx, "read", namespace)
            about.ids(mem, ns, memory_id=memory_id)
            m = mem.get(memory_id, namespace=ns, as_of=as_of)
            out = with_links(mem, m, ns)
        lines = [memory_line(out.memory), f"importance {m.importance}, agent {m.agent}"]
        lines += [
            f"- {lk.kind} {lk.b if lk.a == m.id else lk.a} ({lk.confidence:.2f})"
            for lk in out.links
        ]
        return reply(out, lines, "Change it with update_memory; forget it with forget.")

    def link_memories(
        a: MemoryId,
        b: MemoryId,
        ctx: Context,
        kind: Label = "related",
        confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0,
        namespace: Namespace = None,
    ) -> Annotated[CallToolResult, LinkOut]:
        with tool_errors() as about:
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            about.ids(mem, ns, a=a, b=b)
            link = mem.link(
                a, b, kind=kind, confidence=confidence, actor=rt.actor(ctx, grant), namespace=ns
            )
        out = LinkOut.of(link)
        lines = [f"Linked {a} and {b} ({kind}, {confidence:.2f})"]
        return reply(out, lines, "Linking again changes the confidence.")

    def create_episode(
        summary: EpisodeSummary,
        memory_ids: Annotated[list[MemoryId], Field(min_length=1, max_length=100)],
        ctx: Context,
        importance: Importance = 0.5,
        namespace: Namespace = None,
    ) -> Annotated[CallToolResult, EpisodeOut]:
        with tool_errors() as about:
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            about.ids(mem, ns, memory_ids=memory_ids)
            episode = mem.create_episode(
                summary, memory_ids, importance=importance, namespace=ns, actor=rt.actor(ctx, grant)
            )
            view = mem.get_episode(episode.id, namespace=ns)
        out = _episode(view)
        lines = [f"Episode {out.id}: {out.summary} ({len(out.members)} memories)"]
        return reply(out, lines, "Read it back with get_episode.")

    def get_episode(
        episode_id: EpisodeId, ctx: Context, namespace: Namespace = None
    ) -> Annotated[CallToolResult, EpisodeOut]:
        with tool_errors():
            mem, _, ns = rt.enter(ctx, "read", namespace)
            out = _episode(mem.get_episode(episode_id, namespace=ns))
        lines = [f"Episode {out.id}: {out.summary} ({out.start_at} – {out.end_at})"]
        lines += [memory_line(m) for m in out.members]
        if out.note:
            lines.append(f"({out.note})")
        guidance = "Forgotten members are hidden; restore brings them back."
        return reply(out, lines, guidance if out.missing else "These are the episode's memories.")

    specs: list[ToolSpec] = [
        (remember, "Remember", WRITE, REMEMBER),
        (recall, "Recall memories", READ, RECALL),
        (get_memory, "Get a memory", READ, GET_MEMORY),
        (link_memories, "Link two memories", WRITE, LINK_MEMORIES),
        (create_episode, "Create an episode", WRITE, CREATE_EPISODE),
        (get_episode, "Get an episode", READ, GET_EPISODE),
    ]
    return strict_tools(specs)


REMEMBER = """Store a memory. An exact duplicate returns the stored one (existing=true); a
near-duplicate is stored and named. layer: semantic for facts; caveat and goal are protected.
agent: whose memory. supersedes: id of a memory this corrects (updated in place, old text
in history)."""

RECALL = """Search by meaning and words; ordered by the fused score, not similarity. as_of:
as they stood then. E.g. recall(query="trips", where=["@metadata.year >= 2025"])."""

RECALL_ORDER = (
    "Ordered by the fused score (vector and full-text ranks combined), not by similarity "
    "alone: a memory further down can be closer in meaning. Similarity is the cosine to the "
    "query (0-1). Cite ids when you use a memory."
)

GET_MEMORY = "One memory by id, with links; as_of: as it was then."

LINK_MEMORIES = """Link two memories of one namespace (kind defaults to "related"; confidence
0-1). Linking an existing pair again sets the new confidence."""

CREATE_EPISODE = """Group memories into an episode with a summary (e.g. one conversation or
one trip). Its time span is taken from the members."""

GET_EPISODE = """Read an episode: its summary, its live members, and how many of its memories
no longer exist (forgotten ones are hidden, never dangling)."""
