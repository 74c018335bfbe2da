"""One shape for every refusal a tool makes, so that a model can act on it.

A refusal is a tool error (`isError: true`) whose text is one line saying what is wrong,
then `---` and a hint naming the tool and the arguments to call next, like the guidance of
every other answer. Its `_meta` says the same for programs, under `lethe/refusal`: `error`
(the kind), `message`, `hint`, and for ids that are not there, `memory_ids` and
`suggestions` (ids within two edits of one, each with a preview of its content). Nothing was
changed by a call that answers one.

A refusal carries no `structuredContent`: a client of the TypeScript SDK's 1.x line (most
desktop and IDE clients) checks structured content against the tool's output schema even on
an error, and would replace the refusal, hint and all, with a schema error the model cannot
act on. The text is what a model reads on every client.

The kinds: `invalid_argument` (the schema, before anything ran), `invalid` (the engine's
checks), `not_found`, `in_trash`, `not_in_trash`, `purged`, `protected`, `role`,
`namespace`, `confirmation`, `disabled`, `changed`, `forget_mode`, `unavailable`, `error`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from mcp.server.mcpserver import AcceptedElicitation, CancelledElicitation, DeclinedElicitation
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import Field, ValidationError

from lethe.engine.suggest import Suggestion, Whereabouts, whereabouts
from lethe.errors import (
    ChangedSincePlanned,
    EpisodeNotFound,
    LetheError,
    NotFound,
    StoreBusy,
)
from lethe.forget.guard import protections
from lethe.forget.plan import PlanItem
from lethe.forget.results import Said
from lethe.mcp.access import AccessDenied
from lethe.mcp.outputs import Output, SuggestionOut

if TYPE_CHECKING:
    from lethe.engine import Lethe

MAX_MESSAGE_CHARS = 600
"""A message is one line; a longer one (an engine's note quoting a memory) is cut."""
MAX_SHOWN_VALUE = 60


class RefusalOut(Output):
    error: str
    message: str
    hint: str
    memory_ids: list[str] = Field(default_factory=list)
    """The ids the refusal is about (those not there, in the trash, protected…)."""
    suggestions: list[SuggestionOut] = Field(default_factory=list)


REFUSAL_META = "lethe/refusal"
"""The `_meta` key of a refusal's fields, for programs."""


class Refused(ToolError):
    """A refusal on its way to the model: raise it from a tool (or a resolver); `TextTool`
    answers it as a tool error in the one shape (`answer`)."""

    def __init__(
        self,
        message: str,
        hint: str,
        *,
        kind: str = "invalid",
        memory_ids: Sequence[str] = (),
        suggestions: Sequence[Suggestion] = (),
    ) -> None:
        super().__init__(one_line(message))
        self.message = one_line(message)
        self.hint = one_line(hint)
        self.kind = kind
        self.memory_ids = list(memory_ids)
        self.suggestions = list(suggestions)

    def answer(self) -> CallToolResult:
        out = RefusalOut(
            error=self.kind,
            message=self.message,
            hint=self.hint,
            memory_ids=self.memory_ids,
            suggestions=[SuggestionOut(id=s.id, preview=s.preview) for s in self.suggestions],
        )
        return CallToolResult(
            content=[TextContent(type="text", text=f"{self.message}\n---\n{self.hint}")],
            is_error=True,
            _meta={REFUSAL_META: out.model_dump(mode="json")},
        )


class AcceptedWithoutAnswer(DeclinedElicitation):
    """The client accepted the question to its human but sent no answer (or one that is not
    the form asked): that is no yes, so it counts as a decline, audited as such with the
    answer `accept_without_content`."""


Answer = Literal["decline", "cancel", "accept_without_content"]


def answer_of(answer: object) -> Said:
    """The engine's `Answer.said` for what an elicitation resolver produced: an accept
    without data means no question was put (the client cannot be asked), an accept with a
    yes is a yes, anything else is the no `said` names."""
    if isinstance(answer, AcceptedElicitation) and answer.data is None:
        return "not_asked"
    data = answer.data if isinstance(answer, AcceptedElicitation) else None
    if getattr(data, "confirm", False) is True:
        return "yes"
    return said(answer)


def said(answer: object) -> Answer:
    """How the human answered a question that was not a yes, as the audit log records it:
    `decline`, `cancel` (dismissed) or `accept_without_content`."""
    if isinstance(answer, AcceptedWithoutAnswer):
        return "accept_without_content"
    return "cancel" if isinstance(answer, CancelledElicitation) else "decline"


def declined(answer: Answer, nothing: str) -> str:
    """The message of an answer that was not a yes; `nothing` is what was not done
    ("deleted", "changed", "forgotten")."""
    if answer == "accept_without_content":
        return (
            f"The question was accepted without an answer, which is no yes; nothing was {nothing}."
        )
    return f"The user said no ({answer}); nothing was {nothing}."


def one_line(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def shown(value: Any, limit: int = MAX_SHOWN_VALUE) -> str:
    """A value as JSON on one line, cut to `limit` characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:
        text = repr(value)
    return one_line(text, limit)


def call(tool: str, **arguments: Any) -> str:
    """How a call is written in a hint: `forget(memory_id="mem_…")`; `...` is shown as …"""
    args = ", ".join(
        f"{k}=…" if v is Ellipsis else f"{k}={json.dumps(v, ensure_ascii=False)}"
        for k, v in arguments.items()
    )
    return f"{tool}({args})"


# -- lethe's errors ------------------------------------------------------------------------


def from_error(exc: LetheError | TimeoutError, tool: str) -> Refused:
    """A lethe error (or the store still opening) as a refusal of `tool`."""
    if isinstance(exc, (TimeoutError, StoreBusy)):
        return Refused(str(exc), f"Call {tool} again in a moment.", kind="unavailable")
    if isinstance(exc, AccessDenied):
        return _access_denied(exc, tool)
    message, hint = exc.message, exc.hint
    if isinstance(exc, ChangedSincePlanned):
        return Refused(
            message,
            f"{hint or 'It changed'}: read it again with get_memory, then call {tool} again.",
            kind="changed",
        )
    if isinstance(exc, EpisodeNotFound):
        return Refused(
            message,
            "Use the id create_episode gave (ep_ and 12 hex digits): there is no search for "
            "episodes.",
            kind="not_found",
        )
    if isinstance(exc, NotFound):
        found = f"; {hint}" if hint else ""
        return Refused(message, f"Use an id that recall or {tool} gave{found}.", kind="not_found")
    then = f"Then call {tool} again." if hint else f"Correct the arguments and call {tool} again."
    return Refused(message, f"{hint.rstrip('.')}. {then}" if hint else then, kind="invalid")


def _access_denied(exc: AccessDenied, tool: str) -> Refused:
    """Which role the call needs, which namespaces the client has, or why else it may not."""
    message, hint = exc.message, exc.hint or ""
    if message.startswith("this client may not use namespace") and hint.startswith("its "):
        return Refused(
            f"{message}; nothing was done.",
            f"This client's {hint.removeprefix('its ')}: call {tool} with one of them as "
            "namespace, or without namespace (its first).",
            kind="namespace",
        )
    needed = re.search(r"needs '(\w+)'", message)
    if needed and "role is" in message:
        message = message.replace("this tool needs", f"{tool} needs")
        return Refused(
            message if "Nothing was changed" in message else f"{message}. Nothing was changed.",
            f"Tell the user that {tool} needs a token with the '{needed[1]}' role (the "
            "server's operator gives each token its role); do not retry with this one.",
            kind="role",
        )
    then = f"{hint[:1].upper()}{hint[1:].rstrip('.')}." if hint else f"Do not call {tool}."
    return Refused(f"{message}; nothing was done.", then, kind="not_allowed")


# -- what a call names, for its errors -----------------------------------------------------


class Watch:
    """What a tool call names (`ids`), so that a "not found" from the engine is answered with
    what became of each id and the call to make next."""

    def __init__(self) -> None:
        self.mem: Lethe | None = None
        self.namespace = ""
        self.named: dict[str, str | Sequence[str]] = {}
        self.want = "live"

    def ids(
        self,
        mem: Lethe,
        namespace: str,
        *,
        want: str = "live",
        **named: str | Sequence[str] | None,
    ) -> None:
        """The ids this call names (argument name -> id or ids; None: not given), which it
        needs `live` (or in the `trash`, for restore)."""
        self.mem, self.namespace, self.want = mem, namespace, want
        self.named = {k: v for k, v in named.items() if v}


class Failed(ToolError):
    """A lethe error in a tool body, on its way to `TextTool`, which knows the tool's name
    and makes it a refusal (`refusal`): when an id the call named is not there as it needs
    it (the engine may say "not found" or, for supersedes, "invalid"), that is the refusal."""

    def __init__(self, error: LetheError | TimeoutError, watch: Watch) -> None:
        super().__init__(str(error))
        self.error = error
        self.watch = watch

    def refusal(self, tool: str) -> Refused:
        w = self.watch
        if isinstance(self.error, LetheError) and w.mem is not None and w.named:
            found = missing(w.mem, w.namespace, tool, w.named, want=w.want)
            if found is not None:
                return found
        return from_error(self.error, tool)


# -- ids that are not there --------------------------------------------------------------


def missing(
    mem: Lethe,
    namespace: str,
    tool: str,
    ids: Mapping[str, str | Sequence[str]],
    *,
    want: str = "live",
) -> Refused | None:
    """Why the ids a call named (argument name -> id or ids) are not there as `tool` needs
    them (`want`: `live`, `trash` for restore, `any` for purge), with the call to make next;
    None when each of them is there after all."""
    named = [(arg, i) for arg, v in ids.items() for i in ([v] if isinstance(v, str) else v)]
    wanted = {"live": ("live",), "trash": ("trash",)}.get(want, ("live", "trash"))
    statuses = tuple({"live": "active", "trash": "forgotten"}[w] for w in wanted)
    found: list[tuple[str, Whereabouts]] = []
    for arg, memory_id in dict.fromkeys(named):
        where = whereabouts(mem.store, memory_id, namespace, statuses)
        if where.state not in wanted:
            found.append((arg, where))
    if not found:
        return None
    return refuse_missing(found, namespace, tool)


def refuse_missing(found: Sequence[tuple[str, Whereabouts]], namespace: str, tool: str) -> Refused:
    """The refusal for ids that are not there as wanted: what became of each, and for the
    first the call to make next."""
    arg, first = found[0]
    message = "; ".join(_state(w, namespace) for _, w in found) + "."
    if message.startswith("no "):
        message = "N" + message[1:]
    hint = _next(arg, first, tool)
    if len(found) > 1:
        hint += f" The other{'s' if len(found) > 2 else ''} likewise."
    kind = {"trash": "in_trash", "live": "not_in_trash", "purged": "purged"}.get(
        first.state, "not_found"
    )
    return Refused(
        message,
        hint,
        kind=kind,
        memory_ids=[w.memory_id for _, w in found],
        suggestions=[s for _, w in found for s in w.suggestions],
    )


def _when(w: Whereabouts) -> str:
    return f" on {w.at:%Y-%m-%d %H:%M} UTC" if w.at else ""


def _state(w: Whereabouts, namespace: str) -> str:
    if w.state == "trash":
        return f"{w.memory_id} is in the trash (forgotten by {w.by}{_when(w)})"
    if w.state == "live":
        return f"{w.memory_id} is not in the trash: it is a live memory"
    if w.state == "purged":
        return f"{w.memory_id} was purged (erased for good) by {w.by}{_when(w)}"
    return f"no memory {w.memory_id} in namespace {namespace}"


def _next(arg: str, w: Whereabouts, tool: str) -> str:
    """The call a model makes next about one id that is not there as wanted."""
    memory_id = w.memory_id
    if w.state == "trash":
        back = f"restore it with {call('restore', memory_id=memory_id)}"
        if tool == "forget":
            return f"It is already forgotten: nothing to do (to undo that, {back})."
        return f"To use it, {back} (with the user's agreement), then call {tool} again."
    if w.state == "live":
        return f"Nothing to restore: {call('get_memory', memory_id=memory_id)} reads it."
    if w.state == "purged":
        return (
            "It cannot be restored. If the user wants it back, store it again with "
            f"{call('remember', content=...)}."
        )
    if w.suggestions:
        options = ", ".join(f'{s.id} ("{s.preview}")' for s in w.suggestions)
        best = w.suggestions[0].id
        value: str | list[str] = [best] if arg.endswith("ids") else best
        return (
            f"Did you mean {options}? If so, call {call(tool, **{arg: value})}; otherwise "
            f"{call('recall', query=...)} finds a memory by its content."
        )
    if tool == "restore":
        return f"{call('list_trash')} lists what can be restored."
    return (
        f"Use an id that remember, recall or list_trash gave: {call('recall', query=...)} "
        "finds a memory by its content."
    )


# -- a forget or purge that does nothing -----------------------------------------------------


def nothing_done(
    mem: Lethe,
    namespace: str,
    tool: str,
    ids: Sequence[str],
    refused: Sequence[PlanItem],
) -> Refused:
    """A forget or purge of which no id is pending or done: each id is protected (with the
    reason), in the trash, purged or unknown."""
    arg = "memory_id" if tool == "forget" and len(ids) == 1 else "memory_ids"
    protected = [_protected(mem, item, tool) for item in refused]
    gone = missing(
        mem,
        namespace,
        tool,
        {arg: [i for i in ids if i not in {r.id for r in refused}]},
        want="live" if tool == "forget" else "any",
    )
    parts = [*protected, *([gone] if gone else [])]
    if not parts:
        return Refused(f"Nothing was done with {', '.join(ids)}.", f"Call {tool} again.")
    first = parts[0]
    return Refused(
        " ".join(p.message for p in parts),
        first.hint,
        kind=first.kind,
        memory_ids=[i for p in parts for i in p.memory_ids],
        suggestions=[s for p in parts for s in p.suggestions],
    )


def _protected(mem: Lethe, item: PlanItem, tool: str) -> Refused:
    """Why a memory is not forgotten, and what would make it forgettable (if the user wants)."""
    memory = mem.store.get(item.id)
    kinds = (
        [p.kind for p in protections(item.id, memory.layer, memory.importance)] if memory else []
    )
    verb = "deleted" if tool == "forget" else "erased"
    message = f"{item.id} is protected ({item.protection}); nothing was {verb}."
    again = call(tool, memory_id=item.id) if tool == "forget" else call(tool, memory_ids=[item.id])
    then = f"then {again}"
    if "system" in kinds:
        hint = "System memories are never deleted; leave it."
    elif "layer" in kinds and memory is not None:
        change = call("update_memory", memory_id=item.id, layer="semantic")
        hint = (
            f"Keep it unless the user says it must go; if so, {change} first (the user "
            f"confirms that change), {then}."
        )
    elif "pin" in kinds:
        change = call("update_memory", memory_id=item.id, importance=0.5)
        hint = (
            f"Keep it unless the user says it must go; if so, {change} first (the user "
            f"confirms that change), {then}."
        )
    else:
        hint = f"{item.hint or 'Leave it'}."
    return Refused(message, hint, kind="protected", memory_ids=[item.id])


# -- arguments refused by the schema --------------------------------------------------------

KNOWN_PATTERNS = {
    r"^(mem|sys)_[0-9a-f]{12}$": "a memory id: mem_ and 12 hex digits (e.g. mem_0123456789ab)",
    r"^ep_[0-9a-f]{12}$": "an episode id: ep_ and 12 hex digits, as create_episode gave it",
    r"^[0-9a-f]{16}$": "the 16-hex-digit confirmation code a first answer gave",
    r"^sweep_[0-9a-f]{12}$": "the plan_id of a sweep report: sweep_ and 12 hex digits",
    r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,63}$": "a namespace name: letters, digits and _.:@- "
    "(at most 64)",
}


def invalid_arguments(exc: ValidationError, tool: str, schema: Mapping[str, Any]) -> Refused:
    """Pydantic's report on arguments as one line: each argument named with what it must be
    (from the tool's input schema) and what was given; the hint says what the tool takes."""
    properties: Mapping[str, Any] = schema.get("properties", {})
    problems: list[str] = []
    fix: dict[str, list[str]] = {"given": [], "corrected": [], "without": []}
    for error in exc.errors(include_url=False):
        loc = [str(p) for p in error.get("loc", ())]
        arg = loc[0] if loc else "arguments"
        where = arg + "".join(f"[{p}]" for p in loc[1:])
        kind = error.get("type", "")
        if kind == "missing":
            problems.append(f"{where} is required: {accepted(properties.get(arg, {}))}")
            fix["given"].append(arg)
        elif kind == "extra_forbidden":
            problems.append(f"{where} is not an argument of {tool}")
            fix["without"].append(arg)
        else:
            node = _at(properties.get(arg, {}), loc[1:])
            got = f" (got {shown(error.get('input'))})" if "input" in error else ""
            problems.append(f"{where} must be {accepted(node)}{got}")
            fix["corrected"].append(arg)
    problems = list(dict.fromkeys(problems))
    more = f"; and {len(problems) - 3} more" if len(problems) > 3 else ""
    message = "; ".join(problems[:3]) + more
    how = [
        f"without {', '.join(dict.fromkeys(fix['without']))}" if fix["without"] else "",
        f"with {', '.join(dict.fromkeys(fix['given']))} given" if fix["given"] else "",
        f"with {', '.join(dict.fromkeys(fix['corrected']))} corrected" if fix["corrected"] else "",
    ]
    hint = f"Call {tool} again {' and '.join(h for h in how if h)}."
    if fix["without"]:
        hint += f" {tool} takes: {', '.join(properties) or 'no arguments'}."
    return Refused(f"{tool}: {message}.", hint, kind="invalid_argument")


def _at(node: Mapping[str, Any], path: Iterable[str]) -> Mapping[str, Any]:
    """The schema of a list item or object field under `node`."""
    for part in path:
        node = _plain(node)
        if node.get("type") == "array":
            node = node.get("items", {})
        elif node.get("type") == "object":
            inner: Any = node.get("properties", {}).get(part, node.get("additionalProperties"))
            node = inner if isinstance(inner, Mapping) else {}
    return node


def _plain(node: Mapping[str, Any]) -> Mapping[str, Any]:
    """`anyOf [X, null]` as X."""
    choices = [c for c in node.get("anyOf", []) if c != {"type": "null"}]
    if len(choices) == 1:
        return {**{k: v for k, v in node.items() if k != "anyOf"}, **choices[0]}
    return node


def accepted(node: Mapping[str, Any]) -> str:
    """What a JSON schema accepts, in words (`one of any, all`; `an integer from 1 to 100`)."""
    node = _plain(node)
    if "enum" in node:
        return "one of " + ", ".join(str(v) for v in node["enum"])
    if "anyOf" in node:
        return " or ".join(accepted(c) for c in node["anyOf"] if c != {"type": "null"})
    kind = node.get("type")
    if kind == "string":
        if node.get("pattern") in KNOWN_PATTERNS:
            return KNOWN_PATTERNS[node["pattern"]]
        if "pattern" in node:
            return f"a string matching {node['pattern']}"
        if node.get("format") == "date-time":
            return "an ISO 8601 time such as 2025-01-31T09:00:00Z"
        return "text" + _bounds(node, "minLength", "maxLength", "characters")
    if kind == "integer":
        return "an integer" + _bounds(node, "minimum", "maximum")
    if kind == "number":
        return "a number" + _bounds(node, "minimum", "maximum")
    if kind == "boolean":
        return "true or false"
    if kind == "array":
        items = accepted(node.get("items", {}))
        return "a list" + _bounds(node, "minItems", "maxItems", "items") + f", each {items}"
    if kind == "object":
        return "a JSON object"
    return "a value of the documented form"


def _bounds(node: Mapping[str, Any], low: str, high: str, unit: str = "") -> str:
    """` from 1 to 100`, ` of at most 64 characters`, ` above 0, at most 1`, or ''."""
    lo, hi = node.get(low), node.get(high)
    lead, unit = (" of", f" {unit}") if unit else (" from", "")
    single = " of" if unit else ""
    if "exclusiveMinimum" in node:
        upto = f", at most {_num(hi)}" if hi is not None else ""
        return f" above {_num(node['exclusiveMinimum'])}{upto}{unit}"
    if lo is not None and hi is not None:
        return f"{lead} {_num(lo)} to {_num(hi)}{unit}"
    if hi is not None:
        return f"{single} at most {_num(hi)}{unit}"
    if lo is not None and lo != 0:
        return f"{single} at least {_num(lo)}{unit}"
    return ""


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


# -- every tool error, in the one shape ----------------------------------------------------

SDK_PREFIX = "Error executing tool "


def refusal_of(exc: BaseException, tool: str, schema: Mapping[str, Any]) -> Refused:
    """Whatever a tool call was refused with (a `Refused` or lethe error from its body or
    resolver, the SDK's schema check, a plain `ToolError`) as a refusal in the one shape."""
    for error in (exc, exc.__cause__):
        if isinstance(error, Refused):
            return error
        if isinstance(error, Failed):
            return error.refusal(tool)
        if isinstance(error, ValidationError):
            return invalid_arguments(error, tool, schema)
    cause = exc.__cause__ if isinstance(exc.__cause__, ToolError) else exc
    text = str(cause)
    if text.startswith(SDK_PREFIX):
        text = text.removeprefix(SDK_PREFIX).partition(": ")[2] or text
    return Refused(text, f"Correct the call and call {tool} again.", kind="invalid")


def accepted_without_answer(exc: BaseException | None) -> bool:
    """Whether the SDK refused an elicitation's answer because the client accepted without
    sending one, or sent one that is not the form asked (either protocol era)."""
    if not isinstance(exc, ToolError):
        return False
    text = str(exc).lower()
    return "accepted elicitation with no content" in text or (
        "accepted elicitation whose content does not match" in text
    )
