"""The inspector shows the signed receipts of past purges on the audit page, newest first,
and hands each out as the JSON that was signed (issue 27); a purge confirmed in the
inspector links its receipt. Over real HTTP to a `lethe ui` process."""

from __future__ import annotations

import html
import json
import re

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.erasure.signing import signature_holds
from tests.backends import sqlite_only
from tests.ui_support import Visitor, plan_id, ui_server

SECRET = "User's locker combination is 31-07-44 at the Marlowe gym"
OTHER = "User's bike lock code is 5519 behind the Quillon bakery"
WORDS = ("locker", "combination", "31-07-44", "Marlowe", "5519", "Quillon", "bakery")

_IDS = re.compile(
    r"\b(?:rcpt|mem|ep|chg|plan|sweep)_[0-9a-f]+\b|[0-9a-f]{16,}|[A-Za-z0-9+/=_-]{40,}"
)


def outside_ids(text: str) -> str:
    """The text without ids, digests and signatures: random hex can hold '5519' by chance
    (a receipt id rcpt_6c98551943491341 did once), which is no trace of the erased text."""
    return _IDS.sub(" ", text).lower()


def test_the_audit_page_lists_receipts_and_each_downloads_as_signed(
    db: str, embedder: Embedder
) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        first = mem.remember(SECRET).id
        second = mem.remember(OTHER).id
        mem.remember("User tried a pottery class on a rainy afternoon")
        done = mem.execute(mem.plan_purge([first]), actor="ops-desk")
        assert done.receipt is not None
        earlier = done.receipt
    with ui_server(db) as url:
        me = Visitor(url)
        plan = me.post("/forget/plan", {"csrf": me.csrf, "memory_id": second, "operation": "purge"})
        erased = me.post(
            f"/plans/{plan_id(plan.body)}/execute", {"csrf": me.csrf, "understood": "yes"}
        )
        assert erased.status == 200 and "<h1>Erased</h1>" in erased.body
        linked = re.search(r'href="/receipts/(rcpt_[0-9a-f]{16})\.json"', erased.body)
        assert linked, "the result of a purge links its receipt"
        later = linked.group(1)
        page = me.get("/audit")
        assert page.status == 200
        listed = re.findall(r'href="/receipts/(rcpt_[0-9a-f]{16})\.json"', page.body)
        assert listed == [later, earlier["receipt_id"]], "newest first"
        shown = html.unescape(page.body)
        assert "ops-desk via plan" in shown and "inspector via inspector" in shown
        assert first in shown and second in shown and "memory rows 1" in shown
        for word in WORDS:
            assert word.lower() not in outside_ids(shown), f"the audit page shows {word!r}"
        got = me.get(f"/receipts/{earlier['receipt_id']}.json")
        assert got.status == 200 and got.headers["content-type"].startswith("application/json")
        assert got.headers["content-disposition"] == (
            f'attachment; filename="{earlier["receipt_id"]}.json"'
        )
        assert json.loads(got.body) == earlier, "the download is the receipt the purge returned"
        assert signature_holds(json.loads(got.body))
        theirs = json.loads(me.get(f"/receipts/{later}.json").body)
        assert signature_holds(theirs) and [m["id"] for m in theirs["memories"]] == [second]
        assert theirs["confirmed"] == {"by": "inspector", "via": "inspector", "session": None}
        for word in WORDS:
            assert word.lower() not in outside_ids(json.dumps(theirs, ensure_ascii=False))
        assert me.get("/receipts/rcpt_0000000000000000.json").status == 404
        for wrong in ("rcpt_..%2F..%2Fx", "RCPT_0000000000000000", "rcpt_1", "x'%20OR%20'1'='1"):
            assert me.get(f"/receipts/{wrong}.json").status == 404, wrong
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.verify_receipt(theirs) == []


@sqlite_only
def test_the_receipts_table_escapes_what_a_receipt_holds(db: str, embedder: Embedder) -> None:
    """A receipt is data from the store: whatever it holds is shown as text, never markup."""
    with Lethe.open(db, embedder=embedder) as mem:
        real = mem.execute(mem.plan_purge([mem.remember(SECRET).id])).receipt
        assert real is not None
        forged = {
            **real,
            "receipt_id": "rcpt_00000000000000ff",
            "status": "incomplete",
            "confirmed": {"by": "<script>alert(1)</script>", "via": "<i>x</i>", "session": None},
            "memories": [{"id": '<img src=x onerror="alert(2)">'}],
            "places": [{"place": "<u>rows</u>", "count": 1, "how": "deleted"}],
        }
        mem.store.save_receipt(forged)
    with ui_server(db) as url:
        page = Visitor(url).get("/audit")
    assert page.status == 200
    for markup in ("<script>alert(1)", "<img src=x", "<i>x</i>", "<u>rows"):
        assert markup not in page.body, markup
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.body
    assert "&lt;u&gt;rows&lt;/u&gt; 1" in page.body and 'class="receipt-incomplete"' in page.body


@sqlite_only
def test_a_purge_without_its_receipt_is_listed_with_no_link(db: str, embedder: Embedder) -> None:
    """A purge whose cleanup died after its commit, on a store no open could sign for (its key
    readable by others): the page lists the purge, and links no receipt that is not there."""
    with Lethe.open(db, embedder=embedder) as mem:
        memory_id = mem.remember(SECRET).id
        key = mem.store.signing_key_path()

        def died() -> bool:
            raise RuntimeError("the cleanup died")

        mem.store.compact = died  # type: ignore[method-assign]
        with pytest.raises(RuntimeError):
            mem.execute(mem.plan_purge([memory_id]))
    key.chmod(0o644)
    with ui_server(db) as url:
        page = Visitor(url).get("/audit")
    assert page.status == 200
    assert "no receipt: interrupted" in page.body and memory_id in page.body
    assert "/receipts/.json" not in page.body and "/receipts/None.json" not in page.body
