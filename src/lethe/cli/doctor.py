"""`lethe doctor`: whether this installation can work, checked without changing anything.

Each check returns a `Check`: a status, one line that says what was found, a hint when there
is something to do, and the facts behind it (for `--json`). Statuses: `ok`; `note` (fine,
worth knowing: no store yet, no workspace configured); `warn` (works now, may not later: the
model will be downloaded on first use, a client points at an installation that is gone);
`fail` (something lethe needs is broken); `skip` (not checked because an earlier check
failed). A report is healthy when nothing failed.

Nothing is created, downloaded or migrated: the model is only looked for, an absent SQLite
store stays absent (its file is opened only when it exists, without creating it), a
PostgreSQL database is read in a read-only transaction.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from lethe.errors import LetheError

if TYPE_CHECKING:
    from lethe.config import Settings
    from lethe.engine.survey import Survey

Status = Literal["ok", "note", "warn", "fail", "skip"]
PG_TIMEOUT_S = 3.0


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    summary: str
    hint: str | None = None
    facts: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Report:
    checks: tuple[Check, ...]

    @property
    def healthy(self) -> bool:
        return all(c.status != "fail" for c in self.checks)

    def check(self, name: str) -> Check:
        return next(c for c in self.checks if c.name == name)

    def as_dict(self) -> dict[str, Any]:
        return {"healthy": self.healthy, "checks": [asdict(c) for c in self.checks]}


def diagnose(db: str | None = None, *, pg_timeout_s: float = PG_TIMEOUT_S) -> Report:
    """Every check, in the order `lethe doctor` shows them. `db` is --db (else LETHE_DB,
    lethe.toml, the default path, as every command resolves it)."""
    return Report(tuple(_checks(db, pg_timeout_s)))


def _checks(db: str | None, pg_timeout_s: float) -> Iterator[Check]:
    yield check_lethe()
    settings_check, settings = check_settings(db)
    yield settings_check
    yield check_model()
    if settings is None:
        reason = "not checked: the settings could not be read"
        yield Check("store", "skip", reason)
        yield Check("workspace", "skip", reason)
    else:
        from lethe.config import is_postgres_dsn

        if is_postgres_dsn(settings.db):
            yield from check_postgres(settings.db, timeout_s=pg_timeout_s)
        else:
            yield check_sqlite(Path(settings.db).expanduser())
        yield check_workspace(settings)
    yield check_clients()


# -- the installation ------------------------------------------------------------------------


def check_lethe() -> Check:
    from lethe import __version__
    from lethe.cli.clients import lethe_command

    command = lethe_command()
    return Check(
        "lethe",
        "ok",
        f"lethe {__version__}, Python {sys.version.split()[0]}, {' '.join(command)}",
        facts={"version": __version__, "python": sys.executable, "command": command},
    )


def check_settings(db: str | None) -> tuple[Check, Settings | None]:
    from lethe.config import Settings, default_config_path

    named = os.environ.get("LETHE_CONFIG")
    path = Path(named) if named else default_config_path()
    variables = sorted(k for k, v in os.environ.items() if k.startswith("LETHE_") and v)
    facts: dict[str, Any] = {
        "config_file": str(path),
        "config_file_exists": path.is_file(),
        "variables": variables,
    }
    try:
        settings = Settings.load(overrides={"db": db} if db is not None else None)
    except LetheError as exc:
        return Check("settings", "fail", exc.message, exc.hint, facts), None
    where = str(path) if path.is_file() else f"no config file ({path}): defaults"
    if named and not path.is_file():
        return (
            Check(
                "settings",
                "warn",
                f"LETHE_CONFIG names {path}, which does not exist: defaults are used",
                "point LETHE_CONFIG at your lethe.toml, or unset it",
                facts,
            ),
            settings,
        )
    shown = f"; set: {', '.join(variables)}" if variables else ""
    return Check("settings", "ok", f"{where}{shown}", facts=facts), settings


def check_model() -> Check:
    """Looks for the embedding model where lethe would load it from; never downloads."""
    from lethe.errors import EmbedderUnavailable

    name = _expected_model()
    try:
        from lethe.embed.model import MODEL_NAME, find_model_dir

        if name == MODEL_NAME:
            folder = find_model_dir(download=False)
        else:
            from lethe.embed import hub, registry

            folder = hub.find(registry.resolve(name), fetch=False)
    except EmbedderUnavailable as exc:
        facts: dict[str, Any] = {"folder": None, "error": exc.message}
        if os.environ.get("LETHE_MODEL_DIR") or not _downloads_on():
            return Check("model", "fail", exc.message, exc.hint, facts)
        return Check(
            "model",
            "warn",
            f"{exc.message}; the first command that needs it downloads it",
            exc.hint,
            facts,
        )
    except ImportError as exc:  # numpy or tokenizers missing: a broken installation
        return Check(
            "model",
            "fail",
            f"the embedding runtime cannot be imported: {exc}",
            "reinstall lethe",
            {"folder": None, "error": str(exc)},
        )
    return Check("model", "ok", f"{name} in {folder}", facts={"folder": str(folder)})


def _expected_model() -> str:
    """The model LETHE_EMBEDDER / lethe.toml select (the default when they cannot be read:
    the settings check reports that)."""
    from lethe.config import DEFAULT_EMBEDDER, Settings

    try:
        return Settings.load().embedder
    except LetheError:
        return DEFAULT_EMBEDDER


def _downloads_on() -> bool:
    try:
        from lethe.embed import download
    except ImportError:  # a lethe without the downloader only has what is installed
        return False
    return not download.offline()


# -- the store -------------------------------------------------------------------------------


def check_sqlite(path: Path) -> Check:
    from lethe.engine.survey import SQLITE_HEADER, SurveyFailed, survey_sqlite
    from lethe.engine.survey import SQLITE_LATEST as LATEST_VERSION

    path = Path(os.path.abspath(path))
    facts: dict[str, Any] = {
        "kind": "sqlite",
        "location": str(path),
        "exists": path.exists(),
        "schema_version": None,
        "latest_schema_version": LATEST_VERSION,
    }
    if path.is_dir():
        return Check("store", "fail", f"{path} is a folder", "give --db the path of a file", facts)
    if not path.exists():
        parent = _nearest_existing(path.parent)
        if not os.access(parent, os.W_OK):
            return Check(
                "store",
                "fail",
                f"no store yet at {path}, and {parent} is not writable, so none can be made",
                "choose a writable location with --db or LETHE_DB",
                facts,
            )
        return Check(
            "store",
            "note",
            f"no store yet at {path} (the first 'lethe remember' creates it)",
            facts=facts,
        )
    facts["bytes"] = path.stat().st_size
    try:
        with path.open("rb") as handle:
            header = handle.read(16)
    except OSError as exc:
        return Check(
            "store",
            "fail",
            f"cannot read {path}: {exc.strerror or exc}",
            "check its permissions",
            facts,
        )
    if header and header != SQLITE_HEADER:
        return Check(
            "store",
            "fail",
            f"{path} is not a lethe database (not an SQLite file)",
            "point --db / LETHE_DB at a lethe database or at a new file name",
            facts,
        )
    if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
        return Check(
            "store",
            "fail",
            f"{path} (or its folder) is not writable",
            "check its permissions",
            facts,
        )
    try:
        survey = survey_sqlite(path)  # read-only: doctor changes nothing
    except SurveyFailed as exc:
        return Check("store", "fail", str(exc), None, facts)
    facts["schema_version"] = survey.schema_version
    if not survey.tables:
        return Check("store", "note", f"{path} is empty (it becomes a lethe store)", facts=facts)
    return _store_verdict(str(path), facts, survey)


def _store_verdict(where: str, facts: dict[str, Any], survey: Survey) -> Check:
    version, meta, counts = survey.schema_version, survey.meta, survey.counts
    latest = survey.latest_version
    if not survey.application_matches:
        return Check(
            "store",
            "fail",
            f"{where} holds another application's tables",
            "point --db / LETHE_DB at a lethe database or at a new one",
            facts,
        )
    facts["embedder"] = meta.get("embedder")
    facts["dim"] = int(meta["dim"]) if meta.get("dim", "").isdigit() else None
    facts["memories"] = {str(k): int(v) for k, v in counts.items()}
    if version > latest:
        return Check(
            "store",
            "fail",
            f"{where} has schema version {version}; this lethe reads up to {latest}",
            "upgrade lethe to open it",
            facts,
        )
    expected = _expected_model()
    facts["reembed_target"] = meta.get("reembed_target")
    if meta.get("embedder") != expected:
        return Check(
            "store",
            "fail",
            f"{where} holds vectors of {meta.get('embedder')}, not of {expected}",
            f"set LETHE_EMBEDDER={meta.get('embedder')}, or move the store with "
            f"`lethe reembed --to {expected}`",
            facts,
        )
    live = counts.get("active", 0)
    trash = counts.get("forgotten", 0)
    schema = (
        f"schema {version}"
        if version == latest
        else f"schema {version} (brought to {latest} when lethe next opens it)"
    )
    memories = f"{live} {'memory' if live == 1 else 'memories'}"
    return Check("store", "ok", f"{where}: {schema}, {memories}, {trash} in the trash", facts=facts)


def check_postgres(dsn: str, *, timeout_s: float = PG_TIMEOUT_S) -> Iterator[Check]:
    """Two checks: the server (reachable, pgvector) and the store in it (schema, contents)."""
    from lethe.engine.survey import POSTGRES_LATEST as LATEST_VERSION
    from lethe.engine.survey import SurveyFailed, describe_postgres, survey_postgres

    where = describe_postgres(dsn)
    facts: dict[str, Any] = {
        "kind": "postgres",
        "location": where,
        "exists": None,
        "schema_version": None,
        "latest_schema_version": LATEST_VERSION,
    }
    try:
        survey = survey_postgres(dsn, timeout_s=timeout_s)  # read-only: doctor changes nothing
    except LetheError as exc:
        yield Check("postgres", "fail", exc.message, exc.hint, {"server": where, "error": str(exc)})
        yield Check("store", "skip", f"{where}: not checked (the server cannot be reached)")
        return
    except SurveyFailed as exc:
        yield Check("postgres", "fail", f"{where}: {exc}", None, {"server": where})
        yield Check("store", "skip", f"{where}: not checked", None, facts)
        return
    server, installed = survey.server, survey.pgvector_installed
    available, has_meta, tables = survey.pgvector_available, survey.has_meta, survey.tables
    server_facts = {"server": where, "version": server, "pgvector": installed or available}
    if not installed and not available:
        yield Check(
            "postgres",
            "fail",
            f"{where} (PostgreSQL {server}) has no pgvector extension",
            "install pgvector on the server (https://github.com/pgvector/pgvector)",
            server_facts,
        )
    else:
        vector = f"pgvector {installed}" if installed else f"pgvector {available} available"
        yield Check("postgres", "ok", f"{where}: PostgreSQL {server}, {vector}", facts=server_facts)
    facts["exists"] = has_meta
    if not has_meta:
        if tables:
            yield Check(
                "store",
                "fail",
                f"{where} holds tables of another application",
                "give lethe a database of its own (createdb lethe)",
                facts,
            )
        else:
            yield Check(
                "store", "note", f"{where}: no lethe tables yet (made on first use)", facts=facts
            )
        return
    facts["schema_version"] = survey.schema_version
    yield _store_verdict(where, facts, survey)


# -- the workspace ---------------------------------------------------------------------------


def check_workspace(settings: Settings) -> Check:
    if settings.workspace_dir is None:
        return Check(
            "workspace",
            "note",
            "not configured (optional: LETHE_WORKSPACE_DIR or workspace_dir in lethe.toml)",
            facts={"folder": None},
        )
    folder = Path(os.path.abspath(settings.workspace_dir.expanduser()))
    facts: dict[str, Any] = {"folder": str(folder), "exists": folder.exists()}
    if folder.exists() and not folder.is_dir():
        return Check("workspace", "fail", f"{folder} is not a folder", None, facts)
    if not folder.exists():
        parent = _nearest_existing(folder)
        if not os.access(parent, os.W_OK):
            return Check(
                "workspace",
                "fail",
                f"{folder} does not exist and {parent} is not writable",
                "choose a writable workspace folder",
                facts,
            )
        return Check(
            "workspace", "ok", f"{folder} (created with the first memory written)", facts=facts
        )
    if not os.access(folder, os.W_OK):
        return Check(
            "workspace", "fail", f"{folder} is not writable", "check its permissions", facts
        )
    return Check(
        "workspace",
        "ok",
        f"{folder} (writable)",
        "'lethe workspace rebuild' re-derives its files from the store at any time",
        facts,
    )


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


# -- MCP clients -----------------------------------------------------------------------------


def check_clients() -> Check:
    """Which MCP clients (of those `lethe setup` knows) start a lethe server, and whether the
    command they start still exists."""
    import json

    from lethe.cli.clients import CLIENTS, SERVERS_KEY, config_path, runs_lethe

    found: list[dict[str, Any]] = []
    unreadable: list[str] = []
    for key in CLIENTS:
        path = config_path(key)
        try:
            # A byte-order mark is allowed, as 'lethe setup' allows (and keeps) it.
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except FileNotFoundError:
            continue
        except OSError as exc:
            unreadable.append(f"{key} ({path}: {exc.strerror or exc})")
            continue
        except ValueError:
            unreadable.append(f"{key} ({path}: not JSON)")
            continue
        servers = data.get(SERVERS_KEY) if isinstance(data, dict) else None
        for name, entry in (servers or {}).items() if isinstance(servers, dict) else ():
            if runs_lethe(entry):
                command = entry["command"]
                usable = Path(command).is_file() if os.path.isabs(command) else None
                found.append(
                    {
                        "client": key,
                        "file": str(path),
                        "server": name,
                        "command": command,
                        "args": entry.get("args", []),
                        "command_exists": usable,
                    }
                )
    facts: dict[str, Any] = {"configured": found, "unreadable": unreadable}
    gone = [f for f in found if f["command_exists"] is False]
    parts = [
        f"{f['client']} '{f['server']}'"
        + (f" runs {f['command']}, which is gone" if f in gone else "")
        for f in found
    ]
    parts += [f"cannot read {u}" for u in unreadable]
    if gone or unreadable:
        hint = (
            "run 'lethe setup CLIENT' again from the installation you use"
            if gone
            else "fix the file (its permissions, or its JSON: 'lethe setup' refuses to edit a "
            "file that is not JSON)"
        )
        return Check("clients", "warn", "; ".join(parts), hint, facts)
    if not found:
        return Check(
            "clients",
            "note",
            "no MCP client is set up to run lethe yet",
            "lethe setup claude-desktop | claude-code | cursor",
            facts,
        )
    return Check("clients", "ok", "; ".join(parts), facts=facts)
