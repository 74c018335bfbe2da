"""`lethe reembed`: a store moved from MiniLM (384-d) to another model (here the tiny 32-d
multilingual BERT of tests/tiny_bert.py) on the real SQLite file and the real PostgreSQL
database — every vector replaced, nothing else changed, resumable after an interruption."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from lethe import Lethe
from lethe.cli import app
from lethe.embed import Embedder, OnnxEmbedder, registry
from lethe.embed.base import Vectors
from lethe.engine import reembed
from lethe.errors import EmbedderMismatch, InvalidInput
from lethe.store import sqlite_index
from tests.backends import sqlite_only
from tests.tiny_bert import spec_for, write_model

TURNS = [
    "I drink coffee every morning.",
    "The meeting was moved to next Tuesday.",
    "会議は来週の火曜日に延期されました。",
    "She is allergic to peanuts.",
]


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def tiny(tiny_dir: Path) -> OnnxEmbedder:
    spec = spec_for(tiny_dir)
    return OnnxEmbedder(tiny_dir, name=spec.name, max_length=spec.max_length)


class Failing:
    """The target model, failing on its call number `after + 1` (a crash, a lost machine)."""

    def __init__(self, inner: Embedder, after: int) -> None:
        self.inner, self.after, self.calls = inner, after, 0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        if self.calls > self.after:
            raise RuntimeError("killed")
        return self.inner.embed(texts)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)


def populate(db: str, embedder: Embedder) -> dict[str, str]:
    """Conversation turns (contexts), a standalone Japanese memory, an updated memory (an
    earlier state with its vector) and a forgotten one; returns ids by role."""
    with Lethe.open(db, embedder=embedder) as mem:
        ids = {
            f"turn{n}": mem.remember(text, metadata={"session": "s1"}).id
            for n, text in enumerate(TURNS)
        }
        ids["ja"] = mem.remember("私は毎朝コーヒーを飲みます。").id
        ids["edited"] = mem.remember("The deadline is in March.").id
        mem.update(ids["edited"], content="The deadline is in April.")
        ids["gone"] = mem.remember("A cat is looking out of the window.").id
        mem.execute(mem.plan_forget([ids["gone"]]))
    return ids


def rows(db: str) -> dict[str, Any]:
    """Everything but vectors (contents, ids, versions, statuses), the model recorded, and the
    vectors by (memory id, version: 0 for the memory as it is) and of contexts."""
    if db.startswith("postgresql"):
        import psycopg

        with psycopg.connect(db) as conn:
            q = conn.execute
            memories = q(
                "SELECT id, content, status, version, embedding::real[] FROM memories ORDER BY id"
            ).fetchall()
            versions = q(
                "SELECT memory_id, version, content, embedding::real[] FROM memory_versions "
                "ORDER BY memory_id, version"
            ).fetchall()
            contexts = q("SELECT memory_id, embedding::real[] FROM memory_context").fetchall()
            meta = dict(q("SELECT key, value FROM lethe_meta").fetchall())
            staging = q("SELECT to_regclass('reembed_vectors') IS NOT NULL").fetchone()[0]

        def vec(v: Any) -> Any:
            return None if v is None else np.asarray(v, dtype=np.float32)
    else:
        conn = sqlite3.connect(db)
        q = conn.execute
        memories = q(
            "SELECT id, content, status, version, embedding FROM memories ORDER BY id"
        ).fetchall()
        versions = q(
            "SELECT memory_id, version, content, embedding FROM memory_versions "
            "ORDER BY memory_id, version"
        ).fetchall()
        contexts = q("SELECT memory_id, embedding FROM memory_context").fetchall()
        meta = dict(q("SELECT key, value FROM lethe_meta").fetchall())
        staging = q("SELECT count(*) FROM sqlite_master WHERE name = 'reembed_vectors'").fetchone()[
            0
        ]
        conn.close()

        def vec(v: Any) -> Any:
            return None if v is None else np.frombuffer(v, dtype="<f4")

    return {
        "memories": [tuple(r[:4]) for r in memories],
        "versions": [tuple(r[:3]) for r in versions],
        "texts": {(r[0], 0): r[1] for r in memories} | {(r[0], r[1]): r[2] for r in versions},
        "vectors": {(r[0], 0): vec(r[4]) for r in memories}
        | {(r[0], r[1]): vec(r[3]) for r in versions if r[3] is not None},
        "contexts": {r[0]: vec(r[1]) for r in contexts},
        "embedder": meta["embedder"],
        "dim": int(meta["dim"]),
        "target": meta.get("reembed_target"),
        "staging": bool(staging),
    }


def assert_all_of(model: Embedder, after: dict[str, Any]) -> None:
    """Every vector is the model's embedding of its own text now."""
    assert after["vectors"]
    for key, vector in after["vectors"].items():
        want = model.embed([after["texts"][key]])[0]
        assert vector.shape == (model.dim,), key
        assert np.abs(vector - want).max() < 1e-5, key
    assert after["contexts"] and all(v.shape == (model.dim,) for v in after["contexts"].values())


def test_reembed_replaces_every_vector_and_nothing_else(
    db: str, embedder: Embedder, tiny: OnnxEmbedder
) -> None:
    ids = populate(db, embedder)
    before = rows(db)
    assert before["embedder"] == embedder.name and len(before["versions"]) == 1
    seen: list[tuple[int, int]] = []
    result = reembed(
        db, to=tiny.name, embedder=tiny, batch_size=2, progress=lambda *a: seen.append(a)
    )
    after = rows(db)
    assert (result.status, result.model_before, result.model) == (
        "switched",
        embedder.name,
        tiny.name,
    )
    assert result.memories == len(before["memories"]) and result.versions == 1
    assert after["memories"] == before["memories"] and after["versions"] == before["versions"]
    assert (after["embedder"], after["dim"], after["target"]) == (tiny.name, 32, None)
    assert not after["staging"]
    assert set(after["vectors"]) == set(before["vectors"])
    assert_all_of(tiny, after)
    assert seen[0] == (0, len(before["vectors"])) and seen[-1][0] == seen[-1][1]
    with Lethe.open(db, embedder=tiny) as mem:
        hits = mem.recall("会議は来週の火曜日")
        assert hits and hits[0].memory.id == ids["turn2"]
        mem.restore(ids["gone"])  # the trash was re-embedded too
        assert mem.recall("A cat is looking out of the window.")[0].memory.id == ids["gone"]
        assert [e.op for e in mem.audit(op="reembed")] == ["reembed"]
    with pytest.raises(EmbedderMismatch):
        Lethe.open(db, embedder=embedder)


def test_an_interrupted_run_continues_to_the_same_result(
    db: str, embedder: Embedder, tiny: OnnxEmbedder
) -> None:
    ids = populate(db, embedder)
    with pytest.raises(RuntimeError, match="killed"):
        reembed(db, to=tiny.name, embedder=Failing(tiny, after=2), batch_size=2)
    halfway = rows(db)
    assert (halfway["embedder"], halfway["target"], halfway["staging"]) == (
        embedder.name,
        tiny.name,
        True,
    )
    # Until the switch the store is the old model's: it opens, recalls and takes writes.
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.recall("coffee every morning")[0].memory.id == ids["turn0"]
        mem.update(ids["turn0"], content="I drink tea every morning.")  # staged text changed
        late = mem.remember("新しいプロジェクトの締め切りは三月です。").id
    result = reembed(db, to=tiny.name, embedder=tiny, batch_size=2)
    after = rows(db)
    # Two batches of two were kept; the one whose text changed since was embedded again.
    assert result.status == "switched" and result.resumed == 3
    assert result.embedded == len(after["vectors"]) - 3
    assert (after["embedder"], after["target"], after["staging"]) == (tiny.name, None, False)
    assert (late, 0) in after["vectors"] and (ids["turn0"], 1) in after["vectors"]
    assert_all_of(tiny, after)
    with Lethe.open(db, embedder=tiny) as mem:
        assert mem.recall("tea every morning")[0].memory.id == ids["turn0"]


def test_an_unknown_target_is_refused_and_the_store_is_unchanged(
    db: str, embedder: Embedder
) -> None:
    populate(db, embedder)
    before = rows(db)
    with pytest.raises(InvalidInput) as info:
        reembed(db, to="no-such-model")
    assert "paraphrase-multilingual-MiniLM-L12-v2" in str(info.value)
    after = rows(db)
    assert after["memories"] == before["memories"] and after["embedder"] == embedder.name
    assert not after["staging"] and after["target"] is None
    for key, vector in before["vectors"].items():
        assert np.array_equal(after["vectors"][key], vector)


def test_the_own_model_cancels_a_reembed_under_way(
    db: str, embedder: Embedder, tiny: OnnxEmbedder
) -> None:
    populate(db, embedder)
    with pytest.raises(RuntimeError):
        reembed(db, to=tiny.name, embedder=Failing(tiny, after=1), batch_size=2)
    assert rows(db)["staging"]
    result = reembed(db, to=embedder.name, embedder=embedder)
    assert result.status == "cancelled"
    after = rows(db)
    assert not after["staging"] and after["target"] is None and after["embedder"] == embedder.name
    assert reembed(db, to=embedder.name, embedder=embedder).status == "already"


@sqlite_only
def test_the_vector_snapshot_of_the_old_model_is_not_reused(
    db: str, embedder: Embedder, tiny: OnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_index, "SNAPSHOT_MIN", 1)
    ids = populate(db, embedder)
    with Lethe.open(db, embedder=embedder) as mem:
        mem.recall("coffee")  # builds the index and saves its snapshot
    snapshot = sqlite_index.snapshot_path(Path(db))
    assert snapshot.exists()
    reembed(db, to=tiny.name, embedder=tiny)
    assert not snapshot.exists()
    assert not list(Path(db).parent.glob(f"{Path(db).name}.vectors.*.npy"))
    with Lethe.open(db, embedder=tiny) as mem:
        hits = mem.recall("She is allergic to peanuts.")
        assert hits[0].memory.id == ids["turn3"] and hits[0].similarity > 0.999


@sqlite_only
def test_the_command_line(
    db: str,
    embedder: Embedder,
    tiny_dir: Path,
    tiny: OnnxEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    populate(db, embedder)
    runner = CliRunner()
    bad = runner.invoke(app, ["reembed", "--to", "nope", "--db", db, "--json"])
    assert bad.exit_code == 1 and "supported" in bad.stderr and not bad.stdout
    assert rows(db)["embedder"] == embedder.name
    spec = spec_for(tiny_dir)
    monkeypatch.setitem(registry.SUPPORTED, spec.name, spec)
    monkeypatch.setenv("LETHE_MODEL_DIR", str(tiny_dir))
    done = runner.invoke(app, ["reembed", "--to", spec.short, "--db", db, "--json"])
    assert done.exit_code == 0, (done.stdout, done.stderr, done.exception)
    report = json.loads(done.stdout)
    assert (report["status"], report["model"], report["dim"]) == ("switched", spec.name, 32)
    assert rows(db)["embedder"] == spec.name
    monkeypatch.setenv("LETHE_EMBEDDER", spec.name)
    listed = runner.invoke(app, ["recall", "peanuts", "--db", db, "--json"])
    assert listed.exit_code == 0 and "peanuts" in listed.stdout
    helped = runner.invoke(app, ["reembed", "--help"])
    assert helped.exit_code == 0 and "--to" in helped.stdout


def test_a_model_of_the_same_dimension_keeps_the_columns(
    db: str, tiny: OnnxEmbedder, tmp_path: Path
) -> None:
    other_dir = write_model(tmp_path / "other", seed=1)
    other = OnnxEmbedder(other_dir, name="lethe-test/other-tiny-bert", max_length=64)
    populate(db, tiny)
    before = rows(db)
    result = reembed(db, to=other.name, embedder=other, batch_size=3)
    after = rows(db)
    assert (result.status, result.dim, after["embedder"]) == ("switched", 32, other.name)
    assert after["memories"] == before["memories"]
    assert_all_of(other, after)
    assert any(
        not np.allclose(after["vectors"][k], v, atol=1e-3) for k, v in before["vectors"].items()
    )


def test_a_process_still_on_the_old_model_writes_nothing_after_the_switch(
    db: str, tiny: OnnxEmbedder, tmp_path: Path
) -> None:
    """A server that kept the store open through a reembed to a model of the same dimension
    would write vectors of the wrong space that nothing would notice or repair."""
    other_dir = write_model(tmp_path / "other", seed=1)
    other = OnnxEmbedder(other_dir, name="lethe-test/other-tiny-bert", max_length=64)
    populate(db, tiny)
    with Lethe.open(db, embedder=tiny) as stale:
        reembed(db, to=other.name, embedder=other)
        before = rows(db)
        with pytest.raises(EmbedderMismatch, match="LETHE_EMBEDDER=lethe-test/other-tiny-bert"):
            stale.remember("The user adopted a second cat")
        after = rows(db)
        assert after["memories"] == before["memories"] and after["embedder"] == other.name
    with Lethe.open(db, embedder=other) as fresh:
        fresh.remember("The user adopted a second cat")


def test_erasing_a_memory_s_versions_drops_what_a_reembed_staged_of_it(
    db: str, embedder: Embedder, tiny: OnnxEmbedder
) -> None:
    """A purge that rewrites a summary drops the summary's earlier states (they hold the
    erased line); vectors a reembed under way staged of those texts must go with them."""
    from tests.backends import run_sql

    populate(db, embedder)
    with pytest.raises(RuntimeError, match="killed"):
        reembed(db, to=tiny.name, embedder=Failing(tiny, after=2), batch_size=2)
    staged = {r[0] for r in run_sql(db, "SELECT memory_id FROM reembed_vectors")}
    assert staged
    victim = sorted(staged)[0]
    with Lethe.open(db, embedder=embedder) as mem, mem.store.transaction() as tx:
        tx.drop_versions(victim, containing=["a line that was erased"])
    left = {r[0] for r in run_sql(db, "SELECT memory_id FROM reembed_vectors")}
    assert victim not in left and left == staged - {victim}
    reembed(db, to=tiny.name, embedder=tiny)
    assert_all_of(tiny, rows(db))
