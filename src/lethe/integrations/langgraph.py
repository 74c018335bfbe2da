"""A LangGraph store whose long-term memory is lethe: `LetheStore(mem)` where a graph takes a
`BaseStore` (`graph.compile(store=LetheStore(mem))`, `pip install lethe-mcp[langgraph]`).

What LangGraph asks of a store, and what lethe makes of it:

- **put** stores the value as a memory of the lethe namespace its LangGraph namespace maps to
  (`langgraph_names`): the text of the indexed fields is what is embedded and recalled, the
  whole value and the key are kept in `metadata.langgraph`. A put on an existing key is a
  versioned update (the old value stays in `history`, restorable); an unchanged value writes
  nothing. The same value under two keys is two memories (never merged as duplicates).
- **search** with a query is lethe's hybrid recall in every namespace under the prefix, ordered
  by its fused rank and scored by the cosine of the query and the item (`SearchItem.score`, as
  LangGraph's stores score); without one, the newest items first. `filter`
  matches the value's fields (`$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte`, nested objects).
- **delete** (or a put of None) is a planned, audited forget (`actor` "langgraph") that the
  trash can undo; purge stays explicit, through lethe.
- **ttl** (minutes) is a lethe expiry: the item leaves every read when it passes and goes to
  the trash as `expire`. Reads refresh it (unless `refresh_ttl=False` or the store's
  `refresh_on_read` is off) once half of it has passed, as an ordinary versioned change.
  An expiry a person set or confirmed (`Memory.expiry_held`, e.g. brought forward in the
  inspector) is theirs: no read refreshes it and no put moves or removes it.
- Embeddings are lethe's own (so a forget or purge removes them with the memory): `index`
  takes `fields` only.
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        IndexConfig,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
        TTLConfig,
        get_text_at_path,
        tokenize_path,
        validate_op_namespace,
    )
except ImportError as missing:  # pragma: no cover - the extra is part of the test setup
    raise ImportError(
        "lethe.integrations.langgraph needs LangGraph: pip install 'lethe-mcp[langgraph]'"
    ) from missing

from lethe.common import validate
from lethe.common.expiry import expiry
from lethe.common.filters import Filters, make_condition
from lethe.engine.lethe import Lethe
from lethe.errors import ConfirmationRequired, InvalidInput, LetheError
from lethe.forget.change import Change
from lethe.integrations.langgraph_names import ROOT, from_lethe, is_digest, to_lethe
from lethe.model import Draft, Memory, RecallHit

ACTOR = "langgraph"
_ROOT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_@-]{0,15}")
_PAGE = 1000
_RECALL_MAX = 100


class LetheStore(BaseStore):
    """LangGraph's `BaseStore` over a lethe store (sync and async)."""

    supports_ttl: bool = True

    def __init__(
        self,
        mem: Lethe,
        *,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
        root: str = ROOT,
        agent: str = ACTOR,
    ) -> None:
        if not isinstance(mem, Lethe):
            # `LetheStore("memory.db")` would otherwise fail at its first search, far away.
            raise TypeError(
                f"LetheStore takes an open Lethe, not {type(mem).__name__} {mem!r:.80}: "
                "pass Lethe.open(path), e.g. LetheStore(Lethe.open('memory.db'))"
            )
        unsupported = sorted(set(index or {}) - {"fields", "dims"})
        if unsupported:
            raise ValueError(
                f"LetheStore embeds with lethe's own model, so that a forget or purge removes "
                f"the vectors with the memory; index takes fields only, not {unsupported}"
            )
        if not _ROOT.fullmatch(root):
            raise ValueError(
                f"root {root!r} must be letters, digits, _ @ - (no period: it separates the "
                "labels of a namespace)"
            )
        self.mem = mem
        self._writing = threading.RLock()
        self._waiting: dict[asyncio.AbstractEventLoop, list[_Waiting]] = {}
        self._storing: set[asyncio.Task[None]] = set()
        self.index_config = index
        self.ttl_config = ttl
        self.root = root
        self.agent = agent
        self._fields = [(p, tokenize_path(p) if p != "$" else p) for p in _fields(index)]

    # -- BaseStore -------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Reads answer from the state before the batch's writes, which then apply in order
        (the last write of a key wins), as LangGraph's own stores do."""
        ops = list(ops)
        for op in ops:
            validate_op_namespace(op)
            _check_text(op)
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op))
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            elif isinstance(op, PutOp):
                puts[(op.namespace, op.key)] = op
                results.append(None)
            else:
                raise ValueError(f"Unknown operation type: {type(op).__name__}")
        with self._writing:  # find-then-write: one writer of this store at a time
            # Items under keys not yet held are embedded together and stored in batches, after
            # the others; a refused write stops the rest, and the new items before it stay.
            fresh: list[Draft] = []
            try:
                for op in puts.values():
                    new = self._put(op)
                    if new is not None:
                        fresh.append(new)
            finally:
                if fresh:
                    self.mem.remember_many(fresh, skip_duplicates=False)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """Puts made concurrently on one event loop (`asyncio.gather` of many `aput`s) are
        stored as one batch, their new items embedded in one call; other operations run as
        they come."""
        ops = list(ops)
        if not ops or not all(isinstance(op, PutOp) for op in ops):
            return await asyncio.to_thread(self.batch, ops)
        loop = asyncio.get_running_loop()
        waiting = _Waiting(ops, loop.create_future())
        queue = self._waiting.setdefault(loop, [])
        queue.append(waiting)
        if len(queue) == 1:
            # Runs after every task already scheduled: those that put in this same pass of
            # the loop join the batch.
            task = loop.create_task(self._put_together(loop))
            self._storing.add(task)  # a task nothing holds may be collected before it runs
            task.add_done_callback(self._storing.discard)
        return await waiting.done

    async def _put_together(self, loop: asyncio.AbstractEventLoop) -> None:
        """Store the puts waiting on this loop as one batch. When that batch is refused, each
        caller's puts are tried again on their own, so only the caller at fault gets the
        error (a put that was stored already is unchanged the second time: it writes
        nothing)."""
        waiting = [w for w in self._waiting.pop(loop, []) if not w.done.done()]
        if not waiting:
            return
        try:
            await asyncio.to_thread(self.batch, [op for w in waiting for op in w.ops])
        except Exception as exc:
            if len(waiting) == 1:
                _settle(waiting[0], error=exc)
                return
            for one in waiting:
                try:
                    await asyncio.to_thread(self.batch, one.ops)
                except Exception as own:
                    _settle(one, error=own)
                else:
                    _settle(one)
            return
        for one in waiting:
            _settle(one)

    # -- operations ------------------------------------------------------------------------

    def _get(self, op: GetOp) -> Item | None:
        memory = self._find(_named(op.namespace), op.key)
        if memory is None:
            return None
        memory = self._refresh(memory, op.refresh_ttl)
        self.mem.touch([memory.id])  # an item the agent reads is not idle to decay
        return _item(memory, op.namespace)

    def _put(self, op: PutOp) -> Draft | None:
        """Carry out a put on a key already held (or a delete); for a new key, the memory to
        store, which `batch` stores with the batch's other new items in one embedding call.
        The root label "langgraph" is refused by `BaseStore.put`, as LangGraph's own stores
        do; a PutOp given to `batch` may use it, as it may with theirs."""
        namespace = _named(op.namespace)
        name = self._namespace(namespace)
        found = self._all_of(namespace, op.key)
        existing = found[0] if found else None
        if op.value is None:
            if found:
                self._forget(found)
            return None
        value = dict(op.value)
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(
                f"the value put under {op.key!r} is not JSON: {exc}",
                hint="store strings, numbers, booleans, lists and objects (a date as ISO text)",
            ) from None
        texts = self._texts(value, op.index)
        content = "\n".join(texts) if texts else json.dumps(value, ensure_ascii=False)
        meta: dict[str, Any] = {"key": op.key, "value": value, "indexed": bool(texts)}
        if is_digest(name, self.root):
            meta["namespace"] = list(namespace)  # the digest does not say it
        if op.ttl is not None:
            meta["ttl"] = op.ttl
        lasts = None if op.ttl is None else timedelta(minutes=op.ttl)
        if existing is None:
            return Draft(
                content=content,
                namespace=name,
                agent=self.agent,
                layer="semantic",
                metadata={"langgraph": meta},
                expires_at=expiry(None, lasts, self.mem.now()),
            )
        # The same value (its keys in any order) and the same indexed text: nothing to write.
        same = _meta(existing).get("value") == value and (existing.content == content or not texts)
        if op.ttl is None and same:
            return None  # an unchanged put without a ttl writes nothing, its expiry included
        if existing.expiry_held and not _sooner(existing, lasts, self.mem.now()):
            lasts = None  # the person's expiry stands: the program's ttl never pushes it back
        change = Change(
            content=content,
            merge_metadata={"langgraph": meta},
            expires_in=lasts,
            # Only the program's own expiry ends with a put without a ttl.
            no_expiry=op.ttl is None
            and existing.expires_at is not None
            and not existing.expiry_held,
            reason="LangGraph put",
        )
        plan = self.mem.plan_update(existing.id, change=change, actor=ACTOR, namespace=name)
        if not plan.changes:
            return None
        if plan.needs_confirmation and (plan.protection or plan.lost):
            raise ConfirmationRequired(
                f"{existing.id} under key {op.key!r} is protected ({plan.protection}): a "
                "LangGraph put does not change it; nothing was changed",
                plan=plan,
                hint="the person can change it (lethe update, the inspector) or unprotect it",
            )
        # The program's put is the go-ahead for its own new ttl, which no person chose.
        self.mem.execute(plan, via=ACTOR, hold_expiry=False)
        return None

    def _forget(self, memories: list[Memory]) -> None:
        """Every live memory under the key (a restore can have brought back an older one)."""
        ids = [m.id for m in memories]
        plan = self.mem.plan_forget(
            ids,
            filters={"namespace": memories[0].namespace},
            actor=ACTOR,
            reason="LangGraph delete",
        )
        if plan.refused:
            # The person protected it (a pin, the caveat layer): the program's delete is not
            # the go-ahead, and the way out is the person's, not the agent's.
            item = plan.refused[0]
            raise LetheError(
                f"{item.id} under key {_meta(memories[0]).get('key')!r} is protected "
                f"({item.protection}): a LangGraph delete does not forget it; nothing was "
                "forgotten",
                hint=item.hint or "the person can unprotect it first (lethe update, the inspector)",
            )
        result = self.mem.execute(plan, via=ACTOR)
        left = [i for i in ids if i not in result.executed]
        if left:
            raise LetheError(f"LangGraph delete of {left} was not carried out: {result.notes}")

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = tuple(op.namespace_prefix)  # a list is accepted by LangGraph's stores too
        names = [(n, ns) for n, ns in self._namespaces() if ns[: len(prefix)] == prefix]
        scored: list[tuple[float | None, Memory, tuple[str, ...]]] = []
        if op.query:
            # Ordered by lethe's hybrid rank (meaning and exact words), scored by the cosine
            # of the query and the item, as LangGraph's own stores score.
            ranked: list[tuple[float, RecallHit, tuple[str, ...]]] = []
            for name, namespace in names:
                hits = self.mem.recall(op.query, k=_RECALL_MAX, filters={"namespace": name})
                ranked.extend(
                    (hit.score, hit, namespace)
                    for hit in hits
                    if _indexed(hit.memory) and _matches(_value(hit.memory), op.filter)
                )
            ranked.sort(key=lambda r: -r[0])
            scored.extend((hit.similarity, hit.memory, ns) for _, hit, ns in ranked)
            if len(_newest(scored)) < op.offset + op.limit:
                # Past recall's ranked hits: the other matching items by their cosine to the
                # query (unscored), then the items kept out of the index.
                seen = {m.id for _, m, _ in scored}
                rest = [
                    (m, namespace)
                    for name, namespace in names
                    for m in self._all(name)
                    if m.id not in seen and _matches(_value(m), op.filter)
                ]
                indexed = [(m, ns) for m, ns in rest if _indexed(m)]
                cosine = self.mem.similarities(op.query, [m.id for m, _ in indexed])
                indexed.sort(key=lambda pair: -cosine.get(pair[0].id, 0.0))
                scored.extend((cosine.get(m.id, 0.0), m, ns) for m, ns in indexed)
                scored.extend((None, m, ns) for m, ns in rest if not _indexed(m))
        else:
            scored.extend(
                (None, m, namespace)
                for name, namespace in names
                for m in self._all(name)
                if _matches(_value(m), op.filter)
            )
            scored.sort(key=lambda s: s[1].updated_at, reverse=True)
        scored = _newest(scored)
        page = scored[op.offset : op.offset + op.limit]
        out = []
        for score, memory, namespace in page:
            memory = self._refresh(memory, op.refresh_ttl)
            item = _item(memory, namespace)
            out.append(
                SearchItem(
                    namespace=item.namespace,
                    key=item.key,
                    value=item.value,
                    created_at=item.created_at,
                    updated_at=item.updated_at,
                    score=score,
                )
            )
        return out

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = [ns for _, ns in self._namespaces()]
        for condition in op.match_conditions or ():
            found = [ns for ns in found if _does_match(condition, ns)]
        if op.max_depth is not None:
            found = [ns[: op.max_depth] for ns in found]
        return sorted(set(found))[op.offset : op.offset + op.limit]

    # -- helpers ---------------------------------------------------------------------------

    def _namespace(self, namespace: tuple[str, ...]) -> str:
        try:
            return to_lethe(namespace, self.root)
        except ValueError as exc:
            raise InvalidNamespaceError(str(exc)) from None

    def _namespaces(self) -> list[tuple[str, tuple[str, ...]]]:
        """The lethe namespaces this store wrote that hold a live item, with the LangGraph
        namespace each stands for."""
        out = []
        for name in self.mem.namespaces():
            namespace = from_lethe(name, self.root)
            if namespace is None and is_digest(name, self.root):
                namespace = self._labels_of(name)
            if namespace is not None:
                out.append((name, namespace))
        return out

    def _labels_of(self, name: str) -> tuple[str, ...] | None:
        """The LangGraph namespace a digest names, as its items keep it (checked against the
        digest: an item moved or written by another face is not trusted for it)."""
        for memory in self.mem.list_memories({"namespace": name}, limit=10).items:
            labels = _meta(memory).get("namespace")
            if (
                isinstance(labels, list)
                and labels
                and all(isinstance(x, str) for x in labels)
                and to_lethe(tuple(labels), self.root) == name
            ):
                return tuple(labels)
        return None

    def _find(self, namespace: tuple[str, ...], key: str) -> Memory | None:
        found = self._all_of(namespace, key)
        return found[0] if found else None

    def _all_of(self, namespace: tuple[str, ...], key: str) -> list[Memory]:
        """The live memories under a key, the most recently changed first (one, unless a
        restore brought back an item deleted and put again since)."""
        condition = make_condition("metadata.langgraph.key", "=", key)
        flt = Filters(namespace=self._namespace(namespace), conditions=(condition,))
        items = self.mem.list_memories(flt, limit=100).items
        found = [m for m in items if _meta(m).get("key") == key]
        return sorted(found, key=lambda m: m.updated_at, reverse=True)

    def _all(self, name: str) -> list[Memory]:
        out: list[Memory] = []
        while True:
            page = self.mem.list_memories({"namespace": name}, limit=_PAGE, offset=len(out))
            out.extend(page.items)
            if not page.items or len(out) >= page.total:
                return [m for m in out if _ours(m)]

    def _texts(self, value: dict[str, Any], index: Any) -> list[str]:
        if index is False:
            return []
        paths = self._fields if index is None else [(p, tokenize_path(p)) for p in index]
        texts: list[str] = []
        for path, tokens in paths:
            if path == "$":
                texts.append(json.dumps(value, ensure_ascii=False))
            else:
                texts.extend(t for t in get_text_at_path(value, tokens) if t.strip())
        return texts

    def _refresh(self, memory: Memory, asked: bool | None) -> Memory:
        """Push a time-to-live item's expiry out again on a read, once half its time has
        passed: each push is a version, and a version on every read would bury the history."""
        minutes = _meta(memory).get("ttl")
        refresh = asked if asked is not None else (self.ttl_config or {}).get("refresh_on_read")
        if not minutes or refresh is False or memory.expires_at is None or memory.expiry_held:
            return memory
        lasts = timedelta(minutes=float(minutes))
        now = self.mem.now()
        if memory.expires_at - now > lasts * 0.5:
            return memory
        change = Change(expires_in=lasts, reason="LangGraph read (ttl refreshed)")
        return self.mem.update(memory.id, change=change, actor=ACTOR)


def _sooner(memory: Memory, lasts: timedelta | None, now: datetime) -> bool:
    """Whether a ttl would end the memory before its expiry does: bringing a person's expiry
    forward keeps within what they chose (and it stays held)."""
    ends = memory.expires_at
    return lasts is not None and ends is not None and now + lasts < ends


def _newest(
    scored: list[tuple[float | None, Memory, tuple[str, ...]]],
) -> list[tuple[float | None, Memory, tuple[str, ...]]]:
    """One item per key, in the given order: where a restore brought back an older memory
    under a key put again since, the most recently changed one stands for it."""
    best: dict[tuple[tuple[str, ...], str], Memory] = {}
    for _, memory, namespace in scored:
        key = (namespace, str(_meta(memory).get("key")))
        if key not in best or memory.updated_at > best[key].updated_at:
            best[key] = memory
    return [s for s in scored if best[(s[2], str(_meta(s[1]).get("key")))] is s[1]]


def _check_text(op: Op) -> None:
    """Labels and keys are text (`validate.text`): a NUL or a lone surrogate is refused here
    by name, not as an encoding error from deep inside a write."""
    labels = getattr(op, "namespace", None) or getattr(op, "namespace_prefix", None) or ()
    try:
        for label in labels:
            if isinstance(label, str):
                validate.text(label, f"namespace label {label!a}")
    except InvalidInput as exc:
        raise InvalidNamespaceError(str(exc)) from None
    key = getattr(op, "key", None)
    if isinstance(key, str):
        try:
            validate.text(key, f"key {key!a}")
        except InvalidInput as exc:
            raise ValueError(str(exc)) from None


def _fields(index: IndexConfig | None) -> list[str]:
    return list((index or {}).get("fields") or ["$"])


def _named(namespace: tuple[str, ...]) -> tuple[str, ...]:
    if not namespace:
        raise InvalidNamespaceError("Namespace cannot be empty.")
    return tuple(namespace)


def _meta(memory: Memory) -> dict[str, Any]:
    meta = memory.metadata.get("langgraph")
    return meta if isinstance(meta, dict) else {}


def _ours(memory: Memory) -> bool:
    return "key" in _meta(memory)


def _indexed(memory: Memory) -> bool:
    return _ours(memory) and _meta(memory).get("indexed", True) is not False


def _value(memory: Memory) -> dict[str, Any]:
    value = _meta(memory).get("value")
    return value if isinstance(value, dict) else {}


def _item(memory: Memory, namespace: tuple[str, ...]) -> Item:
    return Item(
        value=_value(memory),
        key=str(_meta(memory)["key"]),
        namespace=namespace,
        created_at=memory.created_at,
        updated_at=memory.updated_at,
    )


def _does_match(condition: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = condition.path
    if len(namespace) < len(path):
        return False
    pairs = (
        zip(namespace, path, strict=False)
        if condition.match_type == "prefix"
        else zip(reversed(namespace), reversed(path), strict=False)
    )
    return all(p == "*" or n == p for n, p in pairs)


def _matches(value: Mapping[str, Any], wanted: Mapping[str, Any] | None) -> bool:
    return all(_compare(_at(value, k), v) for k, v in (wanted or {}).items())


def _at(value: Mapping[str, Any], key: str) -> Any:
    """A filter key's value: the field of that name, else a dotted path into nested objects
    ("user.access-level"), as LangGraph's stores read it."""
    if key in value:
        return value[key]
    here: Any = value
    for part in key.split("."):
        if not isinstance(here, Mapping) or part not in here:
            return None
        here = here[part]
    return here


def _compare(have: Any, want: Any) -> bool:
    if isinstance(want, dict):
        if any(k.startswith("$") for k in want):
            return all(_operator(have, k, v) for k, v in want.items())
        return isinstance(have, dict) and all(_compare(have.get(k), v) for k, v in want.items())
    if isinstance(want, list | tuple):
        return (
            isinstance(have, list | tuple)
            and len(have) == len(want)
            and all(_compare(h, w) for h, w in zip(have, want, strict=True))
        )
    return bool(have == want)


def _operator(have: Any, op: str, want: Any) -> bool:
    if op == "$eq":
        return bool(have == want)
    if op == "$ne":
        return bool(have != want)
    order = {"$gt": float.__gt__, "$gte": float.__ge__, "$lt": float.__lt__, "$lte": float.__le__}
    if op not in order:
        raise ValueError(f"unsupported filter operator {op!r}: use $eq, $ne, $gt, $gte, $lt, $lte")
    try:
        return bool(order[op](float(have), float(want)))
    except (TypeError, ValueError):
        return False


__all__ = ["LetheStore"]


@dataclass
class _Waiting:
    """An `abatch` of puts waiting to be stored with the others of its pass of the loop."""

    ops: list[Op]
    done: asyncio.Future[list[Result]]


def _settle(waiting: _Waiting, *, error: BaseException | None = None) -> None:
    if waiting.done.done():  # cancelled by its caller meanwhile
        return
    if error is None:
        waiting.done.set_result([None] * len(waiting.ops))
    else:
        waiting.done.set_exception(error)
