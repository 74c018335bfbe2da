"""The scripted tour behind `lethe demo`: the main features in a few seconds, on a throwaway file.

It drives the same `Lethe` API the faces use, so what it shows is what a user gets; nothing
here is staged. It never touches the user's own memories or workspace: the workspace lives in
a fresh temporary folder that is removed afterwards unless `keep` is set, and so does the
database unless the caller names one, which must be new or empty.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from lethe.cli import render
from lethe.engine import Lethe
from lethe.errors import InvalidInput

MEMORIES: list[dict[str, object]] = [
    {
        "content": "Alice prefers green tea over coffee in the morning.",
        "layer": "semantic",
        "category": "preference",
        "tags": ["alice"],
        "importance": 0.6,
    },
    {
        "content": "The quarterly pricing review moved to Thursday at 14:00.",
        "tags": ["meetings"],
        "metadata": {"topic": "pricing", "date": "2024-05-16"},
    },
    {
        "content": "We agreed to ship the new pricing page right after the pricing review.",
        "metadata": {"topic": "pricing"},
        "importance": 0.7,
    },
    {
        "content": "Bob's flight to Lisbon lands at 09:40 on Friday.",
        "tags": ["travel", "bob"],
    },
    {
        "content": "Never email customers about price changes before legal has signed off.",
        "layer": "caveat",
        "metadata": {"topic": "pricing"},
        "importance": 0.9,
    },
]
NEAR_DUPLICATE = "Alice prefers green tea over coffee in the mornings."


def _step(console: Console, number: int, title: str, explain: str) -> None:
    console.print()
    console.rule(Text(f"{number}. {title}", style="bold"), align="left")
    console.print(Text(explain, style="dim"))


def run_tour(
    console: Console, *, keep: bool = False, db: str | Path | None = None
) -> dict[str, Any]:
    """Run the tour, narrating on `console`; returns what it did as JSON-ready values.

    With `db` (a file or a `postgresql://` DSN, kept as text: a DSN is no path) the tour runs
    there and leaves it; a file that already holds
    memories (any audit event at all) is refused before anything is written, so the demo's
    memories can never mix with real ones. Otherwise the database is a temporary file,
    removed with the workspace unless `keep`.
    """
    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="lethe-demo-"))
    path: str | Path = db if db is not None else folder / "demo.db"
    try:
        with Lethe.open(path, workspace_dir=folder / "workspace") as mem:
            if db is not None and mem.audit(limit=1):
                raise InvalidInput(
                    f"{db} already holds memories",
                    hint="the demo runs only on a new or empty database; pick another --db path",
                )
            result = _tour(console, mem)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    console.print()
    elapsed = time.perf_counter() - started
    kept = keep or db is not None
    if not keep:
        shutil.rmtree(folder, ignore_errors=True)
    if kept:
        console.print(
            Text.assemble(
                f"Done in {elapsed:.1f} s. The demo database is kept at ",
                (str(path), "bold"),
                " — try: ",
                (f"lethe list --db {path}", "bold"),
            ),
            soft_wrap=True,
        )
        if keep and db is not None:
            # Beside the temporary database it is obvious; beside a named one it is not.
            console.print(
                Text.assemble("Its workspace files are in ", (str(folder / "workspace"), "bold")),
                soft_wrap=True,
            )
    else:
        console.print(f"Done in {elapsed:.1f} s. The demo database was removed (--keep keeps it).")
    return {
        "db": str(path) if kept else None,
        "workspace": str(folder / "workspace") if keep else None,
        "seconds": round(elapsed, 3),
        **result,
    }


def _tour(console: Console, mem: Lethe) -> dict[str, Any]:
    console.print(Text("lethe demo — long-term memory that forgets only when told", style="bold"))

    _step(console, 1, "remember", "Each memory is embedded (MiniLM, on this machine) and stored.")
    stored = [mem.remember(**fields) for fields in MEMORIES]  # type: ignore[arg-type]
    console.print(render.memories_table(stored))

    _step(
        console,
        2,
        "similar is not same",
        f"remember {NEAR_DUPLICATE!r}: stored, and linked to the memory it nearly repeats",
    )
    near = mem.remember(NEAR_DUPLICATE)
    duplicate: dict[str, Any] = {
        "content": NEAR_DUPLICATE,
        "id": near.id,
        "near_duplicates": [n.model_dump() for n in near.near_duplicates],
    }
    for twin in near.near_duplicates:
        console.print(
            Text(f"near-duplicate of {twin.id} ({twin.similarity:.2f}): {twin.content}"),
            soft_wrap=True,
        )
    again = mem.remember(NEAR_DUPLICATE)
    duplicate["again_existing"] = again.existing
    console.print(
        Text(f"the same text again is not stored twice: {again.id} (existing)", style="yellow"),
        soft_wrap=True,
    )

    question = "what does Alice drink?"
    _step(console, 3, "recall", f"Meaning and keywords, fused: recall {question!r}")
    hits = mem.recall(question, k=3)
    console.print(render.hits_table(hits))

    decided, where = "what did we decide?", "@metadata.topic = pricing"
    _step(console, 4, "recall with a filter", f"recall {decided!r} --filter '{where}'")
    filtered = mem.recall(decided, k=5, where=[where])
    console.print(render.hits_table(filtered))

    review, page, caveat = stored[1], stored[2], stored[4]
    _step(console, 5, "link", "Typed, undirected links between memories of one namespace.")
    made = [
        mem.link(review.id, page.id, kind="blocks", confidence=0.9),
        mem.link(page.id, caveat.id, kind="constrained_by"),
    ]
    for link in made:
        console.print(render.link_line(link))
    links = mem.links(page.id)
    previews = {link.other(page.id): mem.get(link.other(page.id)).preview(60) for link in links}
    console.print(render.links_table(page.id, links, previews))

    _step(console, 6, "episode", "A summary over a span of memories; members stay memories.")
    episode = mem.create_episode(
        "Pricing week: the review moved, the page launch waits on it and on legal.",
        [review.id, page.id, caveat.id],
        importance=0.7,
    )
    view = mem.get_episode(episode.id)
    console.print(render.episode_detail(view))

    _step(console, 7, "audit log", "Every change is recorded in the same transaction.")
    events = mem.audit()
    console.print(render.events_view(events))

    root = mem.settings.workspace_dir
    if root is not None:
        _step(console, 8, "workspace", "Markdown files derived from the database, for humans.")
        for path in sorted(root.rglob("*.md")):
            console.print(Text(str(path.relative_to(root)), style="bold"))
            console.print(Text(path.read_text(encoding="utf-8").rstrip(), style="dim"))

    return {
        "remembered": [m.id for m in stored],
        "duplicate": duplicate,
        "recall": {"query": question, "hits": [h.model_dump(mode="json") for h in hits]},
        "recall_filtered": {
            "query": decided,
            "filter": where,
            "hits": [h.model_dump(mode="json") for h in filtered],
        },
        "links": [link.model_dump(mode="json") for link in made],
        "episode": render.episode_json(view),
        "audit": [e.model_dump(mode="json") for e in events],
    }
