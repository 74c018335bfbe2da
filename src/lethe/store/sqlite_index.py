"""Keeping the in-process vector index in step with the SQLite file.

Rows are the source of truth. The index is rebuilt from them once, then brought up to date
before every search by replaying `vector_log` (filled by triggers), which is how one process
sees another's writes. Rebuilding from rows reads every embedding BLOB — most of a cold start
at 100k memories — so a rebuilt index is also saved beside the database as a snapshot that
the next process loads and replays from: `<db>.vectors.npz` (ids, namespaces, the database
it belongs to, the log position it reflects, the int8 codes' per-row scales) and the matrix
and its int8 codes as raw `<db>.vectors.<tag>.npy` and `<db>.vectors.<tag>.codes.npy`,
memory-mapped on load instead of read through a zip archive. Each save writes a new tag and
then swaps the small file atomically, so a reader never pairs one save's ids with another's
vectors. The snapshot is only a cache: anything unexpected makes it ignored, and a purge
deletes it so an erased memory's vector does not outlive the memory.

The vectors of live memories' earlier states (`memory_versions.embedding`) are loaded into
`EarlierStates` on the first search as of a past moment, and kept in step by the same log:
a version kept or dropped logs its memory's id.
"""

from __future__ import annotations

import glob
import os
import secrets
import sqlite3
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from lethe.store.earlier import EarlierState, EarlierStates
from lethe.store.quantized import Codes
from lethe.store.ranking_vectors import RankingVectors
from lethe.store.vectors import VectorIndex

_CHUNK = 500
SNAPSHOT_MIN = 2000
"""Stores smaller than this rebuild faster than a snapshot would load."""


def snapshot_path(db: Path) -> Path:
    return db.with_name(db.name + ".vectors.npz")


def matrix_path(db: Path, tag: str) -> Path:
    return db.with_name(f"{db.name}.vectors.{tag}.npy")


def codes_path(db: Path, tag: str) -> Path:
    return db.with_name(f"{db.name}.vectors.{tag}.codes.npy")


def _matrix_files(db: Path) -> list[Path]:
    return list(db.parent.glob(f"{glob.escape(db.name)}.vectors.*.npy"))


class IndexSync:
    def __init__(
        self, conn: sqlite3.Connection, db: Path, dim: int, db_id: str, *, threads: int = 1
    ) -> None:
        self._conn = conn
        self._db = db
        self._dim = dim
        self._db_id = db_id
        self.index = VectorIndex(dim, threads=threads)
        self.earlier: EarlierStates | None = None
        """Earlier states, once a search as of a past moment has needed them."""
        self.ranking: RankingVectors | None = None
        """What recall ranks by in namespaces with conversations, once a recall needed it."""
        self.seq = -1
        """Last `vector_log` entry the index reflects; -1 means "rebuild before use"."""

    def invalidate(self) -> None:
        self.seq = -1
        self.earlier = None
        self.ranking = None

    def load_ranking(self) -> RankingVectors:
        """The vectors recall ranks by in namespaces with conversations (after `sync`): the
        live contexts read once, the other memories copied from the own index, then replayed
        from the log like the memories' own."""
        if self.ranking is None:
            rows = self._conn.execute(_CONTEXT_SQL.format(only="")).fetchall()
            contexts = [(r[0], r[1], np.frombuffer(r[2], dtype="<f4")) for r in rows]
            self.ranking = RankingVectors.build(self.index, contexts)
        return self.ranking

    def load_earlier(self) -> EarlierStates:
        """The earlier states of every live memory (after `sync`): read once, then replayed."""
        if self.earlier is None:
            earlier = EarlierStates(self._dim)
            rows = self._conn.execute(_EARLIER_SQL.format(only="")).fetchall()
            for memory_id, states in _group(rows).items():
                earlier.replace(memory_id, states)
            self.earlier = earlier
        return self.earlier

    def sync(self) -> None:
        """Bring the index up to date with every committed change."""
        if self.seq < 0 and not self._load_snapshot():
            self._rebuild()
            return
        changes = self._conn.execute(
            "SELECT seq, memory_id FROM vector_log WHERE seq > ? ORDER BY seq", (self.seq,)
        ).fetchall()
        if not changes:
            return
        ids = list(dict.fromkeys(row[1] for row in changes))
        for start in range(0, len(ids), _CHUNK):
            chunk = ids[start : start + _CHUNK]
            marks = ", ".join("?" for _ in chunk)
            live = {
                row[0]: row
                for row in self._conn.execute(
                    f"SELECT id, namespace, embedding, updated_at FROM memories "
                    f"WHERE status = 'active' AND id IN ({marks})",
                    chunk,
                )
            }
            for memory_id in chunk:
                row = live.get(memory_id)
                if row is None:
                    self.index.remove(memory_id)
                else:
                    vector = np.frombuffer(row[2], dtype="<f4")
                    self.index.upsert(memory_id, row[1], vector, row[3])
            if self.ranking is not None:
                self._replay_ranking(self.ranking, chunk, marks, live)
            if self.earlier is not None:
                only = f"AND v.memory_id IN ({marks})"
                grouped = _group(
                    self._conn.execute(_EARLIER_SQL.format(only=only), chunk).fetchall()
                )
                for memory_id in chunk:
                    self.earlier.replace(memory_id, grouped.get(memory_id, []))
        self.seq = changes[-1][0]
        if len(ids) > max(1000, len(self.index) // 10):
            self._save_snapshot()

    def _replay_ranking(
        self, ranking: RankingVectors, chunk: list[str], marks: str, live: dict[str, Any]
    ) -> None:
        """Bring the ranking vectors of these changed memories in step (`live`: their rows
        as the own index just read them). A context in a namespace not held whole makes the
        ranking be built again on its next use."""
        found = {
            row[0]: row
            for row in self._conn.execute(
                _CONTEXT_SQL.format(only=f"AND c.memory_id IN ({marks})"), chunk
            )
        }
        if any(row[1] not in ranking.namespaces for row in found.values()):
            self.ranking = None
            return
        for memory_id in chunk:
            context = found.get(memory_id)
            own = live.get(memory_id)
            if context is not None:
                ranking.put_context(memory_id, context[1], np.frombuffer(context[2], "<f4"))
            elif own is not None and own[1] in ranking.namespaces:
                ranking.put_own(memory_id, own[1], np.frombuffer(own[2], dtype="<f4"))
            else:
                ranking.remove(memory_id)

    def _rebuild(self) -> None:
        """Read every live vector from the rows, streamed into the matrix the index keeps:
        holding every row's BLOB, then a joined copy, then the index's own copy peaked at
        7.2 GB for a 1.5 GB matrix at a million memories."""
        conn = self._conn
        own = not conn.in_transaction
        if own:
            conn.execute("BEGIN")
        try:
            seq = conn.execute("SELECT coalesce(max(seq), 0) FROM vector_log").fetchone()[0]
            count = conn.execute(
                "SELECT count(*) FROM memories WHERE status = 'active'"
            ).fetchone()[0]
            matrix = np.empty((max(1024, count), self._dim), dtype=np.float32)
            since = np.empty(count, dtype=np.float64)
            ids: list[str] = []
            namespaces: list[str] = []
            cursor = conn.execute(
                "SELECT id, namespace, embedding, updated_at FROM memories "
                "WHERE status = 'active' ORDER BY num"
            )
            while rows := cursor.fetchmany(_CHUNK):
                start = len(ids)
                end = start + len(rows)
                matrix[start:end] = np.frombuffer(
                    b"".join(r[2] for r in rows), dtype="<f4"
                ).reshape(-1, self._dim)
                since[start:end] = [r[3] for r in rows]
                ids += [r[0] for r in rows]
                namespaces += [r[1] for r in rows]
        finally:
            if own:
                conn.execute("COMMIT")
        self.index.bulk_load(ids, namespaces, matrix, since=since, adopt=True)
        self.seq = seq
        if not conn.in_transaction:
            self._save_snapshot()

    def _save_snapshot(self) -> None:
        """Write the index as of `self.seq`, unless it is small or a write is in progress
        (uncommitted rows must never reach the snapshot)."""
        if len(self.index) < SNAPSHOT_MIN or self._conn.in_transaction:
            return
        ids, namespaces, matrix, quantized, since = self.index.export()
        path = snapshot_path(self._db)
        tag = secrets.token_hex(6)
        old = _matrix_files(self._db)
        written: list[Path] = []
        try:
            for target, rows in (
                (matrix_path(self._db, tag), matrix),
                (codes_path(self._db, tag), quantized.codes),
            ):
                with target.open("xb") as handle:
                    written.append(target)
                    np.save(handle, rows)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            written.append(Path(tmp))
            with os.fdopen(fd, "wb") as handle:
                np.savez(
                    handle,
                    db_id=np.array(self._db_id),
                    seq=np.array(self.seq, dtype=np.int64),
                    ids=np.array(ids, dtype="S16"),
                    namespaces=np.array(namespaces),
                    tag=np.array(tag),
                    code_scale=quantized.scale,
                    code_error=quantized.error,
                    norm=quantized.norm,
                    since=since,
                )
            os.replace(tmp, path)
        except OSError:
            for leftover in written:
                leftover.unlink(missing_ok=True)
            return
        for stale in old:  # a reader that mapped one keeps its pages
            stale.unlink(missing_ok=True)

    def _load_snapshot(self) -> bool:
        path = snapshot_path(self._db)
        try:
            with np.load(path, allow_pickle=False) as data:
                if str(data["db_id"]) != self._db_id:
                    return False
                seq = int(data["seq"])
                tag = str(data["tag"])
                ids = [i.decode("ascii") for i in data["ids"].tolist()]
                namespaces = data["namespaces"].tolist()
                per_row = [data[key] for key in ("code_scale", "code_error", "norm")]
                since = data["since"]
            row = self._conn.execute("SELECT coalesce(max(seq), 0) FROM vector_log").fetchone()
            newest = row[0]
            if seq > newest:  # newer than the log (an older copy of the database restored):
                return False  # refused before the big read
            # Read into memory the index then keeps (a mapped file copied in would count
            # twice at the peak); the codes are mapped, as they are copied into place.
            matrix = np.load(matrix_path(self._db, tag), allow_pickle=False)
            codes = np.load(codes_path(self._db, tag), mmap_mode="r", allow_pickle=False)
        except (OSError, KeyError, ValueError, zipfile.BadZipFile):
            return False
        shape = (len(ids), self._dim)
        if (
            matrix.shape != shape
            or codes.shape != shape
            or codes.dtype != np.int8
            or len(namespaces) != len(ids)
            or any(column.shape != (len(ids),) for column in [*per_row, since])
        ):
            return False
        scale, error, norm = (column.astype(np.float32, copy=False) for column in per_row)
        self.index.bulk_load(
            ids,
            namespaces,
            matrix.astype(np.float32, copy=False),
            Codes(codes, scale, error, norm),
            since=since.astype(np.float64, copy=False),
            adopt=True,
        )
        self.seq = seq
        return True

    def drop_snapshot(self) -> None:
        snapshot_path(self._db).unlink(missing_ok=True)
        for vectors in _matrix_files(self._db):
            vectors.unlink(missing_ok=True)
        # A save killed before its rename leaves `.<db>.vectors.npz.XXXX` (ids, namespaces).
        name = snapshot_path(self._db).name
        for leftover in self._db.parent.glob(f".{glob.escape(name)}.*"):
            leftover.unlink(missing_ok=True)


_CONTEXT_SQL = """SELECT c.memory_id, c.namespace, c.embedding FROM memory_context c
    JOIN memories m ON m.id = c.memory_id WHERE m.status = 'active' {only} ORDER BY c.num"""

_EARLIER_SQL = """SELECT v.memory_id, v.version, m.namespace, v.valid_from, v.valid_until,
    v.embedding, v.content FROM memory_versions v JOIN memories m ON m.id = v.memory_id
    WHERE m.status = 'active' AND v.embedding IS NOT NULL {only}"""


def _group(rows: Sequence[Any]) -> dict[str, list[EarlierState]]:
    grouped: dict[str, list[EarlierState]] = {}
    for memory_id, version, namespace, start, until, blob, content in rows:
        grouped.setdefault(str(memory_id), []).append(
            EarlierState(
                memory_id=str(memory_id),
                version=int(version),
                namespace=str(namespace),
                valid_from=float(start),
                valid_until=float(until),
                vector=np.frombuffer(blob, dtype="<f4"),
                content=str(content),
            )
        )
    return grouped
