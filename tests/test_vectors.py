"""The in-process vector index against a plain brute-force computation."""

from __future__ import annotations

import numpy as np

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
