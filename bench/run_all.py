"""Run every lethe benchmark at each size, print one summary table, write JSON to bench/out/.

For each size: the import benchmark builds the store (so the 100k corpus is embedded once),
then the recall and cold-start benchmarks reuse that store. Everything runs in this one
process (cold start spawns its subprocesses), so the figures of one table come from one run.

    python bench/run_all.py                         # sizes 10000,100000 (make bench)
    python bench/run_all.py --sizes 10000 --keep /tmp/lethe-bench
    python bench/run_all.py --keep /tmp/lethe-bench --reuse   # skip imports, reuse stores
    python bench/run_all.py --keep /tmp/lethe-bench --reuse --backends   # + PostgreSQL beside
                                                    # SQLite on the largest store (pgserver)

`--backends` runs bench_backends.py (its own table, printed after the summary) on a copy of the
largest store; `--pg-million` adds its PostgreSQL recall at 1M memories (synthetic, derived
from the real embeddings; the HNSW build alone takes tens of minutes on 2 cores).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import bench_coldstart
import bench_forget
import bench_import
import bench_recall
from common import OUT_DIR, log, machine, write_json

from lethe.embed import load_default_embedder


def _cell(value: str, width: int = 22) -> str:
    return value.rjust(width)


def summary(results: dict[str, Any]) -> str:
    sizes: list[dict[str, Any]] = results["sizes"]
    head = f"{'figure':46s}" + "".join(_cell(f"{s['size']:,}") for s in sizes) + "   target"
    lines = [head, "-" * len(head)]

    def row(label: str, cells: list[str], target: str = "") -> None:
        lines.append(f"{label:46s}" + "".join(_cell(c) for c in cells) + f"   {target}")

    def get(s: dict[str, Any], *path: str) -> Any:
        value: Any = s
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        return value

    def fmt(s: dict[str, Any], fmt_: str, *path: str) -> str:
        value = get(s, *path)
        return "-" if value is None else format(value, fmt_)

    def pair(s: dict[str, Any], *path: str) -> str:
        x, y = get(s, *path, "p50_ms"), get(s, *path, "p95_ms")
        return "-" if x is None else f"{x:.2f} / {y:.2f}"

    def pair0(s: dict[str, Any], *path: str) -> str:
        x, y = get(s, *path, "p50_ms"), get(s, *path, "p95_ms")
        return "-" if x is None else f"{x:.0f} / {y:.0f}"

    def met(s: dict[str, Any], section: str) -> str:
        value = get(s, section, "target_met")
        return "-" if value is None else ("met" if value else "NOT met")

    row("import: memories/s (embedding included)", [fmt(s, ".0f", "import", "rate") for s in sizes])
    row(
        "import: encoder rate inside the import",
        [fmt(s, ".0f", "import", "encoder_rate_in_import") for s in sizes],
    )
    row(
        "import / encoder, same run",
        [fmt(s, ".3f", "import", "ratio_in_run") for s in sizes],
        ">= 0.80",
    )
    row("  target", [met(s, "import") for s in sizes])
    row(
        "raw encoder sample, texts/s (before / after)",
        [
            "-"
            if get(s, "import") is None
            else f"{s['import']['raw_encoder_before']['rate']:.0f} / "
            f"{s['import']['raw_encoder_after']['rate']:.0f}"
            for s in sizes
        ],
    )
    row(
        "import / raw sample (before / after)",
        [
            "-"
            if get(s, "import") is None
            else f"{s['import']['ratio_to_raw']:.2f} / {s['import']['ratio_to_raw_after']:.2f}"
            for s in sizes
        ],
    )
    row(
        "import: non-encoder time share",
        [
            "-" if get(s, "import") is None else f"{s['import']['non_embed_share']:.1%}"
            for s in sizes
        ],
        "< 20%",
    )
    row(
        "import: non-encoder ms per memory",
        [fmt(s, ".2f", "import", "non_embed_ms_per_memory") for s in sizes],
    )
    row(
        "import: skipped near-duplicates (>= 0.95)",
        [fmt(s, ",", "import", "report", "skipped_duplicates") for s in sizes],
    )
    row("recall with embedding p50 / p95 ms", [pair(s, "recall", "recall") for s in sizes])
    row(
        "recall without embedding p50 / p95 ms",
        [pair(s, "recall", "recall_no_embed") for s in sizes],
        "p50 <= 10 ms at 100k",
    )
    row("  target", [met(s, "recall") for s in sizes])
    row(
        "  queries saying 'user' p50 / p95 ms",
        [pair(s, "recall", "recall_no_embed_by_query", "mentions_user") for s in sizes],
    )
    row(
        "  other queries p50 / p95 ms",
        [pair(s, "recall", "recall_no_embed_by_query", "other") for s in sizes],
    )
    row("  vector_search p50 / p95 ms", [pair(s, "recall", "vector_search") for s in sizes])
    row("  lexical_search p50 / p95 ms", [pair(s, "recall", "lexical_search") for s in sizes])
    row(
        "  lexical_search, queries saying 'user'",
        [pair(s, "recall", "lexical_search_by_query", "mentions_user") for s in sizes],
    )
    row("query embedding p50 / p95 ms", [pair(s, "recall", "query_embedding") for s in sizes])
    row("numpy brute force p50 / p95 ms", [pair(s, "recall", "numpy_bruteforce") for s in sizes])
    row(
        "first recall after open (index load) ms",
        [fmt(s, ".0f", "recall", "first_recall_ms") for s in sizes],
    )
    row(
        "  same, a second instance (snapshot, if any)",
        [fmt(s, ".0f", "recall", "first_recall_again_ms") for s in sizes],
    )
    row(
        "cold start `lethe recall` median / p95 ms",
        [pair0(s, "coldstart", "cli") for s in sizes],
        "< 1000 ms",
    )
    row("  target", [met(s, "coldstart") for s in sizes])
    row(
        "cold start library one-liner median / p95 ms",
        [pair0(s, "coldstart", "library") for s in sizes],
    )
    row(
        "cold start `lethe --help` median ms",
        [fmt(s, ".0f", "coldstart", "cli_help", "p50_ms") for s in sizes],
    )
    row(
        "cold start `import lethe` median ms",
        [fmt(s, ".0f", "coldstart", "import_only", "p50_ms") for s in sizes],
    )
    row(
        "forget (plan + execute) p50 / p95 ms",
        [pair(s, "forget", "forget") for s in sizes],
        "p50 <= 5 ms at 100k",
    )
    row("  target", [met(s, "forget") for s in sizes])
    row("restore p50 / p95 ms", [pair(s, "forget", "restore") for s in sizes])
    row("purge (plan + execute) p50 / p95 ms", [pair(s, "forget", "purge") for s in sizes])
    row("forget query plan p50 / p95 ms", [pair(s, "forget", "query_plan") for s in sizes])
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Run all lethe benchmarks and print a summary table."
    )
    parser.add_argument(
        "--sizes", default="10000,100000", help="comma-separated store sizes (10000,100000)"
    )
    parser.add_argument(
        "--size", type=int, help="a single size (same as --sizes N, for symmetry with the rest)"
    )
    parser.add_argument("--queries", type=int, default=200, help="recall queries (200)")
    parser.add_argument("--rounds", type=int, default=3, help="recall passes (3)")
    parser.add_argument("--runs", type=int, default=10, help="cold-start runs per command (10)")
    parser.add_argument("--sample", type=int, default=5000, help="raw encoder sample (5000)")
    parser.add_argument(
        "--forget-samples", type=int, default=200, help="forgets and restores to time (200)"
    )
    parser.add_argument("--purge-samples", type=int, default=20, help="purges to time (20)")
    parser.add_argument(
        "--keep", type=Path, help="keep the stores in this folder (default: a temp dir)"
    )
    parser.add_argument(
        "--reuse", action="store_true", help="with --keep: reuse stores there, skip the imports"
    )
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="JSON folder (bench/out)")
    parser.add_argument(
        "--backends",
        action="store_true",
        help="also PostgreSQL beside SQLite on the largest store (bench_backends.py)",
    )
    parser.add_argument(
        "--pg-million", action="store_true", help="with --backends: PostgreSQL at 1M (long)"
    )
    args = parser.parse_args()
    sizes = [args.size] if args.size else [int(x) for x in args.sizes.split(",") if x.strip()]
    if args.reuse and not args.keep:
        parser.error("--reuse needs --keep DIR")

    embedder = load_default_embedder()
    started = time.perf_counter()
    results: dict[str, Any] = {"machine_start": machine(), "sizes": []}
    with tempfile.TemporaryDirectory(prefix="lethe-bench-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for size in sizes:
            db = folder / f"lethe-{size}.db"
            entry: dict[str, Any] = {"size": size}
            if args.reuse and db.exists():
                log(f"reusing {db}; import not measured")
            else:
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{db}{suffix}").unlink(missing_ok=True)
                entry["import"] = bench_import.run(
                    size, db=db, sample=args.sample, embedder=embedder
                )
                bench_import.print_result(entry["import"])
            entry["recall"] = bench_recall.run(
                db, n_queries=args.queries, rounds=args.rounds, embedder=embedder
            )
            bench_recall.print_result(entry["recall"])
            entry["coldstart"] = bench_coldstart.run(db, runs=args.runs)
            bench_coldstart.print_result(entry["coldstart"])
            work = folder / f"forget-{size}.db"
            shutil.copyfile(db, work)  # forgetting changes the store; measure on a copy
            try:
                entry["forget"] = bench_forget.run(
                    work, samples=args.forget_samples, purge_samples=args.purge_samples
                )
            finally:
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{work}{suffix}").unlink(missing_ok=True)
            bench_forget.print_result(entry["forget"])
            results["sizes"].append(entry)
            print(flush=True)
        if args.backends:
            import bench_backends  # psycopg, pgvector and the pgserver wheel: dev dependencies

            largest = folder / f"lethe-{max(sizes)}.db"
            results["backends"] = bench_backends.run(
                largest,
                n_queries=args.queries,
                rounds=args.rounds,
                forget_samples=args.forget_samples,
                purge_samples=args.purge_samples,
                million=1_000_000 if args.pg_million else 0,
                embedder=embedder,
            )
    results["machine_end"] = machine()
    results["total_seconds"] = round(time.perf_counter() - started, 1)
    table = summary(results)
    results["summary"] = table
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = write_json(f"results-{stamp}.json", results, args.out)
    write_json("latest.json", results, args.out)
    print(table)
    if "backends" in results:
        import bench_backends

        print()
        bench_backends.print_result(results["backends"])
    print(
        f"\n{results['machine_start']['cpus']} CPUs ({results['machine_start']['cpu_model']}), "
        f"load average at start {results['machine_start']['loadavg_1_5_15']}, at end "
        f"{results['machine_end']['loadavg_1_5_15']}; {results['total_seconds']:.0f} s in all"
    )
    print(f"results: {path}")
    before, after = (results[k]["source_digest"] for k in ("machine_start", "machine_end"))
    if before != after:
        print(
            f"WARNING: the lethe sources changed during the run ({before} -> {after}); "
            "spawned cold-start processes may have run newer code than the rest"
        )


if __name__ == "__main__":
    main()
