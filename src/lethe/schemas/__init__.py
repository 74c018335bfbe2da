"""JSON Schemas lethe publishes for its machine-readable output."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any


def load(name: str) -> dict[str, Any]:
    """A schema shipped with the package, e.g. `load("forget-response")`."""
    text = resources.files(__package__).joinpath(f"{name}.schema.json").read_text("utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
