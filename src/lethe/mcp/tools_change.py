"""Tools that change a memory and show what it was: update_memory, history.

An update never destroys (the engine keeps the replaced state as a version); one that
weakens a protection is confirmed like a forget: the human's answer to an elicitation when
the client can ask, else the same call twice from one session, and never on a `write`
token alone."""

# No `from __future__ import annotations`: the SDK reads these signatures at run time, and
# `Resolve(...)` in an annotation must see the local resolver it names.
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import (
    Context,
    Elicit,
    ElicitationResult,
    Resolve,
)
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from lethe.forget.change import Change, UpdatePlan
from lethe.forget.results import Answer
from lethe.mcp.access import Grant
from lethe.mcp.outputs import (
    FieldChangeOut,
    HistoryOut,
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
    ExpiresAt,
    Importance,
    Label,
    LayerName,
    MemoryId,
    Metadata,
    Namespace,
    Reason,
    Sha256,
    Tags,
    ToolSpec,
    strict_tools,
    tool_errors,
)
from lethe.mcp.refusals import Refused, answer_of, declined
from lethe.mcp.runtime import Runtime, can_elicit
from lethe.mcp.tools_memory import READ, WRITE, with_links
from lethe.model import Memory

if TYPE_CHECKING:
    from lethe.engine import Lethe


class ConfirmChange(BaseModel):
    confirm: bool = Field(description="Yes, make this change")


def _refuse_for_role(grant: Grant, plan: UpdatePlan) -> Refused:
    if plan.lost:
        what = f"weakens a protection: it would no longer be protected ({'; '.join(plan.lost)})"
    elif plan.protection is not None:
        what = (
            f"weakens a protection: it is protected ({plan.protection}) and its text would change"
        )
    else:  # nothing protects it: the change sets or brings forward an expiry
        ends = plan.ends.isoformat() if plan.ends is not None else "a date"
        what = f"would forget it on a date: it would expire at {ends} and go to the trash"
    return Refused(
        f"This change to {plan.memory_id} {what}. This client's role is {grant.role!r}; such a "
        "change is confirmed like a forget and needs 'forget'. Nothing was changed.",
        "Tell the user: they can make it with a client holding the forget role (or lethe "
        "update on the command line). Changes that weaken nothing (tags, category, metadata, "
        "a higher importance) need only write: update_memory makes them at once.",
        kind="role",
        memory_ids=[plan.memory_id],
    )


def _change_question(plan: UpdatePlan) -> str:
    """What the human is asked: the memory, every field's old and new value, and the
    protection the change takes away (or that a protected text is rewritten)."""
    diff = "\n".join(change_line(FieldChangeOut.of(c), limit=1000) for c in plan.diff)
    if plan.lost:
        why = f"It would no longer be protected: {'; '.join(plan.lost)}."
    elif plan.ends is not None and plan.protection is None:
        why = f"It would expire at {plan.ends.isoformat()}: then it is forgotten (trash)."
    else:
        why = f"It is protected ({plan.protection}) and its text would change."
    return (
        f"Change '{plan.preview}' ({plan.memory_id})?\n{diff}\n{why} The current version "
        "stays in its history until the memory is purged."
    )


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


def change_tools(rt: Runtime) -> list[Tool]:
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
        expires_at: str | None = None,
        no_expiry: bool = False,
        expected_sha256: str | None = None,
    ) -> Elicit[ConfirmChange] | None:
        """Ask the human about a change that weakens a protection, when the client lets us
        and the caller may make it at all: the model cannot answer for them."""
        if not can_elicit(ctx):
            return None
        with tool_errors() as about:
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            about.ids(mem, ns, memory_id=memory_id)
            plan = mem.ask_change(
                memory_id,
                Change(
                    content=content,
                    layer=layer,
                    category=category,
                    tags=tags,
                    metadata=metadata,
                    merge_metadata=merge_metadata,
                    importance=importance,
                    private=private,
                    reason=reason,
                    expires_at=expires_at,  # an instant only: a duration names another at each call
                    no_expiry=no_expiry,
                    expected_sha256=expected_sha256,
                ),
                session=rt.session(ctx, grant),
                role=grant.role,
                namespace=ns,
                actor=rt.actor(ctx, grant),
            )
        return None if plan is None else Elicit(_change_question(plan), ConfirmChange)

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
        expires_at: ExpiresAt | None = None,
        no_expiry: bool = False,
        expected_sha256: Sha256 | None = None,
    ) -> Annotated[CallToolResult, UpdateOut]:
        """`answer` is what the resolver produced: the human's answer, or an accept without
        data when no question was asked (no protection weakened, or a client that cannot be
        asked: then the two-call rule applies). The engine decides; this formats."""
        with tool_errors() as about:
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            about.ids(mem, ns, memory_id=memory_id)
            said = Answer(said=answer_of(answer))
            session = rt.session(ctx, grant)
            two_call, code = (
                rt.two_call_session(ctx, grant, confirmation)
                if said.said == "not_asked"
                else (session, None)
            )
            o = mem.answer_change(
                memory_id,
                Change(
                    content=content,
                    layer=layer,
                    category=category,
                    tags=tags,
                    metadata=metadata,
                    merge_metadata=merge_metadata,
                    importance=importance,
                    private=private,
                    reason=reason,
                    expires_at=expires_at,  # an instant only: a duration names another at each call
                    no_expiry=no_expiry,
                    expected_sha256=expected_sha256,
                ),
                said,
                session=session,
                role=grant.role,
                namespace=ns,
                actor=rt.actor(ctx, grant),
                two_call_session=two_call,
            )
        plan, m = o.plan, o.memory
        if o.status == "role" and plan is not None:
            raise _refuse_for_role(grant, plan)
        if o.status == "not_open" or m is None:
            raise Refused(
                "The question to the user is no longer open; nothing was changed.",
                "Call update_memory again with the same arguments: the user is asked again.",
                kind="confirmation",
                memory_ids=[memory_id],
            )
        if o.status in ("updated", "unchanged") and plan is not None:
            message = (
                f"Updated {m.id} (now version {m.version}); version {plan.base_version} "
                "stays in its history."
                if plan.changed
                else plan.notes
            )
            return _update_answer(mem, plan, m, ns, o.status, message)
        c = o.confirmation
        if c is not None and c.status == "executed":
            return _update_answer(mem, plan, m, ns, "updated", c.message)
        if c is not None:
            return _update_answer(
                mem, plan, m, ns, "pending", c.message, expires=c.expires_in_seconds, code=code
            )
        if o.status == "confirmed" and plan is not None:
            message = (
                f"Updated {m.id} with the user's consent (now version {m.version}); "
                f"version {plan.base_version} stays in its history."
            )
            return _update_answer(mem, plan, m, ns, "updated", message)
        return _update_answer(
            mem, plan, m, ns, "declined", declined(o.declined or "decline", "changed")
        )

    def history(
        memory_id: MemoryId, ctx: Context, namespace: Namespace = None
    ) -> Annotated[CallToolResult, HistoryOut]:
        with tool_errors() as about:
            mem, _, ns = rt.enter(ctx, "read", namespace)
            about.ids(mem, ns, memory_id=memory_id)
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

    specs: list[ToolSpec] = [
        (update_memory, "Update a memory", WRITE, UPDATE_MEMORY),
        (history, "History of a memory", READ, HISTORY),
    ]
    return strict_tools(specs)


UPDATE_MEMORY = """Change a memory; merge_metadata sets only given keys. Old
versions stay in history until it is purged. Confirmed like forget (forget role): weakening a
protection (a protected memory's text; leaving caveat/goal; importance below 0.9) or
setting/shortening an expiry."""

HISTORY = """Each version, newest first (who, how, when, why); to go back, update_memory
with its fields."""
