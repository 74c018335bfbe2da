"""The go-ahead a person gives at a terminal, for every command that needs one.

forget, purge, sweep --execute, and an update or revert that weakens what protects a memory
are carried out only with a go-ahead: `--yes`, or a `y` typed at a terminal. Without a
terminal and without `--yes` nothing changes and the status is 3, so a script or an agent can
never delete (or unprotect) by accident and can tell "not confirmed" from an error. Whether a
change needs the go-ahead is the engine's decision (`UpdatePlan.needs_confirmation`), never
this module's.

No command lives here, so any command module may import it without changing the order in
which `lethe --help` lists them.
"""

import sys
from contextlib import redirect_stdout
from typing import TYPE_CHECKING, Annotated

import typer

from lethe.cli.app import emit_json, fail, stderr, stdout

if TYPE_CHECKING:
    from lethe.engine import Lethe
    from lethe.forget.change import UpdatePlan
    from lethe.model import Memory

NEEDS_CONFIRMATION = 3
"""Exit status when a change needs a go-ahead that nobody could give (no terminal, no --yes)."""

YesOpt = Annotated[
    bool,
    typer.Option(
        "--yes", "-y", help="Go ahead without asking. Needed when stdin is not a terminal."
    ),
]


ExpectedShaOpt = Annotated[
    str | None,
    typer.Option(
        "--expected-sha256",
        metavar="HASH",
        show_default=False,
        help="Only if the memory's text is still the one with this content_sha256 (as show "
        "--json gives it); otherwise nothing happens and the error gives the current hash.",
    ),
]
IfShaOpt = Annotated[
    str | None,
    typer.Option("--if-sha256", metavar="HASH", hidden=True, show_default=False),
]
"""The earlier spelling of --expected-sha256, kept working (not listed in --help)."""


def expected_sha256(expected: str | None, if_sha256: str | None) -> str | None:
    """The precondition, whichever spelling gave it: passed to the engine, which checks it
    (when it plans, and again when it writes)."""
    if expected is not None and if_sha256 is not None and expected != if_sha256:
        raise fail("give --expected-sha256 once", hint="--if-sha256 is its earlier name")
    return expected if expected is not None else if_sha256


def interactive() -> bool:
    """Whether a person can answer y/N: stdin is a terminal. Tests replace this check."""
    return sys.stdin is not None and sys.stdin.isatty()


def ask(question: str) -> bool:
    """The y/N question (Enter alone is No). Tests replace it to act while it is asked."""
    # typer.confirm echoes the prompt's last character and the answer on stdout; all of the
    # exchange belongs on stderr, so stdout stays the plan, the result or one JSON document.
    with redirect_stdout(sys.stderr):
        return typer.confirm(question, default=False, err=True)


def not_confirmed(what: str) -> typer.Exit:
    """Report that nobody could say yes, and the status to exit with (nothing changed)."""
    typer.echo(
        f"error: not confirmed: {what}, and stdin is not a terminal to ask; pass --yes to go "
        "ahead (nothing was changed)",
        err=True,
    )
    return typer.Exit(NEEDS_CONFIRMATION)


# -- update and revert ---------------------------------------------------------------------


def carry_out_change(mem: "Lethe", plan: "UpdatePlan", *, yes: bool, json_: bool) -> None:
    """Show an update or revert plan, get the go-ahead when the engine says it needs one,
    execute it and print the memory after it.

    With --json stdout carries exactly one document: the memory after the change, or the
    plan when it was not carried out (declined, or not confirmed: status 3).
    """
    from lethe.cli import render_changes

    if not plan.changed:
        memory = mem.get(plan.memory_id, namespace=plan.namespace)
        _show_memory(memory, json_, note=plan.notes)
        return
    via = "plan"
    if plan.needs_confirmation and not yes:
        if not interactive():
            _show_plan(plan, json_)
            raise not_confirmed(_would(plan))
        # The plan goes where the person reads it; with --json, stdout stays one document.
        (stderr() if json_ else stdout()).print(render_changes.change_view(plan))
        if not ask(_question(plan)):
            mem.decline(
                [plan.memory_id], session=plan.actor, namespace=plan.namespace, operation="update"
            )
            if json_:
                emit_json(plan.model_dump(mode="json"))
            typer.echo("declined: nothing was changed (the audit log records it)", err=True)
            return
        via = "prompt"
    else:
        if yes and plan.needs_confirmation:
            via = "yes"
        if not json_:
            stdout().print(render_changes.change_view(plan))
    memory = mem.execute(plan, via=via)
    _show_memory(memory, json_, note=render_changes.changed_line(plan, memory))


def _show_plan(plan: "UpdatePlan", json_: bool) -> None:
    from lethe.cli import render_changes

    if json_:
        emit_json(plan.model_dump(mode="json"))
    else:
        stdout().print(render_changes.change_view(plan))


def _show_memory(memory: "Memory", json_: bool, *, note: str) -> None:
    from lethe.cli import render

    if json_:
        emit_json(memory.model_dump(mode="json"))
        return
    out = stdout()
    out.print(note, style="bold", soft_wrap=True, markup=False, highlight=False)
    out.print(render.memory_detail(memory))


def _would(plan: "UpdatePlan") -> str:
    what = f"reverting {plan.memory_id}" if plan.op == "revert" else f"updating {plan.memory_id}"
    if plan.lost:
        return f"{what} takes away its protection ({'; '.join(plan.lost)})"
    if plan.protection is None and plan.ends is not None:
        return f"{what} makes it expire at {plan.ends.isoformat()}, a forget"
    return f"{what} rewrites a protected memory ({plan.protection})"


def _question(plan: "UpdatePlan") -> str:
    if plan.op == "revert":
        verb = f"Revert {plan.memory_id} to version {plan.revert_to}"
    else:
        verb = f"Update {plan.memory_id}"
    if plan.lost:
        risk = f"It would no longer be protected ({'; '.join(plan.lost)})."
    else:
        risk = f"Its text is protected ({plan.protection})."
    return f"{verb}? {risk} Version {plan.base_version} stays in its history."
