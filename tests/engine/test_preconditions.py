"""Changes that say what they change (issue 25): `update`, `plan_forget` and `plan_purge` by id
take the content hash the caller last saw; when the text changed since, nothing happens and
the error gives the current hash and version — on both stores."""

from __future__ import annotations

import pytest

from lethe import Lethe
from lethe.errors import ContentChanged, InvalidInput
from tests.backends import snapshot

TEXT = "The hotel door code is 4471."


def test_an_update_from_the_text_the_caller_saw_applies(mem: Lethe) -> None:
    seen = mem.remember(TEXT)
    updated = mem.update(
        seen.id, content="The hotel door code is 5582.", expected_sha256=seen.content_sha256
    )
    assert updated.version == 2


def test_an_update_from_an_older_text_changes_nothing_and_says_what_it_is_now(
    mem: Lethe, db: str
) -> None:
    seen = mem.remember(TEXT)
    now = mem.update(seen.id, content="The hotel door code is 5582.")  # another agent
    before = snapshot(db)
    with pytest.raises(ContentChanged) as caught:
        mem.update(
            seen.id, content="The hotel door code is 9999.", expected_sha256=seen.content_sha256
        )
    assert caught.value.current_sha256 == now.content_sha256 and caught.value.version == 2
    assert now.content_sha256 in str(caught.value) and "version 2" in str(caught.value)
    assert snapshot(db) == before


@pytest.mark.parametrize("operation", ["forget", "purge"])
def test_a_deletion_plan_by_id_checks_the_hash(mem: Lethe, db: str, operation: str) -> None:
    seen = mem.remember(TEXT)
    plan = getattr(mem, f"plan_{operation}")
    assert [t.id for t in plan([seen.id], expected_sha256=seen.content_sha256).targets] == [seen.id]
    mem.update(seen.id, content="The hotel door code is 5582.")
    before = snapshot(db)
    with pytest.raises(ContentChanged, match="changed since you saw it"):
        plan([seen.id], expected_sha256=seen.content_sha256)
    assert snapshot(db) == before


@pytest.mark.parametrize(
    ("ids", "expected", "message"),
    [
        (2, "a" * 64, "exactly one memory id"),
        (1, "xyz", "64 hexadecimal digits"),
        (1, "a" * 63, "64 hexadecimal digits"),
        (1, 42, "64 hexadecimal digits"),
    ],
)
def test_a_bad_expected_hash_is_refused(
    mem: Lethe, db: str, ids: int, expected: object, message: str
) -> None:
    made = [mem.remember(TEXT).id, mem.remember("The user likes green tea.").id][:ids]
    before = snapshot(db)
    for call in (
        lambda: mem.plan_forget(made, expected_sha256=expected),  # type: ignore[arg-type]
        lambda: mem.plan_purge(made, expected_sha256=expected),  # type: ignore[arg-type]
    ):
        with pytest.raises(InvalidInput, match=message):
            call()
    if ids == 1:
        with pytest.raises(InvalidInput, match=message):
            mem.update(made[0], importance=0.6, expected_sha256=expected)  # type: ignore[arg-type]
    assert snapshot(db) == before


def test_without_a_hash_behaviour_is_as_before(mem: Lethe) -> None:
    seen = mem.remember(TEXT)
    mem.update(seen.id, content="The hotel door code is 5582.")
    assert mem.update(seen.id, importance=0.7).version == 3
    assert [t.id for t in mem.plan_forget([seen.id]).targets] == [seen.id]


def test_the_two_call_forget_checks_the_hash_at_planning(mem: Lethe, db: str) -> None:
    """`forget(…, session=…, expected_sha256=…)`: a stale hash records nothing (no pending
    row, no event); the current one goes through the two calls."""
    seen = mem.remember(TEXT)
    now = mem.update(seen.id, content="The hotel door code is 5582.")
    before = snapshot(db)
    with pytest.raises(ContentChanged, match="changed since you saw it"):
        mem.forget(seen.id, session="s1", expected_sha256=seen.content_sha256)
    assert snapshot(db) == before
    for _ in range(2):
        done = mem.forget(seen.id, session="s1", expected_sha256=now.content_sha256)
    assert done.status == "executed"


def test_the_precondition_is_checked_again_when_the_plan_is_written(mem: Lethe, db: str) -> None:
    """A plan made with the hash the caller saw, executed after another writer changed the
    text: the writing transaction checks the precondition again and changes nothing."""
    seen = mem.remember(TEXT)
    forget = mem.plan_forget([seen.id], expected_sha256=seen.content_sha256)
    update = mem.plan_update(seen.id, importance=0.6, expected_sha256=seen.content_sha256)
    assert forget.source.expected_sha256 == update.expected_sha256 == seen.content_sha256
    mem.update(seen.id, content="The hotel door code is 5582.")  # another agent
    before = snapshot(db)
    result = mem.execute(forget)
    assert not result.executed and result.stale == (seen.id,)
    with pytest.raises(InvalidInput):  # ContentChanged, or the plan's own staleness
        mem.execute(update)
    assert snapshot(db) == before


def test_a_revert_takes_the_precondition_too(mem: Lethe, db: str) -> None:
    seen = mem.remember(TEXT)
    now = mem.update(seen.id, content="The hotel door code is 5582.")
    before = snapshot(db)
    with pytest.raises(ContentChanged):
        mem.revert(seen.id, 1, expected_sha256=seen.content_sha256)
    assert snapshot(db) == before
    assert mem.revert(seen.id, 1, expected_sha256=now.content_sha256).content == TEXT
