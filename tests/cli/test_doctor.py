"""`lethe doctor`: what it finds on real stores (a SQLite file, a real PostgreSQL database), and
that it changes nothing — an absent store stays absent, a store is only read."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from lethe.cli import app
from lethe.store import postgres_schema, sqlite_schema
from tests.backends import both_stores, created, is_postgres, run_sql, snapshot

runner = CliRunner()
CHECKS = ["lethe", "settings", "model", "store", "workspace", "clients"]
PG_CHECKS = ["lethe", "settings", "model", "postgres", "store", "workspace", "clients"]
UNREACHABLE = "postgresql://lethe@127.0.0.1:1/lethe"  # port 1: nothing listens there


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The developer's own store, settings and MCP clients stay out of every test."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "APPDATA"):
        monkeypatch.delenv(name, raising=False)
    for name in [k for k in os.environ if k.startswith("LETHE_")]:
        monkeypatch.delenv(name)
    config = tmp_path / "lethe.toml"
    config.write_text("")
    monkeypatch.setenv("LETHE_CONFIG", str(config))
    return home


def doctor(db: str | None, *args: str) -> Result:
    return runner.invoke(app, ["doctor", *(["--db", db] if db else []), *args])


def report(db: str | None, status: int = 0) -> dict[str, Any]:
    result = doctor(db, "--json")
    assert result.exit_code == status, (result.stdout, result.stderr, result.exception)
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def screen(lines: list[str], name: str) -> list[str]:
    """The line(s) of one check on the screen: its status, its name, what was found."""
    statuses = ("ok", "note", "warn", "fail", "skip")
    return [
        line
        for line in lines
        if line.split()[:1] != [] and line.split()[0] in statuses and line.split()[1:2] == [name]
    ]


def checks(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in data["checks"]}


def remember(db: str, text: str) -> None:
    result = runner.invoke(app, ["remember", text, "--db", db, "--json"])
    assert result.exit_code == 0, (result.stdout, result.stderr)


# -- a working store -----------------------------------------------------------------------


@both_stores
def test_a_healthy_store(db: str) -> None:
    remember(db, "The user's cat is called Miso.")
    remember(db, "The user moved to Porto in 2024.")
    before = snapshot(db)
    data = report(db)
    assert data["healthy"] is True
    found = checks(data)
    assert list(found) == (PG_CHECKS if is_postgres(db) else CHECKS)
    store = found["store"]
    latest = (postgres_schema if is_postgres(db) else sqlite_schema).LATEST_VERSION
    assert store["status"] == "ok"
    assert store["facts"]["kind"] == ("postgres" if is_postgres(db) else "sqlite")
    assert store["facts"]["schema_version"] == latest
    assert store["facts"]["latest_schema_version"] == latest
    assert store["facts"]["memories"] == {"active": 2}
    assert store["facts"]["embedder"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert f"schema {latest}, 2 memories, 0 in the trash" in store["summary"]
    assert found["model"]["status"] == "ok" and Path(found["model"]["facts"]["folder"]).is_dir()
    if is_postgres(db):
        assert found["postgres"]["status"] == "ok"
        assert "PostgreSQL 16" in found["postgres"]["summary"]
        assert "pgvector" in found["postgres"]["summary"]
        assert "password" not in json.dumps(data)
    else:
        assert store["facts"]["location"] == db
    assert snapshot(db) == before  # only read


@both_stores
def test_the_screen_says_it_in_one_line_per_check(db: str) -> None:
    remember(db, "The user's cat is called Miso.")
    result = doctor(db)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    lines = result.stdout.splitlines()
    names = PG_CHECKS if is_postgres(db) else CHECKS
    for name in names:
        assert len(screen(lines, name)) == 1, (name, result.stdout)
    [store] = screen(lines, "store")
    assert store.startswith("ok") and "schema" in store and "1 memory," in store
    assert lines[-1] == "lethe can work here"
    assert len(lines) <= 15 and result.stderr == ""


@both_stores
def test_a_store_not_made_yet_is_not_made(db: str) -> None:
    data = report(db)
    assert data["healthy"] is True
    store = checks(data)["store"]
    assert store["status"] == "note"
    if is_postgres(db):
        assert "no lethe tables yet" in store["summary"]
    else:
        assert "no store yet" in store["summary"] and store["facts"]["exists"] is False
    assert not created(db)


def test_an_absent_file_and_its_folder_stay_absent(tmp_path: Path) -> None:
    folder = tmp_path / "not" / "yet"
    result = doctor(str(folder / "memory.db"))
    assert result.exit_code == 0, result.stdout
    assert "no store yet at" in result.stdout
    assert not (tmp_path / "not").exists()


def test_the_default_store_is_found_like_every_command_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store = checks(report(None))["store"]
    assert store["facts"]["location"] == str(tmp_path / "data" / "lethe" / "lethe.db")
    monkeypatch.setenv("LETHE_DB", str(tmp_path / "env.db"))
    assert checks(report(None))["store"]["facts"]["location"] == str(tmp_path / "env.db")
    assert not (tmp_path / "data").exists() and not (tmp_path / "env.db").exists()


# -- broken things -------------------------------------------------------------------------


def test_an_unreachable_postgresql_is_reported_with_status_1() -> None:
    result = doctor(UNREACHABLE)
    assert result.exit_code == 1, result.stdout
    lines = result.stdout.splitlines()
    [server] = screen(lines, "postgres")
    assert server.startswith("fail") and "cannot reach PostgreSQL at" in server
    assert "127.0.0.1:1" in server
    assert any("is the server running" in line for line in lines)
    assert lines[-1] == "broken: postgres"
    data = report(UNREACHABLE, status=1)
    found = checks(data)
    assert data["healthy"] is False and list(found) == PG_CHECKS
    assert found["postgres"]["status"] == "fail" and found["store"]["status"] == "skip"
    assert "refused" in found["postgres"]["summary"].lower()


def test_a_file_of_another_application_is_broken_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    found = checks(report(str(path), status=1))
    assert found["store"]["status"] == "fail"
    assert "another application" in found["store"]["summary"]
    assert path.read_bytes() == before
    text = tmp_path / "notes.txt"
    text.write_text("not a database")
    found = checks(report(str(text), status=1))
    assert "not an SQLite file" in found["store"]["summary"]


@both_stores
def test_a_store_from_a_newer_lethe_is_broken(db: str) -> None:
    remember(db, "The user's cat is called Miso.")
    if is_postgres(db):
        run_sql(db, "UPDATE lethe_meta SET value = '999' WHERE key = 'schema_version'")
    else:
        run_sql(db, "PRAGMA user_version = 999")
    store = checks(report(db, status=1))["store"]
    assert store["status"] == "fail" and store["facts"]["schema_version"] == 999
    assert (
        "this lethe reads up to" in store["summary"] and store["hint"] == "upgrade lethe to open it"
    )


def test_a_model_folder_that_is_not_one_is_broken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LETHE_MODEL_DIR", str(tmp_path / "no-model"))
    monkeypatch.setenv("LETHE_CACHE_DIR", str(tmp_path / "cache"))
    model = checks(report(str(tmp_path / "m.db"), status=1))["model"]
    assert model["status"] == "fail" and model["facts"]["folder"] is None
    assert "LETHE_MODEL_DIR" in model["summary"] and model["hint"]
    assert not (tmp_path / "cache").exists()  # looked for, never downloaded


def test_a_model_not_here_yet_is_a_warning_unless_downloads_are_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without the model package and with an empty cache, the first use downloads the model:
    doctor says so and downloads nothing; with downloads off, nothing could fetch it."""
    from lethe.embed import model as model_location

    monkeypatch.setattr(model_location, "_packaged", lambda: None)
    cache = tmp_path / "cache"
    monkeypatch.setenv("LETHE_CACHE_DIR", str(cache))
    model = checks(report(str(tmp_path / "m.db")))["model"]
    assert model["status"] == "warn" and "the first command that needs it" in model["summary"]
    assert "lethe model fetch" in model["hint"]
    assert not cache.exists()
    monkeypatch.setenv("LETHE_OFFLINE", "1")
    model = checks(report(str(tmp_path / "m.db"), status=1))["model"]
    assert model["status"] == "fail" and not cache.exists()


def test_invalid_settings_are_broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LETHE_DECAY_POLICY", "sometimes")
    found = checks(report(str(tmp_path / "m.db"), status=1))
    assert found["settings"]["status"] == "fail" and "decay_policy" in found["settings"]["summary"]
    assert found["store"]["status"] == "skip" and found["workspace"]["status"] == "skip"
    assert "LETHE_DECAY_POLICY" in found["settings"]["facts"]["variables"]


def test_the_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = str(tmp_path / "m.db")
    assert checks(report(db))["workspace"]["status"] == "note"  # not configured: optional
    monkeypatch.setenv("LETHE_WORKSPACE_DIR", str(tmp_path / "ws"))
    workspace = checks(report(db))["workspace"]
    assert workspace["status"] == "ok" and "created with the first memory" in workspace["summary"]
    assert not (tmp_path / "ws").exists()
    (tmp_path / "ws").write_text("a file, not a folder")
    workspace = checks(report(db, status=1))["workspace"]
    assert workspace["status"] == "fail" and "is not a folder" in workspace["summary"]


# -- MCP clients ---------------------------------------------------------------------------


def test_the_clients_set_up_to_run_lethe(tmp_path: Path, isolated_env: Path) -> None:
    db = str(tmp_path / "m.db")
    assert checks(report(db))["clients"]["status"] == "note"
    assert runner.invoke(app, ["setup", "cursor", "--db", db]).exit_code == 0
    clients = checks(report(db))["clients"]
    assert clients["status"] == "ok" and clients["summary"] == "cursor 'lethe'"
    [entry] = clients["facts"]["configured"]
    assert entry["file"] == str(isolated_env / ".cursor" / "mcp.json")
    assert entry["command_exists"] is True and entry["args"] == ["mcp", "--db", db]

    gone = {"command": str(tmp_path / "old-venv" / "bin" / "lethe"), "args": ["mcp"]}
    claude = isolated_env / ".claude.json"
    claude.write_text(json.dumps({"mcpServers": {"memory": gone, "x": {"command": "npx"}}}))
    clients = checks(report(db))["clients"]  # a warning: status 0
    assert clients["status"] == "warn" and "which is gone" in clients["summary"]
    assert "claude-code 'memory'" in clients["summary"]


def test_a_log_left_by_a_killed_writer_stays_as_it_is(tmp_path: Path) -> None:
    """doctor opens the store read-only: the write-ahead log a killed writer left is read, not
    checkpointed into the database (a read-write connection's close would do that)."""
    import subprocess

    db = tmp_path / "s.db"
    remember(str(db), "The user prefers tea")
    killed = (
        "import os, sqlite3\n"
        f"c = sqlite3.connect({str(db)!r})\n"
        "c.execute('PRAGMA wal_autocheckpoint=0')\n"
        "c.execute('UPDATE memories SET importance = 0.6')\n"
        "c.commit()\n"
        "os._exit(0)\n"
    )
    subprocess.run([sys.executable, "-c", killed], check=True)
    wal = db.with_name("s.db-wal")
    before = (db.read_bytes(), wal.read_bytes())
    assert checks(report(str(db)))["store"]["status"] == "ok"
    assert (db.read_bytes(), wal.read_bytes()) == before


def test_a_client_file_with_a_byte_order_mark_is_read(tmp_path: Path, isolated_env: Path) -> None:
    db = str(tmp_path / "m.db")
    cursor = isolated_env / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    entry = {"command": sys.executable, "args": ["mcp"]}
    cursor.write_bytes(b"\xef\xbb\xbf" + json.dumps({"mcpServers": {"lethe": entry}}).encode())
    clients = checks(report(db))["clients"]
    assert clients["facts"]["unreadable"] == []
