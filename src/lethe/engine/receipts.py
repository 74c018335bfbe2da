"""Erasure receipts after the fact: listing them, and checking one against its store.

A receipt is checked against the store it names, not against the private key: its signature
under the public key it carries, that key being one of the store's (`receipt_keys`), the
audit log's `purge` event of each id with the same content digest, and that no id exists.

A purge whose receipt is still owed (its process is proving it, or ended before it could and
no open has signed it since) is listed too, as a purge without a receipt: never left out.
"""

from __future__ import annotations

import re
from typing import Any

from lethe.common import validate
from lethe.common.identifiers import MEMORY_ID_RE
from lethe.engine.base import OWED_RECEIPT
from lethe.erasure import signing
from lethe.errors import InvalidInput
from lethe.store.base import Store
from lethe.store.event_query import EventQuery

RECEIPT_FORMAT = 1
MAX_RECEIPTS = 1000
INTERRUPTED = "no receipt: interrupted"
CHECKING = "no receipt yet: being checked"
_RECEIPT_ID = re.compile(r"rcpt_[0-9a-f]{16}")
_KEY_ID = re.compile(r"[0-9a-f]{16}")


class Receipts:
    """Reads and verifies the signed receipts of purges."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def receipts(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """The signed receipts of past purges, newest first, after the purges whose receipt is
        still owed (no `receipt_id`; `status` says why: `no receipt: interrupted` when the
        purging process is gone, `no receipt yet: being checked` while it runs)."""
        limit = validate.positive_int(limit, "limit", maximum=MAX_RECEIPTS)
        offset = validate.offset(offset, "offset")
        owed = self._owed_receipts()
        shown = owed[offset : offset + limit]
        if len(shown) == limit:
            return shown
        return [*shown, *self.store.receipts(limit - len(shown), max(0, offset - len(owed)))]

    def _owed_receipts(self) -> list[dict[str, Any]]:
        owed = [w[OWED_RECEIPT] for _, w in self.store.owed() if OWED_RECEIPT in w]
        listed = []
        for promise in reversed(owed):  # newest first, as the receipts
            claim = promise.get("claim")
            held = isinstance(claim, str) and self.store.claim_held(claim)
            listed.append(
                {
                    "receipt_id": None,
                    "status": CHECKING if held else INTERRUPTED,
                    "operation": "purge",
                    "plan_id": promise.get("plan_id"),
                    "erased_at": promise.get("erased_at"),
                    "confirmed": {
                        "by": promise.get("actor"),
                        "via": promise.get("via"),
                        "session": promise.get("session"),
                    },
                    "memories": promise.get("memories") or [],
                }
            )
        return listed

    def receipt(self, receipt_id: str) -> dict[str, Any] | None:
        """One receipt by its id (`rcpt_…`), or None."""
        if not isinstance(receipt_id, str) or not _RECEIPT_ID.fullmatch(receipt_id):
            raise InvalidInput(
                f"not a receipt id: {receipt_id!r}",
                hint="receipt ids look like rcpt_ and 16 hex digits",
            )
        return self.store.receipt(receipt_id)

    def verify_receipt(self, receipt: dict[str, Any]) -> list[str]:
        """What is wrong with a receipt, checked against this store: its signature, that
        the key is this store's, that the audit log holds a purge event of each id with the
        same content digest, and that none of the ids exists. Empty when it holds."""
        if (
            not isinstance(receipt, dict)
            or type(receipt.get("lethe_receipt")) is not int
            or (receipt["lethe_receipt"] != RECEIPT_FORMAT)
        ):
            raise InvalidInput(
                "not a lethe erasure receipt (no lethe_receipt: 1)",
                hint="give the JSON file `lethe purge --receipt` wrote",
            )
        problems: list[str] = []
        if not signing.signature_holds(receipt):
            problems.append("the signature does not match the receipt's contents")
        key_id = receipt.get("key_id")
        known = (
            self.store.receipt_key(key_id)
            if isinstance(key_id, str) and _KEY_ID.fullmatch(key_id)
            else None
        )
        if known is None or known != receipt.get("public_key"):
            problems.append("the signing key is not one of this store's receipt keys")
        memories = receipt.get("memories")
        if not isinstance(memories, list) or not memories:
            return [*problems, "the receipt lists no memories"]
        for number, entry in enumerate(memories, 1):
            memory_id = entry.get("id") if isinstance(entry, dict) else None
            if not isinstance(memory_id, str) or not MEMORY_ID_RE.fullmatch(memory_id):
                problems.append(f"memory entry {number} names no memory id")
                continue
            if self.store.get(memory_id) is not None:
                problems.append(f"{memory_id} still exists")
            events = self.store.events(EventQuery(memory_id=memory_id, op="purge", limit=100))
            if not any(e.content_sha256 == entry.get("content_sha256") for e in events):
                problems.append(f"the audit log holds no purge of {memory_id} with that digest")
        return problems
