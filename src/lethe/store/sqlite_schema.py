"""The SQLite store's schema: the SQLite bodies of the one list (`migrations.py`), by number.

`PRAGMA user_version` records where a file stands; a file whose version is higher than the
last entry was written by a newer lethe and is refused.
"""

from __future__ import annotations

from lethe.store.migrations import APPLICATION_ID, LATEST_VERSION, by_version

MIGRATIONS: dict[int, str] = by_version("sqlite")
"""Version -> its SQLite statements ("" where the version changes nothing here)."""

__all__ = ["APPLICATION_ID", "LATEST_VERSION", "MIGRATIONS"]
