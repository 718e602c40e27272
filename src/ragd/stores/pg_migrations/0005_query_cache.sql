-- ragd PostgreSQL store, schema version 5: a query cache shared by every process.
--
-- A cached result is valid while its collection's data_version is the one it was computed
-- at (every write bumps it, so any ingest or delete invalidates the collection's entries)
-- and it is younger than the caller's time to live. Keys are the caller's (a hash of the
-- query, its context and the plan); values are JSON text.
CREATE TABLE query_cache (
    collection_id integer NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    key           text COLLATE "C" NOT NULL,
    data_version  bigint NOT NULL,
    created_at    double precision NOT NULL,
    value         text NOT NULL,
    PRIMARY KEY (collection_id, key)
);
