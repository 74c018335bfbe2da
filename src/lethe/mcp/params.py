"""Argument types with their bounds, so a malformed call is refused by the schema before any
tool code runs: wrong types, oversize strings, malformed ids, unknown fields."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import ToolAnnotations
from pydantic import Field

from lethe.errors import LetheError
from lethe.mcp.wire import text_problem

MemoryId = Annotated[
    str,
    Field(
        pattern=r"^(mem|sys)_[0-9a-f]{12}$",
        description="A memory id: mem_ followed by 12 hex digits, as returned by remember/recall",
    ),
]
EpisodeId = Annotated[
    str, Field(pattern=r"^ep_[0-9a-f]{12}$", description="An episode id: ep_ + 12 hex digits")
]
Namespace = Annotated[
    str | None,
    Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,63}$",
        description="Namespace to work in (isolation boundary); default: your first namespace",
    ),
]
Content = Annotated[str, Field(min_length=1, max_length=32_768, description="The memory text")]
ConfirmationCode = Annotated[
    str,
    Field(
        pattern=r"^[0-9a-f]{16}$",
        description="The code a first forget/purge/update_memory call returned (clients "
        "without a session)",
    ),
]
Seq = Annotated[int, Field(ge=0, le=2**53 - 1)]
"""An event sequence number or a paging offset: never above what JSON numbers hold exactly."""
Query = Annotated[str, Field(min_length=1, max_length=2_000, description="What to search for")]
Tag = Annotated[str, Field(min_length=1, max_length=64)]
Tags = Annotated[list[Tag], Field(max_length=32, description="Tags (at most 32)")]
Label = Annotated[str, Field(max_length=128)]
Reason = Annotated[
    str, Field(max_length=128, description="Why (one line; kept in the history and audit log)")
]
LayerName = Literal["episodic", "semantic", "learning", "caveat", "goal"]
Importance = Annotated[float, Field(ge=0.0, le=1.0, description="0.0-1.0; >= 0.9 pins it")]
Metadata = Annotated[dict[str, Any], Field(description="A JSON object of your own fields")]
Where = Annotated[
    list[Annotated[str, Field(max_length=500)]],
    Field(
        max_length=20,
        description='Metadata conditions such as "year >= 2025" or "@metadata.source = notes.md"',
    ),
]
Filters = Annotated[
    dict[str, Any],
    Field(
        description="Scope a forget query: agent, layer, category, tags, since, until, "
        'or metadata fields such as {"source": "notes.md"}. Only metadata fields widen a '
        "deletion beyond the single clear best match.",
    ),
]


def forbid_unknown_arguments(tool: Tool) -> Tool:
    """Make the tool's argument model reject unknown keys (the SDK ignores them by default),
    and publish `additionalProperties: false` so clients see it too."""
    model = tool.fn_metadata.arg_model
    model.model_config["extra"] = "forbid"
    model.model_rebuild(force=True)
    tool.parameters = model.model_json_schema(by_alias=True)
    return tool


ToolSpec = tuple[Callable[..., Any], str, ToolAnnotations, str]
"""A tool function, its title, its annotations and the description an LLM reads."""


class TextTool(Tool):
    """A tool that refuses, before anything runs (even a question to the human), an argument
    holding a string that is not storable text: a NUL character or a lone surrogate, wherever
    it is (content, a tag, a metadata key, a where expression)."""

    async def run(
        self, arguments: dict[str, Any], context: Any, convert_result: bool = False
    ) -> Any:
        for name, value in arguments.items():
            problem = text_problem(value, name)
            if problem is not None:
                raise ToolError(f"Error executing tool {self.name}: {problem}")
        return await super().run(arguments, context, convert_result)


def strict_tools(specs: Sequence[ToolSpec]) -> list[Tool]:
    """Tools from their functions, each refusing arguments it does not declare and strings
    that are not text."""
    return [
        forbid_unknown_arguments(
            TextTool.from_function(fn, title=title, description=text, annotations=annotations)
        )
        for fn, title, annotations, text in specs
    ]


@contextmanager
def tool_errors() -> Iterator[None]:
    """lethe's own errors become tool errors with their message and hint; the server lives."""
    try:
        yield
    except LetheError as exc:
        raise ToolError(str(exc)) from None
    except TimeoutError as exc:
        raise ToolError(str(exc)) from None
