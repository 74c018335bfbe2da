"""ChatGPT's data export (Settings > Data controls > Export data): `conversations.json`, in
the zip OpenAI emails, or the zip itself.

It is a list of conversations `{"id", "conversation_id", "title", "create_time" (seconds
since 1970), "mapping": {node id: node}, "current_node"}`. The mapping is a tree, not a
list: a node is `{"id", "message": {...} | null, "parent", "children"}`, and an edited or
regenerated message starts another branch. The conversation the person saw is the branch
from `current_node` up through `parent` to the root; the other branches are not kept (the
report counts them).

A message is `{"id", "author": {"role": "system" | "user" | "assistant" | "tool"},
"create_time", "content": {"content_type", "parts": [text | object]}, "recipient",
"metadata"}`. A turn is a user or assistant message the app shows: not hidden
(`metadata.is_visually_hidden_from_conversation`), not a system or tool message, not the
assistant addressing a tool (`recipient` other than `all`), not reasoning (`thoughts`,
`reasoning_recap`). Its text is its text parts, plus what a voice conversation transcribed;
images, recordings and attached files are not text and are counted in the report.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from lethe.importers.conversations import (
    Segment,
    Tally,
    Turns,
    epoch_time,
    message_id,
    read_conversations,
    session_id,
    type_name,
)
from lethe.importers.names import agent_for
from lethe.importers.parsed import Parsed, shown

SOURCE = "chatgpt"
AGENT = agent_for("chatgpt")
_REASONING = {"thoughts", "reasoning_recap"}
_HINT = (
    "ChatGPT's export is a list of conversations "
    '{"id", "title", "mapping": {id: {"message", "parent", "children"}}, "current_node"}'
)


def read(path: Path, *, namespace: str | None, max_bytes: int) -> Parsed:
    return read_conversations(
        path,
        source=SOURCE,
        app="ChatGPT",
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
    key = "conversation_id" if record.get("conversation_id") is not None else "id"
    session = session_id(parsed, record.get(key), key, where, _HINT)
    title = record.get("title")
    if title is not None and not isinstance(title, str):
        parsed.bad(where, f"the conversation's title must be text, got {type_name(title)}", _HINT)
    mapping = record.get("mapping")
    if not isinstance(mapping, dict):
        parsed.bad(where, "mapping is missing or not an object of message nodes", _HINT)
    current = record.get("current_node")
    if current is not None and not isinstance(current, str):
        parsed.bad(where, f"current_node must be a node id, got {type_name(current)}", _HINT)
    started = epoch_time(parsed, record.get("create_time"), "create_time", where)
    if len(parsed.problems) > problems or session is None or not isinstance(mapping, dict):
        return
    path = _path(parsed, mapping, current, where)
    if path is None:
        return
    kept = 0
    for node_id in path:
        kept += _message(
            parsed,
            turns,
            tally,
            mapping[node_id],
            _node_where(where, node_id),
            session=session,
            title=(title or "").strip() or None,
            started=started,
        )
    on_path = set(path)
    others = sum(
        1 for node_id, node in mapping.items() if node_id not in on_path and _is_said(node)
    )
    if others:
        tally.add(
            "message(s) on branches the conversation left (edited or regenerated) are not kept",
            where,
            count=others,
        )
    if not kept and not others:
        tally.add("conversation(s) without messages", where)


def _node_where(where: str, node_id: str) -> str:
    return f"{where}.mapping[{json.dumps(node_id, ensure_ascii=False)}]"


def _path(
    parsed: Parsed, mapping: dict[str, Any], current: str | None, where: str
) -> list[str] | None:
    """The node ids of the branch the person saw, root first; None when the tree is broken
    (a current node or parent that is not in the mapping, or a parent chain that loops)."""
    if not mapping:
        return []
    if current is None:
        current = _last_leaf(mapping)
        if current is None:
            parsed.bad(
                where,
                "there is no current_node and every node of mapping has children: no branch ends",
                "set current_node to the id of the conversation's last message node",
            )
            return None
    if current not in mapping:
        parsed.bad(
            where,
            f"current_node {shown(current)} is not a node of mapping",
            "set current_node to the id of the conversation's last message node",
        )
        return None
    chain: list[str] = []
    seen: set[str] = set()
    node_id: str | None = current
    while node_id is not None:
        if node_id in seen:
            parsed.bad(
                where,
                f"the parent chain from current_node loops back to node {shown(node_id)}",
                "each node's parent must lead to the root (a node whose parent is null)",
            )
            return None
        seen.add(node_id)
        if node_id not in mapping:  # never the first: current_node was found above
            parsed.bad(
                _node_where(where, chain[-1]),
                f"parent {shown(node_id)} is not a node of mapping",
                "make parent the id of a node in mapping, or null for the root",
            )
            return None
        node = mapping[node_id]
        if not isinstance(node, dict):
            parsed.bad(
                _node_where(where, node_id), f"expected a node object, got {type_name(node)}"
            )
            return None
        parent = node.get("parent")
        if parent is not None and not isinstance(parent, str):
            parsed.bad(
                _node_where(where, node_id), f"parent must be a node id, got {type_name(parent)}"
            )
            return None
        chain.append(node_id)
        node_id = parent
    chain.reverse()
    return chain


def _last_leaf(mapping: dict[str, Any]) -> str | None:
    """Without a current_node (older exports): the branch that ends last."""
    best: tuple[int | float, int] | None = None
    found: str | None = None
    for order, (node_id, node) in enumerate(mapping.items()):
        if not isinstance(node, dict) or node.get("children"):
            continue
        message = node.get("message")
        when = message.get("create_time") if isinstance(message, dict) else None
        # Ranked as the number it is, never made a float: 10**400 is no float.
        if isinstance(when, bool) or not isinstance(when, int | float) or when != when:
            when = 0  # no time, or NaN (which no comparison would rank)
        rank: tuple[int | float, int] = (when, order)
        if best is None or rank > best:
            best, found = rank, node_id
    return found


def _is_said(node: Any) -> bool:
    """A message a person or the model said, on any branch (for counting what is left)."""
    message = node.get("message") if isinstance(node, dict) else None
    if not isinstance(message, dict):
        return False
    author = message.get("author")
    metadata = message.get("metadata")
    return (
        isinstance(author, dict)
        and author.get("role") in ("user", "assistant")
        and message.get("recipient", "all") in ("all", None)
        and not (
            isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation")
        )
    )


def _message(
    parsed: Parsed,
    turns: Turns,
    tally: Tally,
    node: dict[str, Any],
    where: str,
    *,
    session: str,
    title: str | None,
    started: datetime | None,
) -> int:
    message = node.get("message")
    if message is None:
        return 0  # the root, or a placeholder the app keeps: nothing was said
    if not isinstance(message, dict):
        parsed.bad(where, f"message must be an object or null, got {type_name(message)}", _HINT)
        return 0
    problems = len(parsed.problems)
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    if not isinstance(role, str):
        parsed.bad(where, "the message needs author.role as text (user, assistant, ...)", _HINT)
    content = message.get("content")
    content_type = content.get("content_type") if isinstance(content, dict) else None
    if not isinstance(content, dict) or not isinstance(content_type, str):
        parsed.bad(where, "the message needs content as an object with a content_type", _HINT)
    metadata = message.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        parsed.bad(where, f"the message's metadata must be an object, got {type_name(metadata)}")
    uuid = message_id(parsed, message.get("id", node.get("id")), "id", where, _HINT)
    created = epoch_time(parsed, message.get("create_time"), "create_time", where)
    if (
        len(parsed.problems) > problems
        or uuid is None
        or not isinstance(role, str)
        or not isinstance(content, dict)
        or not isinstance(content_type, str)
    ):
        return 0
    metadata = metadata or {}
    recipient = message.get("recipient", "all")
    if content_type == "user_editable_context" or metadata.get("is_user_system_message"):
        # The person's own words, but settings, not a turn: said apart from the app's
        # context so that the report does not hide them among system messages.
        tally.add(
            "custom instruction message(s) (what you told ChatGPT about yourself in its "
            "settings) are not turns and are not kept",
            where,
            "add what should be remembered of them with lethe remember",
        )
        return 0
    if metadata.get("is_visually_hidden_from_conversation") or role == "system":
        tally.add(
            "hidden or system message(s) (the app's context) are not turns",
            where,
        )
        return 0
    if role == "tool":
        tally.add("tool message(s) (search results, code output, generated images)", where)
        return 0
    if role not in ("user", "assistant"):
        tally.add(f"message(s) from role {shown(role)} (neither user nor assistant)", where)
        return 0
    if recipient not in ("all", None):
        tally.add("message(s) addressed to a tool (a search query, code to run)", where)
        return 0
    if content_type in _REASONING:
        tally.add("reasoning message(s) (the model's thinking before it answered)", where)
        return 0
    text = _text(parsed, tally, content, content_type, where)
    attached = metadata.get("attachments")
    if isinstance(attached, list) and attached:
        tally.add(
            "attached file(s) (the export has their names, not their content)",
            where,
            count=len(attached),
        )
    if text is None:
        return 0
    if not text.strip():
        tally.add("message(s) with no text", where)
        return 0
    slug = metadata.get("model_slug")
    extra = {"model": slug} if role == "assistant" and isinstance(slug, str) and slug else None
    return turns.add(
        where,
        [Segment(text)],
        session=session,
        speaker=role,
        title=title,
        message=uuid,
        created_at=created or started,
        extra=extra,
    )


def _text(
    parsed: Parsed, tally: Tally, content: dict[str, Any], content_type: str, where: str
) -> str | None:
    """The message's text, or None when a part is malformed (named in problems)."""
    parts = content.get("parts")
    if parts is None:
        text = content.get("text")
        if isinstance(text, str):
            return text
        if text is not None:
            parsed.bad(where, f"content.text must be text, got {type_name(text)}", _HINT)
            return None
        tally.add(f"message(s) of content type {shown(content_type)} without text", where)
        return None
    if not isinstance(parts, list):
        parsed.bad(where, f"content.parts must be a list, got {type_name(parts)}", _HINT)
        return None
    pieces: list[str] = []
    for n, part in enumerate(parts):
        if part is None:
            continue
        if isinstance(part, str):
            pieces.append(part)
        elif isinstance(part, dict):
            kind = part.get("content_type")
            said = part.get("text")
            if kind == "audio_transcription" and isinstance(said, str):
                pieces.append(said)
            elif kind == "image_asset_pointer":
                tally.add("image(s) (not text)", where)
            elif isinstance(kind, str) and "audio" in kind:
                tally.add("voice recording(s) (their transcripts are kept)", where)
            else:
                tally.add(f"message part(s) of type {shown(kind)} (not text)", where)
        else:
            parsed.bad(
                where, f"content.parts[{n}] must be text or an object, got {type_name(part)}", _HINT
            )
            return None
    return "\n\n".join(piece for piece in pieces if piece.strip())
