-- ragd PostgreSQL store, schema version 4: chunk rows are stored inline up to a full page.
--
-- With PostgreSQL's default toast_tuple_target (about 2 kB) a typical chunk row (text,
-- tsvector and a 384-dimension vector: about 3.3 kB) was compressed and partly moved to the
-- TOAST table on every insert: about 40 µs of a bulk load's server time per row, for a
-- total size only 10 % smaller. At 8160 bytes a row stays whole in its heap page unless it
-- is longer than that, and ranking a lexical match reads its tsvector without detoasting.
-- Rows already stored keep their layout; new and rewritten rows get the new one.
DO $$
DECLARE
    t record;
BEGIN
    FOR t IN SELECT c.relname FROM pg_class c
             WHERE c.relnamespace = current_schema()::regnamespace
               AND c.relkind = 'r' AND c.relname ~ '^chunks_[0-9]+$'
    LOOP
        EXECUTE format('ALTER TABLE %I SET (toast_tuple_target = 8160)', t.relname);
    END LOOP;
END
$$;
