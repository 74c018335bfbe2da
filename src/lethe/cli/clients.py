"""MCP clients' configuration files, and the change `lethe setup` makes to them.

Where each client keeps its list of MCP servers (the `mcpServers` object of a JSON file):

- Claude Desktop: `~/Library/Application Support/Claude/claude_desktop_config.json` on
  macOS, `%APPDATA%\\Claude\\claude_desktop_config.json` on Windows, and
  `$XDG_CONFIG_HOME/Claude/claude_desktop_config.json` (default `~/.config`) for the Linux
  builds of the app.
- Claude Code, user scope (what `claude mcp add -s user` writes): the top-level
  `mcpServers` of `~/.claude.json`, or of `$CLAUDE_CONFIG_DIR/.claude.json` when that
  variable moves Claude Code's configuration.
- Cursor, global: `~/.cursor/mcp.json` (`%USERPROFILE%\\.cursor\\mcp.json` on Windows).

A change is planned first (`plan_setup`: the entry before and after, the new text) and
written only by `apply_setup`, which copies the file to a timestamped backup beside it and
then replaces it atomically (temporary file + rename). The edit is textual and minimal: only
the one server entry is inserted or replaced, so every other server and every other key keeps
its bytes and its place; the result is parsed back and compared with what was meant before
anything is written. An entry that already says the same is left alone (nothing written, no
backup). A file that is not JSON, or whose `mcpServers` is not an object, is refused with no
change.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from lethe.errors import InvalidInput

SERVERS_KEY = "mcpServers"
DEFAULT_SERVER_NAME = "lethe"
# The keys of a server entry that say how to start it: setup owns them. Others a person
# added by hand (Cursor's "disabled", a client's "autoApprove", "timeout"…) are kept.
MANAGED_KEYS = ("type", "command", "args", "env", "url", "headers", "transport")
# Settings whose value is a path: a client starts the server in a folder of its own, so a
# relative path would name another place. DSNs and the word "none" are left as they are.
PATH_SETTINGS = (
    "LETHE_DB",
    "LETHE_WORKSPACE_DIR",
    "LETHE_CONFIG",
    "LETHE_MODEL_DIR",
    "LETHE_CACHE_DIR",
    "LETHE_MCP_TOKENS",
)
_ENV_KEY_RE = re.compile(r"LETHE_[A-Z0-9_]+")
_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_JSON_WS = " \t\r\n"
_BOM = "\ufeff"

Action = Literal["add", "update", "unchanged"]


@dataclass(frozen=True)
class Client:
    key: str  # as typed on the command line
    title: str
    # Claude Code writes `"type": "stdio"` in the entries `claude mcp add` makes.
    writes_type: bool = False

    @property
    def after(self) -> str:
        return f"restart {self.title} (quit it fully) to load the change"


CLIENTS: dict[str, Client] = {
    c.key: c
    for c in (
        Client("claude-desktop", "Claude Desktop"),
        Client("claude-code", "Claude Code", writes_type=True),
        Client("cursor", "Cursor"),
    )
}


def client(key: str) -> Client:
    try:
        return CLIENTS[key]
    except KeyError:
        raise InvalidInput(
            f"lethe cannot configure a client called {key!r}: it knows {', '.join(CLIENTS)}",
            hint="for any other client, --print shows the entry to paste into its configuration",
        ) from None


def config_path(
    key: str,
    *,
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    home: Path | None = None,
) -> Path:
    """Where the client `key` keeps its MCP servers on this machine (or on `platform`, as
    `sys.platform` spells it)."""
    env = os.environ if env is None else env
    platform = sys.platform if platform is None else platform
    home = Path.home() if home is None else home
    client(key)
    if key == "claude-desktop":
        if platform == "darwin":
            base = home / "Library" / "Application Support"
        elif platform.startswith(("win", "cygwin")):
            base = Path(env.get("APPDATA") or home / "AppData" / "Roaming")
        else:
            base = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
        return base / "Claude" / "claude_desktop_config.json"
    if key == "claude-code":
        moved = env.get("CLAUDE_CONFIG_DIR")
        return (Path(moved).expanduser() if moved else home) / ".claude.json"
    return home / ".cursor" / "mcp.json"


# -- the server entry ----------------------------------------------------------------------


def lethe_command() -> list[str]:
    """How to start this installation of lethe, with absolute paths: the `lethe` script
    beside the running Python (a virtual environment's bin/ or Scripts/), else the one on
    PATH, else this Python with `-m lethe`."""
    script = "lethe.exe" if sys.platform.startswith("win") else "lethe"
    beside = Path(os.path.abspath(sys.executable)).parent / script
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("lethe")
    if found:
        return [os.path.abspath(found)]
    return [os.path.abspath(sys.executable), "-m", "lethe"]


def transient_install(command: Sequence[str]) -> bool:
    """Whether the command lives in a throw-away environment (a `uvx` run lives in uv's
    cache), which a client's configuration should not point at."""
    parts = Path(command[0]).parts
    return any(p.startswith("archive-v") for p in parts) and any("uv" in p for p in parts)


def absolute_db(db: str) -> str:
    """A store location a client can use from any folder: a DSN as is, a file path made
    absolute against the folder setup runs in."""
    from lethe.config import is_postgres_dsn

    if not db.strip():
        raise InvalidInput("--db is empty", hint="give a file path or a postgresql:// DSN")
    if is_postgres_dsn(db):
        return db
    return os.path.abspath(os.path.expanduser(db))


def parse_env(pairs: Sequence[str]) -> dict[str, str]:
    """`KEY=VALUE` pairs for the entry's `env`: lethe's own settings only (LETHE_*), paths
    made absolute."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise InvalidInput(
                f"--env expects KEY=VALUE, got {pair!r}", hint="e.g. --env LETHE_DECAY_POLICY=off"
            )
        if not _ENV_KEY_RE.fullmatch(key):
            raise InvalidInput(
                f"--env {key} is not a lethe setting: only LETHE_* variables are written",
                hint="see docs/configuration.md for the LETHE_* settings",
            )
        if key in out:
            raise InvalidInput(f"--env {key} is given twice", hint="give each setting once")
        if key in PATH_SETTINGS and value.strip() and value.strip().lower() != "none":
            value = absolute_db(value) if key == "LETHE_DB" else _absolute(value)
        out[key] = value
    return out


def _absolute(path: str) -> str:
    return os.path.abspath(os.path.expanduser(path))


def server_entry(
    *,
    db: str | None = None,
    env: Mapping[str, str] | None = None,
    command: Sequence[str] | None = None,
    for_client: str | None = None,
) -> dict[str, Any]:
    """The `mcpServers` entry that starts this lethe as a stdio MCP server."""
    env = dict(env or {})
    if db is not None and "LETHE_DB" in env:
        raise InvalidInput(
            "--db and --env LETHE_DB both name the store", hint="give the store once, with --db"
        )
    argv = list(command or lethe_command())
    args = [*argv[1:], "mcp"]
    if db is not None:
        args += ["--db", absolute_db(db)]
    entry: dict[str, Any] = {}
    if for_client is not None and client(for_client).writes_type:
        entry["type"] = "stdio"
    entry["command"] = argv[0]
    entry["args"] = args
    if env:
        entry["env"] = env
    return entry


def check_name(name: str) -> str:
    if not _NAME_RE.fullmatch(name):
        raise InvalidInput(
            f"{name!r} cannot name an MCP server here",
            hint="use letters, digits, '-', '_' or '.', at most 64, e.g. --name lethe-work",
        )
    return name


def _normal(entry: Any) -> Any:
    """An entry as it behaves: `"type": "stdio"` and an empty `env` change nothing."""
    if not isinstance(entry, dict):
        return entry
    out = dict(entry)
    if out.get("type") == "stdio":
        del out["type"]
    if out.get("env") == {}:
        del out["env"]
    return out


def merged_entry(before: Any, entry: Mapping[str, Any]) -> dict[str, Any]:
    """`entry` over the entry already there: the keys that say how to start the server are
    replaced (dropped when `entry` has none), any other key keeps its value and place."""
    if not isinstance(before, dict):
        return dict(entry)
    out: dict[str, Any] = {}
    for key, value in before.items():
        if key in entry:
            out[key] = entry[key]
        elif key not in MANAGED_KEYS:
            out[key] = value
    for key, value in entry.items():
        out.setdefault(key, value)
    return out


def runs_lethe(entry: Any) -> bool:
    """Whether a server entry starts a lethe MCP server (any installation of it)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    args = entry.get("args")
    args = args if isinstance(args, list) else []
    words = [entry["command"], *(a for a in args if isinstance(a, str))]
    names = [Path(w.replace("\\", "/")).name.lower().removesuffix(".exe") for w in words]
    if "lethe-mcp" in names:  # the distribution's own server script (uvx lethe-mcp)
        return True
    return "lethe" in names and "mcp" in words  # lethe mcp, python -m lethe mcp


# -- planning and writing ------------------------------------------------------------------


@dataclass(frozen=True)
class SetupPlan:
    path: Path  # the file written (a symlink's target)
    name: str
    action: Action
    before: Any  # the entry there now (None when absent)
    after: dict[str, Any]
    creates_file: bool
    old_text: str | None = field(repr=False)
    new_text: str = field(repr=False)
    # Other entries of the same file that also start lethe.
    also_lethe: tuple[str, ...] = ()

    @property
    def changes(self) -> bool:
        return self.action != "unchanged"


def plan_setup(path: Path, name: str, entry: Mapping[str, Any]) -> SetupPlan:
    """What writing `entry` as server `name` into the file at `path` would do. Reads only."""
    check_name(name)
    path = Path(os.path.abspath(path.expanduser()))
    if path.is_symlink():
        path = path.resolve()
    old_text = _read(path)
    if old_text is None or not old_text.strip(_JSON_WS + _BOM):
        new_text = json.dumps({SERVERS_KEY: {name: dict(entry)}}, indent=2, ensure_ascii=False)
        return SetupPlan(
            path=path,
            name=name,
            action="add",
            before=None,
            after=dict(entry),
            creates_file=old_text is None,
            old_text=old_text,
            new_text=(_BOM if (old_text or "").startswith(_BOM) else "") + new_text + "\n",
        )
    bom = _BOM if old_text.startswith(_BOM) else ""
    text = old_text[len(bom) :]
    data = _parse(text, path)
    servers = data.get(SERVERS_KEY)
    if SERVERS_KEY in data and not isinstance(servers, dict):
        raise InvalidInput(
            f"{path}: its {SERVERS_KEY!r} is {_kind(servers)}, not an object of servers; "
            "nothing was changed",
            hint=f"fix {SERVERS_KEY!r} by hand (or move the file away), then run setup again",
        )
    servers = servers or {}
    before = servers.get(name)
    after = merged_entry(before, entry)
    also = tuple(k for k, v in servers.items() if k != name and runs_lethe(v))
    if name in servers and _normal(before) == _normal(after):
        return SetupPlan(path, name, "unchanged", before, after, False, old_text, old_text, also)
    new_text = bom + _edit(text, path, name, after)
    expected = dict(data)
    expected[SERVERS_KEY] = {**servers, name: after}
    _verify(new_text[len(bom) :], expected, path)
    action: Action = "update" if name in servers else "add"
    return SetupPlan(path, name, action, before, after, False, old_text, new_text, also)


def apply_setup(plan: SetupPlan, *, now: datetime | None = None) -> Path | None:
    """Write a planned change: a backup of the file first (returned; None when there was no
    file or nothing to change), then the new text, atomically. Refused, with no change, when
    the file changed since it was planned."""
    if not plan.changes:
        return None
    path = plan.path
    if _read(path) != plan.old_text:
        raise InvalidInput(
            f"{path} changed while lethe was preparing its edit; nothing was written",
            hint="run setup again (a running client may rewrite it: close it first)",
        )
    backup = None
    try:
        if plan.old_text is not None:
            backup = _backup_path(path, now or datetime.now())
            shutil.copy2(path, backup)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
        _write_atomically(path, plan.new_text)
    except OSError as exc:
        raise InvalidInput(
            f"cannot write {path}: {exc.strerror or exc}; it was left as it was",
            hint="check the permissions of the file and its folder",
        ) from None
    return backup


def _read(path: Path) -> str | None:
    if path.is_dir():
        raise InvalidInput(f"{path} is a folder, not a configuration file")
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InvalidInput(
            f"cannot read {path}: {exc.strerror or exc}", hint="check its permissions"
        ) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{path} is not UTF-8 text (byte 0x{raw[exc.start]:02x} at {exc.start}); "
            "nothing was changed",
            hint="fix the file (or move it away), then run setup again",
        ) from None


def _parse(text: str, path: Path) -> dict[str, Any]:
    def no_constants(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        data = json.loads(text, parse_constant=no_constants)
    except ValueError as exc:
        where = (
            f" (line {exc.lineno}, column {exc.colno}: {exc.msg})"
            if isinstance(exc, json.JSONDecodeError)
            else f" ({exc})"
        )
        raise InvalidInput(
            f"{path} is not valid JSON{where}; nothing was changed",
            hint="fix the file (or move it away), then run setup again",
        ) from None
    if not isinstance(data, dict):
        raise InvalidInput(
            f"{path} holds {_kind(data)}, not a JSON object; nothing was changed",
            hint="fix the file (or move it away), then run setup again",
        )
    return data


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        str: "a string",
        int: "a number",
        float: "a number",
        list: "an array",
    }.get(type(value), "an object")


def _verify(new_text: str, expected: dict[str, Any], path: Path) -> None:
    """The edited text must parse to exactly what was meant, key order included."""
    got = json.loads(new_text)
    if json.dumps(got) != json.dumps(expected):  # pragma: no cover - a bug in _edit
        raise InvalidInput(
            f"lethe could not edit {path} safely (its layout is unusual); nothing was changed",
            hint="add the entry by hand: lethe setup --print shows it",
        )


def _backup_path(path: Path, now: datetime) -> Path:
    stamp = now.strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.lethe-backup-{stamp}")
    n = 2
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.lethe-backup-{stamp}-{n}")
        n += 1
    return candidate


def _write_atomically(path: Path, text: str) -> None:
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o600  # it may hold secrets
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if hasattr(os, "O_DIRECTORY"):
        try:
            dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return
        try:
            os.fsync(dir_fd)
        except OSError:
            pass
        finally:
            os.close(dir_fd)


# -- the textual edit ----------------------------------------------------------------------
# Valid JSON is scanned for the spans of an object's members, so that one member can be
# inserted or replaced while every other byte stays where it was.


@dataclass(frozen=True)
class _Member:
    key: str
    key_start: int
    key_end: int
    value_start: int
    value_end: int
    next_key: int | None  # where the member after this one starts


@dataclass(frozen=True)
class _Object:
    open: int  # index of "{"
    close: int  # index of "}"
    members: tuple[_Member, ...]


_decoder = json.JSONDecoder()
_scanstring: Any = getattr(json.decoder, "scanstring")  # noqa: B009 (untyped in typeshed)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _JSON_WS:
        i += 1
    return i


def _scan_object(text: str, open_at: int) -> _Object:
    assert text[open_at] == "{"
    members: list[_Member] = []
    i = _skip(text, open_at + 1)
    if text[i] == "}":
        return _Object(open_at, i, ())
    while True:
        key_start = i
        key, key_end = _scanstring(text, i + 1)
        i = _skip(text, _skip(text, key_end) + 1)  # past ":"
        value_start = i
        _, value_end = _decoder.raw_decode(text, i)
        i = _skip(text, value_end)
        if text[i] == "}":
            members.append(_Member(key, key_start, key_end, value_start, value_end, None))
            return _Object(open_at, i, tuple(members))
        i = _skip(text, i + 1)  # past ","
        members.append(_Member(key, key_start, key_end, value_start, value_end, i))


def _only(obj: _Object, key: str, path: Path) -> _Member | None:
    found = [m for m in obj.members if m.key == key]
    if len(found) > 1:
        raise InvalidInput(
            f"{path} names {key!r} {len(found)} times in one object; nothing was changed",
            hint="keep one of them (clients read only the last), then run setup again",
        )
    return found[0] if found else None


def _line_indent(text: str, at: int) -> str:
    start = text.rfind("\n", 0, at) + 1
    end = start
    while end < at and text[end] in " \t":
        end += 1
    return text[start:end]


@dataclass(frozen=True)
class _Style:
    multiline: bool
    newline: str  # "\r\n" in a file written that way
    indent: str  # of the object's members (multiline)
    step: str  # one level of indentation
    colon: str  # between a key and its value
    comma: str  # after "," between members (inline)


def _style(text: str, obj: _Object, outer: _Style | None) -> _Style:
    own = _line_indent(text, obj.open)
    if obj.members:
        first = obj.members[0]
        gap = text[obj.open + 1 : first.key_start]
        colon = "".join(c for c in text[first.key_end : first.value_start] if c in " \t:")
        if "\n" in gap:
            indent = gap[gap.rfind("\n") + 1 :]
            step = indent[len(own) :] if indent.startswith(own) and indent != own else "  "
            return _Style(True, _newline(text), indent, step, colon, "")
        if first.next_key is not None:
            after_comma = text[text.index(",", first.value_end) + 1 : first.next_key]
            comma = after_comma if after_comma.strip(" \t") == "" else " "
        else:
            comma = " " if colon.endswith(" ") else ""
        return _Style(False, "", "", "", colon, comma)
    if outer is None or outer.multiline:
        step = outer.step if outer else "  "
        return _Style(True, _newline(text), own + step, step, outer.colon if outer else ": ", "")
    return _Style(False, "", "", "", outer.colon, outer.comma)


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _dump(value: Any, style: _Style) -> str:
    if not style.multiline:
        return json.dumps(value, ensure_ascii=False, separators=("," + style.comma, style.colon))
    text = json.dumps(value, ensure_ascii=False, indent=style.step, separators=(",", style.colon))
    return text.replace("\n", style.newline + style.indent)


def _member_text(key: str, value: Any, style: _Style) -> str:
    return json.dumps(key, ensure_ascii=False) + style.colon + _dump(value, style)


def _insert(text: str, obj: _Object, key: str, value: Any, style: _Style) -> str:
    member = _member_text(key, value, style)
    if obj.members:
        end = obj.members[-1].value_end
        sep = style.newline + style.indent if style.multiline else style.comma
        return text[:end] + "," + sep + member + text[end:]
    if style.multiline:
        own = _line_indent(text, obj.open)
        inner = style.newline + style.indent + member + style.newline + own
    else:
        inner = member
    return text[: obj.open + 1] + inner + text[obj.close :]


def _edit(text: str, path: Path, name: str, entry: dict[str, Any]) -> str:
    top = _scan_object(text, _skip(text, 0))
    top_style = _style(text, top, None)
    servers = _only(top, SERVERS_KEY, path)
    if servers is None:
        return _insert(text, top, SERVERS_KEY, {name: entry}, top_style)
    inner = _scan_object(text, servers.value_start)
    inner_style = _style(text, inner, top_style)
    current = _only(inner, name, path)
    if current is None:
        return _insert(text, inner, name, entry, inner_style)
    return text[: current.value_start] + _dump(entry, inner_style) + text[current.value_end :]
