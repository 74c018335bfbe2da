"""The forgetting commands of the CLI, end to end on real files with the real MiniLM embedder.

forget, purge, trash, restore, maintain and report run in-process through CliRunner, whose
stdin is never a terminal; the terminal path is taken by replacing the CLI's own check, and
once for real through a pseudo-terminal. Memories that must look old are written through the
Python API with a clock set back, since the CLI always runs on the wall clock.
"""

from __future__ import annotations

import json
import os
import pty
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner, Result

from lethe import Lethe
from lethe.cli import app, confirming
from lethe.cli.app import parse_duration
from lethe.embed import Embedder
from lethe.schemas import load
from tests.backends import both_stores, snapshot

SEED_000 = [
    "User lives in San Francisco",
    "User visited San Francisco last year",
    "User loves California wine",
    "The Golden Gate Bridge is in the Bay Area",
]

runner = CliRunner()
validator = jsonschema.Draft202012Validator(load("forget-response"))


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


def run(db: str, *args: str, input: str | None = None) -> Result:
    return runner.invoke(app, [*args, "--db", str(db)], input=input)


def ok(db: str, *args: str, input: str | None = None) -> Result:
    result = run(db, *args, input=input)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def as_json(db: str, *args: str, input: str | None = None, code: int = 0) -> Any:
    result = run(db, *args, "--json", input=input)
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    return json.loads(result.stdout)


def response(db: str, *args: str, code: int = 0) -> dict[str, Any]:
    """A forget/purge --json answer, checked against the published schema."""
    body: dict[str, Any] = as_json(db, *args, code=code)
    validator.validate(body)
    return body


def remember(db: str, text: str, *options: str) -> str:
    memory_id: str = as_json(db, "remember", text, *options)["id"]
    return memory_id


def live(db: str, *options: str) -> set[str]:
    return {m["id"] for m in as_json(db, "list", "--limit", "1000", *options)["items"]}


def trashed(db: str) -> set[str]:
    return {i["memory"]["id"] for i in as_json(db, "trash", "--limit", "1000")["items"]}


def ops(db: str, *options: str) -> list[str]:
    return [e["op"] for e in as_json(db, "audit", "--limit", "10000", *options)["items"]]


def one_error_line(result: Result) -> str:
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def seed_000(db: str) -> dict[str, str]:
    return {text: remember(db, text) for text in SEED_000}


def at(clock: Callable[[], datetime], db: str, embedder: Embedder) -> Lethe:
    return Lethe.open(db, embedder=embedder, clock=clock)


def days_ago(days: float) -> Callable[[], datetime]:
    moment = datetime.now(UTC) - timedelta(days=days)
    return lambda: moment


# -- help ---------------------------------------------------------------------------------

COMMANDS = ["forget", "purge", "trash", "restore", "maintain", "report"]


def test_help_lists_the_forgetting_commands() -> None:
    listing = runner.invoke(app, ["--help"]).stdout
    for name in COMMANDS:
        assert f"\n  {name} " in listing, name


@pytest.mark.parametrize("command", COMMANDS)
def test_every_forgetting_command_takes_db_and_json(command: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "--db" in result.stdout and "--json" in result.stdout


def test_forget_and_purge_help_explain_the_confirmation() -> None:
    for command in ("forget", "purge"):
        text = " ".join(runner.invoke(app, [command, "--help"]).stdout.split())
        assert "--yes" in text and "Exit status 3" in text


# -- forget by id ---------------------------------------------------------------------------


def test_forget_by_id_without_a_terminal_exits_3_and_deletes_nothing(db: str) -> None:
    ids = seed_000(db)
    target = ids[SEED_000[0]]
    before = snapshot(db)
    result = run(db, "forget", target)
    assert result.exit_code == confirming.NEEDS_CONFIRMATION == 3
    assert target in result.stdout and "User lives in San Francisco" in result.stdout
    line = one_error_line(result)
    assert "--yes" in line and "not a terminal" in line and "nothing was changed" in line
    assert snapshot(db) == before
    # The same with --json: the plan (a dry run) on stdout, still nothing changed.
    plan = response(db, "forget", target, code=3)
    assert plan["dryRun"] is True and [e["id"] for e in plan["plan"]] == [target]
    assert plan["plan"][0]["action"] == "delete"
    assert snapshot(db) == before


def test_forget_by_id_with_yes_moves_it_to_the_trash(db: str) -> None:
    ids = seed_000(db)
    target = ids[SEED_000[0]]
    result = ok(db, "forget", target, "--yes", "--reason", "user asked", "--actor", "alice")
    assert f"forgot {target}" in result.stdout
    assert "lethe restore" in result.stdout
    assert live(db) == set(ids.values()) - {target}
    [item] = as_json(db, "trash")["items"]
    assert item["memory"]["id"] == target
    assert item["memory"]["forgotten_by"] == "alice"
    assert item["memory"]["forget_reason"] == "user asked"
    [event] = as_json(db, "audit", "--op", "forget")["items"]
    assert (event["memory_id"], event["actor"], event["reason"]) == (target, "alice", "user asked")
    # Recall no longer finds it; the other three are intact and found.
    hits = [h["memory"]["id"] for h in as_json(db, "recall", "San Francisco")["items"]]
    assert target not in hits and ids[SEED_000[1]] in hits


def test_terminal_answer_no_keeps_everything_and_is_recorded(db: str, terminal: None) -> None:
    ids = seed_000(db)
    target = ids[SEED_000[1]]
    result = ok(db, "forget", target, input="n\n")
    assert "[y/N]" in result.stderr and "declined: nothing was forgotten" in result.stderr
    assert target in result.stdout  # the plan was shown before the question
    assert live(db) == set(ids.values())
    [declined] = as_json(db, "audit", "--op", "forget_declined")["items"]
    assert declined["memory_id"] == target
    # Enter alone takes the default, which is No.
    ok(db, "forget", target, input="\n")
    assert live(db) == set(ids.values())


def test_terminal_answer_yes_forgets(db: str, terminal: None) -> None:
    ids = seed_000(db)
    target = ids[SEED_000[1]]
    result = ok(db, "forget", target, input="y\n")
    assert "Forget 1 memory?" in result.stderr
    assert f"forgot {target}" in result.stdout
    assert live(db) == set(ids.values()) - {target}
    assert trashed(db) == {target}


def test_terminal_with_json_keeps_stdout_one_document(db: str, terminal: None) -> None:
    ids = seed_000(db)
    target = ids[SEED_000[2]]
    result = run(db, "forget", target, "--json", input="y\n")
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    validator.validate(body)
    assert body["dryRun"] is False and body["deletedIds"] == [target]
    assert target in result.stderr  # the plan was shown to the person, on stderr
    declined = run(db, "forget", ids[SEED_000[3]], "--json", input="n\n")
    plan = json.loads(declined.stdout)
    validator.validate(plan)
    assert plan["dryRun"] is True and declined.exit_code == 0


def test_a_target_changed_while_asking_is_not_forgotten(
    db: str, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = remember(db, "User lives in San Francisco")
    cities = iter(["Oakland", "Berkeley"])

    def edit_then_agree(question: str) -> bool:
        with Lethe.open(db, embedder=embedder) as other:
            other.update(target, content=f"User lives in {next(cities)}")
        return True

    monkeypatch.setattr(confirming, "interactive", lambda: True)
    monkeypatch.setattr(confirming, "ask", edit_then_agree)
    body = response(db, "forget", target, code=1)
    assert body["deletedCount"] == 0 and body["changedSincePreview"] == [target]
    assert body["freshPlan"]["plan"][0]["preview"] == "User lives in Oakland"
    assert live(db) == {target}
    result = run(db, "forget", target)
    assert result.exit_code == 1
    assert "run the command again" in one_error_line(result)


def test_a_plan_that_expired_while_asking_is_not_executed(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = remember(db, "User lives in San Francisco")
    monkeypatch.setenv("LETHE_CONFIRM_TTL_SECONDS", "0.05")
    monkeypatch.setattr(confirming, "interactive", lambda: True)
    monkeypatch.setattr(confirming, "ask", lambda question: time.sleep(0.2) or True)
    result = run(db, "forget", target)
    assert result.exit_code == 1
    assert "the plan expired" in one_error_line(result)
    assert live(db) == {target}


def test_unknown_id_is_an_error_and_the_known_one_is_still_forgotten(db: str) -> None:
    keep, target = remember(db, "User likes jazz"), remember(db, "User hates olives")
    result = run(db, "forget", target, "mem_0123456789ab", "--yes")
    assert result.exit_code == 1
    line = one_error_line(result)
    assert line.startswith("error: could not forget mem_0123456789ab: not found")
    assert "lethe recall" in line
    assert live(db) == {keep}
    malformed = run(db, "forget", "mem_123", "--yes")
    assert malformed.exit_code == 1
    assert one_error_line(malformed).startswith("error: malformed memory id")


def test_a_mistyped_id_gets_the_closest_ids(db: str) -> None:
    target = remember(db, "User hates olives")
    remember(db, "The cat is called Miso", "--namespace", "pets")
    typo = target[:4] + ("0" if target[4] != "0" else "1") + target[5:]
    result = run(db, "forget", typo, "--yes")
    assert result.exit_code == 1
    assert f"did you mean {target}?" in one_error_line(result)
    body = response(db, "forget", typo, code=1)
    assert body["notFound"] == [typo] and body["suggestions"] == {typo: [target]}
    elsewhere = run(db, "forget", target, "--namespace", "pets", "--yes")
    assert elsewhere.exit_code == 1 and f"{target}: not found" in one_error_line(elsewhere)
    assert target in live(db)


# -- protection -----------------------------------------------------------------------------


def test_protected_memories_are_refused_on_every_path(db: str) -> None:
    caveat = remember(db, "Never drink and drive", "--layer", "caveat")
    pinned = remember(db, "User's passport number is in the blue folder", "--importance", "0.95")
    plain = remember(db, "User had pasta for lunch")

    result = run(db, "forget", caveat, "--yes")
    assert result.exit_code == 1
    line = one_error_line(result)
    assert line.startswith(f"error: could not forget {caveat}: caveat-layer memories are protected")
    assert "move it out of the caveat layer" in line
    assert "refuse" in result.stdout and "protected" in result.stdout

    body = response(db, "forget", pinned, "--yes", code=1)
    assert body["deletedCount"] == 0
    assert body["refused"][0]["id"] == pinned
    assert "lower its importance below 0.9" in body["refused"][0]["hint"]

    # Bulk criteria: the whole namespace goes, protected memories stay, and that is no error.
    whole = response(db, "forget", "--all", "--execute", "--yes")
    assert whole["deletedIds"] == [plain]
    assert {r["id"] for r in whole["refused"]} == {caveat, pinned}
    assert live(db) == {caveat, pinned}
    # Purge refuses them too.
    assert run(db, "purge", pinned, "--yes").exit_code == 1
    assert live(db) == {caveat, pinned}


# -- forget by query, filters and criteria --------------------------------------------------


def test_query_prints_a_plan_and_deletes_nothing(db: str) -> None:
    ids = seed_000(db)
    before = snapshot(db)
    result = ok(db, "forget", "--query", "I live in San Francisco")
    lines = result.stdout.splitlines()
    first = next(i for i, line in enumerate(lines) if ids[SEED_000[0]] in line)
    second = next(i for i, line in enumerate(lines) if ids[SEED_000[1]] in line)
    assert first < second
    assert re.search(r"\s0\.\d\d\s", lines[first]) and lines[first].startswith("delete")
    assert re.search(r"\s0\.\d\d\s", lines[second]) and lines[second].startswith("skip")
    assert f"lethe forget {ids[SEED_000[1]]}" in result.stdout
    plan = response(db, "forget", "--query", "I live in San Francisco")
    assert [e["id"] for e in plan["plan"][:2]] == [ids[SEED_000[0]], ids[SEED_000[1]]]
    assert plan["plan"][0]["score"] > plan["plan"][1]["score"] >= 0.4
    assert snapshot(db) == before
    # Without --execute, --yes is a mistake, not a go-ahead.
    mistaken = run(db, "forget", "--query", "I live in San Francisco", "--yes")
    assert mistaken.exit_code == 1 and "--execute" in one_error_line(mistaken)
    assert snapshot(db) == before


def test_query_execute_needs_the_same_confirmation(db: str) -> None:
    seed_000(db)
    before = snapshot(db)
    result = run(db, "forget", "--query", "I live in San Francisco", "--execute")
    assert result.exit_code == 3 and "--yes" in one_error_line(result)
    assert snapshot(db) == before


def test_query_execute_yes_forgets_only_the_clear_winner(db: str) -> None:
    ids = seed_000(db)
    body = response(db, "forget", "--query", "I live in San Francisco", "--execute", "--yes")
    assert body["dryRun"] is False
    assert body["deletedIds"] == [ids[SEED_000[0]]]
    skipped = {s["id"] for s in body["skippedLowConfidence"]}
    assert ids[SEED_000[1]] in skipped
    assert live(db) == {ids[t] for t in SEED_000[1:]}


def test_a_compound_memory_is_shown_as_an_edit_and_cut_once_confirmed(db: str) -> None:
    both = remember(db, "The user takes sertraline and is allergic to penicillin.")
    remember(db, "Tom takes sertraline.")
    text = ok(db, "forget", "--query", "forget that I take sertraline").stdout
    assert re.search(rf"^edit\s+{both}", text, re.MULTILINE)
    assert "[-takes sertraline and-]" in text
    plan = response(db, "forget", "--query", "forget that I take sertraline")
    [entry] = [e for e in plan["plan"] if e["id"] == both]
    assert entry["action"] == "edit"
    assert entry["newContent"] == "The user is allergic to penicillin."
    before = snapshot(db)
    unconfirmed = run(db, "forget", "--query", "forget that I take sertraline", "--execute")
    assert unconfirmed.exit_code == 3 and "1 memory edited" in one_error_line(unconfirmed)
    assert snapshot(db) == before
    body = response(db, "forget", "--query", "I take sertraline", "--execute", "--yes")
    assert body["editedIds"] == [both] and body["deletedIds"] == []
    shown = as_json(db, "show", both)
    assert shown["content"] == "The user is allergic to penicillin." and shown["version"] == 2
    assert both in live(db)


def test_an_edit_shows_and_cuts_the_fact_in_each_earlier_version(db: str) -> None:
    """Issue 43: the plan shows the cut of every earlier version that holds the fact, and
    `lethe history` shows none of it once confirmed."""
    both = remember(db, "The user takes sertraline. The user lives in Milan.")
    ok(db, "update", both, "--content", "The user takes sertraline and is allergic to penicillin.")
    text = ok(db, "forget", "--query", "forget that I take sertraline").stdout
    assert "version 1: The user [-takes sertraline. The user-] lives in Milan." in text
    plan = response(db, "forget", "--query", "forget that I take sertraline")
    [entry] = [e for e in plan["plan"] if e["id"] == both]
    assert [v["version"] for v in entry["pastVersions"]] == [1]
    response(db, "forget", "--query", "I take sertraline", "--execute", "--yes")
    history = ok(db, "history", both).stdout
    assert "sertraline" not in history and "lives in Milan" in history


def test_ambiguous_query_execute_forgets_nothing(db: str) -> None:
    remember(db, "User's sister lives in Boston")
    remember(db, "User's brother lives in Boston")
    before = live(db)
    body = response(db, "forget", "--query", "sibling in Boston", "--execute", "--yes")
    assert body["deletedCount"] == 0 and len(body["skippedLowConfidence"]) == 2
    assert "choose by id" in body["notes"].lower() or "low-confidence" in body["notes"]
    assert live(db) == before
    text = ok(db, "forget", "--query", "sibling in Boston").stdout
    assert "ambiguous" in text.lower()


def test_filters_forget_every_match(db: str) -> None:
    a = remember(db, "Episode one intro script", "--meta", "source=ep01.md", "--tag", "draft")
    b = remember(db, "Episode one outro jokes", "--meta", "source=ep01.md", "--tag", "draft")
    keep = remember(db, "Episode two intro script", "--meta", "source=ep02.md")
    plan = response(db, "forget", "--filter", "@metadata.source = ep01.md")
    assert {e["id"] for e in plan["plan"]} == {a, b}
    assert live(db) == {a, b, keep}
    body = response(db, "forget", "--tag", "draft", "--execute", "--yes", "--reason", "drafts")
    assert set(body["deletedIds"]) == {a, b}
    assert live(db) == {keep}


def test_older_than_and_not_accessed_since(db: str, embedder: Embedder) -> None:
    with at(days_ago(40), db, embedder) as mem:
        old = mem.remember("Scratch note about glaciers").id
        old_used = mem.remember("Scratch note about violins").id
    fresh = remember(db, "Scratch note about kites")
    ok(db, "recall", "violins", "-k", "1")  # an access now
    plan = response(db, "forget", "--older-than", "30d")
    assert {e["id"] for e in plan["plan"]} == {old, old_used}
    stale = response(db, "forget", "--older-than", "4w", "--not-accessed-since", "30d")
    assert {e["id"] for e in stale["plan"]} == {old}
    assert {e["id"] for e in response(db, "forget", "--older-than", "900h")["plan"]} == {
        old,
        old_used,
    }
    body = response(db, "forget", "--older-than", "30d", "--execute", "--yes")
    assert set(body["deletedIds"]) == {old, old_used}
    assert live(db) == {fresh}
    both = run(db, "forget", "--older-than", "30d", "--until", "2024-01-01")
    assert both.exit_code == 1 and "not both" in one_error_line(both)


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("30d", timedelta(days=30)),
        ("12h", timedelta(hours=12)),
        ("90m", timedelta(minutes=90)),
        ("2w", timedelta(weeks=2)),
        (" 45s ", timedelta(seconds=45)),
    ],
)
def test_durations(text: str, span: timedelta) -> None:
    assert parse_duration(text) == span


@pytest.mark.parametrize("bad", ["30", "3x", "-5d", "0d", "1.5d", "30D", "d", "", "999999999999d"])
def test_bad_duration_is_a_usage_error(db: str, bad: str) -> None:
    remember(db, "User likes jazz")
    before = snapshot(db)
    for command in (["forget", "--older-than", bad], ["purge", "--older-than", bad]):
        result = run(db, *command)
        assert result.exit_code == 2, result.output
        assert "--older-than" in result.stderr
        assert "duration" in result.stderr or "year 1" in result.stderr
    assert snapshot(db) == before


def test_mistaken_combinations_are_refused(db: str) -> None:
    memory = remember(db, "User likes jazz")
    before = snapshot(db)
    cases = [
        (["forget"], "nothing to forget"),
        (["forget", "--all", "--tag", "x"], "--all means the whole namespace"),
        (["forget", memory, "--tag", "x", "--yes"], "not both"),
        (["purge"], "nothing to purge"),
        (["purge", memory, "--older-than", "1d", "--yes"], "not both"),
    ]
    for args, fragment in cases:
        result = run(db, *args)
        assert result.exit_code == 1, args
        assert fragment in one_error_line(result), args
    assert snapshot(db) == before


# -- trash, restore, purge ----------------------------------------------------------------


@both_stores
def test_trash_and_restore_round_trip(db: str) -> None:
    a = remember(db, "Project Atlas kicks off in March")
    b = remember(db, "Atlas budget is 40k")
    ok(db, "link", a, b, "--kind", "follows")
    ok(db, "forget", a, "--yes", "--reason", "wrong project")
    assert as_json(db, "show", b)["links"] == []
    page = as_json(db, "trash")
    assert page["total"] == 1
    [item] = page["items"]
    forgotten = datetime.fromisoformat(item["memory"]["forgotten_at"])
    assert datetime.fromisoformat(item["purge_after"]) - forgotten == timedelta(days=30)
    table = ok(db, "trash").stdout
    assert a in table and "showing 1–1 of 1" in table
    assert "wrong" in table and "project" in table  # the reason wraps in its column

    restored = as_json(db, "restore", a)
    assert restored["id"] == a and restored["status"] == "active"
    assert [link["other"] for link in as_json(db, "show", b)["links"]] == [a]
    assert live(db) == {a, b} and trashed(db) == set()
    assert "the trash is empty" in ok(db, "trash").stdout
    assert ops(db, "--memory", a)[-2:] == ["forget", "restore"]

    again = run(db, "restore", a)
    assert again.exit_code == 1 and "is not in the trash" in one_error_line(again)


@both_stores
def test_purge_with_yes_erases_from_the_trash(db: str) -> None:
    a = remember(db, "User's locker code is Quokka7731x")
    b = remember(db, "User likes jazz")
    ok(db, "forget", a, b, "--yes")
    before = snapshot(db)
    refused = run(db, "purge", a)
    assert refused.exit_code == 3 and snapshot(db) == before
    body = response(db, "purge", a, "--yes")
    assert body["operation"] == "purge" and body["deletedIds"] == [a]
    assert trashed(db) == {b}
    gone = run(db, "restore", a)
    assert gone.exit_code == 1 and "does not exist (or was purged)" in one_error_line(gone)
    # The content is gone from the audit log too; the event keeps the id.
    audit = ok(db, "audit", "--memory", a, "--json").stdout
    assert "Quokka7731x" not in audit and '"purge"' in audit
    # A live memory can be purged directly.
    c = remember(db, "User had pasta for lunch")
    assert "erased" in ok(db, "purge", c, "--yes").stdout
    assert c not in live(db)


def test_purge_older_than_erases_only_old_trash(db: str, embedder: Embedder) -> None:
    with at(days_ago(40), db, embedder) as mem:
        old = mem.remember("Scratch note about glaciers").id
        mem.execute(mem.plan_forget([old]))
    recent = remember(db, "Scratch note about kites")
    ok(db, "forget", recent, "--yes")
    plan = response(db, "purge", "--older-than", "30d", code=3)
    assert [e["id"] for e in plan["plan"]] == [old]
    assert trashed(db) == {old, recent}
    ok(db, "purge", "--older-than", "30d", "--yes")
    assert trashed(db) == {recent}
    nothing = response(db, "purge", "--older-than", "30d")
    assert nothing["deletedCount"] == 0


def test_maintain_erases_expired_trash(db: str, embedder: Embedder) -> None:
    with at(days_ago(31), db, embedder) as mem:
        old = mem.remember("Scratch note about glaciers").id
        mem.execute(mem.plan_forget([old]))
    recent = remember(db, "Scratch note about kites")
    ok(db, "forget", recent, "--yes")
    assert as_json(db, "maintain") == {
        "expired": [old],
        "expired_confirmations": 0,
        "expiries": [],
        "versions_embedded": 0,
    }
    assert trashed(db) == {recent}
    assert "purge" in ops(db, "--memory", old)
    text = ok(db, "maintain").stdout
    assert "nothing in the trash is past its retention" in text
    assert "no stale confirmations" in text


# -- report -----------------------------------------------------------------------------------


def test_report_counts(db: str, terminal: None) -> None:
    a = remember(db, "User likes jazz")
    b = remember(db, "The cat is called Miso", "--namespace", "pets")
    ok(db, "forget", a, "--yes")
    ok(db, "restore", a)
    ok(db, "forget", b, "--yes", "--actor", "bot", "--namespace", "pets")
    ok(db, "forget", a, input="n\n")
    report = as_json(db, "report")
    assert report["by_op"] == {"forget": 2, "restore": 1, "forget_declined": 1}
    assert report["by_actor"] == {"user": 3, "bot": 1}
    assert report["by_namespace"] == {"default": 3, "pets": 1}
    assert sum(report["by_day"].values()) == 4
    assert sum(row["count"] for row in report["rows"]) == 4
    assert as_json(db, "report", "--namespace", "pets")["by_op"] == {"forget": 1}
    assert sum(as_json(db, "report", "--since", "1d")["by_op"].values()) == 4
    tomorrow = (datetime.now(UTC) + timedelta(days=1)).date().isoformat()
    assert as_json(db, "report", "--since", tomorrow)["rows"] == []
    text = ok(db, "report").stdout
    assert "forget_declined" in text and "bot" in text and "pets" in text
    bad = run(db, "report", "--since", "yesterday")
    assert bad.exit_code == 2 and "--since" in bad.stderr


# -- every --json answer follows the published schema ---------------------------------------


def test_every_json_plan_and_result_follows_the_schema(db: str, embedder: Embedder) -> None:
    ids = seed_000(db)
    caveat = remember(db, "Never drink and drive", "--layer", "caveat")
    with at(days_ago(40), db, embedder) as mem:
        old = mem.remember("Scratch note about glaciers", tags=["scratch"]).id
        mem.execute(mem.plan_forget([old]))
    answers = [
        response(db, "forget", "--query", "San Francisco"),
        response(db, "forget", "--query", "quantum chromodynamics lecture"),
        response(db, "forget", "--query", "Never drink and drive"),
        response(db, "forget", "--agent", "user"),
        response(db, "forget", "--all"),
        response(db, "forget", caveat, "mem_0123456789ab", code=1),
        response(db, "forget", ids[SEED_000[3]], code=3),
        response(db, "purge", ids[SEED_000[3]], code=3),
        response(db, "purge", "--older-than", "30d", code=3),
        response(db, "forget", "--query", "San Francisco", "--execute", "--yes"),
        response(db, "forget", ids[SEED_000[2]], "--yes"),
        response(db, "purge", "--older-than", "30d", "--yes"),
        response(db, "purge", ids[SEED_000[2]], "--yes"),
        response(db, "forget", "--query", "quantum chromodynamics", "--execute", "--yes"),
    ]
    # Nothing to delete needs no go-ahead: the ids that cannot be forgotten come back as an
    # execution that deleted nothing.
    assert [a["dryRun"] for a in answers] == [True] * 5 + [False] + [True] * 3 + [False] * 5
    assert answers[5]["deletedCount"] == 0 and answers[5]["refused"][0]["id"] == caveat
    assert answers[11]["deletedIds"] == [old]


# -- the installed script ---------------------------------------------------------------------


def _script() -> list[str]:
    beside = Path(sys.executable).parent / "lethe"
    found = str(beside) if beside.exists() else shutil.which("lethe")
    assert found, "the lethe script is not installed (pip install -e .)"
    return [found]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
    env["LETHE_CONFIG"] = str(tmp_path / "no-such-config.toml")
    return env


def _spawn(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*_script(), *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=_env(tmp_path),
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_installed_script_needs_yes_without_a_terminal(tmp_path: Path) -> None:
    db = str(tmp_path / "sub.db")
    made = _spawn(tmp_path, "remember", "User lives in San Francisco", "--db", db, "--json")
    assert made.returncode == 0, made.stderr
    memory_id = json.loads(made.stdout)["id"]

    asked = _spawn(tmp_path, "forget", memory_id, "--db", db, "--json")
    assert asked.returncode == 3, asked.stderr
    assert asked.stderr.count("\n") == 1 and "--yes" in asked.stderr
    validator.validate(json.loads(asked.stdout))

    done = _spawn(tmp_path, "forget", memory_id, "--db", db, "--yes", "--json")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    validator.validate(body)
    assert body["deletedIds"] == [memory_id]
    listed = _spawn(tmp_path, "trash", "--db", db, "--json")
    assert [i["memory"]["id"] for i in json.loads(listed.stdout)["items"]] == [memory_id]


@pytest.mark.slow
def test_installed_script_asks_a_real_terminal(tmp_path: Path) -> None:
    db = str(tmp_path / "tty.db")
    made = _spawn(tmp_path, "remember", "User lives in San Francisco", "--db", db, "--json")
    memory_id = json.loads(made.stdout)["id"]
    answers = {"n\n": {memory_id}, "y\n": set()}
    for answer, left in answers.items():
        controller, terminal = pty.openpty()
        try:
            child = subprocess.Popen(
                [*_script(), "forget", memory_id, "--db", db],
                stdin=terminal,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=_env(tmp_path),
            )
            os.write(controller, answer.encode())
            out, err = child.communicate(timeout=120)
        finally:
            os.close(terminal)
            os.close(controller)
        assert child.returncode == 0, err
        assert "[y/N]" in err and memory_id in out
        listed = _spawn(tmp_path, "list", "--db", db, "--json")
        assert {m["id"] for m in json.loads(listed.stdout)["items"]} == left
