-- ragd PostgreSQL store, schema version 8: the lexical index counts a chunk's context line
-- twice (ragd.types.index_text: BM25F with the context line weighted 2).
-- No DDL: the data step analyses every chunk again, its tsvector and its BM25 weights.
SELECT 1;
