"""Hardening of the command line, found by attack (issue 16): each bad input is one clear
`error:` line, and nothing changes (the store, its file, its folders).

The installed `lethe` script runs where the bytes of argv matter (arguments that are not
UTF-8); the rest runs in-process through typer's CliRunner, like tests/cli/test_app.py."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from lethe.cli import app
from tests.backends import live_ids, run_sql, snapshot, sqlite_only
from tests.mcp_support import LETHE

runner = CliRunner()
HUGE = "99999999999999999999"  # 20 digits: past any integer a store holds


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No developer database, workspace or config; the default store under tmp_path."""
    for name in [n for n in os.environ if n.startswith("LETHE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("LETHE_CONFIG", str(tmp_path / "no-such-config.toml"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def run(db: Path | str | None, *args: str, input: str | bytes | None = None) -> Result:
    argv = [*args, "--db", str(db)] if db is not None else list(args)
    return runner.invoke(app, argv, input=input)


def ok(db: Path | str | None, *args: str, input: str | bytes | None = None) -> Result:
    result = run(db, *args, input=input)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def one_line_error(result: Result, *fragments: str) -> str:
    assert result.exit_code == 1, (result.stdout, result.stderr, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert result.stdout == "" and "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0]
    return lines[0]


def remember(db: str, text: str, *options: str, input: str | None = None) -> str:
    done = ok(db, "remember", text, *options, "--json", input=input)
    memory_id: str = json.loads(done.stdout)["id"]
    return memory_id


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# -- export never writes over the store it reads ------------------------------------------


@sqlite_only  # a file to overwrite
def test_export_refuses_the_database_under_any_name(db: str, tmp_path: Path) -> None:
    kept = remember(db, "User lives in Lisbon")
    path = Path(db)
    (tmp_path / "link.db").symlink_to(path)
    os.link(path, tmp_path / "hard.db")
    (tmp_path / "sub").mkdir()
    before = snapshot(db)
    for target in (
        db,
        str(tmp_path / "link.db"),
        str(tmp_path / "sub" / ".." / "memory.db"),
        str(tmp_path / "hard.db"),
        db + "-wal",
        db + "-shm",
        db + ".vectors.npz",
    ):
        files = {p.name: digest(p) for p in tmp_path.iterdir() if p.is_file()}
        one_line_error(run(db, "export", "-o", target), "is the memory store being exported")
        assert {p.name: digest(p) for p in tmp_path.iterdir() if p.is_file()} == files, target
    assert snapshot(db) == before and live_ids(db) == {kept}

    out = tmp_path / "memory.db.jsonl"  # beside it, not it
    ok(db, "export", "-o", str(out))
    assert json.loads(out.read_text().splitlines()[0])["id"] == kept


# -- arguments and numbers -------------------------------------------------------------------


def test_arguments_that_are_not_utf8_are_one_line_errors(db: str) -> None:
    kept = remember(db, "User lives in Lisbon")
    before = snapshot(db)
    for argv in (
        [b"remember", b"caf\xe9 au lait"],
        [b"recall", b"\xff\xfe"],
        [b"remember", b"tea", b"--tag", b"t\xc3("],
    ):
        done = subprocess.run(
            [LETHE, *argv, b"--db", db.encode()],
            capture_output=True,
            env={**os.environ, "LETHE_DB": ""},
        )
        err = done.stderr.decode()
        assert done.returncode == 2 and done.stdout == b"", err
        assert len(err.splitlines()) == 1 and err.startswith("error: ") and "Traceback" not in err
        assert "is not UTF-8 (byte 0x" in err and "as UTF-8 text" in err
    assert snapshot(db) == before and live_ids(db) == {kept}


def test_offsets_past_what_a_store_holds_are_one_line_errors(db: str) -> None:
    remember(db, "User lives in Lisbon")
    before = snapshot(db)
    one_line_error(run(db, "list", "--offset", HUGE), "offset must be a whole number from 0 to")
    one_line_error(run(db, "trash", "--offset", HUGE), "offset must be a whole number from 0 to")
    one_line_error(run(db, "audit", "--after", HUGE), "--after must be a whole number from 0 to")
    one_line_error(run(db, "audit", "--after", "-1"), "--after must be a whole number")
    assert snapshot(db) == before


# -- another application's SQLite file ---------------------------------------------------


@pytest.mark.parametrize("user_version", [0, 7])  # SQLite only: the bytes of a file
def test_another_applications_sqlite_file_stays_byte_identical(
    tmp_path: Path, user_version: int
) -> None:
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.execute("INSERT INTO notes VALUES ('not lethe')")
    conn.execute(f"PRAGMA user_version = {user_version}")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    assert before[18:20] == b"\x01\x01", "a rollback-journal file to begin with"
    for args in (("list",), ("remember", "planted")):
        one_line_error(run(other, *args), "SQLite database of another application")
    assert other.read_bytes() == before, "not switched to WAL, not written"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


# -- namespaces named like workspace files ------------------------------------------------


def test_namespaces_named_like_workspace_files_are_refused_up_front(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LETHE_WORKSPACE_DIR", str(tmp_path / "ws"))
    remember(db, "User lives in Lisbon", "--layer", "semantic")
    before = snapshot(db)
    files = sorted(p.relative_to(tmp_path) for p in (tmp_path / "ws").rglob("*"))
    for name in ("MEMORY.md", "memory", "Memory.MD", "MEMORY"):
        args = ("remember", "x", "-n", name)
        one_line_error(run(db, *args), f"namespace {name!r} is reserved", "choose another")
    assert snapshot(db) == before
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "ws").rglob("*")) == files
    remember(db, "Notes of my own", "-n", "memory-notes")  # a name beside them is fine


# -- read-only commands need a store --------------------------------------------------------


READ_ONLY = (
    ("list",),
    ("recall", "anything"),
    ("show", "mem_0123456789ab"),
    ("history", "mem_0123456789ab"),
    ("audit",),
    ("trash",),
    ("report",),
    ("context",),
    ("sweep",),
    ("export",),
    ("episode", "show", "ep_0123456789ab"),
)


# SQLite only: a file that is not there (a DSN names a database its server holds).
@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_read_only_commands_create_no_store(tmp_path: Path, args: tuple[str, ...]) -> None:
    default = tmp_path / "data" / "lethe" / "lethe.db"
    one_line_error(run(None, *args), f"there is no memory store at {default}", "lethe remember")
    missing = tmp_path / "elsewhere" / "m.db"
    one_line_error(run(missing, *args), f"there is no memory store at {missing}")
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "no file, no folder"


# -- remember - --------------------------------------------------------------------------------


def test_remember_dash_reads_standard_input(db: str) -> None:
    text = "User's train leaves at 07:12\nfrom platform 4"
    memory_id = remember(db, "-", input=text + "\n")
    [(content,)] = run_sql(db, "SELECT content FROM memories WHERE id = ?", (memory_id,))
    assert content == text
    before = snapshot(db)
    one_line_error(run(db, "remember", "-", input=b"caf\xe9\n"), "standard input is not UTF-8")
    one_line_error(run(db, "remember", "-", input=""), "content is empty")
    assert snapshot(db) == before
