"""How long the command line takes to answer before it does any work (issue 44, part 2):
`lethe --version` and `lethe --help` beside `python -c "import typer"` (the floor of a typer
command line), each a fresh process, the variants taking turns, median of `--runs`. A typer
app of two commands answering `--help` (with typer's rich help, as lethe's, and without)
shows what a typer command line's help costs before any command of its own is loaded.

    python bench/bench_cli_start.py --runs 15
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import machine, write_json

BIN = Path(sys.executable).parent
TWO_COMMANDS = """
import typer

app = typer.Typer()


@app.command()
def one(count: int = 1) -> None:
    "The first."


@app.command()
def two(name: str = "x") -> None:
    "The second."


app()
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    # Bytecode is written on the unmeasured first run, as an installed package has it.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("LETHE_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    variants = {
        'python -c "import typer"': [sys.executable, "-c", "import typer"],
        "lethe --version": [str(BIN / "lethe"), "--version"],
        "lethe --help": [str(BIN / "lethe"), "--help"],
        "two-command typer app --help": [sys.executable, "-c", TWO_COMMANDS, "--help"],
        "the same, plain help": [
            "env",
            "TYPER_USE_RICH=0",
            sys.executable,
            "-c",
            TWO_COMMANDS,
            "--help",
        ],
    }
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    for command in variants.values():  # once each, unmeasured: files in the page cache
        subprocess.run(command, check=True, capture_output=True, env=env)
    for _ in range(args.runs):
        for name, command in variants.items():
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=env)
            seconds[name].append(time.perf_counter() - start)
    floor = statistics.median(seconds['python -c "import typer"'])
    medians = {name: statistics.median(s) for name, s in seconds.items()}
    for name, median in medians.items():
        print(f"{name:28} median {median * 1000:7.1f} ms   {median / floor:5.2f}x typer")
    write_json(
        "cli_start",
        {
            "machine": machine(),
            "runs": args.runs,
            "median_ms": {k: round(v * 1000, 1) for k, v in medians.items()},
        },
    )


if __name__ == "__main__":
    main()
