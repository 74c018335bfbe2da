"""Work a change owes after its commit, on SQLite and PostgreSQL: a process without a
workspace records what another process's workspace files must lose, such records do not
pile up, and `maintain` finishes what a killed process left owed on a store already open
(a killed purge's receipt included)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from lethe import Lethe
from lethe.embed import Embedder
from tests.backends import is_postgres, live_ids, snapshot


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


PURGE_KILLED_AFTER_COMMIT = textwrap.dedent(
    """
    import os, signal, sys
    import lethe.store.sqlite_index
    from lethe import Lethe

    db, canary = sys.argv[1:3]
    lethe.store.sqlite_index.SNAPSHOT_MIN = 0  # a small store saves its vector snapshot too

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    with Lethe.open(db) as mem:
        memory = mem.remember(canary)
        mem.recall(canary, k=1)
        sync = getattr(mem.store, "_sync", None)
        if sync is not None:  # SQLite: the canary's id and vector in the snapshot files
            sync._save_snapshot()
        print(memory.id, flush=True)
        mem.store.compact = die  # the purge commits; the cleanup it owes is a kill instead
        mem.execute(mem.plan_purge([memory.id]))
        print("survived", flush=True)
    """
)
CANARY = "Canary: the boathouse alarm code is quartz-717-heron"
TOKEN = b"quartz-717-heron"


def _store_files(db: str) -> dict[str, bytes]:
    """The database file, its -wal and -shm and the vector snapshot files beside it."""
    folder, name = Path(db).parent, Path(db).name
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.name.startswith(name)}


def test_maintain_finishes_work_a_killed_purge_left_owed_on_an_open_store(
    mem: Lethe, db: str
) -> None:
    """The store is open in this process when another is killed right after its purge's
    commit: the purge's cleanup (full-text merge, snapshot files, WAL) is owed, and this
    process's `maintain` must finish it without reopening."""
    keep = mem.remember("An ordinary note about the garden shed")
    child = subprocess.run(
        [sys.executable, "-c", PURGE_KILLED_AFTER_COMMIT, db, CANARY],
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    assert "survived" not in child.stdout
    canary_id = child.stdout.split()[0]
    compact, promised = [work for _, work in mem.store.owed()]
    assert compact == {"compact": True}
    assert [m["id"] for m in promised["receipt"]["memories"]] == [canary_id]
    assert live_ids(db) == {keep.id}, "the purge itself committed"
    if not is_postgres(db):
        files = _store_files(db)
        assert [n for n, raw in files.items() if TOKEN in raw], "the test must see the text"
        assert [n for n, raw in files.items() if ".vectors." in n and canary_id.encode() in raw]

    report = mem.maintain()

    assert report.expired == () and mem.store.owed() == []
    [receipt] = mem.receipts()  # signed now, saying the purge's own check never ran
    assert receipt["status"] == "incomplete" and receipt["scan"]["ran"] is False
    assert mem.verify_receipt(receipt) == []
    assert TOKEN.decode() not in str(snapshot(db))
    if not is_postgres(db):
        for name, raw in _store_files(db).items():
            assert TOKEN not in raw, name
            if ".vectors." in name:  # the id stays in the audit, never in the vector files
                assert canary_id.encode() not in raw, name
    assert live_ids(db) == {keep.id}
