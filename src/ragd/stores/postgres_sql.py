"""SQL of the PostgreSQL store: per-collection DDL, filters, searches (the schema's
versions and the store URL: :mod:`.postgres_schema`).

Every value reaches PostgreSQL as a bound parameter. The only names composed into
SQL text are ``chunks_<collection id>`` (an integer the store itself assigned) and
index names derived from it, always through :class:`psycopg.sql.Identifier`; the
schema is set once per connection through ``search_path`` from a name validated
against ``[a-z_][a-z0-9_]*``.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from ..errors import UsageError
from ..types import Filters

HNSW_MAX_DIMS = 2000          # vector HNSW limit; up to 4000 dims are indexed as halfvec
HALFVEC_MAX_DIMS = 4000
PLAIN_MAX_DIMS = 1600         # vectors up to this size stay in the row (never TOASTed)

CHUNK_COLUMNS = ("doc_id", "chunk_index", "chunk_id", "section_id", "parent_id", "kind",
                 "context", "text", "tags", "metadata", "tokens", "start_offset",
                 "end_offset", "page")
WRITE_COLUMNS = ("collection_id",) + CHUNK_COLUMNS + ("embedding", "tsv")
"""The columns a write fills, in the order of its rows (the bulk COPY reads their types
from the table)."""


def chunk_table(cid: int) -> sql.Identifier:
    return sql.Identifier(f"chunks_{int(cid)}")


def settle_gin(cid: int) -> sql.Composed:
    """Move the pending entries of a collection's GIN indexes (chunk table and BM25 weights)
    into their trees. A GIN index takes inserts into an unsorted pending list (up to
    ``gin_pending_list_limit``, 4 MB) that every search through it reads whole until
    VACUUM or an overflow merges it: after a bulk write that made a lexical search three
    times slower (SciFact, 6,922 chunks: p50 22 → 6.5 ms once merged). Run after writes
    (``PgWrites._after_write``), so searches never wait for autovacuum. Needs the indexes'
    owner."""
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
