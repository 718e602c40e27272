"""The Citus DDL (stores/pg_citus.sql) against a live ragd schema on one PostgreSQL node.

The plain section runs for real (and ragd keeps working after it); every name the DDL uses
is checked against the live schema; the constraint gaps docs/postgres-scale.md lists for the
hash layouts are derived from the live schema; the citus section runs only where the citus
extension is installed (skipped with the reason elsewhere)."""

from __future__ import annotations

import re

import pytest

from ragd import Document, Plan, retrieve
from ragd.collection import open_collection
from ragd.ingest.pipeline import ingest_documents
from ragd.stores import open_store
from ragd.stores.pg_citus import HASH_LAYOUT_GAPS, HASH_LAYOUTS, sections

psycopg = pytest.importorskip("psycopg")
from ragd.stores.postgres_schema import parse_store_url  # noqa: E402

DOCS = [Document("ear-1", "A license is required to export items subject to the EAR."),
        Document("pol-1", "Audit logs must be retained for 400 days.")]


@pytest.fixture
def live(pg_location, toy):
    """A ragd store with one collection written (chunk and BM25 tables exist), and a
    connection with its schema first on the search path."""
    coll = open_collection(pg_location, "c", toy, create=True)
    ingest_documents(DOCS, coll)
    coll.close()
    conninfo, options, _ = parse_store_url(pg_location)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{options.schema}", public')
        yield conn, options.schema


def _columns(conn, schema: str) -> dict[str, dict[str, str]]:
    """table → column → type of the store schema's tables."""
    out: dict[str, dict[str, str]] = {}
    for table, column, kind in conn.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = %s", (schema,)):
        out.setdefault(table, {})[column] = kind
    return out


def test_the_ddl_parses_into_its_sections():
    parts = sections()
    assert set(parts) == {"plain", "citus"}
    assert all(s.endswith(";") and "--" not in s for p in parts.values() for s in p)
    assert any("citus_schema_distribute" in s for s in parts["citus"])
    with pytest.raises(ValueError):
        sections("-- [plain]\nALTER TABLE x")


def test_every_table_and_column_the_ddl_names_exists(live):
    conn, schema = live
    columns = _columns(conn, schema)
    named = 0
    for statement in [s for p in sections().values() for s in p]:
        for table, column in re.findall(r"ALTER TABLE (\w+) ALTER COLUMN (\w+)", statement):
            assert column in columns.get(table, {}), f"{table}.{column} is not in ragd's schema"
            named += 1
        for table in re.findall(r"(?:create_\w+_table|citus_add_local_table_to_metadata)"
                                r"\('(\w+)'", statement):
            assert table in columns, f"{table} is not in ragd's schema"
            named += 1
    assert named >= 1


def test_the_plain_section_applies_and_ragd_works_after_it(live, pg_location, toy):
    conn, schema = live
    fk_sql = ("SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint "
              "WHERE contype = 'f' AND connamespace = %s::regnamespace")
    fks_before = sorted(conn.execute(fk_sql, (schema,)).fetchall())
    for statement in sections()["plain"]:
        conn.execute(statement)
    columns = _columns(conn, schema)
    assert columns["collections"]["id"] == "bigint"
    identity = conn.execute("SELECT is_identity, identity_generation FROM "
                            "information_schema.columns WHERE table_schema = %s AND "
                            "table_name = 'collections' AND column_name = 'id'",
                            (schema,)).fetchone()
    assert identity == ("YES", "BY DEFAULT")
    seq_type = conn.execute("SELECT s.seqtypid::regtype::text FROM pg_sequence s WHERE "
                            "s.seqrelid = pg_get_serial_sequence('collections', 'id')::regclass"
                            ).fetchone()[0]
    assert seq_type == "bigint"
    # Every foreign key survived the type change (int4 columns referencing the int8 id).
    fks = sorted(conn.execute(fk_sql, (schema,)).fetchall())
    assert fks == fks_before
    assert {t for t, ref in fks if ref == "collections"} >= {"documents", "query_cache",
                                                             "chunk_staging"}
    # ragd: the store reopens (migrations idempotent), old and new collections work.
    store = open_store(pg_location)
    try:
        old = open_collection(store, "c")
        assert retrieve("audit logs", Plan(k=1), old)[0].doc_id == "pol-1"
        new = open_collection(store, "d", toy, create=True)
        ingest_documents(DOCS, new)
        assert [c.doc_id for c in retrieve("export license", Plan(k=2, mode="lexical"), new)
                ][0] == "ear-1"
        store.drop_collection("d")
        assert [i.name for i in store.list_collections()] == ["c"]
    finally:
        store.close()


def _gaps(conn, schema: str, layout: dict[str, str]) -> set[str]:
    """Primary keys and unique constraints of the live schema without the layout's
    distribution column (and distributed tables without that column at all)."""
    columns = _columns(conn, schema)
    patterns = {name: re.compile("^" + name.replace("*", r"\d+") + "$") for name in layout}
    gaps: set[str] = set()
    for table in sorted(columns):
        name = next((n for n, p in patterns.items() if p.match(table)), None)
        if name is None:
            continue
        column = layout[name]
        if column not in columns[table]:
            gaps.add(f"{name}: no column {column}")
        for kind, cols in conn.execute(
                "SELECT c.contype, array_agg(a.attname::text ORDER BY k.ord) FROM pg_constraint c "
                "CROSS JOIN LATERAL unnest(c.conkey) WITH ORDINALITY k(attnum, ord) "
                "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum "
                "WHERE c.conrelid = %s::regclass AND c.contype IN ('p', 'u') "
                "GROUP BY c.oid, c.contype", (f'"{schema}"."{table}"',)):
            if column not in cols:
                label = "PRIMARY KEY" if kind == "p" else "UNIQUE"
                gaps.add(f"{name}: {label} ({', '.join(cols)})")
    return gaps


@pytest.mark.parametrize("layout", sorted(HASH_LAYOUTS))
def test_the_documented_key_gaps_are_the_live_schemas(live, layout):
    conn, schema = live
    assert _gaps(conn, schema, HASH_LAYOUTS[layout]) == HASH_LAYOUT_GAPS[layout]


def test_the_citus_section(live):
    conn, schema = live
    available = conn.execute("SELECT default_version FROM pg_available_extensions "
                             "WHERE name = 'citus'").fetchone()
    if available is None:
        pytest.skip("the citus extension is not installed on this PostgreSQL server: the "
                    "citus section of stores/pg_citus.sql cannot run here (its names are "
                    "checked by test_every_table_and_column_the_ddl_names_exists)")
    preload = conn.execute("SELECT current_setting('shared_preload_libraries')").fetchone()[0]
    if "citus" not in preload:  # pragma: no cover - needs citus
        pytest.skip("the citus extension is installed but not in shared_preload_libraries")
    conn.execute("CREATE EXTENSION IF NOT EXISTS citus")  # pragma: no cover - needs citus
    if conn.execute("SELECT count(*) FROM pg_dist_node").fetchone()[0] == 0:  # pragma: no cover
        conn.execute("SELECT citus_set_coordinator_host('localhost', "
                     "current_setting('port')::int)")  # a single node holds the shards
    for statement in sections()["plain"] + sections()["citus"]:  # pragma: no cover
        conn.execute(statement)
    kinds = dict(conn.execute(  # pragma: no cover
        "SELECT logicalrelid::regclass::text, colocationid FROM pg_dist_partition"))
    assert "collections" in kinds and len(set(kinds.values())) == 1  # pragma: no cover
