"""The write half of the PostgreSQL store: `SqlTx` (sql_tx.py) on the one connection that
`PostgresStore.transaction()` holds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lethe.store.dialect import POSTGRES
from lethe.store.sql_tx import SqlTx

if TYPE_CHECKING:
    import psycopg

    from lethe.store.postgres import PostgresStore


class PostgresTx(SqlTx):
    """The write half of the store, only reachable inside `PostgresStore.transaction()`."""

    def __init__(self, store: PostgresStore, conn: psycopg.Connection[dict[str, Any]]) -> None:
        super().__init__(store, conn, POSTGRES)
