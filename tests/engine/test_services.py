"""The engine is composed of services, each built from what it uses; `Lethe` hands every
public call to one of them.

Pinned here: the facade's public methods (none lost in the move from mixins), that each is
its service's own method (same signature, same docstring), that nothing in the engine
inherits behaviour from another engine class, and that the main services can be built alone
from their dependencies and used without a `Lethe`.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import lethe.engine
from lethe.config import Settings
from lethe.embed import Embedder
from lethe.engine.audit import Audit
from lethe.engine.base import Core
from lethe.engine.derived import Derived
from lethe.engine.expiring import Expiry
from lethe.engine.forgetting import Forgetting
from lethe.engine.lethe import Lethe, open_store
from lethe.engine.memories import Memories
from lethe.engine.owed import OwedWork
from lethe.engine.past import Past
from lethe.engine.proof import Proof
from lethe.engine.receipts import Receipts
from lethe.engine.records import Records
from lethe.engine.redaction import Redaction
from lethe.engine.relations import Relations
from lethe.engine.search import Search
from lethe.engine.superseding import Superseding
from lethe.engine.trash import Trash
from lethe.engine.versions import Versions
from lethe.engine.working import Working
from lethe.errors import MemoryNotFound
from lethe.forget.change import CHANGE_FIELDS, Change
from lethe.model import Note
from tests.clocks import Clock

# `dir(Lethe)`'s public names when it was assembled from 23 mixins (issue 46), then changed on
# purpose: check_unchanged went (the engine checks a precondition itself, at planning), and
# ask_forget / answer_forget and ask_change / answer_change came (a face's confirmation
# of a forget, a purge or a weakening change, issue 46).
PUBLIC = [
    "answer_change",
    "answer_forget",
    "answered",
    "ask",
    "ask_change",
    "ask_forget",
    "attend",
    "audit",
    "bump",
    "check_sweep_allowed",
    "close",
    "confirm_change",
    "consolidate",
    "context",
    "create_episode",
    "decline",
    "deletion_report",
    "episodes_of",
    "execute",
    "execute_sweep",
    "expire_due",
    "export_records",
    "forget",
    "forget_instruction",
    "forget_session",
    "get",
    "get_episode",
    "history",
    "import_from",
    "import_records",
    "import_source",
    "link",
    "links",
    "list_memories",
    "list_trash",
    "maintain",
    "namespaces",
    "neighbours",
    "now",
    "open",
    "pending_confirmations",
    "plan_forget",
    "plan_purge",
    "plan_revert",
    "plan_update",
    "read_source",
    "rebuild_workspace",
    "recall",
    "receipt",
    "receipts",
    "remember",
    "remember_many",
    "restore",
    "revert",
    "settle_owed",
    "similarities",
    "sweep",
    "sweep_asked",
    "sweep_declined",
    "touch",
    "unlink",
    "update",
    "verify_receipt",
    "vitality",
]
OWN = {"open", "close"}  # the facade's own: opening the store, closing it


def test_the_facade_keeps_every_public_method_it_had() -> None:
    assert sorted(n for n in dir(Lethe) if not n.startswith("_")) == PUBLIC


def test_the_facade_inherits_nothing() -> None:
    assert Lethe.__bases__ == (object,)


def _engine_classes() -> Iterator[type]:
    for info in pkgutil.iter_modules(lethe.engine.__path__):
        module = importlib.import_module(f"lethe.engine.{info.name}")
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ == module.__name__:
                yield cls


def test_no_engine_class_inherits_from_another() -> None:
    """No mixins: a service names the services it calls in its constructor. Only the frozen
    pydantic records share their configuration through a base of their module."""
    inheriting = [
        f"{cls.__module__}.{cls.__name__}({base.__name__})"
        for cls in _engine_classes()
        for base in cls.__bases__
        if base.__module__.startswith("lethe.engine") and not issubclass(base, BaseModel)
    ]
    assert inheriting == []


@pytest.mark.parametrize("name", sorted(set(PUBLIC) - OWN))
def test_each_public_method_is_its_service_s_own(name: str) -> None:
    """The facade's method has the service's signature and docstring, and hands the call on
    (read in its source: `self._<service>.<name>(`)."""
    facade = getattr(Lethe, name)
    source = inspect.getsource(facade)
    called = [
        line.split("self.", 1)[1].split("(", 1)[0]
        for line in source.splitlines()
        if f".{name}(" in line and "self._" in line
    ]
    assert called, f"Lethe.{name} does not hand the call to a service"
    attr = called[0].split(".")[0]
    assert all(c == f"{attr}.{name}" for c in called), called
    service_cls = _SERVICE_OF_ATTR[attr]
    own = getattr(service_cls, name)
    if name in BUILDS_A_CHANGE:
        _builds_a_change(facade, own)
    elif name == "remember":
        _builds_a_note(facade, own)
    else:
        assert inspect.signature(facade) == inspect.signature(own)
    assert inspect.getdoc(facade) == inspect.getdoc(own)


BUILDS_A_CHANGE = {"plan_update", "update"}
"""Public methods whose keywords the facade gathers into one `Change` for its service (issue
46: a change is one value through the layers, not sixteen keywords at each)."""


def _builds_a_change(facade: Callable[..., Any], own: Callable[..., Any]) -> None:
    """The facade keeps its keywords (the public API) and takes a whole `Change` too; the
    service takes only the `Change`, with who asks and where."""
    mine = inspect.signature(facade).parameters
    theirs = inspect.signature(own).parameters
    assert list(theirs) == ["self", "memory_id", "change", "actor", "namespace"]
    assert set(mine) == {"self", "memory_id", "actor", "namespace", "change", *CHANGE_FIELDS}
    assert all(
        p.kind is p.KEYWORD_ONLY for n, p in mine.items() if n not in theirs or n == "change"
    )


def _builds_a_note(facade: Callable[..., Any], own: Callable[..., Any]) -> None:
    """`remember` keeps its text and keywords (the public API) and takes a whole `Note` in
    the text's place; the service takes only the `Note`, with where, who asks, and whether
    lethe writes it."""
    mine = inspect.signature(facade).parameters
    theirs = inspect.signature(own).parameters
    assert list(theirs) == ["self", "note", "namespace", "actor", "system"]
    note_fields = {f.name for f in dataclasses.fields(Note)}
    assert set(mine) == {"self", "namespace", "actor", "system"} | note_fields
    assert mine["content"].annotation == "str | Note"
    assert all(p.kind is p.KEYWORD_ONLY for n, p in mine.items() if n not in {"self", "content"})


_SERVICE_OF_ATTR: dict[str, type] = {}


@pytest.fixture(autouse=True, scope="module")
def _services_of_a_facade(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> None:
    """Which class each of a real facade's service attributes holds."""
    with Lethe.open(tmp_path_factory.mktemp("facade") / "m.db", embedder=embedder) as mem:
        for attr, value in vars(mem).items():
            if attr.startswith("_") and type(value).__module__.startswith("lethe.engine"):
                _SERVICE_OF_ATTR[attr] = type(value)


# --- the services alone ------------------------------------------------------------------


@dataclass
class Parts:
    core: Core
    clock: Clock
    expiry: Expiry
    past: Past
    working: Working
    versions: Versions
    memories: Memories


@pytest.fixture
def parts(db_path: Path, embedder: Embedder) -> Iterator[Parts]:
    """The services every test below stands on, built by hand from a store: no `Lethe`."""
    settings = Settings.load(overrides={"db": str(db_path)})
    store = open_store(settings, embedder.name, embedder.dim)
    clock = Clock()
    core = Core(store, embedder, settings, clock)
    expiry = Expiry(core)
    past = Past(store, embedder, settings, clock, expiry)
    working = Working(store, embedder, settings, clock, expiry)
    versions = Versions(core, expiry)
    memories = Memories(core, Superseding(core, versions), working)
    try:
        yield Parts(core, clock, expiry, past, working, versions, memories)
    finally:
        store.close()


def _forgetting(p: Parts) -> Forgetting:
    search = Search(p.core, p.expiry, p.past, p.working)
    store, embedder = p.core.store, p.core.embedder
    return Forgetting(
        p.core,
        p.expiry,
        p.versions,
        search,
        Redaction(store, embedder, p.versions),
        Derived(embedder),
        Proof(p.core, search),
    )


def test_memories_remember_and_past_reads_it(parts: Parts) -> None:
    made = parts.memories.remember(Note("Alice moved to Lisbon in March", tags=["alice"]))
    assert parts.past.get(made.id).content == "Alice moved to Lisbon in March"
    with pytest.raises(MemoryNotFound):
        parts.past.get(made.id, namespace="elsewhere")


def test_expiry_turns_a_due_memory_into_a_soft_delete(parts: Parts) -> None:
    made = parts.memories.remember(Note("The door code is 4471 this week", expires_in="1d"))
    assert parts.expiry.expire_due() == []
    parts.clock.advance(days=2)
    assert parts.expiry.expire_due() == [made.id]
    with pytest.raises(MemoryNotFound):
        parts.past.get(made.id)


def test_versions_update_and_history(parts: Parts) -> None:
    made = parts.memories.remember(Note("Bob works at Acme"))
    parts.clock.advance(hours=1)
    changed = parts.versions.update(made.id, Change(content="Bob works at Initech"))
    assert changed.version == 2
    assert [v.content for v in parts.versions.history(made.id)] == [
        "Bob works at Initech",
        "Bob works at Acme",
    ]


def test_search_recalls_what_memories_wrote(parts: Parts) -> None:
    search = Search(parts.core, parts.expiry, parts.past, parts.working)
    made = parts.memories.remember(Note("The cat's name is Miso"))
    parts.memories.remember(Note("Quarterly taxes are due in April"))
    hits = search.recall("what is the cat called", k=1)
    assert [h.memory.id for h in hits] == [made.id]


def test_relations_link_two_memories(parts: Parts) -> None:
    core = parts.core
    relations = Relations(core.store, core.settings, core.clock, parts.past)
    a = parts.memories.remember(Note("Carol is Dave's sister"))
    b = parts.memories.remember(Note("Dave lives in Oslo"))
    relations.link(a.id, b.id, kind="related")
    assert [(link.a, link.b) for link in relations.links(a.id)] == [tuple(sorted((a.id, b.id)))]


def test_working_memory_takes_in_what_is_remembered(parts: Parts) -> None:
    made = parts.memories.remember(Note("Meeting with Erin at 3pm", agent="planner"))
    context = parts.working.context("planner")
    assert [item.id for item in context.items] == [made.id]


def test_forgetting_then_trash_restores(parts: Parts) -> None:
    forgetting = _forgetting(parts)
    proof = Proof(parts.core, Search(parts.core, parts.expiry, parts.past, parts.working))
    trash = Trash(parts.core, parts.expiry, parts.past, forgetting, OwedWork(parts.core, proof))
    made = parts.memories.remember(Note("Frank's passport number is X1234567"))
    result = forgetting.execute(forgetting.plan_forget([made.id]))
    assert result.executed == (made.id,)
    assert [item.memory.id for item in trash.list_trash()[0]] == [made.id]
    assert trash.restore(made.id).id == made.id
    assert parts.past.get(made.id).id == made.id


def test_audit_and_receipts_read_what_was_recorded(parts: Parts) -> None:
    made = parts.memories.remember(Note("Gina prefers tea"))
    audit = Audit(parts.core.store, parts.expiry)
    assert [(e.op, e.memory_id) for e in audit.audit()] == [("remember", made.id)]
    assert Receipts(parts.core.store).receipts() == []


def test_records_export_what_memories_wrote(parts: Parts) -> None:
    parts.memories.remember(Note("Hana's birthday is 4 May"))
    records = Records(parts.core, parts.expiry, parts.memories)
    exported = records.export_records()
    assert exported.memories == 1
