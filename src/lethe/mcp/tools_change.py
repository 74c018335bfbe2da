"""Tools that change a memory and show what it was: update_memory, history.

An update never destroys (the engine keeps the replaced state as a version); one that
weakens a protection is confirmed like a forget: the human's answer to an elicitation when
the client can ask, else the same call twice from one session, and never on a `write`
token alone."""

# No `from __future__ import annotations`: the SDK reads these signatures at run time, and
# `Resolve(...)` in an annotation must see the local resolver it names.
import json
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    Resolve,
)
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from lethe.forget.change import UpdatePlan
from lethe.mcp.access import ROLES, Grant
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
from lethe.mcp.refusals import Refused, declined, said
from lethe.mcp.runtime import Runtime, can_elicit
from lethe.mcp.tools_memory import READ, WRITE, with_links
from lethe.model import Memory

if TYPE_CHECKING:
    from lethe.engine import Lethe


class ConfirmChange(BaseModel):
    confirm: bool = Field(description="Yes, make this change")


def _may_weaken_protection(grant: Grant) -> bool:
    return ROLES.index(grant.role) >= ROLES.index("forget")


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
    expires_at: str | None = None,
    expires_in: str | None = None,
    no_expiry: bool = False,
    expected_sha256: str | None = None,
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
        "expires_at": expires_at,
        "expires_in": expires_in,
        "no_expiry": no_expiry,
        "expected_sha256": expected_sha256,
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
                expires_at,
                None,  # an instant only: a duration names another one at each of two calls
                no_expiry,
                expected_sha256,
            )
            plan = mem.plan_update(memory_id, **change, actor=rt.actor(ctx, grant), namespace=ns)
        if not plan.needs_confirmation:
            return None
        session = rt.session(ctx, grant)
        rt.keep_change((session, memory_id, _key(change)), plan)
        with tool_errors():
            mem.ask(plan, session=session)
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
        expires_at: ExpiresAt | None = None,
        no_expiry: bool = False,
        expected_sha256: Sha256 | None = None,
    ) -> Annotated[CallToolResult, UpdateOut]:
        """`answer` is what the resolver produced: the human's answer, or an accept without
        data when no question was asked (no protection weakened, or a client that cannot be
        asked: then the two-call rule applies)."""
        with tool_errors() as about:
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            about.ids(mem, ns, memory_id=memory_id)
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
                expires_at,
                None,  # an instant only: a duration names another one at each of two calls
                no_expiry,
                expected_sha256,
            )
            data = answer.data if isinstance(answer, AcceptedElicitation) else None
            if isinstance(answer, AcceptedElicitation) and data is None:
                plan = mem.plan_update(memory_id, **change, actor=actor, namespace=ns)
                if not plan.needs_confirmation:
                    m = mem.execute(plan, hold_expiry=False)  # the agent's own change
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
                    raise Refused(
                        "The question to the user is no longer open; nothing was changed.",
                        "Call update_memory again with the same arguments: the user is asked "
                        "again.",
                        kind="confirmation",
                        memory_ids=[memory_id],
                    )
                m = mem.execute(asked, actor=actor, via="elicitation")
                mem.answered(session=session, operation="update", memory_ids=[memory_id])
                message = (
                    f"Updated {m.id} with the user's consent (now version {m.version}); "
                    f"version {asked.base_version} stays in its history."
                )
                return _update_answer(mem, asked, m, ns, "updated", message)
            answered = said(answer)
            mem.decline(
                [memory_id],
                session=session,
                namespace=ns,
                operation="update",
                answer=answered,
                actor=actor,
            )
            current = mem.get(memory_id, namespace=ns)
        message = declined(answered, "changed")
        return _update_answer(mem, asked, current, ns, "declined", message)

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
