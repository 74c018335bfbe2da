"""Prompt texts shipped with lethe (package data)."""

from __future__ import annotations

from importlib.resources import files


def forget_mode(instruction: str, *, dry_run: bool, namespace: str) -> str:
    """Seed 002's forget-mode prompt, adapted to lethe, for one instruction."""
    text = files(__name__).joinpath("forget_mode.md").read_text(encoding="utf-8")
    body = text.split("-->\n", 1)[1]
    # The instruction goes in last, so braces inside it are never read as placeholders.
    return (
        body.replace("{dry_run}", "true" if dry_run else "false")
        .replace("{namespace}", namespace)
        .replace("{instruction}", instruction)
    )
