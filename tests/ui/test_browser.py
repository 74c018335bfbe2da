"""The inspector in a real browser: headless Debian Chromium driven by Playwright against a
`lethe ui` process over a real SQLite file. Also writes the screenshots of docs/inspector.md.

Forget, cancel, confirm, trash, restore and the audit log are one scenario, in the order a
person would meet them; a revert (cancelled, then confirmed), the XSS check and the
screenshots stand alone."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from tests.backends import live_ids
from tests.ui_support import CHROMIUM, CHROMIUM_ARGS, ui_server

pytestmark = pytest.mark.browser

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "img"
XSS = 'User wrote <script>window.pwned = 1</script> and <img src=x onerror="window.pwned = 2">'
OLD_XSS = 'Old note <script>window.pwned = 3</script> <img src=x onerror="window.pwned = 4">'


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture(scope="module")
def store(
    tmp_path_factory: pytest.TempPathFactory, embedder: Embedder
) -> tuple[str, dict[str, str]]:
    """A store with a history: memories made over the last months (so decay has something to
    show), links, an episode, a forget already in the trash, a purge with its receipt, and two
    pending confirmations."""
    db = str(tmp_path_factory.mktemp("ui") / "lethe.db")
    now = datetime.now(UTC)
    clock = Clock(now - timedelta(days=240))
    ids: dict[str, str] = {}
    with Lethe.open(db, embedder=embedder, clock=clock, confirm_ttl_seconds=86400) as mem:
        for days, key, text in [
            (240, "bike", "User once owned a red bicycle"),
            (200, "pottery", "User tried a pottery class in Oakland"),
            (150, "jazz", "User went to a jazz concert in spring"),
            (120, "peanuts", "User is allergic to peanuts"),
            (60, "visit", "User visited San Francisco last year"),
            (30, "wine", "User loves California wine from Napa"),
            (20, "team", "User's favourite team is the Giants"),
            (10, "note", OLD_XSS),
            (3, "home", "User lives in Oakland"),
            (2, "job", "User works as a nurse at a hospital"),
            (1, "xss", XSS),
        ]:
            clock.now = now - timedelta(days=days)
            ids[key] = mem.remember(text, agent="claude", tags=["profile"]).id
        clock.now = now - timedelta(days=5)
        mem.update(ids["team"], content="User's favourite team is the Warriors", reason="said so")
        mem.update(ids["note"], content="A plain note now")
        clock.now = now - timedelta(days=2)
        mem.update(ids["home"], content="User lives in San Francisco", reason="moved in March")
        clock.now = now - timedelta(days=1)
        mem.update(ids["home"], importance=0.8, tags=["profile", "home"], actor="claude")
        mem.update(ids["peanuts"], importance=0.95, layer="caveat")
        mem.link(ids["home"], ids["visit"], kind="place", confidence=0.82)
        mem.link(ids["home"], ids["wine"], kind="region", confidence=0.55)
        mem.link(ids["home"], ids["job"], kind="life", confidence=0.35)
        mem.create_episode("Moving to the Bay Area", [ids["home"], ids["visit"]])
        mem.execute(mem.plan_forget(ids["bike"], reason="user sold the bike"), actor="claude")
        # Erased for good: the audit page lists its signed receipt.
        clock.now = now - timedelta(hours=20)
        gym = mem.remember("User's locker code at the gym is 4471", agent="claude")
        mem.execute(mem.plan_purge([gym.id], reason="asked to erase it"), actor="claude")
        clock.now = now
        mem.forget(ids["job"], session="claude-desktop-4f2a")
        mem.ask(mem.plan_forget(ids["jazz"]), session="cursor-91c0")
    return db, ids


@pytest.fixture(scope="module")
def url(store: tuple[str, dict[str, str]]) -> Iterator[str]:
    with ui_server(store[0]) as address:
        yield address.rstrip("/")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        raise RuntimeError(
            f"no Chromium at {CHROMIUM}: `make test` installs Debian's chromium package; "
            "or point LETHE_TEST_CHROMIUM at a Chromium binary"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    opened = context.new_page()
    alerts: list[str] = []
    opened.on("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    opened.alerts = alerts
    try:
        yield opened
    finally:
        context.close()


def hours_left(text: str) -> int:
    """The hours in the inspector's "29 d 23 h": a count, so a slow run that crosses an hour
    boundary still passes."""
    found = re.fullmatch(r"(\d+) d (\d+) h", text)
    assert found, text
    return int(found[1]) * 24 + int(found[2])


def test_search_forget_cancel_confirm_trash_restore_audit(
    page: Any, url: str, store: tuple[str, dict[str, str]]
) -> None:
    db, ids = store
    home = ids["home"]
    # Search finds the memory.
    page.goto(f"{url}/memories")
    page.get_by_label("Search").fill("where does the user live")
    page.get_by_role("button", name="Search").click()
    first = page.locator("table.memories tbody tr").first
    assert first.locator("a.id").inner_text() == home
    # Forget asks first: the dialog names exactly what goes; cancel keeps it.
    first.locator("a.id").click()
    assert page.locator("[data-testid=content]").inner_text() == "User lives in San Francisco"
    page.get_by_label("Why").fill("moved away")
    page.get_by_role("button", name="Forget…").click()
    dialog = page.locator("dialog.plan")
    # app.js makes the dialog modal once the page has loaded: wait for it (a slow machine).
    page.wait_for_function("() => document.querySelector('dialog.plan')?.matches(':modal')")
    assert dialog.is_visible()
    assert dialog.evaluate("d => d.matches(':modal')"), "the dialog is modal"
    assert home in dialog.locator("ul.targets").inner_text()
    assert "User lives in San Francisco" in dialog.inner_text()
    dialog.get_by_role("button", name="Cancel").click()
    assert page.locator(".notice").inner_text() == "Nothing was forgotten."
    assert home in live_ids(db)
    # Confirm removes it.
    page.get_by_label("Why").fill("moved away")
    page.get_by_role("button", name="Forget…").click()
    page.locator("dialog.plan").get_by_role("button", name="Confirm forget").click()
    assert page.locator("h1").inner_text() == "Forgotten"
    assert home not in live_ids(db)
    # It is in the trash: who, why, and how long it stays.
    page.goto(f"{url}/trash")
    row = page.locator(f"tr[data-id={home}]")
    cells = row.locator("td").all_inner_texts()
    assert cells[4:6] == ["inspector", "moved away"]
    assert 29 * 24 <= hours_left(cells[6]) <= 30 * 24, cells[6]  # 30 days from the forget
    # Restore brings it back with its links.
    row.get_by_role("button", name="Restore").click()
    assert page.locator(".notice").inner_text().startswith("Restored")
    assert home in live_ids(db)
    rows = page.locator("table.links tbody tr")
    linked = rows.locator("a.id").all_inner_texts()
    assert {ids["visit"], ids["wine"], ids["job"]} <= set(linked)
    confidence = [float(c) for c in rows.locator("td.num").all_inner_texts()]
    assert confidence == sorted(confidence, reverse=True), "strongest link first"
    assert page.locator("svg.graph circle").count() == 1 + len(linked)
    # The audit timeline shows the cancel, the forget and the restore.
    page.goto(f"{url}/audit?agent=inspector")
    ops = page.locator("table.events tbody tr td:nth-child(3)").all_inner_texts()
    memories = page.locator("table.events tbody tr td:nth-child(4)").all_inner_texts()
    assert [op for op, m in zip(ops, memories, strict=True) if m == home] == [
        "restore",
        "forget",
        "forget_declined",
    ]
    assert page.locator("svg rect.s-forget").count() == 30, "one bar per day"
    assert page.alerts == []


def test_revert_asks_first_cancel_keeps_confirm_brings_it_back(
    page: Any, url: str, store: tuple[str, dict[str, str]], embedder: Embedder
) -> None:
    db, ids = store
    team = ids["team"]
    page.goto(f"{url}/memories/{team}")
    content = page.locator("[data-testid=content]")
    rows = page.locator("table.history tbody tr")
    assert content.inner_text() == "User's favourite team is the Warriors"
    assert rows.count() == 2
    assert "current" in rows.first.locator("td").first.inner_text()
    # The revert shows what it would change, in a modal dialog; cancel keeps everything.
    page.get_by_role("button", name="Revert to version 1…").click()
    dialog = page.locator("dialog.plan")
    # app.js makes the dialog modal once the page has loaded: wait for it (a slow machine).
    page.wait_for_function("() => document.querySelector('dialog.plan')?.matches(':modal')")
    assert dialog.is_visible() and dialog.evaluate("d => d.matches(':modal')")
    assert dialog.locator("h1").inner_text() == "Revert to version 1?"
    text = dialog.locator("tr[data-field=content]")
    assert text.locator("td.old").inner_text() == "User's favourite team is the Warriors"
    assert text.locator("td.new").inner_text() == "User's favourite team is the Giants"
    dialog.get_by_role("button", name="Cancel").click()
    assert page.locator(".notice").inner_text() == "Cancelled: nothing was changed."
    assert content.inner_text() == "User's favourite team is the Warriors"
    assert rows.count() == 2
    # Confirm makes version 1's text current again, as version 3: nothing is lost.
    page.get_by_role("button", name="Revert to version 1…").click()
    page.locator("dialog.plan").get_by_role("button", name="Confirm revert").click()
    assert page.locator(".notice").inner_text().startswith("Reverted")
    assert content.inner_text() == "User's favourite team is the Giants"
    assert rows.count() == 3
    top = rows.first.locator("td").all_inner_texts()
    assert top[0].startswith("3") and "current" in top[0]
    assert top[2:4] == ["inspector", "revert"]
    assert "Warriors" in rows.nth(1).inner_text(), "the state reverted from is kept"
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.get(team).version == 3
        assert [v.op for v in mem.history(team)] == ["revert", "update", "remember"]
    assert page.alerts == []


def test_memory_text_renders_as_text(
    page: Any, url: str, store: tuple[str, dict[str, str]]
) -> None:
    xss = store[1]["xss"]
    note = store[1]["note"]  # markup in its first version
    for path in (f"/memories/{xss}", "/memories?q=script+img", "/memories", f"/memories/{note}"):
        page.goto(url + path)
        assert page.evaluate("window.pwned") is None, f"script ran on {path}"
        assert page.locator("main img").count() == 0 and page.locator("main script").count() == 0
    assert page.locator("tr[data-version='1'] td.version-content").inner_text() == OLD_XSS
    page.get_by_role("button", name="Revert to version 1…").click()
    assert page.locator("dialog.plan tr[data-field=content] td.new").inner_text() == OLD_XSS
    assert page.evaluate("window.pwned") is None, "script ran in the revert dialog"
    assert page.locator("main img").count() == 0 and page.locator("main script").count() == 0
    page.goto(f"{url}/memories/{xss}")
    assert page.locator("[data-testid=content]").inner_text() == XSS
    assert page.alerts == []


@pytest.mark.parametrize(
    ("name", "path", "action"),
    [
        ("memories", "/memories?q=San+Francisco", None),
        ("memory", "/memories/{home}", None),
        ("history", "/memories/{home}", "history"),
        ("revert-dialog", "/memories/{home}", "revert"),
        ("change-dialog", "/memories/{peanuts}", "lower-pin"),
        ("forget-dialog", "/memories/{home}", "forget"),
        ("forget-preview", "/forget/preview?q=where+does+the+user+live", None),
        ("trash", "/trash", None),
        ("audit", "/audit", None),
        ("decay", "/decay", None),
        ("pending", "/pending", None),
    ],
)
def test_screenshots_of_each_page(
    page: Any, url: str, store: tuple[str, dict[str, str]], name: str, path: str, action: str | None
) -> None:
    response = page.goto(url + path.format(**store[1]))
    assert response.status == 200
    if action == "forget":
        page.get_by_role("button", name="Forget…").click()
        assert page.locator("dialog.plan").is_visible()
    elif action == "revert":
        page.get_by_role("button", name="Revert to version 1…").click()
        assert page.locator("dialog.plan").is_visible()
    elif action == "lower-pin":
        page.get_by_label("Importance").fill("0.5")
        page.get_by_role("button", name="Save").click()
        assert "Protection lost" in page.locator("dialog.plan").inner_text()
    shows(page, name, store[1])
    IMAGES.mkdir(parents=True, exist_ok=True)
    shot = IMAGES / f"inspector-{name}.png"
    if action == "history":  # the section, not the whole page
        page.locator("section.history").screenshot(path=str(shot))
    else:
        page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


def shows(page: Any, name: str, ids: dict[str, str]) -> None:
    """What each screenshot must show: never an empty table, and on the pages that list
    things, the things the store holds (an empty pending page must fail, not be pictured)."""
    assert page.locator("td.empty").count() == 0, page.locator("td.empty").all_inner_texts()
    if name == "pending":
        rows = page.locator("table.pending tbody tr")
        listed = {
            cells[2]: cells
            for cells in (rows.nth(n).locator("td").all_inner_texts() for n in range(rows.count()))
        }
        assert set(listed) == {ids["job"], ids["jazz"]}
        job, jazz = listed[ids["job"]], listed[ids["jazz"]]
        assert job[:2] == ["two-call", "forget"] and jazz[:2] == ["elicitation", "forget"]
        assert job[3:6] == ["User works as a nurse at a hospital", "claude-desktop-4f2a", "1"]
        assert jazz[3:5] == ["User went to a jazz concert in spring", "cursor-91c0"]
        # Asked with a day to answer, minutes ago: still open, however slow the run.
        assert all(cells[7].startswith("in ") for cells in (job, jazz)), (job[7], jazz[7])
    elif name == "trash":
        row = page.locator(f"tr[data-id={ids['bike']}]").locator("td").all_inner_texts()
        assert "User once owned a red bicycle" in row and "user sold the bike" in row
    elif name == "memories":
        listed = page.locator("table.memories tbody tr a.id").all_inner_texts()
        assert ids["home"] in listed and ids["visit"] in listed
    elif name in ("memory", "history"):
        content = page.locator("[data-testid=content]").inner_text()
        assert content == "User lives in San Francisco"
    elif name == "audit":
        assert page.locator("table.events tbody tr").count() >= 10
    elif name == "decay":
        assert ids["bike"] not in page.content(), "a memory in the trash is not swept"
        assert page.locator("table.sweep tbody tr").count() >= 1


def test_expiry_and_reading_the_past_in_the_browser(
    page: Any, tmp_path: Path, embedder: Embedder
) -> None:
    """The expiry field left alone saves at once (the browser sends back what the page wrote,
    seconds dropped when zero); a sooner expiry asks first; a version's time opens the memory
    as it stood then, with a way back."""
    db = str(tmp_path / "time.db")
    now = datetime.now(UTC)
    ends = (now + timedelta(days=2)).replace(second=0, microsecond=250_000)  # shown as :00
    clock = Clock(now - timedelta(hours=2))
    with Lethe.open(db, embedder=embedder, clock=clock) as mem:
        trip = mem.remember("User is in Porto this week", expires_at=ends).id
        clock.now = now - timedelta(hours=1)
        mem.update(trip, content="User is in Lisbon this week")
    stamp = ends.strftime("%Y-%m-%dT%H:%M:%SZ")
    with ui_server(db) as address:
        page.goto(f"{address.rstrip('/')}/memories/{trip}")
        assert page.locator("[data-testid=expires]").inner_text().startswith(stamp)
        page.get_by_label("Tags").fill("trip")
        page.get_by_role("button", name="Save").click()
        assert page.locator(".notice").inner_text() == "Saved."
        assert page.locator("[data-testid=expires]").inner_text().startswith(stamp)
        page.get_by_label("Expires (UTC)").fill(
            (ends - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
        )
        page.get_by_role("button", name="Save").click()
        assert "It would expire at" in page.locator("dialog.plan").inner_text()
        page.locator("dialog.plan").get_by_role("button", name="Cancel").click()
        assert page.locator(".notice").inner_text() == "Cancelled: nothing was changed."
        page.locator("tr[data-version='1'] td.when a").click()
        assert page.locator("[data-testid=content]").inner_text() == "User is in Porto this week"
        assert page.locator("p.as-of").inner_text().startswith("As it stood at")
        page.locator("p.as-of a").click()
        assert page.locator("[data-testid=content]").inner_text() == "User is in Lisbon this week"
    with Lethe.open(db, embedder=embedder) as mem:
        kept = mem.get(trip)
        assert kept.expires_at == ends and list(kept.tags) == ["trip"] and kept.version == 3
    assert page.alerts == []
