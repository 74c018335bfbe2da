"""The in-process vector index against a plain brute-force computation."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from lethe.store import quantized
from lethe.store.vectors import VectorIndex


def unit(rng: np.random.Generator, n: int, dim: int = 16) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_search_is_exact_and_respects_namespaces_and_removals() -> None:
    rng = np.random.default_rng(7)
    vectors = unit(rng, 300)
    index = VectorIndex(16)
    index.bulk_load([f"m{i}" for i in range(200)], ["a"] * 200, vectors[:200])
    for i in range(200, 300):
        index.upsert(f"m{i}", "b" if i % 2 else "a", vectors[i])
    for i in range(0, 300, 3):
        index.remove(f"m{i}")
    index.upsert("m0", "a", vectors[0])
    live_a = {f"m{i}" for i in range(300) if (i % 3 != 0 or i == 0) and (i < 200 or i % 2 == 0)}
    query = unit(rng, 1)[0]
    expected = sorted(
        ((f"m{i}", float(vectors[i] @ query)) for i in range(300) if f"m{i}" in live_a),
        key=lambda p: -p[1],
    )[:10]
    got = index.search(query, namespace="a", k=10)
    assert [i for i, _ in got] == [i for i, _ in expected]
    np.testing.assert_allclose([s for _, s in got], [s for _, s in expected], rtol=1e-5)
    assert all(
        int(i[1:]) >= 200 and int(i[1:]) % 2 for i, _ in index.search(query, namespace="b", k=50)
    )
    many = index.search_many(np.stack([query, query]), namespace="a", k=10)
    assert [i for i, _ in many[0]] == [i for i, _ in expected] == [i for i, _ in many[1]]


@pytest.mark.parametrize("floor", [-1.0, 0.0, 0.3, 0.6, 0.99])
def test_search_many_with_a_floor_is_the_top_k_at_or_above_it(floor: float) -> None:
    """The bulk import's search keeps only what it may link: the same as the plain top k
    with the weaker scores dropped, whatever the floor, with namespaces and freed slots."""
    rng = np.random.default_rng(11)
    vectors = unit(rng, 2000, dim=8)  # few dimensions: many rows clear a floor
    index = VectorIndex(8)
    index.bulk_load(
        [f"m{i}" for i in range(2000)], ["a" if i % 4 else "b" for i in range(2000)], vectors
    )
    for i in range(0, 2000, 7):
        index.remove(f"m{i}")
    queries = unit(rng, 40, dim=8)
    for k in (1, 5, 50):
        plain = index.search_many(queries, namespace="a", k=2000)
        got = index.search_many(queries, namespace="a", k=k, floor=floor)
        want = [[(i, s) for i, s in row if s >= floor][:k] for row in plain]
        assert got == want
        assert any(len(row) == k for row in got) or floor > 0.9


def test_single_namespace_fast_path_never_returns_free_slots() -> None:
    rng = np.random.default_rng(3)
    vectors = -unit(rng, 5)
    index = VectorIndex(16)
    for i in range(5):
        index.upsert(f"m{i}", "a", vectors[i])
    index.remove("m1")
    index.remove("m3")
    query = -vectors[0]
    got = index.search(query, namespace="a", k=5)
    assert {i for i, _ in got} == {"m0", "m2", "m4"}
    assert index.search(query, namespace="missing", k=5) == []


def brute(vectors: np.ndarray, live: list[int], query: np.ndarray, k: int) -> list[int]:
    scores = vectors[live] @ query
    order = np.argsort(-scores, kind="stable")[:k]
    return [live[i] for i in order]


def same_ranking(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    """Same scores in the same order; ids may differ only among scores equal to within
    float rounding (exact copies of a vector, computed by two code paths)."""
    assert len(got) == len(want)
    np.testing.assert_allclose([s for _, s in got], [s for _, s in want], atol=1e-6)
    last = want[-1][1] if want else 0.0
    assert {i for i, s in got if s > last + 1e-5} == {i for i, s in want if s > last + 1e-5}
    for (gi, gs), (wi, ws) in zip(got, want, strict=True):
        assert gi == wi or abs(gs - ws) <= 1e-6


@pytest.mark.parametrize("threads", [1, 3])
def test_int8_prefilter_gives_the_exact_top_k(
    threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forced on a small index: the same top k as float32 brute force, with the same scores,
    through namespaces, removals, re-inserts, near-ties and exact duplicates; also with the
    int8 pass cut into parts taken by several threads (parts of 100 rows here), where the
    excluded rows come as a mask (namespaces) and as positions (free slots)."""
    monkeypatch.setattr(quantized, "_SPLIT_MIN", 100)
    rng = np.random.default_rng(11)
    dim = 384
    base = unit(rng, 2000, dim)
    # Clusters of near-duplicates and exact copies make the int8 bounds overlap a lot.
    base[1000:1100] = base[1000] + 0.001 * rng.standard_normal((100, dim)).astype(np.float32)
    base[1100:1110] = base[5]
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    exact = VectorIndex(dim, prefilter_min=1 << 30)
    fast = VectorIndex(dim, prefilter_min=0, threads=threads)
    for index in (exact, fast):
        index.bulk_load([f"m{i}" for i in range(1500)], ["a"] * 1500, base[:1500])
        for i in range(1500, 2000):
            index.upsert(f"m{i}", "a" if i % 3 else "b", base[i])
        for i in range(0, 2000, 7):
            index.remove(f"m{i}")
    for query in [*unit(rng, 20, dim), base[1000], base[5], -base[3]]:
        for k in (1, 10, 50):
            want = exact.search(query, namespace="a", k=k)
            got = fast.search(query, namespace="a", k=k)
            same_ranking(got, want)
            live = [i for i in range(2000) if i % 7 and (i < 1500 or i % 3)]
            assert {i for i, _ in got} <= {f"m{i}" for i in live}
            plain = brute(base, live, query, k)
            np.testing.assert_allclose(
                sorted((s for _, s in got), reverse=True), base[plain] @ query, atol=1e-5
            )
    assert {i for i, _ in fast.search(base[1501], namespace="b", k=500)} == {
        f"m{i}" for i in range(1500, 2000) if i % 7 and not i % 3
    }
    assert fast.search(base[0], namespace="nowhere", k=5) == []


@pytest.mark.parametrize("threads", [1, 3])
def test_int8_prefilter_in_a_single_namespace_skips_free_slots(
    threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(quantized, "_SPLIT_MIN", 5)  # 8 parts of 5 rows with 3 threads
    rng = np.random.default_rng(5)
    vectors = unit(rng, 40, 32)
    index = VectorIndex(32, prefilter_min=0, threads=threads)
    for i in range(40):
        index.upsert(f"m{i}", "a", vectors[i])
    for i in range(0, 40, 2):
        index.remove(f"m{i}")
    got = index.search(-vectors[1], namespace="a", k=40)
    assert {i for i, _ in got} == {f"m{i}" for i in range(1, 40, 2)}
    assert [i for i, _ in got] == [
        f"m{i}" for i in brute(vectors, list(range(1, 40, 2)), -vectors[1], 40)
    ]


def test_an_adopted_matrix_is_kept_not_copied_and_searches_as_a_copied_one() -> None:
    """At a million memories a copy of the matrix is 1.5 GB more at the peak: `adopt` keeps
    the caller's array; an array the index must not write to (mapped, read-only, another
    dtype) is copied instead. Either way the answers are the same."""
    rng = np.random.default_rng(11)
    vectors = unit(rng, 50)
    ids = [f"m{i}" for i in range(40)]
    storage = np.zeros((50, 16), dtype=np.float32)
    storage[:40] = vectors[:40]
    adopted, copied = VectorIndex(16), VectorIndex(16)
    adopted.bulk_load(ids, ["a"] * 40, storage, adopt=True)
    copied.bulk_load(ids, ["a"] * 40, storage.copy())
    assert np.shares_memory(adopted.export()[2], storage), "the adopted array is the storage"
    assert not np.shares_memory(copied.export()[2], storage)
    frozen = storage.copy()
    frozen.flags.writeable = False
    refused = VectorIndex(16)
    refused.bulk_load(ids, ["a"] * 40, frozen, adopt=True)
    assert not np.shares_memory(refused.export()[2], frozen), "a read-only array is copied"
    view = adopted.export()[2]
    assert not view.flags.writeable, "an exported view cannot change the index"
    other = VectorIndex(16)
    other.bulk_load(ids, ["a"] * 40, view, adopt=True)
    other.upsert("m0", "a", np.zeros(16, dtype=np.float32))
    assert adopted.search(vectors[0], namespace="a", k=1)[0][0] == "m0", "not aliased"
    for i in range(40, 50):  # spare rows first, then growth past them
        adopted.upsert(f"m{i}", "a", vectors[i])
        copied.upsert(f"m{i}", "a", vectors[i])
    adopted.remove("m3")
    copied.remove("m3")
    query = unit(rng, 1)[0]
    assert adopted.search(query, namespace="a", k=10) == copied.search(query, namespace="a", k=10)


def test_export_gives_the_live_rows_whether_or_not_slots_were_freed() -> None:
    rng = np.random.default_rng(12)
    vectors = unit(rng, 30)
    index = VectorIndex(16)
    index.bulk_load([f"m{i}" for i in range(30)], ["a"] * 30, vectors)
    ids, _, matrix, codes, _ = index.export()
    assert ids == [f"m{i}" for i in range(30)]
    np.testing.assert_array_equal(matrix, vectors)
    assert len(codes.codes) == 30
    index.remove("m29")
    index.remove("m4")
    ids, _, matrix, codes, _ = index.export()
    kept = [i for i in range(30) if i not in (4, 29)]
    assert ids == [f"m{i}" for i in kept]
    np.testing.assert_array_equal(matrix, vectors[kept])
    assert len(codes.codes) == len(codes.scale) == 28


def _search_in_child(index: VectorIndex, query: np.ndarray, out: Any) -> None:
    out.put([i for i, _ in index.search(query, namespace="a", k=5)])


def test_a_forked_child_searches_with_threads_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The int8 pass's thread pool, made in the parent, is not inherited half-alive by a
    forked child (its work would wait forever): the child makes its own."""
    import multiprocessing

    monkeypatch.setattr(quantized, "_SPLIT_MIN", 50)
    rng = np.random.default_rng(3)
    vectors = unit(rng, 1000, 32)
    index = VectorIndex(32, prefilter_min=0, threads=2)
    index.bulk_load([f"m{i}" for i in range(1000)], ["a"] * 1000, vectors)
    want = [i for i, _ in index.search(vectors[7], namespace="a", k=5)]  # the pool exists now
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    child = context.Process(target=_search_in_child, args=(index, vectors[7], out))
    child.start()
    child.join(30)
    alive = child.is_alive()
    if alive:
        child.kill()
    assert not alive, "the child's search never finished"
    assert out.get(timeout=5) == want


def test_a_search_after_the_main_thread_returned_still_answers() -> None:
    """Python shuts thread pools down when the main thread ends: a thread still recalling
    then, or an atexit handler, must get its answer (the parts run on the caller)."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(
        """
        import atexit, threading, time
        import numpy as np
        from lethe.store import quantized
        from lethe.store.vectors import VectorIndex

        quantized._SPLIT_MIN = 50
        rng = np.random.default_rng(0)
        v = rng.standard_normal((2000, 16)).astype(np.float32)
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        index = VectorIndex(16, prefilter_min=0, threads=2)
        index.bulk_load([f"m{i}" for i in range(2000)], ["a"] * 2000, v)
        print("main", index.search(v[0], namespace="a", k=1)[0][0], flush=True)

        def late():
            time.sleep(0.3)
            print("thread", index.search(v[1], namespace="a", k=1)[0][0], flush=True)

        threading.Thread(target=late).start()
        atexit.register(
            lambda: print("atexit", index.search(v[2], namespace="a", k=1)[0][0], flush=True)
        )
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:3] == ["main m0", "thread m1", "atexit m2"], out.stderr
