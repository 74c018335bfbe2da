"""Recall as of a past moment at scale (issue 25): p50 beside plain recall in the same run,
on a store where a tenth of the memories have three versions.

A SQLite store is filled through SQL (as bench_ui.py does: real texts, random unit vectors,
created over two years); then a tenth of the memories get two earlier states each (texts
and vectors of their own, the changes at random moments between creation and now), written
as `update` would have. Plain recall and recall `as_of` a random past moment then alternate
on the same queries. The first `as_of` call loads the earlier states (reported apart).

Correctness is measured too: for each moment, the vector side's top 10 is compared with an
exact brute-force ranking of the states every live memory had then (computed here in numpy
from the rows), which also shows the int8 prefilter losing nothing.

    python bench/bench_as_of.py                     # 100,000 memories, 10,000 with 3 versions
    python bench/bench_as_of.py --size 20000
"""

from __future__ import annotations

import argparse
import json
import random
import sqlite3
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from bench_ui import fill
from common import log, machine, stats_ms, write_json

from lethe import Lethe
from lethe.embed import load_default_embedder

DIM = 384


def add_versions(db: Path, share: float, seed: int = 11) -> int:
    """Two earlier states for `share` of the memories; returns how many memories changed."""
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed)
    now = time.time()
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT id, content, created_at, agent, layer FROM memories").fetchall()
    chosen = rng.sample(rows, int(len(rows) * share))
    versions, updates = [], []
    for memory_id, content, created, agent, layer in chosen:
        first, second = sorted(rng.uniform(created, now) for _ in range(2))
        spans = [(1, created, first), (2, first, second)]
        for version, start, until in spans:
            vector = vectors.standard_normal(DIM).astype(np.float32)
            vector /= np.linalg.norm(vector)
            text = f"{content} [as written in version {version}]"
            versions.append(
                (
                    memory_id,
                    version,
                    agent,
                    text,
                    f"{version:064x}",
                    layer,
                    0.5,
                    start,
                    until,
                    agent,
                    "remember" if version == 1 else "update",
                    vector.tobytes(),
                )
            )
        updates.append((second, memory_id))
    conn.executemany(
        """INSERT INTO memory_versions (memory_id, version, agent, content, content_sha256,
           layer, importance, valid_from, valid_until, actor, op, embedding)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        versions,
    )
    conn.executemany("UPDATE memories SET updated_at = ?, version = 3 WHERE id = ?", updates)
    conn.commit()
    conn.close()
    return len(chosen)


def exact_top(db: Path, query: np.ndarray, at: float, k: int) -> list[str]:
    """The k best states at `at` by exact dot product, from the rows."""
    conn = sqlite3.connect(db)
    ids, blobs = [], []
    for memory_id, blob in conn.execute(
        "SELECT id, embedding FROM memories WHERE status = 'active' AND updated_at <= ?", (at,)
    ):
        ids.append(memory_id)
        blobs.append(blob)
    for memory_id, blob in conn.execute(
        """SELECT memory_id, embedding FROM memory_versions
           WHERE valid_from <= ? AND valid_until > ?""",
        (at, at),
    ):
        ids.append(memory_id)
        blobs.append(blob)
    conn.close()
    matrix = np.frombuffer(b"".join(blobs), dtype="<f4").reshape(-1, DIM)
    scores = matrix @ query
    return [ids[i] for i in np.argsort(-scores, kind="stable")[:k]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--share", type=float, default=0.1, help="memories with 3 versions")
    parser.add_argument("--runs", type=int, default=40, help="recalls per variant")
    args = parser.parse_args()
    embedder = load_default_embedder()
    rng = random.Random(5)
    queries = ["dentist appointment", "trip to Japan", "coffee", "work at Stripe", "my sister"]
    results: dict[str, object] = {"size": args.size, "share": args.share, "machine": machine()}
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "as_of.db"
        log(f"filling {args.size:,} memories")
        fill(db, args.size)
        changed = add_versions(db, args.share)
        log(f"{changed:,} memories with three versions")
        now = datetime.now(UTC)
        with Lethe.open(db, embedder=embedder) as m:
            m.recall(queries[0], touch=False)  # the vector index loaded
            start = time.perf_counter()
            m.recall(queries[0], touch=False, as_of=now)
            first_s = time.perf_counter() - start
            plain: list[float] = []
            past: list[float] = []
            agree: list[float] = []
            for n in range(args.runs):
                q = queries[n % len(queries)]
                at = datetime.fromtimestamp(
                    rng.uniform(now.timestamp() - 700 * 86400, now.timestamp()), UTC
                )
                start = time.perf_counter()
                m.recall(q, touch=False)
                plain.append(time.perf_counter() - start)
                start = time.perf_counter()
                m.recall(q, touch=False, as_of=at)
                past.append(time.perf_counter() - start)
                if n < 10:
                    vector = embedder.embed([q])[0]
                    by_vector, _ = m.store.search_at(vector, q, "default", at, 10)
                    got = [i for i, _, _ in by_vector]
                    want = exact_top(db, vector, at.timestamp(), 10)
                    agree.append(len(set(got) & set(want)) / 10)
    p, a = stats_ms(plain), stats_ms(past)
    results |= {
        "memories_with_3_versions": changed,
        "first_as_of_s": round(first_s, 3),
        "recall": p,
        "recall_as_of": a,
        "ratio_p50": round(a["p50_ms"] / p["p50_ms"], 3),
        "vector_top10_agreement_with_exact": round(float(np.mean(agree)), 4),
    }
    print(f"first as_of recall (loads the earlier states): {first_s * 1000:.0f} ms")
    print(
        f"recall p50 {p['p50_ms']:.2f} ms (p95 {p['p95_ms']:.2f}); as_of p50 {a['p50_ms']:.2f} ms "
        f"(p95 {a['p95_ms']:.2f}); ratio {a['p50_ms'] / p['p50_ms']:.2f}x"
    )
    print(f"as_of vector top-10 agreement with exact states-at-T: {np.mean(agree):.3f}")
    print(json.dumps({k: results[k] for k in ("ratio_p50", "first_as_of_s")}))
    write_json(f"as_of-{args.size}", results)


if __name__ == "__main__":
    main()
