"""Proof of erasure (issue 27): a purge checks the bytes of lethe's files and signs a receipt.

The canary is held in every kind of copy lethe makes — an earlier version, a summary, a
neighbour's conversation context and the workspace — and purged; the receipt must name each
place and the scan must find nothing. A copy the test leaves on purpose in a file lethe owns
must make the purge say it is not proven. Both stores.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path

import psycopg
import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.erasure import signing
from lethe.erasure.scan import scan
from lethe.erasure.tokens import distinctive
from lethe.errors import InvalidInput, SigningKeyError
from tests.backends import is_postgres
from tests.clocks import Clock
from tests.pg_support import PgServer

CANARY = "The locker code of Ottoline Quigley is QX-4417-ZB, kept at the Harbourview gym"
CODE = "QX-4417-ZB"
WORDS = ("QX-4417-ZB", "Quigley", "Ottoline", "Harbourview")
OTHER = "User tried a pottery class on a rainy afternoon"


def _holding(mem: Lethe, clock: Clock, ws: Path) -> tuple[str, str, str]:
    """The canary in a version, a summary, a neighbour's context and the workspace: returns
    (canary id, summary id, neighbour id)."""
    canary = mem.remember(CANARY, metadata={"session": "s-1"})
    mem.remember(OTHER)
    clock.advance(days=55)
    [summary] = mem.execute_sweep(mem.sweep()).summary_ids
    clock.advance(minutes=1)
    mem.restore(canary.id)  # compressed into the summary: back, and a turn again
    neighbour = mem.remember("And what did you do after that?", metadata={"session": "s-1"})
    mem.update(canary.id, importance=0.7)  # a second version: the first holds the text too
    assert CODE in mem.get(summary).content
    assert any(CODE.encode() in p.read_bytes() for p in ws.rglob("*.md"))
    return canary.id, summary, neighbour.id


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_a_canary_in_every_copy_is_erased_and_the_receipt_names_each_place(
    db: str, tmp_path: Path, embedder: Embedder, clock: Clock
) -> None:
    ws = tmp_path / "ws"
    with Lethe.open(
        db, embedder=embedder, clock=clock, decay_policy="auto", workspace_dir=ws
    ) as mem:
        canary, summary, neighbour = _holding(mem, clock, ws)
        contexts = [o for o, t in mem.store.held_texts(memories=False) if CODE in t]
        assert neighbour in contexts  # its conversation context holds the canary's words
        result = mem.execute(mem.plan_purge([canary]))
        receipt = result.receipt
        assert receipt is not None and receipt["status"] == "erased", result.notes
        assert result.notes.startswith("Erased 1 memory") and "NOT proven" not in result.notes
        places = {p["place"]: p for p in receipt["places"]}
        assert places["memory rows"]["count"] == 1
        assert places["versions"]["count"] >= 1
        assert [s["id"] for s in places["summaries rewritten"]["summaries"]] == [summary]
        assert places["conversation contexts"]["count"] == 1
        assert places["workspace lines"]["count"] == 1
        assert places["audit details"]["count"] >= 3
        [entry] = receipt["memories"]
        assert entry["id"] == canary and len(entry["versions"]) == 2
        assert receipt["scan"]["remaining"] == [] and receipt["probes"]["erased_returned"] == []
        assert receipt["probes"]["queries"] >= 1 + len(WORDS)
        scanned = {Path(f["path"]).name for f in receipt["scan"]["files"]}
        assert any(n.endswith(".md") for n in scanned)
        if not is_postgres(db):
            assert {"memory.db", "memory.db-wal"} <= scanned
        dumped = json.dumps(receipt).lower()
        assert not any(w.lower() in dumped for w in WORDS)  # never the erased words
        assert mem._proof._where_held(list(WORDS)) == [[], [], [], []]
        assert mem.verify_receipt(receipt) == []
        assert mem.receipts()[0] == receipt
        assert str(tmp_path) not in json.dumps(receipt)  # no home directory in it
        files = [*mem.store.owned_files(), *mem.workspace.files(["default"])]
        _, hits = scan(files, list(WORDS), [True] * len(WORDS))
        assert hits == []


def test_a_copy_left_in_a_file_lethe_owns_makes_the_purge_say_not_proven(
    db: str, tmp_path: Path, embedder: Embedder
) -> None:
    """The test writes the code into another namespace's daily log (a file lethe owns that
    the purge's retry does not rewrite): the purge deletes the rows, retries its cleanup once,
    and then reports the trace and where it is — never "erased"."""
    ws = tmp_path / "ws"
    with Lethe.open(db, embedder=embedder, workspace_dir=ws) as mem:
        target = mem.remember(CANARY)
        mem.remember("A note at work", namespace="work")
        [log] = list((ws / "work" / "memory").glob("*.md"))
        log.write_text(log.read_text() + f"- left behind: {CODE}\n")
        result = mem.execute(mem.plan_purge([target.id]))
        receipt = result.receipt
        assert receipt is not None and receipt["status"] == "incomplete"
        assert "Erased" not in result.notes and "NOT proven" in result.notes
        assert receipt["scan"]["retried"] is True
        [left] = {(r["path"], r["kind"]) for r in receipt["scan"]["remaining"]}
        assert left == (f"workspace/work/memory/{log.name}", "identifier")
        assert mem.store.get(target.id) is None  # the rows are gone all the same
        assert CODE not in json.dumps(receipt)


def test_a_copy_the_retry_can_mend_is_mended_and_said(tmp_path: Path, embedder: Embedder) -> None:
    """A trace in a daily log of the purged namespace that the purge's own refresh does not
    rewrite (a day with no memory left, as an older lethe could leave it) is found by the
    first scan, removed by the retried cleanup (a rebuild of the namespace's files), and the
    receipt says so."""
    ws = tmp_path / "ws"
    with Lethe.open(tmp_path / "m.db", embedder=embedder, workspace_dir=ws) as mem:
        target = mem.remember(CANARY)
        kept = mem.remember(OTHER)
        stray = ws / "memory" / "2020-01-01.md"
        stray.write_text(f"# 2020-01-01\n\n- {CANARY}\n")
        result = mem.execute(mem.plan_purge([target.id]))
        receipt = result.receipt
        assert receipt is not None and receipt["status"] == "erased", result.notes
        assert receipt["scan"]["retried"] is True
        assert {r["path"] for r in receipt["scan"]["first_scan_remaining"]} == {
            "workspace/memory/2020-01-01.md"
        }
        assert not stray.exists() and mem.get(kept.id) is not None


def test_a_token_another_memory_holds_is_reported_not_targeted(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        target = mem.remember(CANARY)
        other = mem.remember(f"Reminder: the spare key tag says {CODE}")
        receipt = mem.execute(mem.plan_purge([target.id])).receipt
        assert receipt is not None and receipt["status"] == "erased"
        held = [n["held_by"] for n in receipt["scan"]["not_targeted"]]
        held += [n["held_by"] for n in receipt["probes"]["not_targeted"]]
        assert [other.id] in held
        assert receipt["probes"]["erased_returned"] == []


def test_a_tampered_receipt_fails_verification(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        target = mem.remember(CANARY)
        kept = mem.remember(OTHER)
        receipt = mem.execute(mem.plan_purge([target.id])).receipt
        assert receipt is not None and mem.verify_receipt(receipt) == []
        other_id = json.loads(json.dumps(receipt))
        other_id["memories"][0]["id"] = kept.id
        problems = mem.verify_receipt(other_id)
        assert "the signature does not match the receipt's contents" in problems
        assert f"{kept.id} still exists" in problems
        digest = json.loads(json.dumps(receipt))
        digest["memories"][0]["content_sha256"] = "0" * 64
        assert any("holds no purge" in p for p in mem.verify_receipt(digest))
        status = dict(receipt, status="erased", erased_at="2020-01-01T00:00:00+00:00")
        assert mem.verify_receipt(status) == ["the signature does not match the receipt's contents"]
        # Signed again, but with a key that is not this store's.
        forged = signing.sign(signing.Ed25519PrivateKey.generate(), digest)
        assert "the signing key is not one of this store's receipt keys" in mem.verify_receipt(
            forged
        )
        with pytest.raises(InvalidInput, match="not a lethe erasure receipt"):
            mem.verify_receipt({"hello": 1})


def test_the_signing_key_is_owner_only_and_a_readable_one_refuses_the_purge(
    tmp_path: Path, embedder: Embedder
) -> None:
    db = tmp_path / "m.db"
    with Lethe.open(db, embedder=embedder) as mem:
        first = mem.remember(CANARY)
        second = mem.remember(OTHER)
        mem.execute(mem.plan_purge([first.id]))
        key = mem.store.signing_key_path()
        assert key.exists() and stat.S_IMODE(key.stat().st_mode) == 0o600
        os.chmod(key, 0o644)
        with pytest.raises(SigningKeyError, match="chmod 600"):
            mem.execute(mem.plan_purge([second.id]))
        assert mem.get(second.id) is not None  # refused before anything was erased


def test_two_call_purge_returns_a_receipt(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        target = mem.remember(CANARY)
        assert mem.forget([target.id], session="s", operation="purge").status == "pending"
        done = mem.forget([target.id], session="s", operation="purge")
        assert done.executed is not None and done.executed.receipt is not None
        receipt = done.executed.receipt
        assert receipt["confirmed"] == {"by": "s", "via": "two_call", "session": "s"}
        assert receipt["status"] == "erased" and mem.verify_receipt(receipt) == []


def test_distinctive_tokens_and_whole_numbers(tmp_path: Path) -> None:
    kinds = {t.text: t.kind for t in distinctive(CANARY + " PIN 4821, 認証コードは48213です")}
    assert kinds[CODE] == "identifier" and kinds["Quigley"] == "name"
    assert kinds["Harbourview"] == "name" and kinds["4821"] == "identifier"
    assert kinds["48213"] == "identifier" and kinds["認証コード"] == "run"
    assert "The" not in kinds and "locker" not in kinds  # sentence start, a common word
    f = tmp_path / "f.bin"
    f.write_bytes(b"code 48213 and x4821y and ord4821")
    _, hits = scan([f], ["4821"], [True])
    assert hits == []  # only whole: 4821 is not in 48213
    f.write_bytes(b"pin: 4821.")
    assert len(scan([f], ["4821"], [True])[1]) == 1


def test_postgres_purge_leaves_no_erased_text_in_the_heap_files(
    pg_server: PgServer, pg_dsn: str, embedder: Embedder
) -> None:
    """A deleted row stays in its page until vacuumed, and a plain VACUUM leaves the newest
    tuple of a page in its free space: purge rewrites the tables, and the files show it."""
    with Lethe.open(pg_dsn, embedder=embedder) as mem:
        for i in range(30):
            mem.remember(f"Filler memory number {i} about gardening and tea")
        target = mem.remember(CANARY)  # the newest tuple of its page
        mem.update(target.id, importance=0.7)
        receipt = mem.execute(mem.plan_purge([target.id])).receipt
        assert receipt is not None and receipt["status"] == "erased"
        assert any("VACUUM FULL" in p["how"] for p in receipt["places"])
        assert any("write-ahead log" in limit for limit in receipt["limits"])
    assert pg_server.datadir is not None
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("CHECKPOINT")
        files = []
        for table in ("memories", "memory_versions", "memory_context", "events"):
            for (oid,) in conn.execute(
                "SELECT c.oid FROM pg_class c WHERE c.oid = %s::regclass "
                "OR c.oid = (SELECT reltoastrelid FROM pg_class WHERE oid = %s::regclass) "
                "OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = %s::regclass)",
                (table, table, table),
            ).fetchall():
                (path,) = conn.execute("SELECT pg_relation_filepath(%s)", (oid,)).fetchone()
                if path:
                    files += list(pg_server.datadir.glob(path + "*"))
    assert files
    leftovers = [str(p) for p in files if p.is_file() and b"quigley" in p.read_bytes().lower()]
    assert leftovers == []


def test_what_lethe_writes_itself_is_no_trace(db: str, tmp_path: Path, embedder: Embedder) -> None:
    """Dates and times are in every daily log lethe writes, and a model's name is in its
    settings: a purged text that names them is erased, and a token found in a live record
    that is not a memory is reported where it is (`table.column`), not as a failure."""
    ws = tmp_path / "ws"
    with Lethe.open(db, embedder=embedder, workspace_dir=ws) as mem:
        mem.remember("Lunch with the team at 12:30")
        stamp = mem.remember("Standup moved").created_at
        text = (
            f"Dentist Okonkwo on {stamp:%Y-%m-%d} at {stamp:%H:%M}, "
            "the embeddings come from all-MiniLM-L6-v2"
        )
        target = mem.remember(text)
        result = mem.execute(mem.plan_purge([target.id]))
        receipt = result.receipt
        assert receipt is not None and receipt["status"] == "erased", result.notes
        held = [n["held_by"] for n in receipt["scan"]["not_targeted"]]
        if not is_postgres(db):  # the model's name is in the database file itself
            assert ["lethe_meta.value"] in held


def test_a_reader_holding_the_log_makes_the_receipt_incomplete_until_maintain(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Another connection mid-read keeps old frames in the WAL: the checkpoint cannot finish,
    is retried once, and the receipt says the erasure is not proven; once the reader is gone,
    `maintain` finishes the cleanup and no byte is left."""
    from tests.engine.test_derived_attack import _purge_with_a_reader_held, files_with

    db = tmp_path / "store" / "m.db"
    mem, _ = _purge_with_a_reader_held(db, embedder, "quartz-557-zebra")
    try:
        [receipt] = mem.receipts()
        assert receipt["status"] == "incomplete" and receipt["cleanup_done"] is False
        assert receipt["scan"]["retried"] is True
        mem.maintain()
        assert files_with(db.parent, b"quartz-557-zebra") == []
    finally:
        mem.close()


def test_a_word_the_full_text_index_still_lists_is_a_trace(
    tmp_path: Path, embedder: Embedder
) -> None:
    """Index terms are prefix-compressed in its pages, so bytes cannot show most of them;
    the index's vocabulary can. An index entry the purge failed to delete (its trigger
    dropped here on purpose, as a tokenizer that reads the text differently at deletion
    would do) still lists the name: the receipt names the index as where it remains."""
    db = tmp_path / "m.db"
    with Lethe.open(db, embedder=embedder) as mem:
        for n in range(40):
            mem.remember(f"Note {n}: the garden needs water")
        target = mem.remember(CANARY)
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER memories_fts_delete")
    conn.close()
    with Lethe.open(db, embedder=embedder) as mem:
        receipt = mem.execute(mem.plan_purge([target.id])).receipt
        assert receipt is not None and receipt["status"] == "incomplete"
        places = {(r["path"], r["kind"]) for r in receipt["scan"]["remaining"]}
        assert ("full-text index", "name") in places


@pytest.mark.parametrize("find_limit", [0, 16])
def test_both_ways_of_scanning_find_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, find_limit: int
) -> None:
    """The automaton (many needles) and `bytes.find` (a few) find the same first places,
    across chunk edges, without ASCII case, and whole numbers only whole."""
    import random

    from lethe.erasure import scan as scanning

    monkeypatch.setattr(scanning, "CHUNK_BYTES", 64)
    monkeypatch.setattr(scanning, "FIND_LIMIT", find_limit)
    rng = random.Random(5)
    data = bytearray(rng.randbytes(2000))
    planted = {"Quigley": 100, "QX-4417-ZB": 250, "猫カフェ": 1023, "4821": 1500}
    for word, at in planted.items():
        raw = word.upper().encode() if word.isascii() else word.encode()
        data[at - 1 : at + len(raw) + 1] = b" " + raw + b" "
    data[40:47] = b" 48213 "  # before the whole one: must not be its first place
    f = tmp_path / "f.bin"
    f.write_bytes(bytes(data))
    needles = [*planted, "absent-needle"]
    _, hits = scan([f], needles, [True] * len(needles))
    assert {needles[h.needle]: h.offset for h in hits} == planted
