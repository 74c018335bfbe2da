"""MCP `remember` with `expires_at` / `expires_in` (issue 25), through a real client over
stdio: the expiry is set and returned, and a bad value is refused with nothing stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import snapshot
from .mcp_support import call, error, stdio_client

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_remember_with_an_expiry_over_stdio(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    async with stdio_client(db) as client:
        made = await call(
            client, "remember", content="The hotel door code is 4471", expires_in="7d"
        )
        memory = made["memory"]
        assert memory["expires_at"] is not None
        before = snapshot(db)
        for bad, says in (
            ({"expires_in": "3 months"}, "months and years"),
            ({"expires_at": "2020-01-01"}, "not in the future"),
            ({"expires_at": "2099-01-01", "expires_in": "1d"}, "not both"),
        ):
            assert says in await error(client, "remember", content="Parking level 3", **bad)
            assert snapshot(db) == before
        got = await call(client, "get_memory", memory_id=memory["id"])
        assert got["memory"]["expires_at"] == memory["expires_at"]
