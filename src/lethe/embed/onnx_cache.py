"""Where the ONNX encoder file comes from: downloaded with the model (embed/download.py, the
repository's own export, pinned by digest), or built once per model from its weights, kept in
the user's cache under their digest, and checked against a recorded SHA-256 before each use.

The cache key is the SHA-256 of `model.safetensors` and of `config.json` (the config decides
the graph as much as the weights: heads, layers, epsilon) plus the builder version, so a new
model, a changed config or a new builder each get their own file and never a stale one.

Hashing is the expensive part of start-up here (about 0.25 s per 90 MB file on a small
machine, twice: the weights to find the key, the ONNX file to check it), so, as for the
downloaded model (embed/download.py), a file is hashed again only when its size or
modification time differ from when its digest was last computed. A file truncated or
rewritten since fails that test, is hashed, and is rebuilt when it does not match.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from lethe.embed import download as model_download
from lethe.embed.onnx_build import BUILDER_VERSION, build_bytes, write_atomic
from lethe.errors import EmbedderUnavailable

_DIGESTS = "digests.json"
"""Digests of source files (weights, config) by path, with the size, modification time and
inode they had when hashed."""


def cache_folder() -> Path:
    return model_download.cache_root() / "onnx"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def verify_onnx(path: Path, sha256: str, size: int | None = None) -> Path:
    """Return `path` when its bytes hash to `sha256` (and it has `size` bytes, when given);
    raise EmbedderUnavailable otherwise. Always hashes: this is the check for a file that
    came from elsewhere (a published export, a copy), which nothing here has seen before."""
    try:
        actual_size = path.stat().st_size
        if size is not None and actual_size != size:
            raise EmbedderUnavailable(
                f"the ONNX encoder {path} has {actual_size} bytes, not the {size} expected "
                "(truncated or another file); it was not loaded",
                hint=_REPLACE_HINT,
            )
        actual = sha256_file(path)
    except OSError as exc:
        raise EmbedderUnavailable(
            f"cannot read the ONNX encoder {path}: {exc.strerror or exc}", hint=_REPLACE_HINT
        ) from None
    if actual != sha256.lower():
        raise EmbedderUnavailable(
            f"the ONNX encoder {path} does not match its expected SHA-256 ({actual} instead "
            f"of {sha256.lower()}); it was not loaded",
            hint=_REPLACE_HINT,
        )
    return path


_REPLACE_HINT = "delete the file and let lethe build or fetch it again"


def encoder_file(model_dir: Path) -> Path:
    """The ONNX encoder for the model in `model_dir`: the published one a download brought
    (checked against its pinned digest), else the one built here from the weights."""
    model_dir = Path(model_dir)
    downloaded = model_download.downloaded_onnx(model_dir)
    if downloaded is not None:
        return downloaded
    if model_download.is_cache_dir(model_dir) and not (model_dir / "model.safetensors").exists():
        raise EmbedderUnavailable(
            f"the downloaded encoder {model_dir / model_download.ONNX.name} is missing or does "
            "not match its pinned SHA-256; it was not loaded",
            hint="run `lethe model fetch` to download it again",
        )
    return cached_onnx(model_dir)


def cached_onnx(model_dir: Path) -> Path:
    """The ONNX encoder for the model in `model_dir`, built into the cache on first use.

    Processes take turns building (a lock file), and each checks again once it holds the
    lock, so two starting at once build the file once and both use it. A cached file that
    no longer matches its recorded digest is rebuilt, never loaded."""
    model_dir = Path(model_dir)
    folder = cache_folder()
    model_download.make_cache_folder(
        folder, "encoder cache", hint="set LETHE_CACHE_DIR to a writable folder"
    )
    weights = _source_digest(folder, model_dir / "model.safetensors")
    config = _source_digest(folder, model_dir / "config.json")
    target = folder / f"bert-{weights[:16]}-{config[:8]}-b{BUILDER_VERSION}.onnx"
    if _intact(target):
        return target
    with model_download._locked(folder):
        if _intact(target):
            return target
        model_download._sweep_partials(folder)
        data = build_bytes(model_dir)
        record = {
            "sha256": hashlib.sha256(data).hexdigest(),
            "size": len(data),
            "builder_version": BUILDER_VERSION,
            "weights_sha256": weights,
            "config_sha256": config,
            "source": str(model_dir),
        }
        try:
            # The record first: a crash between the two leaves a record whose file is
            # missing or does not match, which is rebuilt; never a file without a record.
            _write_json(_record_path(target), record)
            write_atomic(target, data)
        except OSError as exc:
            raise EmbedderUnavailable(
                f"cannot write the ONNX encoder into {folder}: {exc.strerror or exc}",
                hint="free some space (about 100 MB) or set LETHE_CACHE_DIR to a writable folder",
            ) from None
        del data
        _mark_verified(target, record)
    return target


def _record_path(target: Path) -> Path:
    return target.with_name(target.name + ".json")


def _intact(target: Path) -> bool:
    """Whether `target` is the file its record describes: seen at this size and modification
    time when its digest matched, or hashed now and matching."""
    record = _read_json(_record_path(target))
    try:
        stat = target.stat()
    except OSError:
        return False
    if not isinstance(record.get("sha256"), str) or stat.st_size != record.get("size"):
        return False
    if record.get("verified") == [stat.st_size, stat.st_mtime_ns]:
        return True
    try:
        if sha256_file(target) != record["sha256"]:
            return False
    except OSError:
        return False
    _mark_verified(target, record)
    return True


def _mark_verified(target: Path, record: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        stat = target.stat()
        _write_json(_record_path(target), {**record, "verified": [stat.st_size, stat.st_mtime_ns]})


def _source_digest(folder: Path, path: Path) -> str:
    """SHA-256 of a model file, from the memo when the file is unchanged since it was hashed."""
    try:
        resolved = path.resolve()
        stat = resolved.stat()
    except OSError as exc:
        raise EmbedderUnavailable(f"cannot read {path}: {exc.strerror or exc}") from None
    mark = [stat.st_size, stat.st_mtime_ns, stat.st_ino]
    memo_path = folder / _DIGESTS
    memo = _read_json(memo_path)
    seen = memo.get(str(resolved))
    if isinstance(seen, list) and len(seen) == 4 and seen[:3] == mark and isinstance(seen[3], str):
        return seen[3]
    try:
        digest = sha256_file(resolved)
    except OSError as exc:
        raise EmbedderUnavailable(f"cannot read {path}: {exc.strerror or exc}") from None
    memo[str(resolved)] = [*mark, digest]
    with contextlib.suppress(OSError):
        _write_json(memo_path, memo)
    return digest


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_json(path: Path, data: dict[str, Any]) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, sort_keys=True)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
