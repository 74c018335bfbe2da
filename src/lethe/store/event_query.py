"""Which audit events to read: one filter object that both stores turn into SQL.

The audit log is read forwards (export, `lethe audit`, paging with `after_seq`) and backwards
(the inspector's timeline, newest first, paging with `before_seq`); both directions share the
same filters, so the SQL is written once here with the store's placeholder mark.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class EventQuery:
    memory_id: str | None = None
    op: str | None = None
    namespace: str | None = None
    actor: str | None = None
    since: datetime | None = None
    """Events at or after this time."""
    until: datetime | None = None
    """Events strictly before this time."""
    after_seq: int = 0
    before_seq: int | None = None
    newest_first: bool = False
    limit: int = 100

    def sql(self, mark: str) -> tuple[str, list[Any]]:
        """`SELECT … FROM events WHERE … ORDER BY … LIMIT …` with `mark` as placeholder."""
        clauses, params = [f"seq > {mark}"], list[Any]([self.after_seq])
        if self.before_seq is not None:
            clauses.append(f"seq < {mark}")
            params.append(self.before_seq)
        columns = (
            ("memory_id", self.memory_id),
            ("op", self.op),
            ("namespace", self.namespace),
            ("actor", self.actor),
        )
        for column, value in columns:
            if value is not None:
                clauses.append(f"{column} = {mark}")
                params.append(value)
        if self.since is not None:
            clauses.append(f"at >= {mark}")
            params.append(self.since.timestamp())
        if self.until is not None:
            clauses.append(f"at < {mark}")
            params.append(self.until.timestamp())
        order = "DESC" if self.newest_first else "ASC"
        sql = (
            f"SELECT * FROM events WHERE {' AND '.join(clauses)} ORDER BY seq {order} LIMIT {mark}"
        )
        return sql, [*params, self.limit]
