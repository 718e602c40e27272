"""Reads of the PostgreSQL store, one committed state each (:class:`PgSnapshot`).

A snapshot is a ``REPEATABLE READ READ ONLY`` transaction: its first query fixes what it
sees (the collection's data version, read in that query, stamps it). Every read of one
search runs in it: hit lists, filters, section lookups and chunk texts. The transaction
exports its snapshot (``pg_export_snapshot``), so when the two halves of a hybrid search
want the server at once (``snapshot(..., parallel=True)``), the second gets a sibling
connection that imports the same snapshot (``SET TRANSACTION SNAPSHOT``): the halves still
run in parallel, on one state. (Exporting costs about half a millisecond, so it is done only
when asked for.)
"""

from __future__ import annotations

import threading
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any, Iterator, Sequence

import numpy as np
import psycopg
from psycopg import sql

from ..errors import UsageError
from ..types import Chunk, Filters
from . import pg_bm25, postgres_sql as Q
from .base import Hit, Key, StoredChunk, rank_hits
from .pg_tsvector import tsquery
from .rows import holds_nul

if TYPE_CHECKING:
    from .postgres import PostgresStore, _Coll

NO_FILTERS = Filters()
BEGIN_READ = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"
COLUMNS = sql.SQL(", ").join(sql.Identifier("c", n) for n in Q.CHUNK_COLUMNS)


def chunk_from_row(row: Sequence[Any]) -> Chunk:
    return Chunk(doc_id=row[0], chunk_index=int(row[1]), chunk_id=row[2], section_id=row[3],
                 parent_id=row[4], kind=row[5], context=row[6], text=row[7],
                 tags=tuple(row[8]), metadata=row[9], tokens=int(row[10]),
                 start_offset=row[11], end_offset=row[12], page=row[13])


class PgSnapshot:
    """One collection as of one committed state (see the module's text). Thread-safe."""

    def __init__(self, store: PostgresStore, coll: _Coll, conn: psycopg.Connection,
                 version: int, exported: str | None, stack: ExitStack) -> None:
        self.store = store
        self.collection = coll.info.name
        self.data_version = version
        self._coll = coll
        self._exported = exported
        self._stack = stack
        self._lock = threading.Condition()
        self._idle = [conn]

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        """A connection in this snapshot: an idle one; else, when the snapshot was exported,
        a new sibling importing it; else the next one freed."""
        with self._lock:
            while not self._idle and self._exported is None:
                self._lock.wait()
            conn = self._idle.pop() if self._idle else None
            if conn is None:
                conn = self._stack.enter_context(self.store._conn())
                conn.execute(BEGIN_READ)
                conn.execute(sql.SQL("SET TRANSACTION SNAPSHOT {}").format(
                    sql.Literal(self._exported)))
        try:
            with self.store._errors():
                yield conn
        finally:
            with self._lock:
                self._idle.append(conn)
                self._lock.notify()

    def _query_vector(self, query: np.ndarray) -> np.ndarray:
        dims = self._coll.info.embed_dims
        q = np.ascontiguousarray(query, dtype=np.float32).reshape(-1)
        if q.shape[0] != dims:
            raise UsageError(f"query vector has {q.shape[0]} dims; collection "
                             f"{self.collection!r} has {dims}")
        if not np.isfinite(q).all():
            raise UsageError("query vector contains NaN or infinity")
        return q

    # -- searches ----------------------------------------------------------------------
    def vector_search(self, query: np.ndarray, limit: int, filters: Filters = NO_FILTERS, *,
                      ef_search: int | None = None, exact: bool | None = None) -> list[Hit]:
        """Top ``limit`` by cosine similarity. ``ef_search`` overrides the store's for this
        query; ``exact`` forces (True) or forbids (False) the exact path."""
        coll, options = self._coll, self.store.options
        dims = coll.info.embed_dims
        q = self._query_vector(query)
        if limit <= 0:
            return []
        where, params = Q.filter_sql(filters)
        params.update(q=q, k=int(limit), k_inner=int(limit) + 10)
        dist = Q.distance_expr(coll.index, dims)
        use_exact = (options.search == "exact" or coll.index.get("kind") == "none"
                     if exact is None else exact)
        with self._connection() as conn:
            if not use_exact and filters and exact is None:
                # Counting through the filter's GIN index: with a LIMIT, the planner tends
                # to bet on a sequential scan finding rows early, which a selective filter
                # defeats (the bet is what this count is about). Settings are local to the
                # transaction, which the search's other reads share: put back afterwards.
                seqscan = conn.execute("SELECT current_setting('enable_seqscan'), "
                                       "set_config('enable_seqscan', 'off', true)"
                                       ).fetchone()[0]
                matching = conn.execute(Q.count_query(coll.cid, where),
                                        {**params, "cap": options.exact_below + 1}
                                        ).fetchone()[0]
                conn.execute("SELECT set_config('enable_seqscan', %s, true)", (seqscan,))
                use_exact = matching <= options.exact_below
            rows: list[tuple[Any, ...]] = []
            if not use_exact:
                iterative = self.store._iterative
                mode = options.iterative_scan if iterative else "off"
                conn.execute(
                    "SELECT set_config('hnsw.ef_search', %s, true)"
                    + (", set_config('hnsw.iterative_scan', %s, true), "
                       "set_config('hnsw.max_scan_tuples', %s, true)" if iterative else ""),
                    [str(max(ef_search or options.ef_search, limit + 10))]
                    + ([mode, str(options.max_scan_tuples)] if iterative else []))
                rows = conn.execute(Q.vector_query(coll.cid, dist, where, exact=False,
                                                   relaxed=mode == "relaxed_order"),
                                    params).fetchall()
            if use_exact or (len(rows) < limit and exact is None):
                rows = conn.execute(Q.vector_query(coll.cid, dist, where, exact=True,
                                                   relaxed=False), params).fetchall()
        return [Hit(r[0], int(r[1]), 1.0 - float(r[2])) for r in rows]

    def lexical_search(self, terms: Sequence[str], limit: int,
                       filters: Filters = NO_FILTERS) -> list[Hit]:
        if self.store.options.lexical_rank == "bm25":
            where, params = Q.filter_sql(filters)
            with self._connection() as conn:
                return [Hit(*r) for r in pg_bm25.search(
                    conn, self._coll.cid, self._coll.info.config, terms, limit, where, params,
                    bool(filters), self.store.options.bm25_budget)]
        query = tsquery(terms)
        if query is None or limit <= 0:
            return []
        where, params = Q.filter_sql(filters)
        params.update(query=query, k=int(limit))
        with self._connection() as conn:
            rows = conn.execute(Q.lexical_query(self._coll.cid, where,
                                                self.store.options.lexical_rank),
                                params).fetchall()
        return rank_hits([Hit(r[0], int(r[1]), float(r[2])) for r in rows], limit)

    def find_sections(self, section_ids: Sequence[str], limit: int,
                      filters: Filters = NO_FILTERS) -> list[Key]:
        wanted = [s for s in dict.fromkeys(section_ids) if not holds_nul(s)]
        if not wanted or limit <= 0:
            return []
        where, params = Q.filter_sql(filters)
        params.update(sections=wanted, k=int(limit))
        with self._connection() as conn:
            rows = conn.execute(sql.SQL(
                "SELECT c.doc_id, c.chunk_index FROM {} c WHERE c.section_id = "
                "ANY(%(sections)s::text[]){} ORDER BY c.doc_id, c.chunk_index LIMIT %(k)s"
            ).format(Q.chunk_table(self._coll.cid), where), params).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    # -- reading -----------------------------------------------------------------------
    def _keyed_rows(self, columns: sql.Composable, keys: Sequence[Key],
                    join: sql.Composable = sql.SQL(""), params: dict | None = None
                    ) -> list[tuple]:
        """``columns`` of the chunks (alias ``c``, ``join`` added) whose keys are ``keys``."""
        keys = [k for k in dict.fromkeys(keys) if not holds_nul(k[0])]
        if not keys:
            return []
        with self._connection() as conn:
            return conn.execute(sql.SQL(
                "SELECT {cols} FROM unnest(%(docs)s::text[], %(idx)s::int[]) AS k(doc_id, idx) "
                "JOIN {t} c ON c.doc_id = k.doc_id COLLATE \"C\" AND c.chunk_index = k.idx {join}"
            ).format(cols=columns, t=Q.chunk_table(self._coll.cid), join=join),
                {**(params or {}), "docs": [k[0] for k in keys],
                 "idx": [int(k[1]) for k in keys]}).fetchall()

    def cosines(self, query: np.ndarray, keys: Sequence[Key]) -> dict[Key, float]:
        q = self._query_vector(query)
        # the distance as the vector search computes it (half precision for a halfvec index)
        dist = Q.distance_expr(self._coll.index, self._coll.info.embed_dims)
        rows = self._keyed_rows(sql.SQL("c.doc_id, c.chunk_index, 1 - {}").format(dist), keys,
                                params={"q": q})
        return {(r[0], int(r[1])): float(r[2]) for r in rows}

    def get_chunks(self, keys: Sequence[Key]) -> dict[Key, StoredChunk]:
        rows = self._keyed_rows(
            sql.SQL("{}, d.title").format(COLUMNS), keys,
            sql.SQL("JOIN documents d ON d.collection_id = c.collection_id "
                    "AND d.doc_id = c.doc_id"))
        out: dict[Key, StoredChunk] = {}
        for row in rows:
            chunk = chunk_from_row(row)
            out[chunk.key] = StoredChunk(chunk, row[14])
        return out
