"""SQL of the PostgreSQL store: per-collection DDL, filters, searches, migrations.

Every value reaches PostgreSQL as a bound parameter. The only names composed into
SQL text are ``chunks_<collection id>`` (an integer the store itself assigned) and
index names derived from it, always through :class:`psycopg.sql.Identifier`; the
schema is set once per connection through ``search_path`` from a name validated
against ``[a-z_][a-z0-9_]*``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from ..errors import StoreError, UsageError
from ..types import Filters, index_text
from .pg_tsvector import TsVector, TsVectorDumper, tsvectors

SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")
MIGRATION_LOCK = 0x72616764  # pg_advisory_xact_lock key ("ragd") serialising migrations
HNSW_MAX_DIMS = 2000          # vector HNSW limit; up to 4000 dims are indexed as halfvec
HALFVEC_MAX_DIMS = 4000
PLAIN_MAX_DIMS = 1600         # vectors up to this size stay in the row (never TOASTed)

CHUNK_COLUMNS = ("doc_id", "chunk_index", "chunk_id", "section_id", "parent_id", "kind",
                 "context", "text", "tags", "metadata", "tokens", "start_offset",
                 "end_offset", "page")
WRITE_COLUMNS = ("collection_id",) + CHUNK_COLUMNS + ("embedding", "tsv")
"""The columns a write fills, in the order of its rows (the bulk COPY reads their types
from the table)."""


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, SQL) of every bundled migration, in order."""
    folder = resources.files("ragd.stores") / "pg_migrations"
    out = []
    for entry in folder.iterdir():
        match = re.match(r"^(\d{4})_(\w+)\.sql$", entry.name)
        if match:
            out.append((int(match.group(1)), match.group(2), entry.read_text("utf-8")))
    return sorted(out)


def chunk_table(cid: int) -> sql.Identifier:
    return sql.Identifier(f"chunks_{int(cid)}")


def settle_gin(cid: int) -> sql.Composed:
    """Move the pending entries of a collection's GIN indexes (chunk table and BM25 weights)
    into their trees. A GIN index takes inserts into an unsorted pending list (up to
    ``gin_pending_list_limit``, 4 MB) that every search through it reads whole until
    VACUUM or an overflow merges it: after a bulk write that made a lexical search three
    times slower (SciFact, 6,922 chunks: p50 22 → 6.5 ms once merged). Run after each
    committed write, so searches never wait for autovacuum. Needs the indexes' owner."""
    return sql.SQL(
        "SELECT coalesce(sum(gin_clean_pending_list(i.indexrelid)), 0) FROM pg_index i "
        "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
        "WHERE a.amname = 'gin' AND i.indrelid IN (SELECT oid FROM pg_class WHERE oid = "
        "to_regclass({chunks}) OR oid = to_regclass({bm25}))").format(
        chunks=sql.Literal(f"chunks_{int(cid)}"), bm25=sql.Literal(f"bm25_{int(cid)}"))


def index_plan(dims: int, m: int, ef_construction: int) -> dict[str, Any]:
    """How a collection of ``dims`` is indexed: HNSW on vector (≤ 2000 dims), on a halfvec
    expression (≤ 4000), or not at all (exact search only)."""
    if dims <= HNSW_MAX_DIMS:
        kind = "hnsw"
    elif dims <= HALFVEC_MAX_DIMS:
        kind = "hnsw_halfvec"
    else:
        kind = "none"
    return {"kind": kind, "m": int(m), "ef_construction": int(ef_construction)}


def distance_expr(index: dict[str, Any], dims: int) -> sql.Composable:
    """``<embedding> <=> %(q)s`` in the form the collection's HNSW index can serve."""
    if index.get("kind") == "hnsw_halfvec":
        return sql.SQL("(c.embedding::halfvec({d}) <=> %(q)s::vector::halfvec({d}))").format(
            d=sql.Literal(int(dims)))
    return sql.SQL("(c.embedding <=> %(q)s)")


def create_chunk_table(cid: int, dims: int) -> sql.Composed:
    """A collection's chunk table and its search indexes (the HNSW index comes separately).

    The embedding is stored PLAIN (inline, uncompressed) when it fits a page beside the
    row's TOAST pointers: pgvector's default lets a long chunk's vector move out of line,
    and every distance computed from the row would then fetch it from the TOAST table.
    Rows stay whole up to a full page (``toast_tuple_target = 8160``, schema version 4):
    compressing and moving the text and tsvector of a typical 3 kB row cost more server
    time on a bulk load than anything but the GIN index, and saved little space.
    """
    t = chunk_table(cid)
    return sql.SQL("""
CREATE TABLE {t} (
    collection_id integer NOT NULL DEFAULT {cid} CHECK (collection_id = {cid}),
    doc_id        text COLLATE "C" NOT NULL,
    chunk_index   integer NOT NULL CHECK (chunk_index >= 0),
    chunk_id      text NOT NULL,
    section_id    text COLLATE "C",
    parent_id     text,
    kind          text NOT NULL DEFAULT 'chunk',
    context       text NOT NULL DEFAULT '',
    text          text NOT NULL,
    tags          text[] NOT NULL DEFAULT '{{}}',
    metadata      jsonb NOT NULL DEFAULT '{{}}',
    tokens        integer NOT NULL DEFAULT 0,
    start_offset  integer,
    end_offset    integer,
    page          integer,
    embedding     vector({dims}) NOT NULL,
    tsv           tsvector NOT NULL,
    PRIMARY KEY (collection_id, doc_id, chunk_index),
    FOREIGN KEY (collection_id, doc_id) REFERENCES documents (collection_id, doc_id)
        ON DELETE CASCADE
) WITH (toast_tuple_target = 8160);
{storage}
CREATE INDEX {tsv} ON {t} USING gin (tsv);
CREATE INDEX {tags} ON {t} USING gin (tags);
CREATE INDEX {meta} ON {t} USING gin (metadata jsonb_path_ops);
CREATE INDEX {sect} ON {t} (section_id) WHERE section_id IS NOT NULL;
""").format(t=t, cid=sql.Literal(int(cid)), dims=sql.Literal(int(dims)),
            storage=sql.SQL("ALTER TABLE {} ALTER COLUMN embedding SET STORAGE PLAIN;").format(t)
            if dims <= PLAIN_MAX_DIMS else sql.SQL(""),
            tsv=sql.Identifier(f"chunks_{cid}_tsv"), tags=sql.Identifier(f"chunks_{cid}_tags"),
            meta=sql.Identifier(f"chunks_{cid}_meta"),
            sect=sql.Identifier(f"chunks_{cid}_section"))


def vector_index_name(cid: int) -> sql.Identifier:
    return sql.Identifier(f"chunks_{int(cid)}_hnsw")


def create_vector_index(cid: int, dims: int, index: dict[str, Any]) -> sql.Composed | None:
    """The HNSW index of a chunk table (None when the dimension is too large for one)."""
    kind = index.get("kind")
    if kind not in ("hnsw", "hnsw_halfvec"):
        return None
    column = (sql.SQL("embedding vector_cosine_ops") if kind == "hnsw" else
              sql.SQL("(embedding::halfvec({d})) halfvec_cosine_ops").format(d=sql.Literal(dims)))
    return sql.SQL("CREATE INDEX IF NOT EXISTS {name} ON {t} USING hnsw ({column}) "
                   "WITH (m = {m}, ef_construction = {efc})").format(
        name=vector_index_name(cid), t=chunk_table(cid), column=column,
        m=sql.Literal(int(index["m"])), efc=sql.Literal(int(index["ef_construction"])))


# -- store URL, options, migrations -----------------------------------------------------------
SCHEMA_VERSION = max(v for v, _, _ in migrations())


@dataclass(frozen=True)
class PgOptions:
    """The ragd options of a store URL (see the module docstring)."""

    schema: str = "ragd"
    ef_search: int = 40
    hnsw_m: int = 16
    hnsw_ef_construction: int = 64
    search: str = "auto"
    iterative_scan: str = "relaxed_order"
    max_scan_tuples: int = 20000
    exact_below: int = 500
    lexical_rank: str = "bm25"
    bm25_budget: int = 4000
    pool_min: int = 1
    pool_max: int = 10

    def __post_init__(self) -> None:
        if not SCHEMA_NAME.match(self.schema):
            raise UsageError(f"store option schema={self.schema!r}: use lower-case letters, "
                             "digits and _ (not starting with a digit)")
        if self.search not in ("auto", "exact"):
            raise UsageError(f"store option search={self.search!r}: use auto or exact")
        if self.lexical_rank not in ("bm25", *RANKERS):
            raise UsageError(f"store option lexical_rank={self.lexical_rank!r}: use "
                             f"bm25, {' or '.join(RANKERS)}")
        if self.iterative_scan not in ("strict_order", "relaxed_order", "off"):
            raise UsageError(f"store option iterative_scan={self.iterative_scan!r}: use "
                             "strict_order, relaxed_order or off")
        if self.bm25_budget < 0:
            raise UsageError("store option bm25_budget must be >= 0 (0: no limit)")
        for name in ("ef_search", "hnsw_m", "hnsw_ef_construction", "max_scan_tuples",
                     "pool_max"):
            if getattr(self, name) < 1:
                raise UsageError(f"store option {name} must be >= 1")


_INT_OPTIONS = {f.name for f in fields(PgOptions) if f.type in ("int", int)}


def parse_store_url(url: str) -> tuple[str, PgOptions, str]:
    """(libpq connection URL, ragd options, URL to show with the password hidden)."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise UsageError(f"not a PostgreSQL store URL: {url!r}")
    kept, opts = [], {}
    names = {f.name for f in fields(PgOptions)}
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key in names:
            try:
                opts[key] = int(value) if key in _INT_OPTIONS else value
            except ValueError:
                raise UsageError(f"store option {key}={value!r} must be an integer") from None
        else:
            kept.append((key, value))
    query = urlencode(kept, quote_via=quote, safe="/")
    conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, query, parts.fragment))
    shown = parts.netloc
    if parts.password is not None:
        shown = shown.replace(":" + parts.password + "@", ":***@", 1)
    display = urlunsplit((parts.scheme, shown, parts.path, parts.query, ""))
    return conninfo, PgOptions(**opts), display


def message(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", text)[:3])


def reanalyse(conn: psycopg.Connection, batch: int = 2048) -> None:
    """Recompute the stored tsvector of every chunk table with ragd's analysis (the data step
    of migration 3), in ``batch``-row steps through a temporary table."""
    conn.adapters.register_dumper(TsVector, TsVectorDumper)
    tables = [r[0] for r in conn.execute(
        "SELECT c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace "
        "AND c.relkind = 'r' AND c.relname ~ '^chunks_[0-9]+$' ORDER BY c.relname")]
    conn.execute('CREATE TEMP TABLE IF NOT EXISTS ragd_reanalysed (doc_id text COLLATE "C", '
                 "chunk_index integer, tsv tsvector) ON COMMIT DROP")
    for name in tables:
        table = sql.Identifier(name)
        with conn.cursor(name="ragd_reanalyse") as rows:
            rows.execute(sql.SQL("SELECT doc_id, chunk_index, context, text FROM {} "
                                 "ORDER BY doc_id, chunk_index").format(table))
            while chunk_rows := rows.fetchmany(batch):
                values = tsvectors([index_text(ctx, text) for _, _, ctx, text in chunk_rows])
                with conn.cursor().copy("COPY ragd_reanalysed FROM STDIN (FORMAT BINARY)") as out:
                    out.set_types(["text", "int4", "tsvector"])
                    for (doc_id, index, _, _), tsv in zip(chunk_rows, values):
                        out.write_row((doc_id, index, tsv))
        conn.execute(sql.SQL("UPDATE {} c SET tsv = r.tsv FROM ragd_reanalysed r "
                             "WHERE c.doc_id = r.doc_id AND c.chunk_index = r.chunk_index"
                             ).format(table))
        conn.execute("TRUNCATE ragd_reanalysed")


def _bm25_weights(conn: psycopg.Connection) -> None:
    from .pg_bm25 import upgrade  # pg_bm25 builds on this module

    upgrade(conn)


def _context_twice(conn: psycopg.Connection) -> None:
    from .pg_bm25 import reindex  # pg_bm25 builds on this module

    reanalyse(conn)
    reindex(conn)


DATA_STEPS = {3: reanalyse, 7: _bm25_weights, 8: _context_twice}
"""Python steps run right after a migration's SQL, in its transaction."""


@dataclass(frozen=True)
class ServerInfo:
    schema_version: int
    server_version: str
    pgvector_version: str
    search_path: str


def _search_path(conn: psycopg.Connection, schema: str) -> str:
    """The session's search path with the store's schema first."""
    base_path = conn.execute("SELECT current_setting('search_path')").fetchone()[0]
    return f'"{schema}", {base_path}' if base_path.strip() else f'"{schema}"'


def read_only_reason(conn: psycopg.Connection) -> str:
    """Why this session cannot write ("" when it can): a server in recovery (a hot-standby
    read replica), or a session whose transactions are read-only by default."""
    standby, read_only = conn.execute(
        "SELECT pg_is_in_recovery(), current_setting('default_transaction_read_only') = 'on'"
    ).fetchone()
    if standby:
        return "the server is a read replica (in recovery)"
    return "the session's transactions are read-only (default_transaction_read_only)" \
        if read_only else ""


def inspect(conn: psycopg.Connection, schema: str) -> ServerInfo:
    """What :func:`migrate` would report, read without writing: for a server that refuses
    writes. The schema must already be at this ragd's version (migrate the primary first)."""
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    if row is None:
        raise StoreError("the pgvector extension is not installed in this database, and a "
                         "read-only server cannot create it")
    found = conn.execute("SELECT to_regclass(%s)",
                         (sql.Identifier(schema, "schema_version").as_string(conn),)).fetchone()[0]
    if found is None:
        raise StoreError(f"schema {schema!r} holds no ragd store, and a read-only server cannot "
                         "create one: run `ragd store init` against the primary")
    current = conn.execute(sql.SQL("SELECT coalesce(max(version), 0) FROM {}").format(
        sql.Identifier(schema, "schema_version"))).fetchone()[0]
    if current != SCHEMA_VERSION:
        hint = ("upgrade ragd" if current > SCHEMA_VERSION else
                "migrate it on the primary (`ragd store init`), then search the replica")
        raise StoreError(f"schema {schema!r} is at version {current}; this ragd reads version "
                         f"{SCHEMA_VERSION} and a read-only server cannot migrate it: {hint}")
    search_path = _search_path(conn, schema)
    server = conn.execute("SELECT current_setting('server_version')").fetchone()[0]
    return ServerInfo(current, server, row[0], search_path)


def migrate(conn: psycopg.Connection, schema: str) -> ServerInfo:
    """Bring ``schema`` to the latest version (idempotent; concurrent callers serialise on
    an advisory lock). Creates the ``vector`` extension when it is missing."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                           ).fetchone()
        if row is None:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                               ).fetchone()
        pgvector = row[0]
        if version_tuple(pgvector) < (0, 7, 0):
            raise StoreError(f"pgvector {pgvector} is too old: ragd needs 0.7 or later "
                             "(0.8 or later for iterative index scans)")
        encoding = conn.execute("SELECT current_setting('server_encoding')").fetchone()[0]
        if encoding.upper() not in ("UTF8", "UTF-8"):
            raise StoreError(f"the database's encoding is {encoding}; ragd needs a UTF8 "
                             "database (CREATE DATABASE ... ENCODING 'UTF8')")
        search_path = _search_path(conn, schema)
        conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
        conn.execute("SELECT set_config('search_path', %s, true)", (search_path,))
        conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, "
                     "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())")
        current = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version"
                               ).fetchone()[0]
        if current > SCHEMA_VERSION:
            raise StoreError(f"schema {schema!r} is at version {current}; this ragd supports "
                             f"up to {SCHEMA_VERSION}: upgrade ragd")
        for version, name, text in migrations():
            if version > current:
                conn.execute(text)
                if version in DATA_STEPS:
                    DATA_STEPS[version](conn)
                    for (cid,) in conn.execute("SELECT id FROM collections").fetchall():
                        conn.execute(settle_gin(int(cid)))   # the rows it rewrote
                conn.execute("INSERT INTO schema_version (version, name) VALUES (%s, %s)",
                             (version, name))
                current = version
        server = conn.execute("SELECT current_setting('server_version')").fetchone()[0]
    return ServerInfo(current, server, pgvector, search_path)



# -- filters ---------------------------------------------------------------------------------
class _Params:
    """Named parameters ``%(f0)s``, ``%(f1)s``, ... collected while composing a filter."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def __call__(self, value: Any) -> sql.Placeholder:
        name = f"f{len(self.values)}"
        self.values[name] = value
        return sql.Placeholder(name)


def _metadata_clause(key: str, value: Any, p: _Params) -> sql.Composable:
    """One top-level metadata equality, with SQLite's JSON-type semantics.

    ``true`` matches only true (never 1), ``null`` only an explicit null, a string only
    that string. An integer (or a float with an integral value, as in SQLite) matches a
    stored integer of that value, not a stored ``2020.0``; a non-integral float matches
    that number. A list or object must be equal as JSON (``jsonb`` equality), not merely
    contained. The containment test comes first so the GIN index can serve it.
    """
    if value is None or isinstance(value, (bool, str)):
        return sql.SQL("c.metadata @> {}").format(p(Jsonb({key: value})))
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int):
        return sql.SQL("(c.metadata @> {} AND scale((c.metadata -> {})::numeric) = 0)").format(
            p(Jsonb({key: value})), p(key))
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise UsageError(f"metadata filter value {value!r} is not a JSON value")
        return sql.SQL("c.metadata @> {}").format(p(Jsonb({key: value})))
    if isinstance(value, tuple):
        value = list(value)
    if isinstance(value, (list, dict)):
        return sql.SQL("(c.metadata @> {} AND (c.metadata -> {}) = {})").format(
            p(Jsonb({key: value})), p(key), p(Jsonb(value)))
    raise UsageError(f"metadata filter value {value!r} is not a JSON value")


def filter_sql(filters: Filters) -> tuple[sql.Composable, dict[str, Any]]:
    """`` AND ...`` conditions on alias ``c`` for ``filters`` (empty when none) and their
    named parameters."""
    p = _Params()
    clauses: list[sql.Composable] = []
    if filters.tags_any:
        clauses.append(sql.SQL("c.tags && {}::text[]").format(p(list(filters.tags_any))))
    if filters.tags_all:
        clauses.append(sql.SQL("c.tags @> {}::text[]").format(p(sorted(set(filters.tags_all)))))
    for key in sorted(filters.metadata):
        clauses.append(_metadata_clause(key, filters.metadata[key], p))
    if not clauses:
        return sql.SQL(""), {}
    return sql.SQL(" AND ") + sql.SQL(" AND ").join(clauses), p.values


# -- searches --------------------------------------------------------------------------------
def vector_query(cid: int, dist: sql.Composable, where: sql.Composable, *, exact: bool,
                 relaxed: bool) -> sql.Composed:
    """Top ``%(k)s`` by cosine distance to ``%(q)s``; ties by (doc_id, chunk_index).

    Index path: ``ORDER BY distance`` is served by HNSW (pgvector's iterative scan
    continues until the filter has let enough rows through) and an incremental sort breaks
    ties. Relaxed iterative order returns rows slightly out of order, so ``%(k_inner)s``
    (a few more than ``k``) are taken inside a materialised CTE and re-sorted outside it,
    ties by key. Exact path: distances computed in a materialised CTE, which no index can
    serve, then sorted.
    """
    t = chunk_table(cid)
    if exact or relaxed:
        inner = sql.SQL("") if exact else sql.SQL(" ORDER BY {} LIMIT %(k_inner)s").format(dist)
        return sql.SQL(
            "WITH m AS MATERIALIZED (SELECT c.doc_id, c.chunk_index, {dist} AS distance "
            "FROM {t} c WHERE TRUE{where}{inner}) "
            "SELECT doc_id, chunk_index, distance FROM m "
            "ORDER BY distance, doc_id, chunk_index LIMIT %(k)s").format(
            dist=dist, t=t, where=where, inner=inner)
    return sql.SQL(
        "SELECT c.doc_id, c.chunk_index, {dist} AS distance FROM {t} c WHERE TRUE{where} "
        "ORDER BY {dist}, c.doc_id, c.chunk_index LIMIT %(k)s").format(
        dist=dist, t=t, where=where)


def count_query(cid: int, where: sql.Composable) -> sql.Composed:
    """How many rows pass the filter, counting no further than ``%(cap)s``."""
    return sql.SQL("SELECT count(*) FROM (SELECT 1 FROM {t} c WHERE TRUE{where} "
                   "LIMIT %(cap)s) s").format(t=chunk_table(cid), where=where)


RANKERS = {"ts_rank_cd": sql.SQL("ts_rank_cd"), "ts_rank": sql.SQL("ts_rank")}


def lexical_query(cid: int, where: sql.Composable, rank: str = "ts_rank_cd") -> sql.Composed:
    """Chunks matching ``%(query)s`` (a tsquery OR-ing the query's ragd terms, see
    :func:`ragd.stores.pg_tsvector.tsquery`), ranked by ts_rank_cd; ties by key.

    Normalisation 1 divides the rank by 1 + log(length). ``rank``: ``ts_rank_cd`` (cover
    density, the default) or ``ts_rank`` (term frequency only, about three times cheaper per
    matching row).
    """
    return sql.SQL(
        "SELECT c.doc_id, c.chunk_index, {rank}(c.tsv, %(query)s::tsquery, 1)::float8 AS score "
        "FROM {t} c WHERE c.tsv @@ %(query)s::tsquery{where} "
        "ORDER BY score DESC, c.doc_id, c.chunk_index LIMIT %(k)s").format(
        rank=RANKERS[rank], t=chunk_table(cid), where=where)
