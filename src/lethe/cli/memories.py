"""Commands that write and read single memories: remember, recall, show, update, list."""

from typing import TYPE_CHECKING, Annotated

import typer

from lethe.cli.app import (
    AgentFilterOpt,
    AllTagsOpt,
    CategoryFilterOpt,
    DbOpt,
    FilterExprOpt,
    JsonOpt,
    LayerFilterOpt,
    MetadataJsonOpt,
    MetaOpt,
    NamespaceOpt,
    OffsetOpt,
    SinceOpt,
    TagFilterOpt,
    UntilOpt,
    app,
    build_filters,
    emit_items,
    emit_json,
    fail,
    open_lethe,
    parse_metadata,
    read_stdin,
    stdout,
)
from lethe.cli.confirming import ExpectedShaOpt, IfShaOpt, YesOpt, carry_out_change, expected_sha256
from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE, LAYERS
from lethe.errors import ConfirmationRequired

if TYPE_CHECKING:
    from lethe.engine import Lethe
    from lethe.model import Remembered

LAYER_HELP = f"Layer: {', '.join(LAYERS)}."
IdArg = Annotated[str, typer.Argument(metavar="ID", help="Memory id, e.g. mem_0123456789ab.")]
InNamespaceOpt = Annotated[
    str | None,
    typer.Option(
        "--namespace",
        "-n",
        show_default=False,
        help="Only if the memory is in this namespace (ids are unique across namespaces; "
        "this guards a script scoped to one).",
    ),
]
ChangeReasonOpt = Annotated[
    str | None,
    typer.Option(
        "--reason", metavar="TEXT", help="Why, recorded in the history and the audit log."
    ),
]
ChangeActorOpt = Annotated[
    str | None,
    typer.Option(
        "--actor",
        metavar="NAME",
        show_default=False,
        help="Who is changing it, for the history and the audit log (default: the memory's agent).",
    ),
]


ExpiresOpt = Annotated[
    str | None,
    typer.Option(
        "--expires",
        metavar="WHEN",
        show_default=False,
        help="When the memory ends, ISO 8601 (2026-12-01T18:00, UTC without an offset): from "
        "then on nothing returns it and it goes to the trash. On a stored memory, setting or "
        "bringing it forward is confirmed like a forget; a protected memory refuses it.",
    ),
]
ForOpt = Annotated[
    str | None,
    typer.Option(
        "--for",
        metavar="DURATION",
        show_default=False,
        help="Or: it ends this long from now (30m, 12h, 7d, 2w, PT12H), like --expires.",
    ),
]


@app.command(
    help="Store a memory; close neighbours are linked automatically. Nothing is refused: a "
    "near-duplicate is stored too, linked and named in the output.\n\n"
    "Similar is not same: a day, a dose, a name or a 'not' barely moves an embedding, so a "
    "memory at similarity >= 0.95 to a stored one is kept beside it (linked near_duplicate) "
    "and both are printed; keep both, or update or forget one. The same text with the same "
    "fields already stored is not written twice: its id is printed, marked existing "
    "(--allow-duplicate stores it again).\n\n"
    "--supersedes ID: the new text replaces what that memory says ('Alice now works at "
    "Stripe' for 'Alice works at Shopify'). It is updated in place: its old text is kept as a "
    "version (lethe history ID), the options given apply and the others stay as they were; "
    "recall then finds only the new text. A protected memory is refused: change it with "
    "lethe update, which asks for the go-ahead.\n\n"
    "TEXT - reads the memory from standard input (UTF-8), e.g. "
    "`git log -1 --format=%B | lethe remember -`.",
)
def remember(
    text: Annotated[
        str, typer.Argument(metavar="TEXT", help="What to remember; - reads standard input.")
    ],
    layer: Annotated[
        str | None, typer.Option(help=f"{LAYER_HELP} Default: episodic.", show_default=False)
    ] = None,
    category: Annotated[str | None, typer.Option(help="Free-form category.")] = None,
    tag: Annotated[
        list[str] | None, typer.Option("--tag", "-t", metavar="TAG", help="Tag (repeatable).")
    ] = None,
    importance: Annotated[
        float | None,
        typer.Option(help="From 0 to 1; >= 0.9 pins it. Default: 0.5.", show_default=False),
    ] = None,
    meta: MetaOpt = None,
    metadata_json: MetadataJsonOpt = None,
    namespace: NamespaceOpt = DEFAULT_NAMESPACE,
    agent: Annotated[
        str | None,
        typer.Option(help=f"Who is remembering. Default: {DEFAULT_AGENT}.", show_default=False),
    ] = None,
    private: Annotated[
        bool | None,
        typer.Option("--private", help="Keep it out of the workspace files.", show_default=False),
    ] = None,
    allow_duplicate: Annotated[
        bool,
        typer.Option(
            "--allow-duplicate",
            help="Store it even when the same text with the same fields is already stored "
            "(near-duplicates are always stored).",
        ),
    ] = False,
    supersedes: Annotated[
        str | None,
        typer.Option(
            "--supersedes",
            metavar="ID",
            show_default=False,
            help="The live memory of this namespace that the new text replaces: it is updated "
            "in place and its old text kept in its history.",
        ),
    ] = None,
    expires: ExpiresOpt = None,
    for_: ForOpt = None,
    session: Annotated[
        str | None,
        typer.Option(
            "--session",
            metavar="NAME",
            show_default=False,
            help="The conversation this is a turn of (metadata.session): recall then also "
            "ranks it with the turns around it.",
        ),
    ] = None,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from rich.text import Text

    from lethe.cli import render, render_changes
    from lethe.model import Note

    metadata = parse_metadata(meta, metadata_json)
    if text == "-":
        text = read_stdin("the memory")
    with open_lethe(db) as mem:
        try:
            note = Note(
                text,
                agent=agent,
                layer=layer,
                category=category,
                tags=tag,
                metadata=metadata,
                importance=importance,
                private=private,
                allow_duplicate=allow_duplicate,
                supersedes=supersedes,
                expires_at=expires,
                expires_in=for_,
                hold_expiry=True,  # typed by the person: no agent may loosen it unconfirmed
                session=session,
            )
            memory = mem.remember(note, namespace=namespace)
        except ConfirmationRequired as exc:
            from lethe.engine.superseding import superseding_protected

            raise superseding_protected(
                exc.plan,
                hint=f"to change it, run lethe update {exc.plan.memory_id} --content TEXT: it "
                "shows the change and asks for the go-ahead (y/N, or --yes); or remember the "
                "new fact without --supersedes and keep both",
            ) from None
        links = mem.links(memory.id)
        was = _superseded_text(mem, memory)
    if json_:
        emit_json(memory.model_dump(mode="json"))
        return
    out = stdout()
    out.print(memory.id, style="cyan", soft_wrap=True)
    if memory.existing:
        said = "already says this" if memory.superseded else "already remembered"
        line = Text(
            f"{said} in {memory.namespace}/{memory.layer}, nothing written: ", style="yellow"
        )
        line.append(memory.preview(60), style="default")
        out.print(line, soft_wrap=True)
        return
    if memory.superseded:
        line = Text(f"superseded in {memory.namespace}/{memory.layer}: ")
        line.append(memory.preview(60))
        out.print(line, soft_wrap=True)
        line = Text(f"was (kept as version {memory.superseded_version}, lethe history ")
        line.append(memory.id, style="cyan")
        line.append("): ")
        line.append(was, style="dim")
        out.print(line, soft_wrap=True)
    else:
        line = Text(f"remembered in {memory.namespace}/{memory.layer}: ")
        line.append(memory.preview(60))
        if links:
            line.append(f" (linked to {len(links)})")
        out.print(line, soft_wrap=True)
    if memory.expires_at is not None:
        out.print(f"expires {render.when(memory.expires_at)}", soft_wrap=True)
    if memory.near_duplicates:
        out.print(render_changes.near_duplicate_lines(memory.near_duplicates), soft_wrap=True)
    for likely in memory.likely_supersedes:
        line = Text("may supersede ", style="yellow")
        line.append(likely.id, style="cyan")
        line.append(f" (confidence {likely.confidence:.2f}: {'; '.join(likely.evidence)}): ")
        line.append(likely.preview)
        out.print(line, soft_wrap=True)
    if memory.likely_supersedes:
        first = memory.likely_supersedes[0].id
        out.print(
            f"both are kept. If the new fact replaces it, run lethe remember TEXT --supersedes "
            f"{first}: {first} then says it and keeps its old text in its history (and "
            f"{memory.id}, a copy, can be forgotten).",
            soft_wrap=True,
        )


def _superseded_text(mem: "Lethe", memory: "Remembered") -> str:
    """The preview of the text a supersede replaced ('' when nothing was superseded)."""
    if memory.superseded_version is None:
        return ""
    old = [v for v in mem.history(memory.id) if v.version == memory.superseded_version]
    return old[0].preview(60) if old else ""


AsOfOpt = Annotated[
    str | None,
    typer.Option(
        "--as-of",
        metavar="WHEN",
        show_default=False,
        help="Read the memories as they stood at a past moment (ISO 8601, e.g. "
        "2026-05-01 or 2026-05-01T09:00Z): each memory's state then, none made later, none "
        "forgotten since.",
    ),
]


@app.command(
    help="Search memories by meaning and keywords. Hits are ordered by score, the fused rank "
    "of the vector and full-text searches (1.0 = first by both), not by similarity alone; "
    "similarity is the cosine to the query (0-1). --min-similarity drops the hits below it. "
    "--as-of searches the memories as they stood at a past moment (then only --namespace "
    "filters).",
)
def recall(
    query: Annotated[
        str, typer.Argument(metavar="QUERY", help="What to look for, in plain words.")
    ],
    k: Annotated[int, typer.Option("-k", "--k", help="How many hits (1-100).")] = 10,
    filter_: FilterExprOpt = None,
    namespace: NamespaceOpt = DEFAULT_NAMESPACE,
    agent: AgentFilterOpt = None,
    layer: LayerFilterOpt = None,
    category: CategoryFilterOpt = None,
    tag: TagFilterOpt = None,
    all_tags: AllTagsOpt = False,
    since: SinceOpt = None,
    until: UntilOpt = None,
    min_similarity: Annotated[
        float | None,
        typer.Option(
            "--min-similarity",
            metavar="X",
            show_default=False,
            help="Drop hits whose cosine to the query is below X (0 to 1).",
        ),
    ] = None,
    as_of: AsOfOpt = None,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render

    filters = build_filters(
        namespace=namespace,
        agent=agent,
        layer=layer,
        category=category,
        tags=tag,
        all_tags=all_tags,
        since=since,
        until=until,
    )
    with open_lethe(db, existing=True) as mem:
        hits = mem.recall(
            query,
            k=k,
            filters=filters,
            where=filter_ or (),
            min_similarity=min_similarity,
            as_of=as_of,
        )
    if json_:
        emit_items((h.model_dump(mode="json") for h in hits), k=k)
        return
    out = stdout()
    if not hits:
        floor = "" if min_similarity is None else f" at similarity >= {min_similarity:g}"
        out.print(f"no memories match{floor}", style="yellow")
        return
    out.print(render.hits_table(hits))


@app.command(
    help="Show one memory in full, with its links. --as-of shows the state it had at a past "
    "moment (its links are today's)."
)
def show(memory_id: IdArg, as_of: AsOfOpt = None, db: DbOpt = None, json_: JsonOpt = False) -> None:
    from lethe.cli import render

    with open_lethe(db, existing=True) as mem:
        memory = mem.get(memory_id, as_of=as_of)
        links = mem.links(memory_id)
        others = [link.other(memory_id) for link in links]
        previews = {o: mem.get(o).preview(60) for o in others}
    if json_:
        emit_json(
            {
                **memory.model_dump(mode="json"),
                "links": [
                    {**link.model_dump(mode="json"), "other": link.other(memory_id)}
                    for link in links
                ],
            }
        )
        return
    out = stdout()
    out.print(render.memory_detail(memory))
    if links:
        out.print(render.links_table(memory_id, links, previews))
    else:
        out.print("no links")


@app.command(
    help="Change a memory. The state it replaces stays restorable until the memory is "
    "purged (lethe history ID, lethe revert ID VERSION); a change that weakens protection is "
    "confirmed like a forget.\n\n"
    "Only what is given changes. New content is re-embedded. --meta sets keys over the "
    "current metadata; --metadata-json replaces it.\n\n"
    "A change that weakens protection (the text of a protected memory: caveat or goal layer, "
    "importance >= 0.9, sys_ id; a pin lowered below 0.9; a move out of caveat or goal) is "
    "shown first, with the protection it takes away, and carried out only once confirmed: "
    "y/N at a terminal, or --yes.\n\n"
    "Exit status 3: confirmation needed but stdin is not a terminal and --yes was not given "
    "(nothing was changed).",
)
def update(
    memory_id: IdArg,
    content: Annotated[str | None, typer.Option(help="New content.")] = None,
    layer: Annotated[str | None, typer.Option(help=LAYER_HELP)] = None,
    category: Annotated[str | None, typer.Option(help="New category.")] = None,
    tag: Annotated[
        list[str] | None,
        typer.Option(
            "--tag", "-t", metavar="TAG", help="Replace the tags with these (repeatable)."
        ),
    ] = None,
    clear_tags: Annotated[bool, typer.Option("--clear-tags", help="Remove every tag.")] = False,
    importance: Annotated[float | None, typer.Option(help="From 0 to 1.")] = None,
    meta: MetaOpt = None,
    metadata_json: MetadataJsonOpt = None,
    private: Annotated[
        bool | None, typer.Option("--private/--public", help="Change visibility.")
    ] = None,
    namespace: InNamespaceOpt = None,
    yes: YesOpt = False,
    reason: ChangeReasonOpt = None,
    actor: ChangeActorOpt = None,
    expected: ExpectedShaOpt = None,
    if_sha256: IfShaOpt = None,
    expires: ExpiresOpt = None,
    for_: ForOpt = None,
    no_expiry: Annotated[
        bool, typer.Option("--no-expiry", help="Remove its expiry: it never ends by itself.")
    ] = False,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    tags = [] if clear_tags else tag
    given: tuple[object, ...] = (content, layer, category, tags, importance, meta, metadata_json)
    given += (private, expires, for_, no_expiry or None)
    if all(v is None for v in given):
        raise fail(
            "nothing to update", hint="pass --content, --layer, --tag, --importance, --meta …"
        )
    # --meta alone sets keys over the metadata the plan is made from (a change in between
    # makes the plan stale, so none is lost); with --metadata-json it is applied on top of
    # the new object, which replaces the old one.
    merge = meta and metadata_json is None
    from lethe.forget.change import Change

    with open_lethe(db) as mem:
        change = Change(
            content=content,
            layer=layer,
            category=category,
            tags=tags,
            metadata=None if merge else parse_metadata(meta, metadata_json),
            merge_metadata=parse_metadata(meta, None) if merge else None,
            importance=importance,
            private=private,
            reason=reason,
            expected_sha256=expected_sha256(expected, if_sha256),
            expires_at=expires,
            expires_in=for_,
            no_expiry=no_expiry,
        )
        plan = mem.plan_update(memory_id, change=change, actor=actor, namespace=namespace)
        carry_out_change(mem, plan, yes=yes, json_=json_)


@app.command(
    "list",
    help="List live memories, newest first, with the same filters as recall.",
)
def list_(
    filter_: FilterExprOpt = None,
    namespace: NamespaceOpt = DEFAULT_NAMESPACE,
    agent: AgentFilterOpt = None,
    layer: LayerFilterOpt = None,
    category: CategoryFilterOpt = None,
    tag: TagFilterOpt = None,
    all_tags: AllTagsOpt = False,
    since: SinceOpt = None,
    until: UntilOpt = None,
    limit: Annotated[int, typer.Option(help="Page size (1-1000).")] = 50,
    offset: OffsetOpt = 0,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    from lethe.cli import render

    filters = build_filters(
        namespace=namespace,
        agent=agent,
        layer=layer,
        category=category,
        tags=tag,
        all_tags=all_tags,
        since=since,
        until=until,
    )
    with open_lethe(db, existing=True) as mem:
        page = mem.list_memories(filters, where=filter_ or (), limit=limit, offset=offset)
    if json_:
        emit_items(
            (m.model_dump(mode="json") for m in page.items),
            total=page.total,
            offset=page.offset,
            limit=page.limit,
        )
        return
    out = stdout()
    if page.items:
        out.print(render.memories_table(page.items))
    out.print(render.page_caption(page))
