"""Commands over a memory's versions: history and revert.

Every update keeps the state it replaces as a version, erased only by purge; `history` shows
them and `revert` makes one current again, as a new version (the history keeps the one
reverted from too). A revert that weakens protection is confirmed like an update or a forget.
"""

from typing import Annotated

import typer

from lethe.cli.app import DbOpt, JsonOpt, app, emit_items, open_lethe, stdout
from lethe.cli.confirming import ExpectedShaOpt, IfShaOpt, YesOpt, carry_out_change, expected_sha256
from lethe.cli.memories import ChangeActorOpt, ChangeReasonOpt, IdArg, InNamespaceOpt


@app.command(
    help="Show every version of a memory, newest first, with when, who, how and why.\n\n"
    "The current version comes first, then each state an update or revert replaced, with what "
    "changed from the version before. Old versions stay restorable (lethe revert ID VERSION) "
    "until the memory is purged.",
)
def history(
    memory_id: IdArg,
    namespace: InNamespaceOpt = None,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render_changes

    with open_lethe(db, existing=True) as mem:
        versions = mem.history(memory_id, namespace=namespace)
    if json_:
        emit_items(v.model_dump(mode="json") for v in versions)
        return
    out = stdout()
    out.print(render_changes.history_view(versions))
    if len(versions) > 1:
        out.print(
            f"bring one back with: lethe revert {memory_id} VERSION",
            style="dim",
            soft_wrap=True,
            markup=False,
        )


@app.command(
    help="Make an earlier version of a memory current again, as a new version.\n\n"
    "Nothing is lost: the version reverted from stays in the history. The change is shown "
    "first. A revert that weakens protection (the text of a protected memory, a pin lowered "
    "below 0.9, a move out of caveat or goal) is carried out only once confirmed: y/N at a "
    "terminal, or --yes.\n\n"
    "Exit status 3: confirmation needed but stdin is not a terminal and --yes was not given "
    "(nothing was changed).",
)
def revert(
    memory_id: IdArg,
    version: Annotated[
        int,
        typer.Argument(metavar="VERSION", help="The version to bring back (see lethe history)."),
    ],
    namespace: InNamespaceOpt = None,
    yes: YesOpt = False,
    reason: ChangeReasonOpt = None,
    actor: ChangeActorOpt = None,
    expected: ExpectedShaOpt = None,
    if_sha256: IfShaOpt = None,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    with open_lethe(db) as mem:
        plan = mem.plan_revert(
            memory_id,
            version,
            actor=actor,
            namespace=namespace,
            reason=reason,
            expected_sha256=expected_sha256(expected, if_sha256),
        )
        carry_out_change(mem, plan, yes=yes, json_=json_)
