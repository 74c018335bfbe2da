"""Tools that store and read memories: remember, recall, get_memory, update_memory,
history, link_memories, create_episode, get_episode. Each parses, calls the engine, formats.

An update never destroys (the engine keeps the replaced state as a version); one that
weakens a protection is confirmed like a forget: the human's answer to an elicitation when
the client can ask, else the same call twice from one session, and never on a `write`
token alone."""

# No `from __future__ import annotations`: the SDK reads these signatures at run time, and
# `Resolve(...)` in an annotation must see the local resolver it names.
import json
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from mcp.server.mcpserver import (
    AcceptedElicitation,
    CancelledElicitation,
    Context,
    Elicit,
    ElicitationResult,
    Resolve,
)
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, Field

from lethe.forget.change import UpdatePlan
from lethe.mcp.access import ROLES, AccessDenied, Grant
from lethe.mcp.outputs import (
    EpisodeOut,
    FieldChangeOut,
    HistoryOut,
    HitOut,
    LinkOut,
    MemoryDetail,
    MemoryOut,
    NearDuplicateOut,
    RecallOut,
    RememberOut,
    UpdateOut,
    UpdateStatus,
    VersionOut,
    change_line,
    memory_line,
    reply,
    version_line,
)
from lethe.mcp.params import (
    ConfirmationCode,
    Content,
    EpisodeId,
    Importance,
    Label,
    LayerName,
    MemoryId,
    Metadata,
    Namespace,
    Query,
    Reason,
    Tags,
    ToolSpec,
    Where,
    strict_tools,
    tool_errors,
)
from lethe.mcp.runtime import Runtime, can_elicit
from lethe.model import DEFAULT_AGENT, EpisodeView, Memory

if TYPE_CHECKING:
    from lethe.engine import Lethe

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False)


def with_links(mem: "Lethe", memory: Memory, namespace: str) -> MemoryDetail:
    """A memory as tools return it: with its links to live memories of its namespace."""
    links = [LinkOut.of(link) for link in mem.links(memory.id, namespace=namespace)]
    return MemoryDetail(memory=MemoryOut.of(memory), links=links)


class ConfirmChange(BaseModel):
    confirm: bool = Field(description="Yes, make this change")


def _may_weaken_protection(grant: Grant) -> bool:
    return ROLES.index(grant.role) >= ROLES.index("forget")


def _refuse_for_role(grant: Grant, plan: UpdatePlan) -> AccessDenied:
    return AccessDenied(
        f"{plan.notes} This client's role is {grant.role!r}; a change that weakens a "
        "protection needs 'forget'. Nothing was changed",
        hint="ask the user to make this change with a client holding the forget role",
    )


def _change_question(plan: UpdatePlan) -> str:
    """What the human is asked: the memory, every field's old and new value, and the
    protection the change takes away (or that a protected text is rewritten)."""
    diff = "\n".join(change_line(FieldChangeOut.of(c), limit=1000) for c in plan.diff)
    if plan.lost:
        why = f"It would no longer be protected: {'; '.join(plan.lost)}."
    else:
        why = f"It is protected ({plan.protection}) and its text would change."
    return (
        f"Change '{plan.preview}' ({plan.memory_id})?\n{diff}\n{why} The current version "
        "stays in its history until the memory is purged."
    )


def _change(
    content: str | None,
    layer: str | None,
    category: str | None,
    tags: list[str] | None,
    metadata: dict[str, Any] | None,
    merge_metadata: dict[str, Any] | None,
    importance: float | None,
    private: bool | None,
    reason: str | None,
) -> dict[str, Any]:
    """update_memory's arguments as `plan_update` takes them."""
    return {
        "content": content,
        "layer": layer,
        "category": category,
        "tags": tags,
        "metadata": metadata,
        "merge_metadata": merge_metadata,
        "importance": importance,
        "private": private,
        "reason": reason,
    }


def _key(change: dict[str, Any]) -> str:
    """The change asked, as the key of the question shown for it: an answer confirms only
    the plan its own question was rendered from."""
    return json.dumps(change, sort_keys=True, ensure_ascii=False, default=str)


def _update_answer(
    mem: "Lethe",
    plan: UpdatePlan | None,
    memory: Memory,
    namespace: str,
    status: UpdateStatus,
    message: str,
    *,
    expires: int | None = None,
    code: str | None = None,
) -> CallToolResult:
    detail = with_links(mem, memory, namespace)
    out = UpdateOut(
        status=status,
        memory=detail.memory,
        links=detail.links,
        changes=[FieldChangeOut.of(c) for c in plan.diff] if plan else [],
        protection=plan.protection if plan else None,
        lost=list(plan.lost) if plan else [],
        message=message,
        expires_in_seconds=expires,
        confirmation=code,
    )
    lines = [message, *(change_line(c) for c in out.changes)]
    if status == "pending":
        lines.append(memory_line(out.memory))
        if code:
            lines.append(f"confirmation: {code}")
        again = f' and confirmation="{code}"' if code else ""
        guidance = (
            "Ask the user to confirm. If they agree, call update_memory again with the same "
            f"arguments{again} within {expires} s; if not, do nothing."
        )
    elif status == "declined":
        guidance = "Nothing was changed. Do not ask again unless the user brings it up."
    else:
        lines.append(memory_line(out.memory))
        guidance = "history(memory_id) lists every version; the old one is kept."
    return reply(out, lines, guidance)


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

    def confirm_update(
        ctx: Context,
        memory_id: str,
        content: str | None = None,
        layer: str | None = None,
        category: str | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        merge_metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        private: bool | None = None,
        reason: str | None = None,
        namespace: str | None = None,
    ) -> Elicit[ConfirmChange] | None:
        """Ask the human about a change that weakens a protection, when the client lets us
        and the caller may make it at all: the model cannot answer for them."""
        if not can_elicit(ctx):
            return None
        with tool_errors():
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            if not _may_weaken_protection(grant):
                return None  # refused by the tool itself, without a question
            change = _change(
                content,
                layer,
                category,
                tags,
                metadata,
                merge_metadata,
                importance,
                private,
                reason,
            )
            plan = mem.plan_update(memory_id, **change, actor=rt.actor(ctx, grant), namespace=ns)
        if not plan.needs_confirmation:
            return None
        rt.keep_change((rt.session(ctx, grant), memory_id, _key(change)), plan)
        return Elicit(_change_question(plan), ConfirmChange)

    def update_memory(
        memory_id: MemoryId,
        ctx: Context,
        answer: Annotated[ElicitationResult[ConfirmChange], Resolve(confirm_update)],
        content: Content | None = None,
        layer: LayerName | None = None,
        category: Label | None = None,
        tags: Tags | None = None,
        metadata: Metadata | None = None,
        merge_metadata: Metadata | None = None,
        importance: Importance | None = None,
        private: bool | None = None,
        reason: Reason | None = None,
        namespace: Namespace = None,
        confirmation: ConfirmationCode | None = None,
    ) -> Annotated[CallToolResult, UpdateOut]:
        """`answer` is what the resolver produced: the human's answer, or an accept without
        data when no question was asked (no protection weakened, or a client that cannot be
        asked: then the two-call rule applies)."""
        with tool_errors():
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            actor = rt.actor(ctx, grant)
            change = _change(
                content,
                layer,
                category,
                tags,
                metadata,
                merge_metadata,
                importance,
                private,
                reason,
            )
            data = answer.data if isinstance(answer, AcceptedElicitation) else None
            if isinstance(answer, AcceptedElicitation) and data is None:
                plan = mem.plan_update(memory_id, **change, actor=actor, namespace=ns)
                if not plan.needs_confirmation:
                    m = mem.execute(plan)
                    status: UpdateStatus = "updated" if plan.changed else "unchanged"
                    message = (
                        f"Updated {m.id} (now version {m.version}); version {plan.base_version} "
                        "stays in its history."
                        if plan.changed
                        else plan.notes
                    )
                    return _update_answer(mem, plan, m, ns, status, message)
                if not _may_weaken_protection(grant):
                    raise _refuse_for_role(grant, plan)
                session, code = rt.two_call_session(ctx, grant, confirmation)
                c = mem.confirm_change(plan, session=session)
                if c.status == "executed":
                    return _update_answer(mem, plan, c.memory, ns, "updated", c.message)
                return _update_answer(
                    mem,
                    plan,
                    c.memory,
                    ns,
                    "pending",
                    c.message,
                    expires=c.expires_in_seconds,
                    code=code,
                )
            # The human was asked: the plan the question showed, if they said yes.
            session = rt.session(ctx, grant)
            asked = rt.take_change((session, memory_id, _key(change)))
            if isinstance(data, ConfirmChange) and data.confirm:
                if asked is None:
                    raise ToolError("the question is no longer open; call update_memory again")
                m = mem.execute(asked, actor=actor, via="elicitation")
                message = (
                    f"Updated {m.id} with the user's consent (now version {m.version}); "
                    f"version {asked.base_version} stays in its history."
                )
                return _update_answer(mem, asked, m, ns, "updated", message)
            said: Literal["decline", "cancel"] = (
                "cancel" if isinstance(answer, CancelledElicitation) else "decline"
            )
            mem.decline([memory_id], session=session, namespace=ns, operation="update", answer=said)
            current = mem.get(memory_id, namespace=ns)
        message = f"The user said no ({said}); nothing was changed."
        return _update_answer(mem, asked, current, ns, "declined", message)

    def history(
        memory_id: MemoryId, ctx: Context, namespace: Namespace = None
    ) -> Annotated[CallToolResult, HistoryOut]:
        with tool_errors():
            mem, _, ns = rt.enter(ctx, "read", namespace)
            versions = mem.history(memory_id, namespace=ns)
        out = HistoryOut(
            memory_id=memory_id, namespace=ns, versions=[VersionOut.of(v) for v in versions]
        )
        lines = [f"{len(out.versions)} version(s) of {memory_id}, newest first:"]
        lines += [version_line(v) for v in out.versions]
        guidance = (
            "To go back to an earlier version, call update_memory with its content and fields; "
            "the current one then stays here too."
        )
        return reply(out, lines, guidance)

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
        (update_memory, "Update a memory", WRITE, UPDATE_MEMORY),
        (history, "History of a memory", READ, HISTORY),
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

UPDATE_MEMORY = """Change a memory: content (re-embedded), layer, category, tags, metadata
(replaces the object) or merge_metadata (sets only the keys given), importance, private;
reason says why. The old version stays restorable (history) until the memory is purged.

A change that weakens a protection (the text of a caveat, goal or pinned memory; a move out
of the caveat/goal layer; importance lowered below 0.9) needs the forget role and is
confirmed like a forget: the user is asked directly when your client supports elicitation;
otherwise the first call answers "Please confirm: …" and changes nothing. Ask the user; if
they agree, make the same call again within 5 minutes (with confirmation="<code>" if the
answer carried one)."""

HISTORY = """Every version of a memory, newest first: its content and fields, who made it
(actor), how (op), when (valid_from/valid_until) and why (reason). Updates keep the old
version here until the memory is purged. There is no revert tool: to go back, call
update_memory with the old version's content and fields."""

LINK_MEMORIES = """Link two memories of one namespace (kind defaults to "related"; confidence
0-1). Linking an existing pair again sets the new confidence."""

CREATE_EPISODE = """Group memories into an episode with a summary (e.g. one conversation or
one trip). Its time span is taken from the members."""

GET_EPISODE = """Read an episode: its summary, its live members, and how many of its memories
no longer exist (forgotten ones are hidden, never dangling)."""
