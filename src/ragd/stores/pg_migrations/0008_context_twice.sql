-- ragd PostgreSQL store, schema version 8: the lexical index counts a chunk's context line
-- twice (ragd.types.index_text: BM25F with the context line weighted 2).
-- The data step analyses every stored chunk again, its tsvector and its BM25 weights. Cached
-- results were ranked the old way: dropped. Chunks staged by an unfinished write carry the
-- old tsvector: dropped too, so that write fails its count check and is run again.
DELETE FROM query_cache;
DELETE FROM chunk_staging;
