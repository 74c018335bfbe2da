"""A forgotten fact is forgotten in the past too (issue 43): forgetting one fact of a memory
that holds another cuts it from every earlier version that says it and from the summaries made
from the memory, in the edit's transaction — so `history`, `get`/`recall` as of any moment and
the file's bytes never give it back — on both stores, with the real MiniLM embedder."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from jsonschema import Draft202012Validator

from lethe import Lethe
from lethe.embed import Embedder
from lethe.forget.plan import ForgetPlan, VersionCut, seed_json
from lethe.planner.compound import FORGOTTEN
from lethe.schemas import load
from tests.backends import run_sql, snapshot, sqlite_only
from tests.clocks import Clock

REQUEST = "forget that I take sertraline"
BUS = "The user takes the bus to work."
MILAN = "The user takes sertraline. The user lives in Milan."
BOTH = "The user takes sertraline and is allergic to penicillin."
KEPT = "The user is allergic to penicillin."


def _lived(mem: Lethe, clock: Clock) -> tuple[str, list[datetime]]:
    """One memory through three states (the first without the fact, the next two with it),
    ten days apart, beside others; returns its id and a moment inside each state."""
    memory_id = mem.remember(BUS).id
    mem.remember("Tom plays chess on Thursdays.")
    moments = []
    for text in (MILAN, BOTH):
        clock.advance(days=5)
        moments.append(clock.now)
        clock.advance(days=5)
        mem.update(memory_id, content=text)
    clock.advance(days=5)
    return memory_id, [moments[0], *(m + timedelta(days=10) for m in moments)]


def _edit_plan(mem: Lethe, memory_id: str) -> ForgetPlan:
    plan = mem.plan_forget(query=REQUEST)
    assert [i.id for i in plan.edits] == [memory_id]
    return plan


def test_the_plan_previews_the_cut_of_each_earlier_version_and_changes_nothing(
    cmem: Lethe, clock: Clock, db: str
) -> None:
    memory_id, _ = _lived(cmem, clock)
    before = snapshot(db)
    plan = _edit_plan(cmem, memory_id)
    [edit] = plan.edits
    assert edit.new_content == KEPT
    # Version 2 holds the fact beside Milan; version 1 never held it.
    assert [(c.version, c.new_content) for c in edit.past] == [(2, "The user lives in Milan.")]
    assert "[-takes sertraline. The user-]" in edit.past[0].diff
    assert edit.warning is not None and "version(s) 2" in edit.warning
    shown = seed_json(plan)
    Draft202012Validator(load("forget-response")).validate(shown)
    assert shown["plan"][0]["pastVersions"] == [{"version": 2, "diff": edit.past[0].diff}]
    assert snapshot(db) == before


def test_history_keeps_every_version_in_its_place_without_the_fact(
    cmem: Lethe, clock: Clock, db: str
) -> None:
    memory_id, _ = _lived(cmem, clock)
    kept_before = {v.version: v for v in cmem.history(memory_id)}
    plan = _edit_plan(cmem, memory_id)
    result = cmem.execute(plan)
    assert result.edited == (memory_id,)
    history = cmem.history(memory_id)
    assert [(v.version, v.content) for v in history] == [
        (4, KEPT),
        (3, KEPT),
        (2, "The user lives in Milan."),
        (1, BUS),
    ]
    for v in history[1:]:  # each earlier state keeps when it held, who made it, how
        was = kept_before[v.version]
        assert (v.valid_from, v.op, v.actor) == (was.valid_from, was.op, was.actor)
    assert history[2].valid_until == kept_before[2].valid_until
    assert history[1].content_sha256 == history[0].content_sha256
    assert history[2].content_sha256 != kept_before[2].content_sha256
    assert history[3] == kept_before[1], "a version without the fact is not touched"
    assert not run_sql(db, "SELECT 1 FROM memory_versions WHERE content LIKE ?", ("%sertraline%",))
    # The audit names the versions cut, never the words cut.
    [event] = cmem.audit(memory_id=memory_id, op="edit")
    assert event.details["versions_cut"] == [3, 2]
    events = run_sql(db, "SELECT details, reason FROM events")
    assert "sertraline" not in repr(events).replace(REQUEST, "")
    # Nothing is left to forget: a second request finds no trace of the fact.
    again = cmem.plan_forget(query=REQUEST)
    assert memory_id not in {i.id for i in again.items if i.action != "skip"}
    assert all("sertraline" not in i.preview and not i.past for i in again.items)


def test_get_and_recall_as_of_never_return_the_fact_at_any_moment(
    db: str, embedder: Embedder, clock: Clock
) -> None:
    """A reader that had already loaded the earlier states (recall as of a past moment) before
    the edit, in another `Lethe` on the same store, follows the cut too."""
    with (
        Lethe.open(db, embedder=embedder, clock=clock) as mem,
        Lethe.open(db, embedder=embedder, clock=clock) as reader,
    ):
        memory_id, moments = _lived(mem, clock)
        old = reader.recall("sertraline", k=3, as_of=moments[2])
        assert old[0].memory.content == BOTH, "the fact was there to be read"
        mem.execute(_edit_plan(mem, memory_id))
        for lethe in (mem, reader):
            for moment in moments:
                assert "sertraline" not in lethe.get(memory_id, as_of=moment).content
                for query in ("sertraline", "which medication does the user take"):
                    hits = lethe.recall(query, k=5, as_of=moment)
                    assert all("sertraline" not in h.memory.content for h in hits), (query, moment)
            assert lethe.get(memory_id, as_of=moments[1]).content == "The user lives in Milan."
            past = lethe.recall("where does the user live", k=1, as_of=moments[1])
            assert past[0].memory.content == "The user lives in Milan."


def test_a_version_that_was_only_the_fact_keeps_its_place_and_not_the_fact(
    cmem: Lethe, clock: Clock
) -> None:
    memory_id = cmem.remember("The user takes sertraline.").id
    clock.advance(days=3)
    then = clock.now
    clock.advance(days=3)
    cmem.update(memory_id, content=BOTH)
    plan = _edit_plan(cmem, memory_id)
    assert [(c.version, c.new_content) for c in plan.edits[0].past] == [(1, FORGOTTEN)]
    cmem.execute(plan)
    assert cmem.get(memory_id, as_of=then).content == FORGOTTEN
    assert [v.content for v in cmem.history(memory_id)][-1] == FORGOTTEN
    hits = cmem.recall("sertraline", k=5, as_of=then)
    assert all("sertraline" not in h.memory.content for h in hits)


def test_a_plan_whose_past_is_not_as_previewed_cuts_nothing(
    cmem: Lethe, clock: Clock, db: str
) -> None:
    """A plan is data its holder could alter: one that would leave a version holding the
    fact (its previewed cuts dropped) is stale, and nothing of it is written."""
    memory_id, _ = _lived(cmem, clock)
    plan = _edit_plan(cmem, memory_id)
    altered = plan.model_copy(
        update={"items": tuple(i.model_copy(update={"past": ()}) for i in plan.items)}
    )
    before = snapshot(db)
    result = cmem.execute(altered)
    assert result.edited == () and result.stale == (memory_id,)
    assert result.fresh_plan is not None and result.fresh_plan.edits[0].past == plan.edits[0].past
    assert snapshot(db) == before


def test_a_summary_made_from_the_memory_loses_the_facts_line_in_every_version(
    db: str, embedder: Embedder, clock: Clock, tmp_path: Path
) -> None:
    """The copies follow, as after a purge: the line a decay summary holds of the memory is
    made from the edited text, in the summary's text and its versions; the other lines stay."""
    workspace = tmp_path / "ws"
    others = [
        "User tried a pottery class on a rainy afternoon",
        "User went to a jazz concert in spring with Sam",
    ]
    with Lethe.open(
        db, embedder=embedder, clock=clock, decay_policy="auto", workspace_dir=workspace
    ) as mem:
        ids = [mem.remember(t).id for t in (BOTH, *others)]
        clock.advance(days=55)
        [summary_id] = mem.execute_sweep(mem.sweep()).summary_ids
        mem.update(summary_id, tags=["health"])  # a version of the summary that holds the line
        mem.restore(ids[0])  # the source is live again; the summary still holds its line
        clock.advance(days=1)
        # Only the source is asked about (the summary, a copy, would rival it).
        plan = mem.plan_forget(query=REQUEST, filters={"layer": "episodic"})
        assert [i.id for i in plan.edits] == [ids[0]]
        [copy] = plan.derived
        assert (copy.id, copy.action, copy.derived_from) == (summary_id, "rewrite", (ids[0],))
        assert "sertraline" in mem.get(summary_id).content, "planning changes nothing"
        Draft202012Validator(load("forget-response")).validate(seed_json(plan))
        mem.execute(plan)
        summary = mem.get(summary_id)
        assert f"- {KEPT}" in summary.content
        assert all(t in summary.content for t in others)
        assert [v.content for v in mem.history(summary_id)] == [summary.content] * 3
        [rewrite] = mem.audit(memory_id=summary_id, op="rewrite")
        assert rewrite.details["derived_from"] == [ids[0]]
        assert rewrite.details["versions_cut"] == [2, 1]
        hits = mem.recall("sertraline", k=5, as_of=clock.now - timedelta(hours=1))
        assert all("sertraline" not in h.memory.content for h in hits)
        assert "sertraline" not in "".join(p.read_text() for p in workspace.rglob("*.md"))


@sqlite_only
def test_the_fact_survives_nowhere_in_the_database_files(
    db: str, embedder: Embedder, clock: Clock
) -> None:
    """As after a purge: the full-text index is merged and the WAL emptied after the commit,
    and freed pages are zeroed, so the old versions' words are in no byte of the store."""
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        memory_id, _ = _lived(mem, clock)
        mem.execute(_edit_plan(mem, memory_id))
        raw = b"".join(p.read_bytes() for p in Path(db).parent.glob(Path(db).name + "*"))
        assert b"sertraline" not in raw.lower()
        assert b"Milan" in raw, "the rest is still there"


def test_another_persons_fact_in_an_earlier_version_is_not_cut(cmem: Lethe, clock: Clock) -> None:
    """Only the memory edited loses the fact: Tom's own memory of the same medicine, and its
    earlier version, are not the user's fact and stay as written."""
    tom = cmem.remember("Tom takes sertraline.").id
    clock.advance(days=1)
    cmem.update(tom, content="Tom takes sertraline every morning.")
    memory_id, _ = _lived(cmem, clock)
    cmem.execute(_edit_plan(cmem, memory_id))
    assert [v.content for v in cmem.history(tom)] == [
        "Tom takes sertraline every morning.",
        "Tom takes sertraline.",
    ]
    assert all("sertraline" not in v.content for v in cmem.history(memory_id))


# -- what only an earlier version holds (a request naming an identifier) -----------------------

CODE = "Dentist appointment code is ZX-4821-Q; the dentist is Dr. Okafor."
MOVED = "Dentist appointment moved to Tuesday at 3pm"


def test_a_request_naming_what_only_an_earlier_version_holds_cuts_it_from_there(
    cmem: Lethe, clock: Clock, db: str
) -> None:
    """An update left an identifier in the history: asking to forget it finds it there and
    cuts it from that version, the rest of the version and the memory itself kept."""
    memory_id = cmem.remember(CODE).id
    clock.advance(days=2)
    then = clock.now
    clock.advance(days=2)
    cmem.update(memory_id, content=MOVED)
    cmem.remember("The garden needs watering on Sundays")
    plan = cmem.plan_forget(query="forget the code ZX-4821-Q")
    [item] = [i for i in plan.items if i.id == memory_id]
    assert (item.action, item.new_content, item.diff) == ("edit", MOVED, None)
    assert [(c.version, c.new_content) for c in item.past] == [(1, "The dentist is Dr. Okafor.")]
    assert "earlier versions of 1 memory" in plan.notes
    Draft202012Validator(load("forget-response")).validate(seed_json(plan))
    result = cmem.execute(plan)
    assert result.edited == (memory_id,)
    memory = cmem.get(memory_id)
    assert (memory.content, memory.version) == (MOVED, 2), "the memory itself stays"
    assert [v.content for v in cmem.history(memory_id)] == [MOVED, "The dentist is Dr. Okafor."]
    assert cmem.get(memory_id, as_of=then).content == "The dentist is Dr. Okafor."
    hits = cmem.recall("ZX-4821-Q dentist code", k=5, as_of=then)
    assert hits and all("4821" not in h.memory.content for h in hits)
    [event] = cmem.audit(memory_id=memory_id, op="edit")
    assert event.details["versions_cut"] == [1] and event.details["fields"] == []
    assert "4821" not in repr(run_sql(db, "SELECT details, reason FROM events"))
    again = cmem.plan_forget(query="forget the code ZX-4821-Q")
    assert memory_id not in {i.id for i in again.items}


def test_an_earlier_version_changed_since_the_preview_is_not_cut(
    cmem: Lethe, clock: Clock, db: str
) -> None:
    memory_id = cmem.remember(CODE).id
    clock.advance(days=1)
    cmem.update(memory_id, content=MOVED)
    plan = cmem.plan_forget(query="forget the code ZX-4821-Q")
    [item] = [i for i in plan.items if i.id == memory_id]
    forged = item.past[0].model_copy(update={"content_sha256": "0" * 64})
    altered = plan.model_copy(
        update={
            "items": tuple(
                i.model_copy(update={"past": (forged,)}) if i.id == memory_id else i
                for i in plan.items
            )
        }
    )
    before = snapshot(db)
    result = cmem.execute(altered)
    assert result.stale == (memory_id,) and result.edited == ()
    assert snapshot(db) == before


# -- a cut is for good: it takes nothing the edit did not take ---------------------------------


def _past_after_forget(mem: Lethe, versions: list[str], request: str = REQUEST) -> list[str]:
    memory_id = mem.remember(versions[0]).id
    for text in versions[1:]:
        mem.update(memory_id, content=text)
    plan = mem.plan_forget(query=request)
    if plan.edits:
        mem.execute(plan)
    return [v.content for v in mem.history(memory_id)]


def test_an_earlier_version_sharing_only_a_word_with_the_fact_is_not_cut(cmem: Lethe) -> None:
    """'every morning' was the run's before it was the medication's: the run stays."""
    runs = "The user runs every morning and walks the dog every evening."
    history = _past_after_forget(
        cmem, [runs, "The user takes sertraline every morning and walks the dog every evening."]
    )
    assert runs in history and not any("sertraline" in t for t in history[:1])


def test_an_earlier_version_that_cannot_be_cut_cleanly_keeps_its_other_facts(
    cmem: Lethe,
) -> None:
    """Another person's fact, facts the current text no longer has, a word the fact shares
    with what stays: none is taken with the fact; the plan says these versions stay."""
    for first in (
        "The user's brother Tom has been on sertraline since 2020. The user likes hiking.",
        "Anna moved to Lisbon in 2019; she takes sertraline and her flat is on Rua Augusta.",
        "The user takes sertraline daily since May. The user refills the sertraline at Boots.",
    ):
        memory_id = cmem.remember(first).id
        cmem.update(memory_id, content=BOTH)
        plan = cmem.plan_forget(query=REQUEST)
        [item] = [i for i in plan.edits if i.id == memory_id]
        assert [c.version for c in item.past] == [] or all(c.version != 1 for c in item.past)
        assert item.warning and "stay in the history" in item.warning
        cmem.execute(plan)
        assert first in [v.content for v in cmem.history(memory_id)]
        cmem.execute(cmem.plan_purge([memory_id]))


def test_a_year_or_a_short_number_never_cuts_an_earlier_version(cmem: Lethe) -> None:
    """'2019' names many facts: the past of a memory that merely shares it is not cut."""
    tom = "Tom started at Acme in 2019 and plays chess on Thursdays."
    memory_id = cmem.remember(tom).id
    cmem.update(memory_id, content="Tom plays chess on Thursdays.")
    plan = cmem.plan_forget(query="forget that I moved to Berlin in 2019")
    assert memory_id not in [i.id for i in plan.edits]


def test_an_earlier_version_is_not_read_outside_the_scope_the_person_chose(
    cmem: Lethe,
) -> None:
    memory_id = cmem.remember("Locker code is ZX-4821-Q", tags=["shopping"]).id
    cmem.update(memory_id, content="Locker moved to the second floor")
    plan = cmem.plan_forget(query="forget ZX-4821-Q", filters={"tags": ["health"]})
    assert memory_id not in [i.id for i in plan.items]
    assert memory_id in [i.id for i in cmem.plan_forget(query="forget ZX-4821-Q").edits]


def test_a_plan_whose_cut_invents_words_cuts_nothing(cmem: Lethe, db: str) -> None:
    """A plan is data its holder could alter, and a cut is for good: an edit or a past cut
    that says a word its text never said is stale, and nothing is written."""
    memory_id = cmem.remember(BOTH).id
    other = cmem.remember("Tom signed the lease on 12 March and owes the user 300 euros.").id
    cmem.update(other, content="Tom owes the user 300 euros.")
    plan = cmem.plan_forget(query=REQUEST)
    [edit] = plan.edits
    forged = edit.model_copy(update={"new_content": "The user likes nothing."})
    before = snapshot(db)
    result = cmem.execute(plan.model_copy(update={"items": (forged,)}))
    assert memory_id in result.stale and snapshot(db)["memories"] == before["memories"]
    [v1] = [v for v in cmem.history(other) if v.version == 1]
    current = cmem.get(other)
    invented = edit.model_copy(
        update={
            "id": other,
            "content_sha256": current.content_sha256,
            "new_content": current.content,
            "past": (
                VersionCut(
                    version=1,
                    content_sha256=v1.content_sha256,
                    new_content="Tom never signed anything; the user forgave the debt.",
                    diff="",
                ),
            ),
        }
    )
    result = cmem.execute(plan.model_copy(update={"items": (invented,)}))
    assert other in result.stale
    assert [v.content for v in cmem.history(other)][-1] == v1.content
