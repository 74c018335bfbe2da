"""Recall over conversations stored turn by turn: does a question find the turn that answers it?

The development benchmark of issue 21 ("Recall that understands conversation"). The data
(bench/conversations.py) are seeded multi-session dialogues whose facts are split across turns:
an elliptical answer after a question, a pronoun referring back, an answer two or three turns
later, a correction later in the session, and stand-alone sentences that need no context, among
distractor turns that share the words in another sense. Every turn is stored as one memory (with
`metadata = {"session", "turn", "speaker"}`) in a fresh SQLite store with the real embedder;
every question a later user would ask ("What did Maya do on Saturday?") is recalled with k=10,
and a hit counts when any of its evidence turns (the turns that carry the answer) is in the top
k. Reported: recall@1, @5, @10 and MRR, overall and by fact shape; and how often the top hit is
at least in the evidence's session (today's recall often finds the question turn, next to the
answer, rather than the answer).

Rankings are compared in one run over one store: `VARIANTS` lists named recall functions
`(mem, query, k) -> hits` (today only "recall", `Lethe.recall` as an application calls it, with
`touch=False` so that no variant changes what the next one sees); add one beside it and the
table gets a column.

    OPENBLAS_NUM_THREADS=1 python bench/bench_conversation_recall.py                # 300 sessions
    python bench/bench_conversation_recall.py --sessions 60 --seed 3 --failures 10   # quick look
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import conversations
from common import log, machine, write_json
from conversations import SHAPES, Conversations, Question

from lethe import Lethe
from lethe.embed import load_default_embedder
from lethe.model import RecallHit

RecallFn = Callable[[Lethe, str, int], Sequence[RecallHit]]


PLAIN = "turns"
"""The same turns stored without their session: each ranked by its own words and vector
alone, as lethe ranked every memory before conversations were known (the baseline)."""
CONVERSATIONS = "conversations"
"""The turns with `metadata.session`: ranked with their context."""


def recall_alone(mem: Lethe, query: str, k: int) -> Sequence[RecallHit]:
    """Each memory ranked by its own words and vector (vector and full-text ranks fused)."""
    return mem.recall(query, k=k, touch=False, filters={"namespace": PLAIN})


def recall_in_context(mem: Lethe, query: str, k: int) -> Sequence[RecallHit]:
    """Conversational turns ranked with the turns around them (lethe/common/context.py)."""
    return mem.recall(query, k=k, touch=False, filters={"namespace": CONVERSATIONS})


VARIANTS: list[tuple[str, RecallFn]] = [
    ("recall (turns alone)", recall_alone),
    ("recall (in context)", recall_in_context),
]

KS = (1, 5, 10)


@dataclass(frozen=True)
class Probe:
    """A question with the ids of the stored memories that answer it."""

    question: Question
    evidence: frozenset[str]


def store(data: Conversations, path: Path) -> tuple[Lethe, list[str], dict[str, Any]]:
    """Remember every turn in a fresh store twice: with its session (namespace
    `conversations`) and without (namespace `turns`, the baseline); return the store, each
    turn's memory ids (one per namespace, keyed `namespace:id`... as a dict of lists) and the
    report of the conversational import."""
    mem = Lethe.open(path, embedder=load_default_embedder())
    plain = [
        d.model_copy(
            update={
                "namespace": PLAIN,
                "metadata": {
                    "conversation_id" if k == "session" else k: v for k, v in d.metadata.items()
                },
            }
        )
        for d in data.drafts()
    ]
    mem.remember_many(plain)
    drafts = [d.model_copy(update={"namespace": CONVERSATIONS}) for d in data.drafts()]
    done = 0
    start = time.perf_counter()

    def progress(n: int) -> None:
        nonlocal done
        done += n
        if done % max(1, len(drafts) // 5) < n:
            log(f"  {done:,}/{len(drafts):,} turns ({done / (time.perf_counter() - start):.0f}/s)")

    report = mem.remember_many(drafts, progress=progress).model_dump()
    report["seconds"] = round(time.perf_counter() - start, 1)
    by_turn: dict[tuple[str, int], str] = {}
    for namespace in (PLAIN, CONVERSATIONS):
        offset = 0
        while True:
            page = mem.list_memories({"namespace": namespace}, limit=1000, offset=offset)
            for m in page.items:
                by_turn[(namespace, _session(m.metadata), m.metadata["turn"])] = m.id
            offset += len(page.items)
            if not page.items or offset >= page.total:
                break
    ids = [
        "|".join(by_turn.get((ns, t.session, t.turn), "") for ns in (PLAIN, CONVERSATIONS))
        for t in data.turns
    ]
    return mem, ids, report


def _session(metadata: dict[str, Any]) -> str:
    return str(metadata.get("session") or metadata.get("conversation_id"))


def probes(data: Conversations, ids: list[str]) -> list[Probe]:
    out = []
    for q in data.questions:
        evidence = frozenset(m for i in q.evidence for m in ids[i].split("|") if m)
        if not evidence:
            raise SystemExit(f"no stored evidence for {q.text!r}: a turn was not imported")
        out.append(Probe(q, evidence))
    return out


def evaluate(
    mem: Lethe, questions: Sequence[Probe], recall_fn: RecallFn, k: int = 10
) -> dict[str, Any]:
    """Run every question through `recall_fn`; per question, the 1-based rank of the first
    evidence memory among the top k (None if absent), whether the top hit is in the evidence's
    session, and the top three hits' ids; plus the wall time."""
    ranks: list[int | None] = []
    same_session: list[bool] = []
    tops: list[list[str]] = []
    start = time.perf_counter()
    for probe in questions:
        hits = list(recall_fn(mem, probe.question.text, k))[:k]
        hit_ids = [h.memory.id for h in hits]
        rank = next((i + 1 for i, m in enumerate(hit_ids) if m in probe.evidence), None)
        ranks.append(rank)
        same_session.append(
            bool(hits) and _session(hits[0].memory.metadata) == probe.question.session
        )
        tops.append(hit_ids[:3])
    seconds = time.perf_counter() - start
    return {"ranks": ranks, "same_session_at_1": same_session, "top3": tops, "seconds": seconds}


def summarize(ranks: Sequence[int | None], same: Sequence[bool]) -> dict[str, Any]:
    n = len(ranks)
    if n == 0:
        return {"n": 0}
    out: dict[str, Any] = {"n": n}
    for k in KS:
        out[f"recall@{k}"] = round(sum(1 for r in ranks if r is not None and r <= k) / n, 4)
    out["mrr@10"] = round(sum(1.0 / r for r in ranks if r is not None) / n, 4)
    out["top1_in_evidence_session"] = round(sum(same) / n, 4)
    return out


def by_group(
    questions: Sequence[Probe], result: dict[str, Any], key: Callable[[Question], str]
) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[int]] = {}
    for i, p in enumerate(questions):
        groups.setdefault(key(p.question), []).append(i)
    return {
        name: summarize(
            [result["ranks"][i] for i in idx], [result["same_session_at_1"][i] for i in idx]
        )
        for name, idx in sorted(groups.items())
    }


def run(sessions: int, turns: int, seed: int, k: int, failures: int) -> dict[str, Any]:
    data = conversations.generate(sessions, turns, seed)
    log(
        f"[conversation recall] {len(data.turns):,} turns in {len(data.sessions)} sessions, "
        f"{len(data.questions)} questions (seed {seed})"
    )
    with tempfile.TemporaryDirectory(prefix="lethe-bench-conv-") as tmp:
        mem, ids, report = store(data, Path(tmp) / "store.db")
        try:
            log(f"  stored in {report['seconds']:.0f} s: {report['imported']:,} imported")
            asked = probes(data, ids)
            mem.recall(asked[0].question.text, k=k, touch=False)  # warm the index and encoder
            results: dict[str, dict[str, Any]] = {}
            for name, fn in VARIANTS:
                results[name] = evaluate(mem, asked, fn, k)
                per_q = results[name]["seconds"] / len(asked) * 1000
                log(f"  {name}: {results[name]['seconds']:.1f} s ({per_q:.1f} ms a question)")
            by_id = {m: t for i, t in zip(ids, data.turns, strict=True) for m in i.split("|")}
            shown = _failures(asked, results[VARIANTS[-1][0]], by_id, data, failures)
        finally:
            mem.close()

    variants: dict[str, Any] = {}
    for name, _ in VARIANTS:
        r = results[name]
        variants[name] = {
            "overall": summarize(r["ranks"], r["same_session_at_1"]),
            "by_shape": by_group(asked, r, lambda q: q.shape),
            "by_variant": by_group(asked, r, lambda q: f"{q.shape}/{q.variant}"),
            "by_template": by_group(asked, r, lambda q: q.template),
            "seconds": round(r["seconds"], 2),
        }
    shapes = {s: sum(1 for q in data.questions if q.shape == s) for s in SHAPES}
    return {
        "sessions": len(data.sessions),
        "distractor_sessions": data.distractor_sessions,
        "turns_per_session": turns,
        "seed": seed,
        "k": k,
        "memories": len(data.turns),
        "import": report,
        "questions": len(data.questions),
        "questions_by_shape": shapes,
        "templates_used": data.templates_used,
        "variants": variants,
        "failures_shown": shown,
        "per_question": [
            {
                "question": p.question.text,
                "shape": p.question.shape,
                "variant": p.question.variant,
                "template": p.question.template,
                "session": p.question.session,
                "evidence_turns": [data.turns[i].turn for i in p.question.evidence],
                "rank": {name: results[name]["ranks"][i] for name, _ in VARIANTS},
            }
            for i, p in enumerate(asked)
        ],
    }


def _failures(
    asked: Sequence[Probe],
    result: dict[str, Any],
    by_id: dict[str, conversations.Turn],
    data: Conversations,
    n: int,
) -> list[dict[str, Any]]:
    """`n` questions the first variant missed at k=1, spread over the shapes, with the
    evidence and the top hits (to check by eye that the evidence is right)."""
    missed = [i for i, r in enumerate(result["ranks"]) if r != 1]
    queues = [[i for i in missed if asked[i].question.shape == s] for s in SHAPES]
    for queue in queues:  # a fixed sample, from every part of the store
        random.Random(len(queue)).shuffle(queue)
    picked: list[int] = []
    while len(picked) < n and any(queues):
        for queue in queues:
            if queue and len(picked) < n:
                picked.append(queue.pop(0))
    out = []
    for i in picked:
        q = asked[i].question
        out.append(
            {
                "question": q.text,
                "shape": f"{q.shape}/{q.variant}",
                "answer": q.answer,
                "rank": result["ranks"][i],
                "evidence": [
                    f"{data.turns[j].session}#{data.turns[j].turn} {data.turns[j].speaker}: "
                    f"{data.turns[j].content}"
                    for j in q.evidence
                ],
                "top3": [
                    f"{by_id[m].session}#{by_id[m].turn} {by_id[m].speaker}: {by_id[m].content}"
                    for m in result["top3"][i]
                    if m in by_id
                ],
            }
        )
    return out


METRICS = ("recall@1", "recall@5", "recall@10", "mrr@10")
BLOCK = 23  # the width of one variant's column


def print_result(r: dict[str, Any]) -> None:
    names = list(r["variants"])
    print(
        f"conversation recall: {r['memories']:,} memories in {r['sessions']} sessions "
        f"({r['distractor_sessions']} of distractors only), {r['questions']} questions, "
        f"k={r['k']}, seed {r['seed']}"
    )

    def cells(pick: Callable[[dict[str, Any]], str]) -> str:
        return "".join(f"  {pick(r['variants'][name]):>{BLOCK}s}" for name in names)

    def stats(v: dict[str, Any], shape: str | None) -> dict[str, Any]:
        return v["overall"] if shape is None else v["by_shape"].get(shape, {"n": 0})

    def four(s: dict[str, Any]) -> str:
        if not s["n"]:
            return "-"
        return " ".join(f"{s[m]:5.3f}" for m in METRICS)

    rows = [("overall", None), *((s, s) for s in SHAPES)]
    counts = r["variants"][names[0]]
    print(f"  {'':26s}" + "".join(f"  {name[:BLOCK]:>{BLOCK}s}" for name in names))
    print(f"  {'shape':20s}{'n':>6s}" + cells(lambda v: "   @1    @5   @10   mrr"))
    for label, shape in rows:
        n = stats(counts, shape)["n"]
        print(f"  {label:20s}{n:6d}" + cells(lambda v, shape=shape: four(stats(v, shape))))
    print("  top hit in the evidence's session (the right conversation, maybe not the turn):")
    for label, shape in rows:
        line = cells(
            lambda v, shape=shape: f"{stats(v, shape).get('top1_in_evidence_session', 0):.3f}"
        )
        print(f"  {label:26s}{line}")
    print("  by how the shape was realised (recall@1 / @10):")
    for group, s in counts["by_variant"].items():
        line = cells(
            lambda v, group=group: (
                f"{v['by_variant'][group]['recall@1']:.3f} / "
                f"{v['by_variant'][group]['recall@10']:.3f}"
            )
        )
        print(f"  {group:22s}{s['n']:4d}{line}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Recall of the turn that answers a question, over stored conversations."
    )
    parser.add_argument("--sessions", type=int, default=300, help="sessions (300)")
    parser.add_argument("--turns", type=int, default=10, help="turns per session, about (10)")
    parser.add_argument("--seed", type=int, default=21, help="seed of the conversations (21)")
    parser.add_argument("-k", type=int, default=10, help="hits per recall (10)")
    parser.add_argument(
        "--failures", type=int, default=0, help="print this many missed questions to stderr"
    )
    parser.add_argument("--json", type=Path, help="write the result here (else bench/out/...)")
    args = parser.parse_args()
    if args.k < max(KS):
        parser.error(f"-k must be at least {max(KS)}")
    result = run(args.sessions, args.turns, args.seed, args.k, max(args.failures, 10))
    result["machine"] = machine()
    print_result(result)
    for f in result["failures_shown"][: args.failures]:
        log(f"\n? {f['question']}  [{f['shape']}]  answer: {f['answer']}  rank: {f['rank']}")
        for e in f["evidence"]:
            log(f"  evidence  {e}")
        for t in f["top3"]:
            log(f"  hit       {t}")
    if args.json:
        path = write_json(args.json.name, result, args.json.parent)
    else:
        path = write_json(f"conversation-recall-{args.sessions}-{args.seed}.json", result)
    log(f"wrote {path}")


if __name__ == "__main__":
    main()
