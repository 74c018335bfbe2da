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

from lethe.mcp.outputs import (
    EpisodeOut,
    HitOut,
    LinkOut,
    MemoryDetail,
    MemoryOut,
    NearDuplicateOut,
    RecallOut,
    RememberOut,
    memory_line,
    reply,
)
from lethe.mcp.params import (
    Content,
    EpisodeId,
    Importance,
    Label,
    LayerName,
    MemoryId,
    Metadata,
    Namespace,
    Query,
    Tags,
    ToolSpec,
    Where,
    strict_tools,
    tool_errors,
)
from lethe.mcp.runtime import Runtime
from lethe.model import DEFAULT_AGENT, EpisodeView, Memory

if TYPE_CHECKING:
    from lethe.engine import Lethe

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)


def with_links(mem: "Lethe", memory: Memory, namespace: str) -> MemoryDetail:
    """A memory as tools return it: with its links to live memories of its namespace."""
    links = [LinkOut.of(link) for link in mem.links(memory.id, namespace=namespace)]
    return MemoryDetail(memory=MemoryOut.of(memory), links=links)


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
        layer: LayerName = "episodic",
        category: Label = "",
        tags: Tags | None = None,
        metadata: Metadata | None = None,
        importance: Importance = 0.5,
        private: bool = False,
        agent: Annotated[
            Label | None, Field(description="Whose memory it is (default: user)")
        ] = None,
        namespace: Namespace = None,
        allow_duplicate: Annotated[
            bool,
            Field(description="Store a second copy even of the same text with the same fields"),
        ] = False,
    ) -> Annotated[CallToolResult, RememberOut]:
        with tool_errors():
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            m = mem.remember(
                content,
                namespace=ns,
                agent=agent or DEFAULT_AGENT,
                layer=layer,
                category=category,
                tags=tags,
                metadata=metadata,
                importance=importance,
                private=private,
                allow_duplicate=allow_duplicate,
                actor=rt.actor(ctx, grant),
            )
            detail = with_links(mem, m, ns)
        out = RememberOut(
            memory=detail.memory,
            links=detail.links,
            existing=m.existing,
            near_duplicates=[NearDuplicateOut.of(n) for n in m.near_duplicates],
        )
        if m.existing:
            lines = [
                f"Already remembered as {m.id} in {ns}: {m.content}",
                "Nothing new was stored.",
            ]
        else:
            lines = [f"Remembered {m.id} in {ns}: {m.content}"]
        near = {n.id for n in out.near_duplicates}
        lines += [
            f"- near-duplicate {n.id} ({n.similarity:.2f}): {n.content}"
            for n in out.near_duplicates
        ]
        lines += [
            f"- linked to {other} ({lk.kind}, {lk.confidence:.2f})"
            for lk in out.links
            for other in [lk.b if lk.a == m.id else lk.a]
            if other not in near
        ]
        if out.near_duplicates:
            guidance = (
                "Both are stored. Similar is not same: compare them. If both are true, keep "
                "both; if the new one corrects the old, update_memory or forget the old one "
                "(by id, asking the user); if they say the same, forget one."
            )
        elif m.existing:
            guidance = "It was already stored; use this id to update, link or forget it."
        else:
            guidance = "Use this id to update, link or forget it later."
        return reply(out, lines, guidance)

    def recall(
        query: Query,
        ctx: Context,
        k: Annotated[int, Field(ge=1, le=100, description="How many results (1-100)")] = 10,
        layer: LayerName | None = None,
        category: Label | None = None,
        tags: Tags | None = None,
        tags_mode: Annotated[str, Field(pattern="^(any|all)$")] = "any",
        agent: Label | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        where: Where | None = None,
        namespace: Namespace = None,
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
            )
        out = RecallOut(
            query=query,
            namespace=ns,
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
            return reply(out, ["No memories matched."], "Try other words, or remember it first.")
        lines = [memory_line(h.memory, h.similarity) for h in out.hits]
        return reply(out, lines, "Similarity is the cosine (0-1); cite ids when you use a memory.")

    def get_memory(
        memory_id: MemoryId, ctx: Context, namespace: Namespace = None
    ) -> Annotated[CallToolResult, MemoryDetail]:
        with tool_errors():
            mem, _, ns = rt.enter(ctx, "read", namespace)
            m = mem.get(memory_id, namespace=ns)
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
        with tool_errors():
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            link = mem.link(
                a, b, kind=kind, confidence=confidence, actor=rt.actor(ctx, grant), namespace=ns
            )
        out = LinkOut.of(link)
        lines = [f"Linked {a} and {b} ({kind}, {confidence:.2f})"]
        return reply(out, lines, "Linking again changes the confidence.")

    def create_episode(
        summary: Content,
        memory_ids: Annotated[list[MemoryId], Field(min_length=1, max_length=100)],
        ctx: Context,
        importance: Importance = 0.5,
        namespace: Namespace = None,
    ) -> Annotated[CallToolResult, EpisodeOut]:
        with tool_errors():
            mem, grant, ns = rt.enter(ctx, "write", namespace)
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


REMEMBER = """Store one memory (a fact, an event, a lesson) for later recall.

Never refuses. The same text with the same fields already stored: that memory is returned
(existing=true), nothing new is written. Similar is not same ("Thursday at 3pm" vs "Tuesday
at 10am"): near-duplicates (cosine >= 0.95) are stored too and named in the answer with id,
similarity and content, so you can keep both, update one or forget one. Links the new memory
to up to 5 similar ones. layer: episodic (events), semantic (facts), learning, caveat
(warnings, protected from forgetting), goal (protected). importance 0-1; >= 0.9 pins it
(protected). agent: whose memory it is (not who you are: the audit log names the client)."""

RECALL = """Search memories by meaning and words (hybrid vector + full-text ranking).

Every hit carries its cosine similarity (0-1) and final score. Narrow with layer, category,
tags (tags_mode any/all), agent, since/until (ISO times) and metadata conditions in `where`
("year >= 2025", 'source = "notes.md"', "@metadata.lang in [\\"en\\", \\"fr\\"]")."""

GET_MEMORY = "Read one memory by id, with its links. Forgotten memories are not returned."

LINK_MEMORIES = """Link two memories of one namespace (kind defaults to "related"; confidence
0-1). Linking an existing pair again sets the new confidence."""

CREATE_EPISODE = """Group memories into an episode with a summary (e.g. one conversation or
one trip). Its time span is taken from the members."""

GET_EPISODE = """Read an episode: its summary, its live members, and how many of its memories
no longer exist (forgotten ones are hidden, never dangling)."""
