"""A purge whose process ends after its commit, before its receipt is kept (issue 43): the
next open finishes the owed cleanup and signs the receipt, or `receipts()` lists the purge as
having none — never silence, and never a receipt that claims a check that did not run.

A child process purges a canary and is killed with SIGKILL at one point after the commit:
before the cleanup, during the byte scan, or with its receipt signed but not kept. The parent
then opens the store as any next process would. Another child is paused after its commit
instead: an open meanwhile must leave that receipt to it. Both stores.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from tests.backends import is_postgres, live_ids, run_sql, sqlite_only

CANARY = "The storage unit of Perpetua Vandersloot opens with code 58-KAPPA-2291"
WORDS = ("58-KAPPA-2291", "Perpetua", "Vandersloot")

PURGER = textwrap.dedent(
    """
    import os, signal, sys
    from lethe import Lethe

    db, memory_id, point = sys.argv[1:4]

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    with Lethe.open(db) as mem:
        if point == "commit":
            mem._proof.owe_receipt = die
        elif point == "cleanup":
            mem.store.compact = die
        elif point == "scan":
            mem._proof._scan = die
        elif point == "keep":
            mem.store.save_receipt = die
        elif point == "pause":
            compact = mem.store.compact

            def paused():
                print("committed", flush=True)
                sys.stdin.readline()
                return compact()

            mem.store.compact = paused
        plan = mem.plan_purge([memory_id])
        print(plan.id, flush=True)
        result = mem.execute(plan)
        print("survived", result.receipt["status"], flush=True)
    """
)


@pytest.fixture
def own_keys(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """PostgreSQL's receipt keys under this test's folder (the children inherit it)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


def _canary(db: str, embedder: Embedder) -> tuple[str, str]:
    """(the canary's id, an ordinary memory's id) in a fresh store."""
    with Lethe.open(db, embedder=embedder) as mem:
        keep = mem.remember("An ordinary note about the garden shed")
        return mem.remember(CANARY).id, keep.id


def _killed(db: str, memory_id: str, point: str) -> str:
    """Run the purger until the kill; returns its plan's id."""
    child = subprocess.run(
        [sys.executable, "-c", PURGER, db, memory_id, point],
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    assert "survived" not in child.stdout
    return child.stdout.split()[0]


def _owed(db: str) -> list[dict[str, Any]]:
    """The owed work as the table holds it (PostgreSQL's jsonb comes back decoded)."""
    rows = run_sql(db, "SELECT work FROM owed_work ORDER BY id")
    return [w if isinstance(w, dict) else json.loads(w) for (w,) in rows]


def _unchecked(mem: Lethe, receipt: dict[str, Any], plan_id: str, memory_id: str) -> None:
    """A receipt of an interrupted purge: signed, true of the store, and saying it is not
    proven because nothing was scanned or probed."""
    assert receipt["plan_id"] == plan_id
    assert [m["id"] for m in receipt["memories"]] == [memory_id]
    assert receipt["status"] == "incomplete"
    assert "before its own check" in receipt["interrupted"]["why"]
    assert receipt["scan"]["ran"] is False and receipt["scan"]["files"] == []
    assert receipt["probes"]["ran"] is False and receipt["probes"]["clean"] is False
    assert any("not run" in limit for limit in receipt["limits"])
    assert mem.verify_receipt(receipt) == []
    dumped = json.dumps(receipt).lower()
    assert not any(w.lower() in dumped for w in WORDS)  # never the erased words


@pytest.mark.parametrize("point", ["cleanup", "scan", "keep"])
def test_a_purge_killed_after_its_commit_gets_its_receipt_at_the_next_open(
    db: str, embedder: Embedder, own_keys: None, point: str
) -> None:
    canary, keep = _canary(db, embedder)
    plan_id = _killed(db, canary, point)
    assert live_ids(db) == {keep}, "the purge committed"
    [promise] = [w["receipt"] for w in _owed(db) if "receipt" in w]
    assert promise["plan_id"] == plan_id, "the commit itself promised the receipt"
    assert not any(w.lower() in json.dumps(promise).lower() for w in WORDS)

    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.store.owed() == [], "the open finished the cleanup and the receipt"
        [receipt] = mem.receipts()
        _unchecked(mem, receipt, plan_id, canary)
        assert receipt["cleanup_done"] is True
        assert mem.receipt(receipt["receipt_id"]) == receipt
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.receipts() == [receipt], "one purge, one receipt"
    if not is_postgres(db):
        left = [p.name for p in Path(db).parent.iterdir() if ".purging-" in p.name]
        assert left == [], "the killed process's claim file is cleared"


def test_an_open_that_cannot_sign_lists_the_purge_as_interrupted(
    db: str, embedder: Embedder, own_keys: None
) -> None:
    """A receipt key others can read is refused: the open goes on, the promise stays owed,
    and `receipts()` names the purge without a receipt until an open can sign it."""
    canary, _ = _canary(db, embedder)
    with Lethe.open(db, embedder=embedder) as mem:
        key = mem.store.signing_key_path()
    plan_id = _killed(db, canary, "cleanup")
    os.chmod(key, 0o644)
    with Lethe.open(db, embedder=embedder) as mem:
        [listed] = mem.receipts()
        assert listed["receipt_id"] is None and listed["status"] == "no receipt: interrupted"
        assert listed["plan_id"] == plan_id
        assert [m["id"] for m in listed["memories"]] == [canary]
        assert mem.receipts(offset=1) == []
    os.chmod(key, 0o600)
    with Lethe.open(db, embedder=embedder) as mem:
        [receipt] = mem.receipts()
        _unchecked(mem, receipt, plan_id, canary)


def test_an_open_while_the_purge_is_still_checked_leaves_the_receipt_to_it(
    db: str, embedder: Embedder, own_keys: None
) -> None:
    """The purging process is paused after its commit (alive, its claim held): an open
    meanwhile finishes the cleanup but signs nothing, and lists the purge as being checked;
    the process then keeps its own, checked receipt — the only one."""
    canary, _ = _canary(db, embedder)
    child = subprocess.Popen(
        [sys.executable, "-c", PURGER, db, canary, "pause"],
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        plan_id = child.stdout.readline().split()[0]
        assert child.stdout.readline().strip() == "committed"
        with Lethe.open(db, embedder=embedder) as mem:
            [listed] = mem.receipts()
            assert listed["receipt_id"] is None
            assert listed["status"] == "no receipt yet: being checked"
            assert listed["plan_id"] == plan_id
        child.stdin.write("go on\n")
        child.stdin.flush()
        out, err = child.communicate(timeout=300)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, err[-2000:]
    assert out.split() == ["survived", "erased"]
    with Lethe.open(db, embedder=embedder) as mem:
        [receipt] = mem.receipts()
        assert receipt["plan_id"] == plan_id and receipt["status"] == "erased"
        assert "interrupted" not in receipt
        assert mem.store.owed() == []


def test_a_two_call_purge_that_fails_after_its_commit_is_receipted_by_maintain(
    db: str, embedder: Embedder, own_keys: None
) -> None:
    """The two-call path promises its receipt too. Here the cleanup raises instead of a kill
    (the process lives on, its claim let go when the call unwinds): `maintain` signs it."""
    canary, keep = _canary(db, embedder)
    with Lethe.open(db, embedder=embedder) as mem:
        mem.forget([canary], session="s-1", operation="purge")
        compact = mem.store.compact

        def broken() -> bool:
            raise RuntimeError("the cleanup died")

        mem.store.compact = broken  # type: ignore[method-assign]
        with pytest.raises(RuntimeError):
            mem.forget([canary], session="s-1", operation="purge")
        mem.store.compact = compact  # type: ignore[method-assign]
        assert live_ids(db) == {keep} and mem.receipts()[0]["status"] == "no receipt: interrupted"
        mem.maintain()
        [receipt] = mem.receipts()
        assert receipt["confirmed"]["via"] == "two_call"
        _unchecked(mem, receipt, receipt["plan_id"], canary)


def test_a_purge_whose_claim_was_taken_for_let_go_returns_the_receipt_the_store_keeps(
    db: str, embedder: Embedder, own_keys: None
) -> None:
    """Another process finds the claim not held while the purge is still checked (PostgreSQL
    dropped the claim's connection; the file was looked for under another name) and signs the
    unchecked receipt first. The purging process's own receipt is then refused by the store:
    the call must return the receipt the store keeps, the purge's only one, not one that
    `receipt(id)` and `verify_receipt` know nothing of."""
    canary, _ = _canary(db, embedder)
    with Lethe.open(db, embedder=embedder) as mem:
        scan = mem._proof._scan
        signed: list[int] = []

        def meanwhile(*args: Any) -> Any:
            if not signed:
                with Lethe.open(db, embedder=embedder) as other:
                    assert other.receipts()[0]["status"] == "no receipt yet: being checked"
                    other.store.claim_held = lambda token: False  # type: ignore[method-assign]
                    other.settle_owed()
                    signed.append(len(other.store.receipts()))
            return scan(*args)

        mem._proof._scan = meanwhile  # type: ignore[method-assign]
        plan = mem.plan_purge([canary])
        result = mem.execute(plan)
        assert signed == [1], "the other process signed the receipt first"
        receipt = result.receipt
        assert receipt is not None
        assert mem.receipt(receipt["receipt_id"]) == receipt, "the receipt returned is kept"
        assert mem.receipts() == [receipt], "one purge, one receipt"
        _unchecked(mem, receipt, plan.id, canary)
        assert "NOT proven" in result.notes, "an unchecked receipt is no proof"
        assert "did not run" in result.notes and "NOT proven: ;" not in result.notes
        assert mem.store.owed() == []


@sqlite_only
def test_a_claim_file_left_by_a_purge_killed_before_its_commit_is_removed_at_the_next_open(
    db: str, embedder: Embedder, own_keys: None
) -> None:
    """Killed inside its transaction: nothing was purged and no promise names the claim, so
    no `claim_held` would ever clear its file. The next open removes it."""
    canary, keep = _canary(db, embedder)
    _killed(db, canary, "commit")
    assert live_ids(db) == {canary, keep}, "the purge did not commit"
    folder = Path(db).parent
    assert [p for p in folder.iterdir() if ".purging-" in p.name], "the kill left its claim"
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.receipts() == [] and mem.store.owed() == []
    assert [p.name for p in folder.iterdir() if ".purging-" in p.name] == []
