"""Moving a whole memory with `lethe export > file; lethe import file`: between SQLite files,
SQLite to PostgreSQL and back, keeping ids, links, episodes, the trash and the audit log."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from lethe import Lethe
from lethe.cli import app
from lethe.embed import Embedder
from lethe.errors import MemoryNotFound
from lethe.model import Event
from tests.backends import snapshot
from tests.clocks import Clock as HandClock

runner = CliRunner()

HOME = "User lives in San Francisco with two cats"
SISTER = "User's sister lives in Lisbon and visits every summer"
WIFI = "The old office wifi password was printed on the fridge door"
PIN = "User's bank PIN hint is the birthday of their first cat"
PET = "The cat is called Miso and sleeps on the keyboard"


class Clock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=7)
        return self.now


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's own database, workspace and config out of every test."""
    for name in ("LETHE_DB", "LETHE_WORKSPACE_DIR", "LETHE_MAX_CONTENT_BYTES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LETHE_CONFIG", str(tmp_path / "no-such-config.toml"))


def cli(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


@dataclass
class Source:
    home: str
    sister: str
    wifi: str
    pin: str
    pet: str
    episode: str


def build_source(db: str, embedder: Embedder, start: datetime) -> Source:
    """Live memories in two namespaces, links, an episode, one memory in the trash (linked
    and in the episode) and one purged (a gap in the episode, redacted events)."""
    with Lethe.open(db, embedder=embedder, clock=Clock(start)) as mem:
        home = mem.remember(HOME, tags=["place"], metadata={"city": "SF"}, importance=0.7)
        sister = mem.remember(SISTER, agent="claude", layer="semantic")
        wifi = mem.remember(WIFI, category="office")
        pin = mem.remember(PIN, private=True)
        pet = mem.remember(PET, namespace="pets")
        mem.link(home.id, sister.id, kind="family", confidence=0.8)
        mem.link(wifi.id, home.id, kind="place", confidence=0.6, actor="claude")
        episode = mem.create_episode("Settling in", [home.id, wifi.id, pin.id])
        mem.execute(mem.plan_forget([wifi.id], actor="alice", reason="outdated"), actor="alice")
        mem.execute(mem.plan_purge([pin.id], actor="bob", reason="asked to"), actor="bob")
    return Source(home.id, sister.id, wifi.id, pin.id, pet.id, episode.id)


def all_events(mem: Lethe) -> list[Event]:
    return mem.audit(limit=10_000)


def history(event: Event) -> tuple[Any, ...]:
    """An event as the audit tells it, less its number."""
    return (
        event.at,
        event.op,
        event.memory_id,
        event.namespace,
        event.actor,
        event.reason,
        event.details,
        event.content_sha256,
    )


def link_rows(mem: Lethe) -> set[tuple[Any, ...]]:
    keys = ("a", "b", "kind", "confidence", "created_at", "updated_at")
    return {tuple(row[k] for k in keys) for row in mem.store.iter_rows("links")}


STORES = [("sqlite", "sqlite"), ("sqlite", "postgres"), ("postgres", "sqlite")]


@pytest.fixture
def place(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str, str], str]:
    """A database of the given kind: a SQLite file, or this test's PostgreSQL database."""

    def make(kind: str, name: str) -> str:
        if kind == "postgres":
            dsn: str = request.getfixturevalue("pg_dsn")
            return dsn
        return str(tmp_path / f"{name}.db")

    return make


@pytest.mark.parametrize(
    ("source_kind", "target_kind"), STORES, ids=["-to-".join(s) for s in STORES]
)
def test_round_trip_keeps_ids_links_episodes_trash_and_audit(
    source_kind: str,
    target_kind: str,
    place: Callable[[str, str], str],
    tmp_path: Path,
    embedder: Embedder,
) -> None:
    src, dst = place(source_kind, "source"), place(target_kind, "target")
    ids = build_source(src, embedder, datetime(2026, 3, 1, 9, 0, tzinfo=UTC))

    dump = tmp_path / "dump.jsonl"
    dump.write_text(cli("export", "--db", src).stdout, encoding="utf-8")
    text = dump.read_text(encoding="utf-8")
    assert "PIN" not in text and "first cat" not in text, "a purged memory never travels"
    records = [json.loads(line) for line in text.splitlines()]
    kinds = [r["type"] for r in records]
    assert kinds == sorted(kinds, key=["memory", "link", "episode", "event"].index)
    memories = [r for r in records if r["type"] == "memory"]
    assert [r["id"] for r in memories] == [ids.home, ids.sister, ids.pet, ids.wifi]
    assert [r.get("status") for r in memories] == [None, None, None, "forgotten"]
    assert (memories[-1]["forgotten_by"], memories[-1]["forget_reason"]) == ("alice", "outdated")

    report = json.loads(cli("import", str(dump), "--db", dst, "--json").stdout)
    events_in_file = kinds.count("event")
    assert (report["imported"], report["trashed"], report["skipped_existing"]) == (4, 1, 0)
    assert (report["episodes"], report["events"], report["skipped_events"]) == (
        1,
        events_in_file,
        0,
    )

    with Lethe.open(src, embedder=embedder) as source, Lethe.open(dst, embedder=embedder) as target:
        # Ids, and every field of live and forgotten memories alike.
        assert target.store.memory_ids() == source.store.memory_ids()
        assert target.store.trash_ids() == [ids.wifi]
        every = [ids.home, ids.sister, ids.pet, ids.wifi]
        unread = {"access_count", "last_accessed_at"}
        before = source.store.get_many(every, active_only=False)
        after = target.store.get_many(every, active_only=False)
        assert {k: m.model_dump(exclude=unread) for k, m in after.items()} == {
            k: m.model_dump(exclude=unread) for k, m in before.items()
        }
        assert target.store.get(ids.pin) is None

        # The trash: who, when, why, and the same retention deadline; never recalled.
        (theirs,), (ours,) = source.list_trash()[0], target.list_trash()[0]
        assert ours == theirs
        assert (ours.memory.forgotten_by, ours.memory.forget_reason) == ("alice", "outdated")
        assert ours.memory.forgotten_at == before[ids.wifi].forgotten_at
        assert ids.wifi not in {h.memory.id for h in target.recall(WIFI, k=10, touch=False)}
        with pytest.raises(MemoryNotFound):
            target.get(ids.wifi)

        # Links (those touching the trash too), with their times; the episode with its gap.
        assert link_rows(target) == link_rows(source)
        kinds_between = {(r[0], r[1], r[2]) for r in link_rows(target)}
        assert (*sorted((ids.home, ids.wifi)), "place") in kinds_between
        assert (*sorted((ids.home, ids.sister)), "family") in kinds_between
        assert target.store.episode_member_ids(ids.episode) == [ids.home, ids.wifi, None]
        view, original = target.get_episode(ids.episode), source.get_episode(ids.episode)
        assert view == original
        assert ([m.id for m in view.members], view.missing) == ([ids.home], 2)

        # The audit: the source's history first, in order, with its times, actors, ids,
        # details and hashes (the purged memory's already redacted), numbered from 1 here.
        theirs_events, ours_events = all_events(source), all_events(target)
        n = len(theirs_events)
        assert n == events_in_file
        assert [history(e) for e in ours_events[:n]] == [history(e) for e in theirs_events]
        assert [e.seq for e in ours_events[:n]] == list(range(1, n + 1))
        assert [(e.op, e.actor) for e in ours_events[:n] if e.memory_id == ids.wifi][-1] == (
            "forget",
            "alice",
        )
        assert {e.op for e in ours_events[:n]} >= {"remember", "link", "episode", "forget"}
        erased = [(e.op, e.details) for e in ours_events[:n] if e.memory_id == ids.pin]
        assert [op for op, _ in erased] == ["remember", "purge"]
        assert erased[0][1] == {"redacted": True}
        # Then the import's own record of what it wrote, after all of it.
        own = ours_events[n:]
        assert {e.actor for e in own} == {"import"}
        assert [e.memory_id for e in own if e.op == "import"] == every
        assert [e.op for e in own] == ["import"] * 4 + ["link"] * report["links"] + ["episode"]
        wifi_import = next(e for e in own if e.memory_id == ids.wifi)
        assert wifi_import.details["status"] == "forgotten"
        assert min(e.at for e in own) > max(e.at for e in theirs_events)

        # Restoring after the move brings the memory back with its links.
        restored = target.restore(ids.wifi, actor="alice")
        assert restored.status == "active"
        assert {(lk.other(ids.wifi), lk.kind) for lk in target.links(ids.wifi)} == {
            (ids.home, "place")
        }
        assert ids.wifi in {lk.other(ids.home) for lk in target.links(ids.home)}
        assert [m.id for m in target.get_episode(ids.episode).members] == [ids.home, ids.wifi]
        held = len(all_events(target))

    # Importing the same file again adds nothing: no memory, link, episode or event.
    again = json.loads(cli("import", str(dump), "--db", dst, "--json").stdout)
    assert (again["imported"], again["skipped_existing"], again["links"]) == (0, 4, 0)
    assert (again["episodes"], again["events"], again["skipped_events"]) == (0, 0, n)
    with Lethe.open(dst, embedder=embedder) as target:
        assert len(all_events(target)) == held


def test_trash_keeps_its_retention_clock(tmp_path: Path, embedder: Embedder) -> None:
    """The automatic purge counts from the original forgotten_at, not from the import."""
    start = datetime(2020, 1, 1, 12, 0, tzinfo=UTC)
    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    ids = build_source(src, embedder, start)
    with Lethe.open(src, embedder=embedder) as source:
        records = list(source.export_records())
        forgotten_at = source.store.get(ids.wifi).forgotten_at  # type: ignore[union-attr]
    assert forgotten_at is not None and forgotten_at < start + timedelta(hours=1)
    with Lethe.open(dst, embedder=embedder) as target:
        assert target.import_records(records).trashed == 1
    for days, expired in ((29, ()), (31, (ids.wifi,))):
        later = forgotten_at + timedelta(days=days)
        with Lethe.open(dst, embedder=embedder, clock=lambda at=later: at) as target:
            assert target.maintain().expired == expired
    with Lethe.open(dst, embedder=embedder) as target:
        assert target.store.get(ids.wifi) is None
        retention = [e for e in target.audit(op="purge") if "retention_days" in e.details]
        assert [e.actor for e in retention] == ["lethe"]


def test_events_go_after_the_targets_own_and_are_never_doubled(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Into a store with a history of its own, the file's events are appended after it, in
    their order; a second import, even after a purge redacted some of them, adds none."""
    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    ids = build_source(src, embedder, datetime(2026, 3, 1, 9, 0, tzinfo=UTC))
    dump = tmp_path / "dump.jsonl"
    dump.write_text(cli("export", "--db", src).stdout, encoding="utf-8")
    with Lethe.open(src, embedder=embedder) as source:
        theirs = [history(e) for e in all_events(source)]
    with Lethe.open(dst, embedder=embedder) as target:
        own = target.remember("The target's own note about the garden")
        target.link(own.id, target.remember("Tomatoes go in the sunny corner").id)
        mine = all_events(target)
    assert [e.seq for e in mine] == [1, 2, 3]

    cli("import", str(dump), "--db", dst)
    with Lethe.open(dst, embedder=embedder) as target:
        events = all_events(target)
        assert events[:3] == mine
        assert [history(e) for e in events[3 : 3 + len(theirs)]] == theirs
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        # The target erases a memory it received: its events, imported ones too, are redacted.
        target.execute(target.plan_purge([ids.sister]), actor="bob")
        count = len(all_events(target))
        assert all(
            e.details == {"redacted": True}
            for e in all_events(target)
            if e.memory_id == ids.sister and e.op != "purge"
        )

    report = json.loads(cli("import", str(dump), "--db", dst, "--json").stdout)
    # The erased memory stays erased (issue 43: it came back from the file with its links,
    # against its signed receipt); its history, redacted here, is not written twice.
    assert (report["imported"], report["events"], report["skipped_events"]) == (0, 0, len(theirs))
    assert (report["skipped_purged"], report["purged"]) == (1, [ids.sister])
    assert report["links"] == 0
    with Lethe.open(dst, embedder=embedder) as target:
        assert all_events(target)[count:] == []
        assert target.store.get(ids.sister) is None


# -- malformed trash and event records -------------------------------------------------------

GOOD = [
    {"type": "memory", "id": "mem_00000000000a", "content": "A fine live memory"},
    {
        "type": "memory",
        "id": "mem_00000000000b",
        "content": "A fine forgotten memory",
        "status": "forgotten",
        "forgotten_at": "2026-03-01T09:00:00+00:00",
        "forgotten_by": "alice",
        "forget_reason": None,
    },
    {"type": "link", "a": "mem_00000000000a", "b": "mem_00000000000b", "kind": "related"},
    {
        "type": "event",
        "seq": 1,
        "at": "2026-03-01T08:00:00+00:00",
        "op": "remember",
        "memory_id": "mem_00000000000a",
        "namespace": "default",
        "actor": "user",
        "reason": None,
        "details": {},
        "content_sha256": "0" * 64,
    },
]
EVENT, TRASHED = GOOD[3], GOOD[1]
BAD: dict[str, tuple[dict[str, Any], str]] = {
    "event without op": ({**EVENT, "op": None}, "an event record needs a one-line text 'op'"),
    "event without actor": (
        {k: v for k, v in EVENT.items() if k != "actor"},
        "needs a one-line text 'actor'",
    ),
    "event time not ISO": ({**EVENT, "at": "yesterday"}, "event at must be an ISO-8601 time"),
    "event carrying content": ({**EVENT, "content": "secret"}, "unknown event field(s) content"),
    "event hash not a hash": (
        {**EVENT, "content_sha256": "the text itself"},
        "content_sha256 must be 64 hex digits",
    ),
    "event details not an object": ({**EVENT, "details": [1]}, "details must be a JSON object"),
    "event seq not a number": ({**EVENT, "seq": "7"}, "event seq must be a whole number"),
    "event bad memory id": ({**EVENT, "memory_id": "mem_x"}, "malformed memory id"),
    "trash without forgotten_at": (
        {k: v for k, v in TRASHED.items() if k != "forgotten_at"},
        "forgotten_at must be an ISO-8601 time",
    ),
    "trash without forgotten_by": (
        {**TRASHED, "forgotten_by": ""},
        "needs a one-line text 'forgotten_by'",
    ),
    "trash without id": (
        {k: v for k, v in TRASHED.items() if k != "id"},
        "a forgotten memory record needs its id",
    ),
    "unknown status": ({**TRASHED, "status": "deleted"}, "status must be 'active' or 'forgotten'"),
    "forgotten_at on a live memory": (
        {**TRASHED, "status": "active"},
        "forgotten_at, forgotten_by given for a memory whose status is not 'forgotten'",
    ),
    "episode member malformed": (
        {
            "type": "episode",
            "id": "ep_00000000000c",
            "summary": "A day",
            "start_at": "2026-03-01T08:00:00+00:00",
            "end_at": "2026-03-01T09:00:00+00:00",
            "members": ["mem_00000000000a", None, "nope"],
        },
        "malformed memory id 'nope'",
    ),
}


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_malformed_trash_or_event_record_imports_nothing(
    kind: str, place: Callable[[str, str], str], tmp_path: Path, embedder: Embedder
) -> None:
    db = place(kind, "target")
    with Lethe.open(db, embedder=embedder) as mem:
        mem.remember("Something the target already knew")
    before = snapshot(db)
    good_file = tmp_path / "good.jsonl"
    good_file.write_text("".join(json.dumps(r) + "\n" for r in GOOD), encoding="utf-8")
    for case, (record, fragment) in BAD.items():
        body = [*GOOD[:3], record, *GOOD[3:]]
        source = tmp_path / "bad.jsonl"
        source.write_text("".join(json.dumps(r) + "\n" for r in body), encoding="utf-8")
        result = runner.invoke(app, ["import", str(source), "--db", db])
        assert result.exit_code == 1, (case, result.stdout, result.stderr)
        (line,) = result.stderr.splitlines()
        assert line.startswith("error: line 4: "), (case, line)
        assert fragment in line, (case, line)
        assert snapshot(db) == before, case
    # The same file without the bad line imports: the failures were the bad line's alone.
    good = json.loads(cli("import", str(good_file), "--db", db, "--json").stdout)
    assert (good["imported"], good["trashed"], good["links"], good["events"]) == (2, 1, 1, 1)


def test_an_export_taken_before_a_purge_does_not_bring_it_back(mem: Lethe) -> None:
    """What was purged stays purged: importing an older export (the purged memory with its
    versions and its audit events) refuses that memory by its id, names and counts it, and
    the purge's signed receipt still holds; what else the file holds is imported."""
    kept = mem.remember(HOME)
    gone = mem.remember(WIFI)
    mem.update(gone.id, content=WIFI + " until the move")
    trashed = mem.remember(PIN)
    mem.execute(mem.plan_forget([trashed.id]))
    old_export = list(mem.export_records())
    result = mem.execute(mem.plan_purge([gone.id, trashed.id]))
    assert set(result.executed) == {gone.id, trashed.id} and result.receipt is not None
    mem.execute(mem.plan_forget([kept.id]))
    mem.execute(mem.plan_purge([kept.id]))
    reborn = mem.remember(HOME)  # the person said it again: a new memory, not the purged one

    report = mem.import_records(old_export)
    assert report.skipped_purged == 3
    assert set(report.purged) == {gone.id, trashed.id, kept.id}
    for memory_id in (gone.id, trashed.id, kept.id):
        assert mem.store.get(memory_id) is None  # neither live nor in the trash
        assert [e.op for e in mem.audit(memory_id=memory_id)].count("remember") == 1
    assert not mem.history(reborn.id)[1:]
    assert mem.verify_receipt(result.receipt) == []
    assert WIFI not in json.dumps(list(mem.export_records()))


def test_a_plain_line_with_a_purged_text_is_refused_in_its_namespace_only(mem: Lethe) -> None:
    """A line without an id whose text was purged from that namespace is refused, named by
    its text's hash; the same text into another namespace is an ordinary import."""
    gone = mem.remember(WIFI)
    mem.execute(mem.plan_purge([gone.id]))
    report = mem.import_records(
        [{"content": WIFI}, {"content": WIFI, "namespace": "work"}, {"content": PET}]
    )
    assert report.imported == 2 and report.skipped_purged == 1
    assert report.purged == (f"sha256:{gone.content_sha256}",)
    assert WIFI not in [m.content for m in mem.list_memories().items]
    assert WIFI in [m.content for m in mem.list_memories({"namespace": "work"}).items]


def test_later_events_of_a_purged_memory_are_not_appended(
    mem: Lethe, embedder: Embedder, tmp_path: Path
) -> None:
    """The memory came from another store, was purged here, and changed there since: the
    other store's newer export brings neither the memory nor its new events (an update's
    event holds words of the text) into the audit that the purge redacted."""
    with Lethe.open(tmp_path / "other.db", embedder=embedder) as other:
        origin = other.remember(WIFI)
        mem.import_records(list(other.export_records()))
        mem.execute(mem.plan_purge([origin.id]))
        held = [(e.seq, e.op) for e in mem.audit(memory_id=origin.id)]
        other.update(origin.id, content=WIFI + " until the move", reason="moved offices")
        report = mem.import_records(list(other.export_records()))
    assert report.skipped_purged == 1 and report.purged == (origin.id,)
    assert [(e.seq, e.op) for e in mem.audit(memory_id=origin.id)] == held
    assert "moved offices" not in json.dumps(list(mem.export_records()))


def test_an_earlier_version_numbered_past_its_memory_is_refused_with_a_note(
    mem: Lethe, embedder: Embedder, tmp_path: Path
) -> None:
    """A version record numbered at or past its memory's own version contradicts the file:
    it is not imported, and the report names it by its line (it was dropped silently)."""
    memory = mem.remember(HOME)
    mem.update(memory.id, content=HOME + " and a dog")
    records = list(mem.export_records())
    [version_line] = [n for n, r in enumerate(records, 1) if r.get("type") == "version"]
    records[version_line - 1] = {**records[version_line - 1], "version": 2}
    with Lethe.open(tmp_path / "other.db", embedder=embedder) as other:
        report = other.import_records(records)
        assert report.refused_versions == (
            f"line {version_line}: version 2 of {memory.id} is not earlier than the "
            "memory's own version 2",
        )
        assert report.imported == 1 and report.versions == 0
        assert [v.version for v in other.history(memory.id)] == [2]


def test_no_import_brings_back_any_state_or_spelling_of_a_purged_text(
    mem: Lethe, tmp_path: Path
) -> None:
    """A purged memory's earlier text, its text spaced or wrapped otherwise, or its text as a
    version of another memory: each is refused like the purged text itself."""
    old = "Door code for the server room is 4471-ZX"
    gone = mem.remember(old)
    mem.update(gone.id, content="Server room door code changed; ask Ana")
    mem.execute(mem.plan_purge([gone.id]))
    other = mem.remember("Server room notes")
    mem.update(other.id, content="Server room notes, second floor")
    report = mem.import_records(
        [
            {"content": old},
            {"content": "Door code for the server  room\nis 4471-ZX"},
            {"content": "Server room door code changed; ask Ana"},
            {"content": old, "namespace": "work"},
        ]
    )
    assert (report.imported, report.skipped_purged) == (1, 3)
    records = [r for r in mem.export_records() if r.get("id", r.get("memory_id")) == other.id]
    moved = [
        {**r, "id": "mem_0123456789ab"}
        if r.get("type", "memory") == "memory"
        else {**r, "memory_id": "mem_0123456789ab", "content": old}
        for r in records
        if r.get("type", "memory") in ("memory", "version")
    ]
    second = mem.import_records(moved)
    assert second.imported == 1 and second.versions == 0
    assert second.purged == ("mem_0123456789ab version 1",)
    assert [v.content for v in mem.history("mem_0123456789ab")] == [
        "Server room notes, second floor"
    ]


def test_a_purge_by_retention_keeps_every_state_out_of_an_import(
    cmem: Lethe, clock: HandClock
) -> None:
    gone = cmem.remember("The safe's combination is 31-7-19")
    cmem.update(gone.id, content="The safe was moved to the office")
    cmem.execute(cmem.plan_forget([gone.id]))
    clock.advance(days=31)
    assert cmem.maintain().expired == (gone.id,)
    report = cmem.import_records([{"content": "The safe's combination is  31-7-19"}])
    assert (report.imported, report.skipped_purged) == (0, 1)
