"""The `lethe` command line, end to end on real files with the real MiniLM embedder.

Most cases run in-process through typer's CliRunner (the embedder is loaded once per process);
a few run the installed `lethe` script in a subprocess, the way a user or an agent calls it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from lethe.cli import app
from lethe.common.identifiers import EPISODE_ID_RE, MEMORY_ID_RE
from tests.backends import both_stores, created, run_sql, snapshot, sqlite_only

TEA = "Alice prefers green tea over coffee in the morning."
REVIEW = "The quarterly pricing review moved to Thursday at 14:00."
FLIGHT = "Bob's flight to Lisbon lands at 09:40 on Friday."

runner = CliRunner()


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's own database, workspace and config out of every test."""
    for name in ("LETHE_DB", "LETHE_WORKSPACE_DIR", "LETHE_MAX_CONTENT_BYTES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LETHE_CONFIG", str(tmp_path / "no-such-config.toml"))


def run(db: Path | str | None, *args: str, input: str | None = None) -> Result:
    argv = [*args, "--db", str(db)] if db is not None else list(args)
    return runner.invoke(app, argv, input=input)


def ok(db: Path | str | None, *args: str, input: str | None = None) -> Result:
    result = run(db, *args, input=input)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def as_json(db: Path | str | None, *args: str, input: str | None = None) -> Any:
    return json.loads(ok(db, *args, "--json", input=input).stdout)


def remember(db: str, text: str, *options: str) -> str:
    memory_id: str = as_json(db, "remember", text, *options)["id"]
    return memory_id


def assert_one_line_error(result: Result, *fragments: str) -> None:
    assert result.exit_code == 1, (result.stdout, result.stderr, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    assert result.stdout == ""
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.fixture
def seeded(db: str) -> tuple[str, dict[str, str]]:
    ids = {
        "tea": remember(db, TEA, "--layer", "semantic", "--tag", "alice", "--importance", "0.6"),
        "review": remember(
            db, REVIEW, "--tag", "meetings", "--meta", "topic=pricing", "--importance", "0.8"
        ),
        "flight": remember(db, FLIGHT, "--tag", "travel", "--tag", "bob"),
    }
    return db, ids


# -- help ---------------------------------------------------------------------------------

COMMANDS = [
    ["remember"],
    ["recall"],
    ["show"],
    ["update"],
    ["history"],
    ["revert"],
    ["link"],
    ["unlink"],
    ["episode", "create"],
    ["episode", "show"],
    ["list"],
    ["audit"],
    ["export"],
    ["import"],
    ["demo"],
]


def test_help_lists_every_command() -> None:
    result = ok(None, "--help")
    for name in {c[0] for c in COMMANDS}:
        assert re.search(rf"^  {name}\s", result.stdout, re.M), name


HELP_LOADS = """
import sys
from lethe.cli import main
try:
    main(["--help"])
except SystemExit:
    pass
heavy = ("rich", "pydantic", "numpy", "lethe.model", "lethe.engine", "lethe.cli.render")
print("loaded:", sorted(m for m in heavy if m in sys.modules))
"""


def test_help_loads_no_renderer_model_or_engine() -> None:
    """`lethe --help` answers in about the time typer takes to load (bench/bench_cli_start.py):
    the command modules import their renderers (rich), the records (pydantic) and the
    engine (numpy) where a command runs, never at the top."""
    done = subprocess.run(
        [sys.executable, "-c", HELP_LOADS], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "loaded: []"


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_takes_db_and_json(command: list[str]) -> None:
    result = ok(None, *command, "--help")
    assert "--db" in result.stdout
    assert "--json" in result.stdout
    assert "LETHE_DB" in result.stdout


# -- remember, show -------------------------------------------------------------------------


def test_remember_json_is_the_stored_memory(db: str) -> None:
    memory = as_json(
        db,
        "remember",
        "  The launch checklist lives in the ops wiki.  ",
        "--layer",
        "semantic",
        "--category",
        "docs",
        "--tag",
        "ops",
        "--tag",
        "launch",
        "--importance",
        "0.8",
        "--metadata-json",
        '{"source": "chat", "year": 2023}',
        "--meta",
        "year=2024",
        "--meta",
        "flag=true",
        "--meta",
        "note=not json",
        "--meta",
        "n=NaN",
        "--namespace",
        "team-a",
        "--agent",
        "planner",
        "--private",
    )
    assert MEMORY_ID_RE.match(memory["id"])
    assert memory["content"] == "The launch checklist lives in the ops wiki."
    assert memory["layer"] == "semantic"
    assert memory["category"] == "docs"
    assert memory["tags"] == ["ops", "launch"]
    assert memory["importance"] == 0.8
    assert memory["metadata"] == {
        "source": "chat",
        "year": 2024,
        "flag": True,
        "note": "not json",
        "n": "NaN",
    }
    assert (memory["namespace"], memory["agent"], memory["private"]) == ("team-a", "planner", True)
    assert (memory.pop("existing"), memory.pop("near_duplicates")) == (False, [])
    assert (memory.pop("superseded"), memory.pop("superseded_version")) == (None, None)
    assert memory.pop("likely_supersedes") == []
    assert as_json(db, "show", memory["id"]) == {**memory, "links": []}


def test_remember_plain_prints_the_id_first(db: str) -> None:
    result = ok(db, "remember", TEA)
    first, second = result.stdout.splitlines()[:2]
    assert MEMORY_ID_RE.match(first)
    assert "remembered in default/episodic" in second
    assert as_json(db, "show", first)["content"] == TEA
    shown = ok(db, "show", first).stdout
    assert first in shown and TEA in shown and "no links" in shown


def test_a_near_duplicate_is_stored_linked_and_named(db: str) -> None:
    first = remember(db, TEA)
    near = as_json(db, "remember", TEA.replace("morning", "mornings"))
    assert near["id"] != first and near["existing"] is False
    [twin] = near["near_duplicates"]
    assert (twin["id"], twin["content"]) == (first, TEA) and twin["similarity"] >= 0.95
    links = as_json(db, "show", near["id"])["links"]
    assert [(link["other"], link["kind"]) for link in links] == [(first, "near_duplicate")]
    assert as_json(db, "list")["total"] == 2


def test_an_exact_duplicate_is_the_same_memory_unless_allowed(db: str) -> None:
    first = remember(db, TEA)
    before = snapshot(db)
    again = as_json(db, "remember", TEA)
    assert (again["id"], again["existing"], again["near_duplicates"]) == (first, True, [])
    plain = ok(db, "remember", "  " + TEA).stdout.splitlines()
    assert plain[0] == first and "already remembered" in plain[1] and "nothing written" in plain[1]
    assert snapshot(db) == before
    second = remember(db, TEA, "--allow-duplicate")
    assert second != first
    assert as_json(db, "list")["total"] == 2


# -- recall, list -------------------------------------------------------------------------


@both_stores
def test_recall_ranks_by_meaning(seeded: tuple[str, dict[str, str]]) -> None:
    db, ids = seeded
    found = as_json(db, "recall", "what does Alice like to drink?", "-k", "2")
    assert found["k"] == 2
    hits = found["items"]
    assert len(hits) == 2
    assert hits[0]["memory"]["id"] == ids["tea"]
    assert 0.3 < hits[0]["similarity"] <= 1.0
    assert hits[0]["similarity"] > hits[1]["similarity"]
    assert hits[0]["score"] >= hits[1]["score"]
    table = ok(db, "recall", "what does Alice like to drink?").stdout
    assert "similarity" in table and "score" in table
    assert table.index(ids["tea"]) < table.index(ids["flight"])


def test_recall_filters(seeded: tuple[str, dict[str, str]]) -> None:
    db, ids = seeded

    def found(*options: str) -> set[str]:
        hits = as_json(db, "recall", "anything at all", *options)["items"]
        return {h["memory"]["id"] for h in hits}

    assert found() == set(ids.values())
    assert found("--filter", "@metadata.topic = pricing") == {ids["review"]}
    assert found("--filter", "importance >= 0.6", "--filter", "layer = semantic") == {ids["tea"]}
    assert found("--filter", "layer=episodic AND importance < 0.7") == {ids["flight"]}
    assert found("--layer", "semantic") == {ids["tea"]}
    assert found("--tag", "bob", "--tag", "meetings") == {ids["review"], ids["flight"]}
    assert found("--tag", "bob", "--tag", "travel", "--all-tags") == {ids["flight"]}
    assert found("--tag", "bob", "--tag", "meetings", "--all-tags") == set()
    assert found("--since", "2000-01-01", "--until", "2999-12-31") == set(ids.values())
    assert found("--until", "2000-01-01") == set()
    assert found("--namespace", "elsewhere") == set()
    assert found("--agent", "nobody") == set()
    assert "no memories match" in ok(db, "recall", "x", "--agent", "nobody").stdout


def test_list_pages_newest_first(seeded: tuple[str, dict[str, str]]) -> None:
    db, ids = seeded
    page = as_json(db, "list", "--limit", "2")
    assert (page["total"], page["offset"], page["limit"]) == (3, 0, 2)
    assert [m["id"] for m in page["items"]] == [ids["flight"], ids["review"]]
    rest = as_json(db, "list", "--limit", "2", "--offset", "2")
    assert [m["id"] for m in rest["items"]] == [ids["tea"]]
    assert [m["id"] for m in as_json(db, "list", "--filter", "importance > 0.7")["items"]] == [
        ids["review"]
    ]
    assert as_json(db, "list", "--tag", "alice")["total"] == 1
    plain = ok(db, "list", "--limit", "2").stdout
    assert ids["flight"] in plain and ids["tea"] not in plain
    assert "showing 1–2 of 3" in plain


# -- update ---------------------------------------------------------------------------------


def test_update_changes_fields_and_merges_meta(seeded: tuple[str, dict[str, str]]) -> None:
    db, ids = seeded
    memory = as_json(
        db,
        "update",
        ids["review"],
        "--content",
        "The quarterly pricing review moved to Friday at 10:00.",
        "--importance",
        "0.4",
        "--meta",
        "room=B12",
        "--tag",
        "moved",
        "--private",
    )
    assert memory["content"] == "The quarterly pricing review moved to Friday at 10:00."
    assert memory["importance"] == 0.4
    assert memory["metadata"] == {"topic": "pricing", "room": "B12"}
    assert memory["tags"] == ["moved"]
    assert memory["private"] is True
    assert as_json(db, "show", ids["review"])["content"] == memory["content"]
    hits = as_json(db, "recall", "review on Friday", "-k", "1")["items"]
    assert hits[0]["memory"]["id"] == ids["review"]

    replaced = as_json(
        db, "update", ids["review"], "--metadata-json", '{"only": 1}', "--clear-tags", "--public"
    )
    assert (replaced["metadata"], replaced["tags"], replaced["private"]) == ({"only": 1}, [], False)

    events = as_json(db, "audit", "--memory", ids["review"], "--op", "update")["items"]
    assert [sorted(e["details"]["fields"]) for e in events] == [
        ["content", "importance", "metadata", "private", "tags"],
        ["metadata", "private", "tags"],
    ]
    plain = ok(db, "update", ids["review"], "--layer", "semantic").stdout
    assert ids["review"] in plain and "semantic" in plain


# -- links, episodes ------------------------------------------------------------------------


def test_link_show_unlink(seeded: tuple[str, dict[str, str]]) -> None:
    db, ids = seeded
    made = as_json(
        db, "link", ids["tea"], ids["flight"], "--kind", "follows", "--confidence", "0.7"
    )
    assert {made["a"], made["b"]} == {ids["tea"], ids["flight"]}
    assert (made["kind"], made["confidence"]) == ("follows", 0.7)

    shown = as_json(db, "show", ids["tea"])
    assert [(link["other"], link["kind"], link["confidence"]) for link in shown["links"]] == [
        (ids["flight"], "follows", 0.7)
    ]
    assert as_json(db, "show", ids["flight"])["links"][0]["other"] == ids["tea"]
    plain = ok(db, "show", ids["tea"]).stdout
    assert "links (1)" in plain and ids["flight"] in plain and "follows" in plain
    assert "linked" in ok(db, "link", ids["tea"], ids["review"]).stdout

    assert as_json(db, "unlink", ids["tea"], ids["flight"], "--kind", "follows")["unlinked"]
    kinds = {(link["other"], link["kind"]) for link in as_json(db, "show", ids["tea"])["links"]}
    assert kinds == {(ids["review"], "related")}
    assert "unlinked" in ok(db, "unlink", ids["tea"], ids["review"]).stdout
    ops = [e["op"] for e in as_json(db, "audit", "--memory", ids["tea"])["items"]]
    assert ops == ["remember", "link", "link", "unlink", "unlink"]


def test_episode_create_and_show(seeded: tuple[str, dict[str, str]]) -> None:
    db, ids = seeded
    created = as_json(
        db,
        "episode",
        "create",
        "Planning week",
        ids["review"],
        ids["flight"],
        "--importance",
        "0.7",
    )
    assert EPISODE_ID_RE.match(created["id"])
    assert (created["summary"], created["importance"]) == ("Planning week", 0.7)
    assert created["members"] == [ids["review"], ids["flight"]]

    view = as_json(db, "episode", "show", created["id"])
    assert view["episode"]["id"] == created["id"]
    assert [m["id"] for m in view["members"]] == [ids["review"], ids["flight"]]
    assert (view["missing"], view["note"]) == (0, None)
    plain = ok(db, "episode", "show", created["id"]).stdout
    assert "Planning week" in plain and ids["review"] in plain and ids["flight"] in plain
    assert "no longer exist" not in plain

    first_line = ok(db, "episode", "create", "Just tea", ids["tea"]).stdout.splitlines()[0]
    assert EPISODE_ID_RE.match(first_line)


def test_episode_show_counts_members_that_are_gone(seeded: tuple[str, dict[str, str]]) -> None:
    db, ids = seeded
    episode_id = as_json(db, "episode", "create", "Week", ids["tea"], ids["review"], ids["flight"])[
        "id"
    ]
    # Another process takes the rows out under the CLI's feet.
    run_sql(
        db,
        "UPDATE memories SET status = 'forgotten' WHERE id IN (?, ?)",
        (ids["tea"], ids["review"]),
    )
    view = as_json(db, "episode", "show", episode_id)
    assert [m["id"] for m in view["members"]] == [ids["flight"]]
    assert (view["missing"], view["note"]) == (2, "2 memories no longer exist")
    assert "2 memories no longer exist" in ok(db, "episode", "show", episode_id).stdout


# -- audit ----------------------------------------------------------------------------------


def test_audit_pages_and_filters(seeded: tuple[str, dict[str, str]]) -> None:
    db, ids = seeded
    ok(db, "link", ids["tea"], ids["flight"])
    events = as_json(db, "audit")["items"]
    assert [e["op"] for e in events] == ["remember", "remember", "remember", "link"]
    assert [e["seq"] for e in events] == sorted(e["seq"] for e in events)
    assert [e["memory_id"] for e in events[:3]] == [ids["tea"], ids["review"], ids["flight"]]
    assert all(len(e["content_sha256"]) == 64 for e in events[:3])

    page = as_json(db, "audit", "--limit", "2")
    assert (page["after"], page["limit"]) == (0, 2)
    first_two = page["items"]
    rest = as_json(db, "audit", "--after", str(first_two[-1]["seq"]))
    assert (rest["after"], rest["limit"]) == (first_two[-1]["seq"], 100)
    assert first_two + rest["items"] == events
    assert [e["op"] for e in as_json(db, "audit", "--op", "link")["items"]] == ["link"]
    assert as_json(db, "audit", "--namespace", "elsewhere")["items"] == []

    plain = ok(db, "audit").stdout
    assert plain.count("remember") == 3
    assert ids["review"] in plain and "topic" not in plain
    assert "no events" in ok(db, "audit", "--op", "purge").stdout


# -- export, import -------------------------------------------------------------------------


@both_stores
def test_export_import_round_trip_keeps_ids(
    seeded: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    db, ids = seeded
    ok(db, "link", ids["tea"], ids["flight"], "--kind", "follows", "--confidence", "0.6")
    episode_id = as_json(db, "episode", "create", "Trip", ids["flight"], ids["tea"])["id"]

    dump = tmp_path / "dump.jsonl"
    summary = as_json(db, "export", "-o", str(dump))
    assert summary == {
        "path": str(dump),
        "memories": 3,
        "trashed": 0,
        "links": 1,
        "episodes": 1,
        "events": 5,
    }
    lines = dump.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["type"] for line in lines] == ["memory"] * 3 + [
        "link",
        "episode",
    ] + ["event"] * 5
    assert ok(db, "export").stdout.splitlines() == lines
    assert "exported 3 memories" in ok(db, "export", "-o", str(tmp_path / "again.jsonl")).stdout

    copy = tmp_path / "copy.db"
    report = as_json(copy, "import", str(dump))
    assert (report["imported"], report["links"], report["episodes"]) == (3, 1, 1)
    originals = {m["id"]: m for m in as_json(db, "list")["items"]}
    copies = {m["id"]: m for m in as_json(copy, "list")["items"]}
    assert copies.keys() == set(ids.values())
    for memory_id, memory in copies.items():
        for field in ("content", "tags", "metadata", "layer", "importance", "created_at"):
            assert memory[field] == originals[memory_id][field], field
    links = as_json(copy, "show", ids["tea"])["links"]
    assert [(link["other"], link["kind"], link["confidence"]) for link in links] == [
        (ids["flight"], "follows", 0.6)
    ]
    view = as_json(copy, "episode", "show", episode_id)
    assert [m["id"] for m in view["members"]] == [ids["flight"], ids["tea"]]

    again = as_json(copy, "import", str(dump))
    assert (again["imported"], again["skipped_existing"]) == (0, 3)
    assert (again["events"], again["skipped_events"]) == (0, 5)

    piped = tmp_path / "piped.db"
    text = ok(piped, "import", "-", input=dump.read_text(encoding="utf-8")).stdout
    assert "imported 3 memories, 1 link(s), 1 episode(s)" in text
    assert {m["id"] for m in as_json(piped, "list")["items"]} == set(ids.values())


def test_progress_bar_goes_to_stderr_and_leaves_the_records_alone(
    seeded: tuple[str, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With stderr taken for an interactive terminal, import and export draw their bar there."""
    db, ids = seeded
    plain = ok(db, "export").stdout
    assert ok(db, "export").stderr == "", "no bar when stderr is not a terminal"

    # rich's own switches: treat the output streams as an interactive terminal.
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("TTY_INTERACTIVE", "1")
    piped = ok(db, "export")
    assert piped.stdout == plain
    assert "exporting" in piped.stderr and "3/3" in piped.stderr
    assert "mem_" not in piped.stderr

    dump = tmp_path / "dump.jsonl"
    written = ok(db, "export", "-o", str(dump), "--json")
    assert json.loads(written.stdout)["memories"] == 3
    assert "exporting" in written.stderr and "3/3" in written.stderr
    records = [json.loads(line) for line in dump.read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in records if r["type"] == "memory"] == list(ids.values())

    imported = ok(tmp_path / "copy.db", "import", str(dump), "--json")
    assert json.loads(imported.stdout)["imported"] == 3
    assert "importing" in imported.stderr and "3/3" in imported.stderr


def test_import_no_auto_link_keeps_only_the_files_links(db: str, tmp_path: Path) -> None:
    tea = remember(db, TEA)
    breakfast = remember(db, "Alice usually has green tea instead of coffee at breakfast.")
    auto = as_json(db, "show", breakfast)["links"]
    assert [(link["other"], link["kind"]) for link in auto] == [(tea, "related")]
    ok(db, "unlink", tea, breakfast)
    dump = tmp_path / "dump.jsonl"
    ok(db, "export", "-o", str(dump))

    copy = tmp_path / "copy.db"
    report = as_json(copy, "import", str(dump), "--no-auto-link")
    assert (report["imported"], report["linked"], report["links"]) == (2, 0, 0)
    assert as_json(copy, "show", tea)["links"] == []


def test_import_minimal_lines_skips_exact_duplicates_and_links_near_ones(
    db: str, tmp_path: Path
) -> None:
    source = tmp_path / "notes.jsonl"
    source.write_text(
        "\n".join(
            json.dumps(r)
            for r in [
                {"content": TEA, "tags": ["alice"]},
                {"content": TEA.replace("morning", "mornings")},
                {"content": FLIGHT},
                {"content": FLIGHT},
            ]
        )
        + "\n\n",
        encoding="utf-8",
    )
    report = as_json(db, "import", str(source))
    counts = (report["imported"], report["skipped_duplicates"], report["near_duplicates"])
    assert counts == (3, 1, 1)
    live = {m["content"]: m["id"] for m in as_json(db, "list")["items"]}
    assert live.keys() == {TEA, TEA.replace("morning", "mornings"), FLIGHT}
    kinds = {(link["other"], link["kind"]) for link in as_json(db, "show", live[TEA])["links"]}
    assert (live[TEA.replace("morning", "mornings")], "near_duplicate") in kinds
    text = ok(tmp_path / "b.db", "import", str(source)).stdout
    assert "1 linked to a near-duplicate" in text and "skipped 1 exact duplicate" in text
    kept = as_json(tmp_path / "c.db", "import", str(source), "--keep-duplicates")
    assert (kept["imported"], kept["skipped_duplicates"]) == (4, 0)


def test_import_with_a_bad_line_imports_nothing(
    seeded: tuple[str, dict[str, str]], tmp_path: Path
) -> None:
    db, _ = seeded
    before = snapshot(db)
    for body, fragment in [
        ('{"content": "fine"}\n{"content": ""}\n', "line 2"),
        ('{"content": "fine"}\nnot json\n', "line 2: not valid JSON"),
        ('{"content": "fine", "importance": 7}\n', "line 1"),
        ('{"content": "fine", "colour": "red"}\n', "unknown field"),
    ]:
        source = tmp_path / "bad.jsonl"
        source.write_text(body, encoding="utf-8")
        assert_one_line_error(run(db, "import", str(source)), fragment)
        assert snapshot(db) == before
    assert_one_line_error(run(db, "import", str(tmp_path / "missing.jsonl")), "cannot read")
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    assert_one_line_error(run(db, "import", str(binary)), "not UTF-8")
    assert snapshot(db) == before


# -- bad input ------------------------------------------------------------------------------

KNOWN = "<known>"
UNKNOWN = "mem_0123456789ab"
BAD_INPUTS: dict[str, tuple[list[str], str]] = {
    "empty content": (["remember", ""], "content is empty"),
    "blank content": (["remember", "   "], "content is empty"),
    "oversize content": (["remember", "x" * (32 * 1024 + 1)], "over the limit of 32768"),
    "importance 2": (["remember", "fine text", "--importance", "2"], "between 0 and 1"),
    "negative importance": (["remember", "fine text", "--importance", "-0.5"], "between 0 and 1"),
    "unknown layer": (["remember", "fine text", "--layer", "dreams"], "unknown layer 'dreams'"),
    "bad namespace": (["remember", "fine text", "--namespace", "has space"], "invalid namespace"),
    "metadata-json list": (
        ["remember", "fine text", "--metadata-json", "[1, 2]"],
        "metadata must be a JSON object",
    ),
    "metadata-json invalid": (
        ["remember", "fine text", "--metadata-json", "{oops"],
        "--metadata-json is not valid JSON",
    ),
    "meta without =": (["remember", "fine text", "--meta", "topic"], "KEY=VALUE"),
    "malformed id show": (["show", "mem_xyz"], "malformed memory id"),
    "malformed id update": (["update", "42", "--importance", "0.1"], "malformed memory id"),
    "unknown id show": (["show", UNKNOWN], "not found"),
    "unknown id update": (["update", UNKNOWN, "--content", "new"], "not found"),
    "update nothing": (["update", KNOWN], "nothing to update"),
    "update importance 2": (["update", KNOWN, "--importance", "2"], "between 0 and 1"),
    "update unknown layer": (["update", KNOWN, "--layer", "dreams"], "unknown layer"),
    "link unknown id": (["link", KNOWN, UNKNOWN], "not found"),
    "link to itself": (["link", KNOWN, KNOWN], "itself"),
    "link confidence 3": (["link", KNOWN, UNKNOWN, "--confidence", "3"], "between 0 and 1"),
    "unlink not linked": (["unlink", KNOWN, UNKNOWN], "not found"),
    "unparsable filter": (["recall", "tea", "--filter", "just words"], "cannot parse filter"),
    "unknown filter field": (["list", "--filter", "colour = red"], "unknown filter field"),
    "filter bad layer": (["list", "--filter", "layer = dreams"], "unknown layer"),
    "recall unknown layer": (["recall", "tea", "--layer", "dreams"], "unknown layer"),
    "recall bad since": (["recall", "tea", "--since", "yesterday"], "cannot read 'yesterday'"),
    "recall k 0": (["recall", "tea", "-k", "0"], "k must be"),
    "recall k 1000": (["recall", "tea", "-k", "1000"], "k must be"),
    "recall empty query": (["recall", " "], "query is empty"),
    "list limit 0": (["list", "--limit", "0"], "limit must be"),
    "list negative offset": (["list", "--offset", "-1"], "offset must be"),
    "episode unknown member": (["episode", "create", "Summary", KNOWN, UNKNOWN], "not found"),
    "episode empty summary": (["episode", "create", " ", KNOWN], "summary is empty"),
    "episode malformed id": (["episode", "show", "ep_nope"], "malformed episode id"),
    "episode unknown id": (["episode", "show", "ep_0123456789ab"], "Episode not found"),
    "audit malformed memory": (["audit", "--memory", "nope"], "malformed memory id"),
    "history unknown id": (["history", UNKNOWN], "not found"),
    "history malformed id": (["history", "mem_xyz"], "malformed memory id"),
    "history other namespace": (["history", KNOWN, "--namespace", "other"], "not found"),
    "revert unknown version": (["revert", KNOWN, "7"], "has no version 7"),
    "revert version 0": (["revert", KNOWN, "0"], "versions start at 1"),
    "revert unknown id": (["revert", UNKNOWN, "1"], "not found"),
    "revert other namespace": (["revert", KNOWN, "1", "-n", "other"], "not found"),
    "update other namespace": (
        ["update", KNOWN, "--importance", "0.1", "-n", "other"],
        "not found",
    ),
}


def test_export_to_an_unwritable_place_is_one_line_and_leaves_nothing(
    db: str, tmp_path: Path
) -> None:
    remember(db, TEA)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    before = snapshot(db)
    result = run(db, "export", "-o", str(blocker / "out.jsonl"))
    assert_one_line_error(result, "cannot write", "out.jsonl")
    assert snapshot(db) == before
    assert not list(tmp_path.glob("**/*.partial"))


@sqlite_only  # PostgreSQL's: tests/store/test_postgres_open.py
def test_a_database_of_a_newer_schema_is_one_line_and_untouched(db: str) -> None:
    remember(db, TEA)
    conn = sqlite3.connect(db)
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    conn.execute(f"PRAGMA user_version = {version + 1}")
    conn.close()
    before = snapshot(db)
    assert_one_line_error(run(db, "list"), "upgrade lethe")
    assert snapshot(db) == before


@pytest.mark.parametrize("case", BAD_INPUTS, ids=str)
def test_bad_input_is_one_line_and_changes_nothing(case: str, db: str) -> None:
    known = remember(db, TEA)
    args, fragment = BAD_INPUTS[case]
    before = snapshot(db)
    result = run(db, *[known if a == KNOWN else a for a in args])
    assert_one_line_error(result, fragment)
    assert snapshot(db) == before


def test_content_limit_from_the_environment(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """1200 bytes of text: fine by the default limit, refused once LETHE_MAX_CONTENT_BYTES=1024."""
    over = "é" * 600
    known = remember(db, TEA)
    monkeypatch.setenv("LETHE_MAX_CONTENT_BYTES", "1024")
    before = snapshot(db)
    source = tmp_path / "big.jsonl"
    source.write_text(json.dumps({"content": over}) + "\n", encoding="utf-8")
    for args in (["remember", over], ["update", known, "--content", over], ["import", str(source)]):
        result = run(db, *args)
        assert_one_line_error(result, "content is 1200 bytes, over the limit of 1024")
        assert "LETHE_MAX_CONTENT_BYTES" in result.stderr
        assert snapshot(db) == before
    at_limit = ("Notes on the Lisbon trip and the harbour walk. " * 30)[:1024]
    assert as_json(db, "remember", at_limit)["content"] == at_limit

    monkeypatch.delenv("LETHE_MAX_CONTENT_BYTES")
    assert as_json(db, "remember", over)["content"] == over


def test_db_that_is_not_a_lethe_file(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("shopping list\n", encoding="utf-8")
    assert_one_line_error(run(text, "remember", TEA), "not a lethe database", "--db")
    assert_one_line_error(run(text, "list"), "not a lethe database")
    assert text.read_text(encoding="utf-8") == "shopping list\n"

    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE things (x)")
    conn.close()
    assert_one_line_error(run(other, "recall", "tea"), "another application")
    assert_one_line_error(run(tmp_path, "list"), "is a directory")


def test_lethe_db_environment_variable(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LETHE_DB", str(db))
    memory_id = remember(db, TEA)
    assert as_json(None, "show", memory_id)["content"] == TEA


@pytest.mark.parametrize(
    "args",
    [["remember"], ["remember", "x", "--importance", "high"], ["recall"], ["frobnicate"]],
    ids=" ".join,
)
def test_usage_errors_exit_2(args: list[str], db: str) -> None:
    result = run(db, *args)
    assert result.exit_code == 2
    assert not created(db)


# -- demo -----------------------------------------------------------------------------------


@pytest.fixture
def demo_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the demo makes its throwaway folder, so a test can see what it leaves behind."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_demo_runs_the_tour_and_cleans_up(demo_tmp: Path) -> None:
    out = ok(None, "demo").stdout
    for step in ["1. remember", "2. similar is not same", "5. forget by description", "10. purge"]:
        assert step in out
    assert re.search(r"near-duplicate of mem_[0-9a-f]{12} \(0\.9\d\): Dentist appointment", out)
    assert "the same text again is not stored twice" in out
    assert "Executed, it deleted 0 memories" in out
    assert re.search(r"refused mem_[0-9a-f]{12}: caveat-layer memories are protected", out), out
    assert re.search(r"#13\s.*purge", out), out
    assert re.search(r"memory/\d{4}-\d\d-\d\d\.md", out) and "[caveat] I am allergic" in out
    assert "was removed" in out
    assert list(demo_tmp.iterdir()) == []


def test_demo_keep_leaves_a_working_database(demo_tmp: Path) -> None:
    out = ok(None, "demo", "--keep").stdout
    match = re.search(r"kept at (\S+demo\.db)", out)
    assert match, out
    kept = Path(match.group(1))
    assert kept.parent.parent == demo_tmp
    page = as_json(kept, "list")
    assert page["total"] == 8  # eight, and the near-duplicate (similar is not same), one purged
    ops = [e["op"] for e in as_json(kept, "audit")["items"]]
    assert ops == ["remember"] * 9 + ["link", "forget", "restore", "purge"]
    assert as_json(kept, "trash")["total"] == 0  # restored, and the purged one is gone
    # The demo's workspace projection stays inside its own folder.
    assert (kept.parent / "workspace").is_dir()


def test_demo_json_is_one_object_with_the_tours_results(demo_tmp: Path) -> None:
    tour = as_json(None, "demo")
    remembered = tour["remembered"]
    assert len(remembered) == 8 and all(MEMORY_ID_RE.match(i) for i in remembered)
    tuesday, allergy, pin = remembered[0], remembered[4], remembered[7]
    near = tour["duplicate"]
    assert near["id"] not in remembered and near["again_existing"] is True
    assert [(n["id"], n["content"]) for n in near["near_duplicates"]] == [
        (tuesday, "Dentist appointment on Tuesday at 10am.")
    ]
    assert tour["recall"]["hits"][0]["memory"]["id"] in {tuesday, near["id"]}
    assert tour["forget_query"]["deleted"] == []
    assert len(tour["forget_query"]["cosine_rule"]["would_delete"]) >= 4
    assert tour["forget_by_id"]["result"]["executed"] == [tuesday]
    assert [i["id"] for i in tour["protected"]["refused"]] == [allergy]
    assert [t["memory"]["id"] for t in tour["trash"]] == [tuesday]
    assert tour["restored"]["id"] == tuesday
    assert tour["purge"]["result"]["executed"] == [pin]
    ops = [e["op"] for e in tour["audit"]]
    assert ops == ["remember"] * 9 + ["link", "forget", "restore", "purge"]
    assert tour["db"] is None and tour["workspace"] is None
    assert list(demo_tmp.iterdir()) == []


@sqlite_only  # a new file beside it
def test_demo_db_runs_the_tour_on_a_new_file_and_keeps_it(demo_tmp: Path, db: str) -> None:
    out = ok(db, "demo").stdout
    assert "1. remember" in out and f"kept at {db}" in out
    assert as_json(db, "list")["total"] == 8
    assert list(demo_tmp.iterdir()) == [], "the workspace went with the temporary folder"

    empty = Path(db).with_name("empty.db")
    ok(empty, "maintain")  # creates it: read-only commands never create a store
    assert as_json(empty, "list")["total"] == 0  # a lethe database with nothing in it
    tour = as_json(empty, "demo", "--keep")
    assert tour["db"] == str(empty)
    assert Path(tour["workspace"]).parent.parent == demo_tmp
    assert as_json(empty, "list")["total"] == 8


@sqlite_only  # the folder holds no new file
def test_demo_db_refuses_a_database_that_holds_memories(demo_tmp: Path, db: str) -> None:
    remember(db, TEA)
    before = snapshot(db)
    files = sorted(Path(db).parent.iterdir())
    for extra in ([], ["--json"], ["--keep"]):
        assert_one_line_error(run(db, "demo", *extra), "already holds memories", "--db")
        assert snapshot(db) == before
        assert sorted(Path(db).parent.iterdir()) == files
    assert list(demo_tmp.iterdir()) == []

    notes = Path(db).with_name("notes.txt")
    notes.write_text("shopping list\n", encoding="utf-8")
    assert_one_line_error(run(notes, "demo"), "not a lethe database")
    assert notes.read_text(encoding="utf-8") == "shopping list\n"


def test_demo_does_not_read_lethe_db(
    demo_tmp: Path, db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember(db, TEA)
    before = snapshot(db)
    monkeypatch.setenv("LETHE_DB", str(db))
    assert as_json(None, "demo")["db"] is None
    assert snapshot(db) == before


# -- the installed script ---------------------------------------------------------------------


def _script() -> list[str]:
    beside = Path(sys.executable).parent / "lethe"
    found = str(beside) if beside.exists() else shutil.which("lethe")
    assert found, "the lethe script is not installed (pip install -e .)"
    return [found]


def _spawn(command: list[str], tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
    env["LETHE_CONFIG"] = str(tmp_path / "no-such-config.toml")
    return subprocess.run(
        [*command, *args], capture_output=True, text=True, env=env, timeout=120, check=False
    )


@pytest.mark.slow
def test_installed_script_end_to_end(tmp_path: Path) -> None:
    db = str(tmp_path / "sub.db")
    made = _spawn(_script(), tmp_path, "remember", TEA, "--db", db, "--json")
    assert made.returncode == 0, made.stderr
    memory_id = json.loads(made.stdout)["id"]

    found = _spawn(_script(), tmp_path, "recall", "Alice's drink", "--db", db, "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["items"][0]["memory"]["id"] == memory_id

    failed = _spawn(_script(), tmp_path, "show", "mem_nothere", "--db", db)
    assert failed.returncode == 1
    assert failed.stdout == ""
    assert failed.stderr.startswith("error: malformed memory id")
    assert failed.stderr.count("\n") == 1

    usage = _spawn(_script(), tmp_path, "remember", "--db", db)
    assert usage.returncode == 2


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["remember"], "error: Missing argument 'TEXT'. (see 'lethe remember --help')"),
        (["recall", "x", "--bogus"], "error: No such option: --bogus (see 'lethe recall --help')"),
        (["remember", "x", "--importance", "high"], "error: Invalid value for '--importance'"),
        (["frobnicate"], "error: No such command 'frobnicate'"),
        (["mcp", "--tokens", "t.toml"], "error: Invalid value for --tokens: tokens apply to"),
    ],
    ids=" ".join,
)
def test_usage_errors_are_one_line_with_status_2(
    tmp_path: Path, args: list[str], says: str
) -> None:
    db = tmp_path / "u.db"
    result = _spawn(_script(), tmp_path, *args, "--db", str(db))
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(says), result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert not db.exists()


def test_bare_lethe_prints_its_help(tmp_path: Path) -> None:
    result = _spawn(_script(), tmp_path)
    assert result.returncode == 2
    assert "Usage: lethe" in result.stdout and "recall" in result.stdout


def test_python_dash_m_lethe(tmp_path: Path) -> None:
    result = _spawn([sys.executable, "-m", "lethe"], tmp_path, "--help")
    assert result.returncode == 0, result.stderr
    assert "Usage: lethe" in result.stdout
