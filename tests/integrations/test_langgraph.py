"""lethe as a LangGraph store (issue 20, part 1): a real LangGraph graph whose nodes write and
read memories through `LetheStore`, and the store held to LangGraph's documented semantics —
beside LangGraph's own `InMemoryStore` where both answer — on both lethe stores with the real
MiniLM embedder. No LLM: nodes are plain functions."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp
from langgraph.store.memory import InMemoryStore

from lethe import Lethe
from lethe.embed import Embedder
from lethe.errors import ConfirmationRequired, LetheError
from lethe.integrations.langgraph import LetheStore
from tests.backends import snapshot
from tests.clocks import Clock


@pytest.fixture
def store(cmem: Lethe) -> LetheStore:
    return LetheStore(cmem)


class State(TypedDict):
    user: str
    said: str
    recalled: list[str]


def _graph(store: BaseStore) -> Any:
    def write(state: State, *, store: BaseStore) -> dict[str, Any]:
        n = len(store.search(("users", state["user"], "memories"), limit=100))
        store.put(("users", state["user"], "memories"), f"m{n}", {"text": state["said"]})
        return {}

    def read(state: State, *, store: BaseStore) -> dict[str, Any]:
        found = store.search(("users", state["user"]), query="what does the user drink?", limit=1)
        return {"recalled": [item.value["text"] for item in found]}

    graph = StateGraph(State)
    graph.add_node("write", write)
    graph.add_node("read", read)
    graph.add_edge(START, "write")
    graph.add_edge("write", "read")
    graph.add_edge("read", END)
    return graph.compile(store=store)


def test_a_graph_remembers_through_lethe(cmem: Lethe, store: LetheStore) -> None:
    app = _graph(store)
    for said in ("I moved to Lisbon in May.", "I drink green tea, never coffee.", "I own a cat."):
        out = app.invoke({"user": "u-1", "said": said, "recalled": []})
    assert out["recalled"] == ["I drink green tea, never coffee."]
    # Another user's memories are another namespace: not found from u-2's prefix.
    other = app.invoke({"user": "u-2", "said": "I like hiking.", "recalled": []})
    assert other["recalled"] == ["I like hiking."]
    # They are lethe memories: recall, the audit log and the namespaces see them.
    hits = cmem.recall("green tea", k=1, filters={"namespace": "lg.users.u-1.memories"})
    assert hits[0].memory.metadata["langgraph"]["key"] == "m1"
    assert {"lg.users.u-1.memories", "lg.users.u-2.memories"} <= set(cmem.namespaces())


def test_put_get_and_a_put_on_the_same_key_is_a_version(cmem: Lethe, store: LetheStore) -> None:
    ns = ("users", "u-1", "prefs")
    store.put(ns, "drink", {"text": "green tea", "strength": 2})
    item = store.get(ns, "drink")
    assert item is not None and item.value == {"text": "green tea", "strength": 2}
    assert item.namespace == ns and item.key == "drink"
    store.put(ns, "drink", {"text": "black coffee", "strength": 5})
    again = store.get(ns, "drink")
    assert again is not None and again.value["text"] == "black coffee"
    assert again.created_at == item.created_at
    memory_id = cmem.recall("coffee", k=1, filters={"namespace": "lg.users.u-1.prefs"})[0]
    history = cmem.history(memory_id.memory.id)
    assert [v.metadata["langgraph"]["value"]["text"] for v in history] == [
        "black coffee",
        "green tea",
    ]
    store.put(ns, "drink", {"text": "black coffee", "strength": 5})  # unchanged: no version
    assert len(cmem.history(memory_id.memory.id)) == 2
    assert store.get(ns, "nothing") is None
    assert store.get(("users", "u-2", "prefs"), "drink") is None


def test_the_same_value_under_two_keys_is_two_items(store: LetheStore) -> None:
    ns = ("notes",)
    store.put(ns, "a", {"text": "buy milk"})
    store.put(ns, "b", {"text": "buy milk"})
    assert {i.key for i in store.search(ns)} == {"a", "b"}


def test_delete_is_a_forget_the_trash_undoes(cmem: Lethe, store: LetheStore) -> None:
    ns = ("users", "u-1")
    store.put(ns, "secret", {"text": "my locker code is 4471"})
    memory = cmem.list_memories({"namespace": "lg.users.u-1"}).items[0]
    store.delete(ns, "secret")
    assert store.get(ns, "secret") is None
    assert store.search(ns, query="locker code") == []
    trashed = cmem.list_trash(limit=5)[0]
    assert [t.memory.id for t in trashed] == [memory.id]
    forgot = [e for e in cmem.audit(limit=20) if e.op == "forget"]
    assert forgot and forgot[0].actor == "langgraph"
    cmem.restore(memory.id)
    restored = store.get(ns, "secret")
    assert restored is not None and restored.value == {"text": "my locker code is 4471"}
    store.put(ns, "secret", None)  # a put of None deletes too
    assert store.get(ns, "secret") is None
    store.delete(ns, "never-stored")  # nothing to delete: nothing happens


def test_search_prefix_filters_and_pages(store: LetheStore) -> None:
    for n in range(7):
        store.put(("docs", "team-a" if n % 2 else "team-b"), f"d{n}", {"n": n, "kind": "note"})
    store.put(("docs", "team-a", "drafts"), "x", {"n": 99, "kind": "draft"})
    store.put(("other",), "y", {"n": 3, "kind": "note"})
    assert len(store.search(("docs",), limit=100)) == 8
    assert len(store.search(("docs", "team-a"), limit=100)) == 4  # d1, d3, d5 and the draft
    assert {i.key for i in store.search((), filter={"kind": "draft"})} == {"x"}
    big = store.search(("docs",), filter={"n": {"$gte": 4}, "kind": "note"}, limit=100)
    assert sorted(i.value["n"] for i in big) == [4, 5, 6]
    assert {i.key for i in store.search(("docs",), filter={"n": {"$ne": 99}}, limit=100)} == {
        f"d{n}" for n in range(7)
    }
    pages = [store.search(("docs",), limit=3, offset=o) for o in (0, 3, 6)]
    keys = [i.key for page in pages for i in page]
    assert len(keys) == 8 and len(set(keys)) == 8
    assert [len(p) for p in pages] == [3, 3, 2]


def test_search_by_query_ranks_by_meaning_and_keeps_unindexed_items_last(
    store: LetheStore,
) -> None:
    ns = ("users", "u-1")
    store.put(ns, "1", {"text": "The user is allergic to peanuts.", "kind": "health"})
    store.put(ns, "2", {"text": "The user's cat is called Miso.", "kind": "pet"})
    store.put(ns, "3", {"text": "Flight to Osaka on 3 May.", "kind": "travel"})
    store.put(ns, "4", {"text": "internal counter"}, index=False)
    found = store.search(ns, query="what food must the user avoid?", limit=2)
    assert found[0].key == "1"
    assert found[0].score is not None and found[0].score >= (found[1].score or 0)
    everything = store.search(ns, query="food allergy", limit=10)
    assert [i.key for i in everything][-1] == "4" and everything[-1].score is None
    only = store.search(ns, query="travel plans", filter={"kind": "travel"})
    assert [i.key for i in only] == ["3"]


def test_index_fields_choose_what_is_embedded(cmem: Lethe) -> None:
    store = LetheStore(cmem, index={"fields": ["title"]})
    store.put(("kb",), "a", {"title": "How to reset the router", "body": "zebra giraffe"})
    memory = cmem.list_memories({"namespace": "lg.kb"}).items[0]
    assert memory.content == "How to reset the router"
    store.put(("kb",), "b", {"title": "x", "tags": ["wifi", "modem"]}, index=["tags[*]"])
    assert "wifi\nmodem" in {m.content for m in cmem.list_memories({"namespace": "lg.kb"}).items}


def test_list_namespaces_like_langgraph(cmem: Lethe, store: LetheStore) -> None:
    spaces = [
        ("users", "u-1", "memories"),
        ("users", "u-2", "memories"),
        ("users", "u-2", "prefs"),
        ("docs", "v1"),
        ("José", "a b"),
    ]
    reference = InMemoryStore()
    for ns in spaces:
        store.put(ns, "k", {"text": "x"})
        reference.put(ns, "k", {"text": "x"})
    cmem.remember("A memory another face wrote")  # namespace default: not LangGraph's
    queries: list[dict[str, Any]] = [
        {},
        {"prefix": ("users",)},
        {"suffix": ("memories",)},
        {"prefix": ("users", "*", "prefs")},
        {"max_depth": 2},
        {"prefix": ("users",), "max_depth": 1},
        {"limit": 2, "offset": 1},
    ]
    for query in queries:
        assert store.list_namespaces(**query) == reference.list_namespaces(**query), query
    store.delete(("docs", "v1"), "k")  # only forgotten items left: no longer listed
    assert ("docs", "v1") not in store.list_namespaces()


def test_the_same_ops_answer_as_langgraphs_own_store(store: LetheStore) -> None:
    """A scripted session (no query) against both stores: the same items come back."""
    reference = InMemoryStore()
    script: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
        ("put", (("a", "b"), "k1", {"v": 1, "tag": "x"}), {}),
        ("put", (("a", "b"), "k2", {"v": 2, "tag": "y"}), {}),
        ("put", (("a", "c"), "k1", {"v": 3, "tag": "x"}), {}),
        ("put", (("a", "b"), "k1", {"v": 4, "tag": "x"}), {}),
        ("delete", (("a", "b"), "k2"), {}),
    ]
    for name, args, kwargs in script:
        getattr(store, name)(*args, **kwargs)
        getattr(reference, name)(*args, **kwargs)

    def seen(s: BaseStore) -> Any:
        got = s.get(("a", "b"), "k1")
        found = s.search(("a",), filter={"tag": "x"})
        return (
            got and got.value,
            s.get(("a", "b"), "k2"),
            sorted((i.namespace, i.key, tuple(sorted(i.value.items()))) for i in found),
            s.list_namespaces(),
        )

    assert seen(store) == seen(reference)


def test_a_batch_reads_before_its_writes(store: LetheStore) -> None:
    from langgraph.store.base import GetOp, PutOp

    store.put(("a",), "k", {"v": 1})
    results = store.batch(
        [PutOp(("a",), "k", {"v": 2}), GetOp(("a",), "k"), PutOp(("a",), "k", {"v": 3})]
    )
    assert results[0] is None and results[2] is None
    assert results[1] is not None and results[1].value == {"v": 1}
    after = store.get(("a",), "k")
    assert after is not None and after.value == {"v": 3}


def test_ttl_is_a_lethe_expiry_and_reads_refresh_it(
    cmem: Lethe, store: LetheStore, clock: Clock
) -> None:
    ns = ("session",)
    store.put(ns, "door", {"text": "door code 8812"}, ttl=10)
    memory = cmem.list_memories({"namespace": "lg.session"}).items[0]
    assert memory.expires_at == clock.now + timedelta(minutes=10)
    clock.advance(minutes=5)
    assert store.get(ns, "door") is not None  # half its time passed: pushed out again
    assert cmem.get(memory.id).expires_at == clock.now + timedelta(minutes=10)
    clock.advance(minutes=5)
    assert store.get(ns, "door", refresh_ttl=False) is not None  # read without refreshing
    clock.advance(minutes=5, seconds=1)
    assert store.get(ns, "door") is None
    gone = cmem.list_trash(limit=5)[0]
    assert [t.memory.id for t in gone] == [memory.id]
    assert any(e.op == "expire" for e in cmem.audit(limit=10))
    quiet = LetheStore(cmem, ttl={"refresh_on_read": False})
    quiet.put(ns, "wifi", {"text": "wifi password"}, ttl=10)
    clock.advance(minutes=6)
    assert quiet.get(ns, "wifi") is not None
    assert store.get(ns, "wifi", refresh_ttl=False) is not None
    clock.advance(minutes=5)
    assert quiet.get(ns, "wifi") is None


def test_a_put_without_ttl_removes_the_expiry(cmem: Lethe, store: LetheStore) -> None:
    store.put(("s",), "k", {"text": "temporary"}, ttl=10)
    store.put(("s",), "k", {"text": "kept for good"})
    assert cmem.list_memories({"namespace": "lg.s"}).items[0].expires_at is None


def test_an_unchanged_put_without_ttl_writes_nothing_and_keeps_the_expiry(
    db: str, cmem: Lethe, store: LetheStore
) -> None:
    store.put(("s",), "k", {"text": "temporary"}, ttl=10)
    before = snapshot(db)
    store.put(("s",), "k", {"text": "temporary"})
    assert snapshot(db) == before
    assert cmem.list_memories({"namespace": "lg.s"}).items[0].expires_at is not None


def _brought_forward(cmem: Lethe, minutes: int) -> str:
    """The person brings the item's expiry forward, confirmed (as the inspector or the CLI
    does): that expiry is now theirs."""
    memory = cmem.list_memories({"namespace": "lg.s"}).items[0]
    plan = cmem.plan_update(memory.id, expires_in=timedelta(minutes=minutes))
    assert plan.needs_confirmation
    assert cmem.execute(plan, via="inspector").expiry_held
    return memory.id


def test_no_read_refreshes_an_expiry_the_person_brought_forward(
    cmem: Lethe, store: LetheStore, clock: Clock
) -> None:
    store.put(("s",), "k", {"text": "door code 8812"}, ttl=60)
    memory_id = _brought_forward(cmem, 4)
    ends = cmem.get(memory_id).expires_at
    clock.advance(minutes=3)  # past half of the program's ttl window for the new expiry
    assert store.get(("s",), "k") is not None
    assert cmem.get(memory_id).expires_at == ends
    clock.advance(minutes=1)
    assert store.get(("s",), "k") is None


def test_no_put_moves_or_removes_an_expiry_the_person_set(
    cmem: Lethe, store: LetheStore, clock: Clock
) -> None:
    store.put(("s",), "k", {"text": "door code 8812"}, ttl=60)
    memory_id = _brought_forward(cmem, 5)
    ends = cmem.get(memory_id).expires_at
    store.put(("s",), "k", {"text": "door code 9921"})  # no ttl: an agent's would end
    store.put(("s",), "k", {"text": "door code 9921"}, ttl=600)  # a later one
    after = cmem.get(memory_id)
    assert "door code 9921" in after.content
    assert after.expires_at == ends and after.expiry_held


def test_the_programs_own_ttl_stays_the_programs(
    cmem: Lethe, store: LetheStore, clock: Clock
) -> None:
    """A ttl put on an item that had none is confirmed by the program, not a person: reads
    go on refreshing it."""
    store.put(("s",), "k", {"text": "door code 8812"})
    store.put(("s",), "k", {"text": "door code 8812"}, ttl=10)
    memory = cmem.list_memories({"namespace": "lg.s"}).items[0]
    assert memory.expires_at is not None and not memory.expiry_held
    clock.advance(minutes=6)
    assert store.get(("s",), "k") is not None
    assert cmem.get(memory.id).expires_at == clock.now + timedelta(minutes=10)


def test_async_methods(store: LetheStore) -> None:
    async def scenario() -> None:
        await store.aput(("a",), "k", {"text": "async tea"})
        item = await store.aget(("a",), "k")
        assert item is not None and item.value == {"text": "async tea"}
        assert [i.key for i in await store.asearch(("a",), query="tea")] == ["k"]
        assert await store.alist_namespaces() == [("a",)]
        await store.adelete(("a",), "k")
        assert await store.aget(("a",), "k") is None

    asyncio.run(scenario())


@pytest.mark.parametrize(
    ("namespace", "says"),
    [
        (("a.b",), "periods"),
        ((), "empty"),
        (("langgraph", "x"), "langgraph"),
        (("",), "empty"),
    ],
)
def test_bad_namespaces_are_refused_and_store_nothing(
    db: str, store: LetheStore, namespace: tuple[str, ...], says: str
) -> None:
    before = snapshot(db)
    with pytest.raises(InvalidNamespaceError, match=says):
        store.put(namespace, "k", {"text": "x"})
    assert snapshot(db) == before


def test_bad_values_and_configs_are_refused(db: str, cmem: Lethe, store: LetheStore) -> None:
    before = snapshot(db)
    with pytest.raises(LetheError):
        store.put(("a",), "k", {"when": object()})
    store.put(("a",), "k", {"n": 1})
    with pytest.raises(ValueError, match="operator"):
        store.search(("a",), filter={"n": {"$regex": "1"}})
    with pytest.raises(ValueError, match="fields only"):
        LetheStore(cmem, index={"dims": 1536, "embed": "openai:text-embedding-3-small"})
    assert len(snapshot(db)["memories"]) == len(before["memories"]) + 1


def test_a_put_never_changes_a_protected_memory(db: str, cmem: Lethe, store: LetheStore) -> None:
    """The person pinned what the agent wrote: the agent's next put is refused, not
    confirmed by the store itself."""
    store.put(("u",), "allergy", {"text": "severely allergic to penicillin"})
    memory = cmem.list_memories({"namespace": "lg.u"}).items[0]
    cmem.execute(cmem.plan_update(memory.id, importance=0.95, layer="caveat"))
    before = snapshot(db)
    with pytest.raises(ConfirmationRequired, match="protected"):
        store.put(("u",), "allergy", {"text": "no known allergies"})
    assert snapshot(db) == before
    item = store.get(("u",), "allergy")
    assert item is not None and item.value["text"] == "severely allergic to penicillin"


def test_concurrent_puts_to_one_key_make_one_item(cmem: Lethe, store: LetheStore) -> None:
    async def scenario() -> None:
        await asyncio.gather(*(store.aput(("c",), "k", {"v": n}) for n in range(6)))

    asyncio.run(scenario())
    assert cmem.list_memories({"namespace": "lg.c"}).total == 1
    store.delete(("c",), "k")
    assert store.get(("c",), "k") is None and store.search(("c",)) == []


def test_a_read_counts_as_an_access(cmem: Lethe, store: LetheStore) -> None:
    """Decay judges a memory by its reads: an item the agent gets is not idle."""
    store.put(("a",), "k", {"text": "read often"})
    for _ in range(3):
        store.get(("a",), "k")
    assert cmem.list_memories({"namespace": "lg.a"}).items[0].access_count == 3


def test_a_restored_old_item_never_doubles_a_key(cmem: Lethe, store: LetheStore) -> None:
    store.put(("r",), "k", {"v": "old"})
    old = cmem.list_memories({"namespace": "lg.r"}).items[0]
    store.delete(("r",), "k")
    store.put(("r",), "k", {"v": "new"})
    cmem.restore(old.id)
    got = store.get(("r",), "k")
    assert got is not None and got.value == {"v": "new"}
    assert [i.value for i in store.search(("r",))] == [{"v": "new"}]
    store.delete(("r",), "k")
    assert store.get(("r",), "k") is None


def test_a_query_search_pages_past_recalls_hundred_hits(store: LetheStore) -> None:
    reference = InMemoryStore()
    for n in range(130):
        for s in (store, reference):
            s.put(("big",), f"k{n}", {"text": f"note number {n} about gardening", "n": n})
    page = store.search(("big",), query="gardening notes", limit=20, offset=115)
    assert len(page) == 15 == len(reference.search(("big",), limit=20, offset=115))
    found = store.search(("big",), query="gardening notes", filter={"n": {"$gte": 120}}, limit=50)
    assert sorted(i.value["n"] for i in found) == list(range(120, 130))
    keys = [
        i.key for o in (0, 50, 100) for i in store.search(("big",), query="x", limit=50, offset=o)
    ]
    assert len(keys) == len(set(keys)) == 130


def test_a_root_must_be_one_label(cmem: Lethe) -> None:
    for bad in ("app.v1", "", "-x", "x y"):
        with pytest.raises(ValueError, match="root"):
            LetheStore(cmem, root=bad)
    assert LetheStore(cmem, root="app_v1").root == "app_v1"


@pytest.mark.parametrize("given", ["memory.db", Path("memory.db"), None])
def test_a_path_where_a_lethe_is_expected_is_a_type_error_saying_what_to_pass(
    given: object,
) -> None:
    with pytest.raises(TypeError, match=r"pass Lethe\.open\(path\)"):
        LetheStore(given)  # type: ignore[arg-type]


def test_deleting_a_pinned_item_says_it_is_protected_and_how_to_lift_that(
    db: str, cmem: Lethe, store: LetheStore
) -> None:
    store.put(("u",), "allergy", {"text": "severely allergic to penicillin"})
    memory = cmem.list_memories({"namespace": "lg.u"}).items[0]
    cmem.execute(cmem.plan_update(memory.id, importance=0.95))
    before = snapshot(db)
    with pytest.raises(LetheError) as refused:
        store.delete(("u",), "allergy")
    assert "protected (pinned" in refused.value.message and "allergy" in refused.value.message
    assert "lower its importance below 0.9" in (refused.value.hint or "")
    assert snapshot(db) == before
    assert store.get(("u",), "allergy") is not None


@pytest.mark.parametrize(
    ("namespace", "key", "error"),
    [
        (("users", "u\ud800"), "k", InvalidNamespaceError),
        (("users", "u1"), "k\ud800", ValueError),
    ],
)
def test_a_lone_surrogate_in_a_label_or_key_is_a_clear_error(
    db: str, store: LetheStore, namespace: tuple[str, ...], key: str, error: type[Exception]
) -> None:
    before = snapshot(db)
    for call in (
        lambda: store.put(namespace, key, {"text": "x"}),
        lambda: store.get(namespace, key),
    ):
        with pytest.raises(error, match="lone surrogate"):
            call()
    assert snapshot(db) == before


def test_an_equal_value_with_its_keys_in_another_order_is_unchanged(
    db: str, cmem: Lethe, store: LetheStore
) -> None:
    store.put(("s",), "k", {"a": "door code 8812", "b": 1}, index=False, ttl=10)
    before = snapshot(db)
    store.put(("s",), "k", {"b": 1, "a": "door code 8812"}, index=False)
    assert snapshot(db) == before


def test_a_ttl_sooner_than_the_persons_expiry_applies_and_stays_held(
    cmem: Lethe, store: LetheStore, clock: Clock
) -> None:
    store.put(("s",), "k", {"text": "door code 8812"}, ttl=60)
    memory_id = _brought_forward(cmem, 30)
    store.put(("s",), "k", {"text": "door code 8812"}, ttl=5)
    after = cmem.get(memory_id)
    assert after.expires_at == clock.now + timedelta(minutes=5) and after.expiry_held


def test_the_root_label_langgraph_is_refused_by_put_not_by_batch(store: LetheStore) -> None:
    """As LangGraph's own stores: the public put refuses it, a PutOp given to batch may use
    it (LangGraph's test_cannot_put_empty_namespace)."""
    with pytest.raises(InvalidNamespaceError, match="langgraph"):
        store.put(("langgraph", "foo"), "bar", {"foo": "bar"})
    store.batch([PutOp(("langgraph", "foo"), "bar", {"foo": "bar"})])
    found = store.get(("langgraph", "foo"), "bar")
    assert found is not None and found.value == {"foo": "bar"}
    store.delete(("langgraph", "foo"), "bar")
    assert store.get(("langgraph", "foo"), "bar") is None


def test_a_search_scores_each_item_by_its_cosine_to_the_query(
    cmem: Lethe, store: LetheStore
) -> None:
    """As LangGraph's own stores score: the cosine of the query and the item (0-1), for the
    ranked hits and for the items past them alike; the order is lethe's hybrid rank."""
    store.put(("s",), "tea", {"text": "The user drinks green tea every morning"})
    store.put(("s",), "bike", {"text": "The user rides a bike to work"})
    found = store.search(("s",), query="what does the user drink", limit=10)
    ids = {
        m.metadata["langgraph"]["key"]: m.id
        for m in cmem.list_memories({"namespace": "lg.s"}).items
    }
    cosine = cmem.similarities("what does the user drink", list(ids.values()))
    assert found[0].key == "tea"
    for item in found:
        assert item.score == pytest.approx(cosine[ids[item.key]], abs=1e-6)
    past = store.search(("s",), query="what does the user drink", filter={"text": {"$ne": ""}})
    assert all(i.score is not None for i in past)


def test_a_prefix_given_as_a_list_and_dotted_filter_keys_work_as_in_langgraph(
    store: LetheStore,
) -> None:
    """LangGraph's SQLite store tests search with a list for a prefix and filter on
    "user.access-level" (a nested field) beside keys holding hyphens and digits."""
    store.put(("docs",), "hyphen", {"access-level": "public", "user": {"access-level": "in"}})
    store.put(("docs",), "digit", {"123abc": "ok"})
    assert {i.key for i in store.search(["docs"])} == {"hyphen", "digit"}  # type: ignore[arg-type]
    assert [i.key for i in store.search(("docs",), filter={"access-level": "public"})] == ["hyphen"]
    assert [i.key for i in store.search(("docs",), filter={"user.access-level": "in"})] == [
        "hyphen"
    ]
    assert [i.key for i in store.search(("docs",), filter={"123abc": "ok"})] == ["digit"]


def test_a_namespace_too_long_for_lethe_is_named_by_its_digest(
    cmem: Lethe, store: LetheStore
) -> None:
    """Two UUIDs and three words (LangGraph's test_list_namespaces_operations) are 98
    characters as a lethe namespace: the items live under a digest name, keep their labels,
    and every operation answers with the LangGraph namespace as it was put."""
    pref = "7b743a28-4de0-4cba-9671-7a249d4917db"
    public = (pref, "test", "documents", "public", pref)
    private = (pref, "test", "documents", "private", pref)
    store.put(public, "doc", {"text": "the quarterly report"})
    store.put(private, "doc", {"text": "the salary table"})
    names = [n for n in cmem.namespaces() if n.startswith("lg.")]
    assert len(names) == 2 and all(n.startswith("lg.:z") and len(n) <= 64 for n in names)
    got = store.get(public, "doc")
    assert got is not None and got.namespace == public
    assert set(store.list_namespaces(prefix=(pref, "test"))) == {public, private}
    assert store.list_namespaces(suffix=("public", pref)) == [public]
    [hit] = store.search((pref, "test", "documents", "public"), query="report")
    assert hit.namespace == public and hit.key == "doc"
    store.delete(public, "doc")
    assert store.get(public, "doc") is None
    assert store.list_namespaces(prefix=(pref,)) == [private]


class _Counting:
    """The real embedder, counting its calls."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.calls: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: Any) -> Any:
        self.calls.append(len(texts))
        return self.inner.embed(texts)


def test_a_batch_embeds_its_new_items_in_one_call(
    db: str, embedder: Embedder, clock: Clock
) -> None:
    counting = _Counting(embedder)
    with Lethe.open(db, embedder=counting, clock=clock) as mem:  # type: ignore[arg-type]
        store = LetheStore(mem)
        store.put(("s",), "old", {"text": "kept from before"})
        counting.calls.clear()
        store.batch(
            [
                PutOp(("s",), f"k{i}", {"text": f"note {i}"}, ttl=10 if i == 0 else None)
                for i in range(5)
            ]
            + [PutOp(("s",), "old", {"text": "changed"})]
        )
        assert counting.calls.count(5) == 1, counting.calls
        assert [store.get(("s",), f"k{i}").value for i in range(5)] == [  # type: ignore[union-attr]
            {"text": f"note {i}"} for i in range(5)
        ]
        assert store.get(("s",), "old").value == {"text": "changed"}  # type: ignore[union-attr]
        first = mem.list_memories({"namespace": "lg.s"}, limit=10).items
        ends = {m.metadata["langgraph"]["key"]: m.expires_at for m in first}
        assert ends["k0"] == clock.now + timedelta(minutes=10) and ends["k1"] is None


def test_concurrent_aputs_are_stored_as_one_batch(db: str, embedder: Embedder) -> None:
    """A graph's `asyncio.gather` of many `aput`s is embedded in one encoder call, not one per
    put (LangGraph's own async stores batch the same way)."""
    counting = _Counting(embedder)
    with Lethe.open(db, embedder=counting) as mem:  # type: ignore[arg-type]
        store = LetheStore(mem)

        async def scenario() -> None:
            await asyncio.gather(
                *(store.aput(("g",), f"k{i}", {"text": f"fact number {i}"}) for i in range(40))
            )

        asyncio.run(scenario())
        assert counting.calls == [40]
        got = [store.get(("g",), f"k{i}") for i in range(40)]
        assert [item.value if item else None for item in got] == [
            {"text": f"fact number {i}"} for i in range(40)
        ]


def test_a_refused_put_among_concurrent_ones_fails_only_its_caller(
    cmem: Lethe, store: LetheStore
) -> None:
    async def scenario() -> list[Any]:
        return await asyncio.gather(
            store.aput(("g",), "a", {"text": "the first fact"}),
            store.aput(("g",), "bad", {"when": {1, 2}}),  # a set is not JSON
            store.aput(("g",), "b", {"text": "the second fact"}),
            return_exceptions=True,
        )

    first, bad, second = asyncio.run(scenario())
    assert first is None and second is None
    assert isinstance(bad, LetheError) and "not JSON" in str(bad)
    assert store.get(("g",), "a").value == {"text": "the first fact"}  # type: ignore[union-attr]
    assert store.get(("g",), "b").value == {"text": "the second fact"}  # type: ignore[union-attr]
    assert store.get(("g",), "bad") is None
    assert cmem.list_memories({"namespace": "lg.g"}).total == 2


def test_a_put_cancelled_before_it_was_stored_stores_nothing(
    cmem: Lethe, store: LetheStore
) -> None:
    async def scenario() -> None:
        cancelled = asyncio.ensure_future(store.aput(("g",), "gone", {"text": "never mind"}))
        kept = asyncio.ensure_future(store.aput(("g",), "kept", {"text": "keep this"}))
        await asyncio.sleep(0)  # both are waiting for the batch
        cancelled.cancel()
        await kept
        with pytest.raises(asyncio.CancelledError):
            await cancelled

    asyncio.run(scenario())
    assert store.get(("g",), "gone") is None
    assert store.get(("g",), "kept").value == {"text": "keep this"}  # type: ignore[union-attr]
