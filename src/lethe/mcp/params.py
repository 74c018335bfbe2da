"""Argument types with their bounds, so a malformed call is refused by the schema before any
tool code runs: wrong types, oversize strings, malformed ids, unknown fields."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import Field

from lethe.errors import LetheError
from lethe.mcp.refusals import (
    AcceptedWithoutAnswer,
    Failed,
    Refused,
    Watch,
    accepted_without_answer,
    refusal_of,
)
from lethe.mcp.wire import text_problem

MemoryId = Annotated[str, Field(pattern=r"^(mem|sys)_[0-9a-f]{12}$")]
"""No description: the pattern says the form, and every tool holding an id would repeat it
in what a model reads (see `lethe.mcp.profiles` on the size of that)."""
EpisodeId = Annotated[
    str, Field(pattern=r"^ep_[0-9a-f]{12}$", description="An episode id: ep_ + 12 hex digits")
]
Namespace = Annotated[str | None, Field(max_length=64)]
"""Checked by the grant (`Grant.namespace`), which says what a namespace may hold; the default
(the caller's first namespace) is told once, in the server's instructions."""
Content = Annotated[str, Field(min_length=1, max_length=32_768)]
EpisodeSummary = Annotated[
    str, Field(min_length=1, max_length=32_768, description="The episode's summary")
]
ConfirmationCode = Annotated[str, Field(pattern=r"^[0-9a-f]{16}$")]
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
ExpiresAt = Annotated[str, Field(description="ISO 8601: it ends then")]
ExpiresIn = Annotated[str, Field(description="Or in: 7d, 12h, PT12H")]
"""The code a first forget/purge/update_memory answer carried (clients without a session);
the answer itself says to pass it back."""
Seq = Annotated[int, Field(ge=0, le=2**53 - 1)]
"""An event sequence number or a paging offset: never above what JSON numbers hold exactly."""
Query = Annotated[str, Field(min_length=1, max_length=2_000)]
Tag = Annotated[str, Field(min_length=1, max_length=64)]
Tags = Annotated[list[Tag], Field(max_length=32)]
Label = Annotated[str, Field(max_length=128)]
Reason = Annotated[str, Field(max_length=128, description="Why (kept in its history)")]
LayerName = Literal["episodic", "semantic", "learning", "caveat", "goal"]
Importance = Annotated[float, Field(ge=0.0, le=1.0, description=">= 0.9 pins it (protected)")]
Metadata = dict[str, Any]
TagsMode = Literal["any", "all"]
Where = Annotated[
    list[Annotated[str, Field(max_length=500)]],
    Field(
        max_length=20,
        description="FIELD OP VALUE; OP: = != < <= > >= in contains",
    ),
]
Filters = Annotated[
    dict[str, Any],
    Field(
        description="agent, layer, category, tags, since, until, or a metadata field",
    ),
]


def forbid_unknown_arguments(tool: Tool) -> Tool:
    """Make the tool's argument model reject unknown keys (the SDK ignores them by default),
    and publish `additionalProperties: false` so clients see it too."""
    model = tool.fn_metadata.arg_model
    model.model_config["extra"] = "forbid"
    model.model_rebuild(force=True)
    tool.parameters = compact_schema(model.model_json_schema(by_alias=True))
    return tool


def compact_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An input schema without what tells a model nothing, since every model reads it in
    every conversation (see `lethe.mcp.profiles`): pydantic's titles ("Memory Id" for
    memory_id), `additionalProperties: true` (the default), `1.0` for `1`, and for an
    optional argument the `anyOf [..., null]` with `default: null` (an optional argument is
    simply not in `required`: omit it rather than send null). Bounds, patterns, enums,
    defaults and descriptions stay. The arguments are still checked by the full model,
    which also takes an explicit null."""
    out = {k: _compact(v) for k, v in schema.items() if k != "title"}
    out["properties"] = {
        name: _optional(_compact(prop)) for name, prop in schema.get("properties", {}).items()
    }
    return out


def _compact(node: Any) -> Any:
    if isinstance(node, list):
        return [_compact(n) for n in node]
    if not isinstance(node, dict):
        return node
    return {
        k: int(v) if isinstance(v, float) and v.is_integer() else _compact(v)
        for k, v in node.items()
        if not _says_nothing(k, v)
    }


def _says_nothing(key: str, value: Any) -> bool:
    """A pydantic title (a string `title`, never a property named title) or the default
    `additionalProperties: true`."""
    return (key == "title" and isinstance(value, str)) or (key, value) == (
        "additionalProperties",
        True,
    )


def _optional(prop: dict[str, Any]) -> dict[str, Any]:
    """`{"anyOf": [X, {"type": "null"}], "default": null, ...}` as X with the same keys."""
    choices = prop.get("anyOf")
    if not (isinstance(choices, list) and {"type": "null"} in choices and len(choices) == 2):
        return prop
    [kept] = [c for c in choices if c != {"type": "null"}]
    rest = {k: v for k, v in prop.items() if k != "anyOf" and not (k == "default" and v is None)}
    return {**kept, **rest}


ToolSpec = tuple[Callable[..., Any], str, ToolAnnotations, str]
"""A tool function, its title, its annotations and the description an LLM reads."""


class TextTool(Tool):
    """A tool whose every refusal has one shape (`lethe.mcp.refusals`): `isError: true`, one
    line saying what is wrong, and a hint naming the tool and arguments to call next.

    It refuses, before anything runs (even a question to the human), an argument holding a
    string that is not storable text: a NUL character or a lone surrogate, wherever it is
    (content, a tag, a metadata key, a where expression). The SDK's schema check (pydantic's
    report) becomes one line naming each argument and the form it takes. An elicitation the
    client accepted without an answer is no yes: the tool runs as if the human declined, and
    the refusal is audited as one."""

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        for name, value in arguments.items():
            problem = text_problem(value, name)
            if problem is not None:
                hint = f"Call {self.name} again with {name} as text without that character."
                return Refused(problem, hint, kind="invalid_argument").answer()
        try:
            return await super().run(arguments, context, convert_result)
        except UnexpectedToolError:
            raise  # a crash: the SDK logs it and tells the model nothing of it
        except ToolError as exc:
            if self.resolved_params and accepted_without_answer(exc.__cause__):
                return await self._as_declined(arguments, context, convert_result)
            return refusal_of(exc, self.name, self.parameters).answer()

    async def _as_declined(
        self, arguments: dict[str, Any], context: Any, convert_result: bool
    ) -> Any:
        """Run the body with every question answered "no" (`AcceptedWithoutAnswer`)."""
        direct: dict[str, Any] = {name: AcceptedWithoutAnswer() for name in self.resolved_params}
        if self.context_kwarg is not None:
            direct[self.context_kwarg] = context
        try:
            validated = self.fn_metadata.validate_arguments(arguments)
            result = await self.fn_metadata.call_fn(self.fn, self.is_async, validated, direct)
        except ToolError as exc:
            return refusal_of(exc, self.name, self.parameters).answer()
        except Exception as exc:
            raise UnexpectedToolError(f"Error executing tool {self.name}") from exc
        return self.fn_metadata.convert_result(result) if convert_result else result


def strict_tools(specs: Sequence[ToolSpec]) -> list[Tool]:
    """Tools from their functions, each refusing arguments it does not declare and strings
    that are not text. Every tool is `openWorldHint: false`: each works on this server's own
    store, never on the outside world. A description's lines are joined into paragraphs (a
    line break costs two characters of JSON in every conversation; see `lethe.mcp.profiles`)."""
    return [
        forbid_unknown_arguments(
            TextTool.from_function(
                fn,
                title=title,
                description=paragraphs(text),
                annotations=annotations.model_copy(update={"open_world_hint": False}),
            )
        )
        for fn, title, annotations, text in specs
    ]


def paragraphs(text: str) -> str:
    """`text` with the line breaks inside each paragraph made spaces; paragraphs (blank-line
    separated) stay one per line."""
    return "\n".join(" ".join(p.split()) for p in text.strip().split("\n\n") if p.strip())


@contextmanager
def tool_errors() -> Iterator[Watch]:
    """lethe's own errors become refusals (`TextTool` gives them the tool's name); the server
    lives. `watch.ids(...)` names the ids the call is about, so that a "not found" says what
    became of each (in the trash, purged, or the ids within two edits of it)."""
    watch = Watch()
    try:
        yield watch
    except (LetheError, TimeoutError) as exc:
        raise Failed(exc, watch) from None
