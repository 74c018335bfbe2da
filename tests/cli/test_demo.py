"""The demo tells why lethe exists: each step of the tour happened, on the store it leaves.

The tour runs once, on a named SQLite file (so it is kept), with its narration captured; the
tests read what it returned and printed, and open the store afterwards to check the state it
claims. `cli/test_app.py` covers the command's options (--keep, --db, --json, clean-up).
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from lethe import Lethe
from lethe.cli.demo import (
    ALLERGY,
    COSINE_RULE,
    MEMORIES,
    NEAR_DUPLICATE,
    PATEL,
    PIN,
    TUESDAY,
    VAGUE_REQUEST,
    run_tour,
)
from lethe.embed import Embedder
from lethe.errors import MemoryNotFound
from lethe.planner.request import read as read_request

HEADINGS = [
    "remember",
    "similar is not same",
    "recall",
    "link",
    "forget by description: nothing is deleted on a guess",
    "forget by id, with confirmation",
    "protected",
    "trash",
    "restore",
    "purge",
    "audit trail",
    "workspace",
]


class Tour:
    def __init__(self, result: dict[str, Any], out: str, db: Path) -> None:
        self.result, self.out, self.db = result, out, db
        ids = result["remembered"]
        self.ids = ids
        self.tuesday, self.allergy, self.patel, self.pin = (
            ids[TUESDAY],
            ids[ALLERGY],
            ids[PATEL],
            ids[PIN],
        )
        self.near = result["duplicate"]["id"]

    def section(self, heading: str) -> str:
        """The narration of one step: from its heading to the next one."""
        number = HEADINGS.index(heading) + 1
        start = self.out.index(f"{number}. {heading}")
        following = f"{number + 1}. {HEADINGS[number]}" if number < len(HEADINGS) else "Done in"
        return self.out[start : self.out.index(following, start)]


@pytest.fixture(scope="module")
def tour(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tour]:
    folder = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as patch:
        for name in ("LETHE_DB", "LETHE_WORKSPACE_DIR", "LETHE_MAX_CONTENT_BYTES"):
            patch.delenv(name, raising=False)
        patch.setenv("LETHE_CONFIG", str(folder / "no-such-config.toml"))
        buffer = io.StringIO()
        console = Console(file=buffer, width=200, color_system=None, force_terminal=False)
        db = folder / "tour.db"
        result = run_tour(console, db=db)
        yield Tour(result, buffer.getvalue(), db)


@pytest.fixture(scope="module")
def after(tour: Tour, embedder: Embedder) -> Iterator[Lethe]:
    """The store the tour left, opened again."""
    with Lethe.open(tour.db, embedder=embedder) as mem:
        yield mem


def test_every_step_has_a_heading_in_order(tour: Tour) -> None:
    at = [tour.out.index(f"{n}. {h}") for n, h in enumerate(HEADINGS, 1)]
    assert at == sorted(at)
    assert tour.result["db"] == str(tour.db)


def test_the_tour_remembers_personal_memories_one_protected(tour: Tour, after: Lethe) -> None:
    assert len(tour.ids) == len(MEMORIES) >= 5
    section = tour.section("remember")
    for memory_id, fields in zip(tour.ids, MEMORIES, strict=True):
        assert f"{memory_id}" in section and str(fields["content"]) in section
    assert after.get(tour.allergy).layer == "caveat"
    # Memories that share words: the vague request has several to choose from.
    dentist = [f for f in MEMORIES if "dentist" in str(f["content"]).lower()]
    assert len(dentist) >= 4


def test_the_vague_request_forgets_nothing_and_lists_its_candidates(
    tour: Tour, after: Lethe
) -> None:
    vague = tour.result["forget_query"]
    plan = vague["plan"]
    assert vague["query"] == VAGUE_REQUEST == plan["source"]["query"]
    assert vague["deleted"] == []
    assert plan["ambiguous"] is True
    assert len(plan["items"]) >= 4
    assert {i["action"] for i in plan["items"]} == {"skip"}
    listed = {i["id"] for i in plan["items"]}
    assert {tour.tuesday, tour.near, tour.patel} <= listed
    section = tour.section("forget by description: nothing is deleted on a guess")
    assert f"Executed, it deleted 0 memories and listed {len(plan['items'])} for review" in section
    for memory_id in listed:
        assert f"skip    {memory_id}" in section
    # Nothing of it went anywhere: the one forget in the whole log is the one by id.
    forgets = after.audit(op="forget")
    assert [e.memory_id for e in forgets] == [tour.tuesday]
    assert forgets[0].details["tier"] == "explicit"


def test_the_cosine_rule_count_is_what_the_similarities_imply(tour: Tour, after: Lethe) -> None:
    rule = tour.result["forget_query"]["cosine_rule"]
    items = tour.result["forget_query"]["plan"]["items"]
    implied = [i["id"] for i in items if i["similarity"] is not None and i["similarity"] >= 0.6]
    assert rule == {"threshold": COSINE_RULE, "would_delete": implied}
    assert COSINE_RULE == 0.6  # the query-only bar of seed 002, as the narration says
    assert len(implied) >= 4
    # Not a count of the planner's own making: a plain similarity search over the store (all
    # of those memories are live again at the end) finds the same set at that threshold.
    obj = read_request(VAGUE_REQUEST).object
    hits = after.recall(obj, k=20, min_similarity=COSINE_RULE, touch=False)
    assert {h.memory.id for h in hits} == set(implied)
    # Among them, memories the request cannot have meant: the daughter's appointment, the
    # dentist's address.
    lena = next(i for i, f in enumerate(MEMORIES) if str(f["content"]).startswith("Lena has"))
    assert {tour.ids[lena], tour.patel} <= set(implied)
    section = tour.section("forget by description: nothing is deleted on a guess")
    assert f"cosine >= {COSINE_RULE} to the request" in section
    assert f"would have deleted {len(implied)} memories:" in section
    for item in items:
        if item["id"] in implied:
            assert f"  {item['id']}  {item['similarity']:.2f}  {item['preview']}" in section


def test_forget_by_id_moves_exactly_the_chosen_memory_to_the_trash(
    tour: Tour, after: Lethe
) -> None:
    step = tour.result["forget_by_id"]
    plan, result = step["plan"], step["result"]
    assert [(i["id"], i["action"], i["tier"]) for i in plan["items"]] == [
        (tour.tuesday, "delete", "explicit")
    ]
    assert result["plan_id"] == plan["id"]  # executed with the plan object shown
    assert result["executed"] == [tour.tuesday]
    trash = tour.result["trash"]
    assert [t["memory"]["id"] for t in trash] == [tour.tuesday]
    (item,) = trash
    assert item["memory"]["forgotten_by"] == "user"
    assert item["memory"]["forget_reason"] == "moved to Thursday"
    assert item["purge_after"] is not None
    section = tour.section("forget by id, with confirmation")
    assert f"delete  {tour.tuesday}" in section and f"forgot {tour.tuesday}" in section
    (event,) = after.audit(op="forget")
    assert event.details["plan"] == plan["id"]
    trash_section = tour.section("trash")
    assert tour.tuesday in trash_section and "moved to Thursday" in trash_section
    assert "user" in trash_section and item["purge_after"][:10] in trash_section


def test_the_protected_memory_is_refused_with_its_reason_and_stays(
    tour: Tour, after: Lethe
) -> None:
    protected = tour.result["protected"]
    assert protected["id"] == tour.allergy
    assert [(i["id"], i["protection"]) for i in protected["refused"]] == [
        (tour.allergy, "caveat-layer memories are protected")
    ]
    assert protected["still_live"] is True
    assert after.get(tour.allergy).content == "I am allergic to penicillin."
    assert not after.audit(memory_id=tour.allergy, op="forget")
    section = tour.section("protected")
    assert f"refused {tour.allergy}: caveat-layer memories are protected" in section
    assert f"{tour.allergy} is still live" in section


def test_restore_brings_the_memory_back_with_its_links(tour: Tour, after: Lethe) -> None:
    restored = tour.result["restored"]
    assert restored["id"] == tour.tuesday
    kinds = {(link["kind"], frozenset((link["a"], link["b"]))) for link in restored["links"]}
    assert ("near_duplicate", frozenset((tour.tuesday, tour.near))) in kinds
    assert ("booked_with", frozenset((tour.tuesday, tour.patel))) in kinds
    # In the trash its links had left; they are back, on the store as it was left.
    assert "has 0 links to it now" in tour.section("trash")
    assert after.get(tour.tuesday).status == "active"
    now = {(link.kind, frozenset((link.a, link.b))) for link in after.links(tour.tuesday)}
    assert kinds == now
    assert [e.op for e in after.audit(memory_id=tour.tuesday)][-2:] == ["forget", "restore"]
    assert after.list_trash()[1] == 0
    section = tour.section("restore")
    assert tour.near in section and "near_duplicate" in section and "booked_with" in section


def test_purge_erases_the_memory_and_the_audit_proves_it(tour: Tour, after: Lethe) -> None:
    purge = tour.result["purge"]
    assert purge["id"] == tour.pin
    assert [(i["id"], i["action"]) for i in purge["plan"]["items"]] == [(tour.pin, "delete")]
    assert purge["result"]["plan_id"] == purge["plan"]["id"]
    assert purge["result"]["executed"] == [tour.pin]
    assert tour.pin not in purge["trash_after"]
    remembered, purged = purge["audit"]
    assert (remembered["op"], remembered["details"]) == ("remember", {"redacted": True})
    assert purged["op"] == "purge"
    # The store the tour left: not live, not in the trash, not recalled, not in any event
    # or workspace file.
    with pytest.raises(MemoryNotFound):
        after.get(tour.pin)
    assert tour.pin not in {t.memory.id for t in after.list_trash()[0]}
    assert tour.pin not in {h.memory.id for h in after.recall("bank card PIN", touch=False)}
    # The text, not the bare "4471": hashes and ids are hex and may hold those four digits.
    said = str(MEMORIES[PIN]["content"])
    events = after.audit(limit=1000)
    assert said not in json.dumps([e.model_dump(mode="json") for e in events])
    assert all("PIN" not in text for text in tour.result["files"].values())
    section = tour.section("purge")
    assert f"erased {tour.pin}" in section
    assert f"{tour.pin}: not live, not in the trash, not found by recall" in section
    audit = tour.section("audit trail")
    assert re.search(rf"remember\s+{tour.pin}\s+by user\n\s+redacted=true", audit), audit
    for op, memory_id in [("forget", tour.tuesday), ("restore", tour.tuesday), ("purge", tour.pin)]:
        assert re.search(rf"{op}\s+{memory_id}", audit), (op, audit)


def test_the_near_duplicate_is_stored_and_linked_not_refused_or_merged(
    tour: Tour, after: Lethe
) -> None:
    near = tour.result["duplicate"]
    assert near["content"] == NEAR_DUPLICATE
    assert near["id"] not in tour.ids
    [(twin, similarity)] = [(n["id"], n["similarity"]) for n in near["near_duplicates"]]
    assert twin == tour.tuesday
    assert similarity >= after.settings.duplicate_threshold
    assert any(
        link["kind"] == "near_duplicate" and {link["a"], link["b"]} == {near["id"], twin}
        for link in near["links"]
    )
    assert near["again_existing"] is True  # only the exact same text is not stored twice
    assert after.get(near["id"]).content == NEAR_DUPLICATE
    assert after.get(tour.tuesday).content == MEMORIES[TUESDAY]["content"]
    section = tour.section("similar is not same")
    assert f"stored {near['id']}, near-duplicate of {twin} ({similarity:.2f})" in section


def test_the_whole_log_and_the_store_left(tour: Tour, after: Lethe) -> None:
    ops = [e["op"] for e in tour.result["audit"]]
    assert ops == ["remember"] * (len(MEMORIES) + 1) + ["link", "forget", "restore", "purge"]
    assert after.list_memories().total == len(MEMORIES)  # one purged, the near-duplicate added
    # The workspace shows what is live: the restored memory, not the purged one.
    (text,) = tour.result["files"].values()
    assert tour.tuesday in text and tour.pin not in text
