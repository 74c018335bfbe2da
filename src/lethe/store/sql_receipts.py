"""Erasure receipts kept in either SQL store (`receipts`, `receipt_keys`, migration 19): a
purge's signed receipt and the public half of the key that signed it. Mixed into both stores;
what else proves a purge (the files, the texts held, the claims) stays with each store."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from lethe.store.dialect import Connected
from lethe.store.rows import ts


class SqlReceipts(Connected):
    def save_receipt(self, receipt: dict[str, Any], settles: int | None = None) -> bool:
        at = ts(datetime.fromisoformat(receipt["erased_at"]))
        run = self._dialect.run
        with self._small_write() as conn:
            if settles is not None:
                # A second process settling the same row waits for the first to commit,
                # then deletes nothing: only one of them keeps a receipt.
                gone = run(conn, "DELETE FROM owed_work WHERE id = ?", (settles,))
                if gone.rowcount == 0:
                    return False
            run(
                conn,
                "INSERT INTO receipt_keys (key_id, public_key, created_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key_id) DO NOTHING",
                (receipt["key_id"], receipt["public_key"], at),
            )
            run(
                conn,
                "INSERT INTO receipts (id, at, plan_id, status, key_id, body) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    receipt["receipt_id"],
                    at,
                    receipt.get("plan_id"),
                    receipt["status"],
                    receipt["key_id"],
                    json.dumps(receipt, ensure_ascii=False, sort_keys=True),
                ),
            )
        return True

    def receipts(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        with self._read() as conn:
            rows = self._dialect.run(
                conn,
                "SELECT body FROM receipts ORDER BY at DESC, id LIMIT ? OFFSET ?",
                (limit, offset),
            ).fetchall()
        return [json.loads(r["body"]) for r in rows]

    def receipt(self, receipt_id: str) -> dict[str, Any] | None:
        with self._read() as conn:
            row = self._dialect.run(
                conn, "SELECT body FROM receipts WHERE id = ?", (receipt_id,)
            ).fetchone()
        return None if row is None else dict(json.loads(row["body"]))

    def receipt_key(self, key_id: str) -> str | None:
        with self._read() as conn:
            row = self._dialect.run(
                conn, "SELECT public_key FROM receipt_keys WHERE key_id = ?", (key_id,)
            ).fetchone()
        return None if row is None else str(row["public_key"])
