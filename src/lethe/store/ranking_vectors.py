"""The vectors recall ranks by in a namespace that holds conversations: one index, one pass.

Recall ranks a conversational memory by its context vector and every other memory by its own
(`lethe.common.ranking.fuse_with_context`). Searching the memories' own index and then the context
index reads 150k rows at 100k memories of which half are turns, and the own pass spends half
its work on turns whose own cosine only counts at a fifth. This index holds, for every live
memory of a namespace with conversations, the one vector recall ranks it by — its context
vector if it has one, else its own — so a single exact top-k over as many rows as there are
memories gives the merged list; the few turns among the hits then get their own cosine from
the memories' own index. The price is a copy of the other memories' vectors of those
namespaces (a namespace stays held until the index is next built, even once its last turn is
gone); a store without conversations holds an empty index.
"""

from __future__ import annotations

import numpy as np

from lethe.store.vectors import Vector, VectorIndex


class RankingVectors:
    def __init__(self, dim: int, *, threads: int = 1) -> None:
        self.index = VectorIndex(dim, threads=threads)
        self.namespaces: frozenset[str] = frozenset()
        """Namespaces held whole (every live memory in them has a row here)."""
        self._turns: dict[str, str] = {}
        """Memories ranked by a context vector, with their namespace."""
        self._turns_in: dict[str, int] = {}

    @classmethod
    def build(
        cls,
        own: VectorIndex,
        contexts: list[tuple[str, str, Vector]],
    ) -> RankingVectors:
        """From the memories' own index and every live context (memory id, namespace,
        vector): the namespaces the contexts are in, whole."""
        ranking = cls(own.dim, threads=own.threads)
        ranking.namespaces = frozenset(namespace for _, namespace, _ in contexts)
        ids: list[str] = []
        namespaces: list[str] = []
        parts: list[Vector] = []
        for namespace in sorted(ranking.namespaces):
            members, matrix = own.namespace_matrix(namespace)
            ids += members
            namespaces += [namespace] * len(members)
            parts.append(matrix)
        if len(parts) == 1:
            matrix = parts[0]  # already a copy: the one namespace's rows
        elif parts:
            matrix = np.concatenate(parts)
        else:
            matrix = np.empty((0, own.dim), dtype=np.float32)
        row_of = {memory_id: n for n, memory_id in enumerate(ids)}
        for memory_id, namespace, vector in contexts:
            row = row_of.get(memory_id)
            if row is None:  # a context whose memory the own index does not hold (yet)
                continue
            matrix[row] = vector
            ranking._mark(memory_id, namespace)
        ranking.index.bulk_load(ids, namespaces, matrix, adopt=True)
        return ranking

    def put_context(self, memory_id: str, namespace: str, vector: Vector) -> None:
        self.index.upsert(memory_id, namespace, vector)
        self._unmark(memory_id)
        self._mark(memory_id, namespace)

    def put_own(self, memory_id: str, namespace: str, vector: Vector) -> None:
        self.index.upsert(memory_id, namespace, vector)
        self._unmark(memory_id)

    def remove(self, memory_id: str) -> None:
        self.index.remove(memory_id)
        self._unmark(memory_id)

    def is_turn(self, memory_id: str) -> bool:
        """Whether this memory is ranked by a context vector."""
        return memory_id in self._turns

    def has_conversation(self, namespace: str) -> bool:
        return self._turns_in.get(namespace, 0) > 0

    def _mark(self, memory_id: str, namespace: str) -> None:
        self._turns[memory_id] = namespace
        self._turns_in[namespace] = self._turns_in.get(namespace, 0) + 1

    def _unmark(self, memory_id: str) -> None:
        namespace = self._turns.pop(memory_id, None)
        if namespace is not None:
            self._turns_in[namespace] -= 1
