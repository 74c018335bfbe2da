"""The scripted tour behind `lethe demo`: the main features in a few seconds, on a throwaway file.

It tells why lethe exists: a vague request to forget deletes nothing (where a similarity rule
would have deleted four memories) and lists its candidates; forgetting by id is planned and
confirmed; a protected memory is refused with its reason; the trash, restore with links, purge
and the audit trail that proves it; and a near-duplicate is kept, not refused or merged.

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
from lethe.errors import InvalidInput, MemoryNotFound
from lethe.forget.plan import ForgetPlan, PlanItem
from lethe.model import Memory

MEMORIES: list[dict[str, object]] = [
    {"content": "Dentist appointment on Tuesday at 10am.", "tags": ["health"]},
    {"content": "Lena has a dentist appointment on Friday at 4pm.", "tags": ["lena"]},
    {"content": "Our dentist is Dr. Patel at Smile Dental on Park Road."},
    {"content": "The dentist said I need a filling in a lower molar.", "tags": ["health"]},
    {
        "content": "I am allergic to penicillin.",
        "layer": "caveat",
        "tags": ["health"],
    },
    {
        "content": "Lena is my daughter; she is in year 4 at Park Road School.",
        "layer": "semantic",
        "tags": ["lena"],
    },
    {
        "content": "Alice prefers green tea over coffee in the morning.",
        "layer": "semantic",
        "category": "preference",
        "tags": ["alice"],
    },
    {"content": "My bank card PIN is 4471."},
]
"""What the tour remembers, by role: TUESDAY is forgotten by id and restored, ALLERGY is
protected (the caveat layer), PIN is purged; the dentist memories are the neighbours a
vague request finds."""
TUESDAY, ALLERGY, PATEL, PIN = 0, 4, 2, 7
NEAR_DUPLICATE = "Dentist appointment on Thursday at 3pm."
VAGUE_REQUEST = "forget the dentist appointment"
COSINE_RULE = 0.6
"""What a plain similarity rule deletes: every memory at cosine >= this to the request. 0.6 is
the query-only bar of the forget-tool specification lethe started from (seed 002); a tool that
"deletes similar" memories works so, at its own threshold."""


class _Steps:
    """Numbered headings, one or two dim lines of explanation under each."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.number = 0

    def __call__(self, title: str, explain: str) -> None:
        self.number += 1
        self.console.print()
        self.console.rule(Text(f"{self.number}. {title}", style="bold"), align="left")
        self.console.print(Text(explain, style="dim"), soft_wrap=True)


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
    step = _Steps(console)

    step("remember", "Each memory is embedded (MiniLM, on this machine) and stored.")
    stored = [mem.remember(**fields) for fields in MEMORIES]  # type: ignore[arg-type]
    for memory in stored:
        console.print(_memory_line(memory), soft_wrap=True)
    tuesday, allergy, patel, pin = stored[TUESDAY], stored[ALLERGY], stored[PATEL], stored[PIN]

    step(
        "similar is not same",
        f"remember {NEAR_DUPLICATE!r}: a near-duplicate of Tuesday's, yet another fact. "
        "It is stored and linked, never refused or merged.",
    )
    near = mem.remember(NEAR_DUPLICATE, tags=["health"])
    for twin in near.near_duplicates:
        console.print(
            Text(f"stored {near.id}, near-duplicate of {twin.id} ({twin.similarity:.2f}): ")
            + Text(twin.content),
            soft_wrap=True,
        )
    for older in near.likely_supersedes:
        console.print(
            Text(
                f"it likely supersedes {older.id} ({older.confidence:.2f}): named, not changed",
                style="dim",
            ),
            soft_wrap=True,
        )
    again = mem.remember(NEAR_DUPLICATE, tags=["health"])
    console.print(
        Text(f"the same text again is not stored twice: {again.id} (existing)", style="yellow"),
        soft_wrap=True,
    )
    duplicate: dict[str, Any] = {
        "content": NEAR_DUPLICATE,
        "id": near.id,
        "near_duplicates": [n.model_dump() for n in near.near_duplicates],
        "links": [link.model_dump(mode="json") for link in mem.links(near.id)],
        "again_existing": again.existing,
    }

    question = "when do I see the dentist?"
    step("recall", f"Meaning and keywords, fused: recall {question!r}")
    hits = mem.recall(question, k=3)
    console.print(render.hits_table(hits))

    step("link", "Typed links between memories; a forgotten memory's links leave and come back.")
    made = mem.link(tuesday.id, patel.id, kind="booked_with")
    console.print(render.link_line(made))

    step(
        "forget by description: nothing is deleted on a guess",
        f"{VAGUE_REQUEST!r}: which one? lethe plans first and marks only what it is sure of; "
        "this plan is then executed as it stands.",
    )
    vague = mem.plan_forget(query=VAGUE_REQUEST)
    console.print(render.plan_view(vague))
    vague_result = mem.execute(vague)
    by_rule = _by_cosine_rule(vague)
    console.print(
        Text.assemble(
            ("Executed, it deleted ", "bold"),
            (render.plural(len(vague_result.executed)), "bold green"),
            f" and listed {len(vague.items)} for review. Deleting every memory at cosine "
            f">= {COSINE_RULE} to the request (the similarities above; {COSINE_RULE} is the "
            "query-only bar of the forget-tool spec lethe started from) would have deleted ",
            (render.plural(len(by_rule)), "bold red"),
            ":",
        ),
        soft_wrap=True,
    )
    for item in by_rule:
        console.print(
            Text.assemble(
                "  ", (item.id, "cyan"), f"  {item.similarity:.2f}  ", item.preview, style="red"
            ),
            soft_wrap=True,
        )

    step(
        "forget by id, with confirmation",
        "The plan is shown first; handing that plan back to execute() is the confirmation.",
    )
    plan = mem.plan_forget([tuesday.id], reason="moved to Thursday")
    console.print(render.plan_view(plan))
    forgot = mem.execute(plan)
    console.print(render.result_view(forgot))

    step("protected", "Caveats, goals and pinned memories are refused on every path, with why.")
    guarded = mem.plan_forget([allergy.id])
    console.print(render.plan_view(guarded))
    refused = mem.execute(guarded)
    still = mem.get(allergy.id)
    console.print(render.result_view(refused))
    console.print(Text(f"{still.id} is still live: {still.content}"), soft_wrap=True)

    step("trash", "Forgetting is a soft delete: who, when, why, and when it will be purged.")
    trash, _ = mem.list_trash()
    console.print(render.trash_table(trash))
    gone_links = [link for link in mem.links(near.id) if tuesday.id in (link.a, link.b)]
    console.print(
        Text(
            f"While in the trash it is out of recall, lists, links and the workspace: "
            f"{near.id} has {render.plural(len(gone_links), 'link')} to it now.",
            style="dim",
        ),
        soft_wrap=True,
    )

    step("restore", "Changed your mind: the memory comes back with its links.")
    restored = mem.restore(tuesday.id)
    links = mem.links(restored.id)
    previews = {
        link.other(restored.id): mem.get(link.other(restored.id)).preview(60) for link in links
    }
    console.print(render.links_table(restored.id, links, previews))

    step(
        "purge",
        "A PIN said by mistake must be erased, not kept in a trash: planned, then confirmed. "
        "It cannot be undone.",
    )
    erase = mem.plan_purge([pin.id], reason="said by mistake")
    console.print(render.plan_view(erase))
    erased = mem.execute(erase)
    console.print(render.result_view(erased))
    trash_after, _ = mem.list_trash()
    probe = "my bank card PIN"
    found = [h.memory.id for h in mem.recall(probe, k=5, touch=False)]
    in_trash = pin.id in {t.memory.id for t in trash_after}
    console.print(
        Text(
            f"{pin.id}: {'still' if _live(mem, pin.id) else 'not'} live, "
            f"{'still' if in_trash else 'not'} in the trash, "
            f"{'still' if pin.id in found else 'not'} found by recall {probe!r}.",
            style="bold",
        ),
        soft_wrap=True,
    )
    pin_events = mem.audit(memory_id=pin.id)

    events = mem.audit()
    step(
        "audit trail",
        f"Every change is recorded in its transaction ({render.plural(len(events), 'event')}: "
        "lethe audit); here, Tuesday's and the PIN's. The purged memory's events keep only "
        "ids, hashes, who and when.",
    )
    console.print(render.events_view([e for e in events if e.memory_id in (tuesday.id, pin.id)]))

    root = mem.settings.workspace_dir
    files: dict[str, str] = {}
    if root is not None:
        step("workspace", "Markdown files derived from the database: no PIN, Tuesday is back.")
        for path in sorted(root.rglob("*.md")):
            text = path.read_text(encoding="utf-8").rstrip()
            files[str(path.relative_to(root))] = text
            console.print(Text(str(path.relative_to(root)), style="bold"))
            console.print(Text(text, style="dim"))

    return {
        "remembered": [m.id for m in stored],
        "duplicate": duplicate,
        "recall": {"query": question, "hits": [h.model_dump(mode="json") for h in hits]},
        "links": [made.model_dump(mode="json")],
        "forget_query": {
            "query": VAGUE_REQUEST,
            "plan": vague.model_dump(mode="json"),
            "deleted": list(vague_result.executed),
            "cosine_rule": {"threshold": COSINE_RULE, "would_delete": [i.id for i in by_rule]},
        },
        "forget_by_id": {
            "plan": plan.model_dump(mode="json"),
            "result": forgot.model_dump(mode="json"),
        },
        "protected": {
            "id": allergy.id,
            "refused": [i.model_dump(mode="json") for i in refused.refused],
            "still_live": still.status == "active",
        },
        "trash": [t.model_dump(mode="json") for t in trash],
        "restored": {
            "id": restored.id,
            "links": [link.model_dump(mode="json") for link in links],
        },
        "purge": {
            "id": pin.id,
            "plan": erase.model_dump(mode="json"),
            "result": erased.model_dump(mode="json"),
            "trash_after": [t.memory.id for t in trash_after],
            "audit": [e.model_dump(mode="json") for e in pin_events],
        },
        "audit": [e.model_dump(mode="json") for e in events],
        "files": files,
    }


def _live(mem: Lethe, memory_id: str) -> bool:
    try:
        mem.get(memory_id)
    except MemoryNotFound:
        return False
    return True


def _memory_line(memory: Memory) -> Text:
    return Text.assemble((memory.id, "cyan"), f"  {memory.layer:<8}  ", memory.content)


def _by_cosine_rule(plan: ForgetPlan) -> list[PlanItem]:
    """What a plain similarity rule would delete: every candidate at or above COSINE_RULE.

    The plan lists every candidate down to cosine 0.4 (below COSINE_RULE), so its items hold
    all the memories the rule would take."""
    return [i for i in plan.items if i.similarity is not None and i.similarity >= COSINE_RULE]
