"""`lethe setup CLIENT`: an MCP client's configuration file written or updated, on real files.

The commands run through typer's CliRunner (as in cli/test_app.py) against configuration files in
a temporary folder (`--config`, or HOME pointed there); one test starts the server the written
entry names, from another folder, with the MCP SDK's client, as a client would.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from typer.testing import CliRunner, Result

from lethe.cli import app, clients
from tests.mcp_support import call

runner = CliRunner()
LETHE = str(Path(sys.executable).parent / "lethe")

# A file a person (and other tools) wrote: odd spacing, one-line servers, non-ASCII text,
# numbers as written (2.50), keys in no particular order. A re-dump would change its bytes.
OLD = (
    "{\n"
    '  "theme": "dark",\n'
    '  "mcpServers": {\n'
    '    "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem",'
    ' "/tmp"]},\n'
    '    "git":   {"command": "uvx", "args": ["mcp-server-git"], "env": {"GIT_PAGER": "cat"}}\n'
    "  },\n"
    '  "numStartups": 41,\n'
    '  "tips": {"café": [1, 2.50, true, null]}\n'
    "}\n"
)
# Where the new entry goes: after the last server, before the object closes.
CUT = OLD.index('"cat"}}') + len('"cat"}}')


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No real client configuration is ever read or written: HOME is a temporary folder."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "APPDATA"):
        monkeypatch.delenv(name, raising=False)
    for name in [k for k in os.environ if k.startswith("LETHE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("LETHE_CONFIG", str(tmp_path / "no-such-config.toml"))
    return home


def run(*args: str) -> Result:
    return runner.invoke(app, list(args))


def ok(*args: str) -> Result:
    result = run(*args)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    return result


def setup_json(*args: str) -> Any:
    return json.loads(ok("setup", *args, "--json").stdout)


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".lethe-backup-*"))


def assert_one_line_error(result: Result, *fragments: str) -> None:
    assert result.exit_code == 1, (result.stdout, result.stderr, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert result.stdout == ""
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def expected_command() -> str:
    beside = Path(sys.executable).parent / "lethe"
    return str(beside) if beside.is_file() else str(shutil.which("lethe"))


# -- a new file ----------------------------------------------------------------------------


def test_a_fresh_file_is_created_with_absolute_paths(tmp_path: Path) -> None:
    config = tmp_path / "cursor" / "mcp.json"  # its folder does not exist yet
    result = ok("setup", "cursor", "--config", str(config))
    data = json.loads(config.read_text(encoding="utf-8"))
    command = expected_command()
    assert data == {"mcpServers": {"lethe": {"command": command, "args": ["mcp"]}}}
    assert os.path.isabs(command) and Path(command).is_file()
    assert stat.S_IMODE(config.stat().st_mode) == 0o600  # it may come to hold secrets (env)
    assert backups(config) == []
    assert f"Cursor: {config}" in result.stdout
    assert "added server 'lethe'" in result.stdout
    assert "new file: nothing to back up" in result.stdout
    assert "restart Cursor" in result.stdout


def test_each_client_has_its_own_file_under_home(isolated_env: Path) -> None:
    home = isolated_env
    places = {
        "claude-code": home / ".claude.json",
        "cursor": home / ".cursor" / "mcp.json",
        "claude-desktop": home / ".config" / "Claude" / "claude_desktop_config.json",
    }
    for client, path in places.items():
        out = setup_json(client)
        assert (out["client"], out["file"], out["action"]) == (client, str(path), "add")
        entry = json.loads(path.read_text())["mcpServers"]["lethe"]
        # Claude Code's own `claude mcp add` writes the transport; the others leave it out.
        assert entry.get("type") == ("stdio" if client == "claude-code" else None)
        assert entry["command"] == expected_command()


def test_where_clients_keep_their_configuration_per_system(tmp_path: Path) -> None:
    home = tmp_path / "u"
    mac = clients.config_path("claude-desktop", env={}, platform="darwin", home=home)
    assert mac == home / "Library/Application Support/Claude/claude_desktop_config.json"
    win = clients.config_path(
        "claude-desktop", env={"APPDATA": "C:/Users/u/AppData/Roaming"}, platform="win32", home=home
    )
    assert win == Path("C:/Users/u/AppData/Roaming/Claude/claude_desktop_config.json")
    linux = clients.config_path(
        "claude-desktop", env={"XDG_CONFIG_HOME": "/x"}, platform="linux", home=home
    )
    assert linux == Path("/x/Claude/claude_desktop_config.json")
    for platform in ("darwin", "win32", "linux"):
        assert clients.config_path("cursor", env={}, platform=platform, home=home) == (
            home / ".cursor" / "mcp.json"
        )
        assert clients.config_path("claude-code", env={}, platform=platform, home=home) == (
            home / ".claude.json"
        )
    moved = clients.config_path("claude-code", env={"CLAUDE_CONFIG_DIR": "/cc"}, home=home)
    assert moved == Path("/cc/.claude.json")


def test_a_throw_away_installation_is_named() -> None:
    assert clients.transient_install(["/home/u/.cache/uv/archive-v0/x1y2/bin/lethe"])
    assert not clients.transient_install(["/home/u/.local/share/uv/tools/lethe-mcp/bin/lethe"])
    assert not clients.transient_install([expected_command()])


# -- an existing file ----------------------------------------------------------------------


def test_other_servers_and_keys_keep_their_bytes_and_order(tmp_path: Path) -> None:
    config = tmp_path / ".claude.json"
    config.write_text(OLD, encoding="utf-8")
    out = setup_json("claude-code", "--config", str(config))
    new = config.read_text(encoding="utf-8")
    # Only the new member was inserted; every byte before and after it is the old file's.
    assert new.startswith(OLD[:CUT]) and new.endswith(OLD[CUT:]), new
    assert len(new) > len(OLD)
    data = json.loads(new)
    assert list(data) == ["theme", "mcpServers", "numStartups", "tips"]
    assert list(data["mcpServers"]) == ["files", "git", "lethe"]
    old = json.loads(OLD)
    assert {k: v for k, v in data["mcpServers"].items() if k != "lethe"} == old["mcpServers"]
    assert data["mcpServers"]["lethe"] == out["after"]
    # The backup is the file as it was, taken before the write.
    [backup] = backups(config)
    assert backup.read_bytes() == OLD.encode("utf-8")
    assert out["backup"] == str(backup) and out["written"] is True and out["before"] is None


def test_a_second_run_changes_nothing(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(OLD, encoding="utf-8")
    db = str(tmp_path / "memory.db")
    ok("setup", "cursor", "--config", str(config), "--db", db)
    written = config.read_bytes()
    mtime = config.stat().st_mtime_ns
    assert len(backups(config)) == 1

    again = ok("setup", "cursor", "--config", str(config), "--db", db)
    assert "server 'lethe' is already configured: nothing written" in again.stdout
    assert "backup" not in again.stdout and "restart" not in again.stdout
    as_json = setup_json("cursor", "--config", str(config), "--db", db)
    assert (as_json["action"], as_json["written"], as_json["backup"]) == ("unchanged", False, None)
    assert config.read_bytes() == written and config.stat().st_mtime_ns == mtime
    assert len(backups(config)) == 1  # no new backup


def test_a_changed_db_updates_the_entry_after_a_backup(tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    config.write_text(OLD, encoding="utf-8")
    first, second = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    ok("setup", "claude-desktop", "--config", str(config), "--db", first)
    before = config.read_bytes()

    result = ok("setup", "claude-desktop", "--config", str(config), "--db", second)
    assert "updated server 'lethe'" in result.stdout
    assert f"was: {expected_command()} mcp --db {first}" in result.stdout
    assert f"now: {expected_command()} mcp --db {second}" in result.stdout
    newest = backups(config)[-1]
    assert f"backup: {newest}" in result.stdout
    assert newest.read_bytes() == before  # the backup holds the entry being replaced
    data = json.loads(config.read_text())
    assert data["mcpServers"]["lethe"]["args"] == ["mcp", "--db", second]
    assert list(data["mcpServers"]) == ["files", "git", "lethe"]
    assert data["tips"] == {"café": [1, 2.5, True, None]}


def test_an_update_keeps_what_a_person_added_to_the_entry(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    entry = {"command": "/old/venv/bin/lethe", "args": ["mcp"], "disabled": False, "timeout": 60}
    config.write_text(json.dumps({"mcpServers": {"lethe": entry}}, indent=4))
    out = setup_json("cursor", "--config", str(config))
    assert out["action"] == "update" and out["before"] == entry
    after = json.loads(config.read_text())["mcpServers"]["lethe"]
    assert after == {**entry, "command": expected_command()}
    assert list(after) == ["command", "args", "disabled", "timeout"]
    assert config.read_text().startswith('{\n    "mcpServers": {\n        "lethe": {\n')


def test_a_file_written_with_crlf_keeps_crlf(tmp_path: Path) -> None:
    config = tmp_path / "claude_desktop_config.json"
    old = OLD.replace("\n", "\r\n").encode("utf-8")
    config.write_bytes(old)
    ok("setup", "claude-desktop", "--config", str(config))
    new = config.read_bytes()
    assert new.startswith(old[: CUT + OLD[:CUT].count("\n")])
    assert b"\n" not in new.replace(b"\r\n", b"")
    assert list(json.loads(new)["mcpServers"]) == ["files", "git", "lethe"]


def test_dry_run_writes_nothing(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(OLD, encoding="utf-8")
    result = ok("setup", "cursor", "--config", str(config), "--dry-run")
    assert "would add server 'lethe'" in result.stdout
    assert "dry run: nothing written" in result.stdout
    assert config.read_text(encoding="utf-8") == OLD and backups(config) == []
    absent = tmp_path / "none" / "mcp.json"
    out = setup_json("cursor", "--config", str(absent), "--dry-run")
    assert (out["action"], out["written"]) == ("add", False)
    assert not absent.parent.exists()


# -- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"mcpServers": {"a": {"command": "x"},}}', "is not valid JSON (line 1, column"),
        ("// comments\n{}", "is not valid JSON"),
        ('{"mcpServers": []}', "its 'mcpServers' is an array, not an object of servers"),
        ('{"mcpServers": "lethe"}', "its 'mcpServers' is a string"),
        ('{"mcpServers": null}', "its 'mcpServers' is null"),
        ("[1, 2]", "holds an array, not a JSON object"),
        ('{"a": NaN}', "is not valid JSON"),
        ('{"mcpServers": {}, "mcpServers": {"x": {}}}', "names 'mcpServers' 2 times"),
    ],
)
def test_a_file_lethe_cannot_read_safely_is_refused_unchanged(
    tmp_path: Path, text: str, says: str
) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(text, encoding="utf-8")
    result = run("setup", "cursor", "--config", str(config))
    assert_one_line_error(result, str(config), says, "nothing was changed")
    assert config.read_text(encoding="utf-8") == text
    assert backups(config) == []


def test_env_other_than_lethe_settings_is_refused(tmp_path: Path) -> None:
    config = tmp_path / "mcp.json"
    for bad, says in [
        ("PATH=/usr/bin", "--env PATH is not a lethe setting"),
        ("lethe_db=x", "--env lethe_db is not a lethe setting"),
        ("OPENAI_API_KEY=sk-1", "only LETHE_* variables are written"),
        ("LETHE_DB", "--env expects KEY=VALUE"),
    ]:
        assert_one_line_error(run("setup", "cursor", "--config", str(config), "-e", bad), says)
    assert not config.exists()
    both = run("setup", "cursor", "--config", str(config), "--db", "a.db", "-e", "LETHE_DB=b.db")
    assert_one_line_error(both, "--db and --env LETHE_DB both name the store")


def test_an_unknown_client_needs_print(tmp_path: Path) -> None:
    assert_one_line_error(run("setup", "windsurf"), "it knows claude-desktop, claude-code, cursor")
    assert_one_line_error(run("setup"), "name the client to set up")
    assert_one_line_error(run("setup", "cursor", "--name", "my server"), "cannot name")


# -- what is written -----------------------------------------------------------------------


def test_print_shows_the_entry_and_writes_nothing(tmp_path: Path, isolated_env: Path) -> None:
    config = tmp_path / "mcp.json"
    result = ok("setup", "windsurf", "--print", "--config", str(config), "--name", "memory")
    assert json.loads(result.stdout) == {
        "mcpServers": {"memory": {"command": expected_command(), "args": ["mcp"]}}
    }
    ok("setup", "cursor", "--print")
    assert not config.exists()
    assert list(isolated_env.iterdir()) == []  # no client file was touched


def test_relative_paths_are_written_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "mcp.json"
    out = setup_json(
        "cursor",
        "--config",
        "mcp.json",
        "--db",
        "stores/memory.db",
        "-e",
        "LETHE_WORKSPACE_DIR=ws",
        "-e",
        "LETHE_DECAY_POLICY=off",
    )
    entry = json.loads(config.read_text())["mcpServers"]["lethe"]
    assert entry["args"] == ["mcp", "--db", str(tmp_path / "stores" / "memory.db")]
    assert entry["env"] == {
        "LETHE_WORKSPACE_DIR": str(tmp_path / "ws"),
        "LETHE_DECAY_POLICY": "off",
    }
    assert out["file"] == str(config)
    dsn = "postgresql://lethe@db.example:5432/lethe"
    printed = json.loads(ok("setup", "cursor", "--print", "--db", dsn).stdout)
    assert printed["mcpServers"]["lethe"]["args"] == ["mcp", "--db", dsn]


def test_the_shells_lethe_db_is_named_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LETHE_DB", str(tmp_path / "shell.db"))
    config = tmp_path / "mcp.json"
    out = setup_json("cursor", "--config", str(config))
    assert json.loads(config.read_text())["mcpServers"]["lethe"]["args"] == ["mcp"]
    [note] = out["notes"]
    assert "LETHE_DB is set in this shell" in note and "pass --db" in note


def test_the_written_entry_starts_a_working_server_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a client does with the entry: run its command with its args and env, in a folder
    of the client's own. The relative --db given to setup still names the same store."""
    monkeypatch.chdir(tmp_path)
    ok("setup", "claude-code", "--config", "claude.json", "--db", "memory.db")
    entry = json.loads((tmp_path / "claude.json").read_text())["mcpServers"]["lethe"]
    elsewhere = tmp_path / "client-cwd"
    elsewhere.mkdir()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("LETHE_")}
    params = StdioServerParameters(
        command=entry["command"],
        args=entry["args"],
        env={**clean, **entry.get("env", {})},
        cwd=str(elsewhere),
    )

    async def session() -> dict[str, Any]:
        async with Client(params) as client:
            return await call(client, "remember", content="The user's cat is called Miso.")

    made = asyncio.run(session())
    assert made["memory"]["id"].startswith("mem_")
    assert (tmp_path / "memory.db").is_file()
    assert list(elsewhere.iterdir()) == []
