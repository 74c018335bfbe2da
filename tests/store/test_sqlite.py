"""The SQLite file itself: schema, pragmas, refusal of foreign files, and sharing it."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lethe import Filters, Lethe
from lethe.embed import Embedder
from lethe.errors import DatabaseNotWritable, NotALetheDatabase, SchemaTooNew
from lethe.store.sqlite_schema import LATEST_VERSION
from tests.backends import snapshot


@pytest.fixture
def mem(db_path: Path, embedder: Embedder) -> Iterator[Lethe]:
    """This file tests the SQLite store itself (its file, pragmas and process sharing); the
    contract both stores keep is tested through the `db` fixture elsewhere."""
    with Lethe.open(db_path, embedder=embedder) as lethe:
        yield lethe


def test_new_file_has_schema_wal_and_foreign_keys(mem: Lethe, db_path: Path) -> None:
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    meta = dict(conn.execute("SELECT key, value FROM lethe_meta").fetchall())
    assert meta["application"] == "lethe" and meta["dim"] == "384"
    conn.close()
    assert mem.store._conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert mem.store.schema_version == LATEST_VERSION


def test_reopen_keeps_everything(db_path: Path, embedder: Embedder) -> None:
    with Lethe.open(db_path, embedder=embedder) as mem:
        memory = mem.remember("The cat is called Miso and sleeps on the keyboard")
    with Lethe.open(db_path, embedder=embedder) as mem:
        assert mem.get(memory.id) == memory
        assert mem.recall("cat keyboard", k=1)[0].memory.id == memory.id


def test_text_file_is_refused_and_left_alone(tmp_path: Path, embedder: Embedder) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n")
    with pytest.raises(NotALetheDatabase, match="not a lethe database"):
        Lethe.open(path, embedder=embedder)
    assert path.read_text() == "just some notes\n"


def test_other_sqlite_database_is_refused(tmp_path: Path, embedder: Embedder) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE things (x)")
    conn.commit()
    conn.close()
    with pytest.raises(NotALetheDatabase, match="another application"):
        Lethe.open(path, embedder=embedder)
    conn = sqlite3.connect(path)
    assert [r[0] for r in conn.execute("SELECT name FROM sqlite_master")] == ["things"]
    conn.close()


def test_newer_schema_is_refused(db_path: Path, embedder: Embedder) -> None:
    Lethe.open(db_path, embedder=embedder).close()
    conn = sqlite3.connect(db_path)
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.close()
    before = snapshot(db_path)
    with pytest.raises(SchemaTooNew, match="upgrade lethe"):
        Lethe.open(db_path, embedder=embedder)
    assert snapshot(db_path) == before


def test_unwritable_locations_are_refused(tmp_path: Path, embedder: Embedder) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(DatabaseNotWritable):
        Lethe.open(blocker / "memory.db", embedder=embedder)
    with pytest.raises(DatabaseNotWritable, match="directory"):
        Lethe.open(tmp_path, embedder=embedder)
    with pytest.raises(DatabaseNotWritable):
        Lethe.open("/proc/lethe/memory.db", embedder=embedder)


def test_a_read_only_database_file_is_refused(
    db_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file is writable for root, which runs these tests here, so the permission
    answer for this one file is simulated; the refusal and the untouched file are real."""
    import lethe.store.sqlite_open as sqlite_store

    Lethe.open(db_path, embedder=embedder).close()
    before = snapshot(db_path)
    real_access = sqlite_store.os.access

    def access(path: object, mode: int) -> bool:
        if Path(str(path)) == db_path and mode & sqlite_store.os.W_OK:
            return False
        return real_access(path, mode)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite_store.os, "access", access)
    with pytest.raises(DatabaseNotWritable, match="not writable"):
        Lethe.open(db_path, embedder=embedder)
    assert snapshot(db_path) == before


def test_events_are_append_only(mem: Lethe, db_path: Path) -> None:
    mem.remember("The cat is called Miso and sleeps on the keyboard")
    conn = sqlite3.connect(db_path)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE events SET actor = 'someone else'")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM events")
    conn.close()


def test_failed_transaction_leaves_no_trace(mem: Lethe, db_path: Path) -> None:
    mem.remember("The cat is called Miso and sleeps on the keyboard")
    before = snapshot(db_path)
    vector = mem.embedder.embed(["Something that will be rolled back"])[0]
    with pytest.raises(RuntimeError), mem.store.transaction() as tx:
        from lethe.model import Memory, utcnow

        now = utcnow()
        tx.insert_memory(
            Memory(
                id="mem_aaaaaaaaaaaa",
                content="Something that will be rolled back",
                content_sha256="0" * 64,
                created_at=now,
                updated_at=now,
            ),
            vector,
        )
        raise RuntimeError("boom")
    assert snapshot(db_path) == before
    assert mem.recall("rolled back", k=5)[0].memory.id != "mem_aaaaaaaaaaaa"
    fts = sqlite3.connect(db_path).execute(
        "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH 'rolled'"
    )
    assert fts.fetchone()[0] == 0


WRITER = textwrap.dedent(
    """
    import sys
    from lethe import Lethe
    with Lethe.open(sys.argv[1]) as mem:
        if sys.argv[2] == "remember":
            print(mem.remember(sys.argv[3]).id)
        else:
            mem.update(sys.argv[3], content=sys.argv[4])
    """
)


def test_two_processes_see_each_others_writes(mem: Lethe, db_path: Path) -> None:
    mine = mem.remember("The cat is called Miso and sleeps on the keyboard")
    assert mem.recall("glacier hiking trip", k=1)[0].memory.id == mine.id

    def other(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", WRITER, str(db_path), *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        return done.stdout.strip()

    theirs = other("remember", "We went glacier hiking in Iceland last summer")
    hits = mem.recall("glacier hiking trip", k=2)
    assert hits[0].memory.id == theirs
    assert hits[0].similarity > 0.5

    other("update", mine.id, "The dog is called Pixel and guards the glacier photos")
    top = mem.recall("dog named Pixel", k=1)[0]
    assert top.memory.id == mine.id and top.memory.content.startswith("The dog")


def test_a_locked_database_is_a_clear_error(db_path: Path, embedder: Embedder) -> None:
    from lethe.errors import StoreBusy

    with Lethe.open(db_path, embedder=embedder, busy_timeout_ms=100) as mem:
        mem.remember("The cat is called Miso and sleeps on the keyboard")
        before = snapshot(db_path)
        blocker = sqlite3.connect(db_path, isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        try:
            with pytest.raises(StoreBusy, match="locked"):
                mem.remember("User likes jazz")
        finally:
            blocker.execute("ROLLBACK")
            blocker.close()
        assert snapshot(db_path) == before
        assert mem.remember("User likes jazz").content == "User likes jazz"


def test_explicit_none_turns_off_a_configured_workspace(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LETHE_WORKSPACE_DIR", str(tmp_path / "ws"))
    with Lethe.open(tmp_path / "a.db", embedder=embedder) as mem:
        assert mem.workspace is not None
    with Lethe.open(tmp_path / "b.db", embedder=embedder, workspace_dir=None) as mem:
        assert mem.workspace is None


def test_a_version_1_file_is_migrated_in_place(db_path: Path, embedder: Embedder) -> None:
    from lethe.store.sqlite_schema import MIGRATIONS

    conn = sqlite3.connect(db_path)
    conn.executescript(MIGRATIONS[1])
    conn.executemany(
        "INSERT INTO lethe_meta (key, value) VALUES (?, ?)",
        [("application", "lethe"), ("embedder", embedder.name), ("dim", str(embedder.dim))],
    )
    vector = embedder.embed(["User lives in San Francisco"])[0]
    conn.execute(
        """INSERT INTO memories (id, namespace, agent, content, content_sha256, layer,
               importance, created_at, updated_at, embedding)
           VALUES ('mem_aaaaaaaaaaaa', 'default', 'user', 'User lives in San Francisco',
               'x', 'semantic', 0.5, 1.0, 1.0, ?)""",
        (vector.tobytes(),),
    )
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    with Lethe.open(db_path, embedder=embedder) as mem:
        assert mem.store.schema_version == LATEST_VERSION
        assert mem.recall("San Francisco", k=1)[0].memory.id == "mem_aaaaaaaaaaaa"
        mem.execute(mem.plan_forget(["mem_aaaaaaaaaaaa"]))
        [item], _ = mem.list_trash()
        assert item.memory.id == "mem_aaaaaaaaaaaa"


def test_vector_snapshot_speeds_the_next_open_and_stays_correct(
    db_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lethe.store import sqlite_index

    monkeypatch.setattr(sqlite_index, "SNAPSHOT_MIN", 2)
    snapshot_file = sqlite_index.snapshot_path(db_path)
    texts = ["User lives in San Francisco", "The cat is called Miso", "User likes jazz"]
    with Lethe.open(db_path, embedder=embedder) as first:
        ids = [first.remember(t).id for t in texts]
    with Lethe.open(db_path, embedder=embedder) as second:
        assert second.recall("cat", k=1)[0].memory.id == ids[1]
    assert snapshot_file.exists(), "a rebuilt index is saved beside the database"

    def no_rebuild(self: object) -> None:
        raise AssertionError("the snapshot should have been used")

    with Lethe.open(db_path, embedder=embedder) as writer:
        late = writer.remember("We went glacier hiking in Iceland")
        writer.execute(writer.plan_forget([ids[0]]))
        monkeypatch.setattr(sqlite_index.IndexSync, "_rebuild", no_rebuild)
        with Lethe.open(db_path, embedder=embedder) as reader:
            assert reader.store.live_vector_ids() == {ids[1], ids[2], late.id}
            assert reader.recall("glacier hiking", k=1)[0].memory.id == late.id
    monkeypatch.undo()

    other = db_path.with_name("other.db")
    with Lethe.open(other, embedder=embedder) as mem:
        mem.remember("A completely different store")
    sqlite_index.snapshot_path(other).write_bytes(snapshot_file.read_bytes())
    with Lethe.open(other, embedder=embedder) as mem:
        assert len(mem.store.live_vector_ids()) == 1, "another store's snapshot is ignored"

    saved = sorted(p.name for p in db_path.parent.glob(f"{db_path.name}.vectors.*.npy"))
    tags = {name.split(".vectors.")[1].split(".")[0] for name in saved}
    assert len(saved) == 2 and len(tags) == 1, "each save replaces the previous matrix and codes"
    with Lethe.open(db_path, embedder=embedder) as mem:
        mem.execute(mem.plan_purge([ids[0]]))
        assert not snapshot_file.exists(), "a purge drops the snapshot with the erased vector"
        assert not list(db_path.parent.glob(f"{db_path.name}.vectors.*.npy"))


def test_snapshot_keeps_the_int8_codes_and_searches_stay_exact(
    db_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the int8 first pass forced on, a store opened from its snapshot (codes loaded,
    not recomputed) ranks and scores exactly as float32 brute force over the stored rows."""
    from lethe.store import sqlite_index, vectors

    monkeypatch.setattr(sqlite_index, "SNAPSHOT_MIN", 2)
    monkeypatch.setattr(vectors, "PREFILTER_MIN", 0)
    texts = [
        "User lives in San Francisco",
        "The cat is called Miso",
        "User likes jazz and late-night radio",
        "We went glacier hiking in Iceland",
        "The project deadline moved to Friday",
        "User is allergic to peanuts",
    ]
    with Lethe.open(db_path, embedder=embedder) as mem:
        for text in texts:
            mem.remember(text)
    with Lethe.open(db_path, embedder=embedder) as mem:
        mem.store.live_vector_ids()  # rebuilds and saves the snapshot
    assert sqlite_index.snapshot_path(db_path).exists()
    assert list(db_path.parent.glob(f"{db_path.name}.vectors.*.codes.npy"))

    def no_rebuild(self: object) -> None:
        raise AssertionError("the snapshot should have been used")

    monkeypatch.setattr(sqlite_index.IndexSync, "_rebuild", no_rebuild)
    conn = sqlite3.connect(db_path)
    rows = conn.execute("SELECT id, embedding FROM memories ORDER BY num").fetchall()
    conn.close()
    ids = [r[0] for r in rows]
    matrix = np.stack([np.frombuffer(r[1], dtype="<f4") for r in rows])
    with Lethe.open(db_path, embedder=embedder) as mem:
        for query in ("where does the user live", "pets", "food allergy", "music"):
            vector = embedder.embed([query])[0]
            got = mem.store.vector_search(vector, Filters(), 4)
            scores = matrix @ vector
            want = [ids[i] for i in np.argsort(-scores)[:4]]
            assert [i for i, _ in got] == want
            np.testing.assert_allclose([s for _, s in got], np.sort(scores)[::-1][:4], atol=1e-6)


def test_the_index_rebuilt_from_rows_in_chunks_holds_every_live_row_exactly(
    db_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rebuild streams the rows into the index's matrix a chunk at a time (at 1M
    memories holding every BLOB at once peaked above 7 GB): with chunks of 3 rows and
    forgotten rows between live ones, the index, its snapshot and a reopen from that
    snapshot all hold exactly the live rows."""
    from lethe.store import sqlite_index

    monkeypatch.setattr(sqlite_index, "_CHUNK", 3)
    monkeypatch.setattr(sqlite_index, "SNAPSHOT_MIN", 2)
    topics = [
        "jazz",
        "cats",
        "hiking",
        "peanuts",
        "Iceland",
        "Friday",
        "radio",
        "tea",
        "chess",
        "rain",
        "bikes",
        "bread",
    ]
    texts = [f"Memory number {n} is about {topic}" for n, topic in enumerate(topics)]
    with Lethe.open(db_path, embedder=embedder) as mem:
        ids = [mem.remember(t).id for t in texts]
        mem.execute(mem.plan_forget([ids[1], ids[5]]))  # 10 live: the last chunk is short
    sqlite_index.snapshot_path(db_path).unlink(missing_ok=True)
    for leftover in db_path.parent.glob(f"{db_path.name}.vectors.*.npy"):
        leftover.unlink()
    conn = sqlite3.connect(db_path)
    rows = conn.execute(
        "SELECT id, embedding FROM memories WHERE status = 'active' ORDER BY num"
    ).fetchall()
    conn.close()
    live = [r[0] for r in rows]
    matrix = np.stack([np.frombuffer(r[1], dtype="<f4") for r in rows])
    for opening in ("from rows", "from the snapshot"):
        with Lethe.open(db_path, embedder=embedder) as mem:
            assert mem.store.live_vector_ids() == set(live), opening
            for query in ("music", "animals", "mountains"):
                vector = embedder.embed([query])[0]
                got = mem.store.vector_search(vector, Filters(), len(live))
                scores = matrix @ vector
                assert [i for i, _ in got] == [live[i] for i in np.argsort(-scores)], opening
        assert sqlite_index.snapshot_path(db_path).exists()


def _open_store_at_once(path: str, barrier: Any) -> str:
    from lethe.store.sqlite import SQLiteStore

    barrier.wait()
    try:
        SQLiteStore(path, embedder="test-embedder", dim=4).close()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "ok"


def test_processes_opening_a_new_file_at_once_create_it_once(tmp_path: Path) -> None:
    """Each process finds version 0 and migrates; the version is read again under the write
    lock, so the ones that wait find the schema made and add nothing."""
    import multiprocessing

    for attempt in range(3):
        path = str(tmp_path / f"race-{attempt}.db")
        context = multiprocessing.get_context("spawn")
        barrier = context.Manager().Barrier(6)
        with context.Pool(6) as pool:
            results = pool.starmap(_open_store_at_once, [(path, barrier)] * 6)
        assert results == ["ok"] * 6, results
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION
        assert (
            conn.execute("SELECT count(*) FROM lethe_meta WHERE key = 'application'").fetchone()[0]
            == 1
        )
        conn.close()


def test_a_snapshot_newer_than_its_database_is_refused_before_its_matrix_is_read(
    db_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An older copy of the database put back (a backup restored) beside a snapshot saved
    later: the snapshot holds vectors the database never had. It is refused from its small
    header, without reading its matrix, and the index is rebuilt from the rows."""
    import shutil

    import numpy as np

    from lethe.store import sqlite_index

    monkeypatch.setattr(sqlite_index, "SNAPSHOT_MIN", 2)
    older = db_path.with_name("older.db")
    with Lethe.open(db_path, embedder=embedder) as mem:
        kept = [mem.remember(t).id for t in ("User lives in Porto", "The cat is called Miso")]
    shutil.copy(db_path, older)
    with Lethe.open(db_path, embedder=embedder) as mem:
        mem.remember("User's locker code is 4471")
    with Lethe.open(db_path, embedder=embedder) as mem:
        mem.store.live_vector_ids()  # rebuilds and saves a snapshot of three vectors
    assert sqlite_index.snapshot_path(db_path).exists()
    shutil.copy(older, db_path)

    read: list[str] = []
    load = np.load

    def spy(path: object, *args: object, **kwargs: object) -> object:
        read.append(str(path))
        return load(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sqlite_index.np, "load", spy)
    with Lethe.open(db_path, embedder=embedder) as mem:
        assert mem.store.live_vector_ids() == set(kept)
        assert [h.memory.id for h in mem.recall("locker code", k=5)] != []
        assert all(h.memory.id in kept for h in mem.recall("locker code", k=5))
    assert read == [str(sqlite_index.snapshot_path(db_path))], "the header only, no matrix"
