"""The scripted tour behind `lethe demo`: the main features in a few seconds, on a throwaway file.

It drives the same `Lethe` API the faces use, so what it shows is what a user gets; nothing
here is staged. It never touches the user's own database or workspace: both live in a fresh
temporary folder that is removed afterwards unless `keep` is set.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.text import Text

from lethe.cli import render
from lethe.engine import Lethe
from lethe.errors import DuplicateMemory

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


def run_tour(console: Console, *, keep: bool = False) -> Path | None:
    """Run the tour; returns the database path when `keep`, else None (everything removed)."""
    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="lethe-demo-"))
    db = folder / "demo.db"
    try:
        with Lethe.open(db, workspace_dir=folder / "workspace") as mem:
            _tour(console, mem)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    console.print()
    elapsed = time.perf_counter() - started
    if keep:
        console.print(
            Text.assemble(
                f"Done in {elapsed:.1f} s. The demo database is kept at ",
                (str(db), "bold"),
                " — try: ",
                (f"lethe list --db {db}", "bold"),
            ),
            soft_wrap=True,
        )
        return db
    shutil.rmtree(folder, ignore_errors=True)
    console.print(f"Done in {elapsed:.1f} s. The demo database was removed (--keep keeps it).")
    return None


def _tour(console: Console, mem: Lethe) -> None:
    console.print(Text("lethe demo — long-term memory that forgets only when told", style="bold"))

    _step(console, 1, "remember", "Each memory is embedded (MiniLM, on this machine) and stored.")
    stored = [mem.remember(**fields) for fields in MEMORIES]  # type: ignore[arg-type]
    console.print(render.memories_table(stored))

    _step(console, 2, "a near-duplicate is refused", f"remember {NEAR_DUPLICATE!r}")
    try:
        mem.remember(NEAR_DUPLICATE)
    except DuplicateMemory as exc:
        console.print(Text(f"refused: {exc.message}", style="yellow"), soft_wrap=True)
    else:
        console.print(Text("stored (the embedder found it different enough)", style="yellow"))

    _step(console, 3, "recall", "Meaning and keywords, fused: recall 'what does Alice drink?'")
    console.print(render.hits_table(mem.recall("what does Alice drink?", k=3)))

    where = "@metadata.topic = pricing"
    _step(console, 4, "recall with a filter", f"recall 'what did we decide?' --filter '{where}'")
    console.print(render.hits_table(mem.recall("what did we decide?", k=5, where=[where])))

    review, page, caveat = stored[1], stored[2], stored[4]
    _step(console, 5, "link", "Typed, undirected links between memories of one namespace.")
    console.print(render.link_line(mem.link(review.id, page.id, kind="blocks", confidence=0.9)))
    console.print(render.link_line(mem.link(page.id, caveat.id, kind="constrained_by")))
    links = mem.links(page.id)
    previews = {link.other(page.id): mem.get(link.other(page.id)).preview(60) for link in links}
    console.print(render.links_table(page.id, links, previews))

    _step(console, 6, "episode", "A summary over a span of memories; members stay memories.")
    episode = mem.create_episode(
        "Pricing week: the review moved, the page launch waits on it and on legal.",
        [review.id, page.id, caveat.id],
        importance=0.7,
    )
    console.print(render.episode_detail(mem.get_episode(episode.id)))

    _step(console, 7, "audit log", "Every change is recorded in the same transaction.")
    console.print(render.events_view(mem.audit()))

    root = mem.settings.workspace_dir
    if root is not None:
        _step(console, 8, "workspace", "Markdown files derived from the database, for humans.")
        for path in sorted(root.rglob("*.md")):
            console.print(Text(str(path.relative_to(root)), style="bold"))
            console.print(Text(path.read_text(encoding="utf-8").rstrip(), style="dim"))
