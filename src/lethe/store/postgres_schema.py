"""The PostgreSQL store's schema: the PostgreSQL bodies of the one list (`migrations.py`),
by number, and the advisory locks its servers take.

`lethe_meta.schema_version` records where a database stands (`migrations.postgres_version`
reads it, numbered the old way or by the list); `{dim}` in a body is filled in with the
embedder's dimension when the database is created.
"""

from __future__ import annotations

from lethe.store.migrations import APPLICATION_ID, LATEST_VERSION, by_version

MIGRATIONS: dict[int, str] = by_version("postgres")
"""Version -> its PostgreSQL script ("" where the version changes nothing here)."""

MIGRATION_LOCK = 0x6C65746865
"""`pg_advisory_xact_lock` key: servers opening one database at once migrate it one by one."""

WRITE_LOCK = 0x6C65746866
"""`pg_advisory_xact_lock` key taken by every write transaction: writers on one database run
one at a time, as on SQLite, so the engine's check-then-change steps (is it still live? is
this the pending confirmation?) see every earlier commit and no later one."""

__all__ = ["APPLICATION_ID", "LATEST_VERSION", "MIGRATIONS", "MIGRATION_LOCK", "WRITE_LOCK"]
