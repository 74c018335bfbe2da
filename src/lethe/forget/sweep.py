"""The decay sweep's plan and result (seed 003 under seed 004's policy).

A sweep is a plan like any other destructive path: building it changes nothing, and it
executes only under the `auto` policy, as one audited operation. Drops become soft deletes;
compressions become one summary memory (layer `learning`) with the originals in the trash.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, PrivateAttr

from lethe.forget import decay
from lethe.forget.guard import PIN_IMPORTANCE
from lethe.store.base import DecayColumns

SAMPLES = 10


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class SweepItem(_Frozen):
    id: str
    action: Literal["compress", "drop"]
    heat: float
    risk: float
    days_idle: float
    importance: float


class SweepPlan(_Frozen):
    id: str
    namespace: str
    policy: decay.Policy
    created_at: datetime
    actor: str
    scanned: int
    protected: int
    keep: int
    compress: int
    drop: int
    compress_at: float
    drop_at: float
    samples: tuple[SweepItem, ...]
    """The riskiest few of each action, for people to look at."""
    heat_histogram: tuple[int, ...] = ()
    """Live memories per tenth of the heat scale (0-10, 10-20, ... 90-100)."""
    risk_edges: tuple[float, ...] = ()
    """Lower bounds of the risk bins, laid around the compress and drop thresholds."""
    risk_histogram: tuple[int, ...] = ()
    """Unprotected memories per risk bin (the last bin is open-ended)."""
    notes: str
    _targets: list[SweepItem] | Callable[[], list[SweepItem]] = PrivateAttr(default_factory=list)

    @property
    def executable(self) -> bool:
        """Whether the policy lets this plan be carried out (only `auto` does)."""
        return self.policy == "auto"

    def samples_of(self, action: Literal["compress", "drop"]) -> list[SweepItem]:
        return [i for i in self.samples if i.action == action]

    @property
    def items(self) -> list[SweepItem]:
        """Every memory the sweep would compress or drop, riskiest first. Built on first use:
        a million-memory report needs the counts and samples, not a million objects."""
        if callable(self._targets):
            self._targets = self._targets()
        return self._targets


class SweepResult(_Frozen):
    plan_id: str
    namespace: str
    dropped: tuple[str, ...]
    compressed: tuple[str, ...]
    summary_ids: tuple[str, ...]
    """The summary memories the compressions became (one per group)."""
    skipped: tuple[str, ...]
    """Changed, protected or gone since the plan: left alone."""
    notes: str


class Vitality(_Frozen):
    """One memory's standing under decay: what the sweep would see of it today."""

    heat: float
    risk: float
    days_idle: float
    protected: bool
    action: decay.Action
    """What a sweep would propose now (under a policy that proposes anything)."""


def new_sweep_id() -> str:
    return "sweep_" + secrets.token_hex(6)


def protected_mask(columns: DecayColumns) -> np.ndarray[tuple[int], np.dtype[np.bool_]]:
    """The guard's rules for whole columns: sys_ ids and protected layers (read by the store
    as `always_kept`), and pinned importance."""
    mask: np.ndarray[tuple[int], np.dtype[np.bool_]] = columns.always_kept | (
        columns.importance >= PIN_IMPORTANCE
    )
    return mask


def score(
    columns: DecayColumns, now: datetime
) -> tuple[decay.F64, decay.F64, decay.F64, np.ndarray[tuple[int], np.dtype[np.bool_]]]:
    """Heat, risk, idle days and the protection mask of every memory, in column order."""
    days_idle = np.maximum(now.timestamp() - columns.last_access_at, 0.0) / 86400.0
    protected = protected_mask(columns)
    heat = decay.heat(
        accesses_30d=columns.accesses_30d,
        accesses_90d=columns.accesses_90d,
        accesses_total=columns.accesses_total,
        days_idle=days_idle,
        importance=columns.importance,
    )
    risk = decay.risk(
        heat=heat, importance=columns.importance, days_idle=days_idle, protected=protected
    )
    return heat, risk, days_idle, protected


def risk_edges(compress_at: float, drop_at: float) -> tuple[float, ...]:
    """Bins that show how close memories stand to the thresholds: finer below compression,
    one bin between the thresholds' halves, then doubling past the drop threshold."""
    below = [compress_at * f for f in (0.0, 0.125, 0.25, 0.5)]
    between = [compress_at, (compress_at + drop_at) / 2]
    above = [drop_at * f for f in (1.0, 2.0, 4.0)]
    return tuple(round(e, 2) for e in (*below, *between, *above))


def histograms(
    heat: decay.F64,
    risk: decay.F64,
    protected: np.ndarray[tuple[int], np.dtype[np.bool_]],
    edges: Sequence[float],
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    heat_bins = np.minimum((heat // 10).astype(np.int64), 9)
    heat_counts = np.bincount(heat_bins, minlength=10)
    risk_bins = np.searchsorted(np.asarray(edges), risk[~protected], side="right") - 1
    risk_counts = np.bincount(np.maximum(risk_bins, 0), minlength=len(edges))
    return tuple(int(c) for c in heat_counts), tuple(int(c) for c in risk_counts)


def vitality(
    columns: DecayColumns, now: datetime, *, compress_at: float, drop_at: float
) -> Vitality:
    """Heat and risk of the single memory in `columns`, as a sweep would score it."""
    heat, risk, days_idle, protected = score(columns, now)
    action = decay.decide(risk, compress_at=compress_at, drop_at=drop_at)
    return Vitality(
        heat=round(float(heat[0]), 2),
        risk=round(float(risk[0]), 2),
        days_idle=round(float(days_idle[0]), 1),
        protected=bool(protected[0]),
        action=decay.ACTIONS[int(action[0])],
    )


def build_plan(
    columns: DecayColumns,
    *,
    namespace: str,
    policy: decay.Policy,
    now: datetime,
    actor: str,
    compress_at: float,
    drop_at: float,
) -> SweepPlan:
    n = len(columns.ids)
    heat, risk, days_idle, protected = score(columns, now)
    edges = risk_edges(compress_at, drop_at)
    heat_counts, risk_counts = histograms(heat, risk, protected, edges)
    shape = {"heat_histogram": heat_counts, "risk_edges": edges, "risk_histogram": risk_counts}
    if policy == "off":
        return SweepPlan(
            id=new_sweep_id(),
            namespace=namespace,
            policy=policy,
            created_at=now,
            actor=actor,
            scanned=n,
            protected=0,
            keep=n,
            compress=0,
            drop=0,
            compress_at=compress_at,
            drop_at=drop_at,
            samples=(),
            **shape,
            notes="The decay policy is off: nothing is ever proposed for forgetting.",
        )
    actions = decay.decide(risk, compress_at=compress_at, drop_at=drop_at)
    chosen = np.flatnonzero(actions > 0)
    chosen = chosen[np.argsort(-risk[chosen], kind="stable")]

    def item(i: int) -> SweepItem:
        return SweepItem(
            id=columns.ids[i],
            action="drop" if actions[i] == 2 else "compress",
            heat=round(float(heat[i]), 2),
            risk=round(float(risk[i]), 2),
            days_idle=round(float(days_idle[i]), 1),
            importance=float(columns.importance[i]),
        )

    samples = [item(int(i)) for code in (2, 1) for i in chosen[actions[chosen] == code][:SAMPLES]]
    counts = np.bincount(actions, minlength=3)
    plan = SweepPlan(
        id=new_sweep_id(),
        namespace=namespace,
        policy=policy,
        created_at=now,
        actor=actor,
        scanned=n,
        protected=int(protected.sum()),
        keep=int(counts[0]),
        compress=int(counts[1]),
        drop=int(counts[2]),
        compress_at=compress_at,
        drop_at=drop_at,
        samples=tuple(samples),
        **shape,
        notes=notes(int(counts[1]), int(counts[2]), policy),
    )
    plan._targets = lambda: [item(int(i)) for i in chosen]
    return plan


def notes(compress: int, drop: int, policy: decay.Policy) -> str:
    if not compress and not drop:
        return "Nothing is ripe for forgetting."
    what = f"{drop} to drop (soft delete) and {compress} to compress into a summary"
    if policy == "auto":
        return f"Would forget {what}; execute the plan to apply it (restorable from the trash)."
    return (
        f"Suggests {what}. The policy is 'suggest', so this is a report only; set "
        "decay_policy = auto to let sweeps execute, or forget chosen ids yourself."
    )


def result_notes(dropped: Sequence[str], compressed: Sequence[str], skipped: Sequence[str]) -> str:
    parts = [f"Dropped {len(dropped)} and compressed {len(compressed)} memories (to the trash)."]
    if skipped:
        parts.append(
            f"{len(skipped)} left alone (recalled, changed, protected or gone since the plan, "
            "or a lone memory with nothing to merge with)."
        )
    return " ".join(parts)
