"""Proof of erasure: after a purge's cleanup, check that the words are gone, then sign a
receipt that says what was erased, where, how, and what could not be reached.

The check reads the raw bytes of every file lethe owns for the store (`erasure.scan`) for
the erased texts and their distinctive tokens (`erasure.tokens`) while the texts are still
held in memory, then drops them. A needle found where no memory the purge left holds it is
a failed erasure: the cleanup is run once more and the files read again; a needle also held
by a memory the purge did not target is reported as such, not as a failure. Then recall is
probed with each erased text and token: no erased id may come back from an index. The
receipt holds ids, SHA-256 digests, counts and file digests — never the words.

The receipt is promised in the purge's own transaction (owed work holding what it will say,
without the texts), and the process holds a claim on it until it is kept. A process that ends
in between leaves the promise and lets go of the claim: the next open finishes the owed
cleanup and signs the receipt from the promise, saying that the check did not run (the texts
went with the process) — never a receipt that claims a scan, and never no receipt at all. A
process whose claim was taken for let go while it still ran gets that receipt back instead of
its own: the store keeps one receipt per purge, and the caller is handed the one it keeps.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import secrets
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from lethe.common.filters import Filters
from lethe.engine.base import OWED_RECEIPT, Core
from lethe.engine.receipts import RECEIPT_FORMAT
from lethe.engine.search import Search
from lethe.erasure import signing
from lethe.erasure.record import Erasing
from lethe.erasure.scan import Hit, Matcher, ScannedFile, ascii_lower, scan
from lethe.erasure.tokens import MIN_BYTES, MIN_NUMBER, distinctive, forms, windows
from lethe.errors import SigningKeyError
from lethe.store.base import StoreTx

HELD_LIMIT = 20
"""Most holders named for one string."""
FULL_TEXT_INDEX = "full-text index"
"""The place of a token the index's vocabulary still lists (not a file offset)."""
_ONE_WORD = re.compile(r"[^\W_]+")
PROBE_DEPTH = 20
"""How deep each probe reads the fused ranking for erased ids."""
EXPORT_LIMIT = (
    "exports and backups the person made (`lethe export`, copies of the database): not "
    "reached, never touched"
)
NOT_CHECKED = (
    "the purging process ended after its commit, before its own check (or no longer held its "
    "claim, so that it could not be told from one that had ended): the erased texts were held "
    "by that process alone, so no file was scanned for them and recall was not probed"
)
_LOOKUP_PAGE = 200
"""Receipts read at a time while looking for the one another process kept for a purge."""


@dataclass(frozen=True)
class Needle:
    value: str
    kind: str  # "text" (a piece of the text) or a token kind
    memory_id: str
    whole: bool


@dataclass
class Verdict:
    """One scan judged: needles found with no holder left (failures), and needles found
    that a memory the purge did not target still holds."""

    remaining: list[tuple[Needle, Hit, list[str]]] = field(default_factory=list)
    """Each trace, with the live holders that do not excuse it (a record quoting the
    erased sentence, a summary made from it): where a person can look."""
    not_targeted: dict[str, tuple[Needle, list[str]]] = field(default_factory=dict)


def _folded(word: str) -> str:
    """A word as the full-text tokenizer keeps it: lower-cased, without accents."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def needles_of(erasing: Erasing) -> list[Needle]:
    """Every piece and token of every erased text, each once (without ASCII case)."""
    out: dict[str, Needle] = {}
    for text in erasing.texts:
        for piece in windows(text.text):
            out.setdefault(
                piece.encode().lower().decode(), Needle(piece, "text", text.memory_id, False)
            )
        for token in distinctive(text.text):
            least = MIN_NUMBER if token.kind == "identifier" else MIN_BYTES
            for form in forms(token.text, least):
                key = form.encode().lower().decode()
                out.setdefault(key, Needle(form, token.kind, text.memory_id, True))
    return list(out.values())


class Proof:
    """Proof of erasure: a purge's claim, its scan of every file and index, its signed
    receipt."""

    def __init__(self, core: Core, search: Search) -> None:
        self._core = core
        self.store = core.store
        self.embedder = core.embedder
        self.workspace = core.workspace
        self._clock = core.clock
        self._search = search

    def signing_key(self) -> signing.Ed25519PrivateKey:
        """The receipt key, read (or made) before a purge runs: a key that cannot be used
        refuses the purge before anything is erased, not after."""
        return signing.load_or_create(self.store.signing_key_path())

    @contextlib.contextmanager
    def claimed(self, erasing: Erasing | None) -> Iterator[None]:
        """Hold the store's claim from before a purge's commit until its receipt is kept, so
        that another process finishing owed work meanwhile leaves the receipt to this one."""
        if erasing is None:
            yield
            return
        with self.store.claim() as token:
            erasing.claim = token
            yield

    def owe_receipt(self, tx: StoreTx, erasing: Erasing | None, now: datetime) -> None:
        """Promise the receipt in the purge's own transaction (see the module's docstring)."""
        if erasing is None or not erasing.ids:
            return
        workspace = self.workspace is not None or self._core.workspace_known()
        promise = {**erasing.facts(), "erased_at": now.isoformat(), "workspace": workspace}
        erasing.owed = tx.owe({OWED_RECEIPT: promise}, now)

    def prove(
        self, erasing: Erasing, *, cleanup_done: bool, key: signing.Ed25519PrivateKey
    ) -> dict[str, Any]:
        """Scan, retry once, probe, and return the signed receipt (stored with the store).
        A cleanup that did not finish (a reader held SQLite's log, a lock kept PostgreSQL's
        rewrite waiting) is retried too, and unfinished it makes the receipt incomplete even
        when the scan finds nothing: PostgreSQL's pages are not this process's to scan."""
        needles = needles_of(erasing)
        erased = set(erasing.ids)
        files, verdict = self._scan(needles, erased, erasing.namespaces)
        first_remaining: list[tuple[Needle, Hit, list[str]]] = []
        retried = False
        if verdict.remaining or not cleanup_done:
            retried = True
            first_remaining = verdict.remaining
            cleanup_done = self.store.compact()
            if self.workspace is not None:
                with contextlib.suppress(OSError):  # the scan below says what remains
                    self.workspace.rebuild(sorted(erasing.namespaces))
            files, verdict = self._scan(needles, erased, erasing.namespaces)
        probes = self._probe(erasing, needles, erased, verdict)
        clean = not verdict.remaining and not probes["erased_returned"] and cleanup_done
        body = self._receipt_body(
            erasing,
            status="erased" if clean else "incomplete",
            erased_at=self._clock(),
            cleanup_done=cleanup_done,
            places=erasing.places(
                workspace=self.workspace is not None,
                cleanup=self.store.erasure_methods,
                cleanup_done=cleanup_done,
            ),
        )
        body.update(
            scan={
                "files": [
                    {"path": self._shown(f.path), "bytes": f.bytes, "sha256": f.sha256}
                    for f in files
                ],
                "texts": len(erasing.texts),
                "needles": len(needles),
                "tokens": sum(1 for n in needles if n.kind != "text"),
                "remaining": [self._remaining(*r) for r in verdict.remaining],
                "not_targeted": [
                    {"needle_sha256": _digest(n.value), "kind": n.kind, "held_by": ids}
                    for n, ids in verdict.not_targeted.values()
                ],
                "retried": retried,
                "first_scan_remaining": [self._remaining(*r) for r in first_remaining],
            },
            probes=probes,
        )
        receipt = signing.sign(key, body)
        if self.store.save_receipt(receipt, settles=erasing.owed):
            return receipt
        return self._kept_instead(erasing, receipt)

    def _kept_instead(self, erasing: Erasing, unsaved: dict[str, Any]) -> dict[str, Any]:
        """The receipt another process kept for this purge, when it settled the promise first:
        it found this process's claim let go (PostgreSQL dropped the claim's connection, or the
        claim was looked for under another name of the store) and signed an unchecked receipt.
        That one is the purge's receipt, and the caller must get what the store holds, not a
        receipt `receipt(id)` and `verify_receipt` know nothing of; its status (incomplete)
        says no more than the store can show. Only if no stored receipt names this purge (none
        should be missing: the promise is settled with its receipt in one transaction) is this
        process's own kept after all, so that the purge is never left without one."""
        offset = 0
        while True:
            page = self.store.receipts(_LOOKUP_PAGE, offset)
            for stored in page:
                ids = [m.get("id") for m in stored.get("memories") or [] if isinstance(m, dict)]
                if stored.get("plan_id") == erasing.plan_id and ids == erasing.ids:
                    return stored
            if len(page) < _LOOKUP_PAGE:
                break
            offset += len(page)
        self.store.save_receipt(unsaved)
        return unsaved

    def _receipt_body(
        self,
        erasing: Erasing,
        *,
        status: str,
        erased_at: datetime,
        cleanup_done: bool,
        places: list[dict[str, Any]],
    ) -> dict[str, Any]:
        """What every receipt says, checked or not; the check's findings are added to it."""
        return {
            "lethe_receipt": RECEIPT_FORMAT,
            "receipt_id": "rcpt_" + secrets.token_hex(8),
            "status": status,
            "operation": "purge",
            "plan_id": erasing.plan_id,
            "erased_at": erased_at.isoformat(),
            "store": {
                "backend": _backend(self.store),
                "location": _location(getattr(self.store, "path", "")),
            },
            "confirmed": {"by": erasing.actor, "via": erasing.via, "session": erasing.session},
            "memories": erasing.memories,
            "cleanup_done": cleanup_done,
            "places": places,
            "limits": [*self.store.unreachable, EXPORT_LIMIT],
        }

    def finish_receipts(
        self,
        owed: Sequence[tuple[int, dict[str, Any]]],
        *,
        cleanup_done: bool,
        workspace_done: bool,
    ) -> int:
        """Sign the receipts of purges whose process ended after the commit (see the module's
        docstring), once the owed cleanup has run. A purge another process is still proving
        is left to it; a key that cannot be used leaves every promise owed, and `receipts()`
        lists those purges without a receipt. Returns how many were signed."""
        signed = 0
        key: signing.Ed25519PrivateKey | None = None
        for owed_id, promise in owed:
            claim = promise.get("claim")
            if isinstance(claim, str) and self.store.claim_held(claim):
                continue
            if key is None:
                try:
                    key = self.signing_key()
                except SigningKeyError:
                    return signed
            receipt = signing.sign(key, self._unchecked(promise, cleanup_done, workspace_done))
            if self.store.save_receipt(receipt, settles=owed_id):
                signed += 1
        return signed

    def _unchecked(
        self, promise: dict[str, Any], cleanup_done: bool, workspace_done: bool
    ) -> dict[str, Any]:
        """The receipt of an interrupted purge: what its transaction recorded and how its
        cleanup ended, `incomplete` because nothing was scanned or probed."""
        erasing = Erasing.from_facts(promise)
        workspace = bool(promise.get("workspace"))
        body = self._receipt_body(
            erasing,
            status="incomplete",
            erased_at=datetime.fromisoformat(str(promise["erased_at"])),
            cleanup_done=cleanup_done,
            places=erasing.places(
                workspace=workspace,
                cleanup=self.store.erasure_methods,
                cleanup_done=cleanup_done,
                workspace_owed=workspace and not workspace_done,
            ),
        )
        body.update(
            interrupted={"signed_at": self._clock().isoformat(), "why": NOT_CHECKED},
            scan={
                "ran": False,
                "files": [],
                "texts": 0,
                "needles": 0,
                "tokens": 0,
                "remaining": [],
                "not_targeted": [],
                "retried": False,
                "first_scan_remaining": [],
            },
            probes={
                "ran": False,
                "queries": 0,
                "depth": PROBE_DEPTH,
                "erased_returned": [],
                "not_targeted": [],
                "clean": False,
            },
        )
        body["limits"].append(f"the byte scan and the recall probes: not run ({NOT_CHECKED})")
        return body

    def _scan(
        self, needles: Sequence[Needle], erased: set[str], namespaces: set[str]
    ) -> tuple[list[ScannedFile], Verdict]:
        paths = list(self.store.owned_files())
        if self.workspace is not None:
            paths += self.workspace.files({*self.store.namespaces(), *namespaces})
        files, hits = scan(paths, [n.value for n in needles], [n.whole for n in needles])
        hits += self._index_hits(needles)
        found = sorted({h.needle for h in hits})
        held = self._where_held([needles[i].value for i in found])
        holders = dict(zip(found, held, strict=True))
        verdict = Verdict()
        derived = self._made_from(erased, {i for held in holders.values() for i in held})
        for hit in hits:
            needle = needles[hit.needle]
            others = [i for i in holders[hit.needle] if i not in erased]
            live = others
            if needle.kind == "text":
                # The erased sentence itself is excused only by a memory the purge did not
                # target and that was not made from it: never by a summary of it, nor by a
                # record that is no memory (an episode's summary quoting it).
                others = [i for i in others if i.startswith("mem_") and i not in derived]
            if others:
                verdict.not_targeted[needle.value.lower()] = (needle, others)
            else:
                verdict.remaining.append((needle, hit, live))
        return files, verdict

    def _where_held(self, values: Sequence[str]) -> list[list[str]]:
        """For each string, the memories that hold it anywhere on record (text, versions,
        context, tags, metadata, the reasons on their record), else the live records that
        are no memory (`table.column`, a model name in `lethe_meta`): one pass over the live
        rows for all the strings at once."""
        if not values:
            return []
        keys = [ascii_lower(v) for v in values]
        memories: list[set[str]] = [set() for _ in values]
        records: list[set[str]] = [set() for _ in values]
        matcher = Matcher(keys)
        for owner, text in self.store.held_texts(memories=True):
            for index, _ in matcher.matches(ascii_lower(text)):
                memories[index].add(owner)
        # Only what no memory's own row holds is looked for in versions, contexts, tags,
        # events and the other records (most of the rows, seldom needed).
        unheld = {i for i, m in enumerate(memories) if not m}
        if unheld:
            matcher = Matcher(keys, only=unheld)
            for owner, text in self.store.held_texts(memories=False):
                for index, _ in matcher.matches(ascii_lower(text)):
                    (memories if owner.startswith("mem_") else records)[index].add(owner)
        return [
            sorted(m)[:HELD_LIMIT] if m else sorted(r)[:HELD_LIMIT]
            for m, r in zip(memories, records, strict=True)
        ]

    def _shown(self, path: str) -> str:
        """A file as the receipt names it: relative to the store's folder, or under
        `workspace/` (a receipt is handed to others: no home directory in it)."""
        where = Path(path)
        if self.workspace is not None and where.is_relative_to(self.workspace.root):
            return "workspace/" + where.relative_to(self.workspace.root).as_posix()
        store = getattr(self.store, "path", None)
        if isinstance(store, Path) and where.is_relative_to(store.parent):
            return where.relative_to(store.parent).as_posix()
        return path

    def _remaining(self, needle: Needle, hit: Hit, held: list[str]) -> dict[str, Any]:
        found: dict[str, Any] = {
            "needle_sha256": _digest(needle.value),
            "kind": needle.kind,
            "memory_id": needle.memory_id,
            "path": self._shown(hit.path),
            "offset": hit.offset,
        }
        if held:
            found["held_by"] = held
        return found

    def _made_from(self, erased: set[str], holders: set[str]) -> set[str]:
        """The holders that are summaries made from an erased memory."""
        ids = sorted(i for i in holders if i.startswith("mem_"))
        found = self.store.get_many(ids, active_only=False) if ids else {}
        return {
            i
            for i, m in found.items()
            if isinstance(m.metadata.get("summarizes"), list)
            and erased & {str(s) for s in m.metadata["summarizes"]}
        }

    def _index_hits(self, needles: Sequence[Needle]) -> list[Hit]:
        """Tokens that are one word each and that a full-text index still lists: a hit
        whose place is the index (offset -1). Most terms are prefix-compressed in the
        index's pages, where the bytes cannot show them."""
        words = {
            i: _folded(n.value)
            for i, n in enumerate(needles)
            if n.kind != "text" and _ONE_WORD.fullmatch(_folded(n.value))
        }
        listed = self.store.index_terms(sorted(set(words.values())))
        return [Hit(i, FULL_TEXT_INDEX, -1) for i, word in words.items() if word in listed]

    def _probe(
        self, erasing: Erasing, needles: Sequence[Needle], erased: set[str], verdict: Verdict
    ) -> dict[str, Any]:
        """Recall with each erased text (as it last stood) and each token, in its namespace:
        the fused ranking must hold no erased id, and a memory it returns holding a needle
        must be one the purge did not target."""
        namespaces = {t.memory_id: t.namespace for t in erasing.texts}
        current = {m["id"]: m["content_sha256"] for m in erasing.memories}
        queries = [
            (t.namespace, t.text)
            for t in erasing.texts
            if _digest(t.text) == current.get(t.memory_id)
        ]
        queries += [(namespaces[n.memory_id], n.value) for n in needles if n.kind != "text"]
        returned: set[str] = set()
        held: dict[str, list[str]] = {}
        if queries:
            vectors = self.embedder.embed([q for _, q in queries])
            for (namespace, query), vector in zip(queries, vectors, strict=True):
                ranked, _ = self._search.hybrid_for(
                    vector, query, Filters(namespace=namespace), PROBE_DEPTH
                )
                ids = [f.id for f in ranked[:PROBE_DEPTH]]
                returned.update(i for i in ids if i in erased)
                lowered = query.encode().lower().decode()
                for memory in self.store.get_many(ids, active_only=False).values():
                    if lowered in memory.content.encode().lower().decode():
                        held.setdefault(_digest(query), []).append(memory.id)
        return {
            "queries": len(queries),
            "depth": PROBE_DEPTH,
            "erased_returned": sorted(returned),
            "not_targeted": [
                {"query_sha256": digest, "held_by": sorted(set(ids))}
                for digest, ids in sorted(held.items())
            ],
            "clean": not returned,
        }


def _backend(store: Any) -> str:
    return "postgresql" if type(store).__name__.startswith("Postgres") else "sqlite"


def _location(path: object) -> str:
    """The store as a receipt names it: a SQLite file by its name (no home directory), a
    PostgreSQL database as lethe describes it (no password)."""
    return path.name if isinstance(path, Path) else str(path)
