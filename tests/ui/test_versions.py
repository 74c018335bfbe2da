"""A memory's history in the inspector, over real HTTP to a `lethe ui` process (on SQLite and
PostgreSQL): every version is shown newest first; a revert is always a plan first, behind the
CSRF check, executed only on confirm and never when the memory changed since; lowering a pin
from the edit form asks first; an old version's markup stays text."""

from __future__ import annotations

import html
import re
import time

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from tests.backends import both_stores, live_ids, snapshot
from tests.ui_support import Visitor, change_id, ui_server

XSS = 'Old note <script>window.pwned = 1</script> <img src=x onerror="window.pwned = 2">'


@pytest.fixture
def drink(db: str, embedder: Embedder) -> str:
    """A memory with three versions: tea (v1), coffee with a reason (v2), tags added (v3)."""
    with Lethe.open(db, embedder=embedder) as mem:
        memory_id = mem.remember("User drinks green tea every morning", tags=["drinks"]).id
        mem.update(
            memory_id, content="User drinks black coffee every morning", reason="switched in May"
        )
        mem.update(memory_id, tags=["drinks", "morning"], actor="claude")
    return memory_id


def versions_shown(page: str) -> list[int]:
    return [int(v) for v in re.findall(r'<tr data-version="(\d+)"', page)]


def test_the_history_shows_every_version_newest_first(db: str, drink: str) -> None:
    with ui_server(db) as url:
        page = Visitor(url).get(f"/memories/{drink}")
    assert page.status == 200
    body = html.unescape(page.body)
    assert versions_shown(page.body) == [3, 2, 1]
    assert "History (3 versions)" in body
    rows = body.split('<tr data-version="')[1:]
    assert 'class="current"' in rows[0] and "current</span>" in rows[0]
    assert all("current" not in r for r in rows[1:]), "one current version"
    assert "claude" in rows[0] and "tags: drinks → drinks, morning" in rows[0]
    assert "User drinks black coffee" in rows[1] and "switched in May" in rows[1]
    assert "<li>content</li>" in rows[1] and ">update<" in rows[1]
    assert "green tea" in rows[2] and ">remember<" in rows[2] and "first stored" in rows[2]
    assert "Revert to version" not in rows[0], "the current version has no revert"
    assert "Revert to version 2…" in rows[1] and "Revert to version 1…" in rows[2]


def test_a_revert_needs_the_csrf_field_and_changes_nothing_without_it(db: str, drink: str) -> None:
    before = snapshot(db)
    with ui_server(db) as url:
        me = Visitor(url)
        token = me.csrf
        stranger = Visitor(url)
        form = {"version": "1"}
        refusals = [
            me.post(f"/memories/{drink}/revert", form),
            me.post(f"/memories/{drink}/revert", form | {"csrf": "x" * len(token)}),
            stranger.post(f"/memories/{drink}/revert", form | {"csrf": token}),
            me.post(
                f"/memories/{drink}/revert", form | {"csrf": token}, Origin="http://evil.example"
            ),
        ]
        assert [r.status for r in refusals] == [403] * 4
        assert "CSRF check failed" in refusals[0].body and "/changes/" not in refusals[0].body
        planned = me.post(f"/memories/{drink}/revert", form | {"csrf": token})
        assert planned.status == 200 and "Confirm revert" in planned.body
        held = change_id(planned.body)
        for answer in (
            me.post(f"/changes/{held}/execute", {}),
            me.post(f"/changes/{held}/execute", {"csrf": "x" * len(token)}),
            stranger.post(f"/changes/{held}/execute", {"csrf": token}),
            me.post(f"/changes/{held}/cancel", {"csrf": "wrong"}),
        ):
            assert answer.status == 403
        assert me.get(f"/changes/{held}/execute").status == 405
        assert snapshot(db) == before, "a plan and refused confirms change nothing"
        done = me.post(f"/changes/{held}/execute", {"csrf": token})
        assert done.status == 303, "the held plan survived the refusals"
    assert snapshot(db) != before


@both_stores
def test_revert_confirm_makes_a_new_version_and_cancel_changes_nothing(
    db: str, drink: str, embedder: Embedder
) -> None:
    before = snapshot(db)
    with ui_server(db) as url:
        me = Visitor(url)
        planned = me.post(f"/memories/{drink}/revert", {"csrf": me.csrf, "version": "1"})
        page = html.unescape(planned.body)
        assert planned.status == 200 and "Revert to version 1?" in page
        assert '<tr data-field="content">' in page and '<tr data-field="tags">' in page
        assert "User drinks black coffee every morning" in page, "what it is now"
        assert "User drinks green tea every morning" in page, "what it would be"
        assert "Protection lost" not in page
        cancelled = me.post(f"/changes/{change_id(planned.body)}/cancel", {"csrf": me.csrf})
        assert cancelled.status == 303
        assert cancelled.headers["location"] == f"/memories/{drink}?notice=cancelled"
        assert snapshot(db) == before, "cancel changes nothing"
        gone = me.post(f"/changes/{change_id(planned.body)}/execute", {"csrf": me.csrf})
        assert gone.status == 400 and "no longer waiting" in gone.body
        assert snapshot(db) == before
        again = me.post(f"/memories/{drink}/revert", {"csrf": me.csrf, "version": "1"})
        done = me.post(f"/changes/{change_id(again.body)}/execute", {"csrf": me.csrf})
        assert done.status == 303
        assert done.headers["location"] == f"/memories/{drink}?notice=reverted"
        shown = me.get(done.headers["location"])
        assert "that version is current again" in shown.body
        assert versions_shown(shown.body) == [4, 3, 2, 1]
        twice = me.post(f"/changes/{change_id(again.body)}/execute", {"csrf": me.csrf})
        assert twice.status == 400, "a confirmed plan does not run twice"
    with Lethe.open(db, embedder=embedder) as mem:
        now = mem.get(drink)
        assert now.content == "User drinks green tea every morning" and now.version == 4
        assert list(now.tags) == ["drinks"]
        history = mem.history(drink)
        assert [(v.version, v.op, v.actor) for v in history[:2]] == [
            (4, "revert", "inspector"),
            (3, "update", "claude"),
        ]
        assert history[2].content == "User drinks black coffee every morning", "kept"
        event = mem.audit(memory_id=drink, op="revert")[-1]
        assert event.actor == "inspector" and event.details["reverted_to"] == 1


def test_lowering_a_pin_asks_first_and_nothing_changes_until_confirmed(
    db: str, embedder: Embedder
) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        pinned = mem.remember("User's passport number is X1234567", importance=0.95).id
        plain = mem.remember("User watched a film on Friday", importance=0.4).id
    before = snapshot(db)
    with ui_server(db) as url:
        me = Visitor(url)
        asked = me.post(
            f"/memories/{pinned}/edit", {"csrf": me.csrf, "importance": "0.5", "tags": ""}
        )
        page = html.unescape(asked.body)
        assert asked.status == 200 and "Change this memory?" in page
        assert "Protection lost: pinned" in page and 'class="danger"' in page
        assert re.search(
            r'data-field="importance">\s*<th[^>]*>importance</th>\s*'
            r'<td class="old">0.95</td><td class="new">0.5</td>',
            page,
        )
        assert snapshot(db) == before, "asking changes nothing"
        cancelled = me.post(f"/changes/{change_id(asked.body)}/cancel", {"csrf": me.csrf})
        assert cancelled.status == 303 and snapshot(db) == before
        asked = me.post(
            f"/memories/{pinned}/edit", {"csrf": me.csrf, "importance": "0.5", "tags": ""}
        )
        done = me.post(f"/changes/{change_id(asked.body)}/execute", {"csrf": me.csrf})
        assert done.status == 303
        assert done.headers["location"] == f"/memories/{pinned}?notice=changed"
        # An unprotected edit is made at once, as a new version.
        saved = me.post(
            f"/memories/{plain}/edit", {"csrf": me.csrf, "importance": "0.6", "tags": "film"}
        )
        assert saved.status == 303
        assert saved.headers["location"] == f"/memories/{plain}?notice=saved"
        same = me.post(
            f"/memories/{plain}/edit", {"csrf": me.csrf, "importance": "0.6", "tags": "film"}
        )
        assert same.headers["location"] == f"/memories/{plain}?notice=unchanged"
    with Lethe.open(db, embedder=embedder) as mem:
        lowered = mem.get(pinned)
        assert lowered.importance == 0.5 and lowered.version == 2
        assert mem.history(pinned)[1].importance == 0.95, "the pinned state is kept"
        event = mem.audit(memory_id=pinned, op="update")[-1]
        assert event.actor == "inspector" and event.details["confirmed"] == "inspector"
        assert event.details["protected_before"] and not event.details["protected_after"]
        edited = mem.get(plain)
        assert edited.importance == 0.6 and list(edited.tags) == ["film"]
        assert edited.version == 2


def test_the_text_of_a_protected_memory_is_reverted_only_on_confirm(
    db: str, embedder: Embedder
) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        caveat = mem.remember("Never book flights before 9am", layer="caveat").id
        mem.execute(mem.plan_update(caveat, content="Never book flights before 10am"))
    before = snapshot(db)
    with ui_server(db) as url:
        me = Visitor(url)
        asked = me.post(f"/memories/{caveat}/revert", {"csrf": me.csrf, "version": "1"})
        page = html.unescape(asked.body)
        assert asked.status == 200 and "its text would change" in page
        assert 'class="danger"' in page and "Confirm revert" in page
        assert snapshot(db) == before
        done = me.post(f"/changes/{change_id(asked.body)}/execute", {"csrf": me.csrf})
        assert done.status == 303
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.get(caveat).content == "Never book flights before 9am"
        event = mem.audit(memory_id=caveat, op="revert")[-1]
        assert event.details["confirmed"] == "inspector"


def test_a_stale_change_is_refused_with_a_fresh_plan(
    db: str, drink: str, embedder: Embedder
) -> None:
    with ui_server(db) as url:
        me = Visitor(url)
        first = me.post(f"/memories/{drink}/revert", {"csrf": me.csrf, "version": "1"})
        with Lethe.open(db, embedder=embedder) as mem:  # another process edits it meanwhile
            mem.update(drink, content="User drinks oat latte every morning")
        edited = snapshot(db)
        refused = me.post(f"/changes/{change_id(first.body)}/execute", {"csrf": me.csrf})
        page = html.unescape(refused.body)
        assert refused.status == 409
        assert "Nothing was changed" in page and "changed since this change was planned" in page
        assert "User drinks oat latte every morning" in page, "the fresh plan starts from now"
        assert snapshot(db) == edited, "a stale plan never executes"
        fresh = change_id(refused.body)
        assert fresh != change_id(first.body)
        done = me.post(f"/changes/{fresh}/execute", {"csrf": me.csrf})
        assert done.status == 303
    with Lethe.open(db, embedder=embedder) as mem:
        now = mem.get(drink)
        assert now.content == "User drinks green tea every morning" and now.version == 5
        assert "User drinks oat latte every morning" in {v.content for v in mem.history(drink)}


def test_a_stale_pin_change_is_refused_too(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        pinned = mem.remember("User's bank is Northwind", importance=0.95).id
    with ui_server(db) as url:
        me = Visitor(url)
        asked = me.post(
            f"/memories/{pinned}/edit", {"csrf": me.csrf, "importance": "0.3", "tags": ""}
        )
        with Lethe.open(db, embedder=embedder) as mem:
            mem.update(pinned, tags=["finance"])
        edited = snapshot(db)
        refused = me.post(f"/changes/{change_id(asked.body)}/execute", {"csrf": me.csrf})
        assert refused.status == 409 and "Protection lost: pinned" in html.unescape(refused.body)
        assert snapshot(db) == edited
        me.post(f"/changes/{change_id(refused.body)}/execute", {"csrf": me.csrf})
    with Lethe.open(db, embedder=embedder) as mem:
        now = mem.get(pinned)
        assert now.importance == 0.3 and list(now.tags) == ["finance"], "the other edit kept"


@pytest.mark.slow
def test_an_expired_protected_change_is_refused_with_a_fresh_plan(
    db: str, embedder: Embedder
) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        pinned = mem.remember("User's blood type is O negative", importance=0.95).id
    with ui_server(db, env={"LETHE_CONFIRM_TTL_SECONDS": "3"}) as url:
        me = Visitor(url)
        asked = me.post(
            f"/memories/{pinned}/edit", {"csrf": me.csrf, "importance": "0.2", "tags": ""}
        )
        before = snapshot(db)
        time.sleep(3.5)
        refused = me.post(f"/changes/{change_id(asked.body)}/execute", {"csrf": me.csrf})
        assert refused.status == 409 and "expired" in refused.body
        assert snapshot(db) == before, "an expired plan never executes"
        done = me.post(f"/changes/{change_id(refused.body)}/execute", {"csrf": me.csrf})
        assert done.status == 303
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.get(pinned).importance == 0.2


def test_revert_of_a_trashed_memory_or_an_unknown_version_is_an_error(
    db: str, drink: str, embedder: Embedder
) -> None:
    before = snapshot(db)
    with ui_server(db) as url:
        me = Visitor(url)
        token = me.csrf
        for version, status, text in [
            ("9", 404, f"{drink} has no version 9"),
            ("0", 400, "versions start at 1"),
            ("two", 400, "version must be a whole number"),
            ("", 400, "version must be a whole number"),
        ]:
            answer = me.post(f"/memories/{drink}/revert", {"csrf": token, "version": version})
            assert answer.status == status and text in html.unescape(answer.body), version
            assert "Confirm" not in answer.body
        unknown = me.post("/memories/mem_000000000000/revert", {"csrf": token, "version": "1"})
        assert unknown.status == 404 and "Memory not found" in unknown.body
        assert snapshot(db) == before
        held = me.post(f"/memories/{drink}/revert", {"csrf": token, "version": "1"})
        with Lethe.open(db, embedder=embedder) as mem:
            mem.execute(mem.plan_forget(drink))
        trashed = snapshot(db)
        late = me.post(f"/changes/{change_id(held.body)}/execute", {"csrf": token})
        assert late.status == 404 and "is in the trash" in late.body
        answer = me.post(f"/memories/{drink}/revert", {"csrf": token, "version": "1"})
        assert answer.status == 404 and "is in the trash; cannot revert it" in answer.body
        assert snapshot(db) == trashed and drink not in live_ids(db)


def test_markup_in_an_old_version_stays_text(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        note = mem.remember(XSS).id
        mem.update(note, content="A plain note now")
    with ui_server(db) as url:
        me = Visitor(url)
        pages = [
            me.get(f"/memories/{note}"),
            me.post(f"/memories/{note}/revert", {"csrf": me.csrf, "version": "1"}),
        ]
        for page in pages:
            assert page.status == 200
            assert "<script>window.pwned" not in page.body and "<img src=x" not in page.body
            assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in page.body
            assert "script-src 'self'" in page.headers["content-security-policy"]


def test_pending_and_forget_pages_show_protected_changes(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        goal = mem.remember("Run a marathon this year", layer="goal").id
        mem.confirm_change(mem.plan_update(goal, layer="episodic"), session="cursor-7")
        pin = mem.remember("User's locker code is 4412", importance=0.95).id
        mem.execute(mem.plan_update(pin, importance=0.2), actor="claude")
    with ui_server(db) as url:
        me = Visitor(url)
        pending = html.unescape(me.get("/pending").body)
        assert re.search(r"<td>update <span[^>]*>\(weakens protection\)</span></td>", pending)
        assert "cursor-7" in pending
        assert goal in pending and "Run a marathon this year" in pending
        plan = html.unescape(me.post("/forget/plan", {"csrf": me.csrf, "memory_id": pin}).body)
        assert "Confirm forget" in plan
        assert re.search(r"Note: it was protected \(pinned .*\) until \d+ s ago, when claude", plan)
