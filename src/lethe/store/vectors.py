"""An exact in-memory vector index: one float32 matrix searched by brute force.

At 100k x 384 a matrix-vector product takes a few milliseconds and is exact, so there is no
approximate index to keep in step or to return a removed memory. Large indexes also keep an
int8 copy of every row that a search reads first (see `lethe.store.quantized`); the answer
stays the exact float32 top k. The store owns the source of
truth (BLOBs in rows) and replays its change log into this index; the index only answers
"which live slots are closest", and the store re-checks every answer against live rows.

Each slot also carries the time its vector became the memory's current state (`since`, the
row's `updated_at`), so a search as of a past moment can leave out the memories whose current
state began after it without a query to the database.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from lethe.store.quantized import Codes, quantize, top_k

Vector = npt.NDArray[np.float32]
Slots = npt.NDArray[np.intp]
Times = npt.NDArray[np.float64]


PREFILTER_MIN = 20_000
"""From this many slots on, a search reads the int8 codes first; below, float32 is as fast."""


class VectorIndex:
    def __init__(self, dim: int, *, prefilter_min: int | None = None, threads: int = 1) -> None:
        self.dim = dim
        self.prefilter_min = PREFILTER_MIN if prefilter_min is None else prefilter_min
        self.threads = threads
        """Threads the int8 pass of a search may use (lethe.common.threads)."""
        self.clear()

    def clear(self, capacity: int = 1024) -> None:
        self._matrix = np.zeros((capacity, self.dim), dtype=np.float32)
        self._codes = Codes.zeros(capacity, self.dim)
        self._namespace = np.full(capacity, -1, dtype=np.int32)
        self._since = np.zeros(capacity, dtype=np.float64)
        self._ids: list[str | None] = []
        self._slot: dict[str, int] = {}
        self._free: list[int] = []
        self._ns_codes: dict[str, int] = {}
        self._ns_live: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self._slot)

    def __contains__(self, memory_id: object) -> bool:
        return memory_id in self._slot

    def _code(self, namespace: str) -> int:
        return self._ns_codes.setdefault(namespace, len(self._ns_codes))

    def _grow(self, needed: int) -> None:
        capacity = self._matrix.shape[0]
        if needed <= capacity:
            return
        new_capacity = max(needed, capacity * 2)
        matrix = np.zeros((new_capacity, self.dim), dtype=np.float32)
        matrix[:capacity] = self._matrix
        namespace = np.full(new_capacity, -1, dtype=np.int32)
        namespace[:capacity] = self._namespace
        since = np.zeros(new_capacity, dtype=np.float64)
        since[:capacity] = self._since
        codes = Codes.zeros(new_capacity, self.dim)
        for old, new in zip(_columns(self._codes), _columns(codes), strict=True):
            new[:capacity] = old
        self._matrix, self._namespace, self._codes = matrix, namespace, codes
        self._since = since

    def upsert(self, memory_id: str, namespace: str, vector: Vector, since: float = 0.0) -> None:
        """Add or replace a memory's vector; `since` is when that state began (epoch s)."""
        slot = self._slot.get(memory_id)
        code = self._code(namespace)
        if slot is not None:
            self._ns_live[int(self._namespace[slot])] -= 1
        else:
            if self._free:
                slot = self._free.pop()
                self._ids[slot] = memory_id
            else:
                slot = len(self._ids)
                self._grow(slot + 1)
                self._ids.append(memory_id)
            self._slot[memory_id] = slot
        self._matrix[slot] = vector
        self._set_codes(slot, quantize(self._matrix[slot : slot + 1]))
        self._namespace[slot] = code
        self._since[slot] = since
        self._ns_live[code] = self._ns_live.get(code, 0) + 1

    def bulk_load(
        self,
        ids: Sequence[str],
        namespaces: Sequence[str],
        matrix: Vector,
        quantized: Codes | None = None,
        since: Times | None = None,
        *,
        adopt: bool = False,
    ) -> None:
        """Replace the whole content at once (start-up and after a rollback); `quantized` are
        the rows' int8 codes when saved with them, else they are computed; `since` as at
        `upsert`, one per row. `adopt`: `matrix` (float32, C order, writable, at least one
        row per id) becomes the index's own storage instead of being copied; rows past the
        ids are spare capacity. At a million memories a copy is 1.5 GB more at the peak."""
        count = len(ids)
        self.clear(0)
        if adopt and _adoptable(matrix, count, self.dim):
            self._matrix = matrix
        else:
            # One copy of the rows (no zero-filled buffer first), namespaces coded in one
            # pass: at 100k memories this is most of what opening a store costs.
            self._matrix = np.empty((max(1024, count), self.dim), dtype=np.float32)
            self._matrix[:count] = matrix[:count]
        capacity = len(self._matrix)
        self._matrix[count:] = 0.0
        self._codes = Codes.zeros(capacity, self.dim)
        self._set_codes(slice(0, count), quantized or quantize(self._matrix[:count]))
        names, codes = np.unique(np.asarray(namespaces, dtype=object), return_inverse=True)
        self._ns_codes = {str(name): code for code, name in enumerate(names.tolist())}
        self._namespace = np.full(capacity, -1, dtype=np.int32)
        self._namespace[:count] = codes
        self._since = np.zeros(capacity, dtype=np.float64)
        if since is not None:
            self._since[:count] = since
        self._ns_live = {
            code: int(n) for code, n in enumerate(np.bincount(codes, minlength=len(names)))
        }
        self._ids = list(ids)
        self._slot = dict(zip(ids, range(count), strict=True))

    def remove(self, memory_id: str) -> None:
        slot = self._slot.pop(memory_id, None)
        if slot is None:
            return
        self._ids[slot] = None
        self._ns_live[int(self._namespace[slot])] -= 1
        self._namespace[slot] = -1
        self._matrix[slot] = 0.0
        self._set_codes(slot, Codes.zeros(1, self.dim))
        self._free.append(slot)

    def _set_codes(self, rows: int | slice, codes: Codes) -> None:
        for mine, given in zip(_columns(self._codes), _columns(codes), strict=True):
            mine[rows] = given if isinstance(rows, slice) else given[0]

    def export(self) -> tuple[list[str], list[str], Vector, Codes, Times]:
        """Live ids, their namespaces and their vectors, codes and `since` times, compact and
        in slot order, read-only: views when the live slots are the first ones, else copies."""
        names = {code: name for name, code in self._ns_codes.items()}
        slots = sorted(self._slot.values())
        ids = [self._ids[s] or "" for s in slots]
        namespaces = [names[int(self._namespace[s])] for s in slots]
        rows: slice | npt.NDArray[np.intp] = np.asarray(slots, dtype=np.intp)
        if not slots or slots[-1] == len(slots) - 1:
            # No free slot below the last: views, not a second matrix (the caller writes
            # them out at once, under the lock that guards every change).
            rows = slice(0, len(slots))
        c = self._codes
        codes = Codes(c.codes[rows], c.scale[rows], c.error[rows], c.norm[rows])
        matrix, since = self._matrix[rows], self._since[rows]
        frozen: list[npt.NDArray[np.generic]] = [matrix, since, *_columns(codes)]
        for array in frozen:  # a view must not become a way to change the index
            array.flags.writeable = False
        return ids, namespaces, matrix, codes, since

    def namespace_matrix(self, namespace: str) -> tuple[list[str], Vector]:
        """Live ids of one namespace and a compact copy of their vectors, in slot order."""
        code = self._ns_codes.get(namespace)
        if code is None:
            return [], np.empty((0, self._matrix.shape[1]), dtype=np.float32)
        used = len(self._ids)
        slots = np.flatnonzero(self._namespace[:used] == code)
        slots = slots[[self._ids[s] is not None for s in slots.tolist()]]
        return [self._ids[s] or "" for s in slots.tolist()], self._matrix[slots]

    def vector(self, memory_id: str) -> Vector | None:
        slot = self._slot.get(memory_id)
        return None if slot is None else self._matrix[slot].copy()

    def slots_of(self, ids: Iterable[str]) -> Slots:
        found = [self._slot[i] for i in ids if i in self._slot]
        return np.asarray(found, dtype=np.intp)

    def similarities(self, query: Vector, ids: Sequence[str]) -> dict[str, float]:
        slots = self.slots_of(ids)
        if not len(slots):
            return {}
        scores = self._matrix[slots] @ query
        return {self._ids[s] or "": float(v) for s, v in zip(slots.tolist(), scores, strict=True)}

    def search_many(
        self, queries: Vector, *, namespace: str, k: int, floor: float = -np.inf
    ) -> list[list[tuple[str, float]]]:
        """Top-k for several queries with one matrix product (bulk import), only scores at or
        above `floor`: a bulk import needs the neighbours it may link, and finding those
        among 100k scores per query is cheaper than ordering the best k of them (that took
        about a seventh of the import's work besides the encoder at 100k memories)."""
        code = self._ns_codes.get(namespace)
        if code is None or k <= 0 or not len(self._slot):
            return [[] for _ in range(len(queries))]
        used = len(self._ids)
        scores = queries @ self._matrix[:used].T
        scores[:, self._namespace[:used] != code] = -np.inf
        if floor > -np.inf:
            rows, slots = np.nonzero(scores >= floor)
            ends = np.cumsum(np.bincount(rows, minlength=len(queries))).tolist()
            per_row = np.split(slots, ends[:-1])
        else:
            k = min(k, used)
            top = np.argpartition(-scores, k - 1, axis=1)[:, :k] if k < used else None
            per_row = [top[r] if top is not None else np.arange(used) for r in range(len(scores))]
        results: list[list[tuple[str, float]]] = []
        for row, candidates in enumerate(per_row):
            ordered = candidates[np.argsort(-scores[row, candidates], kind="stable")][:k]
            hits = []
            for slot in ordered.tolist():
                score = float(scores[row, slot])
                memory_id = self._ids[slot]
                if score == -np.inf:
                    break
                if memory_id is not None:
                    hits.append((memory_id, score))
            results.append(hits)
        return results

    def has_namespace(self, namespace: str) -> bool:
        """Whether any live vector belongs to the namespace."""
        code = self._ns_codes.get(namespace)
        return code is not None and self._ns_live.get(code, 0) > 0

    def since_of(self, ids: Iterable[str]) -> dict[str, float]:
        """When each indexed memory's current state began (absent ids are left out)."""
        return {i: float(self._since[self._slot[i]]) for i in ids if i in self._slot}

    def search(
        self,
        query: Vector,
        *,
        namespace: str,
        k: int,
        within: Slots | None = None,
        before: float | None = None,
    ) -> list[tuple[str, float]]:
        """Top-k (id, cosine) in `namespace`, optionally only among `within` slots, or only
        among the memories whose current state began at or `before` a time (epoch s)."""
        code = self._ns_codes.get(namespace)
        if code is None or k <= 0:
            return []
        if within is None:
            used = len(self._ids)
            # Every live vector in this namespace: only free slots need excluding, which
            # spares a full-length comparison on the common single-namespace store.
            excluded: npt.NDArray[np.bool_] | Slots
            left = self._ns_live.get(code, 0)
            if before is not None:  # free slots are in no namespace
                mask = (self._namespace[:used] != code) | (self._since[:used] > before)
                excluded, left = mask, used - int(np.count_nonzero(mask))
            elif left == len(self._slot):
                excluded = np.asarray(self._free, dtype=np.intp)
            else:
                excluded = self._namespace[:used] != code
            if used >= self.prefilter_min:
                k = min(k, left)
                if k <= 0:
                    return []
                slots, exact = top_k(
                    self._matrix[:used], self._codes, query, k, excluded, threads=self.threads
                )
                return [
                    (self._ids[s] or "", float(v))
                    for s, v in zip(slots.tolist(), exact.tolist(), strict=True)
                ]
            scores = self._matrix[:used] @ query
            scores[excluded] = -np.inf
            candidates: Slots | None = None
        else:
            if not len(within):
                return []
            scores = self._matrix[within] @ query
            scores[self._namespace[within] != code] = -np.inf
            candidates = within
        k = min(k, len(scores))
        size = len(scores)
        top = np.argpartition(scores, size - k)[size - k :] if k < size else np.arange(size)
        top = top[np.argsort(-scores[top], kind="stable")]
        result: list[tuple[str, float]] = []
        for position in top.tolist():
            score = float(scores[position])
            if score == -np.inf:
                break
            slot = position if candidates is None else int(candidates[position])
            memory_id = self._ids[slot]
            if memory_id is not None:
                result.append((memory_id, score))
        return result


def _columns(codes: Codes) -> tuple[npt.NDArray[np.generic], ...]:
    return codes.codes, codes.scale, codes.error, codes.norm


def _adoptable(matrix: Vector, count: int, dim: int) -> bool:
    return (
        matrix.dtype == np.float32
        and matrix.ndim == 2
        and matrix.shape[1] == dim
        and len(matrix) >= max(count, 1)
        and not isinstance(matrix, np.memmap)
        and bool(matrix.flags.c_contiguous and matrix.flags.writeable)
    )
