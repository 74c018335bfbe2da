"""Forget mode over MCP (seed 002): the prompt `forget-mode` and the tools `search_memories` /
`delete_memories`, so the client's own LLM carries out one instruction against a guarded
session kept per MCP session. The prompt's `dryRun` comes from the human who picks the
prompt; the model cannot lift it."""

# No `from __future__ import annotations`: the SDK reads these signatures at run time.
import json
import weakref
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.tools import Tool
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, ToolAnnotations
from pydantic import Field

from lethe import prompts
from lethe.engine.forget_session import ForgetModeRefusal, ForgetSession
from lethe.mcp.outputs import Output, reply
from lethe.mcp.params import (
    Filters,
    MemoryId,
    Query,
    ToolSpec,
    Where,
    strict_tools,
    tool_errors,
)
from lethe.mcp.refusals import Refused, call
from lethe.mcp.runtime import Runtime


class SearchOut(Output):
    searches_left: int
    ambiguous: bool
    candidates: list[dict[str, Any]]
    notes: str


class DeleteOut(Output):
    deleted_ids: list[str]
    refused: list[dict[str, Any]]
    result: dict[str, Any]
    """The session's answer so far, in seed 002's response schema."""


def _truthy(value: str) -> bool:
    return value.strip().lower() not in ("false", "0", "no", "off")


def forget_mode_prompt(rt: Runtime) -> Prompt:
    def forget_mode(
        instruction: str, ctx: Context, dryRun: str = "true", namespace: str | None = None
    ) -> str:
        dry_run = _truthy(dryRun)
        if not dry_run and rt.stateless(ctx):
            # Its deletions would be keyed by the token alone, open to any other client of it.
            raise MCPError(
                code=INVALID_PARAMS,
                message="forget mode can delete only within an MCP session, and this client "
                "has none (stateless protocol); use dryRun=true for a plan, then forget by id",
            )
        with tool_errors():
            mem, grant, ns = rt.enter(ctx, "read" if dry_run else "forget", namespace)
            session = ForgetSession(
                mem, instruction, namespace=ns, dry_run=dry_run, actor=rt.actor(ctx, grant)
            )
        rt.keep_forget_session(rt.session(ctx, grant), session)
        return prompts.forget_mode(session.instruction, dry_run=dry_run, namespace=ns)

    return Prompt.from_function(
        forget_mode,
        name="forget-mode",
        title="Forget mode",
        description="Carry out one forget instruction with search_memories and "
        "delete_memories (seed 002). dryRun defaults to true: a plan only.",
    )


def _dry_run(prompted: bool, ids: list[str]) -> Refused:
    """delete_memories in a dry run: outside forget mode it points to forget; in a dry-run
    forget mode, to the plan (and to what the user can do)."""
    forget = call("forget", memory_ids=ids)
    if not prompted:
        return Refused(
            "delete_memories works only in forget mode that the user started (the forget-mode "
            "prompt with dryRun false); nothing was deleted.",
            f"To forget these memories, call {forget}: the user confirms it.",
            kind="forget_mode",
            memory_ids=ids,
        )
    return Refused(
        "This forget mode is a dry run (dryRun true): delete_memories is refused; nothing was "
        "deleted.",
        "Answer with the plan JSON. If the user wants them gone, they run the forget-mode "
        f"prompt again with dryRun false, or you call {forget} and they confirm it.",
        kind="forget_mode",
        memory_ids=ids,
    )


def forget_mode_tools(rt: Runtime) -> list[Tool]:
    # The dry runs opened by a tool called without the forget-mode prompt.
    implicit: weakref.WeakSet[ForgetSession] = weakref.WeakSet()

    def session_of(ctx: Context, query: str) -> ForgetSession:
        """This MCP session's forget mode; without the prompt, a dry run of this query."""
        mem, grant, ns = rt.enter(ctx, "read", None)
        key = rt.session(ctx, grant)
        session = rt.forget_session(key)
        if session is None:
            session = ForgetSession(
                mem, query, namespace=ns, dry_run=True, actor=rt.actor(ctx, grant)
            )
            implicit.add(session)
            rt.keep_forget_session(key, session)
        return session

    def search_memories(
        query: Query,
        ctx: Context,
        filters: Filters | None = None,
        where: Where | None = None,
    ) -> Annotated[CallToolResult, SearchOut]:
        with tool_errors():
            try:
                found = session_of(ctx, query).search_memories(query, filters, where or ())
            except ForgetModeRefusal as exc:
                raise Refused(
                    f"{exc.message}; nothing was searched.",
                    "Decide from the candidates already found: delete_memories(ids=[…]) with "
                    "deletable ones (when the user allowed deleting), or answer with the plan "
                    "JSON; ask the user for more specific criteria if none fits.",
                    kind="forget_mode",
                ) from None
        out = SearchOut(
            searches_left=found["searchesLeft"],
            ambiguous=found["ambiguous"],
            candidates=found["candidates"],
            notes=found["notes"],
        )
        lines = [json.dumps(found["candidates"], ensure_ascii=False), found["notes"]]
        guidance = (
            f"{out.searches_left} search(es) left. Only candidates marked deletable can be "
            "deleted; in dry run, answer with the plan JSON."
        )
        return reply(out, lines, guidance)

    def delete_memories(
        ids: Annotated[list[MemoryId], Field(min_length=1, max_length=100)], ctx: Context
    ) -> Annotated[CallToolResult, DeleteOut]:
        with tool_errors():
            session = session_of(ctx, "delete")
            rt.enter(ctx, "forget", session.namespace)  # the role and namespace, every time
            if session.dry_run:
                raise _dry_run(session not in implicit, list(ids))
            done = session.delete_memories(ids)
            result = session.result()
        out = DeleteOut(deleted_ids=done["deletedIds"], refused=done["refused"], result=result)
        lines = [json.dumps(result, ensure_ascii=False)]
        return reply(out, lines, "Answer with this JSON; deleted memories are in the trash.")

    specs: list[ToolSpec] = [
        (
            search_memories,
            "Forget mode: search",
            ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=False),
            "Only for the forget-mode prompt: find candidates for its instruction (at most 3 "
            "searches a session), each with a score and whether it is deletable, e.g. "
            'search_memories(query="trip", filters={"source": "notes.md"}). To forget a '
            "memory otherwise, use forget.",
        ),
        (
            delete_memories,
            "Forget mode: delete",
            ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False),
            "Only for the forget-mode prompt: delete candidates that a search of this session "
            "marked deletable. Refused while the prompt's dryRun is true (the default). To "
            "forget a memory otherwise, use forget.",
        ),
    ]
    return strict_tools(specs)
