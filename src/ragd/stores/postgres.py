"""The PostgreSQL + pgvector store: the reference schema of the canonical spec (§3-§4).

Same Store protocol and the same behaviour as the SQLite store (filters, ties by
(doc_id, chunk_index), model-mismatch errors naming both models, atomic per-document
writes), written as explicit SQL over psycopg 3, a thread-safe psycopg_pool
ConnectionPool and pgvector-python (``register_vector``: numpy arrays travel as binary
``vector`` values).

Schema (in the PostgreSQL schema ``ragd``, or ``?schema=NAME``; versioned migrations
in ``pg_migrations/*.sql`` recorded in ``schema_version``, applied on open under an
advisory lock, idempotent and safe to race; on a server that refuses writes — a read
replica — the store opens without migrating, at this ragd's schema version only, and
refuses writes with ReadOnlyStoreError): ``collections`` (fixed embed_model and
embed_dims, config jsonb, data_version), ``documents``, and **one chunk table per
collection**, ``chunks_<collection id>``. A collection fixes its dimension forever, so
its table has a typed ``embedding vector(dims)`` column and a plain HNSW index
(``vector_cosine_ops``; dims over 2000 are indexed through a ``halfvec`` expression,
over 4000 searched exactly). One shared table with an untyped ``vector`` column would
need per-collection partial expression indexes, which the planner uses only when the
query repeats the exact expression and a literal collection id (generic prepared plans
lose them); a table per collection keeps HNSW plain and lets each collection be
vacuumed, rebuilt, dropped or placed on its own (Citus: one colocated shard per
collection). Each chunk table has a ``tsvector`` with a GIN index, ``tags text[]`` with
GIN, ``metadata jsonb`` with GIN (``jsonb_path_ops``) and a section index.

Lexical ranking is BM25 by default (``lexical_rank=bm25``, :mod:`~ragd.stores.pg_bm25`:
per-chunk ``sparsevec`` weights in ``bm25_<id>``, query-side idf, the SQLite store's scores).
``lexical_rank=ts_rank_cd`` ranks by cover density, normalised by 1 + log(length), not
BM25: it has no inverse document frequency (a rare term weighs
what a common one does), no term-frequency saturation (``k1``), and its length
normalisation is a fixed log rather than BM25's ``b`` against the average length; it
does reward query terms that occur close together. The terms are ragd's own
(``ragd.analysis``, as in the SQLite store): each chunk's ``tsvector`` is computed by ragd
and sent in binary (``pg_tsvector``), with the terms at their word positions, and a query
becomes a ``tsquery`` OR-ing its terms. So the chunks that match are the SQLite store's;
only their order can differ. (Schema version 3; before it the server computed the
tsvector with ``to_tsvector``, which cost most of a bulk load's server time and tokenised
slightly differently.) Fusion is done in Python by ``ragd.retrieval``, identically for
both backends.

Writes (:mod:`~ragd.stores.postgres_write`): one transaction per document, or per bulk
call (binary COPY); a large document staged in batches and swapped in by one. Reads
(:mod:`~ragd.stores.postgres_read`): each search, or a whole retrieval, in one
``REPEATABLE READ READ ONLY`` snapshot. Chunk tables keep rows inline up to a page
(``toast_tuple_target = 8160``, schema version 4).

Vector search: ``ORDER BY embedding <=> q`` (score = 1 - cosine distance), ties
broken in SQL. HNSW queries set ``hnsw.ef_search`` (at least ``k``) and pgvector's
iterative scan for the transaction, so a filter does not starve the result. A filter
that matches at most ``exact_below`` rows is searched exactly (cheaper than walking the
graph that far), and an index search that still comes back short of ``k`` is
redone exactly: a filtered search never returns fewer rows than match.

Store URL: ``postgresql://user:pass@host:port/db?OPTIONS``, where the ragd options
below are removed before connecting (everything else goes to libpq):

    schema=ragd                 PostgreSQL schema holding the tables
    ef_search=40                HNSW candidate list per query (raised to k when k is larger)
    hnsw_m=16                   HNSW graph degree of new collections
    hnsw_ef_construction=64     HNSW build candidate list of new collections
    search=auto                 auto (HNSW when indexed) | exact (never use the index)
    iterative_scan=relaxed_order relaxed_order (re-sorted) | strict_order | off
    max_scan_tuples=20000       how far an iterative scan goes before giving up
    exact_below=500             filtered searches matching at most this many rows go exact
    lexical_rank=bm25           bm25 (pg_bm25: sparsevec weights, exact top-k) |
                                ts_rank_cd (cover density) | ts_rank (cheaper, no proximity)
    pool_min=1, pool_max=10     connection pool size

A collection's ``config`` may set ``hnsw_m`` / ``hnsw_ef_construction`` too.
"""

from __future__ import annotations

import logging
import threading
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any, Iterator, Mapping, Sequence

import numpy as np
import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from ..errors import (EmbedModelMismatchError, StoreError, UnknownCollectionError, UsageError,
                      VectorDBUnavailableError)
from ..types import Chunk, Filters
from . import pg_bm25, postgres_sql as Q
from .base import CollectionInfo, DocumentRecord, Hit, Key, ReadOnlyStoreError, StoredChunk
from .rows import holds_nul
from .pg_tsvector import TsVector, TsVectorDumper
from .postgres_read import BEGIN_READ, COLUMNS, NO_FILTERS, PgSnapshot, chunk_from_row
from .postgres_write import PgWrites
from .postgres_schema import (MIGRATION_LOCK, SCHEMA_VERSION, PgOptions, ServerInfo, inspect,
                              message as _message, migrate, parse_store_url, read_only_reason,
                              version_tuple as _version_tuple)

log = logging.getLogger("ragd.store")

__all__ = ["PgOptions", "PostgresStore", "SCHEMA_VERSION", "ServerInfo", "init_store",
           "migrate", "parse_store_url"]




def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def init_store(url: str) -> str:
    """Apply the schema migrations of the store at ``url``; one line saying where it stands
    (what ``ragd store init --store URL`` prints)."""
    conninfo, options, shown = parse_store_url(url)
    try:
        with psycopg.connect(conninfo, autocommit=True) as conn:
            info = migrate(conn, options.schema)
    except psycopg.Error as exc:
        raise StoreError(f"cannot initialise store {shown}: {_message(exc)}") from exc
    return (f"store {shown}: schema {options.schema!r} at version {info.schema_version} "
            f"(PostgreSQL {info.server_version}, pgvector {info.pgvector_version})")


@dataclass(frozen=True)
class _Coll:
    cid: int
    info: CollectionInfo
    index: dict[str, Any] = field(default_factory=dict)


class PostgresStore(PgWrites):
    """A ragd store in a PostgreSQL database with pgvector. Thread-safe (a connection pool)."""

    def __init__(self, url: str, **options: Any) -> None:
        conninfo, opts, self.url = parse_store_url(url)
        self.options = replace(opts, **options) if options else opts
        try:
            with psycopg.connect(conninfo, autocommit=True) as conn:
                # why the store is read-only (a read replica); empty when it is writable
                self.read_only = read_only_reason(conn)
                self.server = (inspect(conn, self.options.schema) if self.read_only
                               else migrate(conn, self.options.schema))
        except psycopg.OperationalError as exc:
            log.error("cannot open store %s: %s", self.url, _message(exc))
            raise VectorDBUnavailableError(f"cannot open store {self.url}: {_message(exc)}") \
                from exc
        except psycopg.Error as exc:
            raise StoreError(f"cannot open store {self.url}: {_message(exc)}") from exc
        self._iterative = _version_tuple(self.server.pgvector_version) >= (0, 8, 0)
        self._lock = threading.Lock()
        self._colls: dict[str, _Coll] = {}
        self._closed = False
        self._miss_version = threading.local()
        self._pool = ConnectionPool(
            conninfo, min_size=self.options.pool_min,
            max_size=max(self.options.pool_max, self.options.pool_min),
            configure=self._configure, open=True, name=f"ragd {self.url}",
            kwargs={"application_name": "ragd"} if "application_name" not in conninfo else {})

    def _configure(self, conn: psycopg.Connection) -> None:
        conn.execute("SELECT set_config('search_path', %s, false), '[0]'::vector",
                     (self.server.search_path,))
        register_vector(conn)
        conn.adapters.register_dumper(TsVector, TsVectorDumper)
        conn.commit()

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection]:
        """A pooled connection; one transaction, committed at the end (rolled back on error).
        Driver and server failures become StoreError."""
        with self._errors():
            with self._pool.connection() as conn:
                yield conn

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Driver and server failures inside the block become StoreError."""
        try:
            yield
        except psycopg.errors.UndefinedTable as exc:
            with self._lock:
                self._colls.clear()
            raise StoreError(f"store {self.url}: {_message(exc)} (was the collection dropped "
                             "by another process?)") from exc
        except psycopg.errors.ReadOnlySqlTransaction as exc:
            why = self.read_only or _message(exc)
            raise ReadOnlyStoreError(f"store {self.url} is read-only ({why}): cannot write to "
                                     "it; searches still work") from exc
        except (psycopg.OperationalError, PoolTimeout) as exc:
            log.error("store %s unavailable: %s", self.url, _message(exc))
            raise VectorDBUnavailableError(f"store {self.url} is unavailable: "
                                           f"{_message(exc)}") from exc
        except psycopg.Error as exc:
            raise StoreError(f"store {self.url}: {_message(exc)}") from exc

    # -- collections -----------------------------------------------------------------------
    @staticmethod
    def _info(row: Sequence[Any]) -> _Coll:
        info = CollectionInfo(name=row[1], embed_model=row[2], embed_dims=int(row[3]),
                              config=row[4], created_at=row[5])
        return _Coll(int(row[0]), info, dict(row[6]))

    _COLL_SQL = ("SELECT id, name, embed_model, embed_dims, config, created_at, vector_index "
                 "FROM collections")

    def _coll(self, name: str) -> _Coll:
        with self._lock:
            found = self._colls.get(name)
        if found is not None:
            return found
        with self._conn() as conn:
            row = conn.execute(self._COLL_SQL + " WHERE name = %s", (name,)).fetchone()
            if row is None:
                known = [r[0] for r in conn.execute("SELECT name FROM collections ORDER BY name")]
                raise UnknownCollectionError(
                    f"unknown collection {name!r} in store {self.url} "
                    f"(collections: {', '.join(known) if known else 'none'})")
        coll = self._info(row)
        with self._lock:
            self._colls[name] = coll
        return coll

    def create_collection(self, name: str, embed_model: str, embed_dims: int,
                          config: Mapping[str, Any]) -> CollectionInfo:
        if not name or not name.strip() or "\x00" in name:
            raise UsageError("collection name must not be empty")
        config = dict(config)
        with self._conn() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
                         (MIGRATION_LOCK, name))
            row = conn.execute(self._COLL_SQL + " WHERE name = %s", (name,)).fetchone()
            if row is None:
                index = Q.index_plan(int(embed_dims),
                                     int(config.get("hnsw_m", self.options.hnsw_m)),
                                     int(config.get("hnsw_ef_construction",
                                                    self.options.hnsw_ef_construction)))
                row = conn.execute(
                    "INSERT INTO collections (name, embed_model, embed_dims, config, created_at,"
                    " vector_index) VALUES (%s, %s, %s, %s, %s, %s) RETURNING id, name, "
                    "embed_model, embed_dims, config, created_at, vector_index",
                    (name, embed_model, int(embed_dims), Jsonb(config), _now(), Jsonb(index))
                ).fetchone()
                cid = int(row[0])
                conn.execute(Q.create_chunk_table(cid, int(embed_dims)))
                conn.execute(pg_bm25.create_tables(cid))
                ddl = Q.create_vector_index(cid, int(embed_dims), index)
                if ddl is not None:
                    conn.execute(ddl)
        coll = self._info(row)
        info = coll.info
        EmbedModelMismatchError.check(name, (info.embed_model, info.embed_dims),
                                      (embed_model, embed_dims))
        with self._lock:
            self._colls[name] = coll
        return info

    def get_collection(self, name: str) -> CollectionInfo:
        return self._coll(name).info

    def list_collections(self) -> list[CollectionInfo]:
        with self._conn() as conn:
            rows = conn.execute(self._COLL_SQL + " ORDER BY name").fetchall()
        return [self._info(r).info for r in rows]

    def drop_collection(self, name: str) -> None:
        coll = self._coll(name)
        with self._conn() as conn:
            conn.execute(pg_bm25.drop_tables(coll.cid))
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(Q.chunk_table(coll.cid)))
            conn.execute("DELETE FROM collections WHERE id = %s", (coll.cid,))
        with self._lock:
            self._colls.pop(name, None)

    # -- documents -------------------------------------------------------------------------
    _DOC_SQL = ("SELECT doc_id, title, source, metadata, content_hash, version, ingested_at, "
                "source_path FROM documents WHERE collection_id = %s")

    @staticmethod
    def _record(row: Sequence[Any]) -> DocumentRecord:
        return DocumentRecord(doc_id=row[0], title=row[1], source=row[2], metadata=row[3],
                              content_hash=row[4], version=int(row[5]), ingested_at=row[6],
                              source_path=row[7])

    def get_document(self, collection: str, doc_id: str) -> DocumentRecord | None:
        cid = self._coll(collection).cid
        if holds_nul(doc_id):
            return None
        with self._conn() as conn:
            row = conn.execute(self._DOC_SQL + " AND doc_id = %s", (cid, doc_id)).fetchone()
        return self._record(row) if row else None

    def list_documents(self, collection: str) -> list[DocumentRecord]:
        cid = self._coll(collection).cid
        with self._conn() as conn:
            rows = conn.execute(self._DOC_SQL + " ORDER BY doc_id", (cid,)).fetchall()
        return [self._record(r) for r in rows]

    def chunk_counts(self, collection: str) -> dict[str, int]:
        coll = self._coll(collection)
        with self._conn() as conn:
            rows = conn.execute(sql.SQL("SELECT doc_id, count(*) FROM {} GROUP BY doc_id")
                                .format(Q.chunk_table(coll.cid))).fetchall()
        return {r[0]: int(r[1]) for r in rows}

    def document_chunks(self, collection: str, doc_id: str) -> list[StoredChunk]:
        coll = self._coll(collection)
        if holds_nul(doc_id):
            return []
        with self._conn() as conn:
            rows = conn.execute(sql.SQL(
                "SELECT {cols}, d.title FROM {t} c JOIN documents d ON d.collection_id = "
                "c.collection_id AND d.doc_id = c.doc_id WHERE c.doc_id = %s "
                "ORDER BY c.chunk_index").format(cols=COLUMNS, t=Q.chunk_table(coll.cid)),
                (doc_id,)).fetchall()
        return [StoredChunk(chunk_from_row(r), r[14]) for r in rows]

    def documents_from(self, collection: str, source_path: str) -> list[DocumentRecord]:
        cid = self._coll(collection).cid
        if not source_path or holds_nul(source_path):
            return []
        with self._conn() as conn:
            rows = conn.execute(self._DOC_SQL + " AND source_path = %s AND source_path <> '' "
                                "ORDER BY doc_id", (cid, source_path)).fetchall()
        return [self._record(r) for r in rows]

    # -- query cache -------------------------------------------------------------------------
    # A value is stored under the data version its computation saw. The store cannot see the
    # computation, only its ends: cache_get notes the version at a miss (per thread), and
    # cache_put stores nothing when a write has landed since, as the value may predate it.
    def cache_get(self, collection: str, key: str, max_age: float, now: float) -> str | None:
        cid = self._coll(collection).cid
        with self._conn() as conn:
            row = conn.execute(
                "SELECT c.data_version, q.value FROM collections c LEFT JOIN query_cache q "
                "ON q.collection_id = c.id AND q.key = %s AND q.data_version = c.data_version "
                "AND q.created_at >= %s AND q.created_at <= %s WHERE c.id = %s",
                (key, now - max_age, now, cid)).fetchone()
        if row is None:
            return None
        if row[1] is None:
            self._miss_version.value = (collection, key, int(row[0]))
        return row[1]

    def cache_put(self, collection: str, key: str, value: str, now: float) -> None:
        if self.read_only:
            return  # a cache is an optimisation: a read replica goes without
        cid = self._coll(collection).cid
        seen = getattr(self._miss_version, "value", None)
        self._miss_version.value = None
        with self._conn() as conn:
            version = conn.execute("SELECT data_version FROM collections WHERE id = %s",
                                   (cid,)).fetchone()[0]
            if seen is not None and seen[:2] == (collection, key) and seen[2] != version:
                return
            conn.execute("DELETE FROM query_cache WHERE collection_id = %s AND "
                         "data_version < %s", (cid, version))
            conn.execute(
                "INSERT INTO query_cache (collection_id, key, data_version, created_at, value) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (collection_id, key) DO UPDATE SET "
                "data_version = excluded.data_version, created_at = excluded.created_at, "
                "value = excluded.value", (cid, key, version, now, value))

    def data_version(self, collection: str) -> int:
        """A counter bumped by every committed write to the collection."""
        cid = self._coll(collection).cid
        with self._conn() as conn:
            return int(conn.execute("SELECT data_version FROM collections WHERE id = %s",
                                    (cid,)).fetchone()[0])

    # -- reads (each one snapshot) ----------------------------------------------------------
    @contextmanager
    def snapshot(self, collection: str, *, parallel: bool = False) -> Iterator[PgSnapshot]:
        """``collection`` as of one committed state, for as long as the block runs.
        ``parallel``: two threads will read at once (the snapshot is exported, so that the
        second gets a connection of its own in the same state)."""
        coll = self._coll(collection)
        with ExitStack() as stack:
            conn = stack.enter_context(self._conn())
            conn.execute(BEGIN_READ)
            row = conn.execute("SELECT data_version"
                               + (", pg_export_snapshot()" if parallel else ", NULL")
                               + " FROM collections WHERE id = %s", (coll.cid,)).fetchone()
            if row is None:
                with self._lock:
                    self._colls.pop(collection, None)
                raise StoreError(f"store {self.url}: collection {collection!r} was dropped "
                                 "by another process")
            yield PgSnapshot(self, coll, conn, int(row[0]), row[1], stack)

    def vector_search(self, collection: str, query: np.ndarray, limit: int,
                      filters: Filters = NO_FILTERS, *, exact: bool | None = None,
                      ef_search: int | None = None) -> list[Hit]:
        """Top ``limit`` by cosine similarity; ``exact`` and ``ef_search`` as the Store
        protocol says (HNSW's ``hnsw.ef_search`` for this query)."""
        with self.snapshot(collection) as snap:
            return snap.vector_search(query, limit, filters, ef_search=ef_search, exact=exact)

    def lexical_search(self, collection: str, terms: Sequence[str], limit: int,
                       filters: Filters = NO_FILTERS) -> list[Hit]:
        with self.snapshot(collection) as snap:
            return snap.lexical_search(terms, limit, filters)

    def find_sections(self, collection: str, section_ids: Sequence[str], limit: int,
                      filters: Filters = NO_FILTERS) -> list[Key]:
        with self.snapshot(collection) as snap:
            return snap.find_sections(section_ids, limit, filters)

    def get_chunks(self, collection: str, keys: Sequence[Key]) -> dict[Key, StoredChunk]:
        with self.snapshot(collection) as snap:
            return snap.get_chunks(keys)

    def iter_chunks(self, collection: str) -> Iterator[tuple[Chunk, np.ndarray]]:
        """Streams (a server-side cursor in one snapshot), ordered by (doc_id, chunk_index)."""
        coll = self._coll(collection)
        with self._conn() as conn:
            with conn.cursor(name="ragd_iter_chunks", binary=True) as cur:
                cur.itersize = 500
                cur.execute(sql.SQL("SELECT {cols}, c.embedding FROM {t} c "
                                    "ORDER BY c.doc_id, c.chunk_index").format(
                    cols=COLUMNS, t=Q.chunk_table(coll.cid)))
                for row in cur:
                    yield chunk_from_row(row), row[14].to_numpy()

    def stats(self, collection: str) -> dict[str, Any]:
        coll = self._coll(collection)
        t = Q.chunk_table(coll.cid)
        with self._conn() as conn:
            docs = conn.execute("SELECT count(*) FROM documents WHERE collection_id = %s",
                                (coll.cid,)).fetchone()[0]
            chunks, tokens, size = conn.execute(sql.SQL(
                "SELECT count(*), coalesce(sum(tokens), 0), pg_total_relation_size(%s::regclass)"
                " FROM {}").format(t), (f"chunks_{coll.cid}",)).fetchone()
        info = coll.info
        return {"store": self.url, "backend": "postgres", "collection": info.name,
                "embed_model": info.embed_model, "embed_dims": info.embed_dims,
                "documents": int(docs), "chunks": int(chunks), "tokens": int(tokens),
                "bytes": int(size), "created_at": info.created_at,
                "vector_index": dict(coll.index), "ef_search": self.options.ef_search,
                "schema": self.options.schema, "schema_version": self.server.schema_version,
                "server": f"PostgreSQL {self.server.server_version}, "
                          f"pgvector {self.server.pgvector_version}"}

    # -- maintenance -----------------------------------------------------------------------
    def drop_vector_index(self, collection: str) -> None:
        """Drop the HNSW index (before a large bulk load: building it once afterwards is
        much faster than maintaining it row by row). Searches are exact meanwhile."""
        coll = self._coll(collection)
        with self._conn() as conn:
            conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(Q.vector_index_name(coll.cid)))

    def build_vector_index(self, collection: str) -> None:
        """(Re)create the collection's HNSW index if it is missing, then ANALYZE."""
        coll = self._coll(collection)
        ddl = Q.create_vector_index(coll.cid, coll.info.embed_dims, coll.index)
        with self._conn() as conn:
            if ddl is not None:
                conn.execute(ddl)
            conn.commit()
            conn.execute(sql.SQL("ANALYZE {}").format(Q.chunk_table(coll.cid)))

    def close(self) -> None:
        if not self._closed:
            self._settle_all()   # what this store's writes left in the GIN pending lists
        with self._lock:
            self._closed = True
        self._pool.close()
        with self._lock:
            self._colls.clear()
