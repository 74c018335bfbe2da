"""Corrections and the similarity floor from the command line (issue 17): `lethe remember
--supersedes ID` and `lethe recall --min-similarity X`.

The real CLI in-process (CliRunner) on a real SQLite file and a real PostgreSQL database with
the real MiniLM embedder.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lethe.cli import app
from tests.backends import snapshot
from tests.cli.test_app import as_json, assert_one_line_error, ok, remember, run, runner

OLD = "Alice works at Shopify as a data engineer"
NEW = "Alice now works at Stripe as a data engineer"
CAVEAT = "Never give the dog chocolate"


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith("LETHE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("LETHE_CONFIG", str(tmp_path / "no-such-config.toml"))


def flat(text: str) -> str:
    return " ".join(text.replace("│", " ").split())


# -- remember --supersedes --------------------------------------------------------------------


def test_help_explains_supersedes() -> None:
    text = flat(runner.invoke(app, ["remember", "--help"]).stdout)
    assert "--supersedes" in text and "updated in place" in text
    assert "lethe history ID" in text and "A protected memory is refused" in text
    assert "Default: episodic" in text and "Default: 0.5" in text


def test_supersedes_replaces_the_old_text_which_history_keeps(db: str) -> None:
    old = remember(db, OLD, "--layer", "semantic", "--tag", "alice")
    result = ok(db, "remember", NEW, "--supersedes", old)
    lines = result.stdout.splitlines()
    assert lines[0] == old
    assert lines[1] == f"superseded in default/semantic: {NEW}"
    assert lines[2] == f"was (kept as version 1, lethe history {old}): {OLD}"

    shown = as_json(db, "show", old)
    assert (shown["content"], shown["layer"], shown["tags"], shown["version"]) == (
        NEW,
        "semantic",
        ["alice"],
        2,
    )
    hits = [
        h["memory"]["content"] for h in as_json(db, "recall", "where does Alice work?")["items"]
    ]
    assert NEW in hits and OLD not in hits
    history = as_json(db, "history", old)["items"]
    assert [(v["version"], v["op"], v["content"]) for v in history] == [
        (2, "supersede", NEW),
        (1, "remember", OLD),
    ]
    [event] = as_json(db, "audit", "--memory", old, "--op", "supersede")["items"]
    assert event["actor"] == "user" and event["details"]["superseded_version"] == 1


def test_supersedes_json_names_what_it_superseded_and_a_retry_writes_nothing(db: str) -> None:
    old = remember(db, OLD)
    first = as_json(db, "remember", NEW, "--supersedes", old, "--importance", "0.7")
    assert (first["id"], first["superseded"], first["superseded_version"]) == (old, old, 1)
    assert (first["existing"], first["importance"], first["layer"]) == (False, 0.7, "episodic")
    before = snapshot(db)
    again = as_json(db, "remember", NEW, "--supersedes", old, "--importance", "0.7")
    assert (again["existing"], again["superseded"], again["superseded_version"]) == (
        True,
        old,
        None,
    )
    assert snapshot(db) == before
    plain = ok(db, "remember", NEW, "--supersedes", old).stdout
    assert f"already says this in default/episodic, nothing written: {NEW}" in plain


def test_a_twin_already_saying_it_is_named_as_a_near_duplicate(db: str) -> None:
    old = remember(db, OLD)
    twin = remember(db, NEW)
    result = ok(db, "remember", NEW, "--supersedes", old)
    assert f"near-duplicate {twin} (similarity 1.00): {NEW}" in flat(result.stdout)
    assert {m["id"] for m in as_json(db, "list")["items"]} == {old, twin}


def test_supersedes_is_refused_for_a_protected_missing_trashed_or_foreign_memory(
    db: str,
) -> None:
    caveat = remember(db, CAVEAT, "--layer", "caveat")
    pinned = remember(db, "User is allergic to penicillin", "--importance", "0.95")
    gone = remember(db, "The office moved to the fourth floor")
    ok(db, "forget", gone, "--yes")
    foreign = remember(db, OLD, "--namespace", "work")
    before = snapshot(db)

    assert_one_line_error(
        run(db, "remember", "Chocolate is fine for the dog", "--supersedes", caveat),
        f"{caveat} is protected (caveat-layer memories are protected)",
        "nothing was changed",
        f"run lethe update {caveat} --content TEXT",
        "asks for the go-ahead",
    )
    assert_one_line_error(
        run(db, "remember", "User is allergic to nothing", "--supersedes", pinned),
        "pinned",
        f"lethe update {pinned}",
    )
    assert_one_line_error(
        run(db, "remember", NEW, "--supersedes", gone),
        "that memory is in the trash",
        f"lethe restore {gone} first",
    )
    assert_one_line_error(
        run(db, "remember", NEW, "--supersedes", foreign),
        "no memory with this id in namespace 'default'",
        "remember in that namespace",
    )
    assert_one_line_error(run(db, "remember", NEW, "--supersedes", "mem_nothex"), "memory id")
    assert snapshot(db) == before
    moved = as_json(db, "remember", NEW, "--supersedes", foreign, "--namespace", "work")
    assert moved["id"] == foreign and moved["namespace"] == "work"


# -- recall --min-similarity --------------------------------------------------------------------


def test_recall_min_similarity_drops_the_hits_below_it(db: str) -> None:
    for text in ("Alice prefers green tea over coffee", "Bob likes espresso", "Tax report due"):
        remember(db, text)
    every = as_json(db, "recall", "what tea does Alice drink?")["items"]
    assert len(every) == 3
    floor = (every[0]["similarity"] + max(h["similarity"] for h in every[1:])) / 2
    assert every[0]["similarity"] > floor
    kept = as_json(db, "recall", "what tea does Alice drink?", "--min-similarity", f"{floor:.4f}")[
        "items"
    ]
    assert [h["memory"]["id"] for h in kept] == [every[0]["memory"]["id"]]
    empty = ok(db, "recall", "what tea does Alice drink?", "--min-similarity", "1").stdout
    assert "no memories match at similarity >= 1" in empty
    text = flat(runner.invoke(app, ["recall", "--help"]).stdout)
    assert "--min-similarity" in text and "not by similarity alone" in text


@pytest.mark.parametrize("bad", ["1.5", "-0.2", "nan"])
def test_recall_refuses_a_bad_floor(db: str, bad: str) -> None:
    remember(db, "Alice prefers green tea over coffee")
    assert_one_line_error(
        run(db, "recall", "tea", "--min-similarity", bad), "min_similarity must be"
    )


# -- what a new fact likely supersedes -------------------------------------------------------------


def test_remember_names_what_the_new_fact_likely_supersedes(db: str) -> None:
    old = remember(db, OLD)
    result = ok(db, "remember", NEW)
    lines = result.stdout.splitlines()
    new = lines[0]
    text = flat(result.stdout)
    assert f"may supersede {old} (confidence " in text and text.count("may supersede") == 1
    assert f"): {OLD}" in text
    assert f"run lethe remember TEXT --supersedes {old}" in text
    assert f"{new}, a copy, can be forgotten" in text
    assert as_json(db, "show", old)["content"] == OLD, "only named"

    again = as_json(db, "remember", NEW)
    assert again["existing"] is True and again["likely_supersedes"] == []
    other = as_json(db, "remember", "Alice's rent is 1800 euros a month")
    later = as_json(db, "remember", "Alice's rent went up to 2100 euros a month")
    [likely] = later["likely_supersedes"]
    assert likely["id"] == other["id"] and likely["preview"] == other["content"]
    assert 0 < likely["confidence"] <= 1 and likely["evidence"]
    plain = as_json(db, "remember", "The quarterly tax report is due in April")
    assert plain["likely_supersedes"] == []
