-- ragd PostgreSQL store, schema version 6: where a document came from, and staged chunks.
--
-- documents.source_path is the resolved path of the file a document was loaded from (empty
-- for a document given through the API): a different file under a stored doc_id is refused,
-- the same file reached through another root keeps its doc_id, and `ragd ingest --prune`
-- removes the documents whose file is gone.
--
-- chunk_staging holds the chunks of a large document while it is embedded and written in
-- batches; one transaction then moves them into the collection's chunk table, so the
-- document is still replaced all at once. UNLOGGED: a crash empties it, which is what a
-- crashed write's staged rows are good for.
ALTER TABLE documents ADD COLUMN source_path text NOT NULL DEFAULT '';
CREATE INDEX documents_by_source ON documents (collection_id, source_path)
    WHERE source_path <> '';

CREATE UNLOGGED TABLE chunk_staging (
    job           text COLLATE "C" NOT NULL,
    created_at    double precision NOT NULL,
    collection_id integer NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    doc_id        text COLLATE "C" NOT NULL,
    chunk_index   integer NOT NULL CHECK (chunk_index >= 0),
    chunk_id      text NOT NULL,
    section_id    text COLLATE "C",
    parent_id     text,
    kind          text NOT NULL DEFAULT 'chunk',
    context       text NOT NULL DEFAULT '',
    text          text NOT NULL,
    tags          text[] NOT NULL DEFAULT '{}',
    metadata      jsonb NOT NULL DEFAULT '{}',
    tokens        integer NOT NULL DEFAULT 0,
    start_offset  integer,
    end_offset    integer,
    page          integer,
    embedding     vector NOT NULL,
    tsv           tsvector NOT NULL,
    PRIMARY KEY (job, chunk_index)
);
CREATE INDEX chunk_staging_by_document ON chunk_staging (collection_id, doc_id);
