"""The one list of schema migrations, with a body per dialect (issue 46).

A migration is appended, never edited: version N turns a store at version N-1 into version N
inside one transaction. Each entry has the SQL of both stores; an empty body means the
change has nothing to do on that dialect (SQLite's full-text vocabularies, or PostgreSQL's
decay index rebuilt without the access columns), and the store only records the new number.
SQLite records where a file stands in `PRAGMA user_version`; PostgreSQL in
`lethe_meta.schema_version`, beside `schema_list` (see `POSTGRES_BEFORE_ONE_LIST`).

The numbers are SQLite's, as they always were, so every SQLite file opens as it did. The
PostgreSQL store used to number its own migrations (1 to 13); a database that has no
`schema_list` in its meta counts that way and is read through `POSTGRES_BEFORE_ONE_LIST`,
recorded here once, and its number is rewritten in this list's terms the next time it opens.

SQLite's bodies are run statement by statement; PostgreSQL's whole, after `{dim}` is filled
in with the embedder's dimension (pgvector's HNSW indexes need a fixed one, so a literal brace
there is doubled). PostgreSQL's first body is SQLite's schema as of its version 6 in
PostgreSQL's terms: `jsonb` metadata, a `vector(dim)` column with an HNSW index for vectors, a
generated `tsvector` column with a GIN index for full text, and a trigger that keeps audit
events append-only (a purge may only redact their content-bearing parts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

APPLICATION_ID = "lethe"

Dialect = Literal["sqlite", "postgres"]


@dataclass(frozen=True)
class Migration:
    """One step of the schema, with its SQL on each dialect ("" where it changes nothing)."""

    version: int
    name: str
    sqlite: str = ""
    postgres: str = ""

    def body(self, dialect: Dialect) -> str:
        return self.sqlite if dialect == "sqlite" else self.postgres


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "the store",
        sqlite="""
CREATE TABLE lethe_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE memories (
    num              INTEGER PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,
    namespace        TEXT NOT NULL,
    agent            TEXT NOT NULL,
    content          TEXT NOT NULL,
    content_sha256   TEXT NOT NULL,
    layer            TEXT NOT NULL
        CHECK (layer IN ('episodic', 'semantic', 'learning', 'caveat', 'goal')),
    category         TEXT NOT NULL DEFAULT '',
    metadata         TEXT NOT NULL DEFAULT '{}' CHECK (json_type(metadata) = 'object'),
    importance       REAL NOT NULL CHECK (importance BETWEEN 0.0 AND 1.0),
    private          INTEGER NOT NULL DEFAULT 0 CHECK (private IN (0, 1)),
    created_at       REAL NOT NULL,
    updated_at       REAL NOT NULL,
    last_accessed_at REAL,
    access_count     INTEGER NOT NULL DEFAULT 0,
    status           TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'forgotten')),
    embedding        BLOB NOT NULL
);
CREATE INDEX memories_ns_status_created ON memories (namespace, status, created_at);
CREATE INDEX memories_agent ON memories (agent);

CREATE TABLE memory_tags (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    tag       TEXT NOT NULL,
    PRIMARY KEY (memory_id, tag)
);
CREATE INDEX memory_tags_tag ON memory_tags (tag, memory_id);

-- Links are undirected: each pair is stored once with a < b, indexed from both ends.
CREATE TABLE links (
    a          TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    b          TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL DEFAULT 'related',
    confidence REAL NOT NULL CHECK (confidence BETWEEN 0.0 AND 1.0),
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (a, b, kind),
    CHECK (a < b)
);
CREATE INDEX links_b ON links (b, a);

CREATE TABLE episodes (
    id         TEXT PRIMARY KEY,
    namespace  TEXT NOT NULL,
    summary    TEXT NOT NULL,
    start_at   REAL NOT NULL,
    end_at     REAL NOT NULL,
    importance REAL NOT NULL CHECK (importance BETWEEN 0.0 AND 1.0),
    created_at REAL NOT NULL,
    CHECK (start_at <= end_at)
);
-- A purged member leaves its row with a NULL id, so a reader can still say it is gone.
CREATE TABLE episode_members (
    episode_id TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    memory_id  TEXT REFERENCES memories (id) ON DELETE SET NULL,
    PRIMARY KEY (episode_id, position)
);
CREATE INDEX episode_members_memory ON episode_members (memory_id);

CREATE TABLE events (
    seq            INTEGER PRIMARY KEY AUTOINCREMENT,
    at             REAL NOT NULL,
    op             TEXT NOT NULL,
    memory_id      TEXT,
    namespace      TEXT,
    actor          TEXT NOT NULL,
    reason         TEXT,
    details        TEXT NOT NULL DEFAULT '{}',
    content_sha256 TEXT
);
CREATE INDEX events_memory ON events (memory_id, seq);
CREATE INDEX events_op_at ON events (op, at);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;

-- Full-text side, kept in step with memories by triggers in the same transaction.
CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content, content = 'memories', content_rowid = 'num', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.num, new.content);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.num, old.content);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.num, old.content);
    INSERT INTO memories_fts (rowid, content) VALUES (new.num, new.content);
END;

-- Change log the in-process vector index replays, so processes sharing the file stay in step.
CREATE TABLE vector_log (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id TEXT NOT NULL
);
CREATE TRIGGER vector_log_insert AFTER INSERT ON memories BEGIN
    INSERT INTO vector_log (memory_id) VALUES (new.id);
END;
CREATE TRIGGER vector_log_update AFTER UPDATE OF embedding, status, namespace ON memories BEGIN
    INSERT INTO vector_log (memory_id) VALUES (new.id);
END;
CREATE TRIGGER vector_log_delete AFTER DELETE ON memories BEGIN
    INSERT INTO vector_log (memory_id) VALUES (old.id);
END;
""",
        postgres="""
CREATE TABLE lethe_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE memories (
    num              BIGSERIAL UNIQUE,
    id               TEXT PRIMARY KEY,
    namespace        TEXT NOT NULL,
    agent            TEXT NOT NULL,
    content          TEXT NOT NULL,
    content_sha256   TEXT NOT NULL,
    layer            TEXT NOT NULL
        CHECK (layer IN ('episodic', 'semantic', 'learning', 'caveat', 'goal')),
    category         TEXT NOT NULL DEFAULT '',
    metadata         JSONB NOT NULL DEFAULT '{{}}' CHECK (jsonb_typeof(metadata) = 'object'),
    importance       DOUBLE PRECISION NOT NULL CHECK (importance BETWEEN 0.0 AND 1.0),
    private          BOOLEAN NOT NULL DEFAULT FALSE,
    created_at       DOUBLE PRECISION NOT NULL,
    updated_at       DOUBLE PRECISION NOT NULL,
    last_accessed_at DOUBLE PRECISION,
    access_count     INTEGER NOT NULL DEFAULT 0,
    status           TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'forgotten')),
    forgotten_at     DOUBLE PRECISION,
    forgotten_by     TEXT,
    forget_reason    TEXT,
    embedding        vector({dim}) NOT NULL,
    search           tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED
);
CREATE INDEX memories_ns_status_created ON memories (namespace, status, created_at);
CREATE INDEX memories_agent ON memories (agent);
CREATE INDEX memories_trash ON memories (namespace, forgotten_at) WHERE status = 'forgotten';
CREATE INDEX memories_decay ON memories
    (namespace, status, importance, created_at, last_accessed_at, access_count, layer, id);
CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops);
CREATE INDEX memories_search ON memories USING gin (search);

CREATE TABLE memory_tags (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    tag       TEXT NOT NULL,
    position  INTEGER NOT NULL,
    PRIMARY KEY (memory_id, tag)
);
CREATE INDEX memory_tags_tag ON memory_tags (tag, memory_id);

-- Links are undirected: each pair is stored once with a < b, indexed from both ends.
CREATE TABLE links (
    a          TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    b          TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL DEFAULT 'related',
    confidence DOUBLE PRECISION NOT NULL CHECK (confidence BETWEEN 0.0 AND 1.0),
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (a, b, kind),
    CHECK (a < b)
);
CREATE INDEX links_b ON links (b, a);

CREATE TABLE episodes (
    id         TEXT PRIMARY KEY,
    namespace  TEXT NOT NULL,
    summary    TEXT NOT NULL,
    start_at   DOUBLE PRECISION NOT NULL,
    end_at     DOUBLE PRECISION NOT NULL,
    importance DOUBLE PRECISION NOT NULL CHECK (importance BETWEEN 0.0 AND 1.0),
    created_at DOUBLE PRECISION NOT NULL,
    CHECK (start_at <= end_at)
);
-- A purged member leaves its row with a NULL id, so a reader can still say it is gone.
CREATE TABLE episode_members (
    episode_id TEXT NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    memory_id  TEXT REFERENCES memories (id) ON DELETE SET NULL,
    PRIMARY KEY (episode_id, position)
);
CREATE INDEX episode_members_memory ON episode_members (memory_id);

CREATE TABLE events (
    seq            BIGSERIAL PRIMARY KEY,
    at             DOUBLE PRECISION NOT NULL,
    op             TEXT NOT NULL,
    memory_id      TEXT,
    namespace      TEXT,
    actor          TEXT NOT NULL,
    reason         TEXT,
    details        TEXT NOT NULL DEFAULT '{{}}',
    content_sha256 TEXT
);
CREATE INDEX events_memory ON events (memory_id, seq);
CREATE INDEX events_op_at ON events (op, at);
CREATE INDEX events_at ON events (at);

-- Events are append-only, with one exception: a purge may redact an event's content-bearing
-- parts (details, reason), keeping seq, time, op, ids, actor and hash.
CREATE FUNCTION lethe_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE'
       AND NEW.seq IS NOT DISTINCT FROM OLD.seq AND NEW.at IS NOT DISTINCT FROM OLD.at
       AND NEW.op IS NOT DISTINCT FROM OLD.op
       AND NEW.memory_id IS NOT DISTINCT FROM OLD.memory_id
       AND NEW.namespace IS NOT DISTINCT FROM OLD.namespace
       AND NEW.actor IS NOT DISTINCT FROM OLD.actor
       AND NEW.content_sha256 IS NOT DISTINCT FROM OLD.content_sha256
       AND NEW.reason IS NULL AND NEW.details = '{{"redacted": true}}' THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION 'audit events are append-only';
END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION lethe_events_append_only();

-- Two-call confirmations, shared by every server on the database; gone with the memory.
CREATE TABLE pending_confirmations (
    session            TEXT NOT NULL,
    memory_id          TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    operation          TEXT NOT NULL CHECK (operation IN ('forget', 'purge')),
    content_sha256     TEXT NOT NULL,
    first_requested_at DOUBLE PRECISION NOT NULL,
    last_requested_at  DOUBLE PRECISION NOT NULL,
    request_count      INTEGER NOT NULL,
    expires_at         DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (session, memory_id, operation)
);
CREATE INDEX pending_memory ON pending_confirmations (memory_id);

-- Recalls per memory and day (seed 003's heat); erased with the row on purge.
CREATE TABLE access_days (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    day       INTEGER NOT NULL,
    count     INTEGER NOT NULL,
    PRIMARY KEY (memory_id, day)
);
CREATE INDEX access_days_day ON access_days (day);

-- Working memory (seed 004): references; evicting one never touches the memory itself.
CREATE TABLE working_set (
    agent     TEXT NOT NULL,
    namespace TEXT NOT NULL,
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    tokens    INTEGER NOT NULL,
    added_at  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (agent, namespace, memory_id)
);
CREATE INDEX working_set_memory ON working_set (memory_id);
""",
    ),
    Migration(
        2,
        "trash",
        sqlite="""
-- Trash: who forgot a memory, when and why (cleared again by restore).
ALTER TABLE memories ADD COLUMN forgotten_at REAL;
ALTER TABLE memories ADD COLUMN forgotten_by TEXT;
ALTER TABLE memories ADD COLUMN forget_reason TEXT;
CREATE INDEX memories_trash ON memories (namespace, forgotten_at) WHERE status = 'forgotten';

-- Two-call confirmations, persisted so a restart keeps them; gone with the memory on purge.
CREATE TABLE pending_confirmations (
    session            TEXT NOT NULL,
    memory_id          TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    operation          TEXT NOT NULL CHECK (operation IN ('forget', 'purge')),
    content_sha256     TEXT NOT NULL,
    first_requested_at REAL NOT NULL,
    last_requested_at  REAL NOT NULL,
    request_count      INTEGER NOT NULL,
    expires_at         REAL NOT NULL,
    PRIMARY KEY (session, memory_id, operation)
);
CREATE INDEX pending_memory ON pending_confirmations (memory_id);

-- Events stay append-only, with one exception: a purge may redact an event's content-bearing
-- parts (details, reason), keeping seq, time, op, ids, actor and hash.
DROP TRIGGER events_no_update;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
WHEN NOT (
    new.seq IS old.seq AND new.at IS old.at AND new.op IS old.op
    AND new.memory_id IS old.memory_id AND new.namespace IS old.namespace
    AND new.actor IS old.actor AND new.content_sha256 IS old.content_sha256
    AND new.reason IS NULL AND new.details = '{"redacted": true}'
)
BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;
CREATE INDEX events_at ON events (at);
""",
    ),
    Migration(
        3,
        "words' document counts",
        sqlite="""
-- Documents per word, so a lexical search can skip words too common to be worth ranking.
CREATE VIRTUAL TABLE memories_vocab USING fts5vocab (memories_fts, 'row');
""",
    ),
    Migration(
        4,
        "file identity",
        sqlite="""
-- An identity for the file, so a vector snapshot beside it is never applied to another store.
INSERT OR IGNORE INTO lethe_meta (key, value) VALUES ('db_id', lower(hex(randomblob(8))));
""",
    ),
    Migration(
        5,
        "accesses per day",
        sqlite="""
-- Recalls per memory and day, so heat can count the accesses of the last 30 and 90 days
-- (seed 003) instead of guessing them from the total. A purge erases them with the row.
CREATE TABLE access_days (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    day       INTEGER NOT NULL,
    count     INTEGER NOT NULL,
    PRIMARY KEY (memory_id, day)
) WITHOUT ROWID;
CREATE INDEX access_days_day ON access_days (day);
""",
    ),
    Migration(
        6,
        "working memory",
        sqlite="""
-- Working memory (seed 004): what each agent holds in its prompt-sized context. Rows here
-- are references; evicting one never touches the memory itself.
CREATE TABLE working_set (
    agent     TEXT NOT NULL,
    namespace TEXT NOT NULL,
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    tokens    INTEGER NOT NULL,
    added_at  REAL NOT NULL,
    PRIMARY KEY (agent, namespace, memory_id)
) WITHOUT ROWID;
CREATE INDEX working_set_memory ON working_set (memory_id);
""",
    ),
    # Every recall updates its hits' access statistics. With those columns in an index, no
    # such update can be HOT, so each one wrote new entries into every index of the row,
    # the HNSW graph included (~16 ms per recall at 100k memories). Out of the index, and
    # with room left on each page, the update stays on the page and touches no index.
    Migration(
        7,
        "decay columns",
        sqlite="""
-- Everything a decay sweep reads, so a sweep over a million memories is one index scan
-- instead of a million row lookups into a table full of content and vectors.
CREATE INDEX memories_decay ON memories
    (namespace, status, importance, created_at, last_accessed_at, access_count, layer, id);
""",
        postgres="""
DROP INDEX memories_decay;
CREATE INDEX memories_decay ON memories (namespace, status, importance, created_at, layer, id);
ALTER TABLE memories SET (fillfactor = 85);
""",
    ),
    # Versions: an update never destroys (see the SQLite store's migration 8).
    Migration(
        8,
        "versions",
        sqlite="""
-- Versions: an update never destroys. The state it replaces moves here, with who made that
-- state, how and why; the memory row says which version it is and who made it. Erased with
-- the memory on purge (cascade). Tags and metadata are JSON text.
ALTER TABLE memories ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE memories ADD COLUMN changed_by TEXT;
ALTER TABLE memories ADD COLUMN change_op TEXT;
ALTER TABLE memories ADD COLUMN change_reason TEXT;
CREATE TABLE memory_versions (
    memory_id      TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    version        INTEGER NOT NULL CHECK (version >= 1),
    agent          TEXT NOT NULL,
    content        TEXT NOT NULL,
    content_sha256 TEXT NOT NULL,
    layer          TEXT NOT NULL,
    category       TEXT NOT NULL DEFAULT '',
    tags           TEXT NOT NULL DEFAULT '[]',
    metadata       TEXT NOT NULL DEFAULT '{}',
    importance     REAL NOT NULL,
    private        INTEGER NOT NULL DEFAULT 0,
    valid_from     REAL NOT NULL,
    valid_until    REAL NOT NULL,
    actor          TEXT NOT NULL,
    op             TEXT NOT NULL,
    reason         TEXT,
    PRIMARY KEY (memory_id, version)
) WITHOUT ROWID;
CREATE INDEX memory_versions_until ON memory_versions (valid_until);

-- The exact-duplicate check of remember looks memories up by their text's hash.
CREATE INDEX memories_ns_sha ON memories (namespace, content_sha256);

-- A change to a protected memory is confirmed like a forget: pending rows for 'update' too.
CREATE TABLE pending_confirmations_v8 (
    session            TEXT NOT NULL,
    memory_id          TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    operation          TEXT NOT NULL CHECK (operation IN ('forget', 'purge', 'update')),
    content_sha256     TEXT NOT NULL,
    first_requested_at REAL NOT NULL,
    last_requested_at  REAL NOT NULL,
    request_count      INTEGER NOT NULL,
    expires_at         REAL NOT NULL,
    PRIMARY KEY (session, memory_id, operation)
);
INSERT INTO pending_confirmations_v8 SELECT session, memory_id, operation, content_sha256,
    first_requested_at, last_requested_at, request_count, expires_at FROM pending_confirmations;
DROP TABLE pending_confirmations;
ALTER TABLE pending_confirmations_v8 RENAME TO pending_confirmations;
CREATE INDEX pending_memory ON pending_confirmations (memory_id);
""",
        postgres="""
ALTER TABLE memories ADD COLUMN version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE memories ADD COLUMN changed_by TEXT;
ALTER TABLE memories ADD COLUMN change_op TEXT;
ALTER TABLE memories ADD COLUMN change_reason TEXT;
CREATE TABLE memory_versions (
    memory_id      TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    version        INTEGER NOT NULL CHECK (version >= 1),
    agent          TEXT NOT NULL,
    content        TEXT NOT NULL,
    content_sha256 TEXT NOT NULL,
    layer          TEXT NOT NULL,
    category       TEXT NOT NULL DEFAULT '',
    tags           TEXT NOT NULL DEFAULT '[]',
    metadata       TEXT NOT NULL DEFAULT '{{}}',
    importance     DOUBLE PRECISION NOT NULL,
    private        BOOLEAN NOT NULL DEFAULT FALSE,
    valid_from     DOUBLE PRECISION NOT NULL,
    valid_until    DOUBLE PRECISION NOT NULL,
    actor          TEXT NOT NULL,
    op             TEXT NOT NULL,
    reason         TEXT,
    PRIMARY KEY (memory_id, version)
);
CREATE INDEX memory_versions_until ON memory_versions (valid_until);
CREATE INDEX memories_ns_sha ON memories (namespace, content_sha256);
ALTER TABLE pending_confirmations DROP CONSTRAINT pending_confirmations_operation_check;
ALTER TABLE pending_confirmations ADD CONSTRAINT pending_confirmations_operation_check
    CHECK (operation IN ('forget', 'purge', 'update'));
""",
    ),
    # Work a committed change still owes outside its transaction (see the SQLite store's 9).
    Migration(
        9,
        "owed work",
        sqlite="""
-- Work a committed change still owes outside its transaction (full-text merge, vector
-- snapshot, WAL truncation after an erasure; workspace files), written in that transaction
-- and deleted once done: a crash in between leaves the row, and the next open finishes it.
CREATE TABLE owed_work (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at REAL NOT NULL,
    work       TEXT NOT NULL CHECK (json_type(work) = 'object')
);
""",
        postgres="""
CREATE TABLE owed_work (
    id         BIGSERIAL PRIMARY KEY,
    created_at DOUBLE PRECISION NOT NULL,
    work       JSONB NOT NULL CHECK (jsonb_typeof(work) = 'object')
);
""",
    ),
    # Expiry chosen by the person (see the SQLite store's migration 10).
    Migration(
        10,
        "expiry",
        sqlite="""
-- Expiry chosen by the person ("keep this for a week"): when the memory ends, who set that
-- and when. A due memory leaves every read at that moment and is then turned into a soft
-- delete (audited as `expire`). Versions keep the expiry of their state, so a revert
-- restores it.
ALTER TABLE memories ADD COLUMN expires_at REAL;
ALTER TABLE memories ADD COLUMN expiry_set_by TEXT;
ALTER TABLE memories ADD COLUMN expiry_set_at REAL;
ALTER TABLE memory_versions ADD COLUMN expires_at REAL;
CREATE INDEX memories_expiry ON memories (expires_at)
    WHERE status = 'active' AND expires_at IS NOT NULL;
""",
        postgres="""
ALTER TABLE memories ADD COLUMN expires_at DOUBLE PRECISION;
ALTER TABLE memories ADD COLUMN expiry_set_by TEXT;
ALTER TABLE memories ADD COLUMN expiry_set_at DOUBLE PRECISION;
ALTER TABLE memory_versions ADD COLUMN expires_at DOUBLE PRECISION;
CREATE INDEX memories_expiry ON memories (expires_at)
    WHERE status = 'active' AND expires_at IS NOT NULL;
""",
    ),
    Migration(
        11,
        "earlier states' vectors",
        sqlite="""
-- Recall as of a past moment ranks a memory by the state it had then: an earlier state keeps
-- the vector it had (copied when the state is kept; earlier states from before this version,
-- or imported, are embedded on first use). The in-process index replays `vector_log`, so a
-- version kept or dropped, and a change of when the current state began, log the memory too.
ALTER TABLE memory_versions ADD COLUMN embedding BLOB;
CREATE INDEX memory_versions_unembedded ON memory_versions (memory_id) WHERE embedding IS NULL;
DROP TRIGGER vector_log_update;
CREATE TRIGGER vector_log_update
AFTER UPDATE OF embedding, status, namespace, updated_at ON memories BEGIN
    INSERT INTO vector_log (memory_id) VALUES (new.id);
END;
CREATE TRIGGER vector_log_version_insert AFTER INSERT ON memory_versions BEGIN
    INSERT INTO vector_log (memory_id) VALUES (new.memory_id);
END;
CREATE TRIGGER vector_log_version_update AFTER UPDATE OF embedding ON memory_versions BEGIN
    INSERT INTO vector_log (memory_id) VALUES (new.memory_id);
END;
CREATE TRIGGER vector_log_version_delete AFTER DELETE ON memory_versions BEGIN
    INSERT INTO vector_log (memory_id) VALUES (old.memory_id);
END;
""",
        postgres="""
-- Recall as of a past moment: an earlier state keeps the vector it had (see SQLite's 11).
ALTER TABLE memory_versions ADD COLUMN embedding vector({dim});
CREATE INDEX memory_versions_unembedded ON memory_versions (memory_id) WHERE embedding IS NULL;
CREATE INDEX memory_versions_span ON memory_versions (valid_from, valid_until);
""",
    ),
    Migration(
        12,
        "conversations",
        sqlite="""
-- Conversations: a memory whose metadata names a session (text, or a whole number) belongs to
-- it. The column is derived from the metadata, so no write can leave the two apart.
ALTER TABLE memories ADD COLUMN conversation TEXT GENERATED ALWAYS AS (
    CASE json_type(metadata, '$.session')
        WHEN 'text' THEN nullif(trim(json_extract(metadata, '$.session'), ' '), '')
        WHEN 'integer' THEN CAST(json_extract(metadata, '$.session') AS TEXT)
    END) VIRTUAL;
CREATE INDEX memories_conversation ON memories (namespace, conversation, created_at)
    WHERE conversation IS NOT NULL;

-- Each live memory of a conversation is also ranked by its context: itself with the turns
-- around it (lethe/common/context.py). Rebuilt for a whole conversation in the transaction of any
-- change to one of its memories (the triggers below mark it; the store rebuilds before
-- COMMIT), so a forgotten or purged turn's text never outlives the change in a neighbour.
CREATE TABLE memory_context (
    num          INTEGER PRIMARY KEY,
    memory_id    TEXT NOT NULL UNIQUE REFERENCES memories (id) ON DELETE CASCADE,
    namespace    TEXT NOT NULL,
    conversation TEXT NOT NULL,
    embedding    BLOB NOT NULL,
    content      TEXT NOT NULL
);
CREATE INDEX memory_context_conversation ON memory_context (namespace, conversation);
CREATE VIRTUAL TABLE context_fts USING fts5 (
    content, content = 'memory_context', content_rowid = 'num',
    tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER context_fts_insert AFTER INSERT ON memory_context BEGIN
    INSERT INTO context_fts (rowid, content) VALUES (new.num, new.content);
    INSERT INTO vector_log (memory_id) VALUES (new.memory_id);
END;
CREATE TRIGGER context_fts_delete AFTER DELETE ON memory_context BEGIN
    INSERT INTO context_fts (context_fts, rowid, content) VALUES ('delete', old.num, old.content);
    INSERT INTO vector_log (memory_id) VALUES (old.memory_id);
END;

CREATE TABLE conversation_dirty (
    namespace    TEXT NOT NULL,
    conversation TEXT NOT NULL,
    PRIMARY KEY (namespace, conversation)
) WITHOUT ROWID;
CREATE TRIGGER context_dirty_insert AFTER INSERT ON memories
WHEN new.conversation IS NOT NULL BEGIN
    INSERT OR IGNORE INTO conversation_dirty VALUES (new.namespace, new.conversation);
END;
CREATE TRIGGER context_dirty_update
AFTER UPDATE OF content, metadata, status, embedding, created_at, namespace ON memories BEGIN
    INSERT OR IGNORE INTO conversation_dirty
        SELECT old.namespace, old.conversation WHERE old.conversation IS NOT NULL;
    INSERT OR IGNORE INTO conversation_dirty
        SELECT new.namespace, new.conversation WHERE new.conversation IS NOT NULL;
END;
CREATE TRIGGER context_dirty_delete AFTER DELETE ON memories
WHEN old.conversation IS NOT NULL BEGIN
    INSERT OR IGNORE INTO conversation_dirty VALUES (old.namespace, old.conversation);
END;
-- Conversations already stored are built at the first open.
INSERT OR IGNORE INTO conversation_dirty
    SELECT DISTINCT namespace, conversation FROM memories WHERE conversation IS NOT NULL;
""",
        postgres="""
-- Conversations and their contexts (see SQLite's 12 and lethe/common/context.py).
ALTER TABLE memories ADD COLUMN conversation TEXT GENERATED ALWAYS AS (
    CASE jsonb_typeof(metadata -> 'session')
        WHEN 'string' THEN nullif(btrim(metadata ->> 'session', ' '), '')
        WHEN 'number' THEN CASE WHEN (metadata ->> 'session') ~ '^-?[0-9]+$'
                                THEN metadata ->> 'session' END
    END) STORED;
CREATE INDEX memories_conversation ON memories (namespace, conversation, created_at)
    WHERE conversation IS NOT NULL;
CREATE TABLE memory_context (
    memory_id    TEXT PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    namespace    TEXT NOT NULL,
    conversation TEXT NOT NULL,
    embedding    vector({dim}) NOT NULL,
    content      TEXT NOT NULL,
    search       tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED
);
CREATE INDEX memory_context_conversation ON memory_context (namespace, conversation);
CREATE INDEX memory_context_search ON memory_context USING gin (search);
CREATE INDEX memory_context_embedding ON memory_context USING hnsw (embedding vector_cosine_ops);
CREATE TABLE conversation_dirty (
    namespace    TEXT NOT NULL,
    conversation TEXT NOT NULL,
    PRIMARY KEY (namespace, conversation)
);
CREATE FUNCTION lethe_conversation_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.conversation IS NOT NULL THEN
        INSERT INTO conversation_dirty VALUES (OLD.namespace, OLD.conversation)
            ON CONFLICT DO NOTHING;
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') AND NEW.conversation IS NOT NULL THEN
        INSERT INTO conversation_dirty VALUES (NEW.namespace, NEW.conversation)
            ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER conversation_dirty_insert AFTER INSERT OR DELETE ON memories
    FOR EACH ROW EXECUTE FUNCTION lethe_conversation_dirty();
CREATE TRIGGER conversation_dirty_update
    AFTER UPDATE OF content, metadata, status, embedding, created_at, namespace ON memories
    FOR EACH ROW EXECUTE FUNCTION lethe_conversation_dirty();
INSERT INTO conversation_dirty
    SELECT DISTINCT namespace, conversation FROM memories WHERE conversation IS NOT NULL;
""",
    ),
    Migration(
        13,
        "contexts' word counts",
        sqlite="""
-- How many contexts hold each word: what the context full-text search budgets by (a
-- context is several turns long, so the memories' own counts underestimate it).
CREATE VIRTUAL TABLE context_vocab USING fts5vocab (context_fts, 'row');
""",
    ),
    Migration(
        14,
        "episodes as conversations",
        sqlite="""
-- An episode is a conversation too, for its members that name no session (a memory in
-- several episodes belongs to the first one made). Its key is 'episode:' and its id.
CREATE TRIGGER context_dirty_episode_insert AFTER INSERT ON episode_members BEGIN
    INSERT OR IGNORE INTO conversation_dirty
        SELECT e.namespace, 'episode:' || e.id FROM episodes e WHERE e.id = new.episode_id;
END;
CREATE TRIGGER context_dirty_episode_update AFTER UPDATE OF memory_id ON episode_members BEGIN
    INSERT OR IGNORE INTO conversation_dirty
        SELECT e.namespace, 'episode:' || e.id FROM episodes e WHERE e.id = new.episode_id;
END;
CREATE TRIGGER context_dirty_episode_member
AFTER UPDATE OF content, metadata, status, embedding, created_at, namespace ON memories BEGIN
    INSERT OR IGNORE INTO conversation_dirty
        SELECT e.namespace, 'episode:' || e.id
        FROM episode_members em JOIN episodes e ON e.id = em.episode_id
        WHERE em.memory_id = new.id;
END;
INSERT OR IGNORE INTO conversation_dirty
    SELECT DISTINCT e.namespace, 'episode:' || e.id
    FROM episodes e JOIN episode_members em ON em.episode_id = e.id
    WHERE em.memory_id IS NOT NULL;
""",
        postgres="""
-- An episode is a conversation too (see SQLite's 14).
CREATE FUNCTION lethe_episode_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO conversation_dirty
        SELECT e.namespace, 'episode:' || e.id FROM episodes e WHERE e.id = NEW.episode_id
        ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER episode_dirty AFTER INSERT OR UPDATE OF memory_id ON episode_members
    FOR EACH ROW EXECUTE FUNCTION lethe_episode_dirty();
CREATE FUNCTION lethe_episode_member_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO conversation_dirty
        SELECT e.namespace, 'episode:' || e.id
        FROM episode_members em JOIN episodes e ON e.id = em.episode_id
        WHERE em.memory_id = NEW.id
        ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER episode_member_dirty
    AFTER UPDATE OF content, metadata, status, embedding, created_at, namespace ON memories
    FOR EACH ROW EXECUTE FUNCTION lethe_episode_member_dirty();
INSERT INTO conversation_dirty
    SELECT DISTINCT e.namespace, 'episode:' || e.id
    FROM episodes e JOIN episode_members em ON em.episode_id = e.id
    WHERE em.memory_id IS NOT NULL
    ON CONFLICT DO NOTHING;
""",
    ),
    Migration(
        15,
        "whole-number sessions",
        sqlite="""
-- A whole-number session is one of at most 15 digits: past 2^63 SQLite reads JSON numbers
-- as floats, and two sessions would have become one conversation. The column is made again
-- (a generated column cannot be altered) and every conversation rebuilt.
DROP TRIGGER context_dirty_insert;
DROP TRIGGER context_dirty_update;
DROP TRIGGER context_dirty_delete;
DROP INDEX memories_conversation;
ALTER TABLE memories DROP COLUMN conversation;
ALTER TABLE memories ADD COLUMN conversation TEXT GENERATED ALWAYS AS (
    CASE json_type(metadata, '$.session')
        WHEN 'text' THEN nullif(trim(json_extract(metadata, '$.session'), ' '), '')
        WHEN 'integer' THEN CASE
            WHEN abs(json_extract(metadata, '$.session')) < 1000000000000000
            THEN CAST(json_extract(metadata, '$.session') AS TEXT) END
    END) VIRTUAL;
CREATE INDEX memories_conversation ON memories (namespace, conversation, created_at)
    WHERE conversation IS NOT NULL;
CREATE TRIGGER context_dirty_insert AFTER INSERT ON memories
WHEN new.conversation IS NOT NULL BEGIN
    INSERT OR IGNORE INTO conversation_dirty VALUES (new.namespace, new.conversation);
END;
CREATE TRIGGER context_dirty_update
AFTER UPDATE OF content, metadata, status, embedding, created_at, namespace ON memories BEGIN
    INSERT OR IGNORE INTO conversation_dirty
        SELECT old.namespace, old.conversation WHERE old.conversation IS NOT NULL;
    INSERT OR IGNORE INTO conversation_dirty
        SELECT new.namespace, new.conversation WHERE new.conversation IS NOT NULL;
END;
CREATE TRIGGER context_dirty_delete AFTER DELETE ON memories
WHEN old.conversation IS NOT NULL BEGIN
    INSERT OR IGNORE INTO conversation_dirty VALUES (old.namespace, old.conversation);
END;
DELETE FROM memory_context;
INSERT OR IGNORE INTO conversation_dirty
    SELECT DISTINCT namespace, conversation FROM memories WHERE conversation IS NOT NULL;
INSERT OR IGNORE INTO conversation_dirty
    SELECT DISTINCT e.namespace, 'episode:' || e.id
    FROM episodes e JOIN episode_members em ON em.episode_id = e.id
    WHERE em.memory_id IS NOT NULL;
""",
        postgres="""
-- A whole-number session is one of at most 15 digits (see SQLite's 15).
ALTER TABLE memories DROP COLUMN conversation;
ALTER TABLE memories ADD COLUMN conversation TEXT GENERATED ALWAYS AS (
    CASE jsonb_typeof(metadata -> 'session')
        WHEN 'string' THEN nullif(btrim(metadata ->> 'session', ' '), '')
        WHEN 'number' THEN CASE WHEN (metadata ->> 'session') ~ '^-?[0-9]{{1,15}}$'
                                THEN metadata ->> 'session' END
    END) STORED;
CREATE INDEX memories_conversation ON memories (namespace, conversation, created_at)
    WHERE conversation IS NOT NULL;
DELETE FROM memory_context;
INSERT INTO conversation_dirty
    SELECT DISTINCT namespace, conversation FROM memories WHERE conversation IS NOT NULL
    ON CONFLICT DO NOTHING;
INSERT INTO conversation_dirty
    SELECT DISTINCT e.namespace, 'episode:' || e.id
    FROM episodes e JOIN episode_members em ON em.episode_id = e.id
    WHERE em.memory_id IS NOT NULL
    ON CONFLICT DO NOTHING;
""",
    ),
    Migration(
        16,
        "marking without INSERT OR IGNORE",
        sqlite="""
-- The marking triggers no longer lean on INSERT OR IGNORE: when the statement that fires
-- them is a foreign-key action (a purge setting an episode member to NULL), SQLite applies
-- that action's conflict policy and a second mark of one conversation failed the purge.
DROP TRIGGER context_dirty_insert;
DROP TRIGGER context_dirty_update;
DROP TRIGGER context_dirty_delete;
DROP TRIGGER context_dirty_episode_insert;
DROP TRIGGER context_dirty_episode_update;
DROP TRIGGER context_dirty_episode_member;
CREATE TRIGGER context_dirty_insert AFTER INSERT ON memories
WHEN new.conversation IS NOT NULL BEGIN
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT new.namespace, new.conversation WHERE NOT EXISTS (
            SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = new.namespace AND d.conversation = new.conversation);
END;
CREATE TRIGGER context_dirty_update
AFTER UPDATE OF content, metadata, status, embedding, created_at, namespace ON memories BEGIN
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT old.namespace, old.conversation WHERE old.conversation IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = old.namespace AND d.conversation = old.conversation);
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT new.namespace, new.conversation WHERE new.conversation IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = new.namespace AND d.conversation = new.conversation);
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT DISTINCT e.namespace, 'episode:' || e.id
        FROM episode_members em JOIN episodes e ON e.id = em.episode_id
        WHERE em.memory_id = new.id AND NOT EXISTS (SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = e.namespace AND d.conversation = 'episode:' || e.id);
END;
CREATE TRIGGER context_dirty_delete AFTER DELETE ON memories
WHEN old.conversation IS NOT NULL BEGIN
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT old.namespace, old.conversation WHERE NOT EXISTS (
            SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = old.namespace AND d.conversation = old.conversation);
END;
CREATE TRIGGER context_dirty_episode_insert AFTER INSERT ON episode_members BEGIN
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT e.namespace, 'episode:' || e.id FROM episodes e WHERE e.id = new.episode_id
        AND NOT EXISTS (SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = e.namespace AND d.conversation = 'episode:' || e.id);
END;
CREATE TRIGGER context_dirty_episode_update AFTER UPDATE OF memory_id ON episode_members BEGIN
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT e.namespace, 'episode:' || e.id FROM episodes e WHERE e.id = new.episode_id
        AND NOT EXISTS (SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = e.namespace AND d.conversation = 'episode:' || e.id);
END;
""",
    ),
    Migration(
        17,
        "context windows",
        sqlite="""
-- Each context keeps its window (`members`: [memory id, weight] in conversation order), and
-- every turn whose change marks its conversation is noted in `context_changed`: a change
-- remakes only the windows that hold that turn, before or after it. Every conversation is
-- remade once, to fill the windows in. An episode's conversation key now starts with a space,
-- which a session never does: a session named "episode:<id>" was read as that episode.
ALTER TABLE memory_context ADD COLUMN members TEXT NOT NULL DEFAULT '[]';
CREATE TABLE context_changed (memory_id TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TRIGGER context_changed_insert AFTER INSERT ON memories
WHEN new.conversation IS NOT NULL BEGIN
    INSERT INTO context_changed (memory_id) SELECT new.id WHERE NOT EXISTS (
        SELECT 1 FROM context_changed WHERE memory_id = new.id);
END;
CREATE TRIGGER context_changed_update
AFTER UPDATE OF content, metadata, status, embedding, created_at, namespace ON memories
WHEN old.conversation IS NOT NULL OR new.conversation IS NOT NULL
    OR EXISTS (SELECT 1 FROM episode_members WHERE memory_id = new.id) BEGIN
    INSERT INTO context_changed (memory_id) SELECT new.id WHERE NOT EXISTS (
        SELECT 1 FROM context_changed WHERE memory_id = new.id);
END;
CREATE TRIGGER context_changed_delete AFTER DELETE ON memories
WHEN old.conversation IS NOT NULL
    OR EXISTS (SELECT 1 FROM episode_members WHERE memory_id = old.id) BEGIN
    INSERT INTO context_changed (memory_id) SELECT old.id WHERE NOT EXISTS (
        SELECT 1 FROM context_changed WHERE memory_id = old.id);
END;
CREATE TRIGGER context_changed_member AFTER INSERT ON episode_members
WHEN new.memory_id IS NOT NULL BEGIN
    INSERT INTO context_changed (memory_id) SELECT new.memory_id WHERE NOT EXISTS (
        SELECT 1 FROM context_changed WHERE memory_id = new.memory_id);
END;
CREATE TRIGGER context_changed_member_update AFTER UPDATE OF memory_id ON episode_members BEGIN
    INSERT INTO context_changed (memory_id) SELECT old.memory_id
        WHERE old.memory_id IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM context_changed WHERE memory_id = old.memory_id);
    INSERT INTO context_changed (memory_id) SELECT new.memory_id
        WHERE new.memory_id IS NOT NULL AND NOT EXISTS (
            SELECT 1 FROM context_changed WHERE memory_id = new.memory_id);
END;
DROP TRIGGER context_dirty_update;
DROP TRIGGER context_dirty_episode_insert;
DROP TRIGGER context_dirty_episode_update;
CREATE TRIGGER context_dirty_update
AFTER UPDATE OF content, metadata, status, embedding, created_at, namespace ON memories BEGIN
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT old.namespace, old.conversation WHERE old.conversation IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = old.namespace AND d.conversation = old.conversation);
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT new.namespace, new.conversation WHERE new.conversation IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = new.namespace AND d.conversation = new.conversation);
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT DISTINCT e.namespace, ' episode:' || e.id
        FROM episode_members em JOIN episodes e ON e.id = em.episode_id
        WHERE em.memory_id = new.id AND NOT EXISTS (SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = e.namespace AND d.conversation = ' episode:' || e.id);
END;
CREATE TRIGGER context_dirty_episode_insert AFTER INSERT ON episode_members BEGIN
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT e.namespace, ' episode:' || e.id FROM episodes e WHERE e.id = new.episode_id
        AND NOT EXISTS (SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = e.namespace AND d.conversation = ' episode:' || e.id);
END;
CREATE TRIGGER context_dirty_episode_update AFTER UPDATE OF memory_id ON episode_members BEGIN
    INSERT INTO conversation_dirty (namespace, conversation)
        SELECT e.namespace, ' episode:' || e.id FROM episodes e WHERE e.id = new.episode_id
        AND NOT EXISTS (SELECT 1 FROM conversation_dirty d
            WHERE d.namespace = e.namespace AND d.conversation = ' episode:' || e.id);
END;
DELETE FROM memory_context WHERE memory_id IN (SELECT id FROM memories WHERE conversation IS NULL);
DELETE FROM conversation_dirty;
INSERT OR IGNORE INTO conversation_dirty
    SELECT DISTINCT namespace, conversation FROM memories WHERE conversation IS NOT NULL;
INSERT OR IGNORE INTO conversation_dirty
    SELECT DISTINCT e.namespace, ' episode:' || e.id
    FROM episodes e JOIN episode_members em ON em.episode_id = e.id
    WHERE em.memory_id IS NOT NULL;
INSERT OR IGNORE INTO context_changed SELECT id FROM memories WHERE conversation IS NOT NULL;
INSERT OR IGNORE INTO context_changed
    SELECT memory_id FROM episode_members WHERE memory_id IS NOT NULL;
""",
        postgres="""
-- Each context keeps its window, and every turn whose change marks its conversation is
-- noted; an episode's conversation key starts with a space (see SQLite's 17).
CREATE OR REPLACE FUNCTION lethe_episode_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO conversation_dirty
        SELECT e.namespace, ' episode:' || e.id FROM episodes e WHERE e.id = NEW.episode_id
        ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION lethe_episode_member_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO conversation_dirty
        SELECT e.namespace, ' episode:' || e.id
        FROM episode_members em JOIN episodes e ON e.id = em.episode_id
        WHERE em.memory_id = NEW.id
        ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
DELETE FROM memory_context WHERE memory_id IN (SELECT id FROM memories WHERE conversation IS NULL);
DELETE FROM conversation_dirty;
ALTER TABLE memory_context ADD COLUMN members TEXT NOT NULL DEFAULT '[]';
CREATE TABLE context_changed (memory_id TEXT PRIMARY KEY);
CREATE FUNCTION lethe_context_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'episode_members' THEN
        IF TG_OP = 'UPDATE' AND OLD.memory_id IS NOT NULL THEN
            INSERT INTO context_changed VALUES (OLD.memory_id) ON CONFLICT DO NOTHING;
        END IF;
        IF NEW.memory_id IS NOT NULL THEN
            INSERT INTO context_changed VALUES (NEW.memory_id) ON CONFLICT DO NOTHING;
        END IF;
    ELSIF TG_OP = 'DELETE' THEN
        IF OLD.conversation IS NOT NULL
            OR EXISTS (SELECT 1 FROM episode_members WHERE memory_id = OLD.id) THEN
            INSERT INTO context_changed VALUES (OLD.id) ON CONFLICT DO NOTHING;
        END IF;
    ELSIF NEW.conversation IS NOT NULL
        OR (TG_OP = 'UPDATE' AND OLD.conversation IS NOT NULL)
        OR EXISTS (SELECT 1 FROM episode_members WHERE memory_id = NEW.id) THEN
        INSERT INTO context_changed VALUES (NEW.id) ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER context_changed_row AFTER INSERT OR DELETE ON memories
    FOR EACH ROW EXECUTE FUNCTION lethe_context_changed();
CREATE TRIGGER context_changed_update
    AFTER UPDATE OF content, metadata, status, embedding, created_at, namespace ON memories
    FOR EACH ROW EXECUTE FUNCTION lethe_context_changed();
CREATE TRIGGER context_changed_member AFTER INSERT OR UPDATE OF memory_id ON episode_members
    FOR EACH ROW EXECUTE FUNCTION lethe_context_changed();
INSERT INTO conversation_dirty
    SELECT DISTINCT namespace, conversation FROM memories WHERE conversation IS NOT NULL
    ON CONFLICT DO NOTHING;
INSERT INTO conversation_dirty
    SELECT DISTINCT e.namespace, ' episode:' || e.id
    FROM episodes e JOIN episode_members em ON em.episode_id = e.id
    WHERE em.memory_id IS NOT NULL
    ON CONFLICT DO NOTHING;
INSERT INTO context_changed
    SELECT id FROM memories WHERE conversation IS NOT NULL
    UNION SELECT memory_id FROM episode_members WHERE memory_id IS NOT NULL
    ON CONFLICT DO NOTHING;
""",
    ),
    Migration(
        18,
        "gram index",
        sqlite="""
-- Full text for scripts without spaces (store/grams.py): every CJK character and every pair
-- beside one, for texts that hold any. `lethe_grams` (registered by the writing connection)
-- computes a text's grams once, on insert or change; they are kept as written
-- (memory_gram_text), and the index follows that table, so deleting never computes them
-- again (a Python with other Unicode tables would compute other grams, and a contentless
-- index deleted with them would keep the old ones). Existing rows are indexed by the
-- migration's backfill (store/sqlite_grams.py).
CREATE TABLE memory_gram_text (
    num   INTEGER PRIMARY KEY,
    grams TEXT NOT NULL
);
CREATE VIRTUAL TABLE memories_grams USING fts5 (
    grams, content = 'memory_gram_text', content_rowid = 'num',
    tokenize = 'unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE memories_grams_vocab USING fts5vocab (memories_grams, 'row');
CREATE TRIGGER memory_gram_text_insert AFTER INSERT ON memory_gram_text BEGIN
    INSERT INTO memories_grams (rowid, grams) VALUES (new.num, new.grams);
END;
CREATE TRIGGER memory_gram_text_delete AFTER DELETE ON memory_gram_text BEGIN
    INSERT INTO memories_grams (memories_grams, rowid, grams) VALUES ('delete', old.num, old.grams);
END;
CREATE TRIGGER memories_grams_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memory_gram_text (num, grams)
        SELECT new.num, g FROM (SELECT lethe_grams(new.content) AS g) WHERE g != '';
END;
CREATE TRIGGER memories_grams_delete AFTER DELETE ON memories BEGIN
    DELETE FROM memory_gram_text WHERE num = old.num;
END;
CREATE TRIGGER memories_grams_update AFTER UPDATE OF content ON memories BEGIN
    DELETE FROM memory_gram_text WHERE num = old.num;
    INSERT INTO memory_gram_text (num, grams)
        SELECT new.num, g FROM (SELECT lethe_grams(new.content) AS g) WHERE g != '';
END;
CREATE TABLE context_gram_text (
    num   INTEGER PRIMARY KEY,
    grams TEXT NOT NULL
);
CREATE VIRTUAL TABLE context_grams USING fts5 (
    grams, content = 'context_gram_text', content_rowid = 'num',
    tokenize = 'unicode61 remove_diacritics 0'
);
CREATE VIRTUAL TABLE context_grams_vocab USING fts5vocab (context_grams, 'row');
CREATE TRIGGER context_gram_text_insert AFTER INSERT ON context_gram_text BEGIN
    INSERT INTO context_grams (rowid, grams) VALUES (new.num, new.grams);
END;
CREATE TRIGGER context_gram_text_delete AFTER DELETE ON context_gram_text BEGIN
    INSERT INTO context_grams (context_grams, rowid, grams) VALUES ('delete', old.num, old.grams);
END;
CREATE TRIGGER context_grams_insert AFTER INSERT ON memory_context BEGIN
    INSERT INTO context_gram_text (num, grams)
        SELECT new.num, g FROM (SELECT lethe_grams(new.content) AS g) WHERE g != '';
END;
CREATE TRIGGER context_grams_delete AFTER DELETE ON memory_context BEGIN
    DELETE FROM context_gram_text WHERE num = old.num;
END;
""",
        postgres="""
-- Full text for scripts without spaces: the twin of store/grams.py (a test holds them
-- equal). Every CJK character and every pair beside one, plus the Latin words and numbers
-- of a text that holds any CJK; positions in order, so ts_rank_cd can rank. Rows written
-- before this version are indexed by the migration's backfill (store/postgres_grams.py).
CREATE FUNCTION lethe_gram_tokens(doc text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    cjk_chars CONSTANT text := '\u1100-\u11ff\u3005-\u3007\u3041-\u3096\u309d-\u309f'
        || '\u30a1-\u30fa\u30fc-\u30ff\u3131-\u318e'
        || '\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\U00020000-\U0002fa1f';
    cjk CONSTANT text := '[' || cjk_chars || ']';
    latin_chars CONSTANT text := '0-9A-Za-z_\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f';
    latin CONSTANT text := '[' || latin_chars || ']';
    t text;
    run text;
    chars text[];
    n int;
    here boolean;
    word text;
    out text[] := ARRAY[]::text[];
BEGIN
    t := normalize(doc, NFKC);
    IF t !~ cjk THEN
        RETURN out;
    END IF;
    t := translate(t, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
    FOR run IN SELECT m[1] FROM regexp_matches(
        t, '([' || cjk_chars || latin_chars || ']+)', 'g') AS m
    LOOP
        chars := regexp_split_to_array(run, '');
        n := array_length(chars, 1);
        FOR i IN 1..n LOOP
            here := chars[i] ~ cjk;
            IF NOT here AND (i = 1 OR chars[i - 1] ~ cjk) THEN
                word := substring(substr(run, i) FROM '^' || latin || '+');
                IF length(word) <= 64 THEN  -- grams.MAX_WORD: a longer one is a blob
                    out := out || word;
                END IF;
            END IF;
            IF here THEN
                out := out || chars[i];
            END IF;
            IF i < n AND (here OR chars[i + 1] ~ cjk) THEN
                out := out || (chars[i] || chars[i + 1]);
            END IF;
        END LOOP;
    END LOOP;
    RETURN out;
END $$;
CREATE FUNCTION lethe_grams(doc text) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT string_agg('''' || tok || ''':' || least(pos, 16383), ' ' ORDER BY pos)::tsvector
    FROM unnest(lethe_gram_tokens(doc)) WITH ORDINALITY AS u(tok, pos)
$$;
CREATE FUNCTION lethe_grams_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.grams := lethe_grams(NEW.content);
    RETURN NEW;
END $$;
ALTER TABLE memories ADD COLUMN grams tsvector;
CREATE TRIGGER memories_grams BEFORE INSERT OR UPDATE OF content ON memories
    FOR EACH ROW EXECUTE FUNCTION lethe_grams_row();
CREATE INDEX memories_grams_index ON memories USING gin (grams);
ALTER TABLE memory_context ADD COLUMN grams tsvector;
CREATE INDEX memory_context_grams_index ON memory_context USING gin (grams);
CREATE TRIGGER memory_context_grams BEFORE INSERT OR UPDATE OF content ON memory_context
    FOR EACH ROW EXECUTE FUNCTION lethe_grams_row();
""",
    ),
    # 19: erasure receipts (issue 27): each purge's signed receipt, and the public halves of
    # the keys that signed them, so a receipt can be verified against its store.
    Migration(
        19,
        "receipt keys",
        sqlite="""
CREATE TABLE receipt_keys (
    key_id     TEXT PRIMARY KEY,
    public_key TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE receipts (
    id         TEXT PRIMARY KEY,
    at         REAL NOT NULL,
    plan_id    TEXT,
    status     TEXT NOT NULL CHECK (status IN ('erased', 'incomplete')),
    key_id     TEXT NOT NULL REFERENCES receipt_keys (key_id),
    body       TEXT NOT NULL CHECK (json_type(body) = 'object')
);
CREATE INDEX receipts_at ON receipts (at);
""",
        postgres="""
CREATE TABLE receipt_keys (
    key_id     TEXT PRIMARY KEY,
    public_key TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
);
CREATE TABLE receipts (
    id         TEXT PRIMARY KEY,
    at         DOUBLE PRECISION NOT NULL,
    plan_id    TEXT,
    status     TEXT NOT NULL CHECK (status IN ('erased', 'incomplete')),
    key_id     TEXT NOT NULL REFERENCES receipt_keys (key_id),
    body       TEXT NOT NULL
);
CREATE INDEX receipts_at ON receipts (at);
""",
    ),
    # 20: a held expiry (issue 43).
    Migration(
        20,
        "held expiry",
        sqlite="""
-- An expiry the person chose or confirmed is held: lengthening or removing it is confirmed
-- like a forget, and an agent's own time-to-live never moves it. Expiries from before this
-- version are not held (nothing recorded which of them a person confirmed, and holding an
-- agent's own one would stop its renewals, forgetting by surprise).
ALTER TABLE memories ADD COLUMN expiry_held INTEGER NOT NULL DEFAULT 0
    CHECK (expiry_held IN (0, 1));
""",
        postgres="""
ALTER TABLE memories ADD COLUMN expiry_held BOOLEAN NOT NULL DEFAULT FALSE;
""",
    ),
)

LATEST_VERSION = MIGRATIONS[-1].version

GRAMS_VERSION = 18
"""The migration that builds the gram index: the rows stored before it are indexed then."""

POSTGRES_BEFORE_ONE_LIST = {
    1: 6,
    2: 7,
    3: 8,
    4: 9,
    5: 10,
    6: 11,
    7: 13,
    8: 14,
    9: 15,
    10: 17,
    11: 18,
    12: 19,
    13: 20,
}
"""A PostgreSQL database's `schema_version` as it was numbered before the one list (no
`schema_list` in its meta) -> where it stands in the list: the last version whose
PostgreSQL body it has run (the versions after it up to the next body change nothing)."""

ONE_LIST_KEY = "schema_list"
"""The meta key that says a PostgreSQL database's `schema_version` is numbered by this list."""


def postgres_version(meta: dict[str, str]) -> int:
    """Where a PostgreSQL database stands in the list, from its meta (0: no schema yet)."""
    version = int(meta.get("schema_version", "0") or 0)
    if version and ONE_LIST_KEY not in meta:
        return POSTGRES_BEFORE_ONE_LIST.get(version, version)
    return version


def by_version(dialect: Dialect) -> dict[int, str]:
    """The bodies of one dialect by version (empty where it changes nothing)."""
    return {m.version: m.body(dialect) for m in MIGRATIONS}
