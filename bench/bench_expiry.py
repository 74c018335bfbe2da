"""Expiry at scale (issue 25): turning due expiries into soft deletes, beside forgetting the same
memories by plan, in the same run; and what the check costs a read when nothing is due.

Two SQLite stores are filled through SQL (as bench_ui.py does: real texts, random unit
vectors, no embedding), each with `--size` memories of which `--due` carry an expiry that has
passed. On the first, one read (`list_memories`, which first turns due memories into soft
deletes) does all of it: memories/s. On the second, the same memories are forgotten the way a
person would: `plan_forget` by ids (100 per plan, the API's limit) and `execute`: memories/s.
Then recall p50 with the expiry check (nothing due) beside recall with the check skipped.

    python bench/bench_expiry.py                    # 100,000 memories, 10,000 due
    python bench/bench_expiry.py --size 20000 --due 2000
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from bench_ui import fill
from common import log, machine, stats_ms, write_json

from lethe import Lethe
from lethe.embed import load_default_embedder


def prepared(db: Path, size: int, due: int, when: datetime) -> list[str]:
    """`size` memories, the last `due` of them expiring at `when` (set by the user a day
    before)."""
    fill(db, size)
    conn = sqlite3.connect(db)
    ids = [r[0] for r in conn.execute("SELECT id FROM memories ORDER BY num DESC LIMIT ?", (due,))]
    conn.executemany(
        "UPDATE memories SET expires_at = ?, expiry_set_by = 'user', expiry_set_at = ? "
        "WHERE id = ?",
        [(when.timestamp(), (when - timedelta(days=1)).timestamp(), i) for i in ids],
    )
    conn.commit()
    conn.close()
    return ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--due", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=40, help="recalls per variant")
    args = parser.parse_args()
    embedder = load_default_embedder()
    when = datetime.now(UTC) - timedelta(hours=1)
    results: dict[str, object] = {"size": args.size, "due": args.due, "machine": machine()}
    with tempfile.TemporaryDirectory() as tmp:
        expiring, forgetting = Path(tmp) / "expiring.db", Path(tmp) / "forgetting.db"
        log(f"filling two stores of {args.size:,} memories, {args.due:,} due")
        prepared(expiring, args.size, args.due, when)
        ids = prepared(forgetting, args.size, args.due, when)
        conn = sqlite3.connect(forgetting)
        conn.execute("UPDATE memories SET expires_at = NULL, expiry_set_by = NULL")
        conn.commit()
        conn.close()

        clock = [when - timedelta(days=1)]  # before the expiry: opening expires nothing
        with Lethe.open(expiring, embedder=embedder, clock=lambda: clock[0]) as m:
            m.list_memories(limit=1)  # the vector index loaded
            clock[0] = datetime.now(UTC)
            start = time.perf_counter()
            expired = m.expire_due()
            expire_s = time.perf_counter() - start
        assert len(expired) == args.due, (len(expired), args.due)

        with Lethe.open(forgetting, embedder=embedder) as m:
            m.list_memories(limit=1)
            start = time.perf_counter()
            for n in range(0, len(ids), 100):
                m.execute(m.plan_forget(ids[n : n + 100]))
            forget_s = time.perf_counter() - start
            trashed = m.list_trash(limit=1)[1]
        assert trashed == args.due, trashed

        with Lethe.open(expiring, embedder=embedder) as m:
            queries = ["dentist appointment", "trip to Japan", "coffee", "work at Stripe"]
            m.recall(queries[0])
            checked: list[float] = []
            skipped: list[float] = []
            check = m.expire_due
            for n in range(args.runs):
                q = queries[n % len(queries)]
                start = time.perf_counter()
                m.recall(q, touch=False)
                checked.append(time.perf_counter() - start)
                m.expire_due = lambda: []  # type: ignore[method-assign]
                start = time.perf_counter()
                m.recall(q, touch=False)
                skipped.append(time.perf_counter() - start)
                m.expire_due = check  # type: ignore[method-assign]

    results |= {
        "expire_due_per_s": round(args.due / expire_s),
        "expire_due_s": round(expire_s, 2),
        "forget_by_plan_per_s": round(args.due / forget_s),
        "forget_by_plan_s": round(forget_s, 2),
        "recall_with_check": stats_ms(checked),
        "recall_without_check": stats_ms(skipped),
    }
    print(f"expire {args.due:,} due memories: {expire_s:.2f} s, {args.due / expire_s:,.0f}/s")
    print(f"forget them by plan (100 ids a plan): {forget_s:.2f} s, {args.due / forget_s:,.0f}/s")
    c, s = stats_ms(checked), stats_ms(skipped)
    print(
        f"recall p50 with the expiry check {c['p50_ms']:.2f} ms, without {s['p50_ms']:.2f} ms "
        f"({c['p50_ms'] / s['p50_ms']:.2f}x)"
    )
    write_json(f"expiry-{args.size}", results)


if __name__ == "__main__":
    main()
