"""The planner for forgetting by description: which memories a request means.

It runs in named stages, each with typed input and output:

1. **read** (`ask`): the request read once: instruction and object, scope (a fact or a
   whole subject), words, names, owner, polarity, identifiers, the parts of a list.
2. **gather** (`port`, `pool`): the candidates, through the search port the engine
   implements, read once as a pool.
3. **gate** (`gate`): what the object names must be there; a candidate missing any of it
   is never a target.
4. **score** (`score`): the words decide among the rest; the top and its certainty.
5. **doubts** (`doubts`): why the top may not be the memory meant, each a named rule.
6. **mark** (`mark`): one clear winner or nothing; an identifier named alone, a plural, a
   subject (`subject`) and a list reach further by what they say.

Every rule has a name (`rules`): the benchmarks print how often each fired and whether it
changed a verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from lethe.planner import rules
from lethe.planner.ask import Ask, RequestReading, read_request
from lethe.planner.gate import gate
from lethe.planner.judgement import Decision, Judgement
from lethe.planner.mark import mark, widen_plural
from lethe.planner.pool import Pool, pool_of
from lethe.planner.port import Candidate, SearchPort
from lethe.planner.score import score
from lethe.planner.subject import subject

LIST = rules.rule(
    "list", "a request naming several things is planned part by part, kept when each finds its own"
)

Similar = Callable[[str, Sequence[str]], dict[str, float]]
"""(text, memory ids) -> each memory's cosine to the text."""


def plan(text: str, port: SearchPort, *, margin: float = 0.05) -> Decision:
    """Read the request, gather its candidates through the port, and judge them."""
    reading = read_request(text)
    candidates = port.gather(reading)
    return judge(reading, candidates, margin=margin, similar=port.cosines)


def decide(
    text: str,
    candidates: Sequence[Candidate],
    *,
    margin: float = 0.05,
    similar: Similar | None = None,
) -> Decision:
    """Judge candidates already gathered (for callers holding them, and tests)."""
    return judge(read_request(text), candidates, margin=margin, similar=similar)


def judge(
    reading: RequestReading,
    candidates: Sequence[Candidate],
    *,
    margin: float = 0.05,
    similar: Similar | None = None,
) -> Decision:
    """`margin`: the least lead (cosine plus word share) the best candidate of a fact request
    must have over the next one. `similar` gives the cosines of a part of a list request
    (each part is judged by its own)."""
    request = reading.request
    if not candidates:
        return Decision(request, [], False)
    pool = pool_of(request.object, candidates)
    if request.scope == "subject":
        judged = subject(reading, pool)
        if judged is not None:
            return Decision(request, judged, not any(j.verdict != "skip" for j in judged))
    if reading.parts and rules.on(LIST):
        split = [fact(p, _rescored(p, pool, similar), margin) for p in reading.parts]
        marked = [{j.memory.id for j in js if j.verdict != "skip"} for js in split]
        if all(marked) and not set.intersection(*marked):
            rules.fire(LIST)
            return Decision(request, _merge(split), False)
    judged = fact(reading.ask, pool, margin)
    if reading.ask.plural:
        judged = widen_plural(judged, reading.ask, pool)
    return Decision(request, judged, not any(j.verdict != "skip" for j in judged))


def fact(ask: Ask, pool: Pool, margin: float) -> list[Judgement]:
    """One fact: gate, score, doubts, mark; the candidates shut out follow the others."""
    gated = gate(ask, pool)
    by_id = {c.memory.id: c for c in pool.candidates}
    excluded = [
        Judgement(by_id[i].memory, by_id[i].similarity, "skip", 0.0, why)
        for i, why in gated.excluded.items()
    ]
    ranked = score(ask, pool, gated)
    if ranked is None:
        return excluded
    return [*mark(ask, pool, gated, ranked, margin), *excluded]


def _rescored(part: Ask, pool: Pool, similar: Similar | None) -> Pool:
    if similar is None:
        return pool
    return pool.rescored(similar(part.text, [c.memory.id for c in pool.candidates]))


def _merge(split: list[list[Judgement]]) -> list[Judgement]:
    best: dict[str, Judgement] = {}
    for judged in split:
        for j in judged:
            held = best.get(j.memory.id)
            if held is None or (j.verdict != "skip" and held.verdict == "skip"):
                best[j.memory.id] = j
    return sorted(best.values(), key=lambda j: (j.verdict == "skip", -j.similarity))
