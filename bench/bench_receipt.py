"""Proof of erasure (issue 27): what the scan, the recall probes and the signed receipt add to
a purge, at 100k memories.

One SQLite store is filled through SQL (as bench_ui.py does: random unit vectors of the
model's size, no embedding of the store) with the corpus' sentences, each with its own
identifiers (ticket and order numbers, phone numbers, e-mail addresses, booking references,
door codes, invoice numbers), so the token scan has names, numbers and codes to look for and
every text is distinct. The built store can be kept with `--cache` and is copied before each
run (the cache itself is never modified).

In one process, interleaved so both sides see the same minutes of the machine:

- purge of 1 memory (`execute(plan_purge([id]))`, plan included) with the proof (the
  default: scan of every file lethe owns, retry if needed, recall probes, signed receipt
  stored) and without it (the same purge with the engine's `_prove` replaced by a function
  returning None: no receipt);
- purge of 100 memories in one plan, the same two ways.

The proof's own time is split by timing wrappers: `scan` (the byte scan of the files), the
holder look-up for needles found (`_where_held`), `_probe` (of which the query
embedding), and the rest (needles, receipt, signature, storing it). Every receipt's status
is checked; an "incomplete" receipt is reported with the kind of the needle left, the file
and the needle itself (recovered from the texts purged, which the bench keeps).

    OPENBLAS_NUM_THREADS=1 python bench/bench_receipt.py --cache /tmp/lethe-receipt-100000.db
    python bench/bench_receipt.py --n 10000 --reps-one 5 --reps-many 3
"""

from __future__ import annotations

import argparse
import hashlib
import random
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import corpus
import numpy as np
from common import TimedEmbedder, log, machine, stats_ms, write_json

import lethe.engine.proof as proof_module
from lethe import Lethe
from lethe.embed import load_default_embedder
from lethe.erasure.tokens import MIN_BYTES, MIN_NUMBER, distinctive, forms, windows
from lethe.store import sqlite_grams

DAY = 86400.0
DIM = 384
DOMAINS = ["example.org", "mail.example.com", "posteo.example", "corp.example.net"]
LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"


def _identifier(rng: random.Random, name: str) -> str:
    """One identifier clause of the kinds people ask an agent to keep."""
    kind = rng.randrange(8)
    if kind == 0:
        return f"Ticket INC-{rng.randrange(100000, 999999)} tracks it."
    if kind == 1:
        return f"Order #{rng.randrange(1000000, 9999999)} was placed for it."
    if kind == 2:
        return (
            f"{name}'s phone is +{rng.choice([33, 34, 44, 49, 351])} "
            f"{rng.randrange(600, 999)} {rng.randrange(100, 999)} {rng.randrange(100, 999)}."
        )
    if kind == 3:
        return (
            f"Write to {name.lower()}.{rng.choice(corpus.NAMES).lower()}"
            f"{rng.randrange(10, 99)}@{rng.choice(DOMAINS)} about it."
        )
    if kind == 4:
        ref = "".join(rng.choice(LETTERS) for _ in range(2)) + str(rng.randrange(1000, 9999))
        return f"Booking reference {ref}."
    if kind == 5:
        return f"The door code at {name}'s is {rng.randrange(1000, 9999)}."
    if kind == 6:
        invoice = f"{rng.randrange(2019, 2027)}-{rng.randrange(10000, 99999)}"
        return f"Invoice {invoice} came to €{rng.randrange(20, 4000)}.{rng.randrange(10, 99)}."
    sort = "-".join(str(rng.randrange(10, 99)) for _ in range(3))
    return f"Account number {rng.randrange(10**9, 10**10)}, sort code {sort}."


def texts(n: int, seed: int) -> list[str]:
    """The corpus' sentences, most with one or two identifier clauses (a tenth with none)."""
    rng = random.Random(seed)
    out: list[str] = []
    for draft in corpus.drafts(n, seed):
        clauses = rng.choices([0, 1, 2], weights=[1, 6, 3])[0]
        extra = [_identifier(rng, rng.choice(corpus.NAMES)) for _ in range(clauses)]
        out.append(" ".join([draft.content, *extra]))
    return out


def fill(db: Path, n: int, seed: int) -> float:
    """Memories and their `remember` events through SQL (as bench_ui.fill); returns seconds."""
    with Lethe.open(db, embedder=load_default_embedder()):
        pass  # lethe's own schema and migrations
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed)
    now = time.time()
    contents = texts(n, seed)
    start = time.perf_counter()
    conn = sqlite3.connect(db)
    sqlite_grams.register(conn)  # the gram index's triggers call it on every insert
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = OFF")
    rows: list[tuple[Any, ...]] = []
    events: list[tuple[Any, ...]] = []

    def flush() -> None:
        conn.executemany(
            """INSERT INTO memories (id, namespace, agent, content, content_sha256, layer,
               importance, created_at, updated_at, embedding)
               VALUES (?, 'default', ?, ?, ?, ?, ?, ?, ?, ?)""",
            rows,
        )
        conn.executemany(
            """INSERT INTO events (at, op, memory_id, namespace, actor, details, content_sha256)
               VALUES (?, 'remember', ?, 'default', ?, '{}', ?)""",
            events,
        )
        rows.clear()
        events.clear()

    for i, content in enumerate(contents):
        memory_id = f"mem_{i:012x}"
        created = now - (n - i) / n * 730 * DAY
        agent = rng.choice(["claude", "cursor", "user"])
        sha = hashlib.sha256(content.encode()).hexdigest()
        vector = vectors.standard_normal(DIM).astype(np.float32)
        vector /= np.linalg.norm(vector)
        layer = rng.choice(["episodic", "semantic", "learning"])
        rows.append(
            (memory_id, agent, content, sha, layer, 0.5, created, created, vector.tobytes())
        )
        events.append((created, memory_id, agent, sha))
        if len(rows) == 10_000:
            flush()
    flush()
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return time.perf_counter() - start


class Clock:
    """Accumulates wall time of wrapped calls by name."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def reset(self) -> None:
        self.seconds = {}

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

        return timed


def needle_names(contents: list[str]) -> dict[str, tuple[str, str]]:
    """sha256 of each needle the proof looks for -> (needle, kind), to name a finding."""
    out: dict[str, tuple[str, str]] = {}
    for text in contents:
        for piece in windows(text):
            out[hashlib.sha256(piece.encode()).hexdigest()] = (piece, "text")
        for token in distinctive(text):
            least = MIN_NUMBER if token.kind == "identifier" else MIN_BYTES
            for form in forms(token.text, least):
                out[hashlib.sha256(form.encode()).hexdigest()] = (form, token.kind)
    return out


def run(db: Path, *, reps_one: int, reps_many: int, many: int, seed: int) -> dict[str, Any]:
    embedder = TimedEmbedder(load_default_embedder())
    rng = random.Random(seed)
    clock = Clock()
    with Lethe.open(db, embedder=embedder) as mem:
        ids = mem.store.memory_ids()
        needed = 2 * (reps_one + 1) + 2 * reps_many * many
        picks = rng.sample(ids, needed)
        mem.recall("warm up the vector index", k=1)

        real_prove = mem._proof.prove
        # Timing wrappers: the byte scan is the module-level name the engine calls.
        real_scan = proof_module.scan
        proof_module.scan = clock.wrap("scan", real_scan)
        mem._proof._where_held = clock.wrap("where_held", mem._proof._where_held)  # type: ignore[method-assign]
        real_probe = mem._proof._probe

        def probe(*args: Any, **kwargs: Any) -> Any:
            before = embedder.seconds
            try:
                return clock.wrap("probe", real_probe)(*args, **kwargs)
            finally:
                clock.seconds["probe_embed"] = (
                    clock.seconds.get("probe_embed", 0.0) + embedder.seconds - before
                )

        mem._proof._probe = probe  # type: ignore[method-assign]
        timed_prove = clock.wrap("prove", real_prove)

        def purge(batch: list[str], prove: bool) -> tuple[float, dict[str, Any] | None]:
            mem._proof.prove = timed_prove if prove else (lambda *a, **k: None)  # type: ignore[method-assign]
            contents = [m.content for m in mem.store.get_many(batch, active_only=False).values()]
            start = time.perf_counter()
            result = mem.execute(mem.plan_purge(batch))
            elapsed = time.perf_counter() - start
            assert len(result.executed) == len(batch), result.notes
            receipt = getattr(result, "receipt", None)
            if prove:
                assert receipt is not None, "a purge with the proof returned no receipt"
                receipt = {**receipt, "_names": needle_names(contents)}
            else:
                assert receipt is None
            return elapsed, receipt

        log("warm-up: one purge each way")
        purge([picks.pop()], True)
        purge([picks.pop()], False)

        out: dict[str, Any] = {}
        for label, size, reps in (("one", 1, reps_one), ("many", many, reps_many)):
            with_t: list[float] = []
            without_t: list[float] = []
            parts: list[dict[str, float]] = []
            receipts: list[dict[str, Any]] = []
            for rep in range(reps):
                order = (True, False) if rep % 2 == 0 else (False, True)
                for prove in order:
                    batch = [picks.pop() for _ in range(size)]
                    clock.reset()
                    elapsed, receipt = purge(batch, prove)
                    way = "with" if prove else "without"
                    log(f"  purge of {size} {way} proof: {elapsed:.2f} s")
                    if prove:
                        with_t.append(elapsed)
                        parts.append(dict(clock.seconds))
                        assert receipt is not None
                        receipts.append(receipt)
                    else:
                        without_t.append(elapsed)
            out[label] = summarise(size, with_t, without_t, parts, receipts)
        proof_module.scan = real_scan
    return out


def summarise(
    size: int,
    with_t: list[float],
    without_t: list[float],
    parts: list[dict[str, float]],
    receipts: list[dict[str, Any]],
) -> dict[str, Any]:
    def med(key: str) -> float:
        return round(float(np.median([p.get(key, 0.0) for p in parts])) * 1000, 1)

    findings: list[dict[str, Any]] = []
    for r in receipts:
        names = r["_names"]
        for entry in r["scan"]["remaining"]:
            value, kind = names.get(entry["needle_sha256"], ("?", entry["kind"]))
            findings.append(
                {
                    "kind": entry["kind"],
                    "needle": value,
                    "path": entry["path"],
                    "offset": entry["offset"],
                    "recognised_kind": kind,
                }
            )
        for erased in r["probes"]["erased_returned"]:
            findings.append({"kind": "probe", "erased_returned": erased})
    scan_files = receipts[0]["scan"]["files"] if receipts else []
    return {
        "memories": size,
        "with_proof": stats_ms(with_t),
        "without_proof": stats_ms(without_t),
        "ratio_p50": round(float(np.median(with_t)) / float(np.median(without_t)), 2),
        "proof_ms_p50": med("prove"),
        "scan_ms_p50": med("scan"),
        "where_held_ms_p50": med("where_held"),
        "probe_ms_p50": med("probe"),
        "probe_embed_ms_p50": med("probe_embed"),
        "rest_ms_p50": round(
            float(
                np.median(
                    [
                        p.get("prove", 0)
                        - p.get("scan", 0)
                        - p.get("where_held", 0)
                        - p.get("probe", 0)
                        for p in parts
                    ]
                )
            )
            * 1000,
            1,
        ),
        "statuses": [r["status"] for r in receipts],
        "all_erased": all(r["status"] == "erased" for r in receipts),
        "retried": sum(bool(r["scan"]["retried"]) for r in receipts),
        "needles": [r["scan"]["needles"] for r in receipts],
        "tokens": [r["scan"]["tokens"] for r in receipts],
        "not_targeted_needles": [len(r["scan"]["not_targeted"]) for r in receipts],
        "probe_queries": [r["probes"]["queries"] for r in receipts],
        "files_scanned": [(Path(f["path"]).name, f["bytes"]) for f in scan_files],
        "bytes_scanned": sum(f["bytes"] for f in scan_files),
        "findings": findings,
    }


def print_result(result: dict[str, Any]) -> None:
    print(f"store: {result['size']:,} memories, db file {result['db_bytes'] / 2**20:.1f} MiB")
    print(f"{'purge':<14}{'proof':<9}{'n':>3}{'p50 ms':>10}{'p95 ms':>10}{'ratio p50':>11}")
    for label in ("one", "many"):
        r = result[label]
        for side, key in (("with", "with_proof"), ("without", "without_proof")):
            s = r[key]
            ratio = f"{r['ratio_p50']:>11.2f}" if side == "with" else ""
            print(
                f"{r['memories']:>4} memories {side:<9}{s['n']:>3}{s['p50_ms']:>10.1f}"
                f"{s['p95_ms']:>10.1f}{ratio}"
            )
    print("\nproof's cost, median ms per purge:")
    print(
        f"{'purge':<14}{'proof':>9}{'scan':>9}{'holders':>9}{'probes':>9}{'(embed)':>9}{'rest':>9}"
    )
    for label in ("one", "many"):
        r = result[label]
        print(
            f"{r['memories']:>4} memories {r['proof_ms_p50']:>9.1f}{r['scan_ms_p50']:>9.1f}"
            f"{r['where_held_ms_p50']:>9.1f}{r['probe_ms_p50']:>9.1f}"
            f"{r['probe_embed_ms_p50']:>9.1f}{r['rest_ms_p50']:>9.1f}"
        )
    for label in ("one", "many"):
        r = result[label]
        print(
            f"\n{r['memories']} memories: statuses {r['statuses']}; retried {r['retried']}; "
            f"needles {r['needles']}; tokens {r['tokens']}; needles also held by another "
            f"memory {r['not_targeted_needles']}; probe queries {r['probe_queries']}; "
            f"scanned {r['bytes_scanned'] / 2**20:.1f} MiB in {r['files_scanned']}"
        )
        for f in r["findings"]:
            print(f"  FINDING: {f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="memories in the store")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--reps-one", type=int, default=5, help="purges of 1 memory, each way")
    parser.add_argument("--reps-many", type=int, default=3, help="purges of --many, each way")
    parser.add_argument("--many", type=int, default=100, help="memories in one plan (max 100)")
    parser.add_argument(
        "--cache", type=Path, help="built store kept here and reused (copied for the run)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lethe-receipt-") as tmp:
        source = args.cache or Path(tmp) / "built.db"
        fill_s = None
        if not source.exists():
            log(f"filling {args.n:,} memories through SQL into {source}")
            fill_s = fill(source, args.n, args.seed)
            log(f"  {fill_s:.0f} s")
        work = Path(tmp) / "store.db"
        shutil.copyfile(source, work)
        size = sqlite3.connect(work).execute("SELECT count(*) FROM memories").fetchone()[0]
        db_bytes = work.stat().st_size
        result = {
            "size": size,
            "db_bytes": db_bytes,
            "fill_s": fill_s,
            "seed": args.seed,
            "machine": machine(),
            **run(
                work,
                reps_one=args.reps_one,
                reps_many=args.reps_many,
                many=args.many,
                seed=args.seed,
            ),
        }
    path = write_json(f"receipt-{size}.json", result)
    print_result(result)
    print(f"({path})")


if __name__ == "__main__":
    main()
