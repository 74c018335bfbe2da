"""BERT weights from a `model.safetensors` file, as float32 arrays mapped from it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lethe.embed.base import F32
from lethe.embed.model import INSTALL_HINT
from lethe.errors import EmbedderUnavailable

_DTYPES = {"F32": np.float32, "F16": np.float16, "F64": np.float64}


def load_weights(path: Path) -> dict[str, F32]:
    """Map a safetensors file into memory instead of reading it. Names lose the `bert.`
    prefix of checkpoints saved from a task head (ones saved from BertModel have bare names),
    so one loader serves both.

    The format is an 8-byte header length, a JSON header, then raw little-endian tensors, so
    float32 tensors can be zero-copy views of one read-only map: the 90 MB of weights cost no
    read at start-up (a cold `lethe recall` pays only for the pages its query touches).
    """
    try:
        with path.open("rb") as fh:
            header_len = int.from_bytes(fh.read(8), "little")
            header = json.loads(fh.read(header_len))
        data = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + header_len)
    except (OSError, ValueError) as exc:
        raise EmbedderUnavailable(f"cannot read {path}: {exc}", hint=INSTALL_HINT) from exc
    out: dict[str, F32] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info["dtype"])
        if dtype is None:  # integer buffers such as `position_ids`: not weights, not needed
            continue
        start, end = info["data_offsets"]
        array = data[start:end].view(np.dtype(dtype).newbyteorder("<")).reshape(info["shape"])
        out[name.removeprefix("bert.")] = array.astype(np.float32, copy=False)
    return out
