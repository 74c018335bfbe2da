"""The names `import lethe` offers (lethe/__init__.py): the facade, the models and the types of
the plan -> confirm -> execute flow. Pinned, so that adding or dropping one is a decision."""

from __future__ import annotations

from pathlib import Path

import lethe
from lethe.embed import Embedder

PUBLIC = {
    "Change",
    "ChangeConfirmation",
    "Confirmation",
    "ConfirmationRequired",
    "ContentChanged",
    "Draft",
    "Episode",
    "EpisodeView",
    "Event",
    "Filters",
    "ForgetPlan",
    "ForgetResult",
    "InvalidInput",
    "Lethe",
    "LetheError",
    "Link",
    "Memory",
    "MemoryNotFound",
    "Note",
    "PlanItem",
    "RecallHit",
    "UpdatePlan",
}


def test_the_public_names_are_pinned() -> None:
    assert set(lethe.__all__) == PUBLIC


def test_every_public_name_resolves_to_a_class_of_that_name() -> None:
    for name in lethe.__all__:
        value = getattr(lethe, name)
        assert isinstance(value, type) and value.__name__ == name, name


def test_the_flow_types_are_the_ones_the_engine_returns(tmp_path: Path, embedder: Embedder) -> None:
    with lethe.Lethe.open(tmp_path / "m.db", embedder=embedder) as memory:
        kept = memory.remember("The user's locker code is 4821.")
        plan = memory.plan_forget(kept.id)
        assert isinstance(plan, lethe.ForgetPlan)
        assert all(isinstance(item, lethe.PlanItem) for item in plan.items)
        result = memory.execute(plan)
        noted = memory.remember(lethe.Note("The user's bike is blue.", tags=["bike"]))
        changed = memory.update(noted.id, change=lethe.Change(importance=0.7))
        assert (noted.tags, changed.importance) == (("bike",), 0.7)
        assert isinstance(result, lethe.ForgetResult)
        assert result.executed == (kept.id,)


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        lethe.NotAThing  # noqa: B018
    except AttributeError as error:
        assert "NotAThing" in str(error)
    else:
        raise AssertionError("lethe.NotAThing resolved")
