-- ragd PostgreSQL store, schema version 7: BM25 ranking (see stores/pg_bm25.py).
--
-- Live chunk count and total length per collection, kept by the triggers of each
-- collection's weight table bm25_<id>, the average length its weights were written with,
-- and the rows written or deleted since they were (last) all written with it.
-- The data step then creates bm25_<id> and bm25_df_<id> for every existing collection and
-- fills them from the stored chunk texts.
ALTER TABLE collections ADD COLUMN bm25_rows bigint NOT NULL DEFAULT 0,
                        ADD COLUMN bm25_length bigint NOT NULL DEFAULT 0,
                        ADD COLUMN bm25_avgdl double precision,
                        ADD COLUMN bm25_changes bigint NOT NULL DEFAULT 0;
