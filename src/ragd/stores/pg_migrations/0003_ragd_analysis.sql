-- ragd PostgreSQL store, schema version 3: the lexical index holds ragd's own terms.
--
-- Each chunk's tsvector is now computed by ragd (ragd.analysis, the SQLite store's terms,
-- sent in binary by ragd.stores.pg_tsvector) instead of generated on the server by
-- to_tsvector over ragd_fold. Both backends then match the same chunks for a query, and a
-- bulk load no longer spends most of its server time in the text search parser.
--
-- Here every existing chunk table keeps its tsv column as a plain column; right after this
-- script, in the same transaction, ragd recomputes the stored values with its analysis
-- (postgres_sql.reanalyse). The server-side analysis objects are dropped.
DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT c.relname FROM pg_class c
             JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tsv'
             WHERE c.relnamespace = current_schema()::regnamespace
               AND c.relkind = 'r' AND c.relname ~ '^chunks_[0-9]+$' AND a.attgenerated = 's'
    LOOP
        EXECUTE format('ALTER TABLE %I ALTER COLUMN tsv DROP EXPRESSION', t.relname);
    END LOOP;
END
$$;

DROP AGGREGATE ragd_tsquery_or(tsquery);
DROP TEXT SEARCH CONFIGURATION ragd_english;
DROP TEXT SEARCH DICTIONARY ragd_english_stem;
DROP FUNCTION ragd_fold(text);
