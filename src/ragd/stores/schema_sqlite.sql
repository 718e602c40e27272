-- ragd embedded store, schema version 5 (DESIGN §3). The lexical index is each
-- chunk's analysed terms (chunks.terms: int64 term hashes + uint16 counts, of its context
-- line twice, then its text: ragd.types.index_text),
-- turned into in-memory BM25 postings by the store (stores/lexical_index.py).
CREATE TABLE IF NOT EXISTS ragd_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS collections (
    id           INTEGER PRIMARY KEY,
    name         TEXT NOT NULL UNIQUE,
    embed_model  TEXT NOT NULL,
    embed_dims   INTEGER NOT NULL CHECK (embed_dims > 0),
    config       TEXT NOT NULL DEFAULT '{}',
    created_at   TEXT NOT NULL,
    data_version INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS documents (
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    doc_id        TEXT NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    source        TEXT NOT NULL DEFAULT '',
    metadata      TEXT NOT NULL DEFAULT '{}',
    content_hash  TEXT NOT NULL,
    version       INTEGER NOT NULL DEFAULT 1,
    ingested_at   TEXT NOT NULL,
    source_path   TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (collection_id, doc_id)
);

-- Schema version 4: where a document came from (the resolved path of its file).
CREATE INDEX IF NOT EXISTS documents_by_source ON documents (collection_id, source_path)
    WHERE source_path <> '';

-- AUTOINCREMENT: a rowid is never reused, so the in-memory vector cache can
-- apply many writes' deltas at once by rowid.
CREATE TABLE IF NOT EXISTS chunks (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    collection_id INTEGER NOT NULL,
    doc_id        TEXT NOT NULL,
    chunk_index   INTEGER NOT NULL CHECK (chunk_index >= 0),
    chunk_id      TEXT NOT NULL,
    section_id    TEXT,
    parent_id     TEXT,
    kind          TEXT NOT NULL DEFAULT 'chunk',
    context       TEXT NOT NULL DEFAULT '',
    text          TEXT NOT NULL,
    tags          TEXT NOT NULL DEFAULT '[]',
    metadata      TEXT NOT NULL DEFAULT '{}',
    tokens        INTEGER NOT NULL DEFAULT 0,
    start_offset  INTEGER,
    end_offset    INTEGER,
    page          INTEGER,
    embedding     BLOB NOT NULL,
    terms         BLOB NOT NULL DEFAULT x'',
    UNIQUE (collection_id, doc_id, chunk_index),
    FOREIGN KEY (collection_id, doc_id)
        REFERENCES documents(collection_id, doc_id) ON DELETE CASCADE
);

CREATE INDEX IF NOT EXISTS chunks_by_section ON chunks (collection_id, section_id);

CREATE TABLE IF NOT EXISTS chunk_tags (
    chunk_rowid   INTEGER NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    collection_id INTEGER NOT NULL,
    tag           TEXT NOT NULL,
    PRIMARY KEY (chunk_rowid, tag)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS chunk_tags_by_tag ON chunk_tags (collection_id, tag, chunk_rowid);

-- A query cache shared by every process (schema version 3): an entry is valid while its
-- collection's data_version is the one it was computed at and it is younger than the
-- caller's time to live.
CREATE TABLE IF NOT EXISTS query_cache (
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    key           TEXT NOT NULL,
    data_version  INTEGER NOT NULL,
    created_at    REAL NOT NULL,
    value         TEXT NOT NULL,
    PRIMARY KEY (collection_id, key)
);


-- Schema version 4: the chunks of a large document while it is embedded and written in
-- batches, each batch its own short transaction, and one transaction then moves them into
-- chunks, so the document is still replaced all at once. A crashed write's rows are
-- cleared by the next staging of the same document, or after a day.
CREATE TABLE IF NOT EXISTS chunk_staging (
    job           TEXT NOT NULL,
    created_at    REAL NOT NULL,
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    doc_id        TEXT NOT NULL,
    chunk_index   INTEGER NOT NULL CHECK (chunk_index >= 0),
    chunk_id      TEXT NOT NULL,
    section_id    TEXT,
    parent_id     TEXT,
    kind          TEXT NOT NULL DEFAULT 'chunk',
    context       TEXT NOT NULL DEFAULT '',
    text          TEXT NOT NULL,
    tags          TEXT NOT NULL DEFAULT '[]',
    metadata      TEXT NOT NULL DEFAULT '{}',
    tokens        INTEGER NOT NULL DEFAULT 0,
    start_offset  INTEGER,
    end_offset    INTEGER,
    page          INTEGER,
    embedding     BLOB NOT NULL,
    terms         BLOB NOT NULL DEFAULT x'',
    PRIMARY KEY (job, chunk_index)
);

CREATE INDEX IF NOT EXISTS chunk_staging_by_document ON chunk_staging (collection_id, doc_id)