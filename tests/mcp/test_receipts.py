"""Over MCP, a purge returns its signed erasure receipt as structured output (issue 27): the
signature holds, the receipt lists the purged id and holds none of its words, and a receipt
whose scan found traces is reported without claiming erasure (a real client over stdio,
confirmed by elicitation and by the two-call rule)."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import anyio
import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.erasure.signing import signature_holds
from tests.backends import both_stores, sqlite_only
from tests.mcp_support import elicitation, stdio_client, text

SECRET = "User's locker combination is 31-07-44 at the Marlowe gym"
WORDS = ("locker", "combination", "31-07-44", "Marlowe")


def _seed(db: str, embedder: Embedder) -> str:
    with Lethe.open(db, embedder=embedder) as mem:
        mem.remember("User tried a pottery class on a rainy afternoon")
        return mem.remember(SECRET).id


def _holds_no_words(receipt: dict[str, Any]) -> None:
    dumped = json.dumps(receipt, ensure_ascii=False).lower()
    for word in WORDS:
        assert word.lower() not in dumped, f"the receipt holds {word!r}"


async def _purge(client: Any, memory_id: str) -> tuple[dict[str, Any], str]:
    result = await client.call_tool("purge", {"memory_ids": [memory_id]})
    assert not result.is_error, text(result)
    assert result.structured_content is not None
    return result.structured_content, text(result)


@both_stores
def test_a_purge_confirmed_by_elicitation_returns_its_signed_receipt(
    db: str, embedder: Embedder
) -> None:
    secret = _seed(db, embedder)
    yes = elicitation("accept")
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        async with stdio_client(db, "--allow-purge", elicit=yes) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "receipt" in (tools["purge"].description or "")
            schema = tools["purge"].output_schema or {}
            assert "receipt" in schema["properties"]
            seen["out"], seen["text"] = await _purge(client, secret)

    anyio.run(scenario)
    out, said = seen["out"], seen["text"]
    assert out["status"] == "executed" and out["deleted_ids"] == [secret]
    receipt = out["receipt"]
    assert isinstance(receipt, dict) and signature_holds(receipt)
    assert receipt["status"] == "erased" and receipt["operation"] == "purge"
    assert [m["id"] for m in receipt["memories"]] == [secret]
    assert receipt["confirmed"]["via"] == "elicitation"
    _holds_no_words(receipt)
    assert f"receipt: {receipt['receipt_id']} (status erased" in said
    assert "Erased for good" in said
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.receipt(receipt["receipt_id"]) == receipt, "the store keeps the same receipt"
        assert mem.verify_receipt(receipt) == []


@pytest.mark.slow
def test_a_two_call_purge_returns_its_receipt_on_the_confirming_call(
    db: str, embedder: Embedder
) -> None:
    secret = _seed(db, embedder)
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        async with stdio_client(db, "--allow-purge") as client:
            seen["first"], _ = await _purge(client, secret)
            seen["done"], seen["text"] = await _purge(client, secret)

    anyio.run(scenario)
    first, done = seen["first"], seen["done"]
    assert first["status"] == "pending" and first["receipt"] is None, "nothing erased yet"
    receipt = done["receipt"]
    assert done["deleted_ids"] == [secret] and signature_holds(receipt)
    assert receipt["status"] == "erased" and receipt["confirmed"]["via"] == "two_call"
    assert secret in {m["id"] for m in receipt["memories"]}
    _holds_no_words(receipt)
    assert receipt["receipt_id"] in seen["text"]
    tampered = {**receipt, "memories": [{**receipt["memories"][0], "id": "mem_000000000000"}]}
    assert not signature_holds(tampered), "the signature covers the ids"


@pytest.mark.slow
@sqlite_only
def test_an_incomplete_receipt_is_not_reported_as_an_erasure(db: str, embedder: Embedder) -> None:
    """Another process reading the database holds the old pages: the write-ahead log cannot
    be emptied, so the erased words stay in the file. The rows are deleted, the receipt says
    `incomplete`, and the answer never says erased."""
    secret = _seed(db, embedder)
    reader = sqlite3.connect(db, isolation_level=None)
    seen: dict[str, Any] = {}

    async def scenario() -> None:
        async with stdio_client(db, "--allow-purge") as client:
            await _purge(client, secret)
            seen["out"], seen["text"] = await _purge(client, secret)

    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM memories").fetchone()  # holds its snapshot
        anyio.run(scenario)
    finally:
        reader.close()
    out, said = seen["out"], seen["text"]
    receipt = out["receipt"]
    assert out["deleted_ids"] == [secret] and signature_holds(receipt)
    assert receipt["status"] == "incomplete" and receipt["scan"]["remaining"], receipt["scan"]
    _holds_no_words(receipt)
    claims = ("Erased 1", f"Erased {secret}", "Erased for good", "none of the erased words")
    assert not [c for c in claims if c in said], said
    assert "NOT proven" in said and "Do not tell the user it is erased" in said
    assert f"receipt: {receipt['receipt_id']} (status incomplete" in said
