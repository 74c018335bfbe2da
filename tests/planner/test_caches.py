"""A purge leaves nothing of an erased text in the process that erased it: the planner's
caches of what it read of texts are emptied once the purge commits (planner/caches.py)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from lethe import Lethe
from lethe.embed import Embedder
from lethe.engine.forgetting import Forgetting
from lethe.forget.plan import ForgetPlan
from lethe.planner import caches, evidence

SECRET = "Zofia's locker code at the Marlowe gym is 7731"


def _held() -> dict[str, int]:
    return {
        f"{c.__module__}.{c.__qualname__}": c.cache_info().currsize
        for c in caches.text_caches()
        if c.cache_info().currsize
    }


def test_a_purge_empties_every_cache_of_read_texts(tmp_path: Path, embedder: Embedder) -> None:
    with Lethe.open(tmp_path / "m.db", embedder=embedder) as mem:
        kept = mem.remember("Zofia trains at the Marlowe gym on Mondays")
        gone = mem.remember(SECRET)
        mem.remember("Zofia's locker code at the Marlowe gym is now 9902")  # the reader runs
        asked = mem.plan_forget(query="forget Zofia's locker code")
        assert _held(), "the readers cached nothing: this test would prove nothing"
        mem.execute(mem.plan_forget([gone.id]))
        assert _held(), "a forget keeps the text (in the trash): the caches may keep it too"
        mem.execute(mem.plan_purge([gone.id]))
        assert _held() == {}
        assert asked.items and mem.get(kept.id).content.startswith("Zofia trains")


def test_every_cache_is_found_in_the_planner_and_forget_packages() -> None:
    import lethe.planner.wording  # noqa: F401  (loaded: its caches are found)

    names = {f"{c.__module__}.{c.__name__}" for c in caches.text_caches()}
    assert any(n.startswith("lethe.planner.wording.") for n in names)
    assert all(n.startswith(("lethe.planner.", "lethe.forget.")) for n in names)


WORD = "xylophonists"
ERASED = f"Zofia's locker code at the Marlowe gym is 7731, kept by the {WORD}"


def _holds(cache: Any, key: str) -> bool:
    """Whether `cache` (an lru_cache) holds `key`: asking for it again counts a hit."""
    before = cache.cache_info().hits
    cache(key)
    return bool(cache.cache_info().hits > before)


def test_a_plan_beside_a_purge_keeps_nothing_it_read_of_the_erased_text(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A description plan in another thread gathers its candidates (the erased memory among
    them) before the purge commits, and reads them once the purge has returned: the order is
    forced, since it is a race the scheduler seldom runs."""
    gathered, purged = threading.Event(), threading.Event()
    gather = Forgetting._gather

    def gather_then_wait(self: Forgetting, *args: Any) -> Any:
        found = gather(self, *args)
        if threading.current_thread().name == "planner":
            gathered.set()
            assert purged.wait(30), "the purge never returned"
        return found

    monkeypatch.setattr(Forgetting, "_gather", gather_then_wait)
    with Lethe.open(tmp_path / "m.db", embedder=embedder) as mem:
        mem.remember("Zofia trains at the Marlowe gym on Mondays")
        gone = mem.remember(ERASED)
        purge = mem.plan_purge([gone.id])
        plans: list[ForgetPlan] = []
        planner = threading.Thread(
            name="planner",
            target=lambda: plans.append(mem.plan_forget(query="forget Zofia's locker code")),
        )
        planner.start()
        assert gathered.wait(30)
        assert mem.execute(purge).executed == (gone.id,)
        purged.set()
        planner.join(30)
        assert plans and gone.id in {i.id for i in plans[0].items}, "the plan read it first"
        # (The word first: reading the text again would cache its words.)
        assert not _holds(evidence._stem, WORD)
        assert not _holds(evidence.words, ERASED)
