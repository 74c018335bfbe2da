"""Imports from other memories (issue 20, part 2): the MCP memory server's JSONL graph, a mem0
`get_all` export and a folder of markdown notes — what is kept, the links made, the report of
what could not be kept, dry runs that write nothing, malformed sources refused whole, and
re-imports that add nothing — on both stores, through the API and the CLI."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from lethe import Lethe
from lethe.importers import SourceRefused
from tests.backends import snapshot, sqlite_only
from tests.importers.support import by_content, everything, run


def lines(*records: object) -> str:
    """JSON Lines exactly as the MCP memory server writes them (JSON.stringify: compact,
    non-ASCII raw)."""
    return "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in records)


def entity(name: str, kind: str, *observations: str) -> dict[str, object]:
    return {"type": "entity", "name": name, "entityType": kind, "observations": list(observations)}


def relation(source: str, target: str, kind: str) -> dict[str, object]:
    return {"type": "relation", "from": source, "to": target, "relationType": kind}


MCP_GRAPH = lines(
    entity("José Müller", "person", "Speaks fluent Spanish", "Works on the payments team"),
    entity("Acme Corp", "organization", "Acme Corp builds rockets", "Acme Corp is in Berlin"),
    entity("東京", "city", "東京 is the capital of Japan"),
    entity("Ghost", "person"),
    relation("José Müller", "Acme Corp", "works at"),
    relation("José Müller", "東京", "lives_in"),
    relation("José Müller", "Acme Corp", "works at"),
    relation("Acme Corp", "Nobody", "employs"),
    relation("Ghost", "Acme Corp", "haunts"),
)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# -- the MCP memory server's graph -------------------------------------------------------------


def test_mcp_observations_become_memories_and_relations_links(mem: Lethe, tmp_path: Path) -> None:
    source = write(tmp_path / "memory.jsonl", MCP_GRAPH)
    report = mem.import_from("mcp-memory", source)

    assert (report.records, report.memories, report.imported) == (9, 5, 5)
    stored = by_content(mem)
    jose = stored["Speaks fluent Spanish"]
    assert jose.metadata == {"entity": "José Müller", "entity_type": "person"}
    assert stored["東京 is the capital of Japan"].metadata == {
        "entity": "東京",
        "entity_type": "city",
    }
    # Each memory of one entity is linked to the first memory of the other: 2x1 + 1x1 for
    # works_at (José's two to Acme's first, José's first to Acme's second), 2 for lives_in.
    assert report.links == 5 and report.links_held == 0
    team, rockets, berlin = (
        stored["Works on the payments team"],
        stored["Acme Corp builds rockets"],
        stored["Acme Corp is in Berlin"],
    )
    tokyo = stored["東京 is the capital of Japan"]
    works = {(lk.a, lk.b) for m in (jose, team) for lk in mem.links(m.id) if lk.kind == "works_at"}
    assert works == {
        tuple(sorted(pair))
        for pair in [(jose.id, rockets.id), (team.id, rockets.id), (jose.id, berlin.id)]
    }
    assert {lk.other(tokyo.id) for lk in mem.links(tokyo.id) if lk.kind == "lives_in"} == {
        jose.id,
        team.id,
    }
    # The audit names the relation's `from` side first.
    event = next(e for e in mem.audit(op="link") if e.details.get("kind") == "lives_in")
    assert event.memory_id in {jose.id, team.id} and event.actor == "import"

    not_kept = {note.where: note.what for note in report.not_kept}
    assert "has no observations" in not_kept["line 4"]
    assert not_kept["line 5"] == "relationType 'works at' is stored as link kind 'works_at'"
    assert "no memory at one end (no entity 'Nobody')" in not_kept["line 8"]
    assert "entity 'Ghost' has no observations" in not_kept["line 9"]


def test_reimporting_the_same_graph_adds_nothing(db: str, mem: Lethe, tmp_path: Path) -> None:
    source = write(tmp_path / "memory.jsonl", MCP_GRAPH)
    mem.import_from("mcp-memory", source)
    before = snapshot(db)
    again = mem.import_from("mcp-memory", source)
    assert (again.imported, again.skipped_duplicates) == (0, 5)
    assert (again.links, again.links_held) == (0, 5)
    assert snapshot(db) == before


def test_an_observation_stored_with_other_spacing_is_linked_not_repeated(
    mem: Lethe, tmp_path: Path
) -> None:
    """remember_many skips a twin that differs only in whitespace (found by its vector); the
    relation's links must reach that stored memory, not be lost."""
    twin = mem.remember(
        "Acme Corp  builds   rockets",
        metadata={"entity": "Acme Corp", "entity_type": "organization"},
    )
    report = mem.import_from("mcp-memory", write(tmp_path / "memory.jsonl", MCP_GRAPH))
    assert (report.imported, report.skipped_duplicates, report.links) == (4, 1, 5)
    jose = by_content(mem)["Speaks fluent Spanish"]
    assert any(lk.other(twin.id) == jose.id for lk in mem.links(twin.id) if lk.kind == "works_at")


def test_a_malformed_line_refuses_the_whole_graph(db: str, mem: Lethe, tmp_path: Path) -> None:
    mem.remember("Already here before the import")
    text = MCP_GRAPH.splitlines()
    text.insert(2, '{"type":"entity","name":"Broken",')
    text.insert(
        4, json.dumps({"type": "entity", "name": "Odd", "entityType": "x", "observations": "no"})
    )
    text.insert(6, json.dumps({"type": "note", "text": "?"}))
    source = write(tmp_path / "memory.jsonl", "\n".join(text) + "\n")
    before = snapshot(db)
    with pytest.raises(SourceRefused) as refused:
        mem.import_from("mcp-memory", source)
    assert [p.where for p in refused.value.problems] == ["line 3", "line 5", "line 7"]
    assert "not valid JSON" in refused.value.problems[0].what
    assert "observations as a list of texts" in refused.value.problems[1].what
    assert "neither 'entity' nor 'relation'" in refused.value.problems[2].what
    assert all(p.hint for p in refused.value.problems)
    assert "nothing was imported" in str(refused.value)
    assert snapshot(db) == before


# -- mem0 --------------------------------------------------------------------------------------

MEM0_EXPORT = {
    "results": [
        {
            "id": "892db2ae-06d9-49e5-8b3e-585ef9b85b8e",
            "memory": "Is a vegetarian",
            "hash": "d1d0e4b7dc4b5a3c0dbbdb8f4e4c8d3a",
            "metadata": {"source": "chat", "topic": "food"},
            "created_at": "2024-07-26T10:29:36.630547-07:00",
            "updated_at": "2024-08-01T09:00:00-07:00",
            "user_id": "alice",
            "agent_id": "diet-assistant",
            "run_id": "session-1",
        },
        {"id": "5c0a6e3c", "memory": "Allergic to nuts", "user_id": "Ana Lima", "hash": "e5"},
        {
            "id": "7f1b",
            "memory": "Prefers window seats",
            "metadata": None,
            "created_at": "2024-05-01T12:00:00Z",
            "updated_at": None,
            "categories": ["travel"],
        },
        {"memory": "Plays the cello", "user_id": "memory"},
    ],
    "relations": [{"source": "alice", "relationship": "likes", "destination": "tea"}],
}


def test_mem0_export_keeps_text_scope_metadata_and_times(mem: Lethe, tmp_path: Path) -> None:
    source = write(tmp_path / "mem0.json", json.dumps(MEM0_EXPORT))
    report = mem.import_from("mem0", source)

    assert (report.records, report.imported) == (4, 4)
    stored = by_content(mem)
    veg = stored["Is a vegetarian"]
    assert veg.namespace == "alice" and veg.agent == "diet-assistant"
    assert veg.metadata == {
        "source": "chat",
        "topic": "food",
        "mem0": {
            "id": "892db2ae-06d9-49e5-8b3e-585ef9b85b8e",
            "hash": "d1d0e4b7dc4b5a3c0dbbdb8f4e4c8d3a",
            "user_id": "alice",
            "agent_id": "diet-assistant",
            "run_id": "session-1",
        },
    }
    assert veg.created_at == datetime(2024, 7, 26, 17, 29, 36, 630547, tzinfo=UTC)
    assert veg.updated_at == datetime(2024, 8, 1, 16, 0, tzinfo=UTC)
    # A user id lethe's namespace rules refuse is changed (with a hash, so two ids never
    # share one) and reported; the original stays in metadata.
    nuts = stored["Allergic to nuts"]
    assert nuts.namespace.startswith("Ana_Lima-") and nuts.metadata["mem0"]["user_id"] == "Ana Lima"
    cello = stored["Plays the cello"]
    assert cello.namespace.startswith("memory-")  # reserved by the workspace
    assert report.namespaces == {"Ana Lima": nuts.namespace, "memory": cello.namespace}
    # Missing fields take lethe's defaults.
    seat = stored["Prefers window seats"]
    assert (seat.namespace, seat.agent, seat.tags) == ("default", "user", ("travel",))
    assert seat.created_at == seat.updated_at == datetime(2024, 5, 1, 12, tzinfo=UTC)
    assert seat.metadata == {"mem0": {"id": "7f1b", "categories": ["travel"]}}
    assert [n.where for n in report.not_kept] == ["relations"]


def test_mem0_bare_list_reimport_and_expired_memory(db: str, mem: Lethe, tmp_path: Path) -> None:
    records = [
        {"id": "1", "memory": "Lives in Lisbon", "user_id": "bob"},
        {"id": "2", "memory": "Trial ends soon", "user_id": "bob", "expiration_date": "2020-01-01"},
        {"id": "3", "memory": "Renew passport", "user_id": "bob", "expiration_date": "2999-01-01"},
    ]
    source = write(tmp_path / "mem0.json", json.dumps(records))
    report = mem.import_from("mem0", source)
    assert report.imported == 2
    assert [(n.where, n.what) for n in report.not_kept] == [
        ("[1]", "expired in mem0 on 2020-01-01")
    ]
    renew = by_content(mem)["Renew passport"]
    assert renew.expires_at == datetime(2999, 1, 1, tzinfo=UTC)
    before = snapshot(db)
    again = mem.import_from("mem0", source)
    assert (again.imported, again.skipped_duplicates) == (0, 2)
    assert snapshot(db) == before


def test_malformed_mem0_records_are_named_by_index(db: str, mem: Lethe, tmp_path: Path) -> None:
    bad = {
        "results": [
            {"id": "1", "memory": "Fine"},
            {"id": "2"},
            {"id": "3", "memory": "Bad time", "created_at": "yesterday"},
            {"id": "4", "memory": "Bad metadata", "metadata": ["x"]},
            {"id": "5", "memory": "x" * 40_000},
        ]
    }
    source = write(tmp_path / "mem0.json", json.dumps(bad))
    before = snapshot(db)
    with pytest.raises(SourceRefused) as refused:
        mem.import_from("mem0", source)
    problems = {p.where: p for p in refused.value.problems}
    assert list(problems) == ["results[1]", "results[2]", "results[3]", "results[4]"]
    assert "'memory'" in problems["results[1]"].what
    assert "not an ISO-8601 time" in problems["results[2]"].what
    assert "over the limit" in problems["results[4]"].what and problems["results[4]"].hint
    assert snapshot(db) == before

    write(source, '[{"memory": "a"},\n {"memory": "b"\n]')
    with pytest.raises(SourceRefused) as refused:
        mem.import_from("mem0", source)
    assert refused.value.problems[0].where == "line 3"


# -- markdown ----------------------------------------------------------------------------------

TRIP = """# Trip to Lisbon

We fly on May 3.
The hotel is near the river.

## Packing

- passport
  - check the expiry date
  - two photocopies
- [ ] buy a plug adapter
- [x] book the taxi

```python
route = plan("Lisbon")

print(route)
```

## Contacts
Maria: +351 912 345 678
"""


def notes_folder(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    write(root / "trip.md", TRIP)
    write(root / "work" / "ideas.md", "Ship the importer.\n\n* Write the docs\n")
    write(root / "empty.md", "")
    write(root / "work" / "latin1.md", "Caf\xe9 notes\nline two \xe0 la carte\n".encode("latin-1"))
    write(root / ".obsidian" / "workspace.md", "- not a note\n")
    write(root / "readme.txt", "not markdown\n")
    return root


def test_markdown_notes_become_a_memory_per_bullet_and_paragraph(
    mem: Lethe, tmp_path: Path
) -> None:
    report = mem.import_from("markdown", notes_folder(tmp_path))

    stored = by_content(mem)
    assert set(stored) == {
        "We fly on May 3.\nThe hotel is near the river.",
        "passport",
        "check the expiry date",
        "two photocopies",
        "buy a plug adapter",
        "book the taxi",
        '```python\nroute = plan("Lisbon")\n\nprint(route)\n```',
        "Maria: +351 912 345 678",
        "Ship the importer.",
        "Write the docs",
    }
    assert (report.records, report.imported) == (4, 10)
    assert stored["We fly on May 3.\nThe hotel is near the river."].metadata == {
        "file": "trip.md",
        "heading": "Trip to Lisbon",
        "headings": ["Trip to Lisbon"],
    }
    assert stored["check the expiry date"].metadata == {
        "file": "trip.md",
        "heading": "Packing",
        "headings": ["Trip to Lisbon", "Packing"],
        "parents": ["passport"],
    }
    assert stored["buy a plug adapter"].metadata["task"] == "open"
    assert stored["book the taxi"].metadata["task"] == "done"
    assert "parents" not in stored["buy a plug adapter"].metadata
    assert stored["Maria: +351 912 345 678"].metadata["headings"] == ["Trip to Lisbon", "Contacts"]
    assert stored["Write the docs"].metadata == {"file": "work/ideas.md"}
    not_kept = {n.where: n for n in report.not_kept}
    assert not_kept["empty.md"].what == "empty file"
    assert "not UTF-8 text (byte 0xe9)" in not_kept["work/latin1.md:1"].what
    assert "iconv" in (not_kept["work/latin1.md:1"].hint or "")


def test_markdown_reimport_skips_duplicates_and_a_nul_refuses_the_folder(
    db: str, mem: Lethe, tmp_path: Path
) -> None:
    root = notes_folder(tmp_path)
    mem.import_from("markdown", root, namespace="notes")
    before = snapshot(db)
    again = mem.import_from("markdown", root, namespace="notes")
    assert (again.imported, again.skipped_duplicates) == (0, 10)
    assert snapshot(db) == before

    write(root / "work" / "ideas.md", "Fine.\n\nHas a \x00 in it\n")
    with pytest.raises(SourceRefused) as refused:
        mem.import_from("markdown", root, namespace="notes")
    assert [p.where for p in refused.value.problems] == ["work/ideas.md:3"]
    assert snapshot(db) == before


# -- dry runs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["mcp-memory", "mem0", "markdown"])
def test_a_dry_run_writes_nothing_and_predicts_the_import(
    db: str, mem: Lethe, tmp_path: Path, source: str
) -> None:
    path = {
        "mcp-memory": lambda: write(tmp_path / "memory.jsonl", MCP_GRAPH),
        "mem0": lambda: write(tmp_path / "mem0.json", json.dumps(MEM0_EXPORT)),
        "markdown": lambda: notes_folder(tmp_path),
    }[source]()
    mem.remember(
        "Speaks fluent Spanish", metadata={"entity": "José Müller", "entity_type": "person"}
    )
    before = snapshot(db)
    planned = mem.import_from(source, path, dry_run=True)
    assert planned.dry_run and snapshot(db) == before
    done = mem.import_from(source, path)
    assert (planned.imported, planned.skipped_duplicates, planned.links) == (
        done.imported,
        done.skipped_duplicates,
        done.links,
    )
    assert planned.not_kept == done.not_kept


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("mcp-memory", "Speaks fluent Spanish"),
        ("mem0", "Allergic to nuts"),
        ("markdown", "Ship the importer."),
    ],
)
def test_a_source_never_brings_back_what_was_purged(
    db: str, mem: Lethe, tmp_path: Path, source: str, text: str
) -> None:
    """Imported, then purged: importing the same source again (dry run or not) leaves that
    memory out, names it where the source holds it and counts it; the rest is skipped as
    the duplicates it is, and the purge's receipt still holds."""
    path = {
        "mcp-memory": lambda: write(tmp_path / "memory.jsonl", MCP_GRAPH),
        "mem0": lambda: write(tmp_path / "mem0.json", json.dumps(MEM0_EXPORT)),
        "markdown": lambda: notes_folder(tmp_path),
    }[source]()
    first = mem.import_from(source, path)
    [gone] = [m for m in everything(mem) if m.content == text]
    receipt = mem.execute(mem.plan_purge([gone.id])).receipt
    assert receipt is not None
    before = snapshot(db)
    planned = mem.import_from(source, path, dry_run=True)
    assert snapshot(db) == before
    again = mem.import_from(source, path)
    for report in (planned, again):
        assert (report.imported, report.skipped_purged) == (0, 1)
        assert report.skipped_duplicates == first.imported - 1
        [note] = [n for n in report.not_kept if "purged" in n.what]
        assert repr(gone.namespace) in note.what and note.where
    assert text not in [m.content for m in everything(mem)]
    assert mem.verify_receipt(receipt) == []


def test_namespace_option_puts_everything_there(mem: Lethe, tmp_path: Path) -> None:
    source = write(tmp_path / "mem0.json", json.dumps(MEM0_EXPORT))
    report = mem.import_from("mem0", source, namespace="imported")
    assert report.namespaces == {}
    assert {m.namespace for m in everything(mem)} == {"imported"}


# -- the command line --------------------------------------------------------------------------


def test_cli_imports_each_source_and_reports(db: str, tmp_path: Path) -> None:
    graph = write(tmp_path / "memory.jsonl", MCP_GRAPH)
    result = run(db, "import", "--from", "mcp-memory", str(graph), "--json")
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    assert (body["imported"], body["links"], body["dry_run"]) == (5, 5, False)
    assert any("Nobody" in n["what"] and n["where"] == "line 8" for n in body["not_kept"])

    result = run(
        db, "import", "--from", "mem0", str(write(tmp_path / "m.json", json.dumps(MEM0_EXPORT)))
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("imported 4 of 4 memories")
    assert "'Ana Lima' -> Ana_Lima-" in result.stdout

    result = run(db, "import", "--from", "markdown", str(notes_folder(tmp_path)), "-n", "notes")
    assert result.exit_code == 0, result.stderr
    assert "imported 10 of 10 memories" in result.stdout
    assert "work/latin1.md:1: not UTF-8" in result.stdout

    again = run(db, "import", "--from", "mcp-memory", str(graph))
    assert again.exit_code == 0, again.stderr
    assert "skipped 5 exact duplicate(s), 5 link(s) already held" in again.stdout


def test_cli_dry_run_and_refusal_write_nothing(db: str, tmp_path: Path) -> None:
    assert run(db, "remember", "The user likes green tea.").exit_code == 0
    graph = write(tmp_path / "memory.jsonl", MCP_GRAPH)
    before = snapshot(db)
    result = run(db, "import", "--from", "mcp-memory", str(graph), "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("dry run, nothing was written: would import 5 of 5")
    assert snapshot(db) == before

    broken = write(tmp_path / "broken.jsonl", MCP_GRAPH + "{oops\n")
    result = run(db, "import", "--from", "mcp-memory", str(broken))
    assert result.exit_code == 1
    assert "1 malformed record(s)" in result.stderr and "line 10: not valid JSON" in result.stderr
    assert snapshot(db) == before

    result = run(db, "import", "--from", "mem0", str(tmp_path / "missing.json"))
    assert result.exit_code == 1 and "there is no file or folder" in result.stderr
    result = run(db, "import", "--from", "letta", str(graph))
    assert result.exit_code == 1 and "unknown source 'letta'" in result.stderr
    result = run(db, "import", str(graph), "--dry-run")
    assert result.exit_code == 1 and "--from" in result.stderr
    assert snapshot(db) == before


def test_cli_dry_run_creates_no_store(tmp_path: Path) -> None:
    target = tmp_path / "new.db"
    graph = write(tmp_path / "memory.jsonl", MCP_GRAPH)
    result = run(str(target), "import", "--from", "mcp-memory", str(graph), "--dry-run", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["imported"] == 5
    assert not target.exists()


def test_a_mem0_time_no_instant_can_be_is_a_malformed_record(mem: Lethe, tmp_path: Path) -> None:
    """Year 1 minus an offset is before any instant: refused by its place, not a traceback."""
    source = write(
        tmp_path / "mem0.json",
        json.dumps([{"memory": "Likes tea", "created_at": "0001-01-01T00:00:00+05:00"}]),
    )
    with pytest.raises(SourceRefused) as refused:
        mem.read_source("mem0", source)
    assert refused.value.problems[0].where == "[0]"
    assert "not an ISO-8601 time" in refused.value.problems[0].what


def test_cli_refused_source_creates_no_store(tmp_path: Path) -> None:
    """A failure leaves the store as it was: where there was none, there is still none."""
    target = tmp_path / "new.db"
    broken = write(tmp_path / "broken.jsonl", MCP_GRAPH + "{oops\n")
    result = run(str(target), "import", "--from", "mcp-memory", str(broken), "--json")
    assert result.exit_code == 1 and json.loads(result.stdout)["refused"] is True
    assert list(tmp_path.iterdir()) == [broken]

    graph = write(tmp_path / "memory.jsonl", MCP_GRAPH)
    result = run(str(target), "import", "--from", "mcp-memory", str(graph), "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["imported"] == 5
    with Lethe.open(target) as mem:
        assert mem.list_memories().total == 5


def test_names_are_changed_only_when_lethe_refuses_them() -> None:
    from lethe.importers.names import link_kind, namespace_for

    assert namespace_for("alice@example.com") == "alice@example.com"
    changed = [namespace_for(n) for n in ("Ana Lima", "Ana_Lima", "山田", "memory", "x" * 70)]
    assert changed[1] == "Ana_Lima" and changed[0].startswith("Ana_Lima-")
    assert changed[2].startswith("user-") and changed[3].startswith("memory-")
    assert len(changed[4]) <= 64 and len(set(changed)) == 5
    assert (link_kind(" works  at\n"), link_kind("  "), link_kind("is-a")) == (
        "works_at",
        "related",
        "is-a",
    )


@sqlite_only
def test_markdown_reads_nothing_a_link_takes_out_of_the_folder(mem: Lethe, tmp_path: Path) -> None:
    """A note that is a link to a file outside the folder (`note.md -> /etc/passwd`) is not
    read, and is named in the report; a link inside the folder is read like its target."""
    root = notes_folder(tmp_path)
    secret = tmp_path / "private" / "diary.md"
    write(secret, "The safe's combination is 31-7-19.\n")
    (root / "note.md").symlink_to(secret)
    (root / "work" / "twin.md").symlink_to(root / "work" / "ideas.md")
    (root / "elsewhere").symlink_to(secret.parent, target_is_directory=True)

    report = mem.import_from("markdown", root)

    stored = by_content(mem)
    assert not any("combination" in text for text in stored)
    assert "Ship the importer." in stored
    not_kept = {n.where: n for n in report.not_kept}
    assert "outside the folder" in not_kept["note.md"].what
    assert "elsewhere/diary.md" not in not_kept  # a linked folder is not walked at all
    assert "work/twin.md" not in not_kept


HOSTILE = {
    "deep nesting": "[" * 100_000,
    "a number of thousands of digits": '{"content": "x", "n": 1' + "0" * 5_000 + "}",
    "a lone surrogate": '{"content": "a \\ud800 b"}',
    "a NUL": '{"content": "a \\u0000 b"}',
    "a 10 MB line": '{"content": "' + "a" * 10_000_000 + '"}',
}


@sqlite_only
@pytest.mark.parametrize("source", ["mcp-memory", "mem0"])
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_file_is_one_refusal_line_and_imports_nothing(
    db: str, mem: Lethe, tmp_path: Path, source: str, kind: str
) -> None:
    """Whatever the file holds, the answer is a SourceRefused naming where, never a
    traceback (deep nesting raised RecursionError, a huge number ValueError)."""
    path = tmp_path / "hostile.json"
    path.write_text(HOSTILE[kind] + "\n", encoding="utf-8")
    before = snapshot(db)
    with pytest.raises(SourceRefused) as refused:
        mem.import_from(source, path)
    assert "\n" not in str(refused.value) and refused.value.problems
    assert snapshot(db) == before


def test_a_copy_of_the_workspace_never_brings_back_a_purged_line(
    mem: Lethe, tmp_path: Path
) -> None:
    """A line of lethe's own workspace files names its memory ([id:…]): read back from a
    copy of the folder, the line of a purged memory stays out, whatever its prefix."""
    gone = mem.remember("Door code for the server room is 4471-ZX")
    kept = mem.remember("The server room is on the second floor")
    mem.execute(mem.plan_purge([gone.id]))
    notes = tmp_path / "backup"
    write(
        notes / "2026-11-20.md",
        f"# 2026-11-20\n\n- 12:00 [episodic] {gone.content} [id:{gone.id}]\n"
        f"- 12:01 [episodic] {kept.content} [id:{kept.id}]\n",
    )
    report = mem.import_from("markdown", notes)
    assert (report.imported, report.skipped_purged) == (1, 1)
    assert not any("4471" in m.content for m in everything(mem))
