"""Forget mode driven by an LLM over any OpenAI-compatible chat-completions endpoint.

The model sees seed 002's prompt and two tools; every tool call runs against a
`ForgetSession`, whose guards hold whatever the model does: a refused call comes back to the
model as an error, and the final answer is built from the session, not from the model's text
(only its `notes` are kept). The HTTP client is the standard library's, so this needs no
dependency and works with any server that speaks the protocol.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from lethe import prompts
from lethe.engine.forget_session import ForgetSession
from lethe.errors import LetheError

MAX_TURNS = 8
TIMEOUT_S = 60.0

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "search_memories",
            "description": "Find candidate memories to forget. At most 3 calls. Each candidate "
            "has a score and whether it is deletable under the tiered rules.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "what to search for"},
                    "filters": {
                        "type": "object",
                        "description": 'metadata fields, e.g. {"sourcePath": "a.md"}',
                    },
                    "where": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": 'conditions such as "@metadata.date < 2024-01-01"',
                    },
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "delete_memories",
            "description": "Delete memories by id. Refused while dryRun is true.",
            "parameters": {
                "type": "object",
                "properties": {"ids": {"type": "array", "items": {"type": "string"}}},
                "required": ["ids"],
                "additionalProperties": False,
            },
        },
    },
]


class LLMUnavailable(LetheError):
    """The configured chat-completions endpoint could not be used."""


def run_agent(
    session: ForgetSession,
    *,
    base_url: str,
    model: str,
    api_key: str | None,
    suggested_query: str | None = None,
) -> ForgetSession:
    """Let the model drive the session until it answers; its notes are kept on the session."""
    request = {
        "instruction": session.instruction,
        "dryRun": session.dry_run,
        "index": session.namespace,
        **({"suggestedQuery": suggested_query} if suggested_query else {}),
        **({"scope": session.scope} if session.scope else {}),
        **({"scopeExpressions": list(session.scope_where)} if session.scope_where else {}),
        **({"explicitMemoryIds": list(session.explicit)} if session.explicit else {}),
    }
    messages: list[dict[str, Any]] = [
        {
            "role": "system",
            "content": prompts.forget_mode(
                session.instruction, dry_run=session.dry_run, namespace=session.namespace
            ),
        },
        {"role": "user", "content": json.dumps(request, ensure_ascii=False)},
    ]
    refusals: list[str] = []
    for _ in range(MAX_TURNS):
        message = _complete(base_url, model, api_key, messages)
        messages.append(message)
        calls = message.get("tool_calls") or []
        if not calls:
            session.model_notes = _notes(message.get("content"), refusals)
            return session
        for call in calls:
            answer = _run_tool(session, call, refusals)
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call.get("id", ""),
                    "content": json.dumps(answer, ensure_ascii=False),
                }
            )
    session.model_notes = _notes(f"The model did not finish within {MAX_TURNS} turns.", refusals)
    return session


SUMMARY_PROMPT = (
    "You compress old memories of an AI agent into one short note. Keep every fact that "
    "matters (names, dates, preferences, decisions); drop repetition; invent nothing. Answer "
    "with the note only, at most 120 words."
)


def summarize(contents: Sequence[str], *, base_url: str, model: str, api_key: str | None) -> str:
    """An LLM-written summary of memories a decay sweep compresses (no tools involved)."""
    listing = "\n".join(f"- {text}" for text in contents)
    messages = [
        {"role": "system", "content": SUMMARY_PROMPT},
        {"role": "user", "content": f"Memories to compress:\n{listing}"},
    ]
    message = _complete(base_url, model, api_key, messages, tools=False)
    text = message.get("content")
    if not isinstance(text, str) or not text.strip():
        raise LLMUnavailable("the LLM endpoint returned an empty summary")
    return text.strip()


def _run_tool(session: ForgetSession, call: dict[str, Any], refusals: list[str]) -> Any:
    function = call.get("function") or {}
    name = function.get("name")
    try:
        args = json.loads(function.get("arguments") or "{}")
        if not isinstance(args, dict):
            raise ValueError("arguments must be a JSON object")
    except ValueError as exc:
        return {"error": f"unreadable arguments: {exc}"}
    try:
        if name == "search_memories":
            return session.search_memories(
                str(args.get("query", "")), args.get("filters"), args.get("where") or ()
            )
        if name == "delete_memories":
            ids = args.get("ids")
            if not isinstance(ids, list):
                return {"error": "ids must be a list of memory ids"}
            answer = session.delete_memories([str(i) for i in ids])
            refusals.extend(f"{r['id']}: {r['reason']}" for r in answer["refused"])
            return answer
        return {"error": f"unknown tool {name!r}; use search_memories or delete_memories"}
    except LetheError as exc:
        refusals.append(f"{name}: {exc.message}")
        return {"error": str(exc)}


def _notes(content: Any, refusals: Sequence[str]) -> str | None:
    """The model's own notes, if its answer parses as seed 002's JSON; plus what was refused."""
    notes = None
    if isinstance(content, str):
        try:
            parsed = json.loads(content)
            if isinstance(parsed, dict) and isinstance(parsed.get("notes"), str):
                notes = parsed["notes"]
        except ValueError:
            notes = content.strip()[:2000] or None
    if refusals:
        refused = "lethe refused: " + "; ".join(refusals)
        notes = f"{notes} ({refused})" if notes else refused
    return notes


def _complete(
    base_url: str,
    model: str,
    api_key: str | None,
    messages: list[dict[str, Any]],
    *,
    tools: bool = True,
) -> dict[str, Any]:
    payload: dict[str, Any] = {"model": model, "messages": messages}
    if tools:
        payload |= {"tools": TOOLS, "tool_choice": "auto"}
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    url = base_url.rstrip("/") + "/chat/completions"
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            reply = json.loads(response.read())
        message = reply["choices"][0]["message"]
    except urllib.error.HTTPError as exc:
        raise LLMUnavailable(
            f"the LLM endpoint {url} answered {exc.code}: {exc.read()[:300]!r}",
            hint="check LETHE_LLM_BASE_URL, LETHE_LLM_MODEL and LETHE_LLM_API_KEY",
        ) from None
    except (urllib.error.URLError, OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        raise LLMUnavailable(
            f"the LLM endpoint {url} could not be used: {exc}",
            hint="check LETHE_LLM_BASE_URL (an OpenAI-compatible /v1 base URL), or unset it to "
            "use the deterministic planner",
        ) from None
    if not isinstance(message, dict):
        raise LLMUnavailable(f"the LLM endpoint {url} returned no message")
    return message
