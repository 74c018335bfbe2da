"""Forgetting a fact that was superseded (engine/forgetting.py gathers, for the planner, the
texts each candidate superseded): after "Dana's favorite color is blue" became "Dana switched
to green" by `remember(…, supersedes=…)`, the label "Dana favorite color" still means that
memory. An update that rewrote it is not a supersede and lends nothing."""

from __future__ import annotations

from lethe import Lethe

FILLERS = [
    "The conference room moved to the 4th floor.",
    "Coffee machine is offline on Tuesdays.",
    "Kim's favorite color is amber.",
]


def marked(mem: Lethe, request: str) -> list[str]:
    return [item.id for item in mem.plan_forget(query=request).targets]


def test_a_label_finds_the_memory_along_its_chain_of_supersedes(mem: Lethe) -> None:
    for text in FILLERS:
        mem.remember(text)
    first = mem.remember("Dana's favorite color is blue.").id
    assert marked(mem, "Dana favorite color") == [first]
    assert mem.remember("Dana switched to green.", supersedes=first).id == first
    assert marked(mem, "Dana favorite color") == [first]
    mem.remember("Now Dana prefers purple.", supersedes=first)
    assert marked(mem, "Dana favorite color") == [first]
    assert [h.memory.content for h in mem.recall("Dana favorite color", k=1)] == [
        "Now Dana prefers purple."
    ]


def test_an_employer_chain_is_settled_by_the_text_it_superseded(mem: Lethe) -> None:
    for text in FILLERS:
        mem.remember(text)
    first = mem.remember("Dana started at Google in 2020.").id
    assert marked(mem, "Dana employer") == [first]
    mem.remember("Dana moved to Stripe in 2022.", supersedes=first)
    assert marked(mem, "Dana employer") == [first]


def test_an_update_lends_nothing_of_the_text_it_replaced(mem: Lethe) -> None:
    for text in FILLERS:
        mem.remember(text)
    first = mem.remember("Dana's favorite color is blue.").id
    mem.update(first, content="Dana switched to green.")
    assert marked(mem, "Dana favorite color") == []
