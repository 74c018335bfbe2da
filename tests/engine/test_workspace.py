"""The markdown projection and the JSONL export/import round trip."""

from __future__ import annotations

import errno
import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import lethe.engine.workspace as workspace_module
from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import WorkspaceError


def test_workspace_projects_daily_logs_and_curated_memory(
    tmp_path: Path, embedder: Embedder
) -> None:
    now = [datetime(2026, 11, 20, 9, 30, tzinfo=UTC)]
    workspace = tmp_path / "ws"
    with Lethe.open(
        tmp_path / "m.db", embedder=embedder, workspace_dir=workspace, clock=lambda: now[0]
    ) as mem:
        plain = mem.remember("Had a long chat about hiking routes")
        curated = mem.remember("User values honesty above all", importance=0.8)
        lesson = mem.remember("Always ask before deleting files", category="lesson")
        secret = mem.remember("User's bank PIN hint is their cat's birthday", private=True)
        now[0] += timedelta(days=1)
        later = mem.remember("Planned a trip to the Alps", layer="goal")
        other_ns = mem.remember("Team standup moved to 10:00", namespace="team")

        day1 = (workspace / "memory" / "2026-11-20.md").read_text()
        day2 = (workspace / "memory" / "2026-11-21.md").read_text()
        curated_text = (workspace / "MEMORY.md").read_text()
        assert day1.startswith("# 2026-11-20\n")
        for memory in (plain, curated, lesson):
            assert f"[id:{memory.id}]" in day1
        assert f"[id:{later.id}]" in day2 and f"[id:{later.id}]" not in day1
        assert "- 09:30 [episodic] Had a long chat about hiking routes" in day1
        assert f"[id:{curated.id}]" in curated_text and f"[id:{lesson.id}]" in curated_text
        assert f"[id:{plain.id}]" not in curated_text
        everything = "".join(p.read_text() for p in workspace.rglob("*.md"))
        assert secret.id not in everything and "PIN" not in everything
        team_day = (workspace / "team" / "memory" / "2026-11-21.md").read_text()
        assert f"[id:{other_ns.id}]" in team_day and other_ns.id not in day2

        mem.update(curated.id, importance=0.3, content="User values kindness above all")
        assert curated.id not in (workspace / "MEMORY.md").read_text()
        assert "kindness" in (workspace / "memory" / "2026-11-20.md").read_text()
        mem.update(lesson.id, private=True)
        assert not (workspace / "MEMORY.md").exists()
        assert lesson.id not in (workspace / "memory" / "2026-11-20.md").read_text()
        assert not list(workspace.rglob(".*.md.*")), "no temp files are left behind"


@pytest.mark.parametrize(
    ("fields", "curated"),
    [
        ({"category": "introspection"}, True),
        ({"category": "relationship"}, True),
        ({"category": "self_discovery"}, True),
        ({"category": "lesson"}, True),
        ({"importance": 0.75}, True),
        ({"importance": 0.74, "category": "preference"}, False),
    ],
    ids=lambda v: ",".join(f"{k}={x}" for k, x in v.items()) if isinstance(v, dict) else str(v),
)
def test_memory_md_holds_exactly_the_curated_memories(
    tmp_path: Path, embedder: Embedder, fields: dict[str, Any], curated: bool
) -> None:
    workspace = tmp_path / "ws"
    at = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
    with Lethe.open(
        tmp_path / "m.db", embedder=embedder, workspace_dir=workspace, clock=lambda: at
    ) as mem:
        # Always one curated memory, so MEMORY.md exists and the negative case is not vacuous.
        anchor = mem.remember("The user is learning to play the cello", importance=0.8)
        memory = mem.remember("User values honesty above all", **fields)

    day = (workspace / "memory" / "2026-11-20.md").read_text()
    assert f"[id:{memory.id}]" in day, "every non-private memory is in its daily log"
    curated_text = (workspace / "MEMORY.md").read_text()
    assert f"[id:{anchor.id}]" in curated_text
    kind = "episodic" + (f"/{fields['category']}" if "category" in fields else "")
    line = f"- 2026-11-20 [{kind}] User values honesty above all [id:{memory.id}]"
    assert (line in curated_text.splitlines()) is curated
    assert (memory.id in curated_text) is curated


def test_workspace_writes_are_atomic(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write that fails at the swap leaves the previous file whole and no temp file behind."""
    workspace = tmp_path / "ws"
    curated = workspace / "MEMORY.md"
    with Lethe.open(tmp_path / "m.db", embedder=embedder, workspace_dir=workspace) as mem:
        first = mem.remember("User values honesty above all", importance=0.8)
        previous = curated.read_text()
        assert f"[id:{first.id}]" in previous

        real_replace = os.replace
        failed: list[str] = []

        def replace_failing_once(src: str, dst: str) -> None:
            if Path(dst) == curated and not failed:
                failed.append(src)
                raise OSError(errno.ENOSPC, "No space left on device")
            real_replace(src, dst)

        monkeypatch.setattr(workspace_module.os, "replace", replace_failing_once)
        with pytest.raises(WorkspaceError, match="No space left"):
            mem.remember("Always ask before deleting files", category="lesson")

        assert failed, "the swap of MEMORY.md was attempted"
        assert curated.read_text() == previous
        assert not Path(failed[0]).exists()
        assert [p.name for p in workspace.rglob("*") if p.name.startswith(".")] == []

        # The database committed; the next derivation catches the file up.
        second = mem.remember("User's birthday is on the fifth of March", importance=0.9)
        text = curated.read_text()
        assert f"[id:{first.id}]" in text and f"[id:{second.id}]" in text
        assert text.count("[id:") == 3


def test_workspace_rebuild_rederives_files(tmp_path: Path, embedder: Embedder) -> None:
    workspace = tmp_path / "ws"
    with Lethe.open(tmp_path / "m.db", embedder=embedder, workspace_dir=workspace) as mem:
        memory = mem.remember("User values honesty above all", importance=0.9)
        curated = workspace / "MEMORY.md"
        curated.write_text("tampered\n")
        assert mem.workspace is not None
        mem.workspace.rebuild(["default"])
        assert f"[id:{memory.id}]" in curated.read_text()
        assert "tampered" not in curated.read_text()


def test_export_import_round_trip_keeps_ids_links_and_episodes(
    tmp_path: Path, embedder: Embedder
) -> None:
    with Lethe.open(tmp_path / "a.db", embedder=embedder) as source:
        a = source.remember(
            "User lives in San Francisco", tags=["place"], metadata={"k": 1}, importance=0.7
        )
        b = source.remember("User visited San Francisco last year", layer="semantic")
        c = source.remember("The cat is called Miso and sleeps on the keyboard", namespace="pets")
        source.link(a.id, b.id, kind="about", confidence=0.55)
        episode = source.create_episode("San Francisco facts", [a.id, b.id])
        export = source.export_records()
        assert export.memories == 3, "counted before the first record is read"
        records = list(export)
    lines = [json.loads(json.dumps(r)) for r in records]
    assert [r["type"] for r in lines].count("memory") == 3

    seen: list[int] = []
    with Lethe.open(tmp_path / "b.db", embedder=embedder) as target:
        report = target.import_records(lines, progress=seen.append)
        assert (report.imported, report.episodes) == (3, 1)
        assert sum(seen) == 3
        for original in (a, b, c):
            copy = target.get(original.id)
            assert copy.model_dump(exclude={"access_count", "last_accessed_at"}) == (
                original.as_memory().model_dump(exclude={"access_count", "last_accessed_at"})
            )
        kinds = {(lk.kind, round(lk.confidence, 2)) for lk in target.links(a.id)}
        assert ("about", 0.55) in kinds
        view = target.get_episode(episode.id)
        assert [m.id for m in view.members] == [a.id, b.id]
        again = target.import_records(lines)
        assert again.imported == 0 and again.skipped_existing == 3


def test_import_skips_exact_duplicates_and_keeps_near_ones(
    tmp_path: Path, embedder: Embedder
) -> None:
    with Lethe.open(tmp_path / "m.db", embedder=embedder) as mem:
        kept = mem.remember("Takes 50 mg of sertraline every morning")
        report = mem.import_records(
            [
                {"content": "User lives in San Francisco"},
                {"content": "User  lives in San Francisco"},
                {"content": "User lives in San Francisco", "layer": "caveat"},
                {"content": "Takes 50 mg of sertraline every morning"},
                {"content": "Takes 100 mg of sertraline every morning"},
            ]
        )
        assert (report.imported, report.skipped_duplicates) == (3, 2)
        assert report.near_duplicates == 2, "the caveat twin and the other dose"
        contents = [m.content for m in mem.list_memories().items]
        assert contents.count("Takes 100 mg of sertraline every morning") == 1
        assert contents.count("Takes 50 mg of sertraline every morning") == 1
        kinds = {lk.kind for lk in mem.links(kept.id)}
        assert "near_duplicate" in kinds


def test_import_of_an_export_is_faithful(tmp_path: Path, embedder: Embedder) -> None:
    """Deliberate duplicates stay, and links the user removed do not come back."""
    with Lethe.open(tmp_path / "a.db", embedder=embedder) as source:
        a = source.remember("User lives in San Francisco")
        twin = source.remember("User lives in San Francisco", allow_duplicate=True)
        near = source.remember("User has lived in San Francisco for years")
        assert source.links(near.id)
        for link in source.links(near.id):
            source.unlink(link.a, link.b, kind=link.kind)
        records = list(source.export_records())
        kept_links = {(lk.a, lk.b) for lk in source.links(a.id)}
    with Lethe.open(tmp_path / "b.db", embedder=embedder) as target:
        report = target.import_records(records)
        assert report.imported == 3 and report.skipped_duplicates == 0
        assert target.get(twin.id).content == "User lives in San Francisco"
        assert target.links(near.id) == []
        assert {(lk.a, lk.b) for lk in target.links(a.id)} == kept_links


def test_an_unwritable_workspace_is_reported_and_the_memory_kept(
    tmp_path: Path, embedder: Embedder
) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "memory").write_text("a file where the daily-log folder belongs")
    with Lethe.open(tmp_path / "m.db", embedder=embedder, workspace_dir=workspace) as mem:
        with pytest.raises(WorkspaceError) as info:
            mem.remember("User likes jazz")
        assert "saved (mem_" in str(info.value) and str(workspace) in str(info.value)
        [stored] = mem.list_memories().items
        assert stored.content == "User likes jazz"
