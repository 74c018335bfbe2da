"""Imports of Claude.ai's data export (`conversations.json`): a memory per turn, each chat one
conversation (metadata.session) so recall ranks a turn with its neighbours; attachments and
artifacts kept as their own turns, tool calls and thinking reported; long turns split without
loss; re-imports and grown exports that add only what is new; dry runs; hostile files refused
whole — through the API and the CLI, with the real store and the real MiniLM embedder."""

from __future__ import annotations

import json
import os
import re
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from lethe import Lethe
from lethe.cli import app
from lethe.errors import InvalidInput
from lethe.importers import SourceRefused
from tests.backends import run_sql, snapshot, sqlite_only
from tests.importers.support import by_content, everything, run

runner = CliRunner()


def at(minute: int) -> str:
    return f"2024-06-01T10:{minute:02d}:00.000000Z"


def message(uuid: str, sender: str, text: str, minute: int, **extra: Any) -> dict[str, Any]:
    """A message as Claude.ai writes it: `text`, and the same text as content blocks."""
    return {
        "uuid": uuid,
        "text": text,
        "content": [
            {
                "start_timestamp": at(minute),
                "stop_timestamp": at(minute),
                "type": "text",
                "text": text,
                "citations": [],
            }
        ],
        "sender": sender,
        "created_at": at(minute),
        "updated_at": at(minute),
        "attachments": [],
        "files": [],
        **extra,
    }


def conversation(uuid: str, name: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "uuid": uuid,
        "name": name,
        "created_at": at(0),
        "updated_at": at(59),
        "account": {"uuid": "acc-1"},
        "chat_messages": messages,
    }


WEEKEND = [
    message("w1", "assistant", "Hey! How was your weekend?", 1),
    message("w2", "human", "Pretty good, thanks.", 2),
    message("w3", "assistant", "What did you do on Saturday?", 3),
    message("w4", "human", "Went hiking at Mount Tamalpais with my sister.", 4),
    message("w5", "assistant", "Sounds lovely.", 5),
]
BAKING = [
    message("b1", "human", "My sourdough starter smells like acetone.", 10),
    message("b2", "assistant", "It is hungry: feed it twice a day at a 1:1:1 ratio.", 11),
]
DISTRACTORS = [
    "Priya went hiking in the Alps last summer.",
    "Tom says hiking is his favourite sport.",
    "On Saturday the library closes at noon.",
    "Saturday's football match was cancelled because of rain.",
    "Our team offsite is next Saturday.",
    "Maya's sister lives in Porto.",
]


def export(*conversations: dict[str, Any]) -> str:
    return json.dumps(list(conversations), ensure_ascii=False)


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def standard(tmp_path: Path) -> Path:
    return write(
        tmp_path / "conversations.json",
        export(
            conversation("conv-weekend", "Weekend plans", WEEKEND),
            conversation("conv-bread", "Sourdough help", BAKING),
        ),
    )


def test_each_turn_is_a_memory_of_its_conversation(db: str, mem: Lethe, tmp_path: Path) -> None:
    report = mem.import_from("claude", standard(tmp_path))

    assert (report.records, report.memories, report.imported) == (2, 7, 7)
    assert report.not_kept == []
    stored = by_content(mem)
    answer = stored["Went hiking at Mount Tamalpais with my sister."]
    assert answer.metadata == {
        "session": "conv-weekend",
        "speaker": "user",
        "source": "claude",
        "message_id": "w4",
        "title": "Weekend plans",
    }
    assert (answer.agent, answer.namespace) == ("claude", "default")
    assert answer.created_at == datetime(2024, 6, 1, 10, 4, tzinfo=UTC)
    feed = stored["It is hungry: feed it twice a day at a 1:1:1 ratio."]
    assert (feed.metadata["speaker"], feed.metadata["session"]) == ("assistant", "conv-bread")
    assert feed.metadata["title"] == "Sourdough help"
    sessions = {m.metadata["session"] for m in stored.values()}
    assert sessions == {"conv-weekend", "conv-bread"}

    # One conversation: the answer's context holds the question two turns above it ...
    contexts = dict(run_sql(db, "SELECT memory_id, content FROM memory_context"))
    assert "What did you do on Saturday?" in str(contexts[answer.id])
    assert "sourdough" not in str(contexts[answer.id]).lower()
    # ... so recall finds the elliptical answer by the question it answers.
    for text in DISTRACTORS:
        mem.remember(text)
    hits = [h.memory.content for h in mem.recall("What did I do on Saturday?", k=5)]
    assert answer.content in hits
    assert stored["My sourdough starter smells like acetone."].content in [
        h.memory.content for h in mem.recall("starter smells of nail polish remover", k=3)
    ]


def test_reimport_adds_nothing_and_a_grown_export_only_the_new_turns(
    db: str, mem: Lethe, tmp_path: Path
) -> None:
    source = standard(tmp_path)
    mem.import_from("claude", source)
    before = snapshot(db)
    again = mem.import_from("claude", source)
    assert (again.imported, again.skipped_duplicates) == (0, 7)
    assert snapshot(db) == before

    grown = [
        *BAKING,
        message("b3", "human", "Fed it this morning, it doubled in six hours.", 12),
        message("b4", "assistant", "Then it is ready to bake with.", 13),
    ]
    write(
        source,
        export(
            conversation("conv-weekend", "Weekend plans", WEEKEND),
            conversation("conv-bread", "Sourdough help", grown),
            conversation("conv-new", "Tax forms", [message("t1", "human", "Form 1040?", 20)]),
        ),
    )
    newer = mem.import_from("claude", source)
    assert (newer.memories, newer.imported, newer.skipped_duplicates) == (10, 3, 7)
    stored = by_content(mem)
    assert len(stored) == 10
    assert stored["Then it is ready to bake with."].metadata["session"] == "conv-bread"


def test_a_dry_run_writes_nothing_and_predicts_the_import(
    db: str, mem: Lethe, tmp_path: Path
) -> None:
    mem.remember("Already here before the import")
    source = standard(tmp_path)
    before = snapshot(db)
    planned = mem.import_from("claude", source, dry_run=True)
    assert planned.dry_run and snapshot(db) == before
    done = mem.import_from("claude", source)
    assert (planned.memories, planned.imported, planned.skipped_duplicates) == (7, 7, 0)
    assert (done.imported, done.skipped_duplicates) == (planned.imported, 0)
    assert planned.not_kept == done.not_kept


def test_attachments_artifacts_tools_thinking_and_files(mem: Lethe, tmp_path: Path) -> None:
    """What the person saw is kept (a pasted text's extracted content, an artifact Claude
    wrote, the answer's text blocks joined as shown); the rest is counted, never silently
    dropped."""
    asked = message("q1", "human", "Can you summarise my notes?", 1)
    asked["attachments"] = [
        {
            "file_name": "notes.txt",
            "file_size": 40,
            "file_type": "txt",
            "extracted_content": "The boiler service is due in October.",
        },
        {"file_name": "scan.pdf", "file_size": 9, "file_type": "pdf", "extracted_content": ""},
    ]
    asked["files"] = [{"file_name": "photo.jpg"}]
    answered = message("q2", "assistant", "unused", 2)
    answered["content"] = [
        {"type": "thinking", "thinking": "The user wants a summary.", "summaries": []},
        {"type": "text", "text": "Your boiler needs its service "},
        {"type": "text", "text": "in October, per [notes.txt]."},
        {"type": "tool_use", "name": "web_search", "input": {"query": "boiler service"}},
        {"type": "tool_result", "name": "web_search", "content": [], "is_error": False},
        {
            "type": "tool_use",
            "name": "artifacts",
            "input": {
                "id": "plan",
                "type": "text/markdown",
                "title": "Service checklist",
                "command": "create",
                "content": "- call the installer\n- clear the cupboard",
            },
        },
        {"type": "tool_use", "name": "artifacts", "input": {"id": "plan", "command": "update"}},
        {"type": "token_budget"},
        {"type": "text", "text": "I made a checklist."},
    ]
    only_image = message("q3", "human", "", 3)
    only_image["content"] = []
    only_image["files"] = [{"file_name": "boiler.jpg"}]
    source = write(
        tmp_path / "conversations.json",
        export(conversation("conv-home", "Home", [asked, answered, only_image])),
    )
    report = mem.import_from("claude", source)

    stored = by_content(mem)
    notes = stored["The boiler service is due in October."]
    question = stored["Can you summarise my notes?"]
    assert notes.metadata["attachment"] == "notes.txt"
    assert (notes.metadata["part"], question.metadata["part"], notes.metadata["parts"]) == (1, 2, 2)
    assert notes.metadata["speaker"] == question.metadata["speaker"] == "user"
    answer = stored["Your boiler needs its service in October, per [notes.txt]."]
    checklist = stored["- call the installer\n- clear the cupboard"]
    after = stored["I made a checklist."]
    assert checklist.metadata["artifact"] == "Service checklist"
    assert [answer.metadata["part"], checklist.metadata["part"], after.metadata["part"]] == [
        1,
        2,
        3,
    ]
    assert "unused" not in stored and len(stored) == 5
    assert not any("user wants a summary" in text for text in stored)
    not_kept = {n.what: n.where for n in report.not_kept}
    assert not_kept["1 attached file(s) without extracted text"] == "[0].chat_messages[0]"
    files = "2 uploaded file(s) or image(s) without extracted text (the first here)"
    assert not_kept[files] == "[0].chat_messages[0]"
    assert "1 thinking block(s) (the model's reasoning before it answered)" in not_kept
    assert (
        "2 tool call(s) and result(s) (web search, analysis, integrations)" + (" (the first here)")
        in not_kept
    )
    assert "1 artifact edit(s) (a change to an artifact, not its text)" in not_kept
    assert not_kept["1 message(s) with no text"] == "[0].chat_messages[2]"


def test_a_long_turn_is_split_into_parts_without_loss(mem: Lethe, tmp_path: Path) -> None:
    paragraphs = [f"Paragraph {n}: " + " ".join(["word"] * 700) + "." for n in range(1, 31)]
    long_answer = "\n\n".join(paragraphs)
    assert len(long_answer.encode()) > 3 * 32 * 1024
    one_line = "x" * 70_000  # no boundary at all: cut between characters
    turns = [
        message("l1", "human", "Write me a very long essay.", 1),
        message("l2", "assistant", long_answer, 2),
        message("l3", "human", one_line, 3),
    ]
    source = write(tmp_path / "conversations.json", export(conversation("c-long", "Essay", turns)))
    report = mem.import_from("claude", source)

    parts = sorted(
        (m for m in everything(mem) if m.metadata["message_id"] == "l2"),
        key=lambda m: m.metadata["part"],
    )
    assert len(parts) == parts[0].metadata["parts"] == 4
    assert [m.metadata["part"] for m in parts] == [1, 2, 3, 4]
    assert all(len(m.content.encode()) <= 32 * 1024 for m in parts)
    assert "\n\n".join(m.content for m in parts) == long_answer  # cut between paragraphs
    assert {m.metadata["session"] for m in parts} == {"c-long"}
    cut = sorted(
        (m for m in everything(mem) if m.metadata["message_id"] == "l3"),
        key=lambda m: m.metadata["part"],
    )
    assert "".join(m.content for m in cut) == one_line and len(cut) == 3
    [note] = [n for n in report.not_kept if n.where == "turns"]
    assert note.what.startswith("2 message(s) longer than the content limit (32,768 bytes)")
    assert report.imported == 1 + 4 + 3


def test_only_the_branch_the_conversation_ends_on_is_kept(mem: Lethe, tmp_path: Path) -> None:
    root = "00000000-0000-4000-8000-000000000000"
    turns = [
        message("e1", "human", "Name a red fruit.", 1, parent_message_uuid=root),
        message("e2", "assistant", "A strawberry.", 2, parent_message_uuid="e1"),
        message("e3", "human", "Name a yellow fruit.", 3, parent_message_uuid=root),
        message("e4", "assistant", "A banana.", 4, parent_message_uuid="e3"),
    ]
    record = conversation("c-edit", "Fruit", turns)
    record["current_leaf_message_uuid"] = "e4"
    source = write(tmp_path / "conversations.json", export(record))
    report = mem.import_from("claude", source)
    assert sorted(by_content(mem)) == ["A banana.", "Name a yellow fruit."]
    assert any(n.what.startswith("2 message(s) on branches") for n in report.not_kept)


def test_a_purged_turn_is_not_brought_back(db: str, mem: Lethe, tmp_path: Path) -> None:
    source = standard(tmp_path)
    mem.import_from("claude", source)
    [gone] = [m for m in everything(mem) if m.metadata["message_id"] == "w4"]
    receipt = mem.execute(mem.plan_purge([gone.id])).receipt
    assert receipt is not None
    before = snapshot(db)
    planned = mem.import_from("claude", source, dry_run=True)
    again = mem.import_from("claude", source)
    for report in (planned, again):
        assert (report.imported, report.skipped_purged, report.skipped_duplicates) == (0, 1, 6)
        [note] = [n for n in report.not_kept if "purged" in n.what]
        assert note.where == "[0].chat_messages[3]"
    assert snapshot(db) == before
    assert gone.content not in by_content(mem)
    assert mem.verify_receipt(receipt) == []


def test_the_zip_and_the_folder_of_the_export_are_read(mem: Lethe, tmp_path: Path) -> None:
    source = standard(tmp_path / "data-2024-06-01")
    archive = tmp_path / "data-2024-06-01.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("users.json", "[]")
        out.write(source, "conversations.json")
    zipped = mem.import_from("claude", archive)
    assert (zipped.imported, zipped.path) == (7, f"{archive}:conversations.json")
    folder = mem.import_from("claude", source.parent)
    assert (folder.imported, folder.skipped_duplicates) == (0, 7)


@sqlite_only
def test_a_zip_that_inflates_too_far_is_refused(
    db: str, mem: Lethe, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lethe.importers.conversations as conversations

    monkeypatch.setattr(conversations, "MAX_UNZIPPED_BYTES", 1024 * 1024)
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        out.writestr("conversations.json", b"[" + b" " * (4 * 1024 * 1024) + b"]")
    before = snapshot(db)
    with pytest.raises(InvalidInput, match="inflates to over") as refused:
        mem.import_from("claude", path)
    assert "unzip it yourself" in (refused.value.hint or "")
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as out:
        out.writestr("users.json", "[]")
    with pytest.raises(InvalidInput, match=r"holds no conversations\.json"):
        mem.import_from("claude", empty)
    assert snapshot(db) == before


def good() -> list[dict[str, Any]]:
    return [conversation("c-ok", "Fine", [message("ok1", "human", "All fine here.", 1)])]


def _bad_message(**fields: Any) -> list[dict[str, Any]]:
    record = message("bad1", "human", "text", 2)
    record.update(fields)
    return [*good(), conversation("c-bad", "Broken", [record])]


HOSTILE: dict[str, tuple[str | bytes, str, str]] = {
    "not json": ('[{"uuid": "c1",', "line 1", "not valid JSON"),
    "not utf-8": (b"[]\n\xff\xfe", "line 2", "not UTF-8 text (byte 0xff)"),
    "an object at the top": ('{"uuid": "c1"}', "file", "expected a list of conversations"),
    "deep nesting": ("[" * 100_000, "file", "nested deeper than lethe reads"),
    "a huge number": ("[" + "1" * 5_000 + "]", "file", "not readable JSON"),
    "a conversation that is text": (json.dumps([*good(), "hello"]), "[1]", "got str"),
    "a conversation without uuid": (
        json.dumps([*good(), {"name": "x", "chat_messages": []}]),
        "[1]",
        "'uuid' is missing",
    ),
    "chat_messages not a list": (
        json.dumps([*good(), {"uuid": "c2", "chat_messages": {"a": 1}}]),
        "[1]",
        "chat_messages is missing or not a list",
    ),
    "a message that is a number": (
        json.dumps([*good(), conversation("c2", "x", [7])]),  # type: ignore[list-item]
        "[1].chat_messages[0]",
        "expected a message object, got int",
    ),
    "a message without uuid": (
        json.dumps(_bad_message(uuid=None)),
        "[1].chat_messages[0]",
        "'uuid' is missing",
    ),
    "a sender that is not text": (
        json.dumps(_bad_message(sender=["human"])),
        "[1].chat_messages[0]",
        "sender must be text",
    ),
    "a text that is not text": (
        json.dumps(_bad_message(text=12, content=[])),
        "[1].chat_messages[0]",
        "text must be text",
    ),
    "a bad time": (
        json.dumps(_bad_message(created_at="last Tuesday")),
        "[1].chat_messages[0]",
        "not an ISO-8601 time",
    ),
    "a time before the first instant": (
        json.dumps(_bad_message(created_at="0001-01-01T00:00:00+05:00")),
        "[1].chat_messages[0]",
        "not an ISO-8601 time",
    ),
    "a lone surrogate": (
        json.dumps(_bad_message(content=[{"type": "text", "text": "a \ud800 b"}])),
        "[1].chat_messages[0]",
        "lone surrogate",
    ),
    "a block that is text": (
        json.dumps(_bad_message(content=["hello"])),
        "[1].chat_messages[0]",
        "content[0] must be an object",
    ),
    "a NUL in the text": (
        json.dumps(_bad_message(content=[{"type": "text", "text": "a\u0000b"}])),
        "[1].chat_messages[0]",
        "NUL character",
    ),
    "a parent loop": (
        json.dumps(
            [
                {
                    **conversation(
                        "c-loop",
                        "Loop",
                        [
                            message("p1", "human", "one", 1, parent_message_uuid="p2"),
                            message("p2", "assistant", "two", 2, parent_message_uuid="p1"),
                        ],
                    ),
                    "current_leaf_message_uuid": "p2",
                }
            ]
        ),
        "[0]",
        "loops back",
    ),
}


@sqlite_only
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_export_is_refused_whole_naming_where(
    db: str, mem: Lethe, tmp_path: Path, kind: str
) -> None:
    text, where, what = HOSTILE[kind]
    path = write(tmp_path / "conversations.json", text)
    mem.remember("Already here before the import")
    before = snapshot(db)
    with pytest.raises(SourceRefused) as refused:
        mem.import_from("claude", path)
    problems = refused.value.problems
    assert problems[0].where == where
    assert what in problems[0].what
    assert "\n" not in str(refused.value) and "nothing was imported" in str(refused.value)
    assert snapshot(db) == before
    with pytest.raises(SourceRefused):
        mem.import_from("claude", path, dry_run=True)


@sqlite_only
def test_every_bad_record_is_listed(db: str, mem: Lethe, tmp_path: Path) -> None:
    records = [
        *good(),
        "oops",
        conversation("c2", "x", [message("m", "human", "t", 1, created_at="soon")]),
        conversation("c3", "y", [{**message("n", "human", "t", 1), "sender": None}]),
    ]
    path = write(tmp_path / "conversations.json", json.dumps(records))
    with pytest.raises(SourceRefused) as refused:
        mem.import_from("claude", path)
    assert [p.where for p in refused.value.problems] == [
        "[1]",
        "[2].chat_messages[0]",
        "[3].chat_messages[0]",
    ]
    assert all(p.hint for p in refused.value.problems[:1])
    assert everything(mem) == []


# -- the command line --------------------------------------------------------------------------


@sqlite_only
def test_cli_imports_with_json_and_dry_run(db: str, tmp_path: Path) -> None:
    source = standard(tmp_path)
    dry = run(db, "import", "--from", "claude", str(source), "--dry-run")
    assert dry.exit_code == 0, dry.stderr
    assert dry.stdout.startswith("dry run, nothing was written: would import 7 of 7 memories")
    assert "(from 2 claude record(s) in" in dry.stdout
    assert not Path(db).exists()

    result = run(db, "import", "--from", "claude", str(source), "--json")
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    assert (body["source"], body["records"], body["imported"], body["dry_run"]) == (
        "claude",
        2,
        7,
        False,
    )
    again = run(db, "import", "--from", "claude", str(source))
    assert again.exit_code == 0, again.stderr
    assert again.stdout.startswith("imported 0 of 7 memories; skipped 7 exact duplicate(s)")

    broken = write(tmp_path / "broken.json", json.dumps([*good(), "oops"]))
    refused = run(db, "import", "--from", "claude", str(broken), "--json")
    assert refused.exit_code == 1
    assert json.loads(refused.stdout)["problems"][0]["where"] == "[1]"
    assert re.search(r"\[1\]: expected a conversation object, got str", refused.stderr)


def test_help_and_hints_name_the_sources(tmp_path: Path) -> None:
    result = runner.invoke(app, ["import", "--help"])
    assert "claude" in result.stdout and "chatgpt" in result.stdout
    source = standard(tmp_path)
    unknown = run(str(tmp_path / "m.db"), "import", "--from", "gemini", str(source))
    assert unknown.exit_code == 1
    assert "mcp-memory, mem0, markdown, claude, chatgpt" in unknown.stderr
    hint = run(str(tmp_path / "m.db"), "import", str(source), "--dry-run")
    assert "--from mcp-memory|mem0|markdown|claude|chatgpt" in hint.stderr


# -- found by attacking the importer ---------------------------------------------------------


def test_a_turn_that_fits_once_its_surrounding_whitespace_is_gone_is_one_memory(
    mem: Lethe, tmp_path: Path
) -> None:
    """The store keeps no whitespace around a memory, so a turn of exactly the content limit
    followed by a newline (as pasted text often is) is one memory, not two."""
    exact = "word " * 6553 + "end"
    assert len(exact.encode()) == 32 * 1024
    turns = [message("x1", "human", "\n" + exact + "\n\n", 1)]
    source = write(tmp_path / "conversations.json", export(conversation("c-x", "Exact", turns)))
    report = mem.import_from("claude", source)
    assert [m.content for m in everything(mem)] == [exact]
    assert "part" not in everything(mem)[0].metadata
    assert not any(n.where == "turns" for n in report.not_kept)


def test_a_cut_never_falls_inside_a_character_as_a_reader_sees_it() -> None:
    """A line without a space is cut between emoji, flags, accented letters and Hangul
    syllables, never inside one; Chinese and Japanese text at its full stops."""
    from lethe.importers.conversations import split

    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji of 18 bytes
    cases = [
        family * 10,
        "\U0001f1eb\U0001f1f7\U0001f1e9\U0001f1ea" * 10,  # flags: pairs of regional letters
        "\U0001f44d\U0001f3fd" * 10,  # a thumb and its skin tone
        "e\u0301\u0302" * 20,  # a letter and its accents
        "\u1100\u1161\u11a8" * 20,  # Hangul written as jamo
        "\u2764\ufe0f" * 20,  # a heart drawn as an emoji
    ]
    for text in cases:
        for max_bytes in range(19, 41):
            parts = split(text, max_bytes)
            assert "".join(parts) == text
            assert all(len(p.encode()) <= max_bytes for p in parts)
            # each part is whole characters: the same unit repeated
            unit = {
                family * 10: family,
                cases[1]: "\U0001f1eb\U0001f1f7",
                cases[2]: "\U0001f44d\U0001f3fd",
                cases[3]: "e\u0301\u0302",
                cases[4]: "\u1100\u1161\u11a8",
                cases[5]: "\u2764\ufe0f",
            }[text]
            flags = {"\U0001f1eb\U0001f1f7", "\U0001f1e9\U0001f1ea"}
            for part in parts:
                if unit in flags:
                    assert len(part) % 2 == 0 and part[:2] in flags
                else:
                    assert part.replace(unit, "") == "", (max_bytes, part)
    japanese = "今日はいい天気ですね。" * 2000
    parts = split(japanese, 32 * 1024)
    assert len(parts) > 1 and all(p.endswith("。") for p in parts)
    assert "".join(parts) == japanese
    # only a character wider than a whole part is cut between its code points
    zalgo = "a" + "\u0301" * 20
    assert "".join(split(zalgo, 16)) == zalgo


def test_an_artifact_command_of_another_type_is_counted_not_a_crash(
    mem: Lethe, tmp_path: Path
) -> None:
    answered = message("a1", "assistant", "unused", 1)
    answered["content"] = [
        {"type": "text", "text": "Here it is."},
        {"type": "tool_use", "name": "artifacts", "input": {"command": ["create"], "content": "x"}},
        {"type": "tool_use", "name": "artifacts", "input": {"command": {"a": 1}, "content": "y"}},
    ]
    source = write(tmp_path / "conversations.json", export(conversation("c-a", "Art", [answered])))
    report = mem.import_from("claude", source)
    assert [m.content for m in everything(mem)] == ["Here it is."]
    assert any(n.what.startswith("2 artifact edit(s)") for n in report.not_kept)


def test_a_huge_type_name_is_shown_short(mem: Lethe, tmp_path: Path) -> None:
    said = message("h1", "human", "Hello.", 1)
    said["content"].append({"type": "z" * 100_000})
    source = write(tmp_path / "conversations.json", export(conversation("c-h", "H", [said])))
    report = mem.import_from("claude", source)
    [note] = [n for n in report.not_kept if "content block(s) of type" in n.what]
    assert len(note.what) < 120


def _zip(path: Path, entries: list[tuple[str, str | bytes]], method: int = 8) -> Path:
    with zipfile.ZipFile(path, "w", method) as out:
        for name, data in entries:
            out.writestr(name, data)
    return path


@sqlite_only
def test_a_zip_that_is_not_one_export_is_refused_and_writes_nothing(
    db: str, mem: Lethe, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import lethe.importers.conversations as conversations

    good_export = json.dumps(good())
    mem.remember("Already here before the import")
    before = snapshot(db)
    # Two exports zipped together, or one name twice: reading one would drop the other.
    two = _zip(
        tmp_path / "two.zip",
        [("a/conversations.json", good_export), ("b/conversations.json", good_export)],
    )
    with pytest.raises(InvalidInput, match=r"holds 2 files named conversations\.json"):
        mem.import_from("claude", two)
    with pytest.warns(UserWarning):  # zipfile's own: a duplicate name
        twice = _zip(
            tmp_path / "twice.zip",
            [("conversations.json", good_export), ("conversations.json", "[]")],
        )
    with pytest.raises(InvalidInput, match="holds 2 files named"):
        mem.import_from("claude", twice)
    # A damaged stream (deflate, bzip2, lzma) is a refusal, not a traceback.
    for method in (zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        damaged = _zip(tmp_path / "damaged.zip", [(EXPORT, good_export * 50)], method)
        data = bytearray(damaged.read_bytes())
        for i in range(70, 120):
            data[i] ^= 0x55
        damaged.write_bytes(bytes(data))
        with pytest.raises(InvalidInput, match="looks like a zip but cannot be read"):
            mem.import_from("claude", damaged)
    # Millions of entries are refused from the zip's end record, before zipfile reads them.
    monkeypatch.setattr(conversations, "MAX_ZIP_ENTRIES", 100)
    many = _zip(
        tmp_path / "many.zip", [(EXPORT, good_export)] + [(f"f{i}", "") for i in range(200)]
    )
    with pytest.raises(InvalidInput, match="declares 201 entries, over the 100"):
        mem.import_from("claude", many)
    # A plain file over the limit is not read whole either.
    monkeypatch.setattr(conversations, "MAX_UNZIPPED_BYTES", 1024)
    big = write(tmp_path / "big" / EXPORT, json.dumps(good()) + " " * 2048)
    with pytest.raises(InvalidInput, match=r"is over 1 KiB; it was not read"):
        mem.import_from("claude", big)
    assert snapshot(db) == before


EXPORT = "conversations.json"


@sqlite_only
@pytest.mark.timeout(60)
def test_a_device_or_a_pipe_is_refused_without_reading_it(db: str, tmp_path: Path) -> None:
    """A pipe waits for a writer and /dev/zero never ends: neither may hang the import."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    for path in (pipe, Path("/dev/zero")):
        result = run(db, "import", "--from", "claude", str(path))
        assert result.exit_code == 1
        assert "is not a file (a device, a pipe or a socket)" in result.stderr
