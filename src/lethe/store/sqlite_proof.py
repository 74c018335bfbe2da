"""What the SQLite store gives a proof of erasure: the files it owns, which memories still
hold a string, the receipts kept, and the claims that tell a purge still being proved from
one whose process ended. Kept apart from `sqlite.py`, which mixes it in."""

from __future__ import annotations

import contextlib
import glob
import os
import re
import secrets
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from lethe.store.held import INDEX_SUFFIXES, MEMORY_SOURCES, NOT_RECORDS
from lethe.store.sqlite_index import snapshot_path

_CLAIM = re.compile(r"[0-9a-f]{16}")
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""Where there is no O_NOFOLLOW (Windows), a claim file is opened as any file."""


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

    def held_texts(self, *, memories: bool) -> Iterator[tuple[str, str]]:
        """(memory id, or `table.column` for a record that is no memory; its text) of every
        live row that may hold a person's words (see `store.held`): with `memories`, the
        memories' own rows only (where most words are held); else all the others."""
        with self._lock:
            for table, owner, columns in MEMORY_SOURCES:
                if (table == "memories") != memories:
                    continue
                text = " || char(1) || ".join(f"coalesce({c}, '')" for c in columns)
                for row in self._conn.execute(f"SELECT {owner}, {text} FROM {table}"):
                    yield (row[0] if row[0] is not None else f"{table}"), row[1]
            if memories:
                return
            # The schema's own words (column names, tokenizer options) are in the file too.
            for row in self._conn.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"):
                yield "sqlite_master.sql", row[0]
            read = {t for t, _, _ in MEMORY_SOURCES} | NOT_RECORDS
            for table, column in self._text_columns(read):
                for row in self._conn.execute(f'SELECT "{column}" FROM "{table}"'):
                    if row[0] is not None:
                        yield f"{table}.{column}", str(row[0])

    def _text_columns(self, skip: set[str] | frozenset[str]) -> list[tuple[str, str]]:
        tables = [
            r[0]
            for r in self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE '%VIRTUAL%'"
            )
        ]
        found = []
        for table in tables:
            if table.startswith("sqlite_") or table.endswith(INDEX_SUFFIXES) or table in skip:
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

    @contextlib.contextmanager
    def claim(self) -> Iterator[str]:
        """A lock file beside the database, locked (`flock`) for as long as the purge is
        proved. The kernel drops the lock with the process; the file then says nothing, and
        the next open removes it (`clear_claims`)."""
        while True:
            token = secrets.token_hex(8)
            path = self._claim_path(token)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
            try:
                _flock(fd, wait=True)
                named = _still_named(fd, path)
            except BaseException:
                _drop(fd, path)
                raise
            if named:
                break
            # An open cleared the file between its creation and this lock (nobody held it
            # yet): the lock is on a file no other process can find, so it would claim nothing.
            os.close(fd)
        try:
            yield token
        finally:
            _drop(fd, path)

    def claim_held(self, token: str) -> bool:
        """The lock file is gone (its purge kept its receipt) or can be locked (its process
        ended): not held, and a file left behind is removed. Where `flock` is missing, a file
        that exists is taken as held."""
        if not _CLAIM.fullmatch(token):
            return False
        return not _clear_claim(self._claim_path(token))

    def clear_claims(self) -> None:
        """Remove the claim files nobody holds: a process killed before its purge committed
        leaves one that no promise names, so no `claim_held` ever gets to it. Run at open."""
        for path in self.path.parent.glob(f"{glob.escape(self.path.name)}.purging-*"):
            if _CLAIM.fullmatch(path.name.rpartition(".purging-")[2]):
                _clear_claim(path)

    def _claim_path(self, token: str) -> Path:
        return self.path.with_name(f"{self.path.name}.purging-{token}")


def _clear_claim(path: Path) -> bool:
    """Remove a claim file nobody holds. True when no claim is held there (the file was
    gone, or is removed now); False while a purge holds it, or when the name is no file of
    ours to open (a symbolic link, another owner's file): left alone, taken as held.

    The file is removed while locked, so that a purge still between creating its claim and
    locking it finds its file gone once it has the lock, and makes another (`claim`). Only
    where `flock` exists: elsewhere (Windows, where an open file cannot be removed) a claim
    file that exists is taken as held and nothing is removed here."""
    try:
        fd = os.open(path, os.O_RDWR | _NOFOLLOW)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        if not _flock(fd, wait=False):
            return False
        if _still_named(fd, path):
            with contextlib.suppress(OSError):
                path.unlink()
        return True
    finally:
        os.close(fd)


def _drop(fd: int, path: Path) -> None:
    """Let go of this process's own claim: the file closed first, as Windows cannot remove
    a file that is open, then removed (an open may have removed it in between)."""
    os.close(fd)
    with contextlib.suppress(OSError):
        path.unlink()


def _still_named(fd: int, path: Path) -> bool:
    """Whether `path` still names the file open as `fd` (not removed, not replaced)."""
    try:
        named = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def _flock(fd: int, *, wait: bool) -> bool:
    """Lock the file (`flock`, exclusive): False when another open file holds it. Where there
    is no flock (Windows) nothing is locked, and a claim's file alone says it is held."""
    try:
        import fcntl
    except ImportError:
        return wait
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True
