"""Forget mode (seed 002): one natural-language instruction, handled by whoever drives it —
the client's LLM over MCP, lethe's own agent loop over an OpenAI-compatible endpoint, or the
deterministic planner — against the same guarded session.

The guard lives here, in code, not in a prompt: at most three searches; `delete_memories` is
refused while the session is a dry run; ids are checked for format; `sys_` ids are never
deleted; only the high-confidence matches of this session's own searches (the tiered rule of
the query plans) or the ids the user named explicitly can be deleted, and only while their
content is what the search showed; protection applies as on every other path. Only the
user's scope (filters given when the session starts) can widen a deletion: filters a model
adds narrow the search, never widen it. Private memories are shown to a model as
"(private memory)". Its result is seed 002's response schema.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from lethe.common import validate
from lethe.common.identifiers import DEFAULT_NAMESPACE
from lethe.errors import InvalidInput
from lethe.forget.plan import MANY_MATCHES, PlanItem

if TYPE_CHECKING:
    from lethe.engine import Lethe

MAX_SEARCHES = 3
ACTOR = "forget-mode"
PRIVATE = "(private memory)"


class ForgetModeRefusal(InvalidInput):
    """Something forget mode never does: search a fourth time, delete during a dry run."""


class ForgetSession:
    def __init__(
        self,
        mem: Lethe,
        instruction: str,
        *,
        namespace: str = DEFAULT_NAMESPACE,
        dry_run: bool = True,
        explicit_ids: Sequence[str] = (),
        scope: dict[str, Any] | None = None,
        scope_where: Sequence[str] = (),
        actor: str = ACTOR,
    ) -> None:
        self.mem = mem
        self.id = "fm_" + secrets.token_hex(6)
        self.started = time.monotonic()
        self.instruction = validate.content(
            instruction, max_bytes=mem.settings.max_content_bytes, what="instruction"
        )
        self.namespace = validate.namespace(namespace)
        self.dry_run = bool(dry_run)
        self.actor = validate.label(actor, "actor")
        if scope is not None and not isinstance(scope, dict):
            raise InvalidInput("the scope filters must be a JSON object")
        self.scope = dict(scope or {})
        self.scope_where = tuple(scope_where)
        self.explicit = tuple(dict.fromkeys(validate.memory_id(i) for i in explicit_ids))
        self.searches = 0
        self.candidates: dict[str, PlanItem] = {}
        self.deletable: set[str] = set()
        self.deleted: list[str] = []
        self.refused: list[dict[str, Any]] = []
        self.warnings: list[str] = []
        self.model_notes: str | None = None
        """What the driving model said, when a model drove the session."""
        self._lock = threading.Lock()
        if self.explicit:
            # Named ids are part of the plan from the start (similarity plays no part).
            named = mem.plan_forget(
                self.explicit, filters={"namespace": self.namespace}, actor=self.actor
            )
            self.candidates.update({i.id: i for i in named.items})
            self.deletable.update(i.id for i in named.items if i.action != "refuse")
            self.refused.extend(
                {"id": i.id, "reason": i.protection or i.reason, "hint": i.hint}
                for i in named.refused
            )
            self.refused.extend(
                {"id": i, "reason": "not found", "hint": "; ".join(named.suggestions.get(i, ()))}
                for i in named.not_found
            )

    # -- the two tools ------------------------------------------------------------------

    def search_memories(
        self,
        query: str,
        filters: dict[str, Any] | None = None,
        where: Sequence[str] = (),
    ) -> dict[str, Any]:
        """Find candidates with the tiered thresholds applied: >= 0.4 to preview; to delete,
        the user's metadata scope's matches >= 0.4, or a query's clear best match >= 0.6."""
        if filters is not None and not isinstance(filters, dict):
            raise InvalidInput("filters must be a JSON object")
        with self._lock:
            if self.searches >= MAX_SEARCHES:
                raise ForgetModeRefusal(
                    f"search limit reached: at most {MAX_SEARCHES} searches per forget session",
                    hint="decide from the candidates already found, or ask for more specific "
                    "criteria",
                )
            self.searches += 1
            extra = {k: v for k, v in (filters or {}).items() if k != "namespace"}
            plan = self.mem.plan_forget(
                query=query,
                filters={**extra, **self.scope, "namespace": self.namespace},
                where=[*self.scope_where, *where],
                actor=self.actor,
                # Only the user's own scope widens; what a model adds narrows.
                narrow_only=not (self.scope or self.scope_where),
            )
            for item in plan.items:
                best = self.candidates.get(item.id)
                if best is None or (item.similarity or 0) > (best.similarity or 0):
                    self.candidates[item.id] = item
                if item.action == "delete":
                    self.deletable.add(item.id)
            self.warnings.extend(w for w in plan.warnings if w not in self.warnings)
            left = MAX_SEARCHES - self.searches
        return {
            "searchesLeft": left,
            "ambiguous": plan.ambiguous,
            "candidates": [
                {
                    "id": i.id,
                    "content": PRIVATE if i.private else i.preview,
                    "score": i.similarity,
                    "confidence": i.confidence,
                    "deletable": i.action == "delete",
                    "reason": i.reason,
                    **({"warning": i.warning} if i.warning else {}),
                    **({"protected": i.protection} if i.protection else {}),
                }
                for i in plan.items
            ],
            "notes": plan.notes,
        }

    def delete_memories(self, ids: Sequence[str]) -> dict[str, Any]:
        if self.dry_run:
            raise ForgetModeRefusal(
                "dry run: delete_memories is refused while dryRun is true",
                hint="return the plan instead; deleting needs the user to run forget mode "
                "again with dryRun false",
            )
        if isinstance(ids, str) or not ids:
            raise InvalidInput("give a non-empty list of memory ids")
        wanted = list(dict.fromkeys(validate.memory_id(i) for i in ids))
        with self._lock:
            return self._delete(wanted)

    def approve(self) -> dict[str, Any]:
        """Carry out this dry run's plan as it was shown: exactly its deletable candidates,
        each only if its content is still what the plan showed."""
        with self._lock:
            if not self.dry_run:
                raise InvalidInput("this forget session was not a dry run")
            self.dry_run = False
            targets = [i for i in self.candidates if i in self.deletable]
            if targets:
                self._delete(targets)
        return self.result()

    def _delete(self, wanted: list[str]) -> dict[str, Any]:
        allowed: list[str] = []
        refused: list[dict[str, Any]] = []
        for memory_id in wanted:
            if memory_id.startswith("sys_"):
                refused.append({"id": memory_id, "reason": "system memories are never deleted"})
            elif memory_id not in self.deletable:
                refused.append(
                    {
                        "id": memory_id,
                        "reason": "not a high-confidence match of this session's searches",
                        "hint": "search for it first, or have the user name it as an explicit id",
                    }
                )
            else:
                allowed.append(memory_id)
        if allowed:
            plan = self.mem.plan_forget(
                allowed, filters={"namespace": self.namespace}, actor=self.actor
            )
            # Delete what was shown, not what is there now: a memory edited since its search
            # is previewed again rather than deleted.
            shown = {i: self.candidates[i].content_sha256 for i in allowed}
            changed = [i for i in plan.items if i.content_sha256 != shown[i.id]]
            for item in changed:
                refused.append(
                    {
                        "id": item.id,
                        "reason": "changed since the search",
                        "hint": "search again to see its new content",
                    }
                )
            current = plan.model_copy(
                update={
                    "items": tuple(i for i in plan.items if i not in changed),
                    "reason": f"forget mode: {self.instruction[:200]}",
                }
            )
            result = self.mem.execute(current)
            self.deleted.extend(i for i in result.executed if i not in self.deleted)
            refused.extend(
                {"id": i.id, "reason": i.protection or i.reason, "hint": i.hint}
                for i in result.refused
            )
            refused.extend({"id": i, "reason": "not found"} for i in result.not_found)
        self.refused.extend(r for r in refused if r not in self.refused)
        return {"deletedIds": [i for i in allowed if i in self.deleted], "refused": refused}

    # -- the answer ----------------------------------------------------------------------

    def result(self, notes: str | None = None) -> dict[str, Any]:
        """Seed 002's response: the plan (dry run) or what was deleted (execution)."""
        ranked = sorted(self.candidates.values(), key=lambda i: -(i.similarity or 0.0))
        if self.dry_run:
            return {
                "status": "ok",
                "index": self.namespace,
                "dryRun": True,
                "plan": [_entry(i, i.id in self.deletable) for i in ranked],
                "lowConfidenceMatches": [i.id for i in ranked if i.confidence == "low"],
                "warnings": self._warnings(),
                "notes": notes or self.model_notes or self._notes(ranked),
            }
        refused_ids = {r["id"] for r in self.refused}
        skipped = [
            i
            for i in ranked
            if i.id not in self.deletable and i.action != "refuse" and i.id not in refused_ids
        ]
        return {
            "status": "ok",
            "index": self.namespace,
            "dryRun": False,
            "deletedCount": len(self.deleted),
            "deletedIds": list(self.deleted),
            "skippedLowConfidence": [
                {
                    "id": i.id,
                    "score": i.similarity,
                    "reason": f"{i.reason}. To delete it, name its id explicitly or add a "
                    "metadata filter",
                }
                for i in skipped
            ],
            "refused": [
                {"id": r["id"], "reason": r["reason"], "hint": r.get("hint") or None}
                for r in self.refused
            ],
            "notes": notes or self.model_notes or self._notes(ranked),
        }

    def _warnings(self) -> list[str]:
        out = list(self.warnings)
        if len(self.candidates) > MANY_MATCHES and not out:
            out.append(f"{len(self.candidates)} memories match; consider more specific criteria")
        return out

    def _notes(self, ranked: Sequence[PlanItem]) -> str:
        if not ranked and not self.deleted:
            return "No memories found matching the forget criteria."
        high = sum(1 for i in ranked if i.id in self.deletable and i.action != "refuse")
        low = len(ranked) - high
        if self.dry_run:
            return (
                f"Found {high} match(es) that would be deleted and {low} candidate(s) for "
                "review only. Run again with dryRun false to delete; name ids explicitly for "
                "the others."
            )
        return (
            f"Deleted {len(self.deleted)} memory(ies) (restorable from the trash). "
            f"{len(ranked) - len(self.deleted)} candidate(s) were not deleted: name their ids "
            "to remove them."
        )


def _entry(item: PlanItem, deletable: bool) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": item.id,
        "reason": item.reason,
        "confidence": item.confidence,
        "action": item.action if item.action == "refuse" else ("delete" if deletable else "skip"),
        "preview": item.preview,
    }
    if item.similarity is not None:
        entry["score"] = item.similarity
    if item.warning:
        entry["warning"] = item.warning
    if item.protection:
        entry["protected"] = item.protection
    if item.hint:
        entry["hint"] = item.hint
    return entry


def search_instruction(session: ForgetSession, query: str | None = None) -> ForgetSession:
    """The deterministic driver (no LLM): one search with the query (the instruction itself
    when none is given) within the session's scope; then, unless a dry run, the deletion of
    what the tiers allow plus the explicit ids."""
    if query is not None or not session.explicit:
        session.search_memories(query or session.instruction)
    if not session.dry_run and session.deletable:
        session.delete_memories(sorted(session.deletable))
    return session
