"""Imports of ChatGPT's data export (`conversations.json`): a memory per turn of the branch the
person saw (current_node up to the root), each chat one conversation (metadata.session);
hidden, system, tool and reasoning messages are not turns, images and files are reported;
long turns split without loss; re-imports and grown exports add only what is new; dry runs;
broken trees and hostile files refused whole — through the API and the CLI, with the real
store and the real MiniLM embedder."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from lethe import Lethe
from lethe.importers import SourceRefused
from tests.backends import run_sql, snapshot, sqlite_only
from tests.importers.support import by_content, everything, run

T0 = 1717236000.0  # 2024-06-01 10:00:00 UTC


def msg(
    node_id: str,
    role: str,
    parts: list[Any],
    minute: float,
    *,
    content_type: str = "text",
    metadata: dict[str, Any] | None = None,
    recipient: str = "all",
) -> dict[str, Any]:
    """A message as ChatGPT writes it (the message id is the node's id)."""
    return {
        "id": node_id,
        "author": {"role": role, "name": None, "metadata": {}},
        "create_time": T0 + 60 * minute,
        "update_time": None,
        "content": {"content_type": content_type, "parts": parts},
        "status": "finished_successfully",
        "end_turn": True if role == "assistant" else None,
        "weight": 1.0,
        "metadata": metadata or {},
        "recipient": recipient,
        "channel": None,
    }


def tree(
    conv_id: str, title: str | None, nodes: dict[str, tuple[dict[str, Any] | None, str | None]]
) -> dict[str, Any]:
    """A conversation from `{node id: (message, parent)}`, children derived; current_node is
    the last node given."""
    mapping: dict[str, Any] = {
        node_id: {"id": node_id, "message": message, "parent": parent, "children": []}
        for node_id, (message, parent) in nodes.items()
    }
    for node_id, node in mapping.items():
        if node["parent"] is not None:
            mapping[node["parent"]]["children"].append(node_id)
    return {
        "title": title,
        "create_time": T0,
        "update_time": T0 + 3600,
        "mapping": mapping,
        "moderation_results": [],
        "current_node": list(nodes)[-1],
        "plugin_ids": None,
        "conversation_id": conv_id,
        "conversation_template_id": None,
        "gizmo_id": None,
        "is_archived": False,
        "safe_urls": [],
        "default_model_slug": "gpt-4o",
        "id": conv_id,
    }


def linear(
    conv_id: str, title: str, turns: list[tuple[str, str]], start: int = 1
) -> dict[str, Any]:
    """The usual shape: a root without message, the app's hidden system message, the turns."""
    nodes: dict[str, tuple[dict[str, Any] | None, str | None]] = {
        f"{conv_id}-root": (None, None),
        f"{conv_id}-sys": (
            msg(
                f"{conv_id}-sys",
                "system",
                [""],
                0,
                metadata={"is_visually_hidden_from_conversation": True},
            ),
            f"{conv_id}-root",
        ),
    }
    parent = f"{conv_id}-sys"
    for n, (role, text) in enumerate(turns, start=start):
        node_id = f"{conv_id}-{n}"
        metadata = {"model_slug": "gpt-4o"} if role == "assistant" else {}
        nodes[node_id] = (msg(node_id, role, [text], n, metadata=metadata), parent)
        parent = node_id
    return tree(conv_id, title, nodes)


WEEKEND = [
    ("assistant", "Hey! How was your weekend?"),
    ("user", "Pretty good, thanks."),
    ("assistant", "What did you do on Saturday?"),
    ("user", "Went hiking at Mount Tamalpais with my sister."),
    ("assistant", "Sounds lovely."),
]
BAKING = [
    ("user", "My sourdough starter smells like acetone."),
    ("assistant", "It is hungry: feed it twice a day at a 1:1:1 ratio."),
]
DISTRACTORS = [
    "Priya went hiking in the Alps last summer.",
    "Tom says hiking is his favourite sport.",
    "On Saturday the library closes at noon.",
    "Saturday's football match was cancelled because of rain.",
    "Our team offsite is next Saturday.",
    "Maya's sister lives in Porto.",
]


def write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    elif isinstance(data, str):
        path.write_text(data, encoding="utf-8")
    else:
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def standard(tmp_path: Path) -> Path:
    return write(
        tmp_path / "conversations.json",
        [linear("conv-weekend", "Weekend plans", WEEKEND), linear("conv-bread", "Bread", BAKING)],
    )


def test_each_turn_is_a_memory_of_its_conversation(db: str, mem: Lethe, tmp_path: Path) -> None:
    report = mem.import_from("chatgpt", standard(tmp_path))

    assert (report.records, report.memories, report.imported) == (2, 7, 7)
    stored = by_content(mem)
    answer = stored["Went hiking at Mount Tamalpais with my sister."]
    assert answer.metadata == {
        "session": "conv-weekend",
        "speaker": "user",
        "source": "chatgpt",
        "message_id": "conv-weekend-4",
        "title": "Weekend plans",
    }
    assert (answer.agent, answer.namespace) == ("chatgpt", "default")
    assert answer.created_at == datetime(2024, 6, 1, 10, 4, tzinfo=UTC)
    feed = stored["It is hungry: feed it twice a day at a 1:1:1 ratio."]
    assert feed.metadata["speaker"] == "assistant" and feed.metadata["model"] == "gpt-4o"
    assert feed.metadata["session"] == "conv-bread"
    # The app's hidden system message is no turn, and the report says so.
    [hidden] = [n for n in report.not_kept if n.what.startswith("2 hidden or system")]
    assert hidden.where == '[0].mapping["conv-weekend-sys"]'

    contexts = dict(run_sql(db, "SELECT memory_id, content FROM memory_context"))
    assert "What did you do on Saturday?" in str(contexts[answer.id])
    assert "sourdough" not in str(contexts[answer.id]).lower()
    for text in DISTRACTORS:
        mem.remember(text)
    hits = [h.memory.content for h in mem.recall("What did I do on Saturday?", k=5)]
    assert answer.content in hits


def test_reimport_adds_nothing_and_a_grown_export_only_the_new_turns(
    db: str, mem: Lethe, tmp_path: Path
) -> None:
    source = standard(tmp_path)
    mem.import_from("chatgpt", source)
    before = snapshot(db)
    again = mem.import_from("chatgpt", source)
    assert (again.imported, again.skipped_duplicates) == (0, 7)
    assert snapshot(db) == before

    grown = [*BAKING, ("user", "It doubled in six hours."), ("assistant", "Ready to bake.")]
    write(
        source,
        [
            linear("conv-weekend", "Weekend plans", WEEKEND),
            linear("conv-bread", "Bread", grown),
            linear("conv-tax", "Taxes", [("user", "Which form do I file?")]),
        ],
    )
    newer = mem.import_from("chatgpt", source)
    assert (newer.memories, newer.imported, newer.skipped_duplicates) == (10, 3, 7)
    assert by_content(mem)["Ready to bake."].metadata["session"] == "conv-bread"


def test_a_dry_run_writes_nothing_and_predicts_the_import(
    db: str, mem: Lethe, tmp_path: Path
) -> None:
    mem.remember("Already here before the import")
    source = standard(tmp_path)
    before = snapshot(db)
    planned = mem.import_from("chatgpt", source, dry_run=True)
    assert planned.dry_run and snapshot(db) == before
    done = mem.import_from("chatgpt", source)
    assert (planned.imported, planned.skipped_duplicates) == (done.imported, 0) == (7, 0)
    assert planned.not_kept == done.not_kept


def test_only_the_branch_the_person_saw_is_kept(mem: Lethe, tmp_path: Path) -> None:
    """An edited question and a regenerated answer are other children of the same parent:
    only the branch from current_node up to the root is the conversation."""
    nodes: dict[str, tuple[dict[str, Any] | None, str | None]] = {
        "root": (None, None),
        "q1": (msg("q1", "user", ["Name a red fruit."], 1), "root"),
        "a1-old": (msg("a1-old", "assistant", ["A tomato, technically."], 2), "q1"),
        "a1": (msg("a1", "assistant", ["A strawberry."], 3), "q1"),
        "q2-old": (msg("q2-old", "user", ["Name a blue fruit."], 4), "a1"),
        "a2-old": (msg("a2-old", "assistant", ["A blueberry."], 5), "q2-old"),
        "q2": (msg("q2", "user", ["Name a yellow fruit."], 6), "a1"),
        "a2": (msg("a2", "assistant", ["A banana."], 7), "q2"),
    }
    source = write(tmp_path / "conversations.json", [tree("c-fruit", "Fruit", nodes)])
    report = mem.import_from("chatgpt", source)

    assert [m.content for m in everything(mem)] == [
        "Name a red fruit.",
        "A strawberry.",
        "Name a yellow fruit.",
        "A banana.",
    ]
    [note] = [n for n in report.not_kept if "branches" in n.what]
    assert note.what.startswith("3 message(s) on branches the conversation left")

    # Without current_node (older exports): the branch that ends last.
    record = tree("c-fruit", "Fruit", nodes)
    record["current_node"] = None
    write(source, [record])
    again = mem.import_from("chatgpt", source)
    assert (again.imported, again.skipped_duplicates) == (0, 4)


def test_what_is_not_a_turn_is_reported(mem: Lethe, tmp_path: Path) -> None:
    nodes: dict[str, tuple[dict[str, Any] | None, str | None]] = {
        "root": (None, None),
        "custom": (
            msg(
                "custom",
                "user",
                [],
                0,
                content_type="user_editable_context",
                metadata={
                    "is_visually_hidden_from_conversation": True,
                    "is_user_system_message": True,
                },
            ),
            "root",
        ),
        "photo": (
            msg(
                "photo",
                "user",
                [
                    {"content_type": "image_asset_pointer", "asset_pointer": "sediment://f1"},
                    "What plant is this?",
                ],
                1,
                content_type="multimodal_text",
                metadata={"attachments": [{"id": "f1", "name": "plant.jpg"}]},
            ),
            "custom",
        ),
        "think": (msg("think", "assistant", [], 2, content_type="thoughts"), "photo"),
        "call": (
            msg(
                "call", "assistant", ["search('monstera')"], 3, content_type="code", recipient="web"
            ),
            "think",
        ),
        "result": (msg("result", "tool", ["Monstera deliciosa ..."], 4), "call"),
        "answer": (msg("answer", "assistant", ["It is a Monstera deliciosa."], 5), "result"),
        "voice": (
            msg(
                "voice",
                "user",
                [
                    {"content_type": "audio_transcription", "text": "How often do I water it?"},
                    {"content_type": "audio_asset_pointer", "asset_pointer": "sediment://a1"},
                ],
                6,
                content_type="multimodal_text",
            ),
            "answer",
        ),
        "blank": (msg("blank", "assistant", [""], 7), "voice"),
    }
    source = write(tmp_path / "conversations.json", [tree("c-plant", None, nodes)])
    report = mem.import_from("chatgpt", source)

    stored = by_content(mem)
    assert list(stored) == [
        "What plant is this?",
        "It is a Monstera deliciosa.",
        "How often do I water it?",
    ]
    assert "title" not in stored["What plant is this?"].metadata  # the chat had none
    not_kept = {n.what: n.where for n in report.not_kept}
    where = '[0].mapping["{}"]'.format
    assert not_kept == {
        "1 custom instruction message(s) (what you told ChatGPT about yourself in its "
        "settings) are not turns and are not kept": where("custom"),
        "1 image(s) (not text)": where("photo"),
        "1 attached file(s) (the export has their names, not their content)": where("photo"),
        "1 reasoning message(s) (the model's thinking before it answered)": where("think"),
        "1 message(s) addressed to a tool (a search query, code to run)": where("call"),
        "1 tool message(s) (search results, code output, generated images)": where("result"),
        "1 voice recording(s) (their transcripts are kept)": where("voice"),
        "1 message(s) with no text": where("blank"),
    }


def test_a_long_turn_is_split_into_parts_without_loss(mem: Lethe, tmp_path: Path) -> None:
    lines = [f"{n}. " + "step " * 120 for n in range(1, 201)]
    long_answer = "\n".join(line.rstrip() for line in lines)  # one paragraph of many lines
    assert len(long_answer.encode()) > 3 * 32 * 1024
    source = write(
        tmp_path / "conversations.json",
        [linear("c-long", "Steps", [("user", "List every step."), ("assistant", long_answer)])],
    )
    report = mem.import_from("chatgpt", source)

    parts = sorted(
        (m for m in everything(mem) if m.metadata["message_id"] == "c-long-2"),
        key=lambda m: m.metadata["part"],
    )
    assert len(parts) == parts[0].metadata["parts"] == 4
    assert all(len(m.content.encode()) <= 32 * 1024 for m in parts)
    assert "\n".join(m.content for m in parts) == long_answer  # cut between lines
    assert all(m.metadata["session"] == "c-long" for m in parts)
    assert any(n.what.startswith("1 message(s) longer than") for n in report.not_kept)


def test_a_purged_turn_is_not_brought_back(db: str, mem: Lethe, tmp_path: Path) -> None:
    source = standard(tmp_path)
    mem.import_from("chatgpt", source)
    [gone] = [m for m in everything(mem) if m.metadata["message_id"] == "conv-weekend-4"]
    receipt = mem.execute(mem.plan_purge([gone.id])).receipt
    assert receipt is not None
    before = snapshot(db)
    planned = mem.import_from("chatgpt", source, dry_run=True)
    again = mem.import_from("chatgpt", source)
    for report in (planned, again):
        assert (report.imported, report.skipped_purged, report.skipped_duplicates) == (0, 1, 6)
        [note] = [n for n in report.not_kept if "purged" in n.what]
        assert note.where == '[0].mapping["conv-weekend-4"]'
    assert snapshot(db) == before
    assert mem.verify_receipt(receipt) == []


def ok() -> dict[str, Any]:
    return linear("c-ok", "Fine", [("user", "All fine here.")])


def with_message(**fields: Any) -> list[dict[str, Any]]:
    record = linear("c-bad", "Broken", [("user", "text")])
    record["mapping"]["c-bad-1"]["message"].update(fields)
    return [ok(), record]


def with_node(**fields: Any) -> list[dict[str, Any]]:
    record = linear("c-bad", "Broken", [("user", "text")])
    record["mapping"]["c-bad-1"].update(fields)
    return [ok(), record]


def with_conversation(**fields: Any) -> list[dict[str, Any]]:
    record = linear("c-bad", "Broken", [("user", "text")])
    record.update(fields)
    return [ok(), record]


def loop() -> list[dict[str, Any]]:
    record = linear("c-bad", "Broken", [("user", "one"), ("assistant", "two")])
    record["mapping"]["c-bad-root"]["parent"] = "c-bad-2"
    return [ok(), record]


NODE = '[1].mapping["c-bad-1"]'
HOSTILE: dict[str, tuple[Any, str, str]] = {
    "not json": ('[{"title": "x",', "line 1", "not valid JSON"),
    "not utf-8": (b'[{"title": "caf\xe9"}]', "line 1", "not UTF-8 text (byte 0xe9)"),
    "an object at the top": ({"title": "x"}, "file", "expected a list of conversations"),
    "a string at the top": ('"conversations"', "file", "got str"),
    "deep nesting": ("[" * 100_000, "file", "nested deeper than lethe reads"),
    "a huge number": ("[" + "9" * 5_000 + "]", "file", "not readable JSON"),
    "a conversation that is a list": ([ok(), []], "[1]", "expected a conversation object"),
    "no conversation id": (with_conversation(id=None, conversation_id=None), "[1]", "'id'"),
    "mapping not an object": (with_conversation(mapping=[]), "[1]", "mapping is missing"),
    "current node elsewhere": (
        with_conversation(current_node="nowhere"),
        "[1]",
        "current_node 'nowhere' is not a node",
    ),
    "a parent that is missing": (
        with_node(parent="ghost"),
        NODE,
        "parent 'ghost' is not a node of mapping",
    ),
    "a cycle": (loop(), "[1]", "loops back"),
    "a node that is text": (
        with_conversation(mapping={"n": "hello"}, current_node="n"),
        '[1].mapping["n"]',
        "expected a node object",
    ),
    "a message that is text": (with_node(message="hi"), NODE, "message must be an object"),
    "no role": (with_message(author={}), NODE, "author.role"),
    "no content": (with_message(content=None), NODE, "content as an object"),
    "parts not a list": (
        with_message(content={"content_type": "text", "parts": "hi"}),
        NODE,
        "content.parts must be a list",
    ),
    "a part that is a number": (
        with_message(content={"content_type": "text", "parts": [3]}),
        NODE,
        "content.parts[0] must be text or an object",
    ),
    "no message id": (with_message(id=None), NODE, "'id' is missing"),
    "a time that is text": (with_message(create_time="today"), NODE, "not a time in seconds"),
    "a time before 1970": (with_message(create_time=-5), NODE, "not a time in seconds"),
    "a time past 9999": (with_message(create_time=1e300), NODE, "not a time in seconds"),
    "a time of 400 digits": (
        '[{"id": "c", "mapping": {"n": {"message": {"id": "n", "author": {"role": "user"}, '
        '"create_time": 1' + "0" * 400 + ', "content": {"content_type": "text", "parts": '
        '["hi"]}}, "parent": null}}, "current_node": "n"}]',
        '[0].mapping["n"]',
        "not a time in seconds",
    ),
    "a time that is true": (with_message(create_time=True), NODE, "not a time in seconds"),
    "a time of 400 digits and no current_node": (
        '[{"id": "c", "mapping": {"n": {"message": {"id": "n", "author": {"role": "user"}, '
        '"create_time": 1' + "0" * 400 + ', "content": {"content_type": "text", "parts": '
        '["hi"]}}, "parent": null, "children": []}}}]',
        '[0].mapping["n"]',
        "not a time in seconds",
    ),
    "a current node that is null": (
        with_conversation(mapping={"n": None}, current_node="n"),
        '[1].mapping["n"]',
        "expected a node object, got null",
    ),
    "a parent that is null": (
        with_conversation(
            mapping={"n": {"parent": "p", "message": None}, "p": None}, current_node="n"
        ),
        '[1].mapping["p"]',
        "expected a node object, got null",
    ),
    "no current node and no branch that ends": (
        with_conversation(
            mapping={
                "a": {"parent": "b", "children": ["b"], "message": None},
                "b": {"parent": "a", "children": ["a"], "message": None},
            },
            current_node=None,
        ),
        "[1]",
        "no branch ends",
    ),
    "a lone surrogate": (
        '[{"id": "c", "mapping": {"n": {"message": {"id": "n", "author": {"role": "user"}, '
        '"content": {"content_type": "text", "parts": ["a \\ud800 b"]}}, "parent": null}}, '
        '"current_node": "n"}]',
        '[0].mapping["n"]',
        "lone surrogate",
    ),
}


@sqlite_only
@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_export_is_refused_whole_naming_where(
    db: str, mem: Lethe, tmp_path: Path, kind: str
) -> None:
    data, where, what = HOSTILE[kind]
    path = write(tmp_path / "conversations.json", data)
    mem.remember("Already here before the import")
    before = snapshot(db)
    with pytest.raises(SourceRefused) as refused:
        mem.import_from("chatgpt", path)
    problem = refused.value.problems[0]
    assert (problem.where, what in problem.what) == (where, True), problem
    assert "\n" not in str(refused.value) and "nothing was imported" in str(refused.value)
    assert snapshot(db) == before


@sqlite_only
def test_every_bad_record_is_listed(mem: Lethe, tmp_path: Path) -> None:
    bad_time = with_message(create_time="today")[1]
    bad_role = with_message(author={"role": 5})[1]
    bad_role["conversation_id"] = bad_role["id"] = "c-bad-2"
    path = write(tmp_path / "conversations.json", [ok(), bad_time, 42, bad_role])
    with pytest.raises(SourceRefused) as refused:
        mem.import_from("chatgpt", path)
    assert [p.where for p in refused.value.problems] == [NODE, "[2]", '[3].mapping["c-bad-1"]']
    assert everything(mem) == []


# -- the command line --------------------------------------------------------------------------


@sqlite_only
def test_cli_imports_with_json_and_dry_run(db: str, tmp_path: Path) -> None:
    source = standard(tmp_path)
    dry = run(db, "import", "--from", "chatgpt", str(source), "--dry-run", "--json")
    assert dry.exit_code == 0, dry.stderr
    planned = json.loads(dry.stdout)
    assert (planned["dry_run"], planned["imported"], planned["records"]) == (True, 7, 2)
    assert not Path(db).exists()

    result = run(db, "import", "--from", "chatgpt", str(source.parent))
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("imported 7 of 7 memories (from 2 chatgpt record(s) in")
    assert "hidden or system message(s)" in result.stdout

    broken = write(tmp_path / "broken" / "conversations.json", loop())
    refused = run(db, "import", "--from", "chatgpt", str(broken))
    assert refused.exit_code == 1
    assert "1 malformed record(s) in this chatgpt source" in refused.stderr
    assert "[1]: the parent chain from current_node loops back" in refused.stderr
