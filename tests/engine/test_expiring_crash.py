"""A crash while due expiries are executed (issue 25): a process killed with SIGKILL in the
middle of turning due memories into soft deletes leaves every memory either live with no
`expire` event or in the trash with exactly one, the vector index in step, and the rest done by
the next open."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.model import Draft
from tests.backends import is_postgres, run_sql

COUNT = 2000

WORKER = textwrap.dedent(
    """
    import sys
    from lethe import Lethe
    from lethe.embed import load_default_embedder
    embedder = load_default_embedder()
    embedder.embed(["warm up"])  # the model loads here, not in the kill window
    print("ready", flush=True)
    with Lethe.open(sys.argv[1], embedder=embedder) as mem:  # opening expires what is due
        print("done", flush=True)
    """
)


def _check(db: str, observer: Lethe) -> tuple[int, int]:
    """Every memory is consistent with its events; returns (live, expired)."""
    if not is_postgres(db):
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')")
        finally:
            conn.close()
    rows = run_sql(db, "SELECT id, status, forget_reason FROM memories")
    expires = dict(
        run_sql(db, "SELECT memory_id, count(*) FROM events WHERE op = 'expire' GROUP BY memory_id")
    )
    assert len(rows) == COUNT, "an expiry must never erase a memory"
    for memory_id, status, reason in rows:
        if status == "active":
            assert memory_id not in expires, f"{memory_id} live with an expire event"
        else:
            assert expires.get(memory_id) == 1, f"{memory_id} in the trash without one event"
            assert reason.startswith("expired at"), reason
    live = {i for i, s, _ in rows if s == "active"}
    if not is_postgres(db):
        assert observer.store.live_vector_ids() == live, "the long-lived index drifted"
    return len(live), len(rows) - len(live)


@pytest.mark.slow
def test_sigkill_while_due_expiries_run(db: str, embedder: Embedder) -> None:
    """On both stores: SQLite's rollback journal and PostgreSQL's aborted transaction of the
    killed client must both leave each batch all done or not at all."""
    rng = random.Random(20261125)
    with Lethe.open(db, embedder=embedder) as observer:
        observer.remember_many(
            Draft(content=f"Reminder {n}: parking spot {n % 97} on level {n % 5}")
            for n in range(COUNT)
        )
        past = time.time() - 60
        run_sql(
            db,
            "UPDATE memories SET expires_at = ?, expiry_set_by = 'user', expiry_set_at = ?",
            (past, past - 86400),
        )
        assert _check(db, observer) == (COUNT, 0)
        partial = 0
        live = COUNT
        for _ in range(20):
            child = subprocess.Popen(
                [sys.executable, "-c", WORKER, db],
                env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready", child.stderr.read()  # type: ignore[union-attr]
            # Opening takes a time that varies with the machine's load (a PostgreSQL client
            # connects and checks the schema; SQLite loads the index): wait for the first
            # batch to commit, then kill it within the next ones.
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and child.poll() is None:
                done = run_sql(db, "SELECT count(*) FROM memories WHERE status = 'forgotten'")
                if done[0][0] > COUNT - live:  # a batch more than the last round left
                    break
                time.sleep(0.002)
            time.sleep(rng.uniform(0.0, 0.03))
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=30)
            live, expired = _check(db, observer)
            partial += 0 < expired < COUNT
            if live == 0:
                break
        assert partial >= 1, "at least one kill must land between two batches of expiries"
        # Whatever the kills left due, the next open finishes; nothing is lost or doubled.
    with Lethe.open(db, embedder=embedder) as again:
        assert _check(db, again) == (0, COUNT)
        assert again.list_trash(limit=1)[1] == COUNT
