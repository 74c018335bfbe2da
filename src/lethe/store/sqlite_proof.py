"""What the SQLite store gives a proof of erasure: the files it owns, which memories still
hold a string, and the receipts kept. Kept apart from `sqlite.py`, which mixes it in."""

from __future__ import annotations

import glob
import json
import sqlite3
import threading
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from lethe.store.rows import ts
from lethe.store.sqlite_index import snapshot_path

HELD_LIMIT = 20

_HELD_SQL = """
SELECT id FROM memories WHERE instr(lower(content), ?1) OR instr(lower(metadata), ?1)
    OR instr(lower(id), ?1) OR instr(lower(namespace), ?1) OR instr(lower(agent), ?1)
    OR instr(lower(category), ?1) OR instr(lower(coalesce(forget_reason, '')), ?1)
    OR instr(lower(coalesce(change_reason, '')), ?1)
UNION SELECT memory_id FROM memory_versions
    WHERE instr(lower(content), ?1) OR instr(lower(coalesce(reason, '')), ?1)
    OR instr(lower(metadata), ?1) OR instr(lower(tags), ?1)
UNION SELECT memory_id FROM memory_context WHERE instr(lower(content), ?1)
UNION SELECT memory_id FROM memory_tags WHERE instr(lower(tag), ?1)
UNION SELECT memory_id FROM events
    WHERE memory_id IS NOT NULL AND (instr(lower(coalesce(reason, '')), ?1)
    OR instr(lower(details), ?1))
LIMIT ?2
"""


_INDEX_TABLES = ("_data", "_idx", "_docsize", "_config", "_content")
_SKIP = {"memory_gram_text", "context_gram_text"}


def ascii_lower(text: str) -> str:
    """Lower-cased as SQLite's lower() and the byte scan do: ASCII letters only."""
    return text.encode().lower().decode()


class SQLiteProof:
    path: Path
    _conn: sqlite3.Connection
    _lock: threading.RLock

    erasure_methods: tuple[tuple[str, str], ...] = (
        ("rows", "deleted with secure_delete on: the freed pages are overwritten with zeros"),
        ("lexical", "entries deleted by trigger, then every full-text index merged (optimize)"),
        ("log", "the write-ahead log checkpointed and truncated"),
        ("vector snapshot", "the vector snapshot files beside the database deleted"),
    )
    unreachable: tuple[str, ...] = (
        "exports and backups of the database made by a person or a backup tool",
        "copies of the files outside lethe (file-system snapshots, synced folders)",
        "blocks the file system freed earlier and has not reused (the disk itself)",
    )

    def owned_files(self) -> list[Path]:
        """Every file this store keeps beside the database: the database, its WAL and
        shared-memory index, and the vector snapshot files."""
        name = glob.escape(self.path.name)
        found = [self.path, Path(f"{self.path}-wal"), Path(f"{self.path}-shm")]
        found += sorted(self.path.parent.glob(f"{name}.vectors*"))
        found += sorted(self.path.parent.glob(f".{glob.escape(snapshot_path(self.path).name)}.*"))
        return [p for p in found if p.is_file()]

    def signing_key_path(self) -> Path:
        return self.path.with_name(self.path.name + ".receipt-key")

    def where_held(self, needles: Sequence[str]) -> list[list[str]]:
        """For each needle, the memories (any state, any namespace) that hold it without ASCII
        case: in their text, id, namespace, agent, an earlier version, their conversation
        context, tags, metadata or the reasons on their record. When no memory does, the
        live rows of lethe's other records that hold it, as `table.column` (a model name in
        `lethe_meta`, an actor in `events`): live data, not a residue. Full-text index
        internals never count: what they keep is what the scan is for."""
        out: list[list[str]] = []
        with self._lock:
            columns = self._text_columns()
            for needle in needles:
                key = ascii_lower(needle)
                rows = self._conn.execute(_HELD_SQL, (key, HELD_LIMIT))
                held = sorted(r[0] for r in rows)
                if not held:
                    held = [
                        f"{table}.{column}"
                        for table, column in columns
                        if self._conn.execute(
                            f'SELECT 1 FROM "{table}" WHERE instr(lower("{column}"), ?) LIMIT 1',
                            (key,),
                        ).fetchone()
                    ]
                out.append(held)
        return out

    def _text_columns(self) -> list[tuple[str, str]]:
        """(table, column) of every text column of lethe's own tables: no virtual table, no
        full-text shadow table, no gram text (an index's content)."""
        tables = [
            r[0]
            for r in self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE '%VIRTUAL%'"
            )
        ]
        found = []
        for table in tables:
            if table.startswith("sqlite_") or table.endswith(_INDEX_TABLES) or table in _SKIP:
                continue
            for column in self._conn.execute(f'PRAGMA table_info("{table}")'):
                if str(column[2]).upper() in ("TEXT", ""):
                    found.append((table, str(column[1])))
        return found

    def index_terms(self, words: Sequence[str]) -> set[str]:
        """The words the full-text indexes (of memories and of contexts) still list with a
        document. Terms are prefix-compressed inside the index's pages, so the byte scan
        cannot see most of them: the index's own vocabulary can."""
        if not words:
            return set()
        marks = ", ".join("?" for _ in words)
        found: set[str] = set()
        with self._lock:
            for vocab in ("memories_vocab", "context_vocab"):
                rows = self._conn.execute(
                    f"SELECT term FROM {vocab} WHERE term IN ({marks}) AND doc > 0", list(words)
                )
                found.update(r[0] for r in rows)
        return found

    def save_receipt(self, receipt: dict[str, Any]) -> None:
        body = json.dumps(receipt, ensure_ascii=False, sort_keys=True)
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.execute(
                    "INSERT OR IGNORE INTO receipt_keys (key_id, public_key, created_at) "
                    "VALUES (?, ?, ?)",
                    (receipt["key_id"], receipt["public_key"], ts_now(receipt)),
                )
                self._conn.execute(
                    "INSERT INTO receipts (id, at, plan_id, status, key_id, body) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        receipt["receipt_id"],
                        ts_now(receipt),
                        receipt.get("plan_id"),
                        receipt["status"],
                        receipt["key_id"],
                        body,
                    ),
                )
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def receipts(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT body FROM receipts ORDER BY at DESC, id LIMIT ? OFFSET ?", (limit, offset)
            ).fetchall()
        return [json.loads(r[0]) for r in rows]

    def receipt(self, receipt_id: str) -> dict[str, Any] | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT body FROM receipts WHERE id = ?", (receipt_id,)
            ).fetchone()
        return None if row is None else dict(json.loads(row[0]))

    def receipt_key(self, key_id: str) -> str | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT public_key FROM receipt_keys WHERE key_id = ?", (key_id,)
            ).fetchone()
        return None if row is None else str(row[0])


def ts_now(receipt: dict[str, Any]) -> float:
    """The receipt's time as the stores keep times."""
    return ts(datetime.fromisoformat(receipt["erased_at"]))
