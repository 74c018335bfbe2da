"""The claim a purge holds on a SQLite store while it is proved (a locked file beside the
database, `store/sqlite_proof.py`): found by every process whatever name it opens the store
by, never left behind by a process that died, and never lost between its making and its lock.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.store import sqlite_proof
from lethe.store.sqlite import SQLiteStore

STALE = "0123456789abcdef"
HELD = "fedcba9876543210"


@pytest.fixture
def store(db_path: Path) -> Iterator[SQLiteStore]:
    opened = SQLiteStore(db_path, embedder="test-embedder", dim=4)
    yield opened
    opened.close()


def _claims(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".purging-" in p.name)


def _status_meanwhile(mem: Lethe, real: Path, embedder: Embedder) -> list[str]:
    """While `mem` checks its purge, the status another open of `real` lists for it."""
    seen: list[str] = []
    scan = mem._proof._scan

    def meanwhile(*args: Any) -> Any:
        if not seen:
            with Lethe.open(real, embedder=embedder) as other:
                seen.extend(r["status"] for r in other.receipts())
        return scan(*args)

    mem._proof._scan = meanwhile  # type: ignore[method-assign]
    return seen


def test_a_store_opened_through_a_symbolic_link_is_claimed_beside_its_file(
    tmp_path: Path, db_path: Path, embedder: Embedder
) -> None:
    """An open through the real path must see the claim of a purge made through a link
    (else it signs an unchecked receipt for a purge still being checked); the receipt key,
    the WAL the scan reads and the claims are the real file's."""
    with Lethe.open(db_path, embedder=embedder) as mem:
        canary = mem.remember("The locker of Ottoline Brackenbury opens with 4471-ZETA").id
    link = tmp_path / "elsewhere" / "link.db"
    link.parent.mkdir()
    link.symlink_to(db_path)
    with Lethe.open(link, embedder=embedder) as mem:
        seen = _status_meanwhile(mem, db_path, embedder)
        result = mem.execute(mem.plan_purge([canary]))
        assert result.receipt is not None
        scanned = {f["path"] for f in result.receipt["scan"]["files"]}
    assert seen == ["no receipt yet: being checked"]
    assert result.receipt["status"] == "erased"
    assert "memory.db-wal" in scanned
    assert [p.name for p in link.parent.iterdir()] == ["link.db"], "nothing beside the link"
    assert (tmp_path / "memory.db.receipt-key").is_file()


def test_a_store_opened_by_a_relative_path_keeps_its_files_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, embedder: Embedder
) -> None:
    """The working folder may change while the store is open: the claim and the receipt key
    stay beside the database, where another process looks for them."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "away").mkdir()
    with Lethe.open("memory.db", embedder=embedder) as mem:
        canary = mem.remember("The locker of Ottoline Brackenbury opens with 4471-ZETA").id
        monkeypatch.chdir(tmp_path / "away")
        seen = _status_meanwhile(mem, tmp_path / "memory.db", embedder)
        result = mem.execute(mem.plan_purge([canary]))
    assert seen == ["no receipt yet: being checked"]
    assert result.receipt is not None and result.receipt["status"] == "erased"
    assert list((tmp_path / "away").iterdir()) == []
    assert (tmp_path / "memory.db.receipt-key").is_file()


def test_an_open_removes_the_claims_nobody_holds(db_path: Path) -> None:
    """A process killed before its purge committed leaves a claim no promise names: the next
    open removes it, and leaves what a live purge holds and what is no claim of lethe's."""
    SQLiteStore(db_path, embedder="test-embedder", dim=4).close()
    folder = db_path.parent
    stale = folder / f"memory.db.purging-{STALE}"
    stale.write_bytes(b"")
    held = folder / f"memory.db.purging-{HELD}"
    held.write_bytes(b"")
    other = folder / "memory.db.purging-notes"
    other.write_text("not a claim")
    linked = folder / "memory.db.purging-aaaaaaaaaaaaaaaa"
    linked.symlink_to(other)
    fd = os.open(held, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        SQLiteStore(db_path, embedder="test-embedder", dim=4).close()
    finally:
        os.close(fd)
    assert _claims(folder) == sorted(p.name for p in (held, other, linked))


def test_a_claim_cleared_before_it_was_locked_is_made_again(
    store: SQLiteStore, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another open may clear the claim file between its making and its lock (nobody holds
    it yet): a lock on the removed file would claim nothing another process can see."""
    flock = sqlite_proof._flock
    cleared: list[bool] = []

    def late(fd: int, *, wait: bool) -> bool:
        if wait and not cleared:
            cleared.append(True)
            SQLiteStore(db_path, embedder="test-embedder", dim=4).close()  # clears it
        return flock(fd, wait=wait)

    monkeypatch.setattr(sqlite_proof, "_flock", late)
    with store.claim() as token:
        assert cleared == [True]
        monkeypatch.setattr(sqlite_proof, "_flock", flock)
        assert _claims(db_path.parent) == [f"memory.db.purging-{token}"]
        other = SQLiteStore(db_path, embedder="test-embedder", dim=4)
        try:
            assert other.claim_held(token), "another process sees the claim"
        finally:
            other.close()
    assert _claims(db_path.parent) == []


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="reads /proc/self/fd")
def test_a_claim_is_closed_before_its_file_is_removed(
    store: SQLiteStore, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Windows cannot remove a file that is open: removed first, the claim's file would stay
    behind there. Emulated here: removing a claim file this process has open fails."""
    unlink = Path.unlink

    def as_on_windows(self: Path, missing_ok: bool = False) -> None:
        if ".purging-" in self.name:
            for fd in os.listdir("/proc/self/fd"):
                try:
                    target = os.readlink(f"/proc/self/fd/{fd}")
                except OSError:  # the listing's own descriptor, closed since
                    continue
                if target == str(self):
                    raise PermissionError(13, "the file is open", str(self))
        unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", as_on_windows)
    with store.claim():
        assert len(_claims(db_path.parent)) == 1
    assert _claims(db_path.parent) == []
