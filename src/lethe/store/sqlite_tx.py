"""The write half of the SQLite store: `SqlTx` (sql_tx.py) on its one connection."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lethe.store.dialect import SQLITE
from lethe.store.sql_tx import SqlTx

if TYPE_CHECKING:
    from lethe.store.sqlite import SQLiteStore


class SQLiteTx(SqlTx):
    """The write half of the store, only reachable inside `SQLiteStore.transaction()`."""

    def __init__(self, store: SQLiteStore) -> None:
        super().__init__(store, store.connection, SQLITE)
