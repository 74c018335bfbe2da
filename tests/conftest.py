"""Shared fixtures: the real MiniLM embedder (loaded once) and fresh stores on real files."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from lethe import Lethe
from lethe.embed import Embedder, load_default_embedder


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return load_default_embedder()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def mem(db_path: Path, embedder: Embedder) -> Iterator[Lethe]:
    with Lethe.open(db_path, embedder=embedder) as lethe:
        yield lethe


def snapshot(path: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every lethe table, to assert that a failed call changed nothing."""
    conn = sqlite3.connect(path)
    try:
        tables = ["memories", "memory_tags", "links", "episodes", "episode_members", "events"]
        return {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in tables}
    finally:
        conn.close()
