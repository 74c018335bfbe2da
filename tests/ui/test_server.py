"""The inspector's server side, over real HTTP to a `lethe ui` process: what it refuses
(cross-site, tokenless, foreign Host, bad input) leaves the store as it was, and a stale plan
is refused with a fresh one."""

from __future__ import annotations

import html
import re
import subprocess
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from tests.backends import both_stores, live_ids, snapshot
from tests.mcp_support import LETHE, free_port
from tests.ui_support import Visitor, plan_id, ui_server


@pytest.fixture
def seeded(db: str, embedder: Embedder) -> dict[str, str]:
    with Lethe.open(db, embedder=embedder) as mem:
        home = mem.remember("User lives in San Francisco", tags=["home"]).id
        wine = mem.remember("User loves California wine").id
    return {"home": home, "wine": wine}


def test_changes_need_the_csrf_field_and_the_own_origin(db: str, seeded: dict[str, str]) -> None:
    home = seeded["home"]
    before = snapshot(db)
    with ui_server(db) as url:
        me = Visitor(url)
        token = me.csrf
        form = {"memory_id": home, "namespace": "default"}
        stranger = Visitor(url)  # never loaded a page: no cookie to copy
        refusals = [
            me.post("/forget/plan", form),  # no field
            me.post("/forget/plan", form | {"csrf": "x" * len(token)}),  # wrong field
            stranger.post("/forget/plan", form | {"csrf": token}),  # field without the cookie
            me.post("/forget/plan", form | {"csrf": token}, Origin="http://evil.example"),
            me.post(f"/trash/{home}/restore", {}),
            me.post(f"/memories/{home}/edit", {"importance": "0.1"}),
        ]
        assert [r.status for r in refusals] == [403] * 6
        assert "CSRF check failed" in refusals[0].body
        assert "cross-site request refused" in refusals[3].body
        assert me.get("/plans/plan_000000000000/execute").status == 405
        assert snapshot(db) == before, "a refused request changes nothing"
        made = me.post("/forget/plan", form | {"csrf": token}, Origin=url.rstrip("/"))
        assert made.status == 200 and "Confirm forget" in made.body
        assert home in live_ids(db), "a plan deletes nothing"
        done = me.post(f"/plans/{plan_id(made.body)}/execute", {"csrf": token})
        assert done.status == 200 and home not in live_ids(db)
        again = me.post(f"/plans/{plan_id(made.body)}/execute", {"csrf": token})
        assert again.status == 400 and "no longer waiting" in again.body


def test_pages_are_private_to_this_machine_and_script_free(db: str, seeded: dict[str, str]) -> None:
    with ui_server(db) as url:
        me = Visitor(url)
        page = me.get("/memories")
        assert page.status == 200 and seeded["home"] in page.body
        policy = page.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        assert "samesite=strict" in page.headers["set-cookie"].lower()
        port = urlsplit(url).port
        for host in (
            "attacker.example",
            f"127.0.0.1:{port}.attacker.example",
            f"127.0.0.1:{port}@attacker.example",
            "localhost:1",
        ):
            assert Visitor(url, host=host).get("/memories").status == 421, host
        assert Visitor(url, host=f"localhost:{port}").get("/memories").status == 200


def test_a_non_loopback_address_needs_a_token(db: str, seeded: dict[str, str]) -> None:
    refused = subprocess.run(
        [LETHE, "ui", "--db", db, "--host", "0.0.0.0", "--port", str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 1
    assert refused.stderr.startswith("error: refusing to serve 0.0.0.0 without a token")
    secret = "s3cret-token-for-the-test"
    with ui_server(db, "--token", secret, host="0.0.0.0") as url:
        assert url.endswith(f"/?token={secret}")
        base = url.split("?")[0].replace("0.0.0.0", "127.0.0.1")
        anyone = Visitor(base)
        for path in ("/memories", "/trash", "/audit", f"/memories/{seeded['home']}"):
            denied = anyone.get(path)
            assert denied.status == 401 and seeded["home"] not in denied.body
        assert anyone.get("/memories?token=wrong-token-of-the-same-len").status == 401
        owner = Visitor(base)
        welcome = owner.get(f"/memories?token={secret}&namespace=default")
        assert (
            welcome.status == 303 and welcome.headers["location"] == "/memories?namespace=default"
        )
        assert owner.get("/memories").status == 200, "the token now travels as a cookie"
        bearer = anyone.get("/memories", Authorization=f"Bearer {secret}")
        assert bearer.status == 200 and seeded["home"] in bearer.body
        token = owner.csrf
        made = owner.post("/forget/plan", {"memory_id": seeded["wine"], "csrf": token})
        assert made.status == 200
        assert anyone.post(f"/plans/{plan_id(made.body)}/execute", {"csrf": token}).status == 401
        assert seeded["wine"] in live_ids(db)


def test_bad_input_is_explained_and_changes_nothing(db: str, seeded: dict[str, str]) -> None:
    home = seeded["home"]
    before = snapshot(db)
    with ui_server(db) as url:
        me = Visitor(url)
        token = me.csrf
        cases = [
            (
                me.post(f"/memories/{home}/edit", {"csrf": token, "importance": "abc"}),
                400,
                "importance must be a number from 0 to 1",
            ),
            (
                me.post(f"/memories/{home}/edit", {"csrf": token, "importance": "1.5"}),
                400,
                "importance",
            ),
            (
                me.post("/forget/plan", {"csrf": token, "memory_id": "mem_nothex"}),
                400,
                "mem_nothex",
            ),
            (
                me.post("/forget/plan", {"csrf": token, "memory_id": home, "operation": "shred"}),
                400,
                "operation must be forget or purge",
            ),
            (me.get("/memories?since=yesterday"), 400, "since must be a day like 2026-11-23"),
            (me.get("/memories?layer=dream"), 400, "unknown layer"),
            (me.get("/memories?where=%40metadata.x+%3F%3F+1"), 400, ""),
            (me.get("/memories?page=0"), 400, "page must be a whole number"),
            (me.get("/audit?before=-3"), 400, "before must be a whole number"),
            (me.get("/memories/mem_000000000000"), 404, "Memory not found"),
            (me.post(f"/trash/{home}/restore", {"csrf": token}), 404, "is not in the trash"),
        ]
        for answer, status, text in cases:
            assert answer.status == status, answer.body
            assert text in answer.body and "Traceback" not in answer.body
    assert snapshot(db) == before


def test_a_stale_plan_is_refused_with_a_fresh_one(
    db: str, seeded: dict[str, str], embedder: Embedder
) -> None:
    home = seeded["home"]
    with ui_server(db) as url:
        me = Visitor(url)
        token = me.csrf
        first = me.post("/forget/plan", {"csrf": token, "memory_id": home})
        with Lethe.open(db, embedder=embedder) as mem:  # another process edits it meanwhile
            mem.update(home, content="User lives in Oakland now")
        refused = me.post(f"/plans/{plan_id(first.body)}/execute", {"csrf": token})
        assert refused.status == 200 and "changed since the preview" in refused.body
        assert "User lives in Oakland now" in refused.body and home in live_ids(db)
        fresh = plan_id(refused.body)
        assert fresh != plan_id(first.body)
        done = me.post(f"/plans/{fresh}/execute", {"csrf": token})
        assert done.status == 200 and "Forgotten" in done.body and home not in live_ids(db)


def test_a_sweep_runs_from_the_page_only_under_auto(db: str, embedder: Embedder) -> None:
    old = datetime.now(UTC) - timedelta(days=200)
    with Lethe.open(db, embedder=embedder, clock=lambda: old) as mem:
        stale = mem.remember("User once owned a red bicycle").id
    with ui_server(db) as url:  # the default policy: suggest
        me = Visitor(url)
        page = me.get("/decay")
        assert page.status == 200 and stale in page.body and "Run the sweep" in page.body
        assert "/execute" not in page.body, "no sweep form under suggest"
        refused = me.post("/decay/sweep_000000000000/execute", {"csrf": me.csrf, "confirm": "yes"})
        assert refused.status == 400
        assert "the decay policy is 'suggest'" in html.unescape(refused.body)
        assert stale in live_ids(db)
    with ui_server(db, env={"LETHE_DECAY_POLICY": "auto"}) as url:
        me = Visitor(url)
        page = me.get("/decay")
        found = re.search(r"/decay/(sweep_[0-9a-f]+)/execute", page.body)
        assert found, "a sweep form under auto"
        unticked = me.post(found.group(0), {"csrf": me.csrf})
        assert unticked.status == 400 and stale in live_ids(db)
        done = me.post(found.group(0), {"csrf": me.csrf, "confirm": "yes"})
        assert done.status == 200 and "Sweep done" in done.body
        assert stale not in live_ids(db)
        assert stale in me.get("/trash").body


def test_plans_show_what_is_protected_and_previews_delete_nothing(
    db: str, seeded: dict[str, str], embedder: Embedder
) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        caveat = mem.remember("Never share the user's address", layer="caveat").id
    before = snapshot(db)
    with ui_server(db) as url:
        me = Visitor(url)
        plan = me.post("/forget/plan", {"csrf": me.csrf, "memory_id": caveat})
        page = html.unescape(plan.body)
        assert plan.status == 200 and "Protected, so kept" in page
        assert "caveat" in page and "Confirm forget" not in page
        preview = me.get("/forget/preview?q=where+does+the+user+live")
        text = html.unescape(preview.body)
        assert preview.status == 200 and seeded["home"] in text
        assert "would be forgotten" in text and re.search(r"\b0\.\d{3}\b", text), "similarities"
        assert "be forgotten" in text and "/execute" not in text, "a preview has no confirm"
    assert snapshot(db) == before


def test_the_preview_shows_an_edit_of_a_memory_holding_two_facts(
    db: str, embedder: Embedder
) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        both = mem.remember("The user takes sertraline and is allergic to penicillin.").id
        mem.remember("Tom takes sertraline.")
    before = snapshot(db)
    with ui_server(db) as url:
        preview = Visitor(url).get("/forget/preview?q=forget+that+I+take+sertraline")
        text = html.unescape(preview.body)
        assert preview.status == 200 and both in text
        assert "be edited" in text and "[-takes sertraline and-]" in text
    assert snapshot(db) == before


@both_stores
def test_edit_purge_and_pending_from_the_pages(
    db: str, seeded: dict[str, str], embedder: Embedder
) -> None:
    home, wine = seeded["home"], seeded["wine"]
    with Lethe.open(db, embedder=embedder) as mem:
        mem.execute(mem.plan_forget(wine, reason="not true"))
        mem.forget(home, session="claude-desktop-1")
        mem.ask(mem.plan_forget(home), session="cursor-2")
    with ui_server(db) as url:
        me = Visitor(url)
        saved = me.post(
            f"/memories/{home}/edit", {"csrf": me.csrf, "importance": "0.8", "tags": "home, city"}
        )
        assert saved.status == 303 and saved.headers["location"] == f"/memories/{home}?notice=saved"
        pending = html.unescape(me.get("/pending").body)
        assert "two-call" in pending and "claude-desktop-1" in pending
        assert "elicitation" in pending and "cursor-2" in pending
        # expiry in 5 min from the request: how many whole minutes are left depends on how
        # long the server took to start on this machine, never more than 4
        assert re.search(r"in [0-4] min", pending), pending
        trash = html.unescape(me.get("/trash").body)
        assert wine in trash and "not true" in trash
        assert re.search(r"29 d (2[0-3]|1\d) h", trash), "purged after 30 days, less the wait"
        plan = me.post("/forget/plan", {"csrf": me.csrf, "memory_id": wine, "operation": "purge"})
        assert "I understand this cannot be undone" in plan.body
        unticked = me.post(f"/plans/{plan_id(plan.body)}/execute", {"csrf": me.csrf})
        assert unticked.status == 400 and wine in me.get("/trash").body
        erased = me.post(
            f"/plans/{plan_id(plan.body)}/execute", {"csrf": me.csrf, "understood": "yes"}
        )
        assert erased.status == 200 and "Erased" in erased.body
        assert wine not in me.get("/trash").body
        ops = html.unescape(me.get("/audit?agent=inspector").body)
        assert ">purge<" in ops and ">update<" in ops
    with Lethe.open(db, embedder=embedder) as mem:
        edited = mem.get(home)
        assert edited.importance == 0.8 and set(edited.tags) == {"home", "city"}
        assert wine not in {m.id for m in mem.list_trash()[0]}
