"""Numbered schema migrations for the PostgreSQL store.

Like the SQLite store's: a migration is appended, never edited; version N turns a version N-1
database into version N inside one transaction, and `lethe_meta.schema_version` records where
a database stands. Version 1 is the SQLite store's schema as of its version 7, in PostgreSQL's
terms: `jsonb` metadata, a `vector(dim)` column with an HNSW index (pgvector) for vectors, a
generated `tsvector` column with a GIN index for full text, and a trigger that keeps audit
events append-only (a purge may only redact their content-bearing parts).

`{dim}` is filled in with the embedder's dimension when the database is created: pgvector's
HNSW index needs a fixed one.
"""

from __future__ import annotations

APPLICATION_ID = "lethe"

MIGRATIONS: dict[int, str] = {
    1: """
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
    # Every recall updates its hits' access statistics. With those columns in an index, no
    # such update can be HOT, so each one wrote new entries into every index of the row,
    # the HNSW graph included (~16 ms per recall at 100k memories). Out of the index, and
    # with room left on each page, the update stays on the page and touches no index.
    2: """
DROP INDEX memories_decay;
CREATE INDEX memories_decay ON memories (namespace, status, importance, created_at, layer, id);
ALTER TABLE memories SET (fillfactor = 85);
""",
    # Versions: an update never destroys (see the SQLite store's migration 8).
    3: """
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
    # Work a committed change still owes outside its transaction (see the SQLite store's 9).
    4: """
CREATE TABLE owed_work (
    id         BIGSERIAL PRIMARY KEY,
    created_at DOUBLE PRECISION NOT NULL,
    work       JSONB NOT NULL CHECK (jsonb_typeof(work) = 'object')
);
""",
    # Expiry chosen by the person (see the SQLite store's migration 10).
    5: """
ALTER TABLE memories ADD COLUMN expires_at DOUBLE PRECISION;
ALTER TABLE memories ADD COLUMN expiry_set_by TEXT;
ALTER TABLE memories ADD COLUMN expiry_set_at DOUBLE PRECISION;
ALTER TABLE memory_versions ADD COLUMN expires_at DOUBLE PRECISION;
CREATE INDEX memories_expiry ON memories (expires_at)
    WHERE status = 'active' AND expires_at IS NOT NULL;
""",
    6: """
-- Recall as of a past moment: an earlier state keeps the vector it had (see SQLite's 11).
ALTER TABLE memory_versions ADD COLUMN embedding vector({dim});
CREATE INDEX memory_versions_unembedded ON memory_versions (memory_id) WHERE embedding IS NULL;
CREATE INDEX memory_versions_span ON memory_versions (valid_from, valid_until);
""",
    7: """
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
    8: """
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
    9: """
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
    10: """
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
    11: """
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
    # 12: erasure receipts (issue 27), as SQLite's migration 19.
    12: """
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
    # 13: a held expiry (issue 43), as SQLite's migration 20.
    13: """
ALTER TABLE memories ADD COLUMN expiry_held BOOLEAN NOT NULL DEFAULT FALSE;
""",
}

LATEST_VERSION = max(MIGRATIONS)

MIGRATION_LOCK = 0x6C65746865
"""`pg_advisory_xact_lock` key: servers opening one database at once migrate it one by one."""

WRITE_LOCK = 0x6C65746866
"""`pg_advisory_xact_lock` key taken by every write transaction: writers on one database run
one at a time, as on SQLite, so the engine's check-then-change steps (is it still live? is
this the pending confirmation?) see every earlier commit and no later one."""
