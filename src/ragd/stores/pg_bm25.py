"""BM25 on PostgreSQL: per-chunk ``sparsevec`` weights, query-side idf, exact top-k by MaxScore.

Each chunk has a row in ``bm25_<collection id>``: its BM25 document-side weights as a pgvector
``sparsevec`` (term ``t`` → dimension ``term_hash(t) mod 10^9``, ragd's analysed terms, as
the SQLite store's), ``terms int4[]`` (those dimensions, GIN-indexed) and its length. A weight
is ``tf·(k1+1) / (tf + k1·(1 − b + b·len/avgdl))`` with ``avgdl`` fixed when written; a query is
the sparsevec of its terms' idf (Lucene's ``ln(1 + (N − df + 0.5)/(df + 0.5))``) from
``bm25_df_<id>`` (document frequency per dimension) and the collection's live row count, so
``−(weights <#> query)`` is exactly the SQLite store's BM25 while the stored ``avgdl`` is the
current one. Triggers on the weight table keep ``bm25_df_<id>`` and ``collections.bm25_rows``
/ ``bm25_length`` right in the writing transaction (deletes by ``ON DELETE CASCADE`` too).

avgdl: written weights use ``collections.bm25_avgdl``; after a write, when the live average
has drifted from it by more than ``bm25_drift`` (collection config, default 0.02, which moves
a weight by under about 1 %) and a quarter of the rows have changed since the last rewrite
(or it drifted by five times the bound), :func:`reweight` rewrites every row with the current
average; ``PostgresStore.refresh_lexical`` (the Store protocol's) does it on demand (after a bulk load)
(both lock the collection's row first: a write has updated it anyway, so writes and
reweights queue on it and never see each other's weights half-written).

Top-k (exact): query terms in decreasing idf; a term's score is at most ``idf·(k1+1)``. The
rows matching the rarest terms give a k-th score θ; the commonest terms whose bounds sum
below θ cannot lift a row that has none of the other terms into the top k, so only rows
matching the remaining terms are scored (a GIN ``&&`` on ``terms``), each fully. When those
rows would exceed the store option ``bm25_budget`` (default 4,000; 0: no limit), the rows of
the rarest terms within the budget are the candidates instead: scores stay exact, only the
candidate set is bounded (at 103,830 SciFact chunks: recall@10 0.993 against exact, nDCG@10
0.002 lower; docs/benchmarks.md).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import Any, Sequence

import numpy as np
import psycopg
from pgvector import SparseVector
from pgvector.psycopg import register_vector
from psycopg import sql

from ..analysis import analyze_batch, query_analyze, term_hash
from ..types import index_text

DIMS = 1_000_000_000       # pgvector's largest sparsevec dimension
DEFAULT_DRIFT = 0.02
DEFAULT_BUDGET = 4000      # store option bm25_budget: rows a query scores at most (0: no limit)
FIRST_ROWS = 2000          # phase-1 rows of an unlimited (always exact) search
COUNTS: Counter[str] = Counter()
"""Searches answered exactly and within the budget only (for benchmarks)."""
_BATCH = 2048


@lru_cache(maxsize=500_000)
def term_dim(term: str) -> int:
    """The sparsevec dimension of an analysed term (stable across machines)."""
    return term_hash(term) % DIMS


class PackedSparse(SparseVector):
    """A sparsevec already in pgvector's binary format (pgvector's dumper sends it as is)."""

    def __init__(self, data: bytes) -> None:  # noqa: D107 - no SparseVector state needed
        self._data = data

    def to_binary(self) -> bytes:
        return self._data


def pack_sparse(dims: np.ndarray, values: np.ndarray) -> PackedSparse:
    """``dims`` ascending, unique; float32 ``values``."""
    n = len(dims)
    head = np.array([DIMS, n, 0], dtype=">i4").tobytes()
    return PackedSparse(head + dims.astype(">i4").tobytes() + values.astype(">f4").tobytes())


def text_query(dims: Sequence[int], values: Sequence[float]) -> str:
    """A sparsevec literal (1-based indices in the text form)."""
    return "{" + ",".join(f"{d + 1}:{v!r}" for d, v in zip(dims, values)) + f"}}/{DIMS}"


def term_counts(texts: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(dimensions ascending, tf, length) of each text; length counts each term's tf up to
    65535, as the SQLite store's packed terms do. Terms sharing a dimension add up."""
    batch = analyze_batch(texts)
    vocab_dims = np.array([term_dim(t) for t in batch.vocab], dtype=np.int64)
    out: list[tuple[np.ndarray, np.ndarray, int]] = []
    if len(batch.term) == 0:
        return [(np.zeros(0, np.int64), np.zeros(0, np.float64), 0) for _ in texts]
    # Per text and term: count, capped like pack_terms; then merge colliding dimensions.
    pairs, counts = np.unique(batch.text.astype(np.int64) * (1 << 32) + batch.term,
                              return_counts=True)
    text_of, term_of = pairs >> 32, pairs & 0xFFFFFFFF
    counts = np.minimum(counts, 65535)
    keys = text_of * (1 << 30) + vocab_dims[term_of]
    merged, inverse = np.unique(keys, return_inverse=True)
    tf = np.bincount(inverse, weights=counts).astype(np.float64)
    m_text, m_dim = merged >> 30, merged & ((1 << 30) - 1)
    lengths = np.bincount(text_of, weights=counts, minlength=len(texts)).astype(np.int64)
    bounds = np.searchsorted(m_text, np.arange(len(texts) + 1))
    for i in range(len(texts)):
        lo, hi = bounds[i], bounds[i + 1]
        out.append((m_dim[lo:hi], tf[lo:hi], int(lengths[i])))
    return out


def weights(tf: np.ndarray, length: int, avgdl: float, k1: float, b: float) -> np.ndarray:
    """BM25 document-side weights of one chunk."""
    return tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * length / (avgdl or 1.0)))


def params(config: dict[str, Any]) -> tuple[float, float, float]:
    """(k1, b, drift) of a collection's config."""
    return (float(config.get("bm25_k1", 1.2)), float(config.get("bm25_b", 0.75)),
            float(config.get("bm25_drift", DEFAULT_DRIFT)))


# -- DDL ---------------------------------------------------------------------------------------
def _names(cid: int) -> dict[str, sql.Identifier]:
    return {"t": sql.Identifier(f"bm25_{int(cid)}"), "df": sql.Identifier(f"bm25_df_{int(cid)}"),
            "fn": sql.Identifier(f"bm25_changed_{int(cid)}"),
            "gin": sql.Identifier(f"bm25_{int(cid)}_terms")}


def create_tables(cid: int) -> sql.Composed:
    """A collection's weight table, its document frequencies and the triggers keeping them."""
    return sql.SQL("""
CREATE TABLE {t} (
    collection_id integer NOT NULL DEFAULT {cid} CHECK (collection_id = {cid}),
    doc_id        text COLLATE "C" NOT NULL,
    chunk_index   integer NOT NULL,
    length        integer NOT NULL,
    terms         int4[] NOT NULL,
    weights       sparsevec({dims}) NOT NULL,
    PRIMARY KEY (doc_id, chunk_index),
    FOREIGN KEY (collection_id, doc_id) REFERENCES documents (collection_id, doc_id)
        ON DELETE CASCADE
);
CREATE INDEX {gin} ON {t} USING gin (terms);
CREATE TABLE {df} (dim integer PRIMARY KEY, df integer NOT NULL);
-- The collection's row first, as every write locks it first: writers and deletes queue on
-- it before they touch df rows, so they never deadlock on those.
CREATE FUNCTION {fn}() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE collections SET bm25_rows = bm25_rows + s.n, bm25_length = bm25_length + s.l,
                               bm25_changes = bm25_changes + s.n
            FROM (SELECT count(*) n, coalesce(sum(length), 0) l FROM new_rows) s
            WHERE id = {cid};
        INSERT INTO {df} (dim, df) SELECT d, count(*) FROM new_rows, unnest(terms) d
            GROUP BY d ORDER BY d ON CONFLICT (dim) DO UPDATE SET df = {df}.df + excluded.df;
    ELSE
        UPDATE collections SET bm25_rows = bm25_rows - s.n, bm25_length = bm25_length - s.l,
                               bm25_changes = bm25_changes + s.n
            FROM (SELECT count(*) n, coalesce(sum(length), 0) l FROM old_rows) s
            WHERE id = {cid};
        INSERT INTO {df} (dim, df) SELECT d, -count(*) FROM old_rows, unnest(terms) d
            GROUP BY d ORDER BY d ON CONFLICT (dim) DO UPDATE SET df = {df}.df + excluded.df;
    END IF;
    RETURN NULL;
END $body$;
CREATE TRIGGER bm25_inserted AFTER INSERT ON {t} REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION {fn}();
CREATE TRIGGER bm25_deleted AFTER DELETE ON {t} REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION {fn}();
""").format(cid=sql.Literal(int(cid)), dims=sql.Literal(DIMS), **_names(cid))


def drop_tables(cid: int) -> sql.Composed:
    return sql.SQL("DROP TABLE IF EXISTS {t}, {df}; DROP FUNCTION IF EXISTS {fn}()").format(
        **_names(cid))


# -- writes ------------------------------------------------------------------------------------
def _insert(conn: psycopg.Connection, cid: int, keys: Sequence[tuple[str, int]],
            texts: Sequence[str], k1: float, b: float, avgdl: float | None) -> None:
    """Weight rows of the given chunks (their old rows already gone). ``avgdl`` None: the
    collection has none yet, so the average after this write is fixed as it."""
    counted = term_counts(texts)
    if avgdl is None:
        rows, length = conn.execute("SELECT bm25_rows, bm25_length FROM collections "
                                    "WHERE id = %s", (cid,)).fetchone()
        total_rows = int(rows) + len(counted)
        avgdl = ((int(length) + sum(c[2] for c in counted)) / total_rows) if total_rows else 0.0
        avgdl = avgdl or 1.0
        conn.execute("UPDATE collections SET bm25_avgdl = %s WHERE id = %s", (avgdl, cid))
    copy = sql.SQL("COPY {} (doc_id, chunk_index, length, terms, weights) FROM STDIN "
                   "(FORMAT BINARY)").format(_names(cid)["t"])
    with conn.cursor() as cur, cur.copy(copy) as out:
        out.set_types(["text", "int4", "int4", "int4[]", "sparsevec"])
        for (doc_id, index), (dims, tf, length) in zip(keys, counted):
            out.write_row((doc_id, index, length, dims.tolist(),
                           pack_sparse(dims, weights(tf, length, avgdl, k1, b))))


def lock(conn: psycopg.Connection, cid: int) -> None:
    """The collection's row, locked as an UPDATE of it would (writes already hold it)."""
    conn.execute("SELECT 1 FROM collections WHERE id = %s FOR NO KEY UPDATE", (cid,))


def _avgdl(conn: psycopg.Connection, cid: int) -> float | None:
    row = conn.execute("SELECT bm25_avgdl, bm25_rows FROM collections WHERE id = %s",
                       (cid,)).fetchone()
    return None if row[0] is None or int(row[1]) == 0 else float(row[0])


def write_chunks(conn: psycopg.Connection, cid: int, config: dict[str, Any],
                 doc_ids: Sequence[str], chunks: Sequence[Any] | None = None) -> bool:
    """In a writing transaction: replace the weight rows of ``doc_ids`` by those of
    ``chunks`` (``None``: read the documents' chunks back from the chunk table). True when
    the average length has since drifted past the bound (call :func:`reweight` after)."""
    k1, b, _ = params(config)
    lock(conn, cid)
    conn.execute(sql.SQL("DELETE FROM {} WHERE doc_id = ANY(%s::text[])").format(
        _names(cid)["t"]), (list(doc_ids),))
    if chunks is None:
        rows = conn.execute(sql.SQL(
            "SELECT doc_id, chunk_index, context, text FROM chunks_{} WHERE doc_id = "
            "ANY(%s::text[]) ORDER BY doc_id, chunk_index").format(sql.SQL(str(int(cid)))),
            (list(doc_ids),)).fetchall()
        keys = [(r[0], int(r[1])) for r in rows]
        texts = [index_text(r[2], r[3]) for r in rows]
    else:
        keys = [(c.doc_id, c.chunk_index) for c in chunks]
        texts = [c.index_text for c in chunks]
    if keys:
        _insert(conn, cid, keys, texts, k1, b, _avgdl(conn, cid))
    return drifted(conn, cid, config)


def drifted(conn: psycopg.Connection, cid: int, config: dict[str, Any]) -> bool:
    """Whether the weights are due for rewriting: the live average length is off theirs by
    more than the drift bound, and either a quarter of the rows have changed since or it is
    off by five times the bound (so a growing collection is rewritten a few times, not at
    every write)."""
    rows, length, avgdl, changes = conn.execute(
        "SELECT bm25_rows, bm25_length, bm25_avgdl, bm25_changes FROM collections "
        "WHERE id = %s", (cid,)).fetchone()
    if not rows or avgdl is None:
        return False
    drift, bound = abs(int(length) / int(rows) / float(avgdl) - 1.0), params(config)[2]
    return drift > bound and (changes >= REWRITE_SHARE * rows or drift > 5 * bound)


def reweight(conn: psycopg.Connection, cid: int, config: dict[str, Any]) -> float:
    """Rewrite every weight row with the current average length (exclusive of writers);
    returns that average."""
    k1, b, _ = params(config)
    lock(conn, cid)
    conn.execute(sql.SQL("DELETE FROM {}").format(_names(cid)["t"]))
    conn.execute("UPDATE collections SET bm25_avgdl = NULL WHERE id = %s", (cid,))
    fill(conn, cid, k1, b)
    return float(_avgdl(conn, cid) or 0.0)


REWRITE_SHARE = 0.25


def fill(conn: psycopg.Connection, cid: int, k1: float, b: float) -> None:
    """Weight rows for every chunk of an empty weight table: lengths first (so the average
    is right from the first row), then the weights, ``_BATCH`` chunks at a time."""
    table = sql.SQL("chunks_{}").format(sql.SQL(str(int(cid))))
    select = sql.SQL("SELECT doc_id, chunk_index, context, text FROM {} "
                     "ORDER BY doc_id, chunk_index").format(table)
    total, count = 0, 0
    with conn.cursor(name="ragd_bm25_lengths") as cur:
        cur.execute(select)
        while rows := cur.fetchmany(_BATCH):
            total += sum(c[2] for c in term_counts([index_text(r[2], r[3]) for r in rows]))
            count += len(rows)
    avgdl = (total / count if count else 0.0) or 1.0
    conn.execute("UPDATE collections SET bm25_avgdl = %s, bm25_changes = -%s WHERE id = %s",
                 (avgdl, count, cid))  # the rows about to be written are no change
    with conn.cursor(name="ragd_bm25_fill") as cur:
        cur.execute(select)
        while rows := cur.fetchmany(_BATCH):
            _insert(conn, cid, [(r[0], int(r[1])) for r in rows],
                    [index_text(r[2], r[3]) for r in rows], k1, b, avgdl)


def upgrade(conn: psycopg.Connection) -> None:
    """Migration 7's data step: weight tables for every existing collection, filled."""
    register_vector(conn)  # the migrating connection is a plain one
    for cid, config in conn.execute("SELECT id, config FROM collections ORDER BY id").fetchall():
        conn.execute(create_tables(int(cid)))
        k1, b, _ = params(dict(config))
        fill(conn, int(cid), k1, b)


def reindex(conn: psycopg.Connection) -> None:
    """Migration 8's data step: every collection's weight tables written again from the
    stored texts (the indexed text changed: ``ragd.types.index_text``), as migration 7
    first wrote them."""
    for (cid,) in conn.execute("SELECT id FROM collections ORDER BY id").fetchall():
        conn.execute(drop_tables(int(cid)))
    conn.execute("UPDATE collections SET bm25_rows = 0, bm25_length = 0, bm25_avgdl = NULL, "
                 "bm25_changes = 0")
    upgrade(conn)


# -- search ------------------------------------------------------------------------------------
def _ranked_query(cid: int, where: sql.Composable, filtered: bool) -> sql.Composed:
    names = _names(cid)
    join = sql.SQL("") if not filtered else sql.SQL(
        " JOIN chunks_{} c ON c.doc_id = l.doc_id AND c.chunk_index = l.chunk_index").format(
        sql.SQL(str(int(cid))))
    return sql.SQL(
        "SELECT l.doc_id, l.chunk_index, (l.weights <#> %(q)s::sparsevec) * -1 AS score "
        "FROM {t} l{join} WHERE l.terms && %(dims)s::int4[]{where} "
        "ORDER BY score DESC, l.doc_id, l.chunk_index LIMIT %(k)s").format(
        t=names["t"], join=join, where=where)


def frequencies(conn: psycopg.Connection, cid: int, terms: Sequence[str]) -> dict[int, int]:
    """{dimension: document frequency} of the query words' terms found in the collection."""
    dims = sorted({term_dim(t) for t in query_analyze(terms)})
    if not dims:
        return {}
    return {int(d): int(f) for d, f in conn.execute(sql.SQL(
        "SELECT dim, df FROM {} WHERE dim = ANY(%s::int4[]) AND df > 0").format(
        _names(cid)["df"]), (dims,)).fetchall()}


def idfs(conn: psycopg.Connection, cid: int, df: dict[int, int]) -> dict[int, float]:
    """Lucene's idf of each dimension over the collection's live chunks."""
    n = int(conn.execute("SELECT bm25_rows FROM collections WHERE id = %s", (cid,)
                         ).fetchone()[0])
    return {d: math.log(1.0 + (n - f + 0.5) / (f + 0.5)) for d, f in df.items()}


def search(conn: psycopg.Connection, cid: int, config: dict[str, Any], terms: Sequence[str],
           limit: int, where: sql.Composable, params_: dict[str, Any], filtered: bool,
           budget: int = DEFAULT_BUDGET) -> list[tuple[str, int, float]]:
    """Top ``limit`` (doc_id, chunk_index, BM25) for the query words ``terms``; ties by key.

    ``budget``: the most rows (by summed document frequencies) a query scores; 0 for no
    limit (always exact). Over budget, the rows matching the rarest terms within it are
    the candidates (each scored fully): exact whenever the bound proves it, else the
    approximation counted in :data:`COUNTS`.
    """
    if limit <= 0:
        return []
    k1 = params(config)[0]
    dims = sorted({term_dim(t) for t in query_analyze(terms)})
    if not dims:
        return []
    found = conn.execute(sql.SQL(   # live rows and the terms' df, in one round trip
        "SELECT NULL, bm25_rows FROM collections WHERE id = %s UNION ALL "
        "SELECT dim, df FROM {} WHERE dim = ANY(%s::int4[]) AND df > 0").format(
        _names(cid)["df"]), (cid, dims)).fetchall()
    n = next(int(f) for d, f in found if d is None)
    df = {int(d): int(f) for d, f in found if d is not None}
    idf = {d: math.log(1.0 + (n - f + 0.5) / (f + 0.5)) for d, f in df.items()}
    if not idf:
        return []
    order = sorted(idf, key=lambda d: (-idf[d], d))       # rarest first
    query = text_query(sorted(idf), [idf[d] for d in sorted(idf)])
    sql_ = _ranked_query(cid, where, filtered)

    def run(essential: list[int]) -> list[tuple[str, int, float]]:
        rows = conn.execute(sql_, {**params_, "q": query, "dims": sorted(essential),
                                   "k": int(limit)}).fetchall()
        return [(r[0], int(r[1]), float(r[2])) for r in rows]

    # Phase 1: the rarest terms whose rows fit the budget (at least one term).
    first_budget = budget or FIRST_ROWS
    cumulative = np.cumsum([df[d] for d in order])
    first = order[:max(1, int(np.searchsorted(cumulative, first_budget, side="right")))]
    hits = run(first)
    if len(first) == len(order):
        COUNTS["exact"] += 1
        return hits
    theta = hits[-1][2] if len(hits) >= limit else 0.0
    # Phase 2: drop the commonest terms whose bounds together stay below θ.
    bound, cut = 0.0, len(order)
    for i in range(len(order) - 1, -1, -1):
        bound += idf[order[i]] * (k1 + 1.0)
        if bound * (1.0 + 1e-6) + 1e-9 >= theta:
            break
        cut = i
    if cut <= len(first):
        COUNTS["exact"] += 1
        return hits
    if budget and cumulative[cut - 1] > budget:
        COUNTS["bounded"] += 1
        return hits
    COUNTS["exact"] += 1
    return run(order[:cut])
