"""Forgetting: plan and execute a forget or a purge.

Nothing here removes anything while planning. Execution needs the plan back (`execute`), or
the same id twice from one session (`forget`, seed 000, in `two_call.py`). Forget is a soft
delete into the trash, restorable until purged; purge is erasure. Each change is one
transaction with its audit events, and protection is checked again at execution time.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Literal, overload

from lethe.common import validate
from lethe.common.filters import Filters
from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE
from lethe.engine.base import MAX_PAGE, Core
from lethe.engine.derived import Derived, derived_closure, erased_lines
from lethe.engine.expiring import Expiry
from lethe.engine.proof import Proof
from lethe.engine.purged import text_hashes
from lethe.engine.redaction import Redaction, identifier_cut, past_as_planned
from lethe.engine.search import Search
from lethe.engine.suggest import whereabouts
from lethe.engine.versions import Versions
from lethe.erasure.record import Erasing
from lethe.errors import InvalidInput
from lethe.forget import confirm
from lethe.forget.change import UpdatePlan, lost_recently
from lethe.forget.guard import protection
from lethe.forget.messages import (
    derived_notes,
    edit_notes,
    proof_note,
    proven,
    result_notes,
)
from lethe.forget.plan import (
    MANY_MATCHES,
    NEAR_COPY,
    PREVIEW_THRESHOLD,
    DerivedItem,
    ForgetPlan,
    Operation,
    PlanItem,
    PlanSource,
    criteria_items,
    described_item,
    earlier_version_item,
    explicit_items,
    new_plan_id,
    notes_for,
    query_items,
)
from lethe.forget.results import (
    ForgetResult,
    NotFoundItem,
)
from lethe.model import Gist, Memory, Pending
from lethe.planner.ask import YEAR, RequestReading
from lethe.planner.caches import reads_texts
from lethe.planner.identifiers import holds_all, identifiers, needles, shown
from lethe.planner.judgement import Decision
from lethe.planner.pipeline import plan
from lethe.planner.port import Candidate
from lethe.store.base import StoreTx
from lethe.store.rows import Provenance
from lethe.store.vectors import Vector

MAX_IDS = 100
ALL_NAMESPACES = "*"
QUERY_DEPTH = 50
_RAW_IDENTIFIER = re.compile(r"[^\s,;:!?()]*\d[^\s,;:!?()]*|[^\s@]+@[^\s@]+")
SUBJECT_DEPTH = 500
"""A subject request ("everything about Alice") also takes this many full-text matches."""
CANDIDATE_FLOOR = 0.2
"""Vector candidates below this cosine (and not found by full text) are not considered."""
_NAME = re.compile(
    r"(?<![A-Za-z\u00c0-\u024f])[A-Z][a-z\u00c0-\u024f]+(?:-[A-Z][a-z\u00c0-\u024f]+)*"
    r"(?![a-z\u00c0-\u024f])"
)
"""A capitalised word of a subject request: a name to scan for as written."""
MAX_PREFIX = 12
"""Longest first part of an identifier searched as a word of its own."""


def previewed(similarity: float) -> bool:
    """Whether a query candidate is shown at all: at or above the preview floor (0.4,
    inclusive). The one comparison both planners use, the description planner's listing and
    the cosine planner's candidates."""
    return similarity >= PREVIEW_THRESHOLD


DISTINCT_IDENTIFIER = 6
"""Characters (groups joined) an identifier needs before its mention in an earlier version
is cut for good: "ZX-4821-Q" or a phone number names one thing, "2019" or "3pm" does not."""


class Forgetting:
    """Forgetting: plan (by id, filter, query or description), then execute."""

    def __init__(
        self,
        core: Core,
        expiry: Expiry,
        versions: Versions,
        search: Search,
        redaction: Redaction,
        derived: Derived,
        proof: Proof,
    ) -> None:
        self._core = core
        self.store = core.store
        self.embedder = core.embedder
        self.settings = core.settings
        self._clock = core.clock
        self._expiry = expiry
        self._versions = versions
        self._search = search
        self._redaction = redaction
        self._derived = derived
        self._proof = proof

    # -- planning ------------------------------------------------------------------------

    def plan_forget(
        self,
        memory_ids: Sequence[str] | str | None = None,
        *,
        query: str | None = None,
        filters: Filters | dict[str, Any] | None = None,
        where: Sequence[str] = (),
        whole_namespace: bool = False,
        actor: str = DEFAULT_AGENT,
        reason: str | None = None,
        narrow_only: bool = False,
        expected_sha256: str | None = None,
    ) -> ForgetPlan:
        """Preview a forget. Give ids, or a query (optionally scoped by filters), or filters
        alone (bulk criteria such as tags, agent, layer, `until`, `not_accessed_since`).
        `narrow_only` marks filters that are not the user's own scope: they never widen a
        query deletion. `expected_sha256` (with one id): the content hash the caller last
        saw; when the text changed since, `ContentChanged` and no plan."""
        flt = self._core.filters(filters, where)
        ids = self.checked_ids(memory_ids)
        expected = self.precondition(ids, expected_sha256)
        if ids and (query or flt.narrows_beyond_namespace() or whole_namespace):
            raise InvalidInput("give either memory ids or a query/filters, not both")
        if query is not None:
            query = validate.content(query, max_bytes=self.settings.max_content_bytes, what="query")
        if not ids and query is None and not flt.narrows_beyond_namespace() and not whole_namespace:
            raise InvalidInput(
                "nothing to plan: give memory ids, a query or filters",
                hint="to forget a whole namespace, say so with whole_namespace=True",
            )
        source = PlanSource(
            memory_ids=ids,
            query=query,
            filters=flt,
            whole_namespace=whole_namespace,
            narrow_only=narrow_only,
            expected_sha256=expected,
        )
        return self.make_plan("forget", source, flt.namespace, actor=actor, reason=reason)

    def plan_purge(
        self,
        memory_ids: Sequence[str] | str | None = None,
        *,
        forgotten_before: datetime | None = None,
        namespace: str | None = None,
        actor: str = DEFAULT_AGENT,
        reason: str | None = None,
        expected_sha256: str | None = None,
    ) -> ForgetPlan:
        """Preview an erasure of ids (live or in the trash) or of trash forgotten before a time.
        `expected_sha256` as for `plan_forget`."""
        ids = self.checked_ids(memory_ids)
        expected = self.precondition(ids, expected_sha256)
        if bool(ids) == (forgotten_before is not None):
            raise InvalidInput("give either memory ids or forgotten_before, not both or neither")
        ns = validate.namespace(namespace) if namespace else None
        source = PlanSource(
            memory_ids=ids,
            forgotten_before=forgotten_before,
            namespace=ns,
            expected_sha256=expected,
        )
        index = ns or (DEFAULT_NAMESPACE if ids else ALL_NAMESPACES)
        return self.make_plan("purge", source, index, actor=actor, reason=reason)

    @staticmethod
    def precondition(ids: Sequence[str], expected_sha256: str | None) -> str | None:
        """The request's precondition, well-formed (64 hex digits, with exactly one id); the
        plan checks it against the memory (`make_plan`), and so does the transaction that
        carries the plan out (`carry_out`)."""
        if expected_sha256 is None:
            return None
        if len(ids) != 1:
            raise InvalidInput(
                "expected_sha256 goes with exactly one memory id",
                hint="plan each memory you saw on its own, with its own hash",
            )
        return validate.sha256_hex(expected_sha256)

    def checked_ids(self, memory_ids: Sequence[str] | str | None) -> tuple[str, ...]:
        """The ids a request names, each checked, once each, at most `MAX_IDS`."""
        if memory_ids is None:
            return ()
        ids = [memory_ids] if isinstance(memory_ids, str) else list(memory_ids)
        if len(ids) > MAX_IDS:
            raise InvalidInput(f"at most {MAX_IDS} ids per request, got {len(ids)}")
        return tuple(dict.fromkeys(validate.memory_id(i) for i in ids))

    @reads_texts
    def make_plan(
        self,
        operation: Operation,
        source: PlanSource,
        namespace: str,
        *,
        actor: str,
        reason: str | None,
    ) -> ForgetPlan:
        """The forget or purge plan of what `source` names: ids, filters, a query or a
        description, or the trash."""
        actor = validate.label(actor, "actor")
        if reason is not None:
            reason = validate.label(reason, "reason", allow_empty=True) or None
        self._expiry.expire_due()
        ambiguous = False
        not_found: tuple[str, ...] = ()
        # Explicit ids are looked up inside the plan's namespace only: namespaces isolate,
        # so an id from another namespace is "not found" here, like one that never existed.
        # A purge without a namespace (an administrator's erasure) is the one exception.
        lookup_ns = source.namespace if operation == "purge" else namespace
        if source.expected_sha256 is not None:  # the precondition, checked at planning
            self._core.expect(source.memory_ids[0], source.expected_sha256, namespace=lookup_ns)
        if source.memory_ids:
            found = {
                i: m
                for i, m in self.store.get_many(
                    source.memory_ids, active_only=operation == "forget"
                ).items()
                if lookup_ns is None or m.namespace == lookup_ns
            }
            items = explicit_items([found[i] for i in source.memory_ids if i in found], operation)
            not_found = tuple(i for i in source.memory_ids if i not in found)
        elif source.forgotten_before is not None:
            trashed = self.all_trash(namespace=source.namespace, before=source.forgotten_before)
            items = criteria_items(
                trashed, f"trash forgotten before {source.forgotten_before:%Y-%m-%d}"
            )
        elif source.query is not None:
            assert source.filters is not None
            items, ambiguous = self._query_items(
                source.query, source.filters, widen=not source.narrow_only
            )
        else:
            assert source.filters is not None
            matches = self._all_live(source.filters)
            what = (
                "the whole namespace"
                if not source.filters.narrows_beyond_namespace()
                else "your filters"
            )
            items = criteria_items(matches, what)
        items = self._flag_unprotected(items)
        missing = [self.not_found(i, lookup_ns, operation) for i in not_found]
        warnings = []
        if len(items) > MANY_MATCHES:
            warnings.append(
                f"{len(items)} memories match; consider more specific criteria before executing"
            )
        derived: tuple[DerivedItem, ...] = ()
        if operation == "purge":
            marked = [i.id for i in items if i.action == "delete"]
            held = self.store.get_many(marked, active_only=False)
            derived = tuple(derived_closure(self.store, [held[i] for i in marked if i in held]))
        acted = {i.id for i in items if i.action in ("delete", "edit")}
        items, copies = self._redaction.with_past(items, acted)
        derived += tuple(copies)
        return ForgetPlan(
            id=new_plan_id(),
            operation=operation,
            derived=derived,
            namespace=namespace,
            created_at=self._clock(),
            actor=actor,
            reason=reason,
            source=source,
            ambiguous=ambiguous,
            items=tuple(items),
            not_found=not_found,
            suggestions={m.id: m.suggestions for m in missing if m.suggestions},
            warnings=tuple(warnings),
            notes=" ".join(
                [
                    notes_for(items, ambiguous=ambiguous, operation=operation),
                    *derived_notes(derived),
                    *(m.message for m in missing),
                ]
            ),
        )

    def _flag_unprotected(self, items: list[PlanItem]) -> list[PlanItem]:
        """Mark the targets that were protected a moment ago (within the confirmation
        window): unprotect-then-forget must say so in the preview and the question."""
        targets = [i.id for i in items if i.action == "delete"]
        if not targets:
            return items
        now = self._clock()
        since = now - timedelta(seconds=self.settings.confirm_ttl_seconds)
        changed = self.store.versions_replaced_since(targets, since)
        if not changed:
            return items
        live = self.store.get_many(list(changed), active_only=False)
        flagged = []
        for item in items:
            memory = live.get(item.id)
            note = None
            if memory is not None and item.id in changed:
                note = lost_recently(memory, self.store.versions(item.id), since, now)
            flagged.append(item.model_copy(update={"was_protected": note}) if note else item)
        return flagged

    def _query_items(
        self, query: str, flt: Filters, *, widen: bool = True, exact_identifiers: bool = True
    ) -> tuple[list[PlanItem], bool]:
        # Only a metadata filter (the user's own scope, e.g. one source file) widens a query
        # deletion; agent, layer, tags or time narrow the candidates but do not make a weak
        # match the user's choice.
        scoped = widen and any(c.metadata_path is not None for c in flt.conditions)
        if scoped or not exact_identifiers:
            return self._cosine_items(query, flt, scoped=scoped, exact=exact_identifiers)
        return self._described_items(query, flt)

    def _described_items(self, query: str, flt: Filters) -> tuple[list[PlanItem], bool]:
        decision = self._describe(query, flt)
        named = bool(identifiers(decision.request.object))
        items = [
            described_item(j)
            for j in decision.judgements
            # A candidate that holds the identifiers the request names is listed however far
            # its vector: in another language it may be the memory meant.
            if j.verdict != "skip" or (named and j.certainty > 0) or previewed(j.similarity)
        ]
        marked = {i.id for i in items if i.action != "skip"}
        earlier = {e.id: e for e in self._earlier_holders(decision.request.object, flt, marked)}
        items = [earlier.pop(i.id, i) for i in items]  # a candidate only its past matches
        return items + list(earlier.values()), decision.ambiguous

    def _earlier_holders(self, obj: str, flt: Filters, listed: set[str]) -> list[PlanItem]:
        """Memories whose earlier versions hold every identifier the request names while
        their current text does not: an update left the old text in history, and asking to
        forget it must find it there and cut it (the parts of each such version that hold an
        identifier's groups, `planner/compound.without_fact`). Only for an identifier that
        names one thing (a year or a short number is shared by many unrelated facts, and the
        cut is for good), and only within the namespace: a scope narrowed by other filters is
        the person's, and an earlier version cannot be read against it."""
        wanted = [w for w in identifiers(obj) if sum(len(g) for g in w) >= DISTINCT_IDENTIFIER]
        if not wanted or flt.narrows_beyond_namespace():
            return []
        found: list[str] = []
        for token in dict.fromkeys(_RAW_IDENTIFIER.findall(obj)):
            found += self.store.live_ids_with_earlier_text(flt.namespace, token, MANY_MATCHES)
        ids = [i for i in dict.fromkeys(found) if i not in listed]
        live = self.store.get_many(ids)
        items = []
        for memory_id in ids:
            memory = live.get(memory_id)
            if memory is None:
                continue
            if holds_all(memory.content, wanted):
                continue  # its current text holds them: the planner judged it as it is
            held = [v for v in self.store.versions(memory_id)[1:] if holds_all(v.content, wanted)]
            past = tuple(c for v in held if (c := identifier_cut(v, wanted)) is not None)
            if past:
                items.append(earlier_version_item(memory, past, shown(wanted)))
        return items

    def _describe(self, query: str, flt: Filters) -> Decision:
        """A request in words, decided by the planner (lethe/planner/) over the candidates
        this engine gathers for it (`_gather`, its search port)."""
        port = _PlannerSearch(self, flt)
        return plan(query, port, margin=self.settings.forget_margin)

    def _gather(self, reading: RequestReading, flt: Filters) -> list[Candidate]:
        """The search runs on the request's object (its instruction words would pull in
        every memory about remembering); a subject also brings every memory that names it."""
        request = reading.request
        vector = self.embedder.embed([request.object])[0]
        ranked, similarity = self._search.hybrid_for(
            vector, request.object, flt, QUERY_DEPTH, every_own=True
        )
        ids = [
            f.id
            for f in ranked
            if f.lexical_rank is not None or similarity.get(f.id, 0.0) >= CANDIDATE_FLOOR
        ]
        # An identifier inside text written without spaces (「認証コード779641を削除して」) is
        # no word of the full-text index: search its groups on their own.
        codes = list(reading.ask.written)
        groups = [g for code in codes for g in code if len(g) >= 3]
        # ... and its first characters, which a memory that groups it otherwise ("282 662 077
        # 7" stored as "2826-6207-77") holds as its first word.
        groups += [
            "".join(code)[:n]
            for code in codes
            for n in range(3, min(len("".join(code)), MAX_PREFIX) + 1)
        ]
        if groups:
            held = self.store.lexical_search(" ".join(dict.fromkeys(groups)), flt, QUERY_DEPTH)
            self._add_found(ids, similarity, vector, held)
        # ... and inside a run of Japanese or Chinese, which no word of the index splits
        # (「メールの認証コードは５６６５３。」): a scan for its longest group as written.
        naming = [c for c in codes if not YEAR.fullmatch("".join(c))]
        if naming:
            inside = self.store.containing(needles(naming), flt, QUERY_DEPTH)
            self._add_found(ids, similarity, vector, inside)
        if request.scope == "subject":
            # A name glued into Japanese (「Priyaさんは横浜に住んでいる」) is no word of the index.
            extra = self.store.containing(_NAME.findall(request.object), flt, SUBJECT_DEPTH)
            extra += self.store.lexical_search(request.object, flt, SUBJECT_DEPTH)
            self._add_found(ids, similarity, vector, extra)
        live = self.store.gists(ids)
        candidates = [
            Candidate(live[i], similarity.get(i, 0.0), self._superseded_texts(live[i]))
            for i in dict.fromkeys(ids)
            if i in live
        ]
        candidates.sort(key=lambda c: -c.similarity)
        return candidates

    def _add_found(
        self, ids: list[str], similarity: dict[str, float], vector: Vector, found: list[str]
    ) -> None:
        """Memories another search found join the candidates (`ids`, in place), with their
        cosine to the request (`similarity`, in place)."""
        missing = [i for i in found if i not in similarity]
        if missing:
            similarity.update(self.store.similarities(vector, missing))
        known = set(ids)
        ids += [i for i in found if i not in known]

    def _superseded_texts(self, memory: Gist) -> tuple[str, ...]:
        """The texts a memory superseded, newest first: each state made by a supersede
        replaced the one before it (an update or a revert may say anything, so the chain
        stops there)."""
        if memory.version <= 1:
            return ()
        versions = self.store.versions(memory.id)
        texts = []
        for state, before in itertools.pairwise(versions):
            if state.op != "supersede":
                break
            texts.append(before.content)
        return tuple(texts)

    def _cosines(self, text: str, ids: Sequence[str]) -> dict[str, float]:
        vector = self.embedder.embed([text])[0]
        return self.store.similarities(vector, list(ids))

    def _cosine_items(
        self, query: str, flt: Filters, *, scoped: bool, exact: bool
    ) -> tuple[list[PlanItem], bool]:
        """The cosine planner: a filter-scoped plan (the user's scope widens it), and the
        baseline the benchmark compares the description planner with."""
        vector = self.embedder.embed([query])[0]
        ranked, similarity = self._search.hybrid_for(
            vector, query, flt, QUERY_DEPTH, every_own=True
        )
        ids = [f.id for f in ranked if previewed(similarity.get(f.id, 0.0))]
        live = self.store.get_many(ids)
        candidates = sorted(
            ((live[i], similarity[i]) for i in ids if i in live), key=lambda pair: -pair[1]
        )
        # Identifiers the request names decide by their exact tokens (planner/identifiers.py).
        wanted = identifiers(query) if exact else []
        held = {m.id for m, _ in candidates if holds_all(m.content, wanted)} if wanted else None
        eligible = [m for m, _ in candidates if held is None or m.id in held]
        near: set[str] = set()
        if eligible:
            top = self.store.vector_of(eligible[0].id)
            if top is not None:
                others = [m.id for m in eligible[1:]]
                near = {
                    i for i, s in self.store.similarities(top, others).items() if s >= NEAR_COPY
                }
        return query_items(
            candidates,
            scoped=scoped,
            near_copies=near,
            margin=self.settings.forget_margin,
            held=held,
            identifiers=shown(wanted),
        )

    def _all_live(self, flt: Filters) -> list[Memory]:
        out: list[Memory] = []
        while True:
            items, total = self.store.list_memories(flt, limit=MAX_PAGE, offset=len(out))
            out.extend(items)
            if not items or len(out) >= total:
                return out

    def all_trash(self, *, namespace: str | None, before: datetime | None) -> list[Memory]:
        out: list[Memory] = []
        while True:
            items, total = self.store.trash(
                namespace, limit=MAX_PAGE, offset=len(out), before=before
            )
            out.extend(items)
            if not items or len(out) >= total:
                return out

    # -- execution -----------------------------------------------------------------------

    @overload
    def execute(
        self, plan: ForgetPlan, *, actor: str | None = None, via: str = "plan"
    ) -> ForgetResult: ...

    @overload
    def execute(
        self,
        plan: UpdatePlan,
        *,
        actor: str | None = None,
        via: str = "plan",
        hold_expiry: bool = True,
    ) -> Memory: ...

    def execute(
        self,
        plan: ForgetPlan | UpdatePlan,
        *,
        actor: str | None = None,
        via: str = "plan",
        hold_expiry: bool = True,
    ) -> ForgetResult | Memory:
        """Carry out a plan previewed before: handing it back is the confirmation.

        A forget or purge plan: stale targets (changed since the preview, or gone) are not
        executed; the result then carries a fresh plan. An expired plan executes nothing.
        An update plan (`plan_update`, `plan_revert`): applied while the memory is still as
        planned, and the memory after it is returned; `via` says how the person confirmed it
        (`plan`, `prompt`, `elicitation`, `inspector`…) and is recorded in its event. An expiry
        an executed update plan sets is the person's, held (`Memory.expiry_held`):
        `hold_expiry=False` is for a program executing a plan no person saw (an agent's own
        change, a program's own time-to-live)."""
        if isinstance(plan, UpdatePlan):
            if actor is not None:
                plan = plan.model_copy(update={"actor": validate.label(actor, "actor")})
            return self._versions.execute_change(
                plan, confirmed_via=validate.label(via, "via"), hold_expiry=hold_expiry
            )
        if not isinstance(plan, ForgetPlan):
            raise InvalidInput(
                "execute needs a plan: from plan_forget, plan_purge, plan_update or plan_revert"
            )
        return self._execute_forget(plan, actor=actor, via=validate.label(via, "via"))

    @reads_texts
    def _execute_forget(self, plan: ForgetPlan, *, actor: str | None, via: str) -> ForgetResult:
        who = validate.label(actor, "actor") if actor else plan.actor
        self._expiry.expire_due()  # a target whose expiry came since the preview is gone already
        now = self._clock()
        ttl = timedelta(seconds=self.settings.confirm_ttl_seconds)
        if now - plan.created_at > ttl:
            return ForgetResult(
                plan_id=plan.id,
                operation=plan.operation,
                namespace=plan.namespace,
                executed=(),
                stale=tuple(i.id for i in plan.targets),
                fresh_plan=self._replan(plan, who),
                notes=f"The plan expired ({int(ttl.total_seconds())} s); nothing was executed. "
                "Review the fresh plan and execute it instead.",
            )
        vectors = self._redaction.cut_vectors(plan.edits)
        erasing = Erasing(who, via, plan.id) if plan.operation == "purge" else None
        key = self._proof.signing_key() if erasing else None
        with self._proof.claimed(erasing):
            with self.store.transaction() as tx:
                executed, stale, gone, refused, touched = self.carry_out(
                    tx,
                    plan.operation,
                    plan.targets,
                    actor=who,
                    plan=plan,
                    now=now,
                    erasing=erasing,
                    expected_sha256=plan.source.expected_sha256,
                )
                edited, edit_stale, edit_gone, edit_refused, edit_touched = self._apply_edits(
                    tx, plan, vectors, actor=who, now=now
                )
                stale, gone, refused = stale + edit_stale, gone + edit_gone, refused + edit_refused
                touched += edit_touched
                # An edit cuts a fact from the past for good: its cleanup is an erasure's.
                erased = (plan.operation == "purge" and bool(touched)) or bool(edited)
                owed = self._core.owe(tx, touched, erased=erased)
                self._proof.owe_receipt(tx, erasing, now)
            cleaned = self._core.project(touched, owed, erased=erased)
            receipt = (
                self._proof.prove(erasing, cleanup_done=cleaned, key=key)
                if erasing and key and erasing.ids
                else None
            )
        return ForgetResult(
            plan_id=plan.id,
            operation=plan.operation,
            namespace=plan.namespace,
            executed=tuple(executed),
            edited=tuple(edited),
            skipped=plan.skipped,
            refused=(*plan.refused, *refused),
            stale=tuple(stale),
            not_found=(*plan.not_found, *gone),
            suggestions=plan.suggestions,
            fresh_plan=self._replan(plan, who) if stale or gone else None,
            notes=" ".join(
                [
                    result_notes(
                        plan.operation,
                        executed,
                        stale,
                        gone,
                        plan.skipped,
                        refused,
                        proven=proven(receipt),
                    ),
                    *(edit_notes(edited) if edited else []),
                    *(derived_notes(plan.derived, done=True) if executed else []),
                    *([proof_note(receipt)] if receipt else []),
                ]
            ),
            receipt=receipt,
        )

    def _apply_edits(
        self,
        tx: StoreTx,
        plan: ForgetPlan,
        vectors: dict[str, Vector],
        *,
        actor: str,
        now: datetime,
    ) -> tuple[list[str], list[str], list[str], list[PlanItem], list[Memory]]:
        """Inside the plan's transaction: each memory that also holds another fact gets its
        edited text as a new version, and the fact is cut from its past and from the summaries
        made from it (`redaction.py`), when it is still as previewed (its earlier versions
        too) and unprotected."""
        edited: list[str] = []
        stale: list[str] = []
        gone: list[str] = []
        refused: list[PlanItem] = []
        touched: list[Memory] = []
        acted = {i.id for i in (*plan.targets, *plan.edits)}
        for item in plan.edits:
            if item.new_content is None:  # an edit without its text: nothing to write
                gone.append(item.id)
                continue
            memory = _still_as_planned(tx, item, live=True, tally=(gone, stale, refused))
            if memory is None:
                continue
            if not past_as_planned(tx, memory, item):
                stale.append(item.id)
                continue
            details: dict[str, Any] = {"plan": plan.id, "tier": item.tier, "confirmed": "plan"}
            if item.similarity is not None:
                details["similarity"] = item.similarity
            if item.new_content == memory.content:  # only its past holds the fact
                details["versions_cut"] = [c.version for c in item.past]
                tx.append_event(
                    op="edit",
                    actor=actor,
                    at=now,
                    memory_id=memory.id,
                    namespace=memory.namespace,
                    # The item's reason names what was cut: the audit never holds it.
                    reason=plan.reason or "what the request named was in earlier versions only",
                    details={"fields": [], **details},
                    content_sha256=memory.content_sha256,
                )
                edited.append(memory.id)
                touched += self._redaction.cut_past(
                    tx,
                    memory,
                    None,
                    item,
                    vectors,
                    skip=acted,
                    actor=actor,
                    now=now,
                    plan_id=plan.id,
                )
                continue
            details["versions_cut"] = [memory.version, *(c.version for c in item.past)]
            new = self._versions.write_version(
                tx,
                memory,
                {"content": item.new_content},
                vectors[item.new_content],
                Provenance(actor, "edit", plan.reason or item.reason),
                now,
                details,
            )
            edited.append(memory.id)
            touched += [memory, new]
            touched += self._redaction.cut_past(
                tx, memory, new, item, vectors, skip=acted, actor=actor, now=now, plan_id=plan.id
            )
        return edited, stale, gone, refused, touched

    def _replan(self, plan: ForgetPlan, actor: str) -> ForgetPlan:
        """The plan made again on what the targets are now: a new preview to show, so the
        old precondition (the text the caller saw before) is not its own."""
        source = plan.source.model_copy(update={"expected_sha256": None})
        return self.make_plan(
            plan.operation, source, plan.namespace, actor=actor, reason=plan.reason
        )

    @reads_texts
    def carry_out(
        self,
        tx: StoreTx,
        operation: Operation,
        targets: Sequence[PlanItem],
        *,
        actor: str,
        plan: ForgetPlan | None,
        now: datetime,
        session: str | None = None,
        requests: dict[str, int] | None = None,
        erasing: Erasing | None = None,
        expected_sha256: str | None = None,
    ) -> tuple[list[str], list[str], list[str], list[PlanItem], list[Memory]]:
        """Carry out `targets` in `tx` (a plan's, or a two-call's second call): the ids
        executed, stale (changed since the preview, or no longer the text of the request's
        precondition `expected_sha256`) and gone, the items refused, and every memory
        touched."""
        executed: list[str] = []
        stale: list[str] = []
        gone: list[str] = []
        refused: list[PlanItem] = []
        touched: list[Memory] = []
        lines: set[str] = set()
        for item in targets:
            memory = _still_as_planned(
                tx,
                item,
                live=operation == "forget",
                tally=(gone, stale, refused),
                expected_sha256=expected_sha256,
            )
            if memory is None:
                continue
            details: dict[str, Any] = {"tier": item.tier}
            if plan is not None:
                details["plan"] = plan.id
            if session is not None:
                details["session"] = session
            if requests and item.id in requests:
                details["requests"] = requests[item.id]
            if item.similarity is not None:
                details["similarity"] = item.similarity
            reason = plan.reason if plan is not None and plan.reason else item.reason
            if operation == "forget":
                tx.set_forgotten(memory.id, at=now, actor=actor, reason=reason)
            else:
                if erasing is not None:
                    erasing.take(tx.store, memory)
                lines |= erased_lines(tx.store, [memory])  # before its versions go with it
                details["text_sha256"] = text_hashes(tx.store, memory)
                tx.erase(memory.id)
                details["was"] = memory.status
            tx.append_event(
                op=operation,
                actor=actor,
                at=now,
                memory_id=memory.id,
                namespace=memory.namespace,
                reason=None if operation == "purge" else reason,
                details=details,
                content_sha256=memory.content_sha256,
            )
            executed.append(memory.id)
            touched.append(memory)
        if operation == "purge" and executed:
            cascade: dict[str, Any] = {"plan": plan.id} if plan is not None else {}
            if session is not None:
                cascade["session"] = session
            erased = [m for m in touched if m.id in executed]
            touched += self._derived.cascade(
                tx, erased, actor=actor, now=now, details=cascade, erasing=erasing, lines=lines
            )
        return executed, stale, gone, refused, touched

    def after_commit(
        self, operation: Operation, touched: Sequence[Memory], owed: list[int]
    ) -> bool:
        """Work that follows a commit, recorded in it as owed: compaction after an erasure,
        and the workspace. Returns whether an erasure's cleanup finished."""
        return self._core.project(touched, owed, erased=operation == "purge" and bool(touched))

    def requested_event(
        self,
        tx: StoreTx,
        pending: Pending,
        namespace: str,
        actor: str,
        via: Literal["two_call", "elicitation"],
        now: datetime,
    ) -> None:
        """A deletion now waits for a human: on the record like its outcome will be
        (`forget`, `forget_declined` or `confirmation_expired`)."""
        tx.append_event(
            op="confirmation_requested",
            actor=actor,
            at=now,
            memory_id=pending.memory_id,
            namespace=namespace,
            details={
                "operation": pending.operation,
                "via": via,
                "session": confirm.via(pending.session)[1],
                "requests": pending.request_count,
                "expires_at": pending.expires_at.isoformat(),
            },
            content_sha256=pending.content_sha256,
        )

    def expired_event(self, tx: StoreTx, pending: Pending, now: datetime) -> None:
        memory = tx.store.get(pending.memory_id)
        tx.append_event(
            op="confirmation_expired",
            actor=pending.session,
            at=now,
            memory_id=pending.memory_id,
            namespace=memory.namespace if memory else None,
            details={"operation": pending.operation, "requests": pending.request_count},
            content_sha256=pending.content_sha256,
        )

    def not_found(
        self, memory_id: str, namespace: str | None, operation: Operation = "forget"
    ) -> NotFoundItem:
        """Why an id named for a forget or purge is not there: it is in the trash already,
        it was purged, or it is unknown, and then the ids within two edits of it (from the
        caller's namespace only: a suggestion must not reveal ids behind the isolation
        boundary), each with a preview."""
        statuses = ("active", "forgotten") if operation == "purge" else ("active",)
        where = whereabouts(self.store, memory_id, namespace, statuses)
        when = f" on {where.at:%Y-%m-%d %H:%M} UTC" if where.at else ""
        if where.state == "trash":
            return NotFoundItem(
                id=memory_id,
                state="trash",
                message=f"Memory {memory_id} is already in the trash (forgotten by "
                f"{where.by}{when}; restore brings it back)",
            )
        if where.state == "purged":
            return NotFoundItem(
                id=memory_id,
                state="purged",
                message=f"Memory {memory_id} was purged (erased for good) by {where.by}{when}",
            )
        suggestions = tuple(s.id for s in where.suggestions)
        hint = "search with recall (or forget by query) to find the exact id"
        if suggestions:
            hint = f"did you mean {', '.join(suggestions)}? Otherwise {hint}"
        return NotFoundItem(
            id=memory_id,
            suggestions=suggestions,
            previews=tuple(s.preview for s in where.suggestions),
            message=f"Memory not found: {memory_id} ({hint})",
        )


def _still_as_planned(
    tx: StoreTx,
    item: PlanItem,
    *,
    live: bool,
    tally: tuple[list[str], list[str], list[PlanItem]],
    expected_sha256: str | None = None,
) -> Memory | None:
    """The memory a plan item acts on, re-read inside the executing transaction, when it is
    still as previewed: there (and live, for a forget or an edit), unchanged, unprotected.
    Otherwise None, and the item goes to the (gone, stale, refused) tally."""
    gone, stale, refused = tally
    memory = tx.store.get(item.id)
    if memory is None or (live and memory.status != "active"):
        gone.append(item.id)
        return None
    if memory.content_sha256 != item.content_sha256 or expected_sha256 not in (
        None,
        memory.content_sha256,
    ):  # the preview's text, and the precondition's, checked again at write time
        stale.append(item.id)
        return None
    guard = protection(memory)
    if guard:
        update = {"action": "refuse", "protection": guard.reason, "hint": guard.hint}
        refused.append(item.model_copy(update=update))
        return None
    return memory


class _PlannerSearch:
    """The planner's search port (`planner.port.SearchPort`) over `Forgetting`, within the
    request's filters."""

    def __init__(self, forgetting: Forgetting, flt: Filters) -> None:
        self._forgetting = forgetting
        self._flt = flt

    def gather(self, reading: RequestReading) -> list[Candidate]:
        return self._forgetting._gather(reading, self._flt)

    def cosines(self, text: str, ids: Sequence[str]) -> dict[str, float]:
        return self._forgetting._cosines(text, ids)
