"""Cold start: wall time of one recall as a fresh process, the way a shell or an agent hook runs it.

Target (the issue): `lethe recall "query" --db FILE` under 1 s on a warm disk.

Each command runs once unmeasured (so the files are in the page cache: "warm disk"), then
`--runs` times; median and p95 wall time are reported. Measured commands:

- `cli`: `lethe recall QUERY --db FILE` (skipped, and said so, while the CLI is not usable);
- `library`: `python -c "from lethe import Lethe; m = Lethe.open(db); m.recall(q)"`;
- `cli_help`: `lethe --help`, `import_only`: `python -c "import lethe"`, and `python`:
  `python -c pass`, the floors.

    python bench/bench_coldstart.py --db /path/to/store.db
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from common import log, machine, memory_count, stats_ms, store_for, write_json

QUERY = "Where did the user's sister move to?"
LIBRARY = (
    "import sys\n"
    "from lethe import Lethe\n"
    "m = Lethe.open(sys.argv[1])\n"
    "hits = m.recall(sys.argv[2])\n"
    "assert hits, 'no hits'\n"
)


def lethe_executable() -> str | None:
    """The `lethe` console script of this interpreter's environment, if installed."""
    here = Path(sys.executable).parent / "lethe"
    return str(here) if here.exists() else shutil.which("lethe")


def cli_status(db: Path) -> tuple[list[str] | None, str]:
    """The CLI command to measure, or None and why it cannot be measured yet."""
    exe = lethe_executable()
    if exe is None:
        return None, "no `lethe` executable installed"
    command = [exe, "recall", QUERY, "--db", str(db)]
    probe = subprocess.run(command, capture_output=True, text=True, timeout=120, env=_env())
    if probe.returncode != 0:
        reason = (probe.stderr or probe.stdout).strip().splitlines()
        return None, f"`lethe recall` exited {probe.returncode}: {reason[-1] if reason else ''}"
    return command, "ok"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    # Keep the user's own config file and workspace out of the measurement.
    env["LETHE_CONFIG"] = os.devnull
    env.pop("LETHE_WORKSPACE_DIR", None)
    env.pop("LETHE_DB", None)
    return env


def time_command(command: list[str], runs: int) -> dict[str, Any]:
    env = _env()
    subprocess.run(command, check=True, capture_output=True, env=env, timeout=300)  # warm-up
    seconds: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True, env=env, timeout=300)
        seconds.append(time.perf_counter() - start)
    result: dict[str, Any] = stats_ms(seconds)
    result["median_s"] = round(statistics.median(seconds), 3)
    result["command"] = " ".join(command)
    return result


def run(db: Path, *, runs: int = 10) -> dict[str, Any]:
    size = memory_count(db)
    py = sys.executable
    commands: dict[str, list[str]] = {
        "python": [py, "-c", "pass"],
        "import_only": [py, "-c", "import lethe"],
        "library": [py, "-c", LIBRARY, str(db), QUERY],
    }
    cli, why = cli_status(db)
    if cli is not None:
        commands["cli_help"] = [cli[0], "--help"]
        commands["cli"] = cli
    else:
        log(f"[coldstart {size:,}] CLI not measured: {why}")
    results: dict[str, Any] = {}
    for name, command in commands.items():
        log(f"[coldstart {size:,}] {name} x{runs}")
        results[name] = time_command(command, runs)
        log(f"  median {results[name]['p50_ms']:.0f} ms, p95 {results[name]['p95_ms']:.0f} ms")
    measured = "cli" if "cli" in results else "library"
    p50 = results[measured]["p50_ms"]
    return {
        "size": size,
        "db": str(db),
        "runs": runs,
        "query": QUERY,
        "cli_available": cli is not None,
        "cli_note": why,
        **results,
        "target": "`lethe recall` under 1 s on a warm disk",
        "target_measured_on": measured,
        "target_met": p50 < 1000.0,
    }


def print_result(r: dict[str, Any]) -> None:
    print(f"cold start at {r['size']:,} memories ({r['runs']} runs each, warm disk):")
    labels = {
        "cli": "lethe recall QUERY --db FILE",
        "library": "python -c 'Lethe.open(db).recall(q)'",
        "cli_help": "lethe --help (CLI imports only)",
        "import_only": "python -c 'import lethe'",
        "python": "python -c pass",
    }
    for key, label in labels.items():
        if key in r:
            print(
                f"  {label:40s} median {r[key]['p50_ms']:7.0f} ms   p95 {r[key]['p95_ms']:7.0f} ms"
            )
    if not r["cli_available"]:
        print(f"  CLI not measured: {r['cli_note']}")
    print(
        f"  target < 1 s ({r['target_measured_on']}): "
        f"{r[r['target_measured_on']]['p50_ms'] / 1000:.2f} s -> "
        f"{'met' if r['target_met'] else 'NOT met'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Cold-start wall time of `lethe recall` as a fresh process."
    )
    parser.add_argument(
        "--size", type=int, default=10_000, help="memories, when building a store (10000)"
    )
    parser.add_argument("--db", type=Path, help="reuse this store instead of building one")
    parser.add_argument("--runs", type=int, default=10, help="measured runs per command (10)")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed when building (0)")
    parser.add_argument("--json", type=Path, help="also write the result as JSON here")
    args = parser.parse_args()
    with store_for(args.db, args.size, args.seed) as db:
        result = run(db, runs=args.runs)
    result["machine"] = machine()
    print_result(result)
    if args.json:
        write_json(args.json.name, result, args.json.parent)


if __name__ == "__main__":
    main()
