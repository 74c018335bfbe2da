"""PostgreSQL (pgvector HNSW) beside SQLite: recall and forget latency in one run.

1. Recall at the size of the SQLite store (~100k), both backends, with and without the query
   embedding (as in `bench_recall.py`: "without" is the same `Lethe.recall` on an instance
   whose embedder answers from precomputed query vectors), plus each store's vector and
   full-text candidate searches and a recall with `touch=False`. All modes take turns query
   by query, so the machine's load hits both backends alike.
2. Forget (`execute(plan_forget([id]))`, each target linked to 5 memories, as in
   `bench_forget.py`), restore and purge, on both, taking turns id by id.
3. Recall quality: the HNSW index is approximate, so its top 10 (and top 50, the depth recall
   asks for) are compared with the exact top-k of a numpy brute force over the same vectors.
4. With `--pg-million`: recall on PostgreSQL at 1,000,000 memories. That set is SYNTHETIC,
   derived from the real embeddings: the real rows plus rows whose vector is a normalised
   mixture of one real vector (weight 0.70-0.95), another random real vector and Gaussian
   noise, and whose content is the first source's text with a "[synthetic #N]" suffix. The
   queries and their embeddings are real. The HNSW build time is measured and reported.

PostgreSQL gets the SQLite store's rows as they are (memories with their ids, content,
metadata, tags, times and vectors; links; audit events; access_days) through COPY into a
database whose schema `Lethe.open(dsn)` created; the secondary indexes of `memories` (HNSW,
GIN, b-trees) are dropped before the load and built again after it, timed. Episodes,
working sets and pending confirmations are empty in the source and left empty.

The server is the pgserver wheel's PostgreSQL 16 + pgvector 0.6 (tests/pg_support.py),
restarted once with the settings in PG_SETTINGS and stopped at the end; `--dsn` uses a
server someone else runs (a database is created on it and dropped afterwards).

    python bench/bench_backends.py --sqlite /tmp/lb/s100k.db               # copied, never changed
    python bench/bench_backends.py --sqlite /tmp/lb/s100k.db --pg-million  # + 1M on PostgreSQL
    python bench/bench_backends.py --size 10000                            # builds a store (slow)
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import corpus
import numpy as np
from bench_recall import COMMON_WORD, WARMUP, brute_force, interleaved, summarize
from common import BENCH_DIR, CachedEmbedder, log, machine, stats_ms, store_for, write_json

from lethe import Filters, Lethe
from lethe.embed import Embedder, Vectors, load_default_embedder
from lethe.store.postgres import EF_SEARCH_MIN, ef_search

sys.path.insert(0, str(BENCH_DIR.parent))  # tests/pg_support.py: the test servers' helpers

import psycopg
from pgvector.psycopg import register_vector
from psycopg.types.json import Jsonb

from tests import pg_support

# A server sized for the data instead of pg_support's test settings (shared_buffers 64MB):
# the table and the HNSW index of 1M rows (~4 GB together) stay in PostgreSQL's own cache.
PG_SETTINGS = {
    "shared_buffers": "4GB",
    "effective_cache_size": "12GB",
    "max_wal_size": "8GB",
    "checkpoint_timeout": "30min",
    "max_parallel_maintenance_workers": "1",  # 2 cores: the leader and one worker build
}
# A parallel HNSW build puts its whole maintenance_work_mem in dynamic shared memory; the
# test servers use `mmap` (a file zero-filled first, 4 GB in ~20 s here), so where /dev/shm
# can hold it the server gets PostgreSQL's default, `posix`.
SHM_NEEDED = 10 * 2**30
# maintenance_work_mem for an index build: what pgvector's in-memory HNSW graph needs (about
# 2.3 kB per 384-d element) with room to spare, so the graph never spills to disk.
MWM_PER_ROW_KB = 3.5
LINKS_PER_TARGET = 5
MEMORY_COLUMNS = (
    "num, id, namespace, agent, content, content_sha256, layer, category, metadata, importance, "
    "private, created_at, updated_at, last_accessed_at, access_count, status, forgotten_at, "
    "forgotten_by, forget_reason, embedding"
)
MEMORY_TYPES = [
    *("int8", "text", "text", "text", "text", "text", "text", "text", "jsonb", "float8"),
    *("bool", "float8", "float8", "float8", "int4", "text", "float8", "text", "text", "vector"),
]
EVENT_COLUMNS = "seq, at, op, memory_id, namespace, actor, reason, details, content_sha256"
EVENT_TYPES = ["int8", "float8", "text", "text", "text", "text", "text", "text", "text"]


# -- the source rows ---------------------------------------------------------------------------


@dataclass
class Source:
    """Everything of the SQLite store that PostgreSQL gets, read once before any measurement
    changes the store."""

    memories: list[tuple[Any, ...]]  # MEMORY_COLUMNS without the embedding
    vectors: Vectors  # one row per memory, same order
    tags: dict[str, list[str]]  # memory id -> tags in insertion order
    links: list[tuple[Any, ...]]
    events: list[tuple[Any, ...]]
    access_days: list[tuple[Any, ...]]
    active: np.ndarray[Any, Any] = field(default_factory=lambda: np.zeros(0, dtype=bool))


def read_source(db: Path) -> Source:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute(f"SELECT {MEMORY_COLUMNS} FROM memories ORDER BY num").fetchall()
        tags: dict[str, list[str]] = {}
        for memory_id, tag in conn.execute("SELECT memory_id, tag FROM memory_tags ORDER BY rowid"):
            tags.setdefault(memory_id, []).append(tag)
        links = conn.execute(
            "SELECT a, b, kind, confidence, created_at, updated_at FROM links"
        ).fetchall()
        events = conn.execute(f"SELECT {EVENT_COLUMNS} FROM events ORDER BY seq").fetchall()
        days = conn.execute("SELECT memory_id, day, count FROM access_days").fetchall()
    finally:
        conn.close()
    vectors = np.frombuffer(b"".join(r[-1] for r in rows), dtype="<f4").reshape(len(rows), -1)
    return Source(
        memories=[r[:-1] for r in rows],
        vectors=vectors.copy(),
        tags=tags,
        links=links,
        events=events,
        access_days=days,
        active=np.array([r[15] == "active" for r in rows], dtype=bool),
    )


# -- the PostgreSQL server ---------------------------------------------------------------------


@contextlib.contextmanager
def pg_server(dsn: str | None) -> Iterator[pg_support.PgServer]:
    """A server for the run: the one at `dsn`, else a fresh pgserver cluster, restarted once
    with PG_SETTINGS and always stopped (its temp dir removed) at the end."""
    if dsn:
        yield pg_support.external_server(dsn)
        return
    srv = pg_support.start_server("lethe_bench")
    try:
        with psycopg.connect(srv.admin_dsn, autocommit=True) as conn:
            settings = dict(PG_SETTINGS)
            if Path("/dev/shm").is_dir() and shutil.disk_usage("/dev/shm").free > SHM_NEEDED:
                settings["dynamic_shared_memory_type"] = "posix"
            for name, value in settings.items():
                conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
        _restart(srv)
        yield srv
    finally:
        pg_support.stop_server(srv)


def _restart(srv: pg_support.PgServer) -> None:
    """Stop and start a pgserver cluster (shared_buffers only changes at a start), the way
    pg_support starts one: the postmaster as our child, in its own session."""
    assert srv.bindir is not None and srv.datadir is not None and srv.base is not None
    pg_support._stop(srv.pid, srv.proc, 30.0)
    srv.pid = srv.proc = None
    with open(srv.base / "server.log", "ab") as out:
        srv.proc = subprocess.Popen(
            pg_support._as([str(srv.bindir / "postgres"), "-D", str(srv.datadir)], srv.os_user),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    srv.pid = pg_support._wait_ready(srv.proc, srv.datadir, 120.0)


def server_facts(dsn: str) -> dict[str, str]:
    with psycopg.connect(dsn, autocommit=True) as conn:
        facts = {
            name: str(conn.execute(f"SHOW {name}").fetchone()[0])  # type: ignore[index]
            for name in (
                "server_version",
                "shared_buffers",
                "effective_cache_size",
                "max_parallel_maintenance_workers",
                "jit",
                "dynamic_shared_memory_type",
                "fsync",
                "synchronous_commit",
            )
        }
        row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        facts["pgvector"] = str(row.fetchone()[0])  # type: ignore[index]
    return facts


# -- loading PostgreSQL ------------------------------------------------------------------------


@dataclass
class Synthetic:
    """Rows derived from the source for a bigger PostgreSQL store (see the module doc)."""

    count: int
    seed: int
    vectors: Vectors = field(default_factory=lambda: np.zeros((0, 0), dtype=np.float32))
    sources: np.ndarray[Any, Any] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def make(self, src: Source) -> None:
        rng = np.random.default_rng(self.seed)
        live = np.flatnonzero(src.active)
        dim = src.vectors.shape[1]
        self.sources = rng.choice(live, size=self.count)
        self.vectors = np.empty((self.count, dim), dtype=np.float32)
        for start in range(0, self.count, 100_000):
            end = min(self.count, start + 100_000)
            n = end - start
            weight = rng.uniform(0.70, 0.95, size=(n, 1)).astype(np.float32)
            other = src.vectors[rng.choice(live, size=n)]
            noise = rng.normal(0.0, 0.02, size=(n, dim)).astype(np.float32)
            mix = weight * src.vectors[self.sources[start:end]] + (1 - weight) * other + noise
            mix /= np.linalg.norm(mix, axis=1, keepdims=True)
            self.vectors[start:end] = mix

    @staticmethod
    def id_of(j: int) -> str:
        return f"mem_x{j:011x}"


def load_postgres(
    dsn: str,
    src: Source,
    embedder: Embedder,
    *,
    synthetic: Synthetic | None = None,
    maintenance_work_mem: str = "auto",
    build_timeout_s: float = 0,
) -> dict[str, Any]:
    """Create the lethe schema at `dsn`, COPY the source (and synthetic) rows in, build the
    indexes of `memories` again, VACUUM ANALYZE. Returns the timings."""
    timings: dict[str, Any] = {}
    start = time.perf_counter()
    Lethe.open(dsn, embedder=embedder).close()  # the schema, as lethe itself creates it
    with psycopg.connect(dsn, autocommit=True) as conn:
        register_vector(conn)
        conn.add_notice_handler(lambda d: log(f"  [postgres] {d.severity}: {d.message_primary}"))
        indexes = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories' "
            "AND indexname NOT IN (SELECT conname FROM pg_constraint)"
        ).fetchall()
        for name, _ in indexes:
            conn.execute(f"DROP INDEX {name}")
        t = time.perf_counter()
        with conn.transaction(), conn.cursor() as cur:
            rows = _copy(
                cur, "memories", MEMORY_COLUMNS, MEMORY_TYPES, _memory_rows(src, synthetic)
            )
            timings["copy_memories_s"] = round(time.perf_counter() - t, 1)
            log(f"  {rows:,} memories copied in {timings['copy_memories_s']} s")
            t = time.perf_counter()
            tag_rows = _copy(
                cur,
                "memory_tags",
                "memory_id, tag, position",
                ["text", "text", "int4"],
                _tag_rows(src, synthetic),
            )
            _copy(
                cur,
                "links",
                "a, b, kind, confidence, created_at, updated_at",
                ["text", "text", "text", "float8", "float8", "float8"],
                iter(src.links),
            )
            events = _copy(cur, "events", EVENT_COLUMNS, EVENT_TYPES, _event_rows(src, synthetic))
            _copy(
                cur,
                "access_days",
                "memory_id, day, count",
                ["text", "int4", "int4"],
                iter(src.access_days),
            )
            cur.execute("SELECT setval('memories_num_seq', (SELECT max(num) FROM memories))")
            cur.execute("SELECT setval('events_seq_seq', (SELECT max(seq) FROM events))")
            timings["copy_rest_s"] = round(time.perf_counter() - t, 1)
        log(
            f"  {tag_rows:,} tags, {len(src.links):,} links, {events:,} events, "
            f"{len(src.access_days):,} access_days rows in {timings['copy_rest_s']} s"
        )
        if maintenance_work_mem == "auto":
            maintenance_work_mem = f"{max(64 * 1024, int(rows * MWM_PER_ROW_KB))}kB"
        timings["maintenance_work_mem"] = maintenance_work_mem
        conn.execute(f"SET maintenance_work_mem = '{maintenance_work_mem}'")
        builds: dict[str, float] = {}
        for name, definition in indexes:
            t = time.perf_counter()
            if "hnsw" in definition:
                log(f"  building {name} over {rows:,} vectors (HNSW, m=16, ef_construction=64)")
                if build_timeout_s:
                    conn.execute(f"SET statement_timeout = {int(build_timeout_s * 1000)}")
                with _progress(dsn, rows):
                    conn.execute(definition)
                conn.execute("SET statement_timeout = 0")
            else:
                conn.execute(definition)
            builds[name] = round(time.perf_counter() - t, 1)
            log(f"  index {name}: {builds[name]} s")
        timings["index_build_s"] = builds
        t = time.perf_counter()
        conn.execute("VACUUM ANALYZE")
        timings["vacuum_analyze_s"] = round(time.perf_counter() - t, 1)
        size = conn.execute(
            "SELECT pg_relation_size('memories_embedding'), pg_total_relation_size('memories'), "
            "pg_database_size(current_database())"
        ).fetchone()
        assert size is not None
        timings["hnsw_index_mb"] = round(size[0] / 2**20)
        timings["memories_total_mb"] = round(size[1] / 2**20)
        timings["database_mb"] = round(size[2] / 2**20)
    timings["memories"] = rows
    timings["total_s"] = round(time.perf_counter() - start, 1)
    return timings


def _copy(
    cur: psycopg.Cursor[Any],
    table: str,
    columns: str,
    types: list[str],
    rows: Iterator[tuple[Any, ...]],
) -> int:
    n = 0
    with cur.copy(f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(types)
        for row in rows:
            copy.write_row(row)
            n += 1
    return n


def _raw_json(text: str) -> Jsonb:
    return Jsonb(text, dumps=lambda s: s)  # already JSON text: no parse and dump again


def _memory_rows(src: Source, synthetic: Synthetic | None) -> Iterator[tuple[Any, ...]]:
    for row, vector in zip(src.memories, src.vectors, strict=True):
        yield (*row[:8], _raw_json(row[8]), row[9], bool(row[10]), *row[11:], vector)
    if synthetic is None:
        return
    base = max(r[0] for r in src.memories)
    for j, (s, vector) in enumerate(zip(synthetic.sources, synthetic.vectors, strict=True)):
        row = src.memories[s]
        content = f"{row[4]} [synthetic #{j}]"
        metadata = json.dumps({"source": "bench-synthetic", "derived_from": row[1]})
        yield (
            *(base + 1 + j, synthetic.id_of(j), row[2], row[3], content),
            hashlib.sha256(content.encode()).hexdigest(),
            *(row[6], row[7], _raw_json(metadata), row[9], False),
            *(row[11] + 0.001 * (j + 1), row[11] + 0.001 * (j + 1), None, 0, "active"),
            *(None, None, None, vector),
        )


def _tag_rows(src: Source, synthetic: Synthetic | None) -> Iterator[tuple[Any, ...]]:
    for memory_id, tags in src.tags.items():
        for i, tag in enumerate(tags):
            yield (memory_id, tag, i)
    if synthetic is None:
        return
    for j, s in enumerate(synthetic.sources):
        for i, tag in enumerate(src.tags.get(src.memories[s][1], ())):
            yield (synthetic.id_of(j), tag, i)


def _event_rows(src: Source, synthetic: Synthetic | None) -> Iterator[tuple[Any, ...]]:
    yield from src.events
    if synthetic is None:
        return
    seq = max((e[0] for e in src.events), default=0)
    for j, s in enumerate(synthetic.sources):
        row = src.memories[s]
        content_sha = hashlib.sha256(f"{row[4]} [synthetic #{j}]".encode()).hexdigest()
        details = json.dumps(
            {"layer": row[6], "category": row[7], "importance": row[9], "synthetic": True}
        )
        at = row[11] + 0.001 * (j + 1)
        yield (
            seq + 1 + j,
            at,
            "remember",
            synthetic.id_of(j),
            row[2],
            row[3],
            None,
            details,
            content_sha,
        )


@contextlib.contextmanager
def _progress(dsn: str, total: int) -> Iterator[None]:
    """Log pg_stat_progress_create_index every 30 s while an index builds."""
    stop = threading.Event()
    start = time.perf_counter()

    def watch() -> None:
        with psycopg.connect(dsn, autocommit=True) as conn:
            while not stop.wait(30.0):
                row = conn.execute(
                    "SELECT phase, tuples_done, tuples_total FROM pg_stat_progress_create_index"
                ).fetchone()
                if row:
                    log(
                        f"    {time.perf_counter() - start:6.0f} s: {row[0]}, "
                        f"tuples done {row[1]:,} of {total:,}"
                    )

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def table_stats(dsn: str) -> dict[str, int]:
    """Updates of `memories` (how many were HOT: no new index entries) and the HNSW index's
    size. Since migration 2 no index holds the access statistics a recall's touch updates, so
    the touch can be HOT (before, every touched row got new entries in every index, HNSW
    included)."""
    time.sleep(1.5)  # the statistics of other sessions reach the shared counters within 1 s
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(
            "SELECT n_tup_upd, n_tup_hot_upd, pg_relation_size('memories_embedding') "
            "FROM pg_stat_user_tables WHERE relname = 'memories'"
        ).fetchone()
    assert row is not None
    return {"updates": int(row[0]), "hot_updates": int(row[1]), "hnsw_bytes": int(row[2])}


def explain_vector_search(dsn: str, query: Vectors, n: int) -> str:
    """The plan of the store's vector query: it must use the HNSW index."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        register_vector(conn)
        conn.execute(f"SET hnsw.ef_search = {ef_search(n)}")
        rows = conn.execute(
            "EXPLAIN SELECT m.id, 1 - (m.embedding <=> %s) AS similarity FROM memories m "
            "WHERE m.namespace = 'default' AND m.status = 'active' "
            "ORDER BY m.embedding <=> %s LIMIT %s",
            [query, query, n],
        ).fetchall()
    return re.sub(r"'\[[^\]]*\]'", "'[...]'", "\n".join(r[0] for r in rows))


# -- measurements ------------------------------------------------------------------------------


@dataclass
class Backend:
    name: str
    mem: Lethe  # the real encoder
    fast: Lethe  # precomputed query vectors


def recall_modes(
    backends: list[Backend], embedder: Embedder, vectors: dict[str, Vectors], k: int
) -> dict[str, Callable[[str], object]]:
    depth = max(50, 5 * k)
    flt = Filters()
    modes: dict[str, Callable[[str], object]] = {"query_embedding": lambda q: embedder.embed([q])}
    for b in backends:
        mem, fast, store = b.mem, b.fast, b.fast.store
        modes[f"{b.name}.recall"] = lambda q, m=mem: m.recall(q, k=k)
        modes[f"{b.name}.recall_no_embed"] = lambda q, m=fast: m.recall(q, k=k)
        modes[f"{b.name}.recall_no_embed_no_touch"] = lambda q, m=fast: m.recall(
            q, k=k, touch=False
        )
        modes[f"{b.name}.vector_search"] = lambda q, s=store: s.vector_search(
            vectors[q], flt, depth
        )
        modes[f"{b.name}.lexical_search"] = lambda q, s=store: s.lexical_search(q, flt, depth)
    return modes


def time_recall(
    backends: list[Backend],
    embedder: Embedder,
    queries: list[str],
    vectors: dict[str, Vectors],
    *,
    k: int,
    rounds: int,
    skip: tuple[str, ...] = (),
) -> dict[str, Any]:
    modes = recall_modes(backends, embedder, vectors, k)
    modes = {name: fn for name, fn in modes.items() if not name.endswith(skip)}
    log(f"  warm-up ({WARMUP} queries), then {len(queries)} queries x {rounds} rounds")
    interleaved(modes, queries[:WARMUP], 1)
    times = interleaved(modes, queries, rounds)
    result: dict[str, Any] = {name: summarize(times[name]) for name in modes}
    # Queries that say "user" share a word with most memories (see bench_recall.py).
    common = [i for i, q in enumerate(queries) if COMMON_WORD.search(q)]
    others = [i for i in range(len(queries)) if i not in set(common)]
    for name in modes:
        if name.endswith(("recall_no_embed", "lexical_search")):
            pooled = [r[i] for r in times[name] for i in common]
            rest = [r[i] for r in times[name] for i in others]
            result[f"{name}_by_query"] = {
                "mentions_user": stats_ms(pooled) if pooled else None,
                "other": stats_ms(rest) if rest else None,
                "queries_mentioning_user": len(common),
            }
        log(f"    {name}: p50 {result[name]['p50_ms']:.2f} ms, p95 {result[name]['p95_ms']:.2f}")
    return result


def exact_topk(
    matrix: Vectors, ids: list[str], queries: list[str], vectors: dict[str, Vectors], k: int = 50
) -> tuple[dict[str, list[str]], dict[str, Any]]:
    """Each query's exact top-k ids, best first (numpy brute force), and that search's timing:
    the float32 floor for exact search at this size."""
    exact: dict[str, list[str]] = {}
    times: list[float] = []
    for q in queries:
        t = time.perf_counter()
        top = brute_force(matrix, vectors[q], k)
        times.append(time.perf_counter() - t)
        exact[q] = [ids[int(j)] for j in top]
    return exact, stats_ms(times)


def _overlap(found: list[str], exact: list[str]) -> float:
    return len(set(found) & set(exact)) / len(exact)


def quality(
    store: Any, exact: dict[str, list[str]], vectors: dict[str, Vectors], ks: tuple[int, ...]
) -> dict[str, Any]:
    """Mean overlap of the store's vector top-k with the exact top-k (the index's recall@k)."""
    flt = Filters()
    result: dict[str, Any] = {}
    for k in ks:
        overlaps, counts = [], []
        for q, top in exact.items():
            found = [i for i, _ in store.vector_search(vectors[q], flt, k)]
            overlaps.append(_overlap(found, top[:k]))
            counts.append(len(found))
        result[f"recall_at_{k}"] = round(float(np.mean(overlaps)), 4)
        result[f"recall_at_{k}_min"] = round(float(np.min(overlaps)), 2)
        result[f"recall_at_{k}_perfect_queries"] = int(sum(o == 1.0 for o in overlaps))
        result[f"results_at_{k}_min"] = min(counts)
    result["queries"] = len(exact)
    return result


def ef_sweep(
    dsn: str,
    exact: dict[str, list[str]],
    vectors: dict[str, Vectors],
    efs: tuple[int, ...] = (100, 200, 400),
    k: int = 10,
) -> dict[str, Any]:
    """The store's vector query (top 10) at other hnsw.ef_search values than lethe's
    max(100, 2k): recall@10 against exact and the query's time, as SQL on one connection."""
    result: dict[str, Any] = {}
    with psycopg.connect(dsn, autocommit=True) as conn:
        register_vector(conn)
        for ef in efs:
            conn.execute(f"SET hnsw.ef_search = {ef}")
            overlaps, times = [], []
            for q, top in exact.items():
                t = time.perf_counter()
                rows = conn.execute(
                    "SELECT m.id, 1 - (m.embedding <=> %s) FROM memories m "
                    "WHERE m.namespace = 'default' AND m.status = 'active' "
                    "ORDER BY m.embedding <=> %s LIMIT %s",
                    [vectors[q], vectors[q], k],
                ).fetchall()
                times.append(time.perf_counter() - t)
                overlaps.append(_overlap([r[0] for r in rows], top[:k]))
            result[f"ef_search_{ef}"] = {
                f"recall_at_{k}": round(float(np.mean(overlaps)), 4),
                **stats_ms(times),
            }
    return result


def time_forget(
    backends: list[Backend], *, samples: int, purge_samples: int, seed: int = 7
) -> dict[str, Any]:
    """forget / restore / purge of the same ids on every backend, taking turns id by id."""
    rng = random.Random(seed)
    ids = backends[0].mem.store.memory_ids()
    targets = rng.sample(ids, samples + purge_samples)
    plan = []  # the same links on every backend
    for target in targets:
        others = [o for o in rng.sample(ids, LINKS_PER_TARGET + 3) if o != target]
        plan.append((target, others))
    for b in backends:
        mem = b.mem
        for target, others in plan:
            have = len(mem.links(target))
            for other in others:
                if have >= LINKS_PER_TARGET:
                    break
                mem.link(target, other, kind="bench", confidence=0.5)
                have += 1
    link_counts = {b.name: min(len(b.mem.links(t)) for t in targets) for b in backends}
    forget_ids, purge_ids = targets[:samples], targets[samples:]
    ops: dict[str, Callable[[Lethe, str], object]] = {
        "forget": lambda m, i: m.execute(m.plan_forget([i])),
        "restore": lambda m, i: m.restore(i),
        "purge": lambda m, i: m.execute(m.plan_purge([i])),
    }
    result: dict[str, Any] = {"links_per_target_min": link_counts}
    for op, fn in ops.items():
        chosen = purge_ids if op == "purge" else forget_ids
        log(f"  {op} x{len(chosen)} per backend")
        times: dict[str, list[float]] = {b.name: [] for b in backends}
        for n, memory_id in enumerate(chosen):
            order = backends if n % 2 == 0 else backends[::-1]
            for b in order:
                t = time.perf_counter()
                fn(b.mem, memory_id)
                times[b.name].append(time.perf_counter() - t)
        for b in backends:
            result[f"{b.name}.{op}"] = stats_ms(times[b.name])
            log(f"    {b.name}.{op}: p50 {result[f'{b.name}.{op}']['p50_ms']:.2f} ms")
    return result


# -- the run -----------------------------------------------------------------------------------


def run(
    sqlite_db: Path,
    *,
    dsn: str | None = None,
    n_queries: int = 200,
    rounds: int = 3,
    k: int = 10,
    forget_samples: int = 200,
    purge_samples: int = 20,
    million: int = 0,
    million_rounds: int = 1,
    million_queries: int = 100,
    million_skip: tuple[str, ...] = ("lexical_search",),
    maintenance_work_mem: str = "auto",
    build_timeout_s: float = 3600,
    embedder: Embedder | None = None,
) -> dict[str, Any]:
    """Everything in one process; the SQLite store is copied first and never changed."""
    embedder = embedder or load_default_embedder()
    result: dict[str, Any] = {"sqlite_source": str(sqlite_db)}
    with tempfile.TemporaryDirectory(prefix="lethe-backends-") as tmp:
        work = Path(tmp) / "store.db"
        log(f"copying {sqlite_db} to {work}")
        shutil.copyfile(sqlite_db, work)
        src = read_source(work)
        live = np.flatnonzero(src.active)
        ids = [src.memories[i][1] for i in live]
        matrix = np.ascontiguousarray(src.vectors[live])
        size = len(ids)
        result["size"] = size
        queries = corpus.queries(n_queries, seed=1)
        embedder.embed(queries[:8])  # warm the encoder
        vectors = {q: np.ascontiguousarray(embedder.embed([q])[0]) for q in queries}
        cached = CachedEmbedder(embedder, vectors)

        with pg_server(dsn) as srv:
            result["postgres"] = server_facts(srv.dsn)
            log(f"PostgreSQL: {result['postgres']}")
            small = f"lethe_bench_{os.getpid()}_small"
            pg_dsn = pg_support.create_database(srv, small, extensions=("vector",))
            try:
                log(f"[load] {size:,} memories into PostgreSQL")
                result["pg_load"] = load_postgres(
                    pg_dsn, src, embedder, maintenance_work_mem=maintenance_work_mem
                )
                result["pg_plan"] = explain_vector_search(pg_dsn, vectors[queries[0]], 50)
                result.update(
                    compare(
                        work,
                        pg_dsn,
                        embedder,
                        cached,
                        queries,
                        vectors,
                        matrix,
                        ids,
                        k=k,
                        rounds=rounds,
                        forget_samples=forget_samples,
                        purge_samples=purge_samples,
                    )
                )
            finally:
                pg_support.drop_database(srv, small)
            if million:
                result["pg_million"] = pg_million(
                    srv,
                    src,
                    embedder,
                    cached,
                    queries[: million_queries or None],
                    vectors,
                    total=million,
                    k=k,
                    rounds=million_rounds,
                    maintenance_work_mem=maintenance_work_mem,
                    build_timeout_s=build_timeout_s,
                    skip=million_skip,
                )
        if cached.misses:
            raise SystemExit(f"the cached embedder missed {cached.misses} times; timings invalid")
    return result


def _delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {key: after[key] - before[key] for key in before}


def compare(
    work: Path,
    pg_dsn: str,
    embedder: Embedder,
    cached: CachedEmbedder,
    queries: list[str],
    vectors: dict[str, Vectors],
    matrix: Vectors,
    ids: list[str],
    *,
    k: int,
    rounds: int,
    forget_samples: int,
    purge_samples: int,
) -> dict[str, Any]:
    result: dict[str, Any] = {}
    backends: list[Backend] = []
    try:
        for name, target in (("sqlite", str(work)), ("postgres", pg_dsn)):
            t = time.perf_counter()
            mem = Lethe.open(target, embedder=embedder)
            mem.recall(queries[0], k=k, touch=False)  # SQLite loads its vector index here
            result[f"{name}.first_recall_ms"] = round((time.perf_counter() - t) * 1000, 1)
            fast = Lethe.open(target, embedder=cached)
            fast.recall(queries[0], k=k, touch=False)
            backends.append(Backend(name, mem, fast))
        pg = backends[1].fast.store
        flt = Filters()
        rng = np.random.default_rng(5)
        for j in rng.choice(len(ids), size=300, replace=False):  # warm the HNSW pages
            pg.vector_search(matrix[j], flt, 50)
        log("[quality] vector top-k against the exact top-k, before the timed recalls")
        exact, floor = exact_topk(matrix, ids, queries, vectors)
        result["quality_before_recall"] = {
            b.name: quality(b.fast.store, exact, vectors, (10, 50)) for b in backends
        }
        log(f"  {result['quality_before_recall']}")
        log(f"[recall] {len(ids):,} memories, sqlite and postgres")
        before = table_stats(pg_dsn)
        result["recall"] = time_recall(backends, embedder, queries, vectors, k=k, rounds=rounds)
        result["pg_stats_during_recall"] = _delta(before, table_stats(pg_dsn))
        log(f"  {result['pg_stats_during_recall']}")
        log("[quality] again, after the recalls (whose touches added index entries)")
        result["quality"] = {
            b.name: quality(b.fast.store, exact, vectors, (10, 50)) for b in backends
        }
        result["quality"]["numpy_bruteforce"] = floor
        result["quality"]["postgres_ef_search"] = ef_sweep(pg_dsn, exact, vectors)
        same = [
            len(
                {h.memory.id for h in backends[0].fast.recall(q, k=k, touch=False)}
                & {h.memory.id for h in backends[1].fast.recall(q, k=k, touch=False)}
            )
            / k
            for q in queries
        ]
        result["quality"]["recall_hits_overlap_sqlite_postgres"] = round(float(np.mean(same)), 4)
        log(f"  {result['quality']}")
        log("[forget]")
        result["forget"] = time_forget(
            backends, samples=forget_samples, purge_samples=purge_samples
        )
    finally:
        for b in backends:
            b.mem.close()
            b.fast.close()
    return result


def pg_million(
    srv: pg_support.PgServer,
    src: Source,
    embedder: Embedder,
    cached: CachedEmbedder,
    queries: list[str],
    vectors: dict[str, Vectors],
    *,
    total: int,
    k: int,
    rounds: int,
    maintenance_work_mem: str,
    build_timeout_s: float,
    skip: tuple[str, ...] = (),
) -> dict[str, Any]:
    n_real = len(src.memories)
    synthetic = Synthetic(count=max(0, total - n_real), seed=11)
    log(f"[pg {total:,}] synthesizing {synthetic.count:,} vectors from {n_real:,} real ones")
    synthetic.make(src)
    live = np.flatnonzero(src.active)
    matrix = np.concatenate([src.vectors[live], synthetic.vectors])
    ids = [src.memories[i][1] for i in live] + [Synthetic.id_of(j) for j in range(synthetic.count)]
    result: dict[str, Any] = {
        "synthetic": (
            f"{synthetic.count:,} of {len(ids):,} rows are synthetic: normalised mixtures "
            "w*x_s + (1-w)*x_t + N(0, 0.02^2) of two real MiniLM vectors, w ~ U(0.70, 0.95); "
            "content = source text + ' [synthetic #N]'; queries and their vectors are real"
        ),
        "size": len(ids),
    }
    real_cos = np.einsum(
        "ij,ij->i", synthetic.vectors[:10_000], src.vectors[synthetic.sources[:10_000]]
    )
    result["synthetic_cos_to_source_p50"] = round(float(np.median(real_cos)), 3)
    big = f"lethe_bench_{os.getpid()}_million"
    pg_dsn = pg_support.create_database(srv, big, extensions=("vector",))
    try:
        try:
            result["pg_load"] = load_postgres(
                pg_dsn,
                src,
                embedder,
                synthetic=synthetic,
                maintenance_work_mem=maintenance_work_mem,
                build_timeout_s=build_timeout_s,
            )
        except psycopg.errors.QueryCanceled as exc:
            result["error"] = f"the HNSW build did not finish in {build_timeout_s:.0f} s: {exc}"
            log(result["error"])
            return result
        synthetic.vectors = np.zeros((0, 0), dtype=np.float32)  # the matrix holds them
        result["pg_plan"] = explain_vector_search(pg_dsn, vectors[queries[0]], 50)
        mem = Lethe.open(pg_dsn, embedder=embedder)
        fast = Lethe.open(pg_dsn, embedder=cached)
        try:
            flt = Filters()
            rng = np.random.default_rng(5)
            for j in rng.choice(len(ids), size=300, replace=False):
                fast.store.vector_search(matrix[j], flt, 50)
            log("[quality] HNSW top-k against the exact top-k, before the timed recalls")
            exact, floor = exact_topk(matrix, ids, queries, vectors)
            result["quality_before_recall"] = quality(fast.store, exact, vectors, (10, 50))
            log(f"  {result['quality_before_recall']}")
            log(f"[recall] {len(ids):,} memories, postgres")
            before = table_stats(pg_dsn)
            result["recall"] = time_recall(
                [Backend("postgres", mem, fast)],
                embedder,
                queries,
                vectors,
                k=k,
                rounds=rounds,
                skip=skip,
            )
            result["pg_stats_during_recall"] = _delta(before, table_stats(pg_dsn))
            log(f"  {result['pg_stats_during_recall']}")
            log("[quality] again, after the recalls")
            result["quality"] = quality(fast.store, exact, vectors, (10, 50))
            result["quality"]["numpy_bruteforce"] = floor
            result["quality"]["postgres_ef_search"] = ef_sweep(pg_dsn, exact, vectors)
            log(f"  {result['quality']}")
        finally:
            mem.close()
            fast.close()
    finally:
        pg_support.drop_database(srv, big)
    return result


# -- output ------------------------------------------------------------------------------------


def _pair(section: dict[str, Any], key: str) -> str:
    s = section.get(key)
    return "-" if s is None else f"{s['p50_ms']:.2f} / {s['p95_ms']:.2f}"


def _recall(q: dict[str, Any]) -> str:
    return f"{q['recall_at_10']:.3f} / {q['recall_at_50']:.3f}"


def _sweep(sweep: dict[str, Any]) -> str:
    cells = [
        f"{name.removeprefix('ef_search_')}: {v['recall_at_10']:.3f} in {v['p50_ms']:.2f} ms"
        for name, v in sweep.items()
    ]
    return f"HNSW recall@10 and p50 by ef_search (lethe uses {EF_SEARCH_MIN}) " + ", ".join(cells)


def print_result(r: dict[str, Any]) -> None:
    rec, fg = r["recall"], r["forget"]
    print(f"backends at {r['size']:,} memories (k=10; p50 / p95 ms)")
    print(f"  {'':52s}{'SQLite':>20s}{'PostgreSQL':>20s}")
    rows = [
        ("recall, query embedding included", "recall", rec),
        ("recall without the embedding", "recall_no_embed", rec),
        ("recall without the embedding, touch=False", "recall_no_embed_no_touch", rec),
        ("  vector search alone (depth 50)", "vector_search", rec),
        ("  full-text search alone (depth 50)", "lexical_search", rec),
        ("forget (plan + execute, 5 links)", "forget", fg),
        ("restore", "restore", fg),
        ("purge (plan + execute)", "purge", fg),
    ]
    for label, key, section in rows:
        cells = [_pair(section, f"{b}.{key}") for b in ("sqlite", "postgres")]
        print(f"  {label:52s}{cells[0]:>20s}{cells[1]:>20s}")
    for key in ("recall_no_embed", "lexical_search"):
        cells = []
        for b in ("sqlite", "postgres"):
            split = rec[f"{b}.{key}_by_query"]
            cells.append(
                f"{split['mentions_user']['p50_ms']:.2f} | {split['other']['p50_ms']:.2f}"
                if split["mentions_user"] and split["other"]
                else "-"
            )
        label = f"  {key} p50, 'user' queries | others"
        print(f"  {label:52s}{cells[0]:>20s}{cells[1]:>20s}")
    print(f"  query embedding alone: {_pair(rec, 'query_embedding')}")
    q, q0 = r["quality"], r["quality_before_recall"]
    print(
        f"  vector recall@10 / @50 against exact: SQLite {_recall(q0['sqlite'])}; PostgreSQL "
        f"HNSW {_recall(q0['postgres'])} before the timed recalls, {_recall(q['postgres'])} "
        f"after; recall hits shared by both: {q['recall_hits_overlap_sqlite_postgres']:.1%}"
    )
    print(f"  {_sweep(q['postgres_ef_search'])}; numpy brute force {_pair(q, 'numpy_bruteforce')}")
    load = r["pg_load"]
    print(
        f"  PostgreSQL load: COPY {load['copy_memories_s']} s + {load['copy_rest_s']} s, HNSW "
        f"build {load['index_build_s'].get('memories_embedding')} s, all indexes "
        f"{sum(load['index_build_s'].values()):.1f} s ({load['hnsw_index_mb']} MB HNSW)"
    )
    m = r.get("pg_million")
    if m:
        print(f"PostgreSQL at {m['size']:,} memories (SYNTHETIC, derived from real embeddings)")
        if "error" in m:
            print(f"  {m['error']}")
            return
        mr = m["recall"]
        for label, key in (
            ("recall, query embedding included", "recall"),
            ("recall without the embedding", "recall_no_embed"),
            ("recall without the embedding, touch=False", "recall_no_embed_no_touch"),
            ("  vector search alone (depth 50)", "vector_search"),
            ("  full-text search alone (depth 50)", "lexical_search"),
        ):
            print(f"  {label:52s}{_pair(mr, f'postgres.{key}'):>20s}")
        split = mr["postgres.recall_no_embed_by_query"]
        if split["mentions_user"] and split["other"]:
            cell = f"{split['mentions_user']['p50_ms']:.2f} | {split['other']['p50_ms']:.2f}"
            print(f"  {'  recall_no_embed p50, user queries | others':52s}{cell:>20s}")
        ml, mq, mq0 = m["pg_load"], m["quality"], m["quality_before_recall"]
        print(
            f"  HNSW build {ml['index_build_s'].get('memories_embedding')} s "
            f"({ml['hnsw_index_mb']} MB), COPY {ml['copy_memories_s']} s; vector recall@10 / "
            f"@50 against exact {_recall(mq0)} before the timed recalls, {_recall(mq)} after"
        )
        floor = _pair(mq, "numpy_bruteforce")
        print(f"  {_sweep(mq['postgres_ef_search'])}; numpy brute force {floor}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sqlite", type=Path, help="SQLite store to measure (copied first)")
    parser.add_argument("--size", type=int, default=10_000, help="memories, when building")
    parser.add_argument("--seed", type=int, default=0, help="corpus seed when building (0)")
    parser.add_argument("--dsn", help="an existing PostgreSQL server (needs CREATEDB, pgvector)")
    parser.add_argument("--queries", type=int, default=200, help="distinct queries (200)")
    parser.add_argument("--rounds", type=int, default=3, help="passes over the queries (3)")
    parser.add_argument("-k", type=int, default=10, help="hits per recall (10)")
    parser.add_argument("--forget-samples", type=int, default=200, help="forgets/restores (200)")
    parser.add_argument("--purge-samples", type=int, default=20, help="purges (20)")
    parser.add_argument(
        "--pg-million", action="store_true", help="also recall on PostgreSQL at 1M (synthetic)"
    )
    parser.add_argument("--million", type=int, default=1_000_000, help="that size (1000000)")
    # At 1M a recall whose query says "user" takes seconds on PostgreSQL (its full-text side
    # ranks every row holding the word), so the 1M step runs fewer calls by default.
    parser.add_argument("--million-rounds", type=int, default=1, help="passes at 1M (1)")
    parser.add_argument(
        "--million-queries", type=int, default=100, help="the first N queries at 1M (100; 0: all)"
    )
    parser.add_argument(
        "--million-skip",
        default="lexical_search",
        help="comma-separated modes left out at 1M (lexical_search: recall shows its cost)",
    )
    parser.add_argument(
        "--maintenance-work-mem",
        default="auto",
        help="for the index builds (auto: 3.5 kB per row, what the HNSW graph needs in memory)",
    )
    parser.add_argument(
        "--build-timeout", type=float, default=3600, help="give up the 1M HNSW build after (s)"
    )
    args = parser.parse_args()
    started = time.perf_counter()
    with store_for(args.sqlite, args.size, args.seed) as db:
        result: dict[str, Any] = {"machine_start": machine()}
        result |= run(
            db,
            dsn=args.dsn,
            n_queries=args.queries,
            rounds=args.rounds,
            k=args.k,
            forget_samples=args.forget_samples,
            purge_samples=args.purge_samples,
            million=args.million if args.pg_million else 0,
            million_rounds=args.million_rounds,
            million_queries=args.million_queries,
            million_skip=tuple(m.strip() for m in args.million_skip.split(",") if m.strip()),
            maintenance_work_mem=args.maintenance_work_mem,
            build_timeout_s=args.build_timeout,
        )
    result["machine_end"] = machine()
    result["total_seconds"] = round(time.perf_counter() - started, 1)
    path = write_json(f"backends-{result['size']}.json", result)
    print_result(result)
    print(
        f"\n{result['machine_start']['cpus']} CPUs, load average at start "
        f"{result['machine_start']['loadavg_1_5_15']}, at end "
        f"{result['machine_end']['loadavg_1_5_15']}; {result['total_seconds']:.0f} s in all"
    )
    print(f"({path})")


if __name__ == "__main__":
    main()
