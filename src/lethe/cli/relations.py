"""Commands that relate memories: link, unlink and episodes."""

from typing import Annotated

import typer

from lethe.cli.app import DbOpt, JsonOpt, NamespaceOpt, _Group, app, emit_json, open_lethe, stdout
from lethe.common.identifiers import DEFAULT_NAMESPACE

A = Annotated[str, typer.Argument(metavar="A", help="First memory id.")]
B = Annotated[str, typer.Argument(metavar="B", help="Second memory id.")]
KindOpt = Annotated[str, typer.Option(help="Link kind, e.g. related, follows, contradicts.")]


@app.command(
    help="Link two memories of one namespace. Links are undirected and typed; linking an "
    "already linked pair sets the new confidence.",
)
def link(
    a: A,
    b: B,
    kind: KindOpt = "related",
    confidence: Annotated[float, typer.Option(help="From 0 to 1.")] = 1.0,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render

    with open_lethe(db) as mem:
        made = mem.link(a, b, kind=kind, confidence=confidence)
    if json_:
        emit_json(made.model_dump(mode="json"))
        return
    stdout().print(render.link_line(made), soft_wrap=True)


@app.command(help="Remove the link of this kind between two memories.")
def unlink(a: A, b: B, kind: KindOpt = "related", db: DbOpt = None, json_: JsonOpt = False) -> None:
    from rich.text import Text

    with open_lethe(db) as mem:
        mem.unlink(a, b, kind=kind)
    if json_:
        emit_json({"unlinked": True, "a": a, "b": b, "kind": kind})
        return
    stdout().print(
        Text.assemble("unlinked ", (a, "cyan"), " and ", (b, "cyan"), f" ({kind})"),
        soft_wrap=True,
    )


episode_app = typer.Typer(
    cls=_Group,
    help="Group memories into episodes (a summary over a time span) and show them.",
    no_args_is_help=True,
)
app.add_typer(episode_app, name="episode")


@episode_app.command(
    "create",
    help="Create an episode from a summary and the ids of its live members (same namespace). "
    "Its time span is that of the members.",
)
def episode_create(
    summary: Annotated[str, typer.Argument(metavar="SUMMARY", help="What the episode was about.")],
    ids: Annotated[list[str], typer.Argument(metavar="ID...", help="Member memory ids.")],
    importance: Annotated[float, typer.Option(help="From 0 to 1.")] = 0.5,
    namespace: NamespaceOpt = DEFAULT_NAMESPACE,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render

    with open_lethe(db) as mem:
        episode = mem.create_episode(summary, ids, importance=importance, namespace=namespace)
    if json_:
        emit_json({**episode.model_dump(mode="json"), "members": list(dict.fromkeys(ids))})
        return
    out = stdout()
    out.print(episode.id, style="cyan", soft_wrap=True)
    out.print(render.episode_line(episode, len(dict.fromkeys(ids))), soft_wrap=True)


@episode_app.command(
    "show",
    help="Show an episode with its live members, and how many members no longer exist.",
)
def episode_show(
    episode_id: Annotated[str, typer.Argument(metavar="EP_ID", help="Episode id (ep_…).")],
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render

    with open_lethe(db, existing=True) as mem:
        view = mem.get_episode(episode_id)
    if json_:
        emit_json(render.episode_json(view))
        return
    stdout().print(render.episode_detail(view))
