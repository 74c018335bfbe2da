"""Nothing is lost except by forget, from the command line: history, revert, the go-ahead a
change to a protected memory needs, and remember/import that store near-duplicates instead of
refusing them.

Everything runs the real CLI in-process (CliRunner, whose stdin is never a terminal) on a real
SQLite file and a real PostgreSQL database with the real MiniLM embedder; the terminal path is
taken by replacing the CLI's own check, and once for real through a pseudo-terminal.
"""

from __future__ import annotations

import itertools
import json
import os
import pty
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from lethe.cli import app, confirming, main
from tests.backends import snapshot, sqlite_only
from tests.near_pairs import NEAR_PAIRS

runner = CliRunner()

DENTIST = "Dentist appointment on Tuesday at 10am"
CAVEAT = "Never email customers about price changes before legal has signed off."


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the developer's own database, workspace, settings and config out of every test."""
    for name in [n for n in os.environ if n.startswith("LETHE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("LETHE_CONFIG", str(tmp_path / "no-such-config.toml"))


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the CLI believe a person sits at a terminal; CliRunner's input feeds the answer."""
    monkeypatch.setattr(confirming, "interactive", lambda: True)


def run(db: Path | str, *args: str, input: str | None = None) -> Result:
    return runner.invoke(app, [*args, "--db", str(db)], input=input)


def ok(db: Path | str, *args: str, input: str | None = None) -> Result:
    result = run(db, *args, input=input)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def as_json(db: Path | str, *args: str, input: str | None = None, code: int = 0) -> Any:
    result = run(db, *args, "--json", input=input)
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    return json.loads(result.stdout)


def remember(db: str, text: str, *options: str) -> str:
    memory_id: str = as_json(db, "remember", text, *options)["id"]
    return memory_id


def one_error_line(result: Result, code: int = 1) -> str:
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in result.output
    return lines[0]


def events(db: str, memory_id: str, op: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = as_json(db, "audit", "--memory", memory_id, "--op", op)["items"]
    return found


def memory_rows(db: str) -> dict[str, list[tuple[object, ...]]]:
    """The memories and their versions: what a declined change must leave as it was (the
    audit log does change: it records the refusal)."""
    rows = snapshot(db)
    return {t: rows[t] for t in ("memories", "memory_tags", "memory_versions", "links")}


# -- help ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["history", "revert", "update"])
def test_help_says_old_versions_stay_restorable(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    text = " ".join(result.stdout.replace("│", " ").split())
    assert "--db" in text and "--json" in text and "--namespace" in text
    if command == "update":
        assert "stays restorable until the memory is purged" in text
        assert "lethe history ID" in text and "lethe revert ID VERSION" in text
    if command != "history":
        assert "--yes" in text and "--reason" in text and "--actor" in text
        assert "Exit status 3" in text


# -- history --------------------------------------------------------------------------------


def test_history_after_two_updates_says_who_when_and_why_newest_first(db: str) -> None:
    memory_id = remember(db, DENTIST, "--agent", "planner")
    ok(
        db,
        "update",
        memory_id,
        "--content",
        "Dentist appointment on Thursday at 3pm",
        "--reason",
        "the clinic moved it",
        "--actor",
        "alice",
    )
    ok(db, "update", memory_id, "--importance", "0.7", "--tag", "health", "--actor", "bob")

    versions = as_json(db, "history", memory_id)["items"]
    assert [v["version"] for v in versions] == [3, 2, 1]
    assert [v["current"] for v in versions] == [True, False, False]
    assert [v["actor"] for v in versions] == ["bob", "alice", "planner"]
    assert [v["op"] for v in versions] == ["update", "update", "remember"]
    assert [v["reason"] for v in versions] == [None, "the clinic moved it", None]
    assert [v["content"] for v in versions] == [
        "Dentist appointment on Thursday at 3pm",
        "Dentist appointment on Thursday at 3pm",
        DENTIST,
    ]
    assert [(v["importance"], v["tags"]) for v in versions] == [
        (0.7, ["health"]),
        (0.5, []),
        (0.5, []),
    ]
    # Each state was current from when it was made until the next one replaced it.
    assert versions[0]["valid_until"] is None
    for newer, older in itertools.pairwise(versions):
        assert older["valid_until"] == newer["valid_from"]
        assert older["valid_from"] <= newer["valid_from"]
    assert {v["agent"] for v in versions} == {"planner"}  # whose memory it is never changes

    text = ok(db, "history", memory_id).stdout
    lines = text.splitlines()
    assert lines[0].startswith("v3  current") and "by bob" in lines[0]
    order = [text.index(f"v{n} ") for n in (3, 2, 1)]
    assert order == sorted(order)
    assert "why: the clinic moved it" in text and "by alice" in text and "by planner" in text
    assert "changed from v2: tags — → health; importance 0.50 → 0.70" in text
    assert "[-Tuesday-]{+Thursday+} at [-10am-]{+3pm+}" in text
    assert f"lethe revert {memory_id} VERSION" in text


def test_revert_makes_a_new_version_and_history_keeps_all(db: str) -> None:
    memory_id = remember(db, DENTIST)
    ok(db, "update", memory_id, "--content", "Dentist appointment on Thursday at 3pm")
    ok(db, "update", memory_id, "--layer", "semantic")

    reverted = as_json(db, "revert", memory_id, "1", "--actor", "alice")
    assert (reverted["id"], reverted["version"]) == (memory_id, 4)
    assert (reverted["content"], reverted["layer"]) == (DENTIST, "episodic")
    assert as_json(db, "show", memory_id)["content"] == DENTIST
    versions = as_json(db, "history", memory_id)["items"]
    assert [v["version"] for v in versions] == [4, 3, 2, 1]
    assert (versions[0]["op"], versions[0]["actor"]) == ("revert", "alice")
    assert versions[0]["reason"] == "revert to version 1"
    assert [v["content"] for v in versions[1:]] == [
        "Dentist appointment on Thursday at 3pm",
        "Dentist appointment on Thursday at 3pm",
        DENTIST,
    ]
    [event] = events(db, memory_id, "revert")
    assert (event["details"]["reverted_to"], event["details"]["version"]) == (1, 4)

    # Reverting the revert: the text comes back from version 3, and nothing is lost either way.
    text = ok(db, "revert", memory_id, "3", "--reason", "wrong one").stdout
    assert f"revert {memory_id} to version 3" in text
    assert f"reverted to version 3: {memory_id} is now version 5" in text
    assert "version 4 stays restorable until purged" in text
    versions = as_json(db, "history", memory_id)["items"]
    assert [v["version"] for v in versions] == [5, 4, 3, 2, 1]
    assert (versions[0]["content"], versions[0]["layer"]) == (
        "Dentist appointment on Thursday at 3pm",
        "semantic",
    )
    assert versions[0]["reason"] == "wrong one"
    hits = as_json(db, "recall", "dentist on Thursday", "-k", "5")["items"]
    assert [h["memory"]["id"] for h in hits] == [memory_id]  # versions are never recalled

    # Back to what it already holds: nothing to change, no new version.
    same = run(db, "revert", memory_id, "3")
    assert same.exit_code == 0 and "already holds version 3's values" in same.stdout
    assert len(as_json(db, "history", memory_id)["items"]) == 5


# -- the go-ahead for a change that weakens protection ---------------------------------------

PROTECTED = {
    # name: (remember options, change command after the id, protection lost or kept)
    "caveat moved out": (
        ["--layer", "caveat"],
        ["update", "--layer", "semantic"],
        {"layer": {"old": "caveat", "new": "semantic"}},
    ),
    "caveat rewritten": (
        ["--layer", "caveat"],
        ["update", "--content", "Email customers about price changes whenever."],
        {},
    ),
    "pin lowered": (
        ["--importance", "0.95"],
        ["update", "--importance", "0.5"],
        {"importance": {"old": 0.95, "new": 0.5}},
    ),
    "pinned rewritten": (
        ["--importance", "0.95"],
        ["update", "--content", "Email customers about price changes whenever."],
        {},
    ),
}


def _protected(db: str, case: str) -> tuple[str, list[str], dict[str, Any]]:
    options, change, fields = PROTECTED[case]
    memory_id = remember(db, CAVEAT, *options)
    command, *rest = change
    return memory_id, [command, memory_id, *rest], fields


@pytest.mark.parametrize("case", PROTECTED, ids=str)
def test_a_protected_change_without_yes_or_terminal_changes_nothing(db: str, case: str) -> None:
    memory_id, argv, _ = _protected(db, case)
    before = snapshot(db)
    result = run(db, *argv)
    line = one_error_line(result, code=3)
    assert "not confirmed" in line and "--yes" in line and "nothing was changed" in line
    # The plan was shown: what would change and what protects it.
    assert f"update {memory_id}" in result.stdout and "protected:" in result.stdout
    assert "This needs the same confirmation as forgetting it." in " ".join(result.stdout.split())
    assert snapshot(db) == before

    plan = as_json(db, *argv, code=3)
    assert (plan["memory_id"], plan["needs_confirmation"]) == (memory_id, True)
    assert plan["diff"] and plan["protection"]
    assert snapshot(db) == before


@pytest.mark.parametrize("case", PROTECTED, ids=str)
def test_a_protected_change_with_yes_is_made_and_audited(db: str, case: str) -> None:
    memory_id, argv, fields = _protected(db, case)
    memory = as_json(db, *argv, "--yes", "--reason", "the person asked", "--actor", "alice")
    assert memory["version"] == 2
    [event] = events(db, memory_id, "update")
    assert (event["actor"], event["reason"]) == ("alice", "the person asked")
    details = event["details"]
    assert (details["confirmed"], details["from_version"], details["version"]) == ("yes", 1, 2)
    assert details["protection_fields"] == fields
    assert details["protected_before"]
    assert bool(details["protected_after"]) == (not fields)  # a rewrite keeps the protection
    versions = as_json(db, "history", memory_id)["items"]
    assert [v["content"] for v in versions][1] == CAVEAT  # the old state is kept


def test_lost_protections_are_named_before_the_change(db: str) -> None:
    memory_id = remember(db, CAVEAT, "--layer", "caveat", "--importance", "0.95")
    result = run(db, "update", memory_id, "--layer", "semantic", "--importance", "0.2")
    assert result.exit_code == 3
    out = " ".join(result.stdout.split())
    assert "layer caveat → semantic" in out and "importance 0.95 → 0.20" in out
    assert "would lose protection: caveat-layer memories are protected" in out
    assert "would lose protection: pinned (importance 0.95 >= 0.9)" in out


def test_an_ordinary_change_needs_no_go_ahead(db: str) -> None:
    memory_id = remember(db, DENTIST)
    # Into the caveat layer and pinned: more protection, not less.
    memory = as_json(db, "update", memory_id, "--layer", "caveat", "--importance", "0.95")
    assert (memory["layer"], memory["importance"], memory["version"]) == ("caveat", 0.95, 2)
    [event] = events(db, memory_id, "update")
    assert "confirmed" not in event["details"]


def test_a_revert_that_takes_protection_away_needs_the_go_ahead(db: str) -> None:
    memory_id = remember(db, CAVEAT)
    ok(db, "update", memory_id, "--layer", "caveat")
    ok(db, "update", memory_id, "--importance", "0.95")
    before = snapshot(db)
    for version in ("1", "2"):
        result = run(db, "revert", memory_id, version)
        line = one_error_line(result, code=3)
        assert f"reverting {memory_id} takes away its protection" in line
        assert snapshot(db) == before
    memory = as_json(db, "revert", memory_id, "1", "--yes")
    assert (memory["layer"], memory["importance"], memory["version"]) == ("episodic", 0.5, 4)
    [event] = events(db, memory_id, "revert")
    assert event["details"]["confirmed"] == "yes"
    assert event["details"]["protection_fields"] == {
        "layer": {"old": "caveat", "new": "episodic"},
        "importance": {"old": 0.95, "new": 0.5},
    }


@pytest.mark.parametrize("command", ["update", "revert"])
def test_a_terminal_answer_no_changes_nothing_and_yes_changes(
    db: str, terminal: None, command: str
) -> None:
    memory_id = remember(db, CAVEAT, "--importance", "0.95")
    argv = ["update", memory_id, "--importance", "0.4"]
    if command == "revert":
        ok(db, *argv, "--yes")  # version 2: 0.4
        ok(db, "update", memory_id, "--importance", "0.95")  # version 3: pinned again
        argv = ["revert", memory_id, "2"]  # lowers the pin: needs the go-ahead
    before = memory_rows(db)
    version = as_json(db, "show", memory_id)["version"]

    declined = run(db, *argv, input="n\n")
    assert declined.exit_code == 0, declined.stderr
    assert "[y/N]" in declined.stderr and "no longer be protected" in declined.stderr
    assert "declined: nothing was changed" in declined.stderr
    assert memory_id in declined.stdout  # the change was shown before the question
    assert memory_rows(db) == before
    [refusal] = as_json(db, "audit", "--memory", memory_id, "--op", "forget_declined")["items"]
    assert refusal["details"]["operation"] == "update"
    # Enter alone takes the default, which is No.
    ok(db, *argv, input="\n")
    assert memory_rows(db) == before

    done = ok(db, *argv, input="y\n")
    assert f"is now version {version + 1}" in done.stdout
    memory = as_json(db, "show", memory_id)
    assert (memory["version"], memory["importance"]) == (version + 1, 0.4)
    op = "update" if command == "update" else "revert"
    assert events(db, memory_id, op)[-1]["details"]["confirmed"] == "prompt"


def test_a_terminal_with_json_keeps_stdout_one_document(db: str, terminal: None) -> None:
    memory_id = remember(db, CAVEAT, "--layer", "caveat")
    declined = run(db, "update", memory_id, "--layer", "semantic", "--json", input="n\n")
    assert declined.exit_code == 0, declined.stderr
    plan = json.loads(declined.stdout)
    assert plan["needs_confirmation"] is True and plan["memory_id"] == memory_id
    assert memory_id in declined.stderr  # the change was shown to the person, on stderr
    done = run(db, "update", memory_id, "--layer", "semantic", "--json", input="y\n")
    assert done.exit_code == 0, done.stderr
    assert json.loads(done.stdout)["layer"] == "semantic"


# -- bad input: one line, nothing changed --------------------------------------------------


def test_bad_revert_and_history_input_is_one_line_and_changes_nothing(db: str) -> None:
    memory_id = remember(db, DENTIST)
    ok(db, "update", memory_id, "--content", "Dentist appointment on Thursday at 3pm")
    other = remember(db, "Team standup is at 9:15", "--namespace", "team-a")
    gone = remember(db, "User had pasta for lunch")
    ok(db, "update", gone, "--content", "User had risotto for lunch")
    ok(db, "forget", gone, "--yes")
    before = snapshot(db)
    cases = [
        (["revert", memory_id, "9"], f"{memory_id} has no version 9"),
        (["revert", memory_id, "9"], f"see lethe history {memory_id}"),
        (["revert", memory_id, "0"], "versions start at 1"),
        (["revert", memory_id, "99999999999999999999"], "has no version 99999999999999999999"),
        (["revert", gone, "1"], f"{gone} is in the trash; cannot revert it"),
        (["revert", gone, "1"], f"lethe restore {gone} first"),
        (["history", gone], "is in the trash"),
        (["revert", other, "1", "--namespace", "default"], f"Memory not found: {other}"),
        (["history", other, "--namespace", "default"], f"Memory not found: {other}"),
        (["history", memory_id, "-n", "team-a"], f"Memory not found: {memory_id}"),
        (["update", other, "--content", "x", "--namespace", "default"], "not found"),
        (["revert", "mem_0123456789ab", "1"], "Memory not found"),
        (["update", memory_id, "--importance", "0.3", "--actor", " "], "actor"),
    ]
    for argv, fragment in cases:
        for extra in ([], ["--json"], ["--yes"] if argv[0] != "history" else []):
            result = run(db, *argv, *extra)
            assert fragment in one_error_line(result), (argv, result.stderr)
            assert result.stdout == ""
            assert snapshot(db) == before
    # The same memory in its own namespace is found.
    assert len(as_json(db, "history", other, "-n", "team-a")["items"]) == 1
    usage = run(db, "revert", memory_id, "two")
    assert usage.exit_code == 2 and snapshot(db) == before


# -- remember: similar is not same --------------------------------------------------------


def test_near_duplicates_are_all_stored_recalled_and_named(db: str) -> None:
    for first, second, question in NEAR_PAIRS.values():
        old = remember(db, first)
        new = as_json(db, "remember", second)
        assert new["id"] != old and new["existing"] is False, second
        assert [(n["id"], n["content"]) for n in new["near_duplicates"]] == [(old, first)]
        assert new["near_duplicates"][0]["similarity"] >= 0.95
        hits = {h["memory"]["id"] for h in as_json(db, "recall", question, "-k", "2")["items"]}
        assert hits == {old, new["id"]}, question
        kinds = {(link["other"], link["kind"]) for link in as_json(db, "show", new["id"])["links"]}
        assert (old, "near_duplicate") in kinds
    assert as_json(db, "list")["total"] == 2 * len(NEAR_PAIRS)
    assert len(as_json(db, "audit", "--op", "remember")["items"]) == 2 * len(NEAR_PAIRS)


def test_remember_names_the_near_duplicate_and_what_to_do(db: str) -> None:
    old = remember(db, "takes 50 mg of sertraline")
    lines = ok(db, "remember", "takes 100 mg of sertraline").stdout.splitlines()
    new = lines[0]
    assert new != old and "remembered in default/episodic" in lines[1]
    text = " ".join(" ".join(lines).split())
    assert f"near-duplicate {old} (similarity 0.9" in text
    assert "takes 50 mg of sertraline" in text
    assert "keep both" in text and f"lethe update {old}" in text and f"lethe forget {old}" in text


def test_an_exact_duplicate_returns_the_same_id_and_writes_nothing(db: str) -> None:
    memory_id = remember(db, DENTIST, "--tag", "health")
    before = snapshot(db)
    for text in (DENTIST, f"  {DENTIST}\n"):
        again = as_json(db, "remember", text, "--tag", "health")
        assert (again["id"], again["existing"], again["near_duplicates"]) == (memory_id, True, [])
        plain = ok(db, "remember", text, "--tag", "health").stdout.splitlines()
        assert plain[0] == memory_id and "nothing written" in plain[1]
        assert snapshot(db) == before
    # Other fields make it another memory, linked to the first.
    other = as_json(db, "remember", DENTIST, "--tag", "calendar")
    assert other["id"] != memory_id and other["existing"] is False
    assert [n["id"] for n in other["near_duplicates"]] == [memory_id]
    forced = as_json(db, "remember", DENTIST, "--tag", "health", "--allow-duplicate")
    assert forced["id"] not in {memory_id, other["id"]}
    assert as_json(db, "list")["total"] == 3


# -- import -----------------------------------------------------------------------------


def test_import_reports_versions_and_near_duplicates(db: str, tmp_path: Path) -> None:
    memory_id = remember(db, DENTIST)
    ok(db, "update", memory_id, "--content", "Dentist appointment on Thursday at 3pm")
    ok(db, "update", memory_id, "--importance", "0.7", "--reason", "matters")
    dump = tmp_path / "dump.jsonl"
    ok(db, "export", "-o", str(dump))

    copy = tmp_path / "copy.db"
    report = as_json(copy, "import", str(dump))
    assert (report["imported"], report["versions"]) == (1, 2)
    assert as_json(copy, "history", memory_id) == as_json(db, "history", memory_id)

    notes = tmp_path / "notes.jsonl"
    lines = [
        {"content": "takes 50 mg of sertraline"},
        {"content": "takes 100 mg of sertraline"},
        {"content": "takes 100 mg of sertraline"},
        {"content": DENTIST},
    ]
    notes.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    text = ok(tmp_path / "text.db", "import", str(dump)).stdout
    assert "imported 1 memories" in text and "2 earlier version(s)" in text
    report = as_json(copy, "import", str(notes))
    # The two doses are both kept (one linked to the other); the repeated line is skipped; the
    # old dentist text is kept beside the current one it nearly repeats.
    assert (report["imported"], report["skipped_duplicates"]) == (3, 1)
    assert report["near_duplicates"] == 2
    text = ok(tmp_path / "text.db", "import", str(notes)).stdout
    assert "2 linked to a near-duplicate" in text and "skipped 1 exact duplicate(s)" in text
    kept = as_json(tmp_path / "all.db", "import", str(notes), "--keep-duplicates")
    assert (kept["imported"], kept["skipped_duplicates"]) == (4, 0)


# -- forget after an unprotect -------------------------------------------------------------


def test_forget_preview_warns_when_the_target_was_protected_moments_ago(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    memory_id = remember(db, CAVEAT, "--layer", "caveat")
    refused = as_json(db, "forget", memory_id, "--yes", code=1)
    assert refused["deletedCount"] == 0  # protected: refused
    ok(db, "update", memory_id, "--layer", "semantic", "--yes", "--actor", "alice")

    before = snapshot(db)
    unasked = run(db, "forget", memory_id)
    line = one_error_line(unasked, code=3)
    assert "1 memory would be forgotten (1 of them protected until moments ago)" in line
    assert snapshot(db) == before

    monkeypatch.setattr(confirming, "interactive", lambda: True)
    result = run(db, "forget", memory_id, input="n\n")
    assert result.exit_code == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "warning: it was protected (caveat-layer memories are protected) until" in out
    assert "when alice changed it" in out
    assert f"Protected until moments ago: {memory_id}" in " ".join(result.stderr.split())
    assert snapshot(db)["memories"] == before["memories"]

    body = json.loads(run(db, "forget", memory_id, "--json", input="n\n").stdout)
    [entry] = body["plan"]
    assert entry["action"] == "delete" and "caveat-layer" in entry["wasProtected"]

    # A memory that was never protected carries no warning.
    plain = remember(db, "User had pasta for lunch")
    body = json.loads(run(db, "forget", plain, "--json", input="n\n").stdout)
    assert "wasProtected" not in body["plan"][0]


# -- a real terminal ---------------------------------------------------------------------


def _script() -> list[str]:
    found = shutil.which("lethe", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "lethe"]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
    env["LETHE_CONFIG"] = str(tmp_path / "no-such-config.toml")
    return env


@sqlite_only
def test_installed_script_asks_a_real_terminal_before_unprotecting(db: str, tmp_path: Path) -> None:
    memory_id = remember(db, CAVEAT, "--layer", "caveat")
    for answer, layer in (("n\n", "caveat"), ("y\n", "semantic")):
        controller, tty = pty.openpty()
        try:
            child = subprocess.Popen(
                [*_script(), "update", memory_id, "--layer", "semantic", "--db", db],
                stdin=tty,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=_env(tmp_path),
            )
            os.write(controller, answer.encode())
            out, err = child.communicate(timeout=120)
        finally:
            os.close(tty)
            os.close(controller)
        assert child.returncode == 0, err
        assert "[y/N]" in err and memory_id in out
        assert as_json(db, "show", memory_id)["layer"] == layer


def test_a_negative_version_is_named_as_such_not_as_an_unknown_option(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`lethe revert ID -1`: click reads -1 as an option; the one error line says what it is."""
    memory_id = remember(db, DENTIST)
    before = snapshot(db)
    with pytest.raises(SystemExit) as done:
        main(["revert", memory_id, "-1", "--db", db])
    assert done.value.code == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("error: -1 is not an option") and "negative number" in line
    assert "versions and counts start at 1" in line and "No such option" not in line
    assert snapshot(db) == before
