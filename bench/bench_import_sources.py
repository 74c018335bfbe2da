"""Imports from other memories (issue 20): memories per second of `Lethe.import_from` for each
source, beside `remember_many` of the same texts, in the same run.

The same `--size` corpus texts are written (in a temporary folder) as each source's format:

- mcp-memory: the MCP memory server's memory.jsonl, entities of 5 observations each and one
  relation from every entity to the next (each making 9 links);
- mem0: the JSON of get_all, `{"results": [...]}` for one user, with id, hash, metadata and
  times, as mem0 writes them;
- markdown: 100 notes under two levels of headings: a bullet, a bullet nested under it, two
  paragraphs, and again.

Each is imported into a fresh SQLite store: the time covers reading, checking, embedding,
storing and linking. `remember_many` of the bare texts runs first and again last, and each
source's rate is given as a ratio to the mean of those two runs: the machine is shared, and a
ratio taken within one run is what holds across runs. Each run also times its encoder
calls, so the time spent outside the encoder (parsing, checking, storing, linking) is given per
memory.

    OPENBLAS_NUM_THREADS=1 python bench/bench_import_sources.py --size 10000
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import corpus
from common import TimedEmbedder, log, machine, write_json

from lethe import Lethe
from lethe.embed import Embedder, load_default_embedder
from lethe.model import Draft

OBSERVATIONS = 5
NOTES = 100


def write_mcp(texts: list[str], folder: Path) -> Path:
    lines = []
    names = [f"Person {n:05d}" for n in range(0, len(texts), OBSERVATIONS)]
    for n, name in enumerate(names):
        chunk = texts[n * OBSERVATIONS : (n + 1) * OBSERVATIONS]
        lines.append(
            {"type": "entity", "name": name, "entityType": "person", "observations": chunk}
        )
    for source, target in itertools.pairwise(names):
        lines.append({"type": "relation", "from": source, "to": target, "relationType": "knows"})
    path = folder / "memory.jsonl"
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in lines),
        encoding="utf-8",
    )
    return path


def write_mem0(texts: list[str], folder: Path) -> Path:
    start = datetime(2024, 7, 1, tzinfo=UTC)
    results = [
        {
            "id": hashlib.sha1(text.encode()).hexdigest()[:32],
            "memory": text,
            "hash": hashlib.md5(text.encode()).hexdigest(),
            "metadata": {"category": "bench"},
            "created_at": (start + timedelta(minutes=n)).isoformat(),
            "updated_at": None,
            "user_id": "alice",
        }
        for n, text in enumerate(texts)
    ]
    path = folder / "mem0.json"
    path.write_text(json.dumps({"results": results}, ensure_ascii=False), encoding="utf-8")
    return path


def write_markdown(texts: list[str], folder: Path) -> Path:
    root = folder / "notes"
    per_note = -(-len(texts) // NOTES)
    for n in range(NOTES):
        chunk = texts[n * per_note : (n + 1) * per_note]
        if not chunk:
            break
        out = [f"# Topic {n}", ""]
        for i, text in enumerate(chunk):
            if i % 24 == 0:
                out += [f"## Part {i // 24}", ""]
            kind = i % 4
            if kind == 0:
                out.append(f"- {text}")
            elif kind == 1:
                out += [f"  - {text}", ""]
            else:
                out += [text, ""]
        (root / f"topic-{n // 10}").mkdir(parents=True, exist_ok=True)
        (root / f"topic-{n // 10}" / f"note-{n:03d}.md").write_text("\n".join(out), "utf-8")
    return root


def timed(label: str, size: int, work: Callable[[Callable[[int], None]], Any]) -> tuple[float, Any]:
    done = 0
    step = max(1, size // 10)
    start = time.perf_counter()

    def progress(n: int) -> None:
        nonlocal done
        before, done = done, done + n
        if done // step > before // step:
            elapsed = time.perf_counter() - start
            log(f"  [{label}] {done:,}/{size:,}  {done / elapsed:.0f}/s")

    result = work(progress)
    return time.perf_counter() - start, result


def run(size: int, seed: int, embedder: Embedder, folder: Path) -> dict[str, Any]:
    texts = [spec.content for spec in corpus.generate(size, seed)]
    embedder.embed(texts[:64])  # warm-up
    sources = {
        "mcp-memory": write_mcp(texts, folder),
        "mem0": write_mem0(texts, folder),
        "markdown": write_markdown(texts, folder),
    }
    runs: dict[str, Any] = {}

    def measured(seconds: float, timer: TimedEmbedder) -> dict[str, float]:
        """The run's own split: time inside the encoder and everything else per memory,
        which other processes on the machine skew less than the total."""
        return {
            "seconds": round(seconds, 3),
            "rate": round(size / seconds, 1),
            "embed_seconds": round(timer.seconds, 3),
            "non_embed_ms_per_memory": round(1000 * (seconds - timer.seconds) / size, 3),
        }

    def baseline(name: str) -> None:
        log(f"[{name}] remember_many of {size:,} texts")
        timer = TimedEmbedder(embedder)
        with Lethe.open(folder / f"{name}.db", embedder=timer) as mem:
            seconds, report = timed(
                name,
                size,
                lambda p: mem.remember_many([Draft(content=t) for t in texts], progress=p),
            )
        runs[name] = {**measured(seconds, timer), "imported": report.imported}

    baseline("remember_many_before")
    for source, path in sources.items():
        log(f"[{source}] import_from {path.name}")
        timer = TimedEmbedder(embedder)
        with Lethe.open(folder / f"{source}.db", embedder=timer) as mem:
            seconds, report = timed(
                source, size, lambda p, s=source, f=path: mem.import_from(s, f, progress=p)
            )
        runs[source] = {
            **measured(seconds, timer),
            "rate": round(report.memories / seconds, 1),
            "memories": report.memories,
            "imported": report.imported,
            "skipped_duplicates": report.skipped_duplicates,
            "links": report.links,
            "automatic_links": report.linked,
            "records": report.records,
        }
    baseline("remember_many_after")
    reference = (runs["remember_many_before"]["rate"] + runs["remember_many_after"]["rate"]) / 2
    overhead = (
        runs["remember_many_before"]["non_embed_ms_per_memory"]
        + runs["remember_many_after"]["non_embed_ms_per_memory"]
    ) / 2
    for source in sources:
        runs[source]["ratio_to_remember_many"] = round(runs[source]["rate"] / reference, 3)
    return {
        "size": size,
        "seed": seed,
        "remember_many_rate": round(reference, 1),
        "remember_many_non_embed_ms_per_memory": round(overhead, 3),
        "runs": runs,
    }


def print_result(r: dict[str, Any]) -> None:
    runs = r["runs"]
    before, after = runs["remember_many_before"], runs["remember_many_after"]
    print(f"imports from other memories, {r['size']:,} memories each (fresh SQLite store each)")
    print(
        f"  remember_many of the same texts: {before['rate']:.0f}/s before, "
        f"{after['rate']:.0f}/s after (mean {r['remember_many_rate']:.0f}/s); outside the "
        f"encoder {before['non_embed_ms_per_memory']:.2f} / "
        f"{after['non_embed_ms_per_memory']:.2f} ms per memory"
    )
    for source in ("mcp-memory", "mem0", "markdown"):
        s = runs[source]
        extra = f", {s['links']:,} relation links" if s["links"] else ""
        print(
            f"  {source:<10} {s['seconds']:6.1f} s  {s['rate']:5.0f} memories/s  "
            f"x{s['ratio_to_remember_many']:.2f} of remember_many  outside the encoder "
            f"{s['non_embed_ms_per_memory']:.2f} ms per memory  "
            f"({s['records']:,} records, {s['imported']:,} imported{extra})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description="Imports from other memories (lethe bench).")
    parser.add_argument("--size", type=int, default=10_000, help="memories per source (10000)")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed (default 0)")
    parser.add_argument("--json", type=Path, help="also write the result as JSON here")
    args = parser.parse_args()
    embedder = load_default_embedder()
    with tempfile.TemporaryDirectory(prefix="lethe-bench-sources-") as tmp:
        result = run(args.size, args.seed, embedder, Path(tmp))
    result["machine"] = machine()
    print_result(result)
    if args.json:
        write_json(args.json.name, result, args.json.parent)


if __name__ == "__main__":
    main()
