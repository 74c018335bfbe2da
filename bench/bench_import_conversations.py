"""Imports of the chat exports (`claude`, `chatgpt`): a ~50 MB `conversations.json` of each,
generated, read and checked (a dry run: parsing, lethe's checks, the duplicate lookup), and a
full import of a slice of it, with the real encoder.

The exports are built from the benchmark corpus's sentences with the lengths real chats have:
a user turn of 1–4 sentences, an answer of 2–6 paragraphs of 3–6 sentences, one answer in
150 of 40–90 KB (split into parts on import), one Claude question in 15 with a pasted text
(an attachment of 2–20 KB) and one ChatGPT answer in 8 regenerated (another branch). Claude's
file holds each text twice (`text` and the content blocks), as Claude.ai writes it.

Each dry run runs in a child process (forked after the encoder is loaded) with its peak
resident size reset (Linux's VmHWM): the figure given is that peak less the process's size
before it read the file. The full import of a whole 50 MB file would take far longer than the ~15
minutes this 2-core machine allows (the encoder is ~96 % of an import), so `--slice`
memories' worth of conversations is imported into a fresh SQLite store, timed, and the whole
file's import is extrapolated from that rate (labelled so); when that says at most
`--full-within` minutes, the whole file is imported too and timed.

    OPENBLAS_NUM_THREADS=1 python bench/bench_import_conversations.py --mb 50 --slice 2000
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import resource
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import corpus
from common import TimedEmbedder, log, machine, write_json

from lethe import Lethe
from lethe.embed import load_default_embedder
from lethe.importers import read as read_source

START = datetime(2023, 1, 1, tzinfo=UTC)


class Talk:
    """Seeded text of chat-like lengths from the corpus's sentences."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.sentences = [s.content for s in corpus.generate(20_000, seed)]

    def sentence(self) -> str:
        return self.rng.choice(self.sentences)

    def question(self) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(1, 4)))

    def paragraphs(self, low: int, high: int) -> str:
        return "\n\n".join(
            " ".join(self.sentence() for _ in range(self.rng.randint(3, 6)))
            for _ in range(self.rng.randint(low, high))
        )

    def answer(self) -> str:
        if self.rng.random() < 1 / 150:
            return self.paragraphs(120, 260)  # 40-90 KB: split on import
        return self.paragraphs(2, 6)

    def uid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))


def claude_conversation(talk: Talk, n: int) -> dict[str, Any]:
    when = START + timedelta(hours=7 * n)
    messages = []
    for turn in range(talk.rng.randint(1, 15)):
        for sender in ("human", "assistant"):
            at = (when + timedelta(minutes=2 * turn + (sender == "assistant"))).isoformat()
            text = talk.question() if sender == "human" else talk.answer()
            attachments = []
            if sender == "human" and talk.rng.random() < 1 / 15:
                pasted = talk.paragraphs(5, 40)
                attachments.append(
                    {
                        "file_name": "paste.txt",
                        "file_size": len(pasted),
                        "file_type": "txt",
                        "extracted_content": pasted,
                    }
                )
            messages.append(
                {
                    "uuid": talk.uid(),
                    "text": text,
                    "content": [
                        {
                            "start_timestamp": at,
                            "stop_timestamp": at,
                            "type": "text",
                            "text": text,
                            "citations": [],
                        }
                    ],
                    "sender": sender,
                    "created_at": at,
                    "updated_at": at,
                    "attachments": attachments,
                    "files": [],
                }
            )
    return {
        "uuid": talk.uid(),
        "name": talk.sentence()[:60],
        "created_at": when.isoformat(),
        "updated_at": when.isoformat(),
        "account": {"uuid": "9f0e4c1a-0000-4000-8000-000000000001"},
        "chat_messages": messages,
    }


def _node(
    talk: Talk, node_id: str, role: str, text: str, at: float, parent: str, **metadata: Any
) -> dict[str, Any]:
    return {
        "id": node_id,
        "message": {
            "id": node_id,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": at,
            "update_time": None,
            "content": {"content_type": "text", "parts": [text]},
            "status": "finished_successfully",
            "end_turn": role == "assistant" or None,
            "weight": 1.0,
            "metadata": metadata,
            "recipient": "all",
            "channel": None,
        },
        "parent": parent,
        "children": [],
    }


def chatgpt_conversation(talk: Talk, n: int) -> dict[str, Any]:
    when = (START + timedelta(hours=7 * n)).timestamp()
    root, system = talk.uid(), talk.uid()
    mapping: dict[str, Any] = {
        root: {"id": root, "message": None, "parent": None, "children": []},
        system: _node(
            talk, system, "system", "", when, root, is_visually_hidden_from_conversation=True
        ),
    }
    parent = system
    for turn in range(talk.rng.randint(1, 15)):
        for role in ("user", "assistant"):
            node_id = talk.uid()
            text = talk.question() if role == "user" else talk.answer()
            at = when + 120 * turn + (role == "assistant")
            extra = {"model_slug": "gpt-4o"} if role == "assistant" else {}
            if role == "assistant" and talk.rng.random() < 1 / 8:
                old = talk.uid()
                mapping[old] = _node(talk, old, role, talk.answer(), at, parent, **extra)
                mapping[parent]["children"].append(old)
            mapping[node_id] = _node(talk, node_id, role, text, at + 0.5, parent, **extra)
            mapping[parent]["children"].append(node_id)
            parent = node_id
    conversation_id = talk.uid()
    return {
        "title": talk.sentence()[:60],
        "create_time": when,
        "update_time": when + 3600,
        "mapping": mapping,
        "moderation_results": [],
        "current_node": parent,
        "plugin_ids": None,
        "conversation_id": conversation_id,
        "conversation_template_id": None,
        "gizmo_id": None,
        "is_archived": False,
        "safe_urls": [],
        "id": conversation_id,
    }


def write_export(source: str, folder: Path, megabytes: float, seed: int) -> tuple[Path, list[str]]:
    """The export as one JSON list of about `megabytes` MB; each conversation's JSON is kept
    too, to write slices of it."""
    talk = Talk(seed)
    make = claude_conversation if source == "claude" else chatgpt_conversation
    pieces: list[str] = []
    size, target = 0, int(megabytes * 1024 * 1024)
    while size < target:
        piece = json.dumps(make(talk, len(pieces)), ensure_ascii=False)
        pieces.append(piece)
        size += len(piece.encode()) + 2
    path = folder / source / "conversations.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[" + ",\n".join(pieces) + "]", encoding="utf-8")
    return path, pieces


def _status_mb(key: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak() -> float:
    """The resident size now, with the peak (VmHWM) reset to it: a forked child inherits
    its parent's peak otherwise."""
    Path("/proc/self/clear_refs").write_text("5")
    return _status_mb("VmRSS")


def _dry_run_child(source: str, path: str, db: str, out: Any) -> None:
    """In a fresh process: parse alone, then the dry run through the engine, with the peak
    resident memory of the process above what it held before."""
    base = _reset_peak()
    start = time.perf_counter()
    parsed = read_source(source, Path(path), namespace=None, now=datetime.now(UTC))
    parse_s = time.perf_counter() - start
    items = len(parsed.items)
    del parsed
    embedder = _EMBEDDER
    with Lethe.open(db, embedder=embedder) as mem:
        start = time.perf_counter()
        batch = mem.read_source(source, path)
        check_s = time.perf_counter() - start
        start = time.perf_counter()
        report = mem.import_source(batch, dry_run=True)
        plan_s = time.perf_counter() - start
    out.put(
        {
            "parse_seconds": round(parse_s, 2),
            "read_source_seconds": round(check_s, 2),
            "dry_run_plan_seconds": round(plan_s, 2),
            "dry_run_total_seconds": round(check_s + plan_s, 2),
            "peak_rss_above_start_mb": round(_status_mb("VmHWM") - base, 0),
            "items": items,
            "records": report.records,
            "memories": report.memories,
            "not_kept": [n.line() for n in report.not_kept],
        }
    )


_EMBEDDER: Any = None


def dry_run(source: str, path: Path, folder: Path) -> dict[str, Any]:
    context = multiprocessing.get_context("fork")
    queue: Any = context.Queue()
    child = context.Process(
        target=_dry_run_child, args=(source, str(path), str(folder / f"{source}-dry.db"), queue)
    )
    child.start()
    result: dict[str, Any] = queue.get()
    child.join()
    return result


def full_slice(
    source: str, pieces: list[str], memories_per_item: float, size: int, folder: Path
) -> dict[str, Any]:
    """Import the first conversations holding about `size` memories into a fresh store."""
    taken: list[str] = []
    estimate = 0.0
    for piece in pieces:
        taken.append(piece)
        record = json.loads(piece)
        turns = len(record.get("chat_messages") or record.get("mapping") or [])
        estimate += turns * memories_per_item
        if estimate >= size:
            break
    path = folder / f"{source}-slice" / "conversations.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[" + ",\n".join(taken) + "]", encoding="utf-8")
    return {"conversations": len(taken), **import_file(source, path, folder / f"{source}-slice.db")}


def import_file(source: str, path: Path, db: Path) -> dict[str, Any]:
    """A whole import of the file into a fresh store, timed."""
    timer = TimedEmbedder(_EMBEDDER)
    done = 0
    start = time.perf_counter()

    def progress(n: int) -> None:
        nonlocal done
        done += n
        if done % 500 < n:
            log(f"  [{source}] {done:,} stored, {done / (time.perf_counter() - start):.0f}/s")

    with Lethe.open(db, embedder=timer) as mem:
        report = mem.import_from(source, path, progress=progress)
    seconds = time.perf_counter() - start
    return {
        "bytes": path.stat().st_size,
        "memories": report.memories,
        "imported": report.imported,
        "seconds": round(seconds, 1),
        "memories_per_second": round(report.memories / seconds, 1),
        "embed_share": round(timer.seconds / seconds, 3),
    }


def run(
    megabytes: float, slice_size: int, full_within: float, seed: int, folder: Path
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for source in ("claude", "chatgpt"):
        log(f"[{source}] writing a {megabytes:g} MB export")
        path, pieces = write_export(source, folder, megabytes, seed)
        log(f"[{source}] dry run of {path.stat().st_size / 2**20:.1f} MB")
        checked = dry_run(source, path, folder)
        log(f"[{source}] {checked}")
        items = sum(
            len(json.loads(p).get("chat_messages") or json.loads(p)["mapping"]) for p in pieces
        )
        per_item = checked["memories"] / items
        log(f"[{source}] importing a slice of ~{slice_size:,} memories")
        sliced = full_slice(source, pieces, per_item, slice_size, folder)
        log(f"[{source}] {sliced}")
        minutes = checked["memories"] / sliced["memories_per_second"] / 60
        results[source] = {
            "file_mb": round(path.stat().st_size / 2**20, 1),
            "conversations": len(pieces),
            "dry_run": checked,
            "slice": sliced,
            "extrapolated_full_import_minutes": round(minutes, 1),
        }
        if minutes <= full_within:
            log(f"[{source}] importing the whole file (~{minutes:.0f} min by the slice's rate)")
            whole = import_file(source, path, folder / f"{source}-full.db")
            log(f"[{source}] {whole}")
            results[source]["full"] = whole
    return results


def print_result(results: dict[str, Any]) -> None:
    for source, r in results.items():
        d, s = r["dry_run"], r["slice"]
        print(
            f"{source}: {r['file_mb']} MB, {r['conversations']:,} conversations, "
            f"{d['memories']:,} memories"
        )
        print(
            f"  dry run {d['dry_run_total_seconds']} s (parse {d['parse_seconds']} s, "
            f"read+check {d['read_source_seconds']} s, duplicate lookup "
            f"{d['dry_run_plan_seconds']} s), peak memory +{d['peak_rss_above_start_mb']:.0f} MB"
        )
        print(
            f"  import of a slice: {s['memories']:,} memories ({s['conversations']} "
            f"conversations, {s['bytes'] / 2**20:.1f} MB) in {s['seconds']} s = "
            f"{s['memories_per_second']} memories/s (encoder {s['embed_share']:.0%}); "
            f"whole file extrapolated: ~{r['extrapolated_full_import_minutes']:.0f} min"
        )
        if "full" in r:
            f = r["full"]
            print(
                f"  import of the whole file: {f['memories']:,} memories in "
                f"{f['seconds'] / 60:.1f} min = {f['memories_per_second']} memories/s "
                f"(encoder {f['embed_share']:.0%})"
            )


def main() -> None:
    global _EMBEDDER
    parser = argparse.ArgumentParser(description="Imports of chat exports (lethe bench).")
    parser.add_argument("--mb", type=float, default=50, help="size of each export (50 MB)")
    parser.add_argument("--slice", type=int, default=2000, help="memories imported fully")
    parser.add_argument(
        "--full-within",
        type=float,
        default=15,
        help="import the whole file too when the slice's rate says it takes at most this "
        "many minutes (15)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the result as JSON here")
    args = parser.parse_args()
    _EMBEDDER = load_default_embedder()
    _EMBEDDER.embed(["warm up"] * 8)
    with tempfile.TemporaryDirectory(prefix="lethe-bench-chats-") as tmp:
        results = run(args.mb, args.slice, args.full_within, args.seed, Path(tmp))
    output = {"mb": args.mb, "slice": args.slice, "seed": args.seed, "results": results}
    output["machine"] = machine()
    print_result(results)
    if args.json:
        write_json(args.json.name, output, args.json.parent)


if __name__ == "__main__":
    main()
