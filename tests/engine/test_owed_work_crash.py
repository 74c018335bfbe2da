"""A process killed between a commit and the cleanup it owes: the next open finishes it.

Each round a child process remembers a canary, makes sure the canary's vector is in the
snapshot files and its line in the workspace, then commits a change — a purge of the canary
(live or from the trash), or a forget or restore — and is killed with SIGKILL right after the
commit, before any cleanup (the store's compaction and the workspace rewrite are replaced by
a kill). The parent then opens the store as any next process would and checks: an erased
canary is nowhere in the database file, its -wal, the vector snapshot files or the
workspace, and the workspace equals a fresh projection of the database.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.engine.workspace import Workspace
from lethe.model import Draft

ROUNDS = 24
FILLER = 2100
"""Over the store's snapshot threshold (2000), so the vector index is saved beside it."""

CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from lethe import Lethe

    db, workspace, canary, action = sys.argv[1:5]

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    with Lethe.open(db, workspace_dir=workspace) as mem:
        memory = mem.remember(canary, importance=0.8)  # curated: in MEMORY.md too
        if action == "purge_trashed":
            mem.execute(mem.plan_forget([memory.id]))
        mem.recall(canary, k=1)  # the index holds the canary's vector
        mem.store._sync._save_snapshot()  # and so do the snapshot files
        if action == "restore":
            mem.execute(mem.plan_forget([memory.id]))
        print(memory.id, flush=True)
        # The commit happens; everything it owes afterwards is a kill instead.
        mem.store.compact = die
        mem.workspace.refresh = die
        if action in ("purge", "purge_trashed"):
            mem.execute(mem.plan_purge([memory.id]))
        elif action == "forget":
            mem.execute(mem.plan_forget([memory.id]))
        else:
            mem.restore(memory.id)
        print("survived", flush=True)
    """
)

ACTIONS = ["purge", "purge_trashed", "forget", "restore"]


def files_of(db: Path) -> list[Path]:
    """The database, its -wal and -shm, and the vector snapshot files beside it."""
    return sorted(p for p in db.parent.iterdir() if p.name.startswith(db.name) and p.is_file())


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*.md"))
        if not p.name.startswith(".")
    }


@pytest.mark.slow
def test_a_kill_between_commit_and_cleanup_is_finished_by_the_next_open(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Slow (about 35 s): 24 rounds, each a child process that loads the model, remembers,
    commits and is killed, then a full open that finishes the owed cleanup."""
    db = tmp_path / "store" / "memory.db"
    workspace = tmp_path / "workspace"
    with Lethe.open(db, embedder=embedder, workspace_dir=workspace) as mem:
        mem.remember_many(
            Draft(content=f"Filler note {n} about the garden, the kitchen and the car")
            for n in range(FILLER)
        )
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    for round_number in range(ROUNDS):
        action = ACTIONS[round_number % len(ACTIONS)]
        canary = f"Canary {round_number}: the vault code is quartz-{round_number:03d}-zebra"
        token = f"quartz-{round_number:03d}-zebra".encode()
        child = subprocess.run(
            [sys.executable, "-c", CHILD, str(db), str(workspace), canary, action],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert child.returncode == -signal.SIGKILL, (action, child.stderr[-2000:])
        assert "survived" not in child.stdout
        memory_id = child.stdout.split()[0]
        vector = embedder.embed([canary])[0].astype("<f4").tobytes()
        if action.startswith("purge"):
            with Lethe.open(db, embedder=embedder) as probe:  # the row is gone at commit
                assert probe.store.get(memory_id) is None
            # Until the cleanup is finished the text may still be on disk; that is the gap
            # the owed work closes.
        with Lethe.open(db, embedder=embedder, workspace_dir=workspace) as mem:
            assert mem.store.owed() == [], "the open finished what the killed process owed"
            fresh = tmp_path / f"fresh-{round_number}"
            Workspace(fresh, mem._core.fetch_for_workspace).rebuild(["default"])
            assert tree(workspace) == tree(fresh), (action, "workspace out of step")
            gone = action.startswith("purge") or action == "forget"
            workspace_text = "".join(tree(workspace).values())
            assert (canary in workspace_text) is not gone, action
            if action.startswith("purge"):
                for path in files_of(db):
                    raw = path.read_bytes()
                    assert token not in raw, (action, path.name)
                    if ".vectors." in path.name:  # ids may stay in the audit, not here
                        assert memory_id.encode() not in raw, path.name
                    assert vector not in raw, (action, path.name, "the canary's vector")
                assert mem.recall(canary, k=3)[0].memory.id != memory_id
