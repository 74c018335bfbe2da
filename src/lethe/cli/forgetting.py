"""Commands that delete: forget (a soft delete into the trash) and purge (erasure).

Both show the engine's plan first and carry it out only with a go-ahead (see `confirming`):
`--yes`, or a `y` typed at a terminal. Without a terminal and without `--yes` nothing is
deleted and the status is 3. Which items a plan deletes, skips or refuses is the engine's
decision, never this module's.
"""

from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lethe.cli import confirming
from lethe.cli.app import (
    AgentFilterOpt,
    AllTagsOpt,
    CategoryFilterOpt,
    DbOpt,
    FilterExprOpt,
    JsonOpt,
    LayerFilterOpt,
    NamespaceOpt,
    SinceOpt,
    TagFilterOpt,
    UntilOpt,
    ago,
    app,
    build_filters,
    emit_json,
    fail,
    open_lethe,
    parse_duration,
    report_error,
    stderr,
    stdout,
)
from lethe.cli.confirming import (
    NEEDS_CONFIRMATION,
    ExpectedShaOpt,
    IfShaOpt,
    YesOpt,
    expected_sha256,
)
from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE
from lethe.errors import LetheError

if TYPE_CHECKING:
    from lethe.engine import Lethe
    from lethe.forget.plan import ForgetPlan, PlanItem
    from lethe.forget.results import ForgetResult

__all__ = ["NEEDS_CONFIRMATION", "NOT_PROVEN", "ActorOpt", "ReasonOpt", "YesOpt", "carry_out"]

NOT_PROVEN = 4
"""Exit status of a purge that deleted its rows but whose receipt is `incomplete`: the check
after the cleanup still found erased words in a file lethe owns, or recall still returned an
erased id."""

ReasonOpt = Annotated[
    str | None,
    typer.Option("--reason", metavar="TEXT", help="Why, recorded in the trash and the audit log."),
]
ActorOpt = Annotated[
    str, typer.Option("--actor", metavar="NAME", help="Who is deleting, for the audit log.")
]


@app.command(
    help="Forget memories: a soft delete into the trash, restorable until purged. "
    "The plan is always shown first: what would be forgotten, what is skipped and what is "
    "protected, with why.\n\n"
    "By id (lethe forget ID ...), the plan is carried out once confirmed: y/N at a terminal, "
    "or --yes. By --query or filters (--tag, --agent, --older-than, --filter ...; --all for a "
    "whole namespace), it is only a plan unless --execute; a query alone then forgets only "
    "the memories the description planner marks as meant (a fact, a subject, an identifier; "
    "nothing when it is not sure: see docs/forgetting.md), while filters forget every match."
    "\n\n"
    "Exit status 3: confirmation needed but stdin is not a terminal and --yes was not given "
    "(nothing was changed).",
)
def forget(
    ids: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="ID",
            show_default=False,
            help="Memory ids. Ids bypass similarity thresholds, never protection.",
        ),
    ] = None,
    query: Annotated[
        str | None,
        typer.Option(
            "--query", "-q", metavar="TEXT", help="Plan by meaning and keywords, like recall."
        ),
    ] = None,
    filter_: FilterExprOpt = None,
    namespace: NamespaceOpt = DEFAULT_NAMESPACE,
    agent: AgentFilterOpt = None,
    layer: LayerFilterOpt = None,
    category: CategoryFilterOpt = None,
    tag: TagFilterOpt = None,
    all_tags: AllTagsOpt = False,
    since: SinceOpt = None,
    until: UntilOpt = None,
    older_than: Annotated[
        timedelta | None,
        typer.Option(
            "--older-than",
            metavar="SPAN",
            parser=parse_duration,
            help="Only memories created more than this long ago: 30d, 12h, 90m, 2w.",
        ),
    ] = None,
    not_accessed_since: Annotated[
        timedelta | None,
        typer.Option(
            "--not-accessed-since",
            metavar="SPAN",
            parser=parse_duration,
            help="Only memories not recalled within this span (30d …). Memories never "
            "recalled count as not accessed, however new: add --older-than to spare those.",
        ),
    ] = None,
    all_: Annotated[
        bool, typer.Option("--all", help="Every memory of the namespace (protected ones aside).")
    ] = False,
    execute: Annotated[
        bool,
        typer.Option("--execute", help="Carry out a --query or filter plan (after confirmation)."),
    ] = False,
    instruction: Annotated[
        str | None,
        typer.Option(
            "--instruction",
            "-i",
            metavar="TEXT",
            help="Forget mode (seed 002): plan from a natural-language instruction, with an "
            "LLM when LETHE_LLM_BASE_URL and LETHE_LLM_MODEL are set, else deterministically "
            "(--query, --filter and ids scope it). Prints seed 002's JSON; --execute deletes "
            "after the go-ahead.",
        ),
    ] = None,
    yes: YesOpt = False,
    reason: ReasonOpt = None,
    actor: ActorOpt = DEFAULT_AGENT,
    expected: ExpectedShaOpt = None,
    if_sha256: IfShaOpt = None,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    if instruction is not None:
        scoping = {
            "--agent": agent,
            "--layer": layer,
            "--category": category,
            "--tag": tag,
            "--since": since,
            "--until": until,
            "--older-than": older_than,
            "--not-accessed-since": not_accessed_since,
            "--all": all_ or None,
            "--reason": reason,
        }
        given = [name for name, value in scoping.items() if value]
        if given:
            raise fail(
                f"--instruction does not take {', '.join(given)}",
                hint="forget mode is scoped by --query, --filter (metadata) and ids",
            )
        _forget_mode(instruction, ids, query, filter_, namespace, execute, yes, db)
        return
    if older_than is not None and until is not None:
        raise fail("give --older-than or --until, not both", hint="they both bound creation time")
    filters = build_filters(
        namespace=namespace,
        agent=agent,
        layer=layer,
        category=category,
        tags=tag,
        all_tags=all_tags,
        since=since,
        until=ago(older_than) if older_than is not None else until,
        not_accessed_since=ago(not_accessed_since) if not_accessed_since is not None else None,
    )
    criteria = query is not None or filters.narrows_beyond_namespace() or bool(filter_)
    if all_ and criteria:
        raise fail(
            "--all means the whole namespace: drop it, or drop --query and the filters",
        )
    if not ids and not criteria and not all_:
        raise fail(
            "nothing to forget",
            hint="give memory ids, --query TEXT, filters such as --tag or --older-than, "
            "or --all for the whole namespace",
        )
    if yes and not execute and not ids:
        raise fail(
            "--yes confirms an execution, and this is only a plan",
            hint="add --execute to forget what the plan marks delete",
        )
    with open_lethe(db) as mem:
        plan = mem.plan_forget(
            ids or None,
            query=query,
            filters=filters,
            where=filter_ or (),
            whole_namespace=all_,
            actor=actor,
            reason=reason,
            expected_sha256=expected_sha256(expected, if_sha256),
        )
        carry_out(mem, plan, execute=execute or bool(ids), yes=yes, json_=json_)


@app.command(
    help="Erase memories for good (right to be forgotten): the row, its vector, full-text "
    "entry, links, episode membership, workspace lines and every copy of the content in the "
    "audit log. Cannot be undone. Give ids (live or in the trash), or --older-than for trash "
    "forgotten more than that long ago.\n\n"
    "The plan is shown first and carried out once confirmed: y/N at a terminal, or --yes. "
    "After the cleanup every file lethe owns is read for the erased words and recall is "
    "probed; the result is a signed receipt (its id is printed; --receipt FILE writes it, "
    "--json includes it; see lethe receipt).\n\n"
    "Exit status 3: confirmation needed but stdin is not a terminal and --yes was not given. "
    "Exit status 4: the rows were deleted but the erasure is not proven (receipt status "
    "incomplete: traces were found after the cleanup).",
)
def purge(
    ids: Annotated[
        list[str] | None,
        typer.Argument(metavar="ID", show_default=False, help="Memory ids, live or in the trash."),
    ] = None,
    older_than: Annotated[
        timedelta | None,
        typer.Option(
            "--older-than",
            metavar="SPAN",
            parser=parse_duration,
            help="Every memory in the trash (all namespaces) forgotten more than this long "
            "ago: 30d, 12h, 90m, 2w.",
        ),
    ] = None,
    receipt: Annotated[
        Path | None,
        typer.Option(
            "--receipt",
            metavar="FILE",
            dir_okay=False,
            help="Write the erasure receipt's JSON to FILE, a new file (checked before "
            "anything is purged: an existing file or a missing folder is refused).",
        ),
    ] = None,
    yes: YesOpt = False,
    reason: ReasonOpt = None,
    actor: ActorOpt = DEFAULT_AGENT,
    expected: ExpectedShaOpt = None,
    if_sha256: IfShaOpt = None,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli.receipts import receipt_target

    if receipt is not None:
        receipt_target(receipt, "--receipt")
    if ids and older_than is not None:
        raise fail("give memory ids or --older-than, not both")
    if not ids and older_than is None:
        raise fail(
            "nothing to purge",
            hint="give memory ids (live or in the trash), or --older-than 30d for trash "
            "forgotten more than 30 days ago",
        )
    with open_lethe(db) as mem:
        plan = mem.plan_purge(
            ids or None,
            forgotten_before=ago(older_than) if older_than is not None else None,
            actor=actor,
            reason=reason,
            expected_sha256=expected_sha256(expected, if_sha256),
        )
        carry_out(mem, plan, execute=True, yes=yes, json_=json_, receipt_to=receipt)


# -- plan, confirm, execute ----------------------------------------------------------------


def carry_out(
    mem: "Lethe",
    plan: "ForgetPlan",
    *,
    execute: bool,
    yes: bool,
    json_: bool,
    receipt_to: Path | None = None,
) -> None:
    """Show the plan, get the go-ahead, execute it and set the exit status.

    With --json stdout carries exactly one document: the execution's result when there was
    one, else the plan. A plan with nothing to delete needs no go-ahead: executing it is a
    no-op that still reports what was skipped and refused. A purge's receipt goes to
    `receipt_to` when given (a purge that erased nothing has none).
    """
    from lethe.cli import render
    from lethe.forget.plan import seed_json

    if not execute:
        _show_plan(plan, json_)
        return
    via = "yes" if yes else "plan"  # how the person said go, for a purge's receipt
    if (plan.targets or plan.edits) and not yes:
        via = "prompt"
        if not confirming.interactive():
            _show_plan(plan, json_)
            raise confirming.not_confirmed(_would(plan))
        # The plan goes where the person reads it; with --json, stdout stays one document.
        (stderr() if json_ else stdout()).print(render.plan_view(plan))
        if not confirming.ask(_question(plan)):
            _decline(mem, plan)
            if json_:
                emit_json(seed_json(plan))
            done = "forgotten" if plan.operation == "forget" else "erased"
            typer.echo(f"declined: nothing was {done} (the audit log records it)", err=True)
            return
    elif not json_:
        stdout().print(render.plan_view(plan))
    result = mem.execute(plan, via=via)
    written = None
    if receipt_to is not None and result.receipt is not None:
        from lethe.cli.receipts import write_receipt

        write_receipt(receipt_to, result.receipt)
        written = str(receipt_to)
    _show_result(result, json_, written)
    if receipt_to is not None and result.receipt is None:
        typer.echo(f"no receipt written to {receipt_to}: nothing was purged", err=True)
    unproven = result.receipt is not None and result.receipt.get("status") != "erased"
    try:
        _check(plan, result)
    except LetheError as exc:
        if not unproven:
            raise
        report_error(exc)  # reported, and the status says what matters more
    if unproven and result.receipt is not None:
        rid = result.receipt.get("receipt_id")
        report_error(
            fail(
                f"the rows were deleted but the erasure is not proven: receipt {rid} is "
                f"{result.receipt.get('status')}",
                hint=f"see what remains where with lethe receipt show {rid}; "
                "lethe workspace rebuild re-derives the workspace files, lethe maintain "
                "finishes the store's cleanup",
            )
        )
        raise typer.Exit(NOT_PROVEN)


def _forget_mode(
    instruction: str,
    ids: list[str] | None,
    query: str | None,
    where: list[str] | None,
    namespace: str,
    execute: bool,
    yes: bool,
    db: str | None,
) -> None:
    """Seed 002's flow: always a dry run first; after the go-ahead, exactly its targets go.
    Output is the seed's JSON document (this mode has no other form)."""
    with open_lethe(db) as mem:
        session = mem.forget_session(
            instruction,
            query=query,
            where=where or (),
            explicit_ids=ids or (),
            namespace=namespace,
            dry_run=True,
        )
        plan = session.result()
        approved = [e["id"] for e in plan["plan"] if e.get("action") == "delete"]
        if not execute or not approved:
            emit_json(plan)
            return
        if not yes:
            if not confirming.interactive():
                emit_json(plan)
                raise confirming.not_confirmed(f"{len(approved)} memory(ies) would be forgotten")
            stderr().print_json(data=plan)
            if not confirming.ask(f"Forget {len(approved)} memory(ies)?"):
                mem.decline(approved, session="cli", namespace=namespace)
                emit_json(plan)
                typer.echo("declined: nothing was forgotten (the audit log records it)", err=True)
                return
        emit_json(session.approve())


def _show_plan(plan: "ForgetPlan", json_: bool) -> None:
    from lethe.cli import render
    from lethe.forget.plan import seed_json

    if json_:
        emit_json(seed_json(plan))
    else:
        stdout().print(render.plan_view(plan))


def _show_result(result: "ForgetResult", json_: bool, written: str | None = None) -> None:
    from lethe.cli import render
    from lethe.cli.render_receipts import receipt_line
    from lethe.forget.results import result_json

    if json_:
        body = result_json(result)
        if result.receipt is not None:
            body["receipt"] = result.receipt
        emit_json(body)
        return
    out = stdout()
    out.print(render.result_view(result))
    if result.receipt is not None:
        out.print(receipt_line(result.receipt, written), soft_wrap=True)


def _would(plan: "ForgetPlan") -> str:
    from lethe.cli import render

    verb = "forgotten" if plan.operation == "forget" else "erased for good"
    unprotected = sum(1 for item in plan.targets if item.was_protected)
    note = f" ({unprotected} of them protected until moments ago)" if unprotected else ""
    edits = f", {render.plural(len(plan.edits))} edited" if plan.edits else ""
    return f"{render.plural(len(plan.targets))} would be {verb}{note}{edits}"


def _question(plan: "ForgetPlan") -> str:
    from lethe.cli import render

    count = render.plural(len(plan.targets))
    unprotected = [item.id for item in plan.targets if item.was_protected]
    # Unprotect-then-forget must not look routine: the question says so too.
    warning = (
        f" Protected until moments ago: {', '.join(unprotected)} (see the warning above)."
        if unprotected
        else ""
    )
    if plan.edits:
        edits = render.plural(len(plan.edits))
        cut = f"Cut the fact out of {edits} and their earlier versions (see each edit above)"
        if not plan.targets:
            return f"{cut}? This cannot be undone."
        return (
            f"Forget {count} and {cut[0].lower()}{cut[1:]}?{warning} (the forgotten are "
            "restorable; the cut cannot be undone)"
        )
    if plan.operation == "forget":
        return f"Forget {count}?{warning} (restorable from the trash until purged)"
    return f"Erase {count} for good?{warning} This cannot be undone."


def _decline(mem: "Lethe", plan: "ForgetPlan") -> None:
    """A person said no: that is a declined confirmation, and the audit log records it."""
    from lethe.engine.forgetting import MAX_IDS

    ids = [item.id for item in (*plan.targets, *plan.edits)]
    for start in range(0, len(ids), MAX_IDS):
        mem.decline(ids[start : start + MAX_IDS], session=plan.actor, operation=plan.operation)


def _check(plan: "ForgetPlan", result: "ForgetResult") -> None:
    """Status 1 when something asked for was not done: a target that changed or vanished
    since the preview, or an id named on the command line that is protected or unknown."""
    from lethe.cli import render

    vanished = [i for i in result.not_found if i not in plan.not_found]
    if result.stale or vanished:
        count = render.plural(len(result.stale) + len(vanished))
        raise fail(
            f"{count} not touched: the plan expired before the go-ahead, or they changed or "
            "vanished since the preview",
            hint="run the command again to review a fresh plan",
        )
    if not plan.source.memory_ids or not (result.refused or plan.not_found):
        return
    verb = "forget" if plan.operation == "forget" else "purge"
    problems = [_refusal(item) for item in result.refused]
    for memory_id in plan.not_found:
        close = plan.suggestions.get(memory_id)
        problems.append(
            f"{memory_id}: not found" + (f" (did you mean {', '.join(close)}?)" if close else "")
        )
    hint = "find ids with lethe recall, lethe list or lethe trash" if plan.not_found else None
    raise fail(f"could not {verb} " + "; ".join(problems), hint=hint)


def _refusal(item: "PlanItem") -> str:
    why = f"{item.id}: {item.protection or item.reason}"
    return f"{why} ({item.hint})" if item.hint else why
