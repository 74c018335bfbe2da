"""Tools that forget and undo: forget, purge, list_trash, restore, audit_log.

Confirmation is the engine's: when the client can ask its human (elicitation), the server
asks and only an explicit accept executes; otherwise the two-call rule applies, keyed by the
MCP session. A query never deletes here: it only lists candidates to choose from by id.
"""

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
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, Field

from lethe.engine.confirmations import may_weaken
from lethe.engine.suggest import PREVIEW_CHARS
from lethe.forget.messages import derived_notes
from lethe.forget.plan import ForgetPlan, Operation
from lethe.forget.results import Answer, Confirmation, ForgetResult
from lethe.mcp.outputs import (
    AuditOut,
    CandidateOut,
    EventOut,
    ForgetOut,
    MemoryDetail,
    MemoryOut,
    MissingOut,
    SuggestionOut,
    TrashEntryOut,
    TrashOut,
    candidate_line,
    memory_line,
    reply,
)
from lethe.mcp.params import (
    ConfirmationCode,
    Filters,
    Label,
    MemoryId,
    Namespace,
    Query,
    Seq,
    Sha256,
    strict_tools,
    tool_errors,
)
from lethe.mcp.refusals import Refused, answer_of, call, declined, nothing_done
from lethe.mcp.runtime import Runtime, can_elicit
from lethe.mcp.tools_memory import READ, with_links

if TYPE_CHECKING:
    from lethe.engine import Lethe

DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False)
UNDO = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
Ids = Annotated[list[MemoryId], Field(min_length=1, max_length=100)]


class ConfirmForget(BaseModel):
    confirm: bool = Field(description="Yes, forget it")


def _ids(memory_id: str | None, memory_ids: list[str] | None, tool: str = "forget") -> list[str]:
    """forget and purge take the same names: one id, or several."""
    if memory_id and memory_ids:
        raise Refused(
            f"{tool} takes memory_id or memory_ids, not both; nothing was deleted.",
            f"Call {call(tool, memory_ids=[memory_id, *memory_ids])} to {tool} them all.",
            kind="invalid_argument",
        )
    return [memory_id] if memory_id else list(memory_ids or [])


def _question(plan: ForgetPlan) -> str:
    verb = "Forget" if plan.operation == "forget" else "Permanently erase"
    targets = ", ".join(f"'{i.preview}' ({i.id})" for i in plan.targets)
    notes = [f" Note: {i.id}: {i.was_protected}." for i in plan.targets if i.was_protected]
    notes += [f" {line}" for line in derived_notes(plan.derived)]
    return f"{verb} {targets}?{''.join(notes)}"


def _from_confirmation(c: Confirmation, operation: Operation, ns: str) -> ForgetOut:
    deleted = list(c.executed.executed) if c.executed else []
    receipt = c.executed.receipt if c.executed else None
    message = c.message
    if receipt is not None:  # the result's notes say what the receipt proved, not "Erased"
        said = {f"Erased {i}." for i in deleted}
        kept = [line for line in c.message.splitlines() if line not in said]
        message = "\n".join([*kept, c.executed.notes] if c.executed else kept)
    return ForgetOut(
        status=c.status,
        operation=operation,
        namespace=ns,
        message=message,
        deleted_ids=deleted,
        pending_ids=[i.id for i in c.awaiting],
        changed_ids=list(c.changed),
        refused=[CandidateOut.of(i) for i in c.refused],
        not_found=[MissingOut.of(m) for m in c.not_found],
        expires_in_seconds=c.expires_in_seconds if c.awaiting else None,
        was_protected={i.id: i.was_protected for i in c.awaiting if i.was_protected},
        receipt=receipt,
    )


def _from_result(r: ForgetResult, ns: str, mem: "Lethe") -> ForgetOut:
    close = [s for i in r.not_found for s in r.suggestions.get(i, ())]
    held = mem.store.get_many(close, active_only=False) if close else {}
    missing = [
        MissingOut(
            id=i,
            suggestions=[
                SuggestionOut(id=s, preview=held[s].preview(PREVIEW_CHARS))
                for s in r.suggestions.get(i, ())
                if s in held
            ],
            message=f"not found: {i}",
        )
        for i in r.not_found
    ]
    status = "executed" if r.executed and not (r.refused or r.stale or missing) else "partial"
    if not r.executed:
        status = "refused" if r.refused else "changed" if r.stale else "not_found"
    return ForgetOut(
        status=status,
        operation=r.operation,
        namespace=ns,
        message=r.notes,
        deleted_ids=list(r.executed),
        changed_ids=list(r.stale),
        refused=[CandidateOut.of(i) for i in r.refused],
        not_found=missing,
        receipt=r.receipt,
    )


def _answer(out: ForgetOut) -> CallToolResult:
    said_elsewhere = {m.message for m in out.not_found}  # each has its own line, below
    lines = [line for line in out.message.splitlines() if line not in said_elsewhere]
    lines += [f"- deleted {i}" for i in out.deleted_ids]
    lines += [
        f"- awaiting confirmation: {i}"
        + (" (it was protected moments ago)" if i in out.was_protected else "")
        for i in out.pending_ids
    ]
    lines += [f"- refused {c.id}: {c.protection}; {c.hint}" for c in out.refused]
    lines += [m.line() for m in out.not_found]
    receipt = out.receipt or {}
    proven = receipt.get("status") == "erased"
    if receipt:
        lines.append(
            f"receipt: {receipt.get('receipt_id')} (status {receipt.get('status')}; signed; "
            "in the structured output as `receipt`)"
        )
    if out.pending_ids:
        if out.confirmation:
            lines.append(f"confirmation: {out.confirmation}")
        guidance = (
            f"Ask the user to confirm. If they agree, call {_again(out)} within "
            f"{out.expires_in_seconds} s; if not, do nothing."
        )
    elif out.deleted_ids and out.operation == "forget":
        guidance = "Forgotten memories stay in the trash; restore undoes it (list_trash)."
    elif receipt and proven:
        guidance = (
            "Erased for good: it cannot be restored. Give the user the receipt id if they "
            "want proof; the receipt holds no erased text."
        )
    elif receipt:
        guidance = (
            "Do not tell the user it is erased: the rows are deleted but traces remain. The "
            "operator should run `lethe maintain`; the receipt records what remains where."
        )
    elif out.status == "declined":
        guidance = "Nothing was deleted. Do not ask again unless the user brings it up."
    else:
        guidance = "Nothing more was deleted. Use the exact ids from recall or forget(query=…)."
    return reply(out, lines, guidance)


def _again(out: ForgetOut) -> str:
    """The call that confirms what is pending (the same ids, from the same session)."""
    ids = out.pending_ids
    args: dict[str, Any] = (
        {"memory_id": ids[0]}
        if out.operation == "forget" and len(ids) == 1
        else {"memory_ids": ids}
    )
    if out.confirmation:
        args["confirmation"] = out.confirmation
    return call(out.operation, **args)


def forget_tools(rt: Runtime) -> list[Tool]:
    def confirm_target(
        ctx: Context,
        memory_id: str | None = None,
        memory_ids: list[str] | None = None,
        namespace: str | None = None,
        operation: Operation = "forget",
        expected_sha256: str | None = None,
    ) -> Elicit[ConfirmForget] | None:
        """Ask the human, when the client lets us: the model cannot answer for them."""
        if not (memory_id or memory_ids) or not can_elicit(ctx):
            return None
        ids = _ids(memory_id, memory_ids, operation)
        if expected_sha256 is not None and len(ids) != 1:
            return None  # the tool refuses the call itself
        with tool_errors():
            mem, grant, ns = rt.enter(ctx, "forget", namespace)
            plan = mem.ask_forget(
                ids,
                session=rt.session(ctx, grant),
                namespace=ns,
                operation=operation,
                actor=rt.actor(ctx, grant),
                expected_sha256=expected_sha256,
            )
        return None if plan is None else Elicit(_question(plan), ConfirmForget)

    def confirm_forget(
        ctx: Context,
        memory_id: str | None = None,
        memory_ids: list[str] | None = None,
        query: str | None = None,
        namespace: str | None = None,
        expected_sha256: str | None = None,
    ) -> Elicit[ConfirmForget] | None:
        if query is not None:  # a query only lists candidates; ids with it are an error
            return None
        return confirm_target(ctx, memory_id, memory_ids, namespace, "forget", expected_sha256)

    def confirm_purge(
        ctx: Context,
        memory_id: str | None = None,
        memory_ids: list[str] | None = None,
        namespace: str | None = None,
    ) -> Elicit[ConfirmForget] | None:
        return confirm_target(ctx, memory_id, memory_ids, namespace, "purge")

    def run(
        ctx: Context,
        operation: Operation,
        ids: list[str],
        namespace: str | None,
        answer: object,
        confirmation: str | None = None,
        expected_sha256: str | None = None,
    ) -> CallToolResult:
        """`answer` is what the resolver produced: an elicitation outcome, or an accept
        without data when the client cannot be asked (then the two-call rule applies). The
        engine decides what it comes to; this formats it."""
        with tool_errors():
            mem, grant, ns = rt.enter(ctx, "forget", namespace)
            said = Answer(said=answer_of(answer))
            session = rt.session(ctx, grant)
            two_call, code = (
                rt.two_call_session(ctx, grant, confirmation)
                if said.said == "not_asked"
                else (session, None)
            )
            outcome = mem.answer_forget(
                ids,
                said,
                session=session,
                namespace=ns,
                operation=operation,
                actor=rt.actor(ctx, grant),
                two_call_session=two_call,
                expected_sha256=expected_sha256,
            )
            c = outcome.confirmation
            if c is not None and not (c.awaiting or (c.executed and c.executed.executed)):
                raise nothing_done(mem, ns, operation, ids, c.refused)
        if c is not None:
            out = _from_confirmation(c, operation, ns)
            if c.awaiting:
                out.confirmation = code
            return _answer(out)
        if outcome.result is not None:
            return _answer(_from_result(outcome.result, ns, mem))
        out = ForgetOut(
            status="declined",
            operation=operation,
            namespace=ns,
            message=declined(outcome.declined or "decline", "deleted"),
        )
        return _answer(out)

    def forget(
        ctx: Context,
        answer: Annotated[ElicitationResult[ConfirmForget], Resolve(confirm_forget)],
        memory_id: MemoryId | None = None,
        memory_ids: Ids | None = None,
        query: Query | None = None,
        filters: Filters | None = None,
        namespace: Namespace = None,
        confirmation: ConfirmationCode | None = None,
        expected_sha256: Sha256 | None = None,
    ) -> Annotated[CallToolResult, ForgetOut]:
        ids = _ids(memory_id, memory_ids)
        if expected_sha256 is not None and len(ids) != 1:
            raise Refused(
                "expected_sha256 goes with exactly one memory_id; nothing was deleted.",
                "Forget each memory you saw on its own, with its own content_sha256.",
                kind="invalid_argument",
            )
        if query is not None:
            if ids:
                raise Refused(
                    "forget takes ids or a query, not both; nothing was deleted.",
                    f"{call('forget', query=query)} lists candidates and deletes nothing; "
                    f"{call('forget', memory_ids=ids)} forgets those ids once the user confirms.",
                    kind="invalid_argument",
                )
            return _candidates(rt, ctx, query, filters, namespace)
        if not ids:
            raise Refused(
                "forget needs memory_id, memory_ids or query; nothing was deleted.",
                f"Find candidates with {call('forget', query=...)} (it deletes nothing), then "
                f"forget the one the user means with {call('forget', memory_id=...)}.",
                kind="invalid_argument",
            )
        return run(ctx, "forget", ids, namespace, answer, confirmation, expected_sha256)

    def purge(
        ctx: Context,
        answer: Annotated[ElicitationResult[ConfirmForget], Resolve(confirm_purge)],
        memory_id: MemoryId | None = None,
        memory_ids: Ids | None = None,
        namespace: Namespace = None,
        confirmation: ConfirmationCode | None = None,
    ) -> Annotated[CallToolResult, ForgetOut]:
        ids = _ids(memory_id, memory_ids, "purge")
        if not rt.allow_purge:
            raise Refused(
                "purge is disabled on this server; nothing was erased.",
                f"{call('forget', memory_ids=ids)} moves them to the trash instead; the "
                "operator enables purge with lethe mcp --allow-purge.",
                kind="disabled",
            )
        if not ids:
            raise Refused(
                "purge needs memory_id or memory_ids; nothing was erased.",
                f"Find the memory with {call('recall', query=...)} or list_trash, then "
                f"{call('purge', memory_id=...)} once the user confirms.",
                kind="invalid_argument",
            )
        return run(ctx, "purge", ids, namespace, answer, confirmation)

    def list_trash(
        ctx: Context,
        limit: Annotated[int, Field(ge=1, le=200)] = 50,
        offset: Seq = 0,
        namespace: Namespace = None,
    ) -> Annotated[CallToolResult, TrashOut]:
        with tool_errors():
            mem, _, ns = rt.enter(ctx, "read", namespace)
            items, total = mem.list_trash(namespace=ns, limit=limit, offset=offset)
        out = TrashOut(
            namespace=ns,
            total=total,
            items=[
                TrashEntryOut(
                    memory=MemoryOut.of(t.memory),
                    forgotten_at=t.memory.forgotten_at.isoformat()
                    if t.memory.forgotten_at
                    else None,
                    forgotten_by=t.memory.forgotten_by,
                    reason=t.memory.forget_reason,
                    purge_after=t.purge_after,
                )
                for t in items
            ],
        )
        lines = [f"{total} forgotten memories in {ns}"] + [
            f"{memory_line(e.memory)} — by {e.forgotten_by}, purge after {when}"
            for e in out.items
            for when in [(e.purge_after or "never")[:10]]
        ]
        return reply(out, lines, "restore(memory_id) brings one back with its links and episodes.")

    def restore(
        memory_id: MemoryId, ctx: Context, namespace: Namespace = None
    ) -> Annotated[CallToolResult, MemoryDetail]:
        with tool_errors() as about:
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            about.ids(mem, ns, want="trash", memory_id=memory_id)
            m = mem.restore(
                memory_id,
                actor=rt.actor(ctx, grant),
                namespace=ns,
                drop_held_expiry=may_weaken(grant.role),
            )
            out = with_links(mem, m, ns)
        lines = [f"Restored {m.id} with {len(out.links)} links:", memory_line(out.memory)]
        return reply(out, lines, "It is back in recall, its episodes and the workspace files.")

    def audit_log(
        ctx: Context,
        memory_id: MemoryId | None = None,
        op: Label | None = None,
        after_seq: Seq = 0,
        limit: Annotated[int, Field(ge=1, le=500)] = 100,
        namespace: Namespace = None,
    ) -> Annotated[CallToolResult, AuditOut]:
        with tool_errors():
            mem, _, ns = rt.enter(ctx, "read", namespace)
            events = mem.audit(
                memory_id=memory_id, op=op, namespace=ns, after_seq=after_seq, limit=limit
            )
        out = AuditOut(
            namespace=ns,
            events=[EventOut.of(e) for e in events],
            next_after_seq=events[-1].seq if len(events) == limit else None,
        )
        lines = [f"{e.seq} {e.at} {e.op} {e.memory_id or '-'} by {e.actor}" for e in out.events]
        more = (
            f"More: call again with after_seq={out.next_after_seq}." if out.next_after_seq else ""
        )
        return reply(out, lines or ["No events."], f"Events are append-only. {more}".strip())

    specs: list[tuple[Any, str, ToolAnnotations, str]] = [
        (forget, "Forget memories", DESTRUCTIVE, FORGET),
        (list_trash, "List the trash", READ, LIST_TRASH),
        (restore, "Restore a forgotten memory", UNDO, RESTORE),
        (audit_log, "Audit log", READ, AUDIT_LOG),
    ]
    if rt.allow_purge:
        specs.insert(1, (purge, "Purge memories for good", DESTRUCTIVE, PURGE))
    return strict_tools(specs)


def _candidates(
    rt: Runtime, ctx: Context, query: str, filters: dict[str, Any] | None, namespace: str | None
) -> CallToolResult:
    with tool_errors():
        mem, grant, ns = rt.enter(ctx, "forget", namespace)
        plan = mem.plan_forget(
            query=query, filters={**(filters or {}), "namespace": ns}, actor=rt.actor(ctx, grant)
        )
    out = ForgetOut(
        status="candidates",
        operation="forget",
        namespace=ns,
        message=f"{len(plan.items)} candidate(s) for {query!r}; nothing was deleted.",
        candidates=[CandidateOut.of(i) for i in plan.items],
    )
    lines = [out.message] + [candidate_line(c) for c in out.candidates]
    guidance = (
        "Pick the exact id and call forget with it (memory_id); ask the user when unsure."
        if plan.items
        else "No memory is close to that. Try recall with other words."
    )
    if plan.edits:
        guidance += (
            " A candidate marked edit holds another fact too: forgetting it would lose that one;"
            " cut the fact out with update_memory and the content shown, once the user agrees."
            " That keeps the old text in the memory's history (as any update does); to cut the"
            " fact from the history too, the user runs lethe forget --query … --execute."
        )
    return reply(out, lines, guidance)


FORGET = """To the trash; restore undoes it.
forget(query="San Francisco") only lists candidates: show them.
forget(memory_id="mem_…") (or memory_ids) deletes once the user confirms: asked directly if
your client can; else the first call answers "Please confirm" and the same call within 5
minutes deletes (with confirmation="<code>" if given). Protected ones (caveat, goal,
importance >= 0.9) refused."""

PURGE = """Erase memories for good (right to be forgotten): content, vectors, links, episode
membership, workspace lines and the content inside audit events. Cannot be undone. Same
confirmation as forget: elicitation, or the same call twice within 5 minutes. Once done,
the output's `receipt` object is a signed erasure receipt (ids and digests, never the text);
its status is "erased" only if no trace was found, else "incomplete": then do not say it is
erased."""

LIST_TRASH = """List forgotten memories (restorable) with who forgot them and when they will
be purged automatically."""

RESTORE = """Bring a forgotten memory back, with its links and episodes."""

AUDIT_LOG = """Read the append-only audit log: every remember, update, link, forget, restore,
purge, declined or expired confirmation, with actor and time. Filter by memory_id or op, e.g.
audit_log(op="forget"); page with after_seq."""
