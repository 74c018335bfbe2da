"""Work a change owes after its commit, on SQLite and PostgreSQL: a process without a
workspace records what another process's workspace files must lose, and such records do not
pile up."""

from __future__ import annotations

from pathlib import Path

from lethe import Lethe
from lethe.embed import Embedder


def test_files_owed_to_a_workspace_wait_for_it_merged_into_one(
    db: str, embedder: Embedder, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    with Lethe.open(db, embedder=embedder) as bare:
        bare.remember("Before any workspace existed")
        assert bare.store.owed() == [], "no workspace anywhere: nothing is owed to one"
    with Lethe.open(db, embedder=embedder, workspace_dir=ws) as mem:
        gone = [mem.remember(f"Note {n} about the attic", importance=0.8) for n in range(3)]
    with Lethe.open(db, embedder=embedder) as bare:
        for memory in gone:
            bare.execute(bare.plan_forget([memory.id]))
        assert len(bare.store.owed()) == 3, "one record per change, for the workspace"
    with Lethe.open(db, embedder=embedder) as bare:  # an open without a workspace merges
        [(_, work)] = bare.store.owed()
        assert set(work) == {"workspace"} and work["workspace"]["curated"] == ["default"]
    text = "".join(p.read_text() for p in ws.rglob("*.md"))
    assert "Note 0 about the attic" in text, "still there until the workspace opens"
    with Lethe.open(db, embedder=embedder, workspace_dir=ws) as mem:
        assert mem.store.owed() == []
    text = "".join(p.read_text() for p in ws.rglob("*.md"))
    assert "attic" not in text and "Before any workspace existed" in text


def test_a_purge_removes_the_temp_file_of_a_killed_snapshot_save(
    tmp_path: Path, embedder: Embedder
) -> None:
    db = tmp_path / "m.db"
    with Lethe.open(db, embedder=embedder) as mem:
        m = mem.remember("A note whose id a snapshot kept")
        leftover = tmp_path / ".m.db.vectors.npz.abc123"
        leftover.write_bytes(m.id.encode())  # as a save killed before its rename leaves it
        mem.execute(mem.plan_purge([m.id]))
    assert not leftover.exists()
