"""`lethe sweep`: the decay report, and under the `auto` policy its execution."""

from typing import TYPE_CHECKING, Annotated

import typer

from lethe.cli import confirming
from lethe.cli.app import DbOpt, JsonOpt, NamespaceOpt, app, emit_json, open_lethe, stdout
from lethe.cli.confirming import YesOpt
from lethe.cli.forgetting import ActorOpt
from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE

if TYPE_CHECKING:
    from lethe.forget.sweep import SweepPlan


@app.command(
    help="Score every memory by heat and forgetting risk (seed 003) and show what the decay "
    "policy would compress or drop. Nothing changes unless --execute, and --execute works "
    "only when the policy is 'auto' (LETHE_DECAY_POLICY; default 'suggest': report only; "
    "'off': nothing is ever proposed). Protected memories are never touched.\n\n"
    "Exit status 3: --execute needs a go-ahead but stdin is not a terminal and --yes was not "
    "given (nothing was changed).",
)
def sweep(
    namespace: NamespaceOpt = DEFAULT_NAMESPACE,
    execute: Annotated[
        bool, typer.Option("--execute", help="Carry the plan out (policy 'auto' only).")
    ] = False,
    yes: YesOpt = False,
    actor: ActorOpt = DEFAULT_AGENT,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    with open_lethe(db, existing=not execute) as mem:
        if execute:
            mem.check_sweep_allowed()
        plan = mem.sweep(namespace=namespace, actor=actor)
        if not execute or not (plan.compress or plan.drop):
            _show(plan, json_)
            return
        if not yes:
            if not confirming.interactive():
                _show(plan, json_)
                raise confirming.not_confirmed(
                    f"the sweep would compress {plan.compress} and drop {plan.drop} memories"
                )
            _show(plan, False)
            if not confirming.ask(f"Compress {plan.compress} and drop {plan.drop} memories?"):
                typer.echo("declined: nothing was forgotten", err=True)
                return
        result = mem.execute_sweep(plan)
    if json_:
        emit_json(result.model_dump(mode="json"))
        return
    stdout().print(result.notes)
    if result.summary_ids:
        stdout().print(f"summary memories: {', '.join(result.summary_ids)}")


def _show(plan: "SweepPlan", json_: bool) -> None:
    from rich.table import Table

    if json_:
        emit_json(plan.model_dump(mode="json"))
        return
    out = stdout()
    out.print(
        f"sweep {plan.id} · namespace {plan.namespace} · policy {plan.policy} · "
        f"{plan.scanned} scanned: {plan.keep} keep ({plan.protected} protected), "
        f"{plan.compress} compress (risk >= {plan.compress_at:g}), "
        f"{plan.drop} drop (risk >= {plan.drop_at:g})"
    )
    if plan.samples:
        table = Table(box=None)
        for column in ("id", "action", "risk", "heat", "idle days", "importance"):
            table.add_column(column)
        for item in [*plan.samples_of("drop"), *plan.samples_of("compress")]:
            table.add_row(
                item.id,
                item.action,
                f"{item.risk:.1f}",
                f"{item.heat:.1f}",
                f"{item.days_idle:.0f}",
                f"{item.importance:g}",
            )
        out.print(table)
    out.print(plan.notes)


@app.command(
    help="Find near-duplicate memories (cosine >= 0.90, LETHE_CONSOLIDATE_THRESHOLD) and show "
    "both contents with their similarity, most similar first; nothing is deleted (use lethe "
    "forget ID for the redundant one). Links between memories recorded close in time are "
    "strengthened once (+0.05, audited as bump).",
)
def consolidate(
    namespace: NamespaceOpt = DEFAULT_NAMESPACE,
    threshold: Annotated[
        float | None, typer.Option("--threshold", help="Cosine from which a pair is listed.")
    ] = None,
    limit: Annotated[int, typer.Option(help="Most pairs to show (1-1000).")] = 50,
    window: Annotated[
        float, typer.Option("--window", help="Minutes apart that count as close in time.")
    ] = 30.0,
    actor: Annotated[
        str, typer.Option("--actor", metavar="NAME", help="Who runs it, for the audit log.")
    ] = DEFAULT_AGENT,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.forget.messages import CONSOLIDATE_GUIDANCE as GUIDANCE

    with open_lethe(db) as mem:
        report = mem.consolidate(
            namespace=namespace,
            threshold=threshold,
            limit=limit,
            window_minutes=window,
            actor=actor,
        )
    if json_:
        emit_json(report.model_dump(mode="json"))
        return
    out = stdout()
    out.print(report.notes)
    for pair in report.pairs:
        out.print(f"- {pair.a.id} <-> {pair.b.id} (similarity: {pair.similarity:.2f})")
        out.print(f"  A: {pair.a.content}", markup=False)
        out.print(f"  B: {pair.b.content}", markup=False)
    if report.pairs:
        out.print("")
        out.print(GUIDANCE)


@app.command(
    help="Show an agent's working memory: the memories it keeps in its prompt, most valuable "
    "first, within its token budget (LETHE_WORKING_BUDGET_TOKENS, default 4000). Plain "
    "output is the prompt-ready text; --json the items with their token counts.",
)
def context(
    agent: Annotated[str, typer.Argument(help="Whose working memory.")] = DEFAULT_AGENT,
    namespace: NamespaceOpt = DEFAULT_NAMESPACE,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    with open_lethe(db, existing=True) as mem:
        working = mem.context(agent, namespace=namespace)
    if json_:
        emit_json(working.model_dump(mode="json"))
        return
    stdout().print(working.text, markup=False, highlight=False)
