"""Four processes share one store and run 500 mixed operations each (remember, recall, forget,
restore), on SQLite and on PostgreSQL; afterwards the store must agree with what the workers
were told: no lost write, no dangling link, no forgotten memory returned by recall, exactly
one audit event per change, and every failure one of lethe's own errors of the expected kinds.

Workers pick forget targets among the newest live memories and restore targets among the most
recently forgotten, so they often race for the same id. Each logs (op, id, outcome); the parent
checks the store against the logs. For an id, successful forgets and restores alternate, so
their counts alone (forgets - restores, 0 or 1) say whether it must end live or in the trash.
"""

from __future__ import annotations

import multiprocessing
import random
import sqlite3
import threading
import time
import traceback
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.model import Event

WORKERS = 4
OPS = 500
# op weights: remember 40%, recall 30%, forget 20%, restore 10%
WEIGHTS = {"remember": 40, "recall": 30, "forget": 20, "restore": 10}
FORGET_POOL = 6  # forget one of the newest live memories: workers collide often
RESTORE_POOL = 4  # restore one of the most recently forgotten
EXPECTED_ERRORS = {"MemoryNotFound"}
"""The failure concurrency makes legitimate: restoring an id another worker restored (or
forgot again) first. Anything else fails the test."""
TIMEOUT_S = 900

PEOPLE = ["Alice", "Bob", "Carmen", "Deepak", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas"]
VERBS = ["bought", "painted", "repaired", "sold", "borrowed", "lost", "found", "cleaned"]
THINGS = [
    "a red bicycle",
    "the garden shed",
    "an old piano",
    "a blue kayak",
    "the kitchen table",
    "a vintage camera",
    "a wool sweater",
    "the back fence",
    "a tomato plant",
    "the attic window",
]
PLACES = [
    "in Lisbon",
    "near the harbour",
    "at the market",
    "in Kyoto",
    "on Tuesday",
    "before winter",
    "after the storm",
    "in the village",
]


def _sentence(rng: random.Random, worker: int, n: int) -> str:
    """Short, varied sentences of one shape: most have a neighbour at cosine >= 0.7 (so
    remember makes links) and a few are near-duplicates (>= 0.95) of an earlier one."""
    return (
        f"{rng.choice(PEOPLE)} {rng.choice(VERBS)} {rng.choice(THINGS)} "
        f"{rng.choice(PLACES)} (note {worker}-{n})"
    )


def _worker(target: str, worker: int, seed: int, barrier: Any, queue: Any) -> None:
    """Run OPS operations on the store at `target`; put (worker, log) or (worker, crash)."""
    try:
        queue.put((worker, _run_ops(target, worker, seed, barrier)))
    except BaseException:
        queue.put((worker, {"crash": traceback.format_exc()}))


def _run_ops(target: str, worker: int, seed: int, barrier: Any) -> list[dict[str, Any]]:
    from lethe.embed import load_default_embedder
    from lethe.errors import LetheError

    rng = random.Random(seed)
    actor = f"worker{worker}"
    log: list[dict[str, Any]] = []
    mine: list[str] = []  # contents this worker remembered, to repeat as near-duplicates
    ops = rng.choices(list(WEIGHTS), weights=list(WEIGHTS.values()), k=OPS)
    with Lethe.open(target, embedder=load_default_embedder()) as mem:
        barrier.wait()
        for n, op in enumerate(ops):
            entry: dict[str, Any] = {"op": op, "worker": worker, "n": n}
            log.append(entry)
            try:
                if op == "remember":
                    duplicate = bool(mine) and rng.random() < 0.1
                    content = rng.choice(mine) if duplicate else _sentence(rng, worker, n)
                    entry["content"] = content
                    # Most remembers pass allow_duplicate (generated sentences can land at
                    # >= 0.95); one in five goes through the near-duplicate check.
                    check = duplicate or rng.random() < 0.2
                    memory = mem.remember(content, agent=actor, allow_duplicate=not check)
                    outcome = "existing" if memory.existing else "remembered"
                    entry.update(id=memory.id, outcome=outcome)
                    if not memory.existing:
                        mine.append(content)
                elif op == "recall":
                    query = rng.choice(mine) if mine and rng.random() < 0.5 else None
                    query = query or _sentence(rng, worker, n)
                    hits = mem.recall(query, k=5)
                    entry.update(
                        outcome="recalled",
                        hits=[h.memory.id for h in hits],
                        not_live=[h.memory.id for h in hits if h.memory.status != "active"],
                    )
                elif op == "forget":
                    _forget(mem, rng, actor, entry)
                else:
                    _restore(mem, rng, actor, entry)
            except LetheError as exc:
                entry.update(outcome="error", error=type(exc).__name__, message=str(exc))
            except Exception as exc:  # a raw driver error: the test reports and fails on it
                entry.update(outcome="raw", error=type(exc).__qualname__, message=str(exc))
    return log


def _forget(mem: Lethe, rng: random.Random, actor: str, entry: dict[str, Any]) -> None:
    """Forget one of the newest live memories by id (plan, then execute); then check that a
    recall for its content does not return it."""
    newest = mem.list_memories(limit=FORGET_POOL).items
    if not newest:
        entry["outcome"] = "nothing_live"
        return
    target = rng.choice(newest)
    entry["id"] = target.id
    plan = mem.plan_forget([target.id], actor=actor)
    if target.id in plan.not_found:
        entry["outcome"] = "gone_at_plan"
        return
    result = mem.execute(plan)
    if target.id in result.not_found:
        entry["outcome"] = "gone_at_execute"
        return
    if target.id not in result.executed:
        entry["outcome"] = f"unexpected: {result.model_dump_json()}"
        return
    entry["outcome"] = "forgotten"
    hits = [h.memory.id for h in mem.recall(target.content, k=10)]
    if target.id not in hits:
        entry["check"] = "not_returned"
        return
    # Returned: only fine if another worker restored it after this forget committed.
    events = mem.audit(memory_id=target.id, limit=10_000)
    ours = [e.seq for e in events if e.op == "forget" and e.details.get("plan") == plan.id]
    later = [e.seq for e in events if e.op == "restore" and ours and e.seq > ours[-1]]
    entry["check"] = "restored_by_another" if later else "RETURNED_AFTER_FORGET"


def _restore(mem: Lethe, rng: random.Random, actor: str, entry: dict[str, Any]) -> None:
    trash, _ = mem.list_trash(limit=RESTORE_POOL)
    if not trash:
        entry["outcome"] = "trash_empty"
        return
    target = rng.choice(trash).memory
    entry["id"] = target.id
    restored = mem.restore(target.id, actor=actor)
    entry["outcome"] = "restored" if restored.status == "active" else "RESTORED_NOT_ACTIVE"


def _run_workers(target: str, monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    # Four processes on a small machine: one BLAS thread each, or they spin against each other.
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(WORKERS)
    queue = context.Queue()
    procs = [
        context.Process(target=_worker, args=(target, w, 1000 + w, barrier, queue))
        for w in range(WORKERS)
    ]
    for p in procs:
        p.start()
    logs: dict[int, Any] = {}
    try:
        for _ in procs:
            worker, log = queue.get(timeout=TIMEOUT_S)
            logs[worker] = log
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.kill()
                p.join()
    crashes = {w: log["crash"] for w, log in logs.items() if isinstance(log, dict)}
    assert not crashes, "\n".join(f"worker {w}:\n{tb}" for w, tb in crashes.items())
    assert sorted(logs) == list(range(WORKERS))
    return [entry for w in sorted(logs) for entry in logs[w]]


def _fresh_recalls(target: str, queries: list[str]) -> list[list[tuple[str, str, str]]]:
    from lethe.embed import load_default_embedder

    with Lethe.open(target, embedder=load_default_embedder()) as mem:
        return [
            [
                (h.memory.id, h.memory.status, h.memory.content)
                for h in mem.recall(q, k=10, touch=False)
            ]
            for q in queries
        ]


def _recall_in_a_fresh_process(target: str, queries: list[str]) -> list[Any]:
    """(id, status, content) of each query's hits, from a new engine in a new process (with
    the one-BLAS-thread setting of the workers: this process's encoder spins its threads)."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply_async(_fresh_recalls, (target, queries)).get(timeout=TIMEOUT_S)


def _link_and_memory_rows(backend: str, target: str) -> tuple[list[tuple[str, str]], set[str]]:
    """Every link's ends and every memory id, straight from the backend's tables."""
    if backend == "sqlite":
        conn = sqlite3.connect(target)
        try:
            links = [(a, b) for a, b in conn.execute("SELECT a, b FROM links")]
            ids = {r[0] for r in conn.execute("SELECT id FROM memories")}
        finally:
            conn.close()
        return links, ids
    import psycopg

    with psycopg.connect(target) as pg:
        links = [(a, b) for a, b in pg.execute("SELECT a, b FROM links").fetchall()]
        ids = {r[0] for r in pg.execute("SELECT id FROM memories").fetchall()}
    return links, ids


@pytest.mark.slow
def test_four_processes_mixed_operations_keep_the_store_consistent(
    db: str, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`db` (tests/conftest.py) is a SQLite file under tmp_path or a fresh PostgreSQL
    database (`pg_dsn`): the test runs once on each.

    Slow (15–35 s): four processes, each loading the model, run 500 mixed operations on one
    store at once; fewer would leave the races between them untried."""
    target = db
    backend = "postgres" if db.startswith("postgresql") else "sqlite"
    Lethe.open(target, embedder=embedder).close()  # the schema exists before the race starts

    started = time.monotonic()
    entries = _run_workers(target, monkeypatch)
    elapsed = time.monotonic() - started

    outcomes = Counter((e["op"], e["outcome"]) for e in entries)
    errors = Counter(e["error"] for e in entries if e["outcome"] in ("error", "raw"))
    print(f"\n{backend}: {WORKERS}x{OPS} operations in {elapsed:.1f} s")
    print(f"{backend}: outcomes {dict(sorted(outcomes.items()))}")
    print(f"{backend}: errors {dict(errors)}")
    print(f"{backend}: after a forget, recall {dict(Counter(e.get('check') for e in entries))}")

    # -- every operation ran, and failed only in the ways concurrency makes legitimate -------
    assert len(entries) == WORKERS * OPS
    raw = [e for e in entries if e["outcome"] == "raw"]
    assert not raw, f"raw driver errors escaped lethe: {raw[:5]}"
    unexpected = [
        e for e in entries if e["outcome"] == "error" and e["error"] not in EXPECTED_ERRORS
    ]
    assert not unexpected, f"unexpected lethe errors: {unexpected[:5]}"
    odd = [e for e in entries if str(e["outcome"]).startswith(("unexpected", "RESTORED"))]
    assert not odd, odd[:5]
    for e in entries:
        if e["outcome"] == "error" and e["error"] == "MemoryNotFound":
            assert e["op"] == "restore", e
    # the mix really happened: every kind of operation succeeded many times
    for op, outcome in [
        ("remember", "remembered"),
        ("recall", "recalled"),
        ("forget", "forgotten"),
        ("restore", "restored"),
    ]:
        assert outcomes[(op, outcome)] >= 20, (op, outcome, outcomes)

    # -- what the logs say must be true ---------------------------------------------------------
    remembered: dict[str, str] = {}
    for e in entries:
        if e["outcome"] == "remembered":
            assert e["id"] not in remembered, f"one id handed out twice: {e['id']}"
            remembered[e["id"]] = e["content"]
    forgets = Counter(e["id"] for e in entries if e["outcome"] == "forgotten")
    restores = Counter(e["id"] for e in entries if e["outcome"] == "restored")
    expected_status: dict[str, str] = {}
    for memory_id in remembered:
        balance = forgets[memory_id] - restores[memory_id]
        assert balance in (0, 1), (
            f"{memory_id}: {forgets[memory_id]} successful forgets and "
            f"{restores[memory_id]} restores reported; they must alternate"
        )
        expected_status[memory_id] = "forgotten" if balance else "active"
    assert set(forgets) <= set(remembered) and set(restores) <= set(remembered)
    for e in entries:
        if e["outcome"] == "existing":  # the same text again: the stored memory, not a copy
            assert remembered.get(e["id"]) == e["content"], e

    # -- no forgotten memory returned by recall, as each worker saw it ---------------------------
    returned = [e for e in entries if e.get("check") == "RETURNED_AFTER_FORGET"]
    assert not returned, f"recall returned a memory its worker had just forgotten: {returned[:5]}"
    assert sum(1 for e in entries if e.get("check") == "not_returned") >= 20
    not_live = [e for e in entries if e.get("not_live")]
    assert not not_live, not_live[:5]
    # a recall hit is always a remembered memory
    for e in entries:
        if e["outcome"] == "recalled":
            assert set(e["hits"]) <= set(remembered), e

    with Lethe.open(target, embedder=embedder) as fresh:
        # -- no lost write: every remembered id is there, with its content and status ------
        stored = fresh.store.get_many(list(remembered), active_only=False)
        missing = set(remembered) - set(stored)
        assert not missing, f"{len(missing)} remembered memories are lost: {sorted(missing)[:5]}"
        for memory_id, content in remembered.items():
            assert stored[memory_id].content == content, memory_id
            assert stored[memory_id].status == expected_status[memory_id], (
                memory_id,
                stored[memory_id].status,
                forgets[memory_id],
                restores[memory_id],
            )
        assert set(fresh.store.memory_ids()) == {
            i for i, s in expected_status.items() if s == "active"
        }

        # -- no dangling link ----------------------------------------------------------------------
        links, ids = _link_and_memory_rows(backend, target)
        assert ids == set(remembered)
        assert len(links) >= 50, f"the texts were meant to link; only {len(links)} links"
        dangling = [(a, b) for a, b in links if a not in ids or b not in ids]
        assert not dangling, dangling[:5]

        # -- recall, with a fresh engine in a fresh process, returns live memories only ------
        gone = [i for i, s in expected_status.items() if s == "forgotten"]
        queries = [remembered[i] for i in gone[:60]] + [
            remembered[i] for i in list(remembered)[:: max(1, len(remembered) // 40)]
        ]
        recalled = _recall_in_a_fresh_process(target, queries)
        assert len(recalled) == len(queries)
        for query, hits in zip(queries, recalled, strict=True):
            assert hits, query  # its own memory, or live ones like it
            for memory_id, status, content in hits:
                assert status == "active", (query, memory_id)
                assert expected_status.get(memory_id) == "active", (query, memory_id)
                assert remembered[memory_id] == content

        # -- one audit event per change, seqs unique ---------------------------------------------
        events: list[Event] = []
        while True:
            page = fresh.audit(after_seq=events[-1].seq if events else 0, limit=10_000)
            if not page:
                break
            events.extend(page)
    seqs = [e.seq for e in events]
    assert len(seqs) == len(set(seqs)), "event seqs repeat"
    assert seqs == sorted(seqs)
    assert {e.op for e in events} <= {"remember", "forget", "restore"}, Counter(
        e.op for e in events
    )
    by_op = {op: Counter(e.memory_id for e in events if e.op == op) for op in WEIGHTS}
    assert by_op["remember"] == Counter(list(remembered)), (
        "remember events differ from the remembers"
    )
    assert by_op["forget"] == forgets, {
        i: (by_op["forget"][i], forgets[i])
        for i in set(by_op["forget"]) | set(forgets)
        if by_op["forget"][i] != forgets[i]
    }
    assert by_op["restore"] == restores, {
        i: (by_op["restore"][i], restores[i])
        for i in set(by_op["restore"]) | set(restores)
        if by_op["restore"][i] != restores[i]
    }


# -- the races above, made to happen every time ------------------------------------------------


def test_two_engines_forgetting_one_id_record_one_forget(
    db: str, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While one engine's forget is between "is it still live?" and its commit, another
    engine forgets the same id. Writers are serialised (SQLite's write lock, PostgreSQL's
    advisory lock), so the second waits, then finds it gone: one forget executed, one event.
    (Before PostgreSQL writers took the lock, the second read the row outside its
    transaction, saw it live, updated nothing and still recorded a second forget.)"""
    with (
        Lethe.open(db, embedder=embedder) as first,
        Lethe.open(db, embedder=embedder) as second,
    ):
        memory = first.remember("Grace repaired the attic window after the storm")
        plan_first = first.plan_forget([memory.id], actor="first")
        plan_second = second.plan_forget([memory.id], actor="second")
        real_get = second.store.get
        racing: list[threading.Thread] = []
        results: dict[str, Any] = {}

        def get_while_the_other_forgets(memory_id: str) -> Any:
            seen = real_get(memory_id)  # live: nobody has forgotten it yet
            if not racing:

                def other() -> None:
                    try:
                        results["first"] = first.execute(plan_first)
                    except Exception as exc:  # reported by the assertions below
                        results["first"] = exc

                racing.append(threading.Thread(target=other))
                racing[0].start()
                racing[0].join(timeout=0.5)  # it runs now, or waits for our write lock
            return seen

        monkeypatch.setattr(second.store, "get", get_while_the_other_forgets)
        results["second"] = second.execute(plan_second)
        monkeypatch.undo()
        racing[0].join(timeout=30)

        outcomes = {who: r.executed for who, r in results.items()}
        assert sorted(outcomes.values()) == [(), (memory.id,)], results
        loser = "first" if results["second"].executed else "second"
        assert results[loser].not_found == (memory.id,)
        forgets = first.audit(memory_id=memory.id, op="forget")
        assert len(forgets) == 1, forgets
        assert first.store.get(memory.id).status == "forgotten"  # type: ignore[union-attr]


def test_restore_reports_success_when_another_forgets_it_right_after(
    db: str, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A restore that committed is a restore, even if another process forgets the memory
    again before the call returns: it must not raise MemoryNotFound (the caller would think
    nothing happened while the audit holds the restore)."""
    with (
        Lethe.open(db, embedder=embedder) as mine,
        Lethe.open(db, embedder=embedder) as other,
    ):
        memory = mine.remember("Hiro sold a blue kayak near the harbour")
        mine.execute(mine.plan_forget([memory.id]))
        real_transaction = mine.store.transaction

        @contextmanager
        def transaction_then_the_other_forgets() -> Iterator[Any]:
            with real_transaction() as tx:
                yield tx
            # the restore has committed; another process forgets the memory again
            assert other.execute(other.plan_forget([memory.id], actor="other")).executed

        monkeypatch.setattr(mine.store, "transaction", transaction_then_the_other_forgets)
        restored = mine.restore(memory.id, actor="mine")
        monkeypatch.undo()

        assert (restored.id, restored.content, restored.status) == (
            memory.id,
            memory.content,
            "active",
        )
        assert restored.forgotten_at is None
        ops = [(e.op, e.actor) for e in mine.audit(memory_id=memory.id)]
        assert ops == [
            ("remember", "user"),
            ("forget", "user"),
            ("restore", "mine"),
            ("forget", "other"),
        ]
