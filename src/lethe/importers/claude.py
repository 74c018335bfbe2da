"""Claude.ai's data export (Settings > Privacy > Export data): `conversations.json`, in the
zip Anthropic emails, or the zip itself.

It is a list of conversations `{"uuid", "name", "created_at", "updated_at", "account":
{"uuid"}, "chat_messages": [...]}`, each message `{"uuid", "sender": "human" | "assistant",
"text", "content": [blocks], "created_at", "attachments": [...], "files": [...]}`. A block
is `{"type": "text", "text"}`, or the model's work around the answer: `tool_use` (an
artifact, a web search), `tool_result`, `thinking`, `token_budget`.

A message is a turn of its conversation (see `conversations`). What the person saw is kept:
the text blocks (or `text` when there are none), each artifact Claude wrote (its own memory,
`metadata.artifact` its title) and the text Claude.ai extracted from each attachment (a
pasted text or a document: its own memory, `metadata.attachment` its file name). Tool calls
and results, thinking, and files without extracted text (images) are not: the report counts
them. Newer exports mark edited branches (`parent_message_uuid`, `current_leaf_message_uuid`):
then only the branch the conversation ends on is kept, as the person last saw it.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from lethe.importers.conversations import (
    Segment,
    Tally,
    Turns,
    message_id,
    read_conversations,
    session_id,
    type_name,
)
from lethe.importers.names import agent_for
from lethe.importers.parsed import Parsed, iso_time, shown

SOURCE = "claude"
AGENT = agent_for("claude")
_SENDERS = {"human": "user", "user": "user", "assistant": "assistant"}
_ARTIFACT_WRITES = {"create", "rewrite"}
_HINT = (
    "Claude.ai's export is a list of conversations "
    '{"uuid", "name", "chat_messages": [{"uuid", "sender", "text", "content", "created_at"}]}'
)


def read(path: Path, *, namespace: str | None, max_bytes: int) -> Parsed:
    return read_conversations(
        path,
        source=SOURCE,
        app="Claude.ai",
        agent=AGENT,
        hint=_HINT,
        conversation=_conversation,
        namespace=namespace,
        max_bytes=max_bytes,
    )


def _conversation(parsed: Parsed, turns: Turns, tally: Tally, record: Any, where: str) -> None:
    if not isinstance(record, dict):
        parsed.bad(where, f"expected a conversation object, got {type_name(record)}", _HINT)
        return
    problems = len(parsed.problems)
    session = session_id(parsed, record.get("uuid"), "uuid", where, _HINT)
    title = record.get("name")
    if title is not None and not isinstance(title, str):
        parsed.bad(where, f"the conversation's name must be text, got {type_name(title)}", _HINT)
    messages = record.get("chat_messages")
    if not isinstance(messages, list):
        parsed.bad(where, "chat_messages is missing or not a list of messages", _HINT)
    started = iso_time(parsed, record.get("created_at"), "created_at", where)
    model = record.get("model")
    if len(parsed.problems) > problems or session is None or not isinstance(messages, list):
        return
    if not messages:
        tally.add("conversation(s) without messages", where)
        return
    extra = {"model": model} if isinstance(model, str) and model.strip() else {}
    for index in _branch(parsed, tally, record, messages, where):
        _message(
            parsed,
            turns,
            tally,
            messages[index],
            f"{where}.chat_messages[{index}]",
            session=session,
            title=(title or "").strip() or None,
            started=started,
            extra=extra,
        )


def _branch(
    parsed: Parsed, tally: Tally, record: dict[str, Any], messages: list[Any], where: str
) -> list[int]:
    """The messages in the order to keep them: every one, unless the export says which
    branch the conversation ends on; then that branch, from its first message."""
    leaf = record.get("current_leaf_message_uuid")
    by_id = {
        m["uuid"]: i
        for i, m in enumerate(messages)
        if isinstance(m, dict) and isinstance(m.get("uuid"), str)
    }
    if not isinstance(leaf, str) or leaf not in by_id:
        return list(range(len(messages)))
    if not any(isinstance(m, dict) and "parent_message_uuid" in m for m in messages):
        return list(range(len(messages)))
    chain: list[int] = []
    seen: set[int] = set()
    current: Any = leaf
    while isinstance(current, str) and current in by_id:
        index = by_id[current]
        if index in seen:
            parsed.bad(
                where,
                f"the messages' parent_message_uuid chain loops back to {shown(current)}",
                "each message's parent must be an earlier message",
            )
            return []
        seen.add(index)
        chain.append(index)
        current = messages[index].get("parent_message_uuid")
    chain.reverse()
    others = len(messages) - len(chain)
    if others:
        tally.add(
            "message(s) on branches the conversation left (edited or retried) are not kept",
            where,
            count=others,
        )
    return chain


def _message(
    parsed: Parsed,
    turns: Turns,
    tally: Tally,
    record: Any,
    where: str,
    *,
    session: str,
    title: str | None,
    started: datetime | None,
    extra: dict[str, Any],
) -> None:
    if not isinstance(record, dict):
        parsed.bad(where, f"expected a message object, got {type_name(record)}", _HINT)
        return
    problems = len(parsed.problems)
    uuid = message_id(parsed, record.get("uuid"), "uuid", where, _HINT)
    sender = record.get("sender")
    if not isinstance(sender, str):
        parsed.bad(where, f"the message's sender must be text, got {type_name(sender)}", _HINT)
    created = iso_time(parsed, record.get("created_at"), "created_at", where)
    lists = {k: _list(parsed, record, k, where) for k in ("content", "attachments", "files")}
    text = record.get("text")
    if text is not None and not isinstance(text, str):
        parsed.bad(where, f"the message's text must be text, got {type_name(text)}", _HINT)
    if len(parsed.problems) > problems or uuid is None or not isinstance(sender, str):
        return
    speaker = _SENDERS.get(sender.strip().lower())
    if speaker is None:
        tally.add(f"message(s) from sender {shown(sender)} (neither human nor assistant)", where)
        return
    segments = _attachments(parsed, tally, lists["attachments"], where)
    said = _blocks(parsed, tally, lists["content"], where)
    if not any(s.text.strip() for s in said if not s.label) and text and text.strip():
        said = [Segment(text), *[s for s in said if s.label]]
    segments += said
    files = max(len(lists["files"]), len(_list(parsed, record, "files_v2", where)))
    if files:
        tally.add("uploaded file(s) or image(s) without extracted text", where, count=files)
    if not any(s.text.strip() for s in segments):
        tally.add("message(s) with no text", where)
        return
    turns.add(
        where,
        segments,
        session=session,
        speaker=speaker,
        title=title,
        message=uuid,
        created_at=created or started,
        extra=extra if speaker == "assistant" else None,
    )


def _list(parsed: Parsed, record: dict[str, Any], key: str, where: str) -> list[Any]:
    value = record.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        parsed.bad(where, f"{key} must be a list, got {type_name(value)}", _HINT)
        return []
    return value


def _attachments(parsed: Parsed, tally: Tally, attachments: list[Any], where: str) -> list[Segment]:
    """An attachment's extracted text is what the person gave Claude (a long paste becomes
    one): kept, before the message that speaks about it, as Claude.ai shows it."""
    segments: list[Segment] = []
    for n, attachment in enumerate(attachments):
        if not isinstance(attachment, dict):
            parsed.bad(where, f"attachments[{n}] must be an object, got {type_name(attachment)}")
            continue
        name, text = attachment.get("file_name"), attachment.get("extracted_content")
        if text is not None and not isinstance(text, str):
            parsed.bad(where, f"attachments[{n}].extracted_content must be text")
            continue
        if not text or not text.strip():
            tally.add("attached file(s) without extracted text", where)
            continue
        label = name.strip() if isinstance(name, str) and name.strip() else f"attachment {n + 1}"
        segments.append(Segment(text, {"attachment": label}))
    return segments


def _blocks(parsed: Parsed, tally: Tally, blocks: list[Any], where: str) -> list[Segment]:
    """The message's text blocks joined as Claude.ai shows them (a web answer cuts its text
    into blocks around citations: they join without a break; across a tool call, a blank
    line), and each artifact Claude wrote as its own segment."""
    segments: list[Segment] = []
    text: list[str] = []
    broken = False
    for n, block in enumerate(blocks):
        if not isinstance(block, dict):
            parsed.bad(where, f"content[{n}] must be an object, got {type_name(block)}", _HINT)
            continue
        kind = block.get("type")
        if kind == "text":
            value = block.get("text")
            if value is not None and not isinstance(value, str):
                parsed.bad(where, f"content[{n}].text must be text, got {type_name(value)}", _HINT)
            elif value:
                if broken and text:
                    text.append("\n\n")
                text.append(value)
                broken = False
            continue
        broken = True
        if kind == "tool_use" and block.get("name") == "artifacts":
            artifact = _artifact(block.get("input"))
            if artifact is not None:
                if "".join(text).strip():
                    segments.append(Segment("".join(text)))
                text = []
                segments.append(artifact)
            else:
                tally.add("artifact edit(s) (a change to an artifact, not its text)", where)
        elif kind in ("tool_use", "tool_result"):
            tally.add("tool call(s) and result(s) (web search, analysis, integrations)", where)
        elif kind == "thinking":
            tally.add("thinking block(s) (the model's reasoning before it answered)", where)
        elif kind != "token_budget":  # the model's own bookkeeping: nothing was said
            tally.add(f"content block(s) of type {shown(kind)}", where)
    if "".join(text).strip():
        segments.append(Segment("".join(text)))
    return segments


def _artifact(given: Any) -> Segment | None:
    # `command` is compared, never hashed: a list or an object there is no write.
    if not isinstance(given, dict) or not any(given.get("command") == c for c in _ARTIFACT_WRITES):
        return None
    content = given.get("content")
    if not isinstance(content, str) or not content.strip():
        return None
    title = next(
        (
            v.strip()
            for v in (given.get("title"), given.get("id"))
            if isinstance(v, str) and v.strip()
        ),
        "artifact",
    )
    return Segment(content, {"artifact": title})
