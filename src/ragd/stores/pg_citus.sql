-- ragd's PostgreSQL store on a Citus cluster: one colocation group per store schema.
-- docs/postgres-scale.md says why this layout and what the others would need.
--
-- Run on the coordinator, by hand, after ragd has created and migrated the store
-- (`ragd store init --store URL`), with the store's schema first on search_path
-- (SET search_path TO ragd, public). Statements end with ";" at the end of a line; the
-- "-- [plain]" section runs on any PostgreSQL (and ragd works unchanged after it), the
-- "-- [citus]" section needs the citus extension (12.0 or later: schema-based sharding).
--
-- Layout: citus_schema_distribute turns every table of the schema into a single-shard
-- distributed table of one colocation group, placed on one node and moved as a unit by
-- the rebalancer; a table ragd creates there later (chunks_<id>, bm25_<id>, bm25_df_<id> of
-- a new collection) joins the group when it is created. Every statement ragd sends touches
-- one store schema, so each is routed whole to the node holding it: primary keys, unique
-- constraints, foreign keys, triggers and ON DELETE CASCADE keep working as on one server,
-- and no key needs a distribution column (single-shard tables have none). To spread the
-- load, give tenants or large collections stores of their own (?schema=NAME in the store URL).

-- [plain]
-- Citus refuses identity columns narrower than bigint in any table it manages
-- (create_distributed_table, create_reference_table, citus_add_local_table_to_metadata and
-- schema distribution alike). collections.id is the store's only identity column; the
-- integer collection_id columns that reference it stay valid (int4 -> int8 foreign keys),
-- and ids stay small. A rewrite of the collections table only (a row per collection).
ALTER TABLE collections ALTER COLUMN id TYPE bigint;

-- [citus]
-- Each collection's BM25 weight table keeps its document frequencies and the collection's
-- counters in the writing transaction with statement triggers (stores/pg_bm25.py). Citus
-- distributes a table that has triggers only with this setting on, and runs the trigger
-- on the node holding the shard: its statements touch only tables of the same schema,
-- i.e. of the same colocation group and node, the case Citus executes. Set it on every
-- node as well (docs/postgres-scale.md), so triggers of collections created later fire.
SET citus.enable_unsafe_triggers TO on;
SELECT citus_schema_distribute(current_schema()::regnamespace);
