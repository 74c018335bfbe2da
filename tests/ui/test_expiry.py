"""Time in the inspector, over real HTTP to a `lethe ui` process (on SQLite and PostgreSQL):
a memory's expiry is shown on its page and marked in the list; setting or bringing one
forward from the edit form is a held plan that changes nothing until confirmed, extending or
removing one is saved at once, and a protected memory or a past moment is refused with the
engine's message; a memory page and a search read the past `as_of` a moment, and a moment
the engine cannot answer for is a 400 with its message."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from tests.backends import both_stores, snapshot
from tests.ui_support import Visitor, change_id, ui_server


def field_time(moment: datetime) -> str:
    """A moment as the page's datetime-local field sends it (UTC, no offset, the seconds
    left out when zero, as browsers do)."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M" if moment.second == 0 else "%Y-%m-%dT%H:%M:%S")


def stamp(moment: datetime) -> str:
    """A moment as the inspector prints it."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def whole_seconds(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(microsecond=0)


def expires_shown(page: str) -> str:
    found = re.search(r'<dd data-testid="expires">(.*?)</dd>', page, re.S)
    assert found, "the page has no expires row"
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))


def content_shown(page: str) -> str:
    found = re.search(r'<pre class="memory-content" data-testid="content">(.*?)</pre>', page, re.S)
    assert found, "the page shows no content"
    return html.unescape(found.group(1))


def list_row(page: str, memory_id: str) -> str:
    rows = [r for r in page.split("<tr>") if f'href="/memories/{memory_id}' in r]
    assert len(rows) == 1, f"{memory_id} is listed once"
    return rows[0].split("</tr>")[0]


def test_an_expiry_is_shown_on_the_page_in_the_list_and_in_the_trash(
    db: str, embedder: Embedder
) -> None:
    ends = datetime.now(UTC) + timedelta(days=3)
    past = datetime.now(UTC) - timedelta(days=2)
    with Lethe.open(db, embedder=embedder) as mem:
        trip = mem.remember(
            "User is in Lisbon this week", expires_at=ends, actor="claude", agent="claude"
        )
        home = mem.remember("User lives in San Francisco").id
    with Lethe.open(db, embedder=embedder, clock=lambda: past) as mem:
        code = mem.remember("The door code this weekend is 4711", expires_in="1h").id
    assert trip.expiry_set_at is not None
    with ui_server(db) as url:
        me = Visitor(url)
        page = me.get(f"/memories/{trip.id}")
        assert page.status == 200
        shown = expires_shown(page.body)
        assert stamp(ends) in shown, shown
        assert "set by claude" in shown and stamp(trip.expiry_set_at) in shown
        assert re.search(r"in (2 d 2[0-3]|3 d 0) h", shown), "time left"
        assert expires_shown(me.get(f"/memories/{home}").body) == "never"
        listed = me.get("/memories")
        assert listed.status == 200
        marked = list_row(listed.body, trip.id)
        assert 'class="expiring"' in marked
        assert f"expires {ends.strftime('%Y-%m-%d')}" in marked
        assert f'title="expires {stamp(ends)}"' in marked
        assert "expiring" not in list_row(listed.body, home)
        assert code not in listed.body, "an expired memory is not listed"
        trash = html.unescape(me.get("/trash").body)
        row = trash.split(f'<tr data-id="{code}">')[1].split("</tr>")[0]
        assert "expired at " + (past + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M") in row


def test_setting_an_expiry_changes_nothing_until_the_held_plan_is_confirmed(
    db: str, embedder: Embedder, far_from_utc: str
) -> None:
    """The form's field carries no offset: the server, 9 hours from UTC here, reads it as
    UTC. The confirmed expiry is held, and the page says so."""
    with Lethe.open(db, embedder=embedder) as mem:
        memory_id = mem.remember("User is learning Portuguese", tags=["language"]).id
    before = snapshot(db)
    ends = whole_seconds(datetime.now(UTC) + timedelta(days=2))
    form = {"importance": "0.5", "tags": "language", "expires_at": field_time(ends)}
    with ui_server(db) as url:
        me = Visitor(url)
        page = me.get(f"/memories/{memory_id}").body
        assert 'name="expires_at"' in page and 'name="expires_shown" value=""' in page
        assert 'name="no_expiry"' not in page, "nothing to remove"
        asked = me.post(f"/memories/{memory_id}/edit", form | {"csrf": me.csrf})
        shown = html.unescape(asked.body)
        assert asked.status == 200 and "Change this memory?" in shown
        assert (
            f'It would expire at <time datetime="{stamp(ends)}">' in shown
            and 'class="danger"' in shown
        )
        assert re.search(
            r'data-field="expires_at">\s*<th[^>]*>expires_at</th>\s*'
            rf'<td class="old">—</td><td class="new">{stamp(ends)}</td>',
            shown,
        )
        assert snapshot(db) == before, "asking changes nothing"
        cancelled = me.post(f"/changes/{change_id(asked.body)}/cancel", {"csrf": me.csrf})
        assert cancelled.status == 303 and snapshot(db) == before
        asked = me.post(f"/memories/{memory_id}/edit", form | {"csrf": me.csrf})
        assert snapshot(db) == before
        done = me.post(f"/changes/{change_id(asked.body)}/execute", {"csrf": me.csrf})
        assert done.status == 303
        assert done.headers["location"] == f"/memories/{memory_id}?notice=changed"
        set_page = me.get(f"/memories/{memory_id}").body
        assert stamp(ends) in expires_shown(set_page)
        assert "set by inspector" in expires_shown(set_page)
        assert "held: pushing it back or removing it is confirmed" in expires_shown(set_page)
        # Bringing it forward is a deletion too.
        sooner = ends - timedelta(days=1)
        earlier = form | {"expires_at": field_time(sooner), "expires_shown": field_time(ends)}
        set_once = snapshot(db)
        asked = me.post(f"/memories/{memory_id}/edit", earlier | {"csrf": me.csrf})
        assert (
            asked.status == 200
            and f'It would expire at <time datetime="{stamp(sooner)}">' in asked.body
        )
        assert snapshot(db) == set_once
        done = me.post(f"/changes/{change_id(asked.body)}/execute", {"csrf": me.csrf})
        assert done.status == 303
    with Lethe.open(db, embedder=embedder) as mem:
        now = mem.get(memory_id)
        assert now.expires_at == sooner and now.version == 3
        assert now.expiry_set_by == "inspector" and now.expiry_held
        events = mem.audit(memory_id=memory_id, op="update")
        assert [e.details["confirmed"] for e in events[-2:]] == ["inspector", "inspector"]


def test_extending_an_expiry_is_saved_at_once_and_is_then_the_persons(
    db: str, embedder: Embedder
) -> None:
    """An agent's expiry pushed back from the edit form is saved at once; the person set it
    by hand, so it is held: removing it then is a plan to confirm."""
    ends = whole_seconds(datetime.now(UTC) + timedelta(days=1)).replace(microsecond=500_000)
    with Lethe.open(db, embedder=embedder) as mem:
        made = mem.remember("User is at a conference in Berlin", expires_at=ends, tags=["trip"])
    assert made.expires_at == ends, "not whole seconds: the page shows less than it holds"
    later = whole_seconds(made.expires_at + timedelta(days=4))
    with ui_server(db) as url:
        me = Visitor(url)
        page = me.get(f"/memories/{made.id}").body
        shown_value = field_time(made.expires_at)
        assert f'name="expires_at" step="1" value="{shown_value}"' in page
        assert 'name="no_expiry"' in page
        # The field left as shown is no change, though the page shows whole seconds only.
        untouched = {"importance": "0.5", "tags": "trip, work", "expires_at": shown_value}
        saved = me.post(
            f"/memories/{made.id}/edit",
            untouched | {"expires_shown": shown_value, "csrf": me.csrf},
        )
        assert saved.status == 303, "a tag edit asks nothing"
        assert saved.headers["location"] == f"/memories/{made.id}?notice=saved"
        extended = me.post(
            f"/memories/{made.id}/edit",
            untouched
            | {"expires_at": field_time(later), "expires_shown": shown_value, "csrf": me.csrf},
        )
        assert extended.status == 303
        assert extended.headers["location"] == f"/memories/{made.id}?notice=saved"
        with Lethe.open(db, embedder=embedder) as mem:
            now = mem.get(made.id)
            assert now.expires_at == later and now.version == 3 and now.expiry_held
            assert set(now.tags) == {"trip", "work"}
        asked = me.post(
            f"/memories/{made.id}/edit",
            untouched
            | {
                "expires_at": field_time(later),
                "expires_shown": field_time(later),
                "no_expiry": "yes",
                "csrf": me.csrf,
            },
        )
        assert asked.status == 200 and "set or confirmed by a person" in html.unescape(asked.body)
        removed = me.post(f"/changes/{change_id(asked.body)}/execute", {"csrf": me.csrf})
        assert removed.status == 303
        assert removed.headers["location"] == f"/memories/{made.id}?notice=changed"
        assert expires_shown(me.get(f"/memories/{made.id}").body) == "never"
    with Lethe.open(db, embedder=embedder) as mem:
        now = mem.get(made.id)
        assert now.expires_at is None and now.expiry_set_by is None and now.version == 4
        history = mem.history(made.id)
        assert history[1].expires_at == later and history[2].expires_at == made.expires_at
        confirmed = [e.details.get("confirmed") for e in mem.audit(memory_id=made.id, op="update")]
        assert confirmed == [None, None, "inspector"]


@pytest.mark.parametrize(
    ("kind", "why"),
    [("caveat", "caveat"), ("pinned", "pinned"), ("goal", "goal")],
)
def test_a_protected_memory_refuses_an_expiry_and_nothing_changes(
    db: str, embedder: Embedder, kind: str, why: str
) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        if kind == "pinned":
            memory_id = mem.remember("User's passport number is X1234567", importance=0.95).id
        else:
            memory_id = mem.remember("Never book flights before 9am", layer=kind).id
    before = snapshot(db)
    ends = datetime.now(UTC) + timedelta(days=2)
    with ui_server(db) as url:
        me = Visitor(url)
        importance = "0.95" if kind == "pinned" else "0.5"
        refused = me.post(
            f"/memories/{memory_id}/edit",
            {"csrf": me.csrf, "importance": importance, "tags": "", "expires_at": field_time(ends)},
        )
        page = html.unescape(refused.body)
        assert refused.status == 400, page
        assert f"{memory_id} is protected" in page and why in page
        assert "an expiry would forget it" in page and "nothing was changed" in page
        assert "/changes/" not in refused.body, "no plan to confirm"
    assert snapshot(db) == before


def test_an_expiry_in_the_past_or_not_a_time_is_refused(db: str, embedder: Embedder) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        memory_id = mem.remember("User is reading a novel by Saramago").id
    before = snapshot(db)
    gone = datetime.now(UTC) - timedelta(hours=1)
    with ui_server(db) as url:
        me = Visitor(url)
        base = {"csrf": me.csrf, "importance": "0.5", "tags": ""}
        for sent, text in [
            ({"expires_at": field_time(gone)}, "is not in the future"),
            ({"expires_at": "next tuesday"}, "expires_at 'next tuesday' is not a date and time"),
            (
                {"expires_at": field_time(gone + timedelta(days=3)), "no_expiry": "yes"},
                "give an expiry or no_expiry, not both",
            ),
        ]:
            answer = me.post(f"/memories/{memory_id}/edit", base | sent)
            assert answer.status == 400, answer.body
            assert text in html.unescape(answer.body) and "/changes/" not in answer.body
    assert snapshot(db) == before


def test_removing_an_expiry_survives_a_stale_plan(db: str, embedder: Embedder) -> None:
    """A pin lowered and the expiry removed in one edit asks first; when the memory changed
    meanwhile, the fresh plan still removes the expiry."""
    with Lethe.open(db, embedder=embedder) as mem:
        pinned = mem.remember("User's locker code is 4412", importance=0.95, expires_in="2d")
    assert pinned.expires_at is not None
    shown_value = field_time(pinned.expires_at)
    with ui_server(db) as url:
        me = Visitor(url)
        asked = me.post(
            f"/memories/{pinned.id}/edit",
            {
                "csrf": me.csrf,
                "importance": "0.3",
                "tags": "",
                "expires_at": shown_value,
                "expires_shown": shown_value,
                "no_expiry": "yes",
            },
        )
        assert asked.status == 200 and "Protection lost: pinned" in html.unescape(asked.body)
        assert 'data-field="expires_at"' in asked.body
        with Lethe.open(db, embedder=embedder) as mem:
            mem.update(pinned.id, tags=["gym"])
        refused = me.post(f"/changes/{change_id(asked.body)}/execute", {"csrf": me.csrf})
        assert refused.status == 409
        assert 'data-field="expires_at"' in refused.body, "the fresh plan still removes it"
        done = me.post(f"/changes/{change_id(refused.body)}/execute", {"csrf": me.csrf})
        assert done.status == 303
    with Lethe.open(db, embedder=embedder) as mem:
        now = mem.get(pinned.id)
        assert now.importance == 0.3 and now.expires_at is None and list(now.tags) == ["gym"]


@pytest.fixture
def job(db: str, embedder: Embedder) -> dict[str, object]:
    """A memory remembered three hours ago and changed one hour ago."""
    now = datetime.now(UTC)
    with Lethe.open(db, embedder=embedder, clock=lambda: now - timedelta(hours=3)) as mem:
        memory_id = mem.remember("User works as an engineer at Initech").id
    with Lethe.open(db, embedder=embedder, clock=lambda: now - timedelta(hours=1)) as mem:
        mem.update(memory_id, content="User works as a manager at Globex")
    return {"id": memory_id, "then": now - timedelta(hours=2), "now": now}


@both_stores
def test_a_memory_page_reads_as_of_a_past_moment(db: str, job: dict[str, object]) -> None:
    memory_id, then = job["id"], job["then"]
    assert isinstance(then, datetime)
    before = snapshot(db)
    with ui_server(db) as url:
        me = Visitor(url)
        present = me.get(f"/memories/{memory_id}")
        assert content_shown(present.body) == "User works as a manager at Globex"
        assert 'data-testid="as-of"' not in present.body
        past = me.get(f"/memories/{memory_id}?as_of={quote(then.isoformat())}")
        assert past.status == 200
        assert content_shown(past.body) == "User works as an engineer at Initech"
        banner = re.search(r'<p class="as-of"[^>]*>(.*?)</p>', past.body, re.S)
        assert banner, "a banner says it is the past"
        assert f'As it stood at <time datetime="{stamp(then)}">{stamp(then)}</time>' in (
            banner.group(1)
        )
        assert "version 1" in banner.group(1)
        assert f'<a href="/memories/{memory_id}">Back to the present</a>' in banner.group(1)
        assert f"/memories/{memory_id}/edit" not in past.body, "no edit of the present here"
        assert "Forget…" not in past.body
        assert '<span class="badge shown">shown</span>' in past.body.split('data-version="1"')[1]
        # The field the page offers, as a browser sends it, reads the same moment.
        typed = me.get(f"/memories/{memory_id}?as_of={field_time(then)}")
        assert content_shown(typed.body) == "User works as an engineer at Initech"
    assert snapshot(db) == before, "reading the past changes nothing"


def test_a_search_as_of_a_past_moment_finds_the_old_text(db: str, job: dict[str, object]) -> None:
    memory_id, then = job["id"], job["then"]
    assert isinstance(then, datetime) and isinstance(memory_id, str)
    query = "where+does+the+user+work"
    with ui_server(db) as url:
        me = Visitor(url)
        now = html.unescape(me.get(f"/memories?q={query}").body)
        assert "Globex" in list_row(now, memory_id) and "Initech" not in now
        past = me.get(f"/memories?q={query}&as_of={quote(stamp(then))}")
        assert past.status == 200
        page = html.unescape(past.body)
        row = list_row(page, memory_id)
        assert "User works as an engineer at Initech" in row and "Globex" not in page
        assert f'href="/memories/{memory_id}?as_of={quote(stamp(then), safe="/")}"' in row
        assert f'As it stood at <time datetime="{stamp(then)}">' in page
        assert "Search the present" in page
        assert f'name="as_of" step="1" value="{field_time(then)}"' in page
        filtered = me.get(f"/memories?q={query}&as_of={quote(stamp(then))}&layer=semantic")
        assert filtered.status == 400
        assert "as_of takes no filter but the namespace" in html.unescape(filtered.body)


def test_a_bad_as_of_is_a_400_with_the_engines_message(db: str, job: dict[str, object]) -> None:
    memory_id, now = job["id"], job["now"]
    assert isinstance(now, datetime)
    before = snapshot(db)
    future = quote(stamp(now + timedelta(days=1)))
    too_early = quote(stamp(now - timedelta(days=1)))
    with ui_server(db) as url:
        me = Visitor(url)
        cases = [
            (f"/memories/{memory_id}?as_of={future}", "is in the future"),
            (f"/memories/{memory_id}?as_of={too_early}", "is before anything was remembered"),
            (f"/memories/{memory_id}?as_of=last+spring", "as_of 'last spring' is not a date"),
            (f"/memories?q=work&as_of={future}", "is in the future"),
            (f"/memories?q=work&as_of={too_early}", "is before anything was remembered"),
            ("/memories?q=work&as_of=last+spring", "as_of 'last spring' is not a date"),
            (f"/memories?as_of={too_early}", "as of reads the past through a search"),
        ]
        for path, text in cases:
            answer = me.get(path)
            assert answer.status == 400, (path, answer.body)
            page = html.unescape(answer.body)
            assert "That did not work" in page and text in page, (path, page)
            assert "Traceback" not in page
    assert snapshot(db) == before
