"""`lethe remember --expires / --for` (issue 25): the expiry set from the command line, shown,
refused when wrong with nothing stored, and an expired memory out of `list` and in `trash` —
on both stores."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from lethe import Lethe
from lethe.cli import app
from lethe.embed import Embedder
from lethe.errors import ConfirmationRequired
from tests.backends import snapshot

runner = CliRunner()


@pytest.fixture(autouse=True)
def isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.startswith("LETHE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("LETHE_CONFIG", str(tmp_path / "no-config.toml"))


def run(db: str, *args: str) -> Result:
    return runner.invoke(app, [*args, "--db", str(db)])


def test_remember_for_a_duration_sets_and_shows_the_expiry(db: str) -> None:
    before = datetime.now(UTC)
    result = run(db, "remember", "The hotel door code is 4471", "--for", "7d")
    assert result.exit_code == 0, result.stderr
    assert "expires " in result.stdout
    memory = json.loads(run(db, "list", "--json").stdout)["items"][0]
    expires = datetime.fromisoformat(memory["expires_at"])
    assert before + timedelta(days=7) <= expires <= datetime.now(UTC) + timedelta(days=7)
    shown = run(db, "show", memory["id"]).stdout
    assert "expires" in shown and "set by user" in shown


def test_remember_until_an_instant_in_json(db: str) -> None:
    result = run(db, "remember", "Parking on level 3", "--expires", "2099-12-01T18:00", "--json")
    assert result.exit_code == 0, result.stderr
    body = json.loads(result.stdout)
    assert body["expires_at"] == "2099-12-01T18:00:00Z" and body["expiry_set_by"] == "user"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--for", "3 months"), "months and years"),
        (("--for", "soon"), "is not a duration"),
        (("--expires", "2020-01-01"), "not in the future"),
        (("--expires", "2099-01-01", "--for", "1d"), "not both"),
    ],
)
def test_a_bad_expiry_is_refused_and_stores_nothing(
    db: str, options: tuple[str, ...], message: str
) -> None:
    assert run(db, "remember", "The user likes green tea.").exit_code == 0
    before = snapshot(db)
    result = run(db, "remember", "The hotel door code is 4471", *options)
    assert result.exit_code != 0
    assert message in result.stderr
    assert snapshot(db) == before


def test_an_expired_memory_is_out_of_list_and_in_the_trash_with_its_reason(
    db: str, embedder: Embedder
) -> None:
    past = datetime.now(UTC) - timedelta(hours=3)
    with Lethe.open(db, embedder=embedder, clock=lambda: past) as mem:
        memory = mem.remember("The hotel door code is 4471", expires_in="1h")
        kept = mem.remember("The user likes green tea.")
    listed = {m["id"] for m in json.loads(run(db, "list", "--json").stdout)["items"]}
    assert listed == {kept.id}
    trash = json.loads(run(db, "trash", "--json").stdout)
    [item] = trash["items"]
    assert item["memory"]["id"] == memory.id
    assert item["memory"]["forget_reason"].startswith("expired at ")
    assert "expired at" in run(db, "trash").stdout


@pytest.mark.parametrize("flag", ["--expected-sha256", "--if-sha256"])
@pytest.mark.parametrize(
    "command",
    [
        ("update", "--content", "The code is 9."),
        ("forget", "--yes"),
        ("purge", "--yes"),
        ("revert", "1", "--yes"),
    ],
)
def test_expected_sha256_refuses_a_change_to_a_text_changed_since(
    db: str, command: tuple[str, ...], flag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The precondition, under its name and its earlier one (--if-sha256, hidden): passed to
    the engine, which checks it once; a stale hash changes nothing."""
    from lethe.engine.base import Core

    checks: list[str] = []
    real = Core.expect

    def spy(self: Core, memory_id: str, expected: str | None, **kw: object) -> None:
        if expected is not None:
            checks.append(memory_id)
        real(self, memory_id, expected, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(Core, "expect", spy)
    seen = json.loads(run(db, "remember", "The code is 1234.", "--json").stdout)
    assert run(db, "update", seen["id"], "--content", "The code is 5678.", "--yes").exit_code == 0
    before = snapshot(db)
    verb, *rest = command
    result = run(db, verb, seen["id"], *rest, flag, seen["content_sha256"])
    assert result.exit_code == 1
    assert "changed since you saw it" in result.stderr and "version 2" in result.stderr
    assert snapshot(db) == before
    assert checks == [seen["id"]]
    now = json.loads(run(db, "show", seen["id"], "--json").stdout)["content_sha256"]
    assert run(db, verb, seen["id"], *rest, flag, now).exit_code == 0
    assert checks == [seen["id"]] * 2


def test_the_earlier_spelling_is_hidden_and_both_spellings_must_agree(db: str) -> None:
    shown = run(db, "update", "--help").stdout
    assert "--expected-sha256" in shown and "--if-sha256" not in shown
    seen = json.loads(run(db, "remember", "The code is 1234.", "--json").stdout)
    both = run(
        db, "forget", seen["id"], "--yes", "--expected-sha256", "a" * 64, "--if-sha256", "b" * 64
    )
    assert both.exit_code != 0 and "--expected-sha256 once" in both.stderr


def test_update_sets_an_expiry_only_with_the_go_ahead_and_loosens_it_only_with_one(
    db: str,
) -> None:
    """The expiry set with --yes is held: a later one, or none, asks again (and --yes
    confirms it); one typed with `remember --for` is held too."""
    memory = json.loads(run(db, "remember", "The code is 1234.", "--json").stdout)
    before = snapshot(db)
    asked = run(db, "update", memory["id"], "--for", "1h")
    assert asked.exit_code == 3 and "a forget" in asked.stderr
    assert snapshot(db) == before
    assert run(db, "update", memory["id"], "--for", "1h", "--yes").exit_code == 0
    held = json.loads(run(db, "show", memory["id"], "--json").stdout)
    assert held["expiry_held"]
    later = run(db, "update", memory["id"], "--for", "30d")
    assert later.exit_code == 3 and "set or confirmed by a person" in later.stderr
    assert run(db, "update", memory["id"], "--for", "30d", "--yes").exit_code == 0
    assert run(db, "update", memory["id"], "--no-expiry", "--yes").exit_code == 0
    shown = json.loads(run(db, "show", memory["id"], "--json").stdout)
    assert shown["expires_at"] is None and shown["version"] == 4
    typed = json.loads(run(db, "remember", "Parking level 3.", "--for", "1d", "--json").stdout)
    assert typed["expiry_held"]  # typed by the person


def test_an_agents_expiry_pushed_back_on_the_command_line_is_then_the_persons(
    db: str, embedder: Embedder
) -> None:
    with Lethe.open(db, embedder=embedder) as mem:
        memory = mem.remember("The code is 1234.", expires_in="1d", agent="claude")
    assert run(db, "update", memory.id, "--for", "30d").exit_code == 0  # later: no question
    with Lethe.open(db, embedder=embedder) as mem:
        assert mem.get(memory.id).expiry_held
        with pytest.raises(ConfirmationRequired):
            mem.update(memory.id, no_expiry=True)


def test_update_refuses_an_expiry_on_a_protected_memory(db: str) -> None:
    memory = json.loads(
        run(db, "remember", "Never email Bob.", "--layer", "caveat", "--json").stdout
    )
    before = snapshot(db)
    refused = run(db, "update", memory["id"], "--for", "1d", "--yes")
    assert refused.exit_code == 1 and "is protected" in refused.stderr
    assert snapshot(db) == before


def test_recall_and_show_as_of_a_past_moment(db: str) -> None:
    """`--as-of` (issue 25, part 3): the state a memory had then, by the command line."""
    made = json.loads(run(db, "remember", "Alice works at Acme Corp", "--json").stdout)
    memory_id = made["memory"]["id"] if "memory" in made else made["id"]
    moment = datetime.now(UTC).isoformat()
    changed = run(db, "update", memory_id, "--content", "Alice works at Globex", "--yes")
    assert changed.exit_code == 0, changed.stderr
    past = json.loads(run(db, "recall", "Alice works", "--as-of", moment, "--json").stdout)
    assert [h["memory"]["content"] for h in past["items"]][:1] == ["Alice works at Acme Corp"]
    now = json.loads(run(db, "recall", "Alice works", "--json").stdout)
    assert now["items"][0]["memory"]["content"] == "Alice works at Globex"
    shown = json.loads(run(db, "show", memory_id, "--as-of", moment, "--json").stdout)
    assert shown["content"] == "Alice works at Acme Corp" and shown["version"] == 1
    before = snapshot(db)
    for bad, says in (("2099-01-01", "in the future"), ("soon", "not a date and time")):
        result = run(db, "recall", "Alice", "--as-of", bad)
        assert result.exit_code == 1 and says in result.stderr
    assert snapshot(db) == before


def test_remember_with_a_session(db: str) -> None:
    """`--session` (issue 21): the turn belongs to that conversation."""
    made = json.loads(run(db, "remember", "Went hiking.", "--session", "chat-1", "--json").stdout)
    assert made["metadata"]["session"] == "chat-1"
    clash = run(db, "remember", "x", "--session", "a", "--meta", "session=b")
    assert clash.exit_code == 1 and "two conversations" in clash.stderr


def test_times_without_an_offset_are_utc_on_the_command_line(db: str, far_from_utc: str) -> None:
    """`--expires` and `--as-of` without an offset mean UTC, whatever the local zone."""
    made = json.loads(
        run(db, "remember", "Parking on level 3", "--expires", "2099-12-01T18:00", "--json").stdout
    )
    assert made["expires_at"] == "2099-12-01T18:00:00Z"
    moment = datetime.now(UTC).replace(tzinfo=None).isoformat()
    changed = run(db, "update", made["id"], "--content", "Parking on level 4", "--yes")
    assert changed.exit_code == 0, changed.stderr
    shown = json.loads(run(db, "show", made["id"], "--as-of", moment, "--json").stdout)
    assert shown["content"] == "Parking on level 3"
