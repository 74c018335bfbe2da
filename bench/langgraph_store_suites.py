"""LangGraph's own store tests, run against LetheStore beside LangGraph's InMemoryStore.

    pip install pytest-mock pytest-asyncio   # the suites use them (a venv beside lethe's)
    python bench/langgraph_store_suites.py /path/to/langgraph [--suite FILE] [--names]

The suites stay in the LangGraph checkout given on the command line (the `fetch` of
langchain-ai/langgraph, or a clone); nothing of them is copied here. Each suite runs twice in
its own folder with this venv's pytest: as written (InMemoryStore), and with `InMemoryStore`
replaced by a LetheStore over a fresh lethe store per instance (a pytest plugin written to a
temporary folder). An `index` that brings its own `embed` keeps only its fields: lethe embeds
with its own model, so that a forget or a purge takes the vectors with the memory
(docs/langgraph.md lists each deliberate difference). Prints the pass/fail counts of both, and
with --names the tests only lethe fails.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

SUITES = (
    "libs/checkpoint/tests/test_store.py",
    "libs/checkpoint-sqlite/tests/test_store.py",
    "libs/checkpoint-sqlite/tests/test_async_store.py",
)

PLUGIN = textwrap.dedent(
    '''
    """Replace LangGraph's stores by a LetheStore over a fresh lethe store each."""
    import contextlib
    import tempfile
    from pathlib import Path

    import os

    import langgraph.store.memory as memory

    from lethe import Lethe
    from lethe.embed import load_default_embedder
    from lethe.integrations.langgraph import LetheStore

    if os.environ.get("LETHE_LG_STORE") == "memory":  # the baseline: InMemoryStore everywhere
        _Memory = memory.InMemoryStore

        class LetheBacked(_Memory):
            def __init__(self, *, index=None, ttl=None, **_):
                super().__init__(index=index)  # it keeps no time-to-live

    else:
        _EMBEDDER = load_default_embedder()
        memory.InMemoryStore = None  # replaced below

        class LetheBacked(LetheStore):
            def __init__(self, *, index=None, ttl=None, **_):
                fields = None if index is None else {
                    k: v for k, v in index.items() if k in ("fields", "dims")
                }
                folder = Path(tempfile.mkdtemp(prefix="lethe-lg-"))
                super().__init__(
                    Lethe.open(folder / "m.db", embedder=_EMBEDDER), index=fields, ttl=ttl
                )

        memory.InMemoryStore = LetheBacked

    try:  # the SQLite suites (pip install langgraph-checkpoint-sqlite)
        import langgraph.store.sqlite as sqlite_store
        import langgraph.store.sqlite.aio as sqlite_aio
    except ImportError:
        sqlite_store = sqlite_aio = None

    if sqlite_store is not None:

        class LetheSqlite(LetheBacked):
            MIGRATIONS = sqlite_store.SqliteStore.MIGRATIONS

            @classmethod
            @contextlib.contextmanager
            def from_conn_string(cls, conn_string, *, index=None, ttl=None, **_):
                yield cls(index=index, ttl=ttl)

            def setup(self):
                pass

        class LetheAsyncSqlite(LetheBacked):
            @classmethod
            @contextlib.asynccontextmanager
            async def from_conn_string(cls, conn_string, *, index=None, ttl=None, **_):
                yield cls(index=index, ttl=ttl)

            async def setup(self):
                pass

        sqlite_store.SqliteStore = LetheSqlite
        sqlite_aio.AsyncSqliteStore = LetheAsyncSqlite
    '''
)


def run(checkout: Path, suite: str, plugin: Path | None, store: str = "lethe") -> dict[str, str]:
    """Each test's outcome (`passed`, `failed`, `error`, `skipped`)."""
    test_file = checkout / suite
    root = test_file.parent.parent  # the library folder: its `tests` package imports itself
    # The installed LangGraph (the one lethe runs with), not the checkout's source beside the
    # tests: no working folder put first on the path (-P) and the tests' folder appended
    # after site-packages.
    command = [sys.executable, "-P", "-m", "pytest", str(test_file), "-q", "-rA"]
    command += ["-p", "no:cacheprovider"]
    command += ["--import-mode=append", "-o", "asyncio_mode=auto"]
    env = dict(os.environ)
    if plugin is not None:
        command += ["-p", plugin.stem]
        env["PYTHONPATH"] = str(plugin.parent)
        env["LETHE_LG_STORE"] = store
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, env=env)
    outcomes: dict[str, str] = {}
    for line in done.stdout.splitlines():
        found = re.match(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)", line)
        if found:
            outcomes[found.group(2)] = found.group(1).lower()
    if not outcomes:
        raise SystemExit(f"{suite}: no test ran\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a LangGraph checkout (repository root)")
    parser.add_argument("--suite", action="append", help="a test file inside it (repeatable)")
    parser.add_argument("--names", action="store_true", help="name the tests only lethe fails")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plugin = Path(tmp) / "lethe_langgraph_plugin.py"
        plugin.write_text(PLUGIN, encoding="utf-8")
        print(
            f"{'suite':48} {'tests':>5} {'its store':>9} {'InMemoryStore':>13} {'LetheStore':>10}"
        )
        totals = [0, 0, 0, 0]
        for suite in args.suite or SUITES:
            own = run(args.checkout, suite, None)
            theirs = run(args.checkout, suite, plugin, "memory")
            ours = run(args.checkout, suite, plugin, "lethe")
            counts = [
                len(own),
                *(sum(o == "passed" for o in r.values()) for r in (own, theirs, ours)),
            ]
            totals = [t + c for t, c in zip(totals, counts, strict=True)]
            print(f"{suite:48} {counts[0]:5} {counts[1]:9} {counts[2]:13} {counts[3]:10}")
            if args.names:
                for name, outcome in sorted(ours.items()):
                    if outcome != "passed" and theirs.get(name) == "passed":
                        print(f"  only lethe fails: {name.split('::')[-1]} ({outcome})")
        print(f"{'all':48} {totals[0]:5} {totals[1]:9} {totals[2]:13} {totals[3]:10}")


if __name__ == "__main__":
    main()
