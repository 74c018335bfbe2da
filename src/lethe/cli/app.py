"""The typer application every command hangs off, and the plumbing they share.

Errors lethe raises on purpose become one `error: <message> (<hint>)` line on stderr and exit
status 1, so scripts can rely on the status and people never read a traceback for a mistake
they can fix. Usage mistakes (unknown option, missing argument) are one such line too, with
status 2 and the `--help` to read.
"""

import json
import os
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer.core import TyperGroup

from lethe.common.identifiers import DEFAULT_NAMESPACE, LAYERS
from lethe.common.validate import MAX_OFFSET
from lethe.errors import InvalidInput, LetheError

if TYPE_CHECKING:
    from rich.console import Console

    from lethe.common.filters import Filters
    from lethe.engine import Lethe


class _Group(TyperGroup):
    """Turns a `LetheError` raised anywhere below into the one-line report and status 1, and
    refuses arguments that are not text before any command sees them."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        for n, arg in enumerate(args, 1):
            problem = not_utf8(arg)
            if problem:
                raise typer.BadParameter(
                    f"{problem}; lethe reads its arguments as UTF-8 text",
                    ctx=ctx,
                    param_hint=f"argument {n}",
                )
        for name, value in os.environ.items():
            problem = not_utf8(value) if name.startswith("LETHE_") else None
            if problem:
                raise typer.BadParameter(
                    f"{problem}; lethe reads its settings as UTF-8 text", ctx=ctx, param_hint=name
                )
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except LetheError as exc:
            report_error(exc)
            raise typer.Exit(1) from None


app = typer.Typer(
    cls=_Group,
    name="lethe",
    help="Long-term memory for LLM agents that forgets exactly what it is told to.\n\n"
    "Every command works on one SQLite file: --db PATH, else $LETHE_DB, else "
    "~/.local/share/lethe/lethe.db. Add --json to any command for machine-readable output.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


# The engine spells some hints for the Python API (`restore('mem_…') first`); a shell user
# reads the same advice as a command.
_API_HINT_RE = re.compile(r"\b(history|restore|revert)\('((?:mem|sys)_[0-9a-f]{12})'\)")


def not_utf8(value: str) -> str | None:
    """What is wrong with a string read from the command line or the environment whose bytes
    were not UTF-8 (Python keeps such bytes as lone surrogates); None when it is text."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raw = value.encode("utf-8", "surrogateescape")
        shown = raw.decode("utf-8", "backslashreplace")
        if len(shown) > 40:
            shown = shown[:40] + "…"
        return f"'{shown}' is not UTF-8 (byte 0x{raw[exc.start]:02x} at position {exc.start})"
    return None


def read_stdin(what: str) -> str:
    """All of standard input as UTF-8 text, for an argument given as `-`."""
    data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read()
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise fail(
            f"standard input is not UTF-8 text (byte 0x{data[exc.start]:02x} at position "
            f"{exc.start}), so {what} was not read",
            hint="convert it first, e.g. iconv -t UTF-8",
        ) from None


def report_error(exc: LetheError) -> None:
    # Messages may quote user input or a validation dump; flatten so it stays one line.
    text = _API_HINT_RE.sub(r"lethe \1 \2", " ".join(str(exc).split()))
    typer.echo("error: " + text, err=True)


def fail(message: str, hint: str | None = None) -> InvalidInput:
    """An error the CLI itself detects (a bad --meta pair, an unreadable file), reported alike."""
    return InvalidInput(message, hint=hint)


def stdout() -> "Console":
    # Built per command so a console never outlives the stream it was created for (tests swap
    # sys.stdout, and colour support is decided when the console is made).
    from rich.console import Console

    return Console(highlight=False)


def stderr() -> "Console":
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def emit_json(value: Any) -> None:
    typer.echo(json.dumps(value, ensure_ascii=False, indent=2))


def emit_items(items: Iterable[Any], **paging: Any) -> None:
    """The --json of a listing command: one object, never a bare list. Its entries are under
    `items`, then come the paging fields the command has (`total` where the engine counts,
    `offset` and `limit`, `after`, `k`), named as its options are (docs/cli.md, "JSON
    output"). Fields can be added to an object without breaking a script that reads it."""
    emit_json({"items": list(items), **paging})


@contextmanager
def open_lethe(db: str | None, *, existing: bool = False) -> "Iterator[Lethe]":
    """The engine on the store of --db / $LETHE_DB / the default path. `existing` is for
    commands that only read: where no store exists they say so and create nothing (no
    file, no folder)."""
    from lethe.engine import Lethe

    if existing:
        path = store_file(db)
        if path is not None and not path.exists():
            raise fail(
                f"there is no memory store at {path}",
                hint="nothing was remembered there yet: 'lethe remember TEXT' creates it; or "
                "point --db / LETHE_DB at your store",
            )
    from lethe.cli.progress import terminal_bar

    # A store made by an older lethe may need a migration that goes through every memory.
    with Lethe.open(db, progress=terminal_bar) as mem:
        yield mem


def store_file(db: str | None) -> Path | None:
    """The SQLite file that --db / $LETHE_DB / lethe.toml / the default names, as lethe opens
    it; None for a PostgreSQL DSN."""
    from lethe.config import Settings, is_postgres_dsn

    settings = Settings.load(overrides={"db": db} if db is not None else None)
    if is_postgres_dsn(settings.db):
        return None
    return Path(settings.db).expanduser()


# -- options shared by several commands ---------------------------------------------------

DbOpt = Annotated[
    str | None,
    typer.Option(
        "--db",
        envvar="LETHE_DB",
        metavar="PATH|DSN",
        show_default=False,
        help="Database file (created if missing), or a postgresql:// DSN. Default: "
        "$LETHE_DB, else ~/.local/share/lethe/lethe.db.",
    ),
]
JsonOpt = Annotated[
    bool, typer.Option("--json", help="Print only JSON on stdout, for scripts and agents.")
]
NamespaceOpt = Annotated[
    str, typer.Option("--namespace", "-n", help="Namespace (one isolated memory space).")
]
AgentFilterOpt = Annotated[
    str | None, typer.Option("--agent", help="Only memories written by this agent.")
]
LayerFilterOpt = Annotated[
    str | None, typer.Option("--layer", help=f"Only this layer: {', '.join(LAYERS)}.")
]
CategoryFilterOpt = Annotated[
    str | None, typer.Option("--category", help="Only memories of this category.")
]
TagFilterOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--tag", "-t", metavar="TAG", help="Only memories with this tag (repeatable: any of them)."
    ),
]
AllTagsOpt = Annotated[
    bool, typer.Option("--all-tags", help="With several --tag: require all of them, not any.")
]
SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since", metavar="TIME", help="Created at or after (ISO-8601, e.g. 2024-01-31)."
    ),
]
UntilOpt = Annotated[
    str | None,
    typer.Option("--until", metavar="TIME", help="Created before this time (exclusive; ISO-8601)."),
]
FilterExprOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--filter",
        "-f",
        metavar="EXPR",
        help='Filter expression, e.g. "@metadata.topic = pricing" or "importance >= 0.7" '
        "(repeatable; all must hold). See docs/cli.md.",
    ),
]
MetaOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--meta",
        "-m",
        metavar="KEY=VALUE",
        help="Metadata entry (repeatable). VALUE is read as JSON when it parses "
        "(42, true, [1,2]), else kept as text.",
    ),
]
OffsetOpt = Annotated[int, typer.Option(help=f"Skip this many first (0 to {MAX_OFFSET}).")]
MetadataJsonOpt = Annotated[
    str | None,
    typer.Option("--metadata-json", metavar="JSON", help="Metadata as one JSON object."),
]


def build_filters(
    *,
    namespace: str = DEFAULT_NAMESPACE,
    agent: str | None = None,
    layer: str | None = None,
    category: str | None = None,
    tags: Sequence[str] | None = None,
    all_tags: bool = False,
    since: str | datetime | None = None,
    until: str | datetime | None = None,
    not_accessed_since: datetime | None = None,
) -> "Filters":
    """Hand the options to the engine's own filter parsing, so every face rejects alike."""
    from lethe.common import validate
    from lethe.common.filters import filters_from_mapping, to_epoch

    mapping: dict[str, Any] = {
        "namespace": namespace,
        "agent": agent,
        # Checked here so an unknown layer reads as such, not as a pydantic dump.
        "layer": validate.layer(layer) if layer is not None else None,
        "category": category,
        "tags": list(tags or ()),
        "since": since and datetime.fromtimestamp(to_epoch(since), UTC),
        "until": until and datetime.fromtimestamp(to_epoch(until), UTC),
        "not_accessed_since": not_accessed_since,
    }
    filters = filters_from_mapping(mapping)
    return filters.model_copy(update={"tags_mode": "all"}) if all_tags else filters


_DURATION_RE = re.compile(r"(\d{1,12})\s*([smhdw])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_duration(value: str) -> timedelta:
    """Read `30d`, `12h`, `90m`, `2w` (and `45s`) for options such as --older-than.

    Spans are a face's spelling: the engine takes points in time, so the CLI turns a span into
    one (see `ago`). A bad span is a usage error (status 2), like a number that is not one.
    """
    match = _DURATION_RE.fullmatch(value.strip())
    if match is None:
        raise typer.BadParameter(
            f"{value!r} is not a duration: write a whole number and a unit, e.g. 30d, 12h, "
            "90m, 2w (s seconds, m minutes, h hours, d days, w weeks)"
        )
    amount = int(match.group(1))
    if amount == 0:
        raise typer.BadParameter(f"{value!r} is not a duration: it must be longer than zero")
    try:
        span = timedelta(**{_UNITS[match.group(2)]: amount})
        datetime.now(UTC) - span
    except OverflowError:
        raise typer.BadParameter(f"{value!r} reaches back before the year 1") from None
    return span


def ago(span: timedelta) -> datetime:
    return datetime.now(UTC) - span


def parse_moment(value: str) -> datetime:
    """A span back from now (`30d`) or an ISO-8601 time, for options such as report --since."""
    from lethe.common.filters import to_epoch

    if _DURATION_RE.fullmatch(value.strip()):
        return ago(parse_duration(value))
    try:
        return datetime.fromtimestamp(to_epoch(value), UTC)
    except (LetheError, OverflowError, ValueError, OSError):
        raise typer.BadParameter(
            f"{value!r} is neither a duration (30d, 12h, 90m, 2w) nor an ISO-8601 time "
            "(2024-01-31, 2024-01-31T12:00)"
        ) from None


def _json_or_text(value: str) -> Any:
    def no_constants(name: str) -> Any:
        raise ValueError(name)

    try:
        return json.loads(value, parse_constant=no_constants)
    except ValueError:
        return value


def parse_metadata(pairs: Sequence[str] | None, raw_json: str | None) -> Any:
    """Merge --metadata-json with --meta pairs; None when neither was given.

    Returns whatever the user wrote, object or not: the engine decides what metadata may be.
    """
    if not pairs and raw_json is None:
        return None
    metadata: Any = {}
    if raw_json is not None:
        try:
            metadata = json.loads(raw_json)
        except ValueError as exc:
            raise fail(
                f"--metadata-json is not valid JSON: {exc}",
                hint='pass one object, e.g. --metadata-json \'{"source": "chat"}\'',
            ) from None
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise fail(f"--meta expects KEY=VALUE, got {pair!r}", hint="e.g. --meta topic=pricing")
        if not isinstance(metadata, dict):
            break
        metadata[key.strip()] = _json_or_text(value)
    return metadata


def _version(value: bool) -> None:
    if value:
        from lethe import __version__

        typer.echo(f"lethe {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print lethe's version and exit.", callback=_version, is_eager=True
        ),
    ] = False,
) -> None:
    """Long-term memory for LLM agents that forgets exactly what it is told to."""


NEGATIVE = re.compile(r"-\d+(\.\d*)?")
"""A negative number where an argument was expected: click reads it as an option name."""


def main(args: list[str] | None = None) -> None:
    """Entry point of the `lethe` script and of `python -m lethe`."""
    try:
        code = app(args=args, prog_name="lethe", standalone_mode=False)
    except typer.TyperException as exc:  # typer's own: usage errors, unreadable files
        ctx = getattr(exc, "ctx", None)
        if type(exc).__name__ == "NoArgsIsHelpError":  # a bare group: its help, status 2
            if ctx is not None:
                typer.echo(ctx.get_help())
            raise SystemExit(2) from None
        format_message = getattr(exc, "format_message", None)
        message = format_message() if callable(format_message) else str(exc)
        name = getattr(exc, "option_name", None)
        if isinstance(name, str) and NEGATIVE.fullmatch(name) and ctx is not None:
            # `lethe revert ID -1`: a negative number reads as an unknown option.
            message = (
                f"{name} is not an option, and no argument of '{ctx.command_path}' takes a "
                "negative number (versions and counts start at 1)"
            )
        where = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        typer.echo(f"error: {_one_line(message)}{where}", err=True)
        raise SystemExit(getattr(exc, "exit_code", 1)) from None
    except typer.Abort:
        typer.echo("error: aborted", err=True)
        raise SystemExit(1) from None
    raise SystemExit(code if isinstance(code, int) else 0)


def mcp_main() -> None:
    """Entry point of the `lethe-mcp` script: `lethe mcp` under the distribution's name, so
    `uvx lethe-mcp` starts the server with no other word (and `--help` shows its options)."""
    args = sys.argv[1:]
    main(args if args == ["--version"] else ["mcp", *args])


def _one_line(text: str) -> str:
    return " ".join(text.split())
