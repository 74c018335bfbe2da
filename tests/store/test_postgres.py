"""The engine on a real PostgreSQL database (pgvector HNSW, tsvector full text): the same
behaviour as on SQLite for remembering, recall, links, episodes, forgetting, restore, purge
and the audit; and what only a shared server has to guarantee (several engines on one
database: shared pending confirmations, a forgotten memory gone for all of them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from lethe import Filters, Lethe
from lethe.embed import Embedder
from lethe.errors import InvalidInput, MemoryNotFound
from lethe.model import Draft
from lethe.store.postgres import PostgresStore
from lethe.store.postgres_schema import LATEST_VERSION
from tests.engine.test_lethe import _seeded


@pytest.fixture
def pg_mem(pg_dsn: str, embedder: Embedder) -> Iterator[Lethe]:
    with Lethe.open(pg_dsn, embedder=embedder) as mem:
        yield mem


def rows(dsn: str, table: str) -> list[tuple[object, ...]]:
    order = {"events": "seq", "memories": "num"}.get(table, "1")
    with psycopg.connect(dsn) as conn:
        return list(conn.execute(f"SELECT * FROM {table} ORDER BY {order}".encode()).fetchall())


def test_a_dsn_opens_the_postgres_store(pg_mem: Lethe) -> None:
    assert isinstance(pg_mem.store, PostgresStore)
    assert pg_mem.store.schema_version == LATEST_VERSION


def test_remember_recall_and_duplicates(pg_mem: Lethe) -> None:
    home = pg_mem.remember("User lives in San Francisco", tags=["home"], metadata={"y": 2024})
    cat = pg_mem.remember("The cat is called Miso and sleeps on the keyboard")
    pg_mem.remember("User visited Lisbon in May")
    hits = pg_mem.recall("where does the user live?", k=2)
    assert hits[0].memory.id == home.id and 0 < hits[0].similarity <= 1
    miso = pg_mem.recall("Miso", k=1)[0]
    assert miso.memory.id == cat.id and miso.lexical_rank == 1, "the full-text side finds it"
    assert pg_mem.get(home.id).access_count == 1
    stored = pg_mem.get(home.id)
    assert stored.tags == ("home",) and stored.metadata == {"y": 2024}
    again = pg_mem.remember("User lives in San Francisco", tags=["home"], metadata={"y": 2024})
    assert again.existing and again.id == home.id
    assert pg_mem.list_memories().total == 3


def test_filters_on_recall_and_list(pg_mem: Lethe) -> None:
    ids = _seeded(pg_mem)
    found = {h.memory.id for h in pg_mem.recall("pricing", k=10, where=["@metadata.score > 5"])}
    assert found == {ids["new"]}
    page = pg_mem.list_memories({"layer": "caveat"})
    assert [m.id for m in page.items] == [ids["deploy"]]
    assert {m.id for m in pg_mem.list_memories(where=["agent = bob"]).items} == {
        ids["talk"],
        ids["deploy"],
    }


def test_forget_restore_purge_and_audit(pg_mem: Lethe, pg_dsn: str) -> None:
    a = pg_mem.remember("User likes jazz and late-night radio")
    b = pg_mem.remember("The project deadline moved to Friday")
    pg_mem.link(a.id, b.id, kind="related")
    episode = pg_mem.create_episode("Week", [a.id, b.id])
    pg_mem.execute(pg_mem.plan_forget([a.id], reason="asked"))
    assert a.id not in {h.memory.id for h in pg_mem.recall("jazz radio", k=5)}
    assert pg_mem.get_episode(episode.id).missing == 1
    assert [t.memory.id for t in pg_mem.list_trash()[0]] == [a.id]
    pg_mem.restore(a.id)
    assert [link.other(a.id) for link in pg_mem.links(a.id)] == [b.id], "restore brings links back"
    pg_mem.execute(pg_mem.plan_purge([b.id]))
    assert pg_mem.store.get(b.id) is None and pg_mem.links(a.id) == []
    assert pg_mem.get_episode(episode.id).missing == 1
    ops = [e.op for e in pg_mem.audit()]
    assert ops == ["remember", "remember", "link", "episode", "forget", "restore", "purge"]
    purged = [e for e in pg_mem.audit(memory_id=b.id)]
    assert all(e.reason is None for e in purged)
    assert not [r for r in rows(pg_dsn, "memory_tags") if r[0] == b.id]


def test_a_failed_change_leaves_the_database_as_it_was(pg_mem: Lethe, pg_dsn: str) -> None:
    pg_mem.remember("User likes jazz and late-night radio")
    before = {t: rows(pg_dsn, t) for t in ("memories", "events", "links", "memory_tags")}
    with pytest.raises(InvalidInput):
        pg_mem.remember("  ")
    with pytest.raises(MemoryNotFound):
        pg_mem.link("mem_000000000000", pg_mem.list_memories().items[0].id)
    with pytest.raises(RuntimeError), pg_mem.store.transaction() as tx:
        tx.append_event(op="remember", actor="test", at=pg_mem._clock())
        raise RuntimeError("fail after a write")
    assert {t: rows(pg_dsn, t) for t in before} == before


def test_two_engines_share_pending_confirmations_and_forgetting(
    pg_dsn: str, embedder: Embedder
) -> None:
    """Two servers on one database: a forget asked on one is confirmed on the other (same
    session name), and the forgotten memory is gone for both at once."""
    with Lethe.open(pg_dsn, embedder=embedder) as one, Lethe.open(pg_dsn, embedder=embedder) as two:
        home = one.remember("User lives in San Francisco")
        other = one.remember("The cat is called Miso and sleeps on the keyboard")
        first = one.forget([home.id], session="client-a")
        assert first.status == "pending"
        assert [p.memory_id for p in two.store.pending_all("client-a")] == [home.id]
        assert two.forget([home.id], session="client-b").status == "pending", "not b's"
        assert home.id in {h.memory.id for h in two.recall("San Francisco", k=5)}
        confirmed = two.forget([home.id], session="client-a")
        assert confirmed.status == "executed"
        for engine in (one, two):
            assert home.id not in {h.memory.id for h in engine.recall("San Francisco", k=5)}
            assert other.id in {h.memory.id for h in engine.recall("Miso", k=5)}


def test_the_cli_takes_a_dsn(pg_dsn: str) -> None:
    import json

    from typer.testing import CliRunner

    from lethe.cli import app

    runner = CliRunner()
    made = runner.invoke(app, ["remember", "User lives in San Francisco", "--db", pg_dsn, "--json"])
    assert made.exit_code == 0, made.output
    memory_id = json.loads(made.stdout)["id"]
    found = runner.invoke(app, ["recall", "where does the user live", "--db", pg_dsn, "--json"])
    assert found.exit_code == 0, found.output
    assert json.loads(found.stdout)["items"][0]["memory"]["id"] == memory_id


def test_the_demo_runs_on_a_dsn_and_refuses_it_the_second_time(
    pg_dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A DSN stays text: `Path("postgresql://…")` would make folders named after it."""
    import json

    from typer.testing import CliRunner

    from lethe.cli import app

    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    tour = runner.invoke(app, ["demo", "--db", pg_dsn, "--json"])
    assert tour.exit_code == 0, tour.output
    assert json.loads(tour.stdout)["db"] == pg_dsn
    listed = runner.invoke(app, ["list", "--db", pg_dsn, "--json"])
    # Eight remembered and a near-duplicate; the forgotten one restored, the PIN purged.
    assert json.loads(listed.stdout)["total"] == 8
    again = runner.invoke(app, ["demo", "--db", pg_dsn])
    assert again.exit_code == 1 and "already holds memories" in again.stderr
    assert list(tmp_path.iterdir()) == []


def test_full_text_skips_words_too_common_to_rank(
    pg_mem: Lethe, pg_dsn: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on SQLite, words are searched rarest first within the postings budget; PostgreSQL's
    counts come from ANALYZE's statistics of the tsvector column."""
    import lethe.store.postgres as postgres

    drafts = [Draft(content=f"The user filed ticket {i} about the printer") for i in range(40)]
    assert pg_mem.remember_many(drafts, skip_duplicates=False, auto_link=False).imported == 40
    cat = pg_mem.remember("The cat is called Miso")
    with psycopg.connect(pg_dsn) as conn:
        conn.execute("ANALYZE memories")
    everything = pg_mem.store.lexical_search("user Miso", Filters(), 100)
    assert cat.id in everything and len(everything) == 41, "a fresh store searches every word"
    monkeypatch.setattr(postgres, "POSTINGS_BUDGET", 20)
    pg_mem.store._terms = postgres.TermStats()  # read the new statistics now
    assert pg_mem.store.lexical_search("user Miso", Filters(), 100) == [cat.id]
    assert pg_mem.store.lexical_search("user", Filters(), 100) == []
