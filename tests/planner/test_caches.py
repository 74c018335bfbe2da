"""A purge leaves nothing of an erased text in the process that erased it: the planner's
caches of what it read of texts are emptied once the purge commits (planner/caches.py)."""

from __future__ import annotations

from pathlib import Path

from lethe import Lethe
from lethe.embed import Embedder
from lethe.planner import caches

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
