"""The tool list a local client is shown, known before the MCP SDK has loaded.

A client lists the tools right after `initialize`, and importing the SDK and registering
lethe's tools takes longer than a minimal server needs to answer both (docs/design.md, "Early
answers"). The list a stdio client is shown depends only on the profile and `--allow-purge`
(a stdio client acts for the local user, who holds every role), so `lethe.mcp.stdio` answers
it from `tools.json`: every tool as the SDK lists it, written by `python -m lethe.mcp.listing`
from the SDK's own answer. tests/mcp/test_listing.py holds the two equal for every protocol
version and profile, so a tool changed without writing the file fails there, not in a client.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lethe.mcp.access import LOCAL
from lethe.mcp.profiles import PURGE_ONLY, TOOLS, Profile

LISTING = Path(__file__).with_name("tools.json")


def local_listing(profile: Profile, *, allow_purge: bool) -> list[dict[str, Any]]:
    """The tools, in wire form and listing order, that `tools/list` shows a local client of a
    server started with this profile, before any forget mode."""
    every: dict[str, dict[str, Any]] = {t["name"]: t for t in json.loads(LISTING.read_bytes())}
    return [
        every[name]
        for name in TOOLS
        if name in every
        and (allow_purge or name != PURGE_ONLY)
        and profile.hidden_because(name, LOCAL, forget_mode=False) is None
    ]


def sdk_listing() -> list[dict[str, Any]]:
    """Every tool as the SDK lists it (wire form, listing order), purge included."""
    import asyncio

    from mcp import Client

    from lethe.mcp.loader import EngineLoader
    from lethe.mcp.profiles import FULL_PROFILE
    from lethe.mcp.runtime import Runtime
    from lethe.mcp.server import build_server

    def no_engine() -> Any:
        raise RuntimeError("listing the tools needs no engine")

    runtime = Runtime(loader=EngineLoader(no_engine), allow_purge=True, profile=FULL_PROFILE)
    server = build_server(runtime)

    async def listed() -> list[dict[str, Any]]:
        async with Client(server) as client:
            result = await client.list_tools()
        return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in result.tools]

    return asyncio.run(listed())


def write() -> None:
    """Write `tools.json` from the SDK's own listing (after a tool was changed)."""
    text = json.dumps(sdk_listing(), indent=1, ensure_ascii=False, sort_keys=True)
    LISTING.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    write()
    print(f"wrote {LISTING}")
