"""`Lethe`, the facade: the one place that composes embedder, store, workspace and settings.

Faces (CLI, MCP server) call its methods and format what comes back; they hold no logic.
Every state change runs in one store transaction together with its audit event, and the
workspace files are re-derived only after that transaction has committed.

`Lethe` inherits nothing: it builds one service per responsibility, each from what it uses
(the shared `Core` of `base.py`, and the other services it calls), and every public method
hands the call to its service: `Memories` (`memories.py`, with `duplicates`), `Superseding`,
`Versions`, `ChangeConfirm`, `Past`, `Search`, `Relations`, `Working`, `Forgetting` (with
`Redaction`, `Derived` and `Proof`), `TwoCall`, `Questions`, `Trash`, `OwedWork`, `Expiry`,
`Sweeping`, `Consolidation`, `Receipts`, `Audit`, `Records`, `SourceImports`, `ForgetMode`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, overload

from lethe.common.filters import Filters
from lethe.common.identifiers import DEFAULT_AGENT, DEFAULT_NAMESPACE
from lethe.common.progress import ProgressBar
from lethe.config import Settings, is_postgres_dsn
from lethe.embed import Embedder, load_embedder
from lethe.engine.audit import Audit
from lethe.engine.base import Clock, Core
from lethe.engine.confirmations import Confirmations
from lethe.engine.consolidation import (
    DEFAULT_WINDOW_MINUTES,
    Consolidation,
    ConsolidationReport,
)
from lethe.engine.derived import Derived
from lethe.engine.expiring import Expiry
from lethe.engine.forget_mode import ForgetMode
from lethe.engine.forgetting import Forgetting
from lethe.engine.importing import SourceBatch, SourceImports
from lethe.engine.memories import Memories, Progress, noted
from lethe.engine.owed import OwedWork
from lethe.engine.past import Past
from lethe.engine.proof import Proof
from lethe.engine.questions import Questions
from lethe.engine.receipts import Receipts
from lethe.engine.records import Records
from lethe.engine.redaction import Redaction
from lethe.engine.relations import Relations
from lethe.engine.search import Search
from lethe.engine.superseding import Superseding
from lethe.engine.sweeping import Sweeping
from lethe.engine.transfer import Export
from lethe.engine.trash import Trash
from lethe.engine.two_call import ChangeConfirm, TwoCall
from lethe.engine.versions import Versions, asked
from lethe.engine.working import Working
from lethe.engine.working_set import WorkingContext
from lethe.errors import WorkspaceError
from lethe.forget.change import Change, ChangeConfirmation, ChangeOutcome, UpdatePlan
from lethe.forget.plan import ForgetPlan, Operation
from lethe.forget.results import (
    Answer,
    Confirmation,
    DeletionReport,
    ForgetOutcome,
    ForgetResult,
    MaintenanceReport,
    PendingItem,
    TrashItem,
)
from lethe.forget.sweep import SweepPlan, SweepResult, Vitality
from lethe.importers import SourceReport
from lethe.model import (
    Draft,
    Episode,
    EpisodeView,
    Event,
    ImportReport,
    Link,
    Memory,
    MemoryVersion,
    Note,
    Page,
    RecallHit,
    Remembered,
    utcnow,
)
from lethe.store.base import Store
from lethe.store.sqlite import SQLiteStore

if TYPE_CHECKING:
    from lethe.engine.forget_session import ForgetSession


class Lethe:
    """Long-term memory for one store. Open it with `Lethe.open(path)`; close it when done."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: Settings,
        *,
        clock: Clock = utcnow,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings
        self._clock = clock
        core = Core(store, embedder, settings, clock)
        self.workspace = core.workspace
        self._core = core
        self._expiry = Expiry(core)
        self._past = Past(store, embedder, settings, clock, self._expiry)
        self._working = Working(store, embedder, settings, clock, self._expiry)
        self._versions = Versions(core, self._expiry)
        self._change_confirm = ChangeConfirm(store, settings, clock, self._versions, self._past)
        self._superseding = Superseding(core, self._versions)
        self._memories = Memories(core, self._superseding, self._working)
        self._search = Search(core, self._expiry, self._past, self._working)
        self._relations = Relations(store, settings, clock, self._past)
        self._receipts = Receipts(store)
        self._proof = Proof(core, self._search)
        self._owed = OwedWork(core, self._proof)
        self._forgetting = Forgetting(
            core,
            self._expiry,
            self._versions,
            self._search,
            Redaction(store, embedder, self._versions),
            Derived(embedder),
            self._proof,
        )
        self._two_call = TwoCall(core, self._forgetting, self._proof)
        self._questions = Questions(store, settings, clock, self._forgetting)
        self._confirmations = Confirmations(
            self._forgetting,
            self._two_call,
            self._questions,
            self._versions,
            self._change_confirm,
            self._past,
        )
        self._trash = Trash(core, self._expiry, self._past, self._forgetting, self._owed)
        self._sweeping = Sweeping(core, self._expiry, self._past, self._memories)
        self._consolidation = Consolidation(store, settings, clock, self._expiry)
        self._audit = Audit(store, self._expiry)
        self._records = Records(core, self._expiry, self._memories)
        self._imports = SourceImports(store, embedder, settings, clock, self._memories)
        self._forget_mode = ForgetMode(settings, self)

    @classmethod
    def open(
        cls,
        db: str | Path | None = None,
        *,
        embedder: Embedder | None = None,
        clock: Clock = utcnow,
        progress: ProgressBar | None = None,
        **settings: Any,
    ) -> Lethe:
        """Open (creating if needed) the store at `db`, else `LETHE_DB`, else the default path.
        A `postgresql://` DSN opens a PostgreSQL database (with pgvector) instead of a file.
        `progress` shows a schema migration that has to go through every memory."""
        overrides = {**settings, **({"db": str(db)} if db is not None else {})}
        resolved = Settings.load(overrides=overrides)
        embedder = embedder or load_embedder(resolved.embedder, resolved.threads)
        store = open_store(resolved, embedder.name, embedder.dim, progress)
        lethe = cls(store, embedder, resolved, clock=clock)
        try:
            if lethe.workspace is not None and not store.workspace_known():
                store.mark_workspace()  # from now on every process records what it owes it
            # A process that died between a commit and its cleanup left work owed: finish
            # it before serving (an erasure's traces first).
            lethe.settle_owed()
            lethe.expire_due()
        except WorkspaceError:
            pass  # the database is sound; the owed files stay recorded for a later open
        except BaseException:
            lethe.close()
            raise
        return lethe

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Lethe:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # Core

    def now(self) -> datetime:
        """The engine's clock (a face computing a moment relative to now uses this one)."""
        return self._core.now()

    def rebuild_workspace(self, namespaces: Iterable[str] | str | None = None) -> list[str]:
        """Re-derive every workspace file from the database (all namespaces the store holds,
        or the ones named): the files are a projection, so this is always safe, and it mends
        files edited by hand or left behind by an older lethe. Returns the namespaces."""
        return self._core.rebuild_workspace(namespaces)

    # OwedWork

    def settle_owed(self) -> int:
        """Finish the work committed changes still owe (a process died between a commit and
        its cleanup): run at every open and by `maintain`. Work on the workspace files waits
        for a process that has a workspace. A purge's receipt comes last, once its cleanup
        has run, and says how far that got. Returns how many pieces were finished."""
        return self._owed.settle_owed()

    # Expiry

    def expire_due(self) -> list[str]:
        """Turn every memory whose expiry has come into a soft delete; the ids, earliest
        first. Reads call it themselves: a caller need not."""
        return self._expiry.expire_due()

    # Past

    def get(
        self,
        memory_id: str,
        *,
        namespace: str | None = None,
        as_of: datetime | str | None = None,
    ) -> Memory:
        """A live memory; with `as_of` (a past moment), the memory as it stood then. With
        `namespace`, one from another namespace is "not found": callers confined to some
        namespaces (an MCP token) must not learn what lies outside them."""
        return self._past.get(memory_id, namespace=namespace, as_of=as_of)

    # Memories

    def remember(
        self,
        content: str | Note,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        agent: str | None = None,
        layer: str | None = None,
        category: str | None = None,
        tags: Iterable[str] | str | None = None,
        metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        private: bool | None = None,
        allow_duplicate: bool = False,
        system: bool = False,
        actor: str | None = None,
        supersedes: str | None = None,
        expires_at: datetime | str | None = None,
        expires_in: timedelta | str | None = None,
        hold_expiry: bool = False,
        session: str | None = None,
    ) -> Remembered:
        """Store a memory and link it to its close neighbours. Never refuses one for being
        similar: similar is not same (embeddings barely see numbers, days, names and
        negation). Fields not given take their defaults: agent `user`, layer `episodic`,
        no category, tags or metadata, importance 0.5, not private.

        What is asked is one `Note` (the facade also takes its fields as keywords and builds
        it of them); `namespace` is where it goes, `actor` who asks, `system` that lethe
        itself writes it.

        The same text, with the same fields, already live in the namespace is not stored
        twice: that memory comes back with `existing=True` and nothing is written (unless
        `allow_duplicate`). A near-duplicate (cosine >= the duplicate threshold) is stored,
        linked to its neighbour as `near_duplicate`, and named in `near_duplicates`.
        `actor` is who the audit log names (default: the agent). `likely_supersedes` names
        the stored memories the new one likely replaces (the same attribute of the same
        subject with another value), with a confidence and the evidence: nothing is changed
        for them; `supersedes` is how to replace one.

        `supersedes` (an id) says the new text replaces what a live memory of the namespace says
        ("Alice now works at Stripe" for "Alice works at Shopify"): that memory is updated
        in place, in one transaction — its earlier state becomes a version (`history`,
        `revert`), the new text and the fields given here apply, the others stay as they
        were (its agent too), and the audit event is a `supersede`. Recall then finds only
        the new text. The answer carries `superseded` (the id) and `superseded_version`
        (the version now holding the old text); a stored memory that already says exactly
        the new text is named in `near_duplicates` and linked, never merged away. A
        protected memory is not superseded silently: `ConfirmationRequired` carries the
        update plan, to execute once the person agrees.

        `expires_at` (an instant, ISO 8601 text or an aware datetime) or `expires_in` (a
        duration: "7d", "12h", "PT12H" or a timedelta) says when the memory ends, as the person
        asked ("keep this for a week"): from that instant no read returns it, and it goes to
        the trash, audited as `expire` (restorable until purged). It must lie in the future.
        A text already stored with another expiry, or none, is stored again, not merged: the
        person's expiry must hold for what they said. `hold_expiry` says the person chose
        it (the CLI's `remember --expires`): lengthening or removing it is then confirmed like a
        forget (`Memory.expiry_held`); an agent's own expiry is not held, and it may renew it.

        `session` names the conversation the memory is a turn of (`metadata.session`): it is
        then also ranked with the turns around it (`lethe.common.context`)."""
        return self._memories.remember(
            noted(
                content,
                agent=agent,
                layer=layer,
                category=category,
                tags=tags,
                metadata=metadata,
                importance=importance,
                private=private,
                allow_duplicate=allow_duplicate,
                supersedes=supersedes,
                expires_at=expires_at,
                expires_in=expires_in,
                hold_expiry=hold_expiry,
                session=session,
            ),
            namespace=namespace,
            actor=actor,
            system=system,
        )

    def remember_many(
        self,
        drafts: Iterable[Draft],
        *,
        batch_size: int = 64,
        skip_duplicates: bool = True,
        auto_link: bool = True,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Bulk remember: batched embedding and search, one transaction per batch.

        Exact duplicates (the same text and fields live in the namespace, or earlier in the
        same call) and ids that already exist are skipped and counted rather than failing the
        whole call; near-duplicates are stored and linked like `remember` does. A draft that
        carries an `id` is a memory being restored (an export): it is stored as it was, with
        no duplicate check and no auto-links, since its links travel in the export.
        """
        return self._memories.remember_many(
            drafts,
            batch_size=batch_size,
            skip_duplicates=skip_duplicates,
            auto_link=auto_link,
            progress=progress,
        )

    # Versions

    def history(self, memory_id: str, *, namespace: str | None = None) -> list[MemoryVersion]:
        """Every state of a live memory, the current one first, then the earlier ones newest
        first, each with who made it, when and why. Versions are never recalled, listed or
        written to the workspace; purge erases them with the memory."""
        return self._versions.history(memory_id, namespace=namespace)

    def plan_revert(
        self,
        memory_id: str,
        version: int,
        *,
        actor: str | None = None,
        namespace: str | None = None,
        reason: str | None = None,
        expected_sha256: str | None = None,
    ) -> UpdatePlan:
        """Preview making an earlier version current again (as a new version: the history
        keeps every state, the one reverted from included). `expected_sha256` as for
        `plan_update`."""
        return self._versions.plan_revert(
            memory_id,
            version,
            actor=actor,
            namespace=namespace,
            reason=reason,
            expected_sha256=expected_sha256,
        )

    def plan_update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        layer: str | None = None,
        category: str | None = None,
        tags: Iterable[str] | str | None = None,
        metadata: dict[str, Any] | None = None,
        merge_metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        private: bool | None = None,
        actor: str | None = None,
        namespace: str | None = None,
        reason: str | None = None,
        expected_sha256: str | None = None,
        expires_at: datetime | str | None = None,
        expires_in: timedelta | str | None = None,
        no_expiry: bool = False,
        change: Change | None = None,
    ) -> UpdatePlan:
        """Preview an update: what would change, and whether it needs a confirmation
        because it weakens a protection. Nothing changes until the plan is executed.

        What is asked is one `Change` (the facade also takes its fields as keywords, and
        builds it of them); `actor` is who asks, `namespace` where the memory must be.

        `expires_at` / `expires_in` set when the memory ends (as at `remember`), `no_expiry`
        removes its expiry. Setting an expiry, or bringing one forward, is a deletion: the
        plan needs the same confirmation as a forget (`ends`), and a protected memory refuses
        it as it refuses a forget. Extending or removing an expiry is an ordinary change.

        `metadata` replaces the whole object; `merge_metadata` sets only the keys it names.
        `expected_sha256`: the content hash the caller last saw (`ContentChanged` when the text
        changed since); executing the plan then checks the memory is still as planned.
        """
        return self._versions.plan_update(
            memory_id,
            asked(
                change,
                content=content,
                layer=layer,
                category=category,
                tags=tags,
                metadata=metadata,
                merge_metadata=merge_metadata,
                importance=importance,
                private=private,
                reason=reason,
                expires_at=expires_at,
                expires_in=expires_in,
                no_expiry=no_expiry,
                expected_sha256=expected_sha256,
            ),
            actor=actor,
            namespace=namespace,
        )

    def revert(
        self,
        memory_id: str,
        version: int,
        *,
        actor: str | None = None,
        namespace: str | None = None,
        reason: str | None = None,
        expected_sha256: str | None = None,
    ) -> Memory:
        """Make an earlier version current again, as a new version. Confirmed like an update
        when it weakens protection (`ConfirmationRequired`)."""
        return self._versions.revert(
            memory_id,
            version,
            actor=actor,
            namespace=namespace,
            reason=reason,
            expected_sha256=expected_sha256,
        )

    def update(
        self,
        memory_id: str,
        *,
        content: str | None = None,
        layer: str | None = None,
        category: str | None = None,
        tags: Iterable[str] | str | None = None,
        metadata: dict[str, Any] | None = None,
        merge_metadata: dict[str, Any] | None = None,
        importance: float | None = None,
        private: bool | None = None,
        actor: str | None = None,
        namespace: str | None = None,
        reason: str | None = None,
        expected_sha256: str | None = None,
        expires_at: datetime | str | None = None,
        expires_in: timedelta | str | None = None,
        no_expiry: bool = False,
        change: Change | None = None,
    ) -> Memory:
        """Change a memory; the state it replaces is kept as a version (`history`, `revert`).
        What is asked is one `Change`, as for `plan_update`.

        `expected_sha256`: the content hash the caller last saw. When the text changed since,
        nothing is changed and `ContentChanged` says so, with the current hash and version.
        `expires_at` / `expires_in` / `no_expiry` as for `plan_update`: setting or bringing
        forward an expiry raises `ConfirmationRequired` with the plan, like a forget.

        A change that weakens protection (the text of a protected memory, a pin lowered below
        0.9, a move out of the caveat or goal layer) is not made here: it raises
        `ConfirmationRequired` carrying the plan, to execute with `execute(plan)` once the
        person has agreed.
        """
        return self._versions.update(
            memory_id,
            asked(
                change,
                content=content,
                layer=layer,
                category=category,
                tags=tags,
                metadata=metadata,
                merge_metadata=merge_metadata,
                importance=importance,
                private=private,
                reason=reason,
                expires_at=expires_at,
                expires_in=expires_in,
                no_expiry=no_expiry,
                expected_sha256=expected_sha256,
            ),
            actor=actor,
            namespace=namespace,
        )

    # ChangeConfirm

    def confirm_change(self, plan: UpdatePlan, *, session: str) -> ChangeConfirmation:
        """Seed 000's rule applied to a protected change: the first call records a pending
        confirmation and returns the preview; the same change (same memory state, same new
        values) asked again by the same session within the time-to-live executes it."""
        return self._change_confirm.confirm_change(plan, session=session)

    # Search

    def list_memories(
        self,
        filters: Filters | dict[str, Any] | None = None,
        *,
        where: Iterable[str] = (),
        limit: int = 50,
        offset: int = 0,
    ) -> Page:
        """Live memories matching the filters, newest first."""
        return self._search.list_memories(filters, where=where, limit=limit, offset=offset)

    def namespaces(self) -> list[str]:
        """The namespaces that hold at least one live memory."""
        return self._search.namespaces()

    def recall(
        self,
        query: str,
        k: int = 10,
        filters: Filters | dict[str, Any] | None = None,
        *,
        where: Iterable[str] = (),
        touch: bool = True,
        attend: str | None = None,
        min_similarity: float | None = None,
        as_of: datetime | str | None = None,
    ) -> list[RecallHit]:
        """Hybrid search: vector and full-text ranks fused; hits are ordered by that fused
        score, not by similarity alone, and every hit carries its cosine to the query.
        `min_similarity` (0-1) drops the hits whose cosine is below it, whatever their rank
        (a full-text match included). With `attend`, the hits also enter that agent's working
        memory."""
        return self._search.recall(
            query,
            k,
            filters,
            where=where,
            touch=touch,
            attend=attend,
            min_similarity=min_similarity,
            as_of=as_of,
        )

    def similarities(self, query: str, memory_ids: Sequence[str]) -> dict[str, float]:
        """The cosine of each of these live memories to the query (clamped to 0-1)."""
        return self._search.similarities(query, memory_ids)

    def touch(self, memory_ids: Sequence[str]) -> None:
        """Count a read of these live memories (a face that reads by id, as recall's hits
        are counted): decay judges a memory by when it was last read."""
        self._search.touch(memory_ids)

    # Relations

    def bump(
        self,
        a: str,
        b: str,
        *,
        kind: str = "related",
        delta: float = 0.1,
        actor: str = DEFAULT_AGENT,
    ) -> Link:
        """Strengthen an existing link (confidence capped at 1.0)."""
        return self._relations.bump(a, b, kind=kind, delta=delta, actor=actor)

    def create_episode(
        self,
        summary: str,
        memory_ids: Sequence[str],
        *,
        start: datetime | None = None,
        end: datetime | None = None,
        importance: float = 0.5,
        namespace: str = DEFAULT_NAMESPACE,
        actor: str = DEFAULT_AGENT,
    ) -> Episode:
        """Group live memories of one namespace into an episode (time span defaults to theirs)."""
        return self._relations.create_episode(
            summary,
            memory_ids,
            start=start,
            end=end,
            importance=importance,
            namespace=namespace,
            actor=actor,
        )

    def episodes_of(self, memory_id: str, *, namespace: str | None = None) -> list[Episode]:
        """The episodes a live memory belongs to, earliest first."""
        return self._relations.episodes_of(memory_id, namespace=namespace)

    def get_episode(self, episode_id: str, *, namespace: str | None = None) -> EpisodeView:
        return self._relations.get_episode(episode_id, namespace=namespace)

    def link(
        self,
        a: str,
        b: str,
        *,
        kind: str = "related",
        confidence: float = 1.0,
        actor: str = DEFAULT_AGENT,
        namespace: str | None = None,
    ) -> Link:
        """Link two live memories of one namespace (re-linking sets the new confidence)."""
        return self._relations.link(
            a,
            b,
            kind=kind,
            confidence=confidence,
            actor=actor,
            namespace=namespace,
        )

    def links(self, memory_id: str, *, namespace: str | None = None) -> list[Link]:
        return self._relations.links(memory_id, namespace=namespace)

    def neighbours(
        self, memory_id: str, *, namespace: str | None = None
    ) -> list[tuple[Link, Memory]]:
        """The live memories linked to a live one, with their links, strongest first."""
        return self._relations.neighbours(memory_id, namespace=namespace)

    def unlink(self, a: str, b: str, *, kind: str = "related", actor: str = DEFAULT_AGENT) -> None:
        self._relations.unlink(a, b, kind=kind, actor=actor)

    # Working

    def attend(
        self,
        memory_ids: Sequence[str] | str,
        *,
        agent: str = DEFAULT_AGENT,
        namespace: str = DEFAULT_NAMESPACE,
        actor: str | None = None,
    ) -> WorkingContext:
        """Bring memories into an agent's working memory. Over the token budget, the least
        valuable items are evicted: from working memory only (audited as `evict`, by `actor`,
        default the agent); the memories stay in long-term storage, recallable."""
        return self._working.attend(memory_ids, agent=agent, namespace=namespace, actor=actor)

    def context(
        self, agent: str = DEFAULT_AGENT, *, namespace: str = DEFAULT_NAMESPACE
    ) -> WorkingContext:
        """An agent's working memory, most valuable first; `.text` is ready for a prompt."""
        return self._working.context(agent, namespace=namespace)

    # Forgetting

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
            return self._forgetting.execute(plan, actor=actor, via=via, hold_expiry=hold_expiry)
        return self._forgetting.execute(plan, actor=actor, via=via)

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
        return self._forgetting.plan_forget(
            memory_ids,
            query=query,
            filters=filters,
            where=where,
            whole_namespace=whole_namespace,
            actor=actor,
            reason=reason,
            narrow_only=narrow_only,
            expected_sha256=expected_sha256,
        )

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
        return self._forgetting.plan_purge(
            memory_ids,
            forgotten_before=forgotten_before,
            namespace=namespace,
            actor=actor,
            reason=reason,
            expected_sha256=expected_sha256,
        )

    # TwoCall

    def decline(
        self,
        memory_ids: Sequence[str] | str,
        *,
        session: str,
        namespace: str = DEFAULT_NAMESPACE,
        operation: Literal["forget", "purge", "update"] = "forget",
        answer: Literal["decline", "cancel", "accept_without_content"] = "decline",
        actor: str | None = None,
    ) -> int:
        """The human said no (e.g. to an MCP elicitation): drop pending items and record it.
        `answer` keeps apart a refusal ("decline") from a dismissed question ("cancel") and
        from an accept that carried no answer ("accept_without_content", which is no yes);
        `actor` is who the audit log names (default: the session)."""
        return self._two_call.decline(
            memory_ids,
            session=session,
            namespace=namespace,
            operation=operation,
            answer=answer,
            actor=actor,
        )

    def forget(
        self,
        memory_ids: Sequence[str] | str,
        *,
        session: str,
        namespace: str = DEFAULT_NAMESPACE,
        actor: str | None = None,
        reason: str | None = None,
        operation: Operation = "forget",
        expected_sha256: str | None = None,
    ) -> Confirmation:
        """Seed 000's conversational confirmation: the first call for an id previews it and
        records a pending confirmation; the same id again from the same session within the
        time-to-live executes it. Each id is tracked separately. `expected_sha256` (with one
        id): the content hash the caller last saw, checked at planning (`ContentChanged`) and
        again in the transaction that deletes."""
        return self._two_call.forget(
            memory_ids,
            session=session,
            namespace=namespace,
            actor=actor,
            reason=reason,
            operation=operation,
            expected_sha256=expected_sha256,
        )

    # Confirmations

    def ask_forget(
        self,
        memory_ids: Sequence[str] | str,
        *,
        session: str,
        namespace: str = DEFAULT_NAMESPACE,
        operation: Operation = "forget",
        actor: str = DEFAULT_AGENT,
        expected_sha256: str | None = None,
    ) -> ForgetPlan | None:
        """The plan to put to the person behind `session` before a forget or purge of these
        ids, recorded as asked and kept until they answer (`answer_forget`); None when there
        is nothing to ask about (no target: the answer then says why). `expected_sha256`
        (with one id): the content hash the caller last saw (`ContentChanged`, and nothing
        is asked, when the text changed since)."""
        return self._confirmations.ask_forget(
            memory_ids,
            session=session,
            namespace=namespace,
            operation=operation,
            actor=actor,
            expected_sha256=expected_sha256,
        )

    def answer_forget(
        self,
        memory_ids: Sequence[str] | str,
        answer: Answer,
        *,
        session: str,
        namespace: str = DEFAULT_NAMESPACE,
        operation: Operation = "forget",
        actor: str = DEFAULT_AGENT,
        two_call_session: str | None = None,
        expected_sha256: str | None = None,
    ) -> ForgetOutcome:
        """Carry out the person's answer to `ask_forget`: on `yes` the plan they were shown
        executes (planned again if it is no longer kept; stale targets are left alone); any
        other answer deletes nothing and is recorded. `not_asked`: the two-call rule, keyed by
        `two_call_session` (default: `session`)."""
        return self._confirmations.answer_forget(
            memory_ids,
            answer,
            session=session,
            namespace=namespace,
            operation=operation,
            actor=actor,
            two_call_session=two_call_session,
            expected_sha256=expected_sha256,
        )

    def ask_change(
        self,
        memory_id: str,
        change: Change,
        *,
        session: str,
        role: str,
        namespace: str | None = None,
        actor: str | None = None,
    ) -> UpdatePlan | None:
        """The plan to put to the person behind `session` before this change, when it is
        confirmed like a forget and `role` may make it at all (else `answer_change` refuses
        it without a question); recorded as asked and kept until they answer. None: nothing
        to ask. An expiry asked as a duration (`expires_in`) is not asked about: it would name
        another instant when answered."""
        return self._confirmations.ask_change(
            memory_id, change, session=session, role=role, namespace=namespace, actor=actor
        )

    def answer_change(
        self,
        memory_id: str,
        change: Change,
        answer: Answer,
        *,
        session: str,
        role: str,
        namespace: str | None = None,
        actor: str | None = None,
        two_call_session: str | None = None,
    ) -> ChangeOutcome:
        """Carry out the person's answer to `ask_change`. `not_asked`: a change that weakens
        nothing is made at once (the agent's own: an expiry it sets is not held); one that
        does is refused for a `role` that may not make it, else confirmed by the two-call
        rule keyed by `two_call_session` (default: `session`). `yes`: the plan the person was
        shown is made (`not_open` when no question is open). Anything else changes nothing
        and is recorded."""
        return self._confirmations.answer_change(
            memory_id,
            change,
            answer,
            session=session,
            role=role,
            namespace=namespace,
            actor=actor,
            two_call_session=two_call_session,
        )

    # Questions

    def answered(
        self,
        *,
        session: str,
        operation: Literal["forget", "purge", "update"],
        memory_ids: Sequence[str],
    ) -> None:
        """The human answered (yes or no): the question is no longer pending."""
        self._questions.answered(session=session, operation=operation, memory_ids=memory_ids)

    def ask(self, plan: ForgetPlan | UpdatePlan, *, session: str) -> None:
        """Record that the human behind `session` is being asked about this plan: a deletion's
        targets, or a change that weakens protection. The rows and their
        `confirmation_requested` events only inform (the inspector, the audit log);
        executing still needs the plan and the human's yes."""
        self._questions.ask(plan, session=session)

    def pending_confirmations(self, *, namespace: str | None = None) -> list[PendingItem]:
        """Every deletion awaiting a human, oldest request first. Rows past their expiry
        are listed (as expired) until maintenance records and drops them."""
        return self._questions.pending_confirmations(namespace=namespace)

    # Trash

    def deletion_report(
        self, *, since: datetime | None = None, namespace: str | None = None
    ) -> DeletionReport:
        """Counts of forgets, restores, purges, expiries and declined/expired confirmations
        by op, actor, namespace and day (seed 004's deletion report)."""
        return self._trash.deletion_report(since=since, namespace=namespace)

    def list_trash(
        self, *, namespace: str | None = None, limit: int = 50, offset: int = 0
    ) -> tuple[list[TrashItem], int]:
        return self._trash.list_trash(namespace=namespace, limit=limit, offset=offset)

    def maintain(self) -> MaintenanceReport:
        """Erase trash older than the retention window and expire stale confirmations; both
        are recorded (`purge` with `retention_days`, `confirmation_expired`); and turn the
        memories whose own expiry has come into soft deletes (`expire`); give earlier states
        that have none their vector (`Past`)."""
        return self._trash.maintain()

    def restore(
        self,
        memory_id: str,
        *,
        actor: str = DEFAULT_AGENT,
        namespace: str | None = None,
        drop_held_expiry: bool = True,
    ) -> Memory:
        """Bring a forgotten memory back with its links, episodes and workspace lines. An
        expiry that has passed is removed (kept, it would send the memory back at once); when
        that expiry is held (the person's), removing it is loosening it, so a caller acting
        for an agent passes `drop_held_expiry=False` and such a memory stays in the trash."""
        return self._trash.restore(
            memory_id,
            actor=actor,
            namespace=namespace,
            drop_held_expiry=drop_held_expiry,
        )

    # Sweeping

    def check_sweep_allowed(self) -> None:
        """Refuse unless the decay policy lets sweeps execute (`auto`)."""
        self._sweeping.check_sweep_allowed()

    def execute_sweep(self, plan: SweepPlan, *, actor: str | None = None) -> SweepResult:
        """Apply a sweep plan, only under the `auto` policy: drops become soft deletes, and the
        compressed memories become summary memories (layer `learning`, at most
        `SUMMARY_GROUP` originals each) that take over their links, with the originals in the
        trash. Every target is checked again inside the transaction: one recalled, changed,
        protected or gone since the plan is left alone."""
        return self._sweeping.execute_sweep(plan, actor=actor)

    def sweep(self, *, namespace: str = DEFAULT_NAMESPACE, actor: str = DEFAULT_AGENT) -> SweepPlan:
        """Score every live memory of the namespace (heat, risk) and say what the policy would
        compress or drop. Never changes the store, whatever the policy."""
        return self._sweeping.sweep(namespace=namespace, actor=actor)

    def sweep_asked(self, plan: SweepPlan, *, session: str, actor: str) -> None:
        """Record that the human behind `session` is being asked whether to carry out this
        sweep (one event for the plan, as a forget records its question)."""
        self._sweeping.sweep_asked(plan, session=session, actor=actor)

    def sweep_declined(
        self,
        plan: SweepPlan,
        *,
        session: str,
        actor: str,
        answer: Literal["decline", "cancel", "accept_without_content"] = "decline",
    ) -> None:
        """The human said no to a sweep: nothing is forgotten, and that is on the record."""
        self._sweeping.sweep_declined(plan, session=session, actor=actor, answer=answer)

    def vitality(self, memory_id: str, *, namespace: str | None = None) -> Vitality:
        """A live memory's heat and forgetting risk today, scored as a sweep scores it."""
        return self._sweeping.vitality(memory_id, namespace=namespace)

    # Consolidation

    def consolidate(
        self,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        threshold: float | None = None,
        limit: int = 50,
        window_minutes: float = DEFAULT_WINDOW_MINUTES,
        actor: str = DEFAULT_AGENT,
    ) -> ConsolidationReport:
        return self._consolidation.consolidate(
            namespace=namespace,
            threshold=threshold,
            limit=limit,
            window_minutes=window_minutes,
            actor=actor,
        )

    # Receipts

    def receipt(self, receipt_id: str) -> dict[str, Any] | None:
        """One receipt by its id (`rcpt_…`), or None."""
        return self._receipts.receipt(receipt_id)

    def receipts(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """The signed receipts of past purges, newest first, after the purges whose receipt is
        still owed (no `receipt_id`; `status` says why: `no receipt: interrupted` when the
        purging process is gone, `no receipt yet: being checked` while it runs)."""
        return self._receipts.receipts(limit, offset)

    def verify_receipt(self, receipt: dict[str, Any]) -> list[str]:
        """What is wrong with a receipt, checked against this store: its signature, that
        the key is this store's, that the audit log holds a purge event of each id with the
        same content digest, and that none of the ids exists. Empty when it holds."""
        return self._receipts.verify_receipt(receipt)

    # Audit

    def audit(
        self,
        *,
        memory_id: str | None = None,
        op: str | None = None,
        namespace: str | None = None,
        actor: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        after_seq: int = 0,
        before_seq: int | None = None,
        newest_first: bool = False,
        limit: int = 100,
    ) -> list[Event]:
        """Audit events, oldest first (page on with `after_seq` = the last `seq` seen) or
        newest first (page back with `before_seq`); `since` is inclusive, `until` exclusive."""
        return self._audit.audit(
            memory_id=memory_id,
            op=op,
            namespace=namespace,
            actor=actor,
            since=since,
            until=until,
            after_seq=after_seq,
            before_seq=before_seq,
            newest_first=newest_first,
            limit=limit,
        )

    # Records

    def export_records(self) -> Export:
        """The whole memory as JSON-ready records (the JSONL export format): live and
        forgotten memories, links, episodes and the audit log.

        Iterate the result for the records; its `memories` count is there before the first
        one, for a progress bar.
        """
        return self._records.export_records()

    def import_records(
        self, records: Iterable[dict[str, Any]], *, progress: Progress | None = None, **options: Any
    ) -> ImportReport:
        """Import records as written by `export_records` (or minimal `{"content": …}` lines).

        Every record is parsed and validated before anything is written, so a bad line leaves
        the store untouched. Records that carry an id (an export) are written in one
        transaction, memories, trash, links, episodes and audit events together; ids already
        present are skipped. Plain `{"content": …}` lines are then remembered in batches
        like `remember_many`: near-duplicates skipped, neighbours auto-linked.
        """
        return self._records.import_records(records, progress=progress, **options)

    # SourceImports

    def import_from(
        self,
        source: str,
        path: str | Path,
        *,
        namespace: str | None = None,
        dry_run: bool = False,
        progress: Progress | None = None,
        skip_duplicates: bool = True,
        auto_link: bool = True,
    ) -> SourceReport:
        """Import another memory's data: `source` is `mcp-memory` (the MCP memory server's
        JSONL file), `mem0` (the JSON of mem0's get_all), `markdown` (a folder of notes),
        `claude` or `chatgpt` (the `conversations.json` of Claude.ai's or ChatGPT's data
        export, or the export's zip: a memory per turn, each conversation a session).
        `read_source` then `import_source`; see docs/migrate.md."""
        return self._imports.import_from(
            source,
            path,
            namespace=namespace,
            dry_run=dry_run,
            progress=progress,
            skip_duplicates=skip_duplicates,
            auto_link=auto_link,
        )

    def import_source(
        self,
        batch: SourceBatch,
        *,
        dry_run: bool = False,
        progress: Progress | None = None,
        skip_duplicates: bool = True,
        auto_link: bool = True,
        batch_size: int = 64,
    ) -> SourceReport:
        """Store what `read_source` read: memories as `remember_many` does, then the links of
        the source's relations. `dry_run` reports what would be done and writes nothing."""
        return self._imports.import_source(
            batch,
            dry_run=dry_run,
            progress=progress,
            skip_duplicates=skip_duplicates,
            auto_link=auto_link,
            batch_size=batch_size,
        )

    def read_source(
        self, source: str, path: str | Path, *, namespace: str | None = None
    ) -> SourceBatch:
        """Read a source of another memory and check every memory it yields, writing nothing.

        Raises `SourceRefused` naming every malformed record (with its line, array index,
        file:line or place in a chat export, and how to fix it) when there is any.
        """
        return self._imports.read_source(source, path, namespace=namespace)

    # ForgetMode

    def forget_instruction(
        self,
        instruction: str,
        *,
        query: str | None = None,
        filters: dict[str, Any] | None = None,
        where: Sequence[str] = (),
        explicit_ids: Sequence[str] = (),
        namespace: str = DEFAULT_NAMESPACE,
        dry_run: bool = True,
        use_llm: bool | None = None,
    ) -> dict[str, Any]:
        """Plan (dry run, the default) or carry out one natural-language forget instruction;
        seed 002's response. See `forget_session` for the arguments."""
        return self._forget_mode.forget_instruction(
            instruction,
            query=query,
            filters=filters,
            where=where,
            explicit_ids=explicit_ids,
            namespace=namespace,
            dry_run=dry_run,
            use_llm=use_llm,
        )

    def forget_session(
        self,
        instruction: str,
        *,
        query: str | None = None,
        filters: dict[str, Any] | None = None,
        where: Sequence[str] = (),
        explicit_ids: Sequence[str] = (),
        namespace: str = DEFAULT_NAMESPACE,
        dry_run: bool = True,
        use_llm: bool | None = None,
    ) -> ForgetSession:
        """Run one forget instruction and return its session: `result()` is seed 002's
        answer, and a dry run's `approve()` carries out exactly the plan it shows.

        `filters` / `where` are the user's scope (metadata filters there may widen a query
        deletion, as in plan_forget); `query` steers the deterministic planner's search and
        is handed to a model as a suggestion. `use_llm=None` uses the configured endpoint."""
        return self._forget_mode.forget_session(
            instruction,
            query=query,
            filters=filters,
            where=where,
            explicit_ids=explicit_ids,
            namespace=namespace,
            dry_run=dry_run,
            use_llm=use_llm,
        )


def open_store(
    settings: Settings, embedder: str, dim: int, progress: ProgressBar | None = None
) -> Store:
    """The store `settings.db` names, opened for vectors of `embedder` (refused when it holds
    another model's): a SQLite file, or a PostgreSQL database for a `postgresql://` DSN.
    `progress` shows a migration that goes through every row."""
    if is_postgres_dsn(settings.db):
        from lethe.store.postgres import PostgresStore

        return PostgresStore(
            settings.db,
            embedder=embedder,
            dim=dim,
            busy_timeout_ms=settings.busy_timeout_ms,
            context_window=(settings.context_before, settings.context_after),
            progress=progress,
        )
    return SQLiteStore(
        settings.db,
        embedder=embedder,
        dim=dim,
        busy_timeout_ms=settings.busy_timeout_ms,
        context_window=(settings.context_before, settings.context_after),
        threads=settings.threads,
        progress=progress,
    )
