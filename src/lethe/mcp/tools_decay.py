"""Tools for decay and upkeep: sweep, consolidate, and working memory (context, attend).

A sweep that forgets is asked like a forget: the report first, then `execute` with its
plan_id; when the client can ask its human (elicitation), only their yes carries it out."""

# No `from __future__ import annotations`: the SDK reads these signatures at run time, and
# `Resolve(...)` in an annotation must see the local resolver it names.
from typing import TYPE_CHECKING, Annotated

from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    Resolve,
)
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel, Field

from lethe.common.identifiers import DEFAULT_AGENT
from lethe.engine.working_set import WorkingContext
from lethe.errors import LetheError
from lethe.forget.messages import CONSOLIDATE_GUIDANCE as GUIDANCE
from lethe.forget.sweep import SweepPlan, SweepResult
from lethe.mcp.outputs import Output, reply
from lethe.mcp.params import Label, MemoryId, Namespace, ToolSpec, strict_tools, tool_errors
from lethe.mcp.refusals import Answer, Refused, call, said
from lethe.mcp.refusals import declined as said_no
from lethe.mcp.runtime import Runtime, can_elicit

if TYPE_CHECKING:
    from lethe.engine import Lethe

QUESTION_SAMPLES = 5
"""How many of a sweep's targets the question to the human names."""
SweepPlanId = Annotated[
    str,
    Field(
        pattern=r"^sweep_[0-9a-f]{12}$",
        description="The plan_id of a sweep report from this session",
    ),
]


class ConfirmSweep(BaseModel):
    confirm: bool = Field(description="Yes, carry out this sweep")


class SweepItemOut(Output):
    id: str
    action: str
    risk: float
    heat: float
    days_idle: float
    importance: float


class SweepOut(Output):
    plan_id: str
    namespace: str
    policy: str
    executed: bool
    scanned: int
    keep: int
    compress: int
    drop: int
    samples: list[SweepItemOut]
    dropped_ids: list[str]
    compressed_ids: list[str]
    summary_ids: list[str]
    message: str


class PairOut(Output):
    a_id: str
    a_content: str
    b_id: str
    b_content: str
    similarity: float


class ConsolidateOut(Output):
    namespace: str
    threshold: float
    scanned: int
    total_pairs: int
    pairs: list[PairOut]
    bumped_links: int
    message: str


class WorkingItemOut(Output):
    id: str
    content: str
    layer: str
    importance: float
    tokens: int


class ContextOut(Output):
    agent: str
    namespace: str
    budget: int
    tokens: int
    items: list[WorkingItemOut]
    text: str


def _context_out(working: WorkingContext, namespace: str) -> ContextOut:
    return ContextOut(
        agent=working.agent,
        namespace=namespace,
        budget=working.budget,
        tokens=working.tokens,
        items=[
            WorkingItemOut(
                **i.model_dump(include={"id", "content", "layer", "importance"}), tokens=i.tokens
            )
            for i in working.items
        ],
        text=working.text,
    )


def _sweep_question(mem: "Lethe", plan: SweepPlan) -> str:
    """What the human is asked before a sweep forgets: how many go where, and which."""
    parts = []
    if plan.drop:
        parts.append(f"forget {plan.drop} memor{'y' if plan.drop == 1 else 'ies'}")
    if plan.compress:
        parts.append(f"compress {plan.compress} into summaries (the originals go to the trash)")
    named = []
    for item in plan.items[:QUESTION_SAMPLES]:
        try:
            preview = mem.get(item.id, namespace=plan.namespace).preview(60)
        except LetheError:
            continue  # gone since the report: the sweep leaves it alone
        named.append(f"{item.action} '{preview}' ({item.id})")
    more = len(plan.items) - QUESTION_SAMPLES
    listed = "; ".join(named) + (f"; and {more} more" if more > 0 else "")
    return (
        f"Carry out decay sweep {plan.id} in {plan.namespace}: {' and '.join(parts)}? "
        f"Forgotten memories stay restorable from the trash. {listed}."
    )


def _sweep_answer(
    mem: "Lethe",
    plan: SweepPlan,
    ns: str,
    result: SweepResult | None = None,
    declined: Answer | None = None,
) -> CallToolResult:
    """A sweep's answer: the report, or what carrying it out did (or that the human said no)."""
    samples = [*plan.samples_of("drop"), *plan.samples_of("compress")]
    out = SweepOut(
        plan_id=plan.id,
        namespace=ns,
        policy=plan.policy,
        executed=result is not None,
        scanned=plan.scanned,
        keep=plan.keep,
        compress=plan.compress,
        drop=plan.drop,
        samples=[SweepItemOut(**s.model_dump()) for s in samples],
        dropped_ids=list(result.dropped) if result else [],
        compressed_ids=list(result.compressed) if result else [],
        summary_ids=list(result.summary_ids) if result else [],
        message=result.notes
        if result
        else said_no(declined, "forgotten")
        if declined
        else plan.notes,
    )
    lines = [
        f"{plan.scanned} scanned: {plan.keep} keep, {plan.compress} compress, "
        f"{plan.drop} drop (policy {plan.policy})",
        *(f"- {s.id} {s.action} (risk {s.risk:g}, heat {s.heat:g})" for s in out.samples),
        out.message,
    ]
    if result:
        guidance = "Forgotten memories are in the trash; restore undoes any of them."
    elif declined:
        guidance = "Nothing was forgotten. Do not ask again unless the user brings it up."
    elif plan.executable and (plan.compress or plan.drop):
        guidance = (
            "This is a plan. If the user agrees, call execute_sweep("
            f"plan_id={plan.id!r}) within {int(mem.settings.confirm_ttl_seconds)} s."
        )
    else:
        guidance = (
            "This is a report. Forget chosen ids with forget, or ask the operator to "
            "allow automatic sweeps (decay_policy = auto)."
        )
    return reply(out, lines, guidance)


def decay_tools(rt: Runtime) -> list[Tool]:
    def confirm_sweep(
        ctx: Context, plan_id: str | None = None, namespace: str | None = None
    ) -> Elicit[ConfirmSweep] | None:
        """Ask the human, when the client lets us, before a sweep forgets anything. Whatever
        stops the sweep (no such plan, the policy, the role) is left for the tool to say."""
        if not plan_id or not can_elicit(ctx):
            return None
        try:
            mem, grant, ns = rt.enter(ctx, "forget", namespace)
            mem.check_sweep_allowed()
        except LetheError:
            return None
        plan = rt.peek_sweep_plan(rt.session(ctx, grant), plan_id)
        if plan is None or plan.namespace != ns or not (plan.drop or plan.compress):
            return None
        with tool_errors():
            mem.sweep_asked(plan, session=rt.session(ctx, grant), actor=rt.actor(ctx, grant))
        return Elicit(_sweep_question(mem, plan), ConfirmSweep)

    def sweep(ctx: Context, namespace: Namespace = None) -> Annotated[CallToolResult, SweepOut]:
        with tool_errors():
            mem, grant, ns = rt.enter(ctx, "read", namespace)
            plan = mem.sweep(namespace=ns, actor=rt.actor(ctx, grant))
            rt.keep_sweep_plan(rt.session(ctx, grant), plan)
        return _sweep_answer(mem, plan, ns)

    def execute_sweep(
        ctx: Context,
        answer: Annotated[ElicitationResult[ConfirmSweep], Resolve(confirm_sweep)],
        plan_id: SweepPlanId,
        namespace: Namespace = None,
    ) -> Annotated[CallToolResult, SweepOut]:
        with tool_errors():
            mem, grant, ns = rt.enter(ctx, "forget", namespace)
            session = rt.session(ctx, grant)
            result = None
            declined: Answer | None = None
            # A plan is carried out only as it was shown: a report first, then its id.
            mem.check_sweep_allowed()
            plan = rt.take_sweep_plan(session, plan_id)
            if plan is None or plan.namespace != ns:
                raise Refused(
                    f"No sweep report {plan_id} of this session in {ns} is waiting (it was "
                    "carried out, declined, or made by another session); nothing was forgotten.",
                    "execute_sweep takes the plan_id of a sweep report from this session: call "
                    "sweep() for a new report, show its plan to the user, then (if they agree) "
                    f"{call('execute_sweep', plan_id=...)} with its plan_id.",
                    kind="confirmation",
                )
            asked = isinstance(answer, AcceptedElicitation) and answer.data is not None
            if not isinstance(answer, AcceptedElicitation) or (
                asked and not (isinstance(answer.data, ConfirmSweep) and answer.data.confirm)
            ):
                # The human said no: the plan is dropped, nothing is forgotten.
                declined = said(answer)
                mem.sweep_declined(
                    plan, session=session, actor=rt.actor(ctx, grant), answer=declined
                )
            else:
                result = mem.execute_sweep(plan, actor=rt.actor(ctx, grant))
        return _sweep_answer(mem, plan, ns, result, declined)

    def consolidate(
        ctx: Context,
        threshold: Annotated[float, Field(gt=0.0, le=1.0)] | None = None,
        limit: Annotated[int, Field(ge=1, le=200)] = 20,
        namespace: Namespace = None,
    ) -> Annotated[CallToolResult, ConsolidateOut]:
        with tool_errors():
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            report = mem.consolidate(
                namespace=ns, threshold=threshold, limit=limit, actor=rt.actor(ctx, grant)
            )
        out = ConsolidateOut(
            namespace=ns,
            threshold=report.threshold,
            scanned=report.scanned,
            total_pairs=report.total_pairs,
            pairs=[
                PairOut(
                    a_id=p.a.id,
                    a_content=p.a.content,
                    b_id=p.b.id,
                    b_content=p.b.content,
                    similarity=p.similarity,
                )
                for p in report.pairs
            ],
            bumped_links=len(report.bumped),
            message=report.notes,
        )
        lines = [report.notes]
        for p in out.pairs:
            lines += [
                f"- {p.a_id} <-> {p.b_id} (similarity: {p.similarity:.2f})",
                f"  A: {p.a_content}",
                f"  B: {p.b_content}",
            ]
        guidance = GUIDANCE if out.pairs else "Nothing to merge."
        return reply(out, lines, guidance)

    def context(
        ctx: Context, agent: Label = DEFAULT_AGENT, namespace: Namespace = None
    ) -> Annotated[CallToolResult, ContextOut]:
        with tool_errors():
            mem, _, ns = rt.enter(ctx, "read", namespace)
            working = mem.context(agent, namespace=ns)
        out = _context_out(working, ns)
        guidance = (
            "Keep this in mind for the conversation. attend(memory_ids) brings more in; "
            "evicted memories stay recallable."
        )
        return reply(out, [working.text], guidance)

    def attend(
        memory_ids: Annotated[list[MemoryId], Field(min_length=1, max_length=100)],
        ctx: Context,
        agent: Label = DEFAULT_AGENT,
        namespace: Namespace = None,
    ) -> Annotated[CallToolResult, ContextOut]:
        with tool_errors() as about:
            mem, grant, ns = rt.enter(ctx, "write", namespace)
            about.ids(mem, ns, memory_ids=memory_ids)
            actor = rt.actor(ctx, grant)
            working = mem.attend(memory_ids, agent=agent, namespace=ns, actor=actor)
        out = _context_out(working, ns)
        lines = [working.text]
        if working.evicted:
            lines.append(f"Evicted (still in long-term memory): {', '.join(working.evicted)}")
        if working.too_large:
            lines.append(f"Too large for the budget: {', '.join(working.too_large)}")
        return reply(out, lines, "Evicted memories stay recallable; nothing was deleted.")

    specs: list[ToolSpec] = [
        (
            attend,
            "Bring into working memory",
            ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
            ATTEND,
        ),
        (
            context,
            "Working memory",
            ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True),
            CONTEXT,
        ),
        (
            consolidate,
            "Find near-duplicates",
            ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True),
            CONSOLIDATE,
        ),
        (
            sweep,
            "Decay report",
            ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=False),
            SWEEP,
        ),
        (
            execute_sweep,
            "Carry out a decay sweep",
            ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False),
            EXECUTE_SWEEP,
        ),
    ]
    return strict_tools(specs)


SWEEP = """Report what decay would forget: every memory scored by heat (recent, frequent,
important = hot) and forgetting risk (cold, unimportant, long untouched), and which would be
compressed into a summary or dropped. Changes nothing. Protected memories (caveat, goal,
importance >= 0.9) are never proposed; with the server's decay_policy off, nothing is. Under
decay_policy auto the answer's plan_id can be carried out with execute_sweep."""

EXECUTE_SWEEP = """Carry out a sweep report of this session by its plan_id, only under the
server's decay_policy auto: drops go to the trash; compressed memories are summarized in a new
memory and go to the trash. The user is asked first when your client supports it. Everything
forgotten can be restored."""

CONSOLIDATE = """List near-duplicate memories (cosine >= 0.90 unless threshold is given) with
both contents and their similarity, most similar first. Deletes nothing: if one of a pair is
redundant, forget it by id; if both have value, keep the better perspective. Also strengthens
(once) the links between memories recorded close in time."""

CONTEXT = """An agent's working memory: the memories it keeps in its prompt, most valuable
first (importance, recency, use), within a token budget. Adding over the budget evicts the
least valuable from working memory only: they stay in long-term memory and recall finds
them."""

ATTEND = """Bring memories (e.g. ones just recalled) into an agent's working memory. Over the
token budget the least valuable items are evicted from working memory only: they stay in
long-term memory, recallable; nothing is deleted."""
