"""Crash safety: a writer killed with SIGKILL at random moments never leaves a broken store."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from lethe import Lethe
from lethe.embed import Embedder

KILLS = 50

WORKER = textwrap.dedent(
    """
    import random, sys
    from lethe import Lethe
    words = "amber birch cedar delta ember fjord grove harbor iris juniper kelp lotus".split()
    rng = random.Random(int(sys.argv[2]))
    with Lethe.open(sys.argv[1]) as mem:
        mem.embedder.embed(["warm up"])  # the model loads here, not in the kill window
        print("ready", flush=True)
        while True:
            live = [m.id for m in mem.list_memories(limit=200).items]
            trash = [t.memory.id for t in mem.list_trash(limit=200)[0]]
            roll = rng.random()
            if roll < 0.35 or len(live) < 4:
                text = " ".join(rng.choice(words) for _ in range(6))
                m = mem.remember(f"Note about {text}", allow_duplicate=True)
                if live:
                    mem.link(m.id, rng.choice(live), kind="see_also", confidence=0.5)
            elif roll < 0.6:
                mem.execute(mem.plan_forget([rng.choice(live)]))
            elif roll < 0.8 and trash:
                mem.restore(rng.choice(trash))
            elif trash:
                mem.execute(mem.plan_purge([rng.choice(trash)]))
            else:
                mem.execute(mem.plan_purge([rng.choice(live)]))
    """
)


def check_invariants(db_path: Path, observer: Lethe) -> None:
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')")
        dangling = conn.execute(
            """SELECT count(*) FROM links l
               WHERE NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.a)
                  OR NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = l.b)"""
        ).fetchone()[0]
        assert dangling == 0
        rows = dict(conn.execute("SELECT id, status FROM memories").fetchall())
        history: dict[str, list[str]] = {}
        recorded_links: set[frozenset[str]] = set()
        for memory_id, op, details in conn.execute(
            "SELECT memory_id, op, details FROM events WHERE memory_id IS NOT NULL ORDER BY seq"
        ):
            history.setdefault(memory_id, []).append(op)
            data = json.loads(details) if details else {}
            if op == "link" and "other" in data:  # a purge redacts its memory's events
                recorded_links.add(frozenset((memory_id, data["other"])))
            if op == "remember":
                recorded_links.update(frozenset((memory_id, o)) for o in data.get("links", {}))
        for a, b in conn.execute("SELECT a, b FROM links"):
            assert frozenset((a, b)) in recorded_links, f"link {a}-{b} has no event"
    finally:
        conn.close()

    for memory_id, status in rows.items():
        ops = history.get(memory_id, [])
        assert ops and ops[0] == "remember", f"{memory_id} has no remember event"
        lifecycle = [op for op in ops if op in ("forget", "restore")]
        expected = "forgotten" if lifecycle and lifecycle[-1] == "forget" else "active"
        assert status == expected, f"{memory_id} is {status} but its events say {expected}"
    for memory_id, ops in history.items():
        if memory_id not in rows:
            assert ops[-1] in ("purge", "expire"), f"{memory_id} vanished without a purge event"

    live = {i for i, s in rows.items() if s == "active"}
    assert observer.store.live_vector_ids() == live, "the long-lived index drifted"
    with Lethe.open(db_path, embedder=observer.embedder) as fresh:
        assert fresh.store.live_vector_ids() == live
        if live:
            hits = fresh.recall("note about amber birch", k=20)
            assert {h.memory.id for h in hits} <= live


@pytest.mark.slow
def test_sigkill_at_random_moments_keeps_the_store_consistent(
    db_path: Path, embedder: Embedder
) -> None:
    """Slow (about 45 s): 50 child processes, each opening the store and loading the model
    before it is killed; fewer kills would leave fewer moments of the write path tried."""
    rng = random.Random(20261122)
    with Lethe.open(db_path, embedder=embedder) as observer:
        observer.remember("Note about the start of the crash test")
        killed_mid_work = 0
        for round_number in range(KILLS):
            child = subprocess.Popen(
                [sys.executable, "-c", WORKER, str(db_path), str(round_number)],
                # One BLAS thread: on a loaded 2-core machine OpenBLAS's threads make each
                # embedding many times slower and the kill windows would hold no work.
                env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready", child.stderr.read()  # type: ignore[union-attr]
            time.sleep(rng.uniform(0.02, 0.4))
            if child.poll() is None:
                killed_mid_work += 1
            os.kill(child.pid, signal.SIGKILL)
            child.wait(timeout=30)
            assert child.returncode == -signal.SIGKILL, child.stderr.read()  # type: ignore[union-attr]
            check_invariants(db_path, observer)
        assert killed_mid_work == KILLS, "every kill must land while the worker is writing"
        events = observer.audit(limit=10_000)
        assert len(events) >= KILLS, "the workers must have done real work between kills"
        assert len({e.op for e in events} & {"remember", "forget", "restore", "purge"}) == 4
