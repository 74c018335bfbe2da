"""Commands that write and read single memories: remember, recall, show, update, list."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.text import Text

from lethe.cli import render
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
    SinceOpt,
    TagFilterOpt,
    UntilOpt,
    app,
    build_filters,
    emit_json,
    fail,
    open_lethe,
    parse_metadata,
    stdout,
)
from lethe.model import DEFAULT_AGENT, DEFAULT_NAMESPACE, LAYERS

LAYER_HELP = f"Layer: {', '.join(LAYERS)}."
IdArg = Annotated[str, typer.Argument(metavar="ID", help="Memory id, e.g. mem_0123456789ab.")]


@app.command(
    help="Store a memory. A near-duplicate of an existing one is refused (exit 1) unless "
    "--allow-duplicate; close neighbours are linked automatically.",
)
def remember(
    text: Annotated[str, typer.Argument(metavar="TEXT", help="What to remember.")],
    layer: Annotated[str, typer.Option(help=LAYER_HELP)] = "episodic",
    category: Annotated[str, typer.Option(help="Free-form category.")] = "",
    tag: Annotated[
        list[str] | None, typer.Option("--tag", "-t", metavar="TAG", help="Tag (repeatable).")
    ] = None,
    importance: Annotated[float, typer.Option(help="From 0 to 1; >= 0.9 pins it.")] = 0.5,
    meta: MetaOpt = None,
    metadata_json: MetadataJsonOpt = None,
    namespace: NamespaceOpt = DEFAULT_NAMESPACE,
    agent: Annotated[str, typer.Option(help="Who is remembering.")] = DEFAULT_AGENT,
    private: Annotated[
        bool, typer.Option("--private", help="Keep it out of the workspace files.")
    ] = False,
    allow_duplicate: Annotated[
        bool,
        typer.Option("--allow-duplicate", help="Store it even if a near-identical memory exists."),
    ] = False,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    metadata = parse_metadata(meta, metadata_json)
    with open_lethe(db) as mem:
        memory = mem.remember(
            text,
            namespace=namespace,
            agent=agent,
            layer=layer,
            category=category,
            tags=tag,
            metadata=metadata,
            importance=importance,
            private=private,
            allow_duplicate=allow_duplicate,
        )
        links = mem.links(memory.id)
    if json_:
        emit_json(memory.model_dump(mode="json"))
        return
    out = stdout()
    out.print(memory.id, style="cyan", soft_wrap=True)
    line = Text(f"remembered in {memory.namespace}/{memory.layer}: ")
    line.append(memory.preview(60))
    if links:
        line.append(f" (linked to {len(links)})")
    out.print(line, soft_wrap=True)


@app.command(
    help="Search memories by meaning and keywords. Similarity is the cosine to the query "
    "(0-1); score is the fused rank (1.0 = first by both).",
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
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
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
    with open_lethe(db) as mem:
        hits = mem.recall(query, k=k, filters=filters, where=filter_ or ())
    if json_:
        emit_json([h.model_dump(mode="json") for h in hits])
        return
    out = stdout()
    if not hits:
        out.print("no memories match", style="yellow")
        return
    out.print(render.hits_table(hits))


@app.command(help="Show one memory in full, with its links.")
def show(memory_id: IdArg, db: DbOpt = None, json_: JsonOpt = False) -> None:
    with open_lethe(db) as mem:
        memory = mem.get(memory_id)
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
    help="Change a memory in place. New content is re-embedded; the audit log keeps the old "
    "content's hash. --meta sets keys over the current metadata; --metadata-json replaces it.",
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
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
    tags = [] if clear_tags else tag
    given = (content, layer, category, tags, importance, meta, metadata_json, private)
    if all(v is None for v in given):
        raise fail(
            "nothing to update", hint="pass --content, --layer, --tag, --importance, --meta …"
        )
    # --meta alone merges keys (inside the engine's transaction); with --metadata-json it
    # is applied on top of the new object, which replaces the old one.
    merge = meta and metadata_json is None
    with open_lethe(db) as mem:
        memory = mem.update(
            memory_id,
            content=content,
            layer=layer,
            category=category,
            tags=tags,
            metadata=None if merge else parse_metadata(meta, metadata_json),
            merge_metadata=parse_metadata(meta, None) if merge else None,
            importance=importance,
            private=private,
        )
    if json_:
        emit_json(memory.model_dump(mode="json"))
        return
    stdout().print(render.memory_detail(memory))


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
    offset: Annotated[int, typer.Option(help="Skip this many first.")] = 0,
    db: DbOpt = None,
    json_: JsonOpt = False,
) -> None:
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
    with open_lethe(db) as mem:
        page = mem.list_memories(filters, where=filter_ or (), limit=limit, offset=offset)
    if json_:
        emit_json(page.model_dump(mode="json"))
        return
    out = stdout()
    if page.items:
        out.print(render.memories_table(page.items))
    out.print(render.page_caption(page))
