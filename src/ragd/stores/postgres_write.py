"""Writes of the PostgreSQL store (a mixin of :class:`~ragd.stores.postgres.PostgresStore`).

``upsert_document`` is one transaction per document (rows by a pipelined ``executemany``).
``upsert_documents`` is the bulk path: one transaction per call, the documents as one JSON
parameter, the chunks by one binary COPY through psycopg's own ``write_row`` with the column
types read from the chunk table (``set_types``: pgvector's and the tsvector dumpers), rows
built a slice at a time. It measured as fast as the hand-encoded COPY it replaced
(``bench/pg_write_paths.py``: 150 vs 151 us per chunk without the HNSW index, about 4 ms
with it) and is far less code. A large document is staged in
batches (the UNLOGGED ``chunk_staging``, each batch its own transaction) and swapped into
the collection's chunk table by one transaction. Every committed write bumps the
collection's data version.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from ..errors import StoreError, UsageError
from ..types import Chunk
from . import pg_bm25, postgres_sql as Q
from .base import DocumentRecord, checked_embeddings
from .rows import check_chunks, check_document, holds_nul
from .pg_tsvector import TsVector, TsVectorTooLarge, tsvectors

if TYPE_CHECKING:
    from .postgres import _Coll

_EMPTY_JSON = Jsonb({})
_COPY_SLICE = 512  # chunks whose rows a bulk write builds at a time (bounded memory)
_DOC_JSON = json.JSONEncoder(allow_nan=False)  # json.dumps builds an encoder per call
log = logging.getLogger("ragd.store")
SETTLE_ROWS = 256          # chunks written by a store between merges of the GIN pending lists
CLOSE_TIMEOUT = 2.0        # seconds close() waits for a connection to merge them
STAGING_MAX_AGE = 86400.0  # seconds after which a staged write that never finished is cleared


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def documents_json(records: Sequence[DocumentRecord], now: str) -> str:
    """The document rows of a bulk write as one JSON array, for ``jsonb_to_recordset``:
    one parameter instead of an array per column, which psycopg dumps value by value.
    ``now`` stands in for an empty ``ingested_at``. The records have passed
    :func:`~ragd.stores.rows.check_document`."""
    return _DOC_JSON.encode([{"doc_id": r.doc_id, "title": r.title, "source": r.source,
                              "metadata": dict(r.metadata), "content_hash": r.content_hash,
                              "ingested_at": r.ingested_at or now,
                              "source_path": r.source_path} for r in records])


class PgWrites:
    """Document writes: one document or many per transaction (COPY), staged large
    documents, deletes. Uses the store's pooled connections."""

    def _checked(self, coll: _Coll, record: DocumentRecord, chunks: Sequence[Chunk],
                 embeddings: np.ndarray) -> np.ndarray:
        """The embeddings as float32 rows, after the document's checks that precede any
        write (the chunks' own are :func:`~ragd.stores.rows.check_chunks`)."""
        vectors = checked_embeddings(record, chunks, embeddings, coll.info.embed_dims)
        if not np.isfinite(vectors).all():
            raise UsageError(f"document {record.doc_id!r}: embeddings contain NaN or infinity")
        check_document(record)
        return vectors

    @staticmethod
    def _lexical(chunks: Sequence[Chunk]) -> list[TsVector]:
        """Each chunk's binary tsvector."""
        try:
            return tsvectors([c.index_text for c in chunks])
        except TsVectorTooLarge as exc:
            bad = chunks[exc.index]
            raise UsageError(f"document {bad.doc_id!r}, chunk {bad.chunk_index}: {exc}") from None

    @classmethod
    def _chunk_rows(cls, cid: int, chunks: Sequence[Chunk], vectors: Sequence[np.ndarray]
                    ) -> list[tuple[Any, ...]]:
        """The rows of ``chunks`` in :data:`~postgres_sql.WRITE_COLUMNS` order."""
        lexical = cls._lexical(chunks)
        return [(cid, c.doc_id, c.chunk_index, c.chunk_id, c.section_id, c.parent_id, c.kind,
                 c.context, c.text, list(c.tags), Jsonb(dict(c.metadata)) if c.metadata
                 else _EMPTY_JSON, c.tokens, c.start_offset, c.end_offset, c.page, v, tsv)
                for c, v, tsv in zip(chunks, vectors, lexical)]

    _DOC_CONFLICT = (
        " ON CONFLICT (collection_id, doc_id) DO UPDATE SET title = excluded.title, "
        "source = excluded.source, metadata = excluded.metadata, "
        "content_hash = excluded.content_hash, version = d.version + 1, "
        "ingested_at = excluded.ingested_at, source_path = excluded.source_path")
    _UPSERT_DOC = (
        "INSERT INTO documents AS d (collection_id, doc_id, title, source, metadata, "
        "content_hash, version, ingested_at, source_path) "
        "VALUES (%s, %s, %s, %s, %s, %s, 1, %s, %s)" + _DOC_CONFLICT)
    _UPSERT_DOCS = (
        "INSERT INTO documents AS d (collection_id, doc_id, title, source, metadata, "
        "content_hash, version, ingested_at, source_path) SELECT %s, u.doc_id, u.title, "
        "u.source, u.metadata, u.content_hash, 1, u.ingested_at, u.source_path "
        "FROM jsonb_to_recordset(%s::jsonb) AS u(doc_id text, title text, source text, "
        "metadata jsonb, content_hash text, ingested_at text, source_path text)"
        + _DOC_CONFLICT)
    """Many documents in one statement (the bulk path), with :attr:`_UPSERT_DOC`'s effect."""

    def _doc_row(self, cid: int, record: DocumentRecord) -> tuple[Any, ...]:
        return (cid, record.doc_id, record.title, record.source, Jsonb(dict(record.metadata)),
                record.content_hash, record.ingested_at or _now(), record.source_path)

    def upsert_document(self, collection: str, record: DocumentRecord,
                        chunks: Sequence[Chunk], embeddings: np.ndarray) -> None:
        """One transaction: the document row (locked first, so concurrent writers of the
        same document queue), its old chunks deleted, the new ones inserted."""
        coll = self._coll(collection)
        vectors = self._checked(coll, record, chunks, embeddings)
        check_chunks(chunks)
        t = Q.chunk_table(coll.cid)
        rows = self._chunk_rows(coll.cid, chunks, vectors)
        insert = sql.SQL("INSERT INTO {} ({}) VALUES ({})").format(
            t, sql.SQL(", ").join(map(sql.Identifier, Q.WRITE_COLUMNS)),
            sql.SQL(", ").join(sql.Placeholder() * len(Q.WRITE_COLUMNS)))
        with self._conn() as conn:
            with conn.pipeline():
                conn.execute(self._UPSERT_DOC, self._doc_row(coll.cid, record))
                conn.execute(sql.SQL("DELETE FROM {} WHERE collection_id = %s AND doc_id = %s"
                                     ).format(t), (coll.cid, record.doc_id))
                if rows:
                    with conn.cursor() as cur:
                        cur.executemany(insert, rows)
                conn.execute("UPDATE collections SET data_version = data_version + 1 "
                             "WHERE id = %s", (coll.cid,))
            drift = pg_bm25.write_chunks(conn, coll.cid, coll.info.config, [record.doc_id],
                                         chunks)
        self._after_write(coll, drift, len(chunks))

    def refresh_lexical(self, collection: str) -> None:
        """Rewrite the collection's BM25 weights with its current average chunk length (after
        a bulk load: scores are then exactly the SQLite store's)."""
        coll = self._coll(collection)
        with self._conn() as conn:
            pg_bm25.reweight(conn, coll.cid, coll.info.config)
        self._settle(coll.cid)

    def _after_write(self, coll: _Coll, drifted: bool, rows: int = 0) -> None:
        """After a committed write of ``rows`` chunks: BM25 weights rewritten when the
        average length moved, then the GIN indexes' pending entries merged
        (:func:`postgres_sql.settle_gin`) once this store has written
        :data:`SETTLE_ROWS` chunks since it last did (and when it closes): a merge per
        one-document write cost 2 ms of its ~10, and a few hundred chunks' entries pending
        cost a search well under a millisecond."""
        if drifted:
            with self._conn() as conn:
                drifted = pg_bm25.drifted(conn, coll.cid, coll.info.config)
                if drifted:
                    pg_bm25.reweight(conn, coll.cid, coll.info.config)
        if drifted:             # reweighted: every weight row written again
            self._settle(coll.cid)
            return
        unsettled: dict[int, int] = self.__dict__.setdefault("_unsettled", {})
        unsettled[coll.cid] = unsettled.get(coll.cid, 0) + rows
        if unsettled[coll.cid] >= SETTLE_ROWS:
            self._settle(coll.cid)

    def _settle_all(self) -> None:
        """Merge what this store's writes left pending (before it closes)."""
        for cid in [c for c, n in self.__dict__.get("_unsettled", {}).items() if n > 0]:
            try:
                self._settle(cid, timeout=CLOSE_TIMEOUT)
            except StoreError as exc:   # the server gone: closing goes on, autovacuum will
                log.warning("GIN pending lists not merged on close: %s", exc)
                return

    def _settle(self, cid: int, timeout: float | None = None) -> None:
        """Merge the collection's GIN pending lists; a role that does not own the indexes
        leaves them to autovacuum (said once in the log). ``timeout``: seconds to wait for
        a pooled connection (None: the pool's own)."""
        self.__dict__.setdefault("_unsettled", {})[cid] = 0
        if self.__dict__.get("_settle_denied"):
            return
        with self._errors(), self._pool.connection(timeout=timeout) as conn:
            try:
                conn.execute(Q.settle_gin(cid))
            except psycopg.errors.InsufficientPrivilege as exc:
                conn.rollback()
                self.__dict__["_settle_denied"] = True
                log.warning("GIN pending lists left to autovacuum (%s): lexical searches "
                            "are slower until it runs", exc.diag.message_primary)

    # -- large documents: staged in batches, swapped in at once ----------------------------
    def stage_chunks(self, collection: str, job: str, chunks: Sequence[Chunk],
                     embeddings: np.ndarray) -> None:
        """Keep a batch of a large document's chunks aside (their own short transaction)
        until :meth:`commit_staged` moves them all in; nothing is visible before."""
        if not chunks:
            return
        coll = self._coll(collection)
        doc_id = chunks[0].doc_id
        vectors = self._checked(coll, DocumentRecord(doc_id, ""), chunks, embeddings)
        check_chunks(chunks)
        now = time.time()
        rows = [(job, now, *row) for row in self._chunk_rows(coll.cid, chunks, vectors)]
        columns = sql.SQL(", ").join(map(sql.Identifier, ("job", "created_at",
                                                          *Q.WRITE_COLUMNS)))
        with self._conn() as conn:
            if conn.execute("SELECT 1 FROM chunk_staging WHERE job = %s LIMIT 1",
                            (job,)).fetchone() is None:
                conn.execute("DELETE FROM chunk_staging WHERE collection_id = %s AND "
                             "doc_id = %s AND job <> %s", (coll.cid, doc_id, job))
                conn.execute("DELETE FROM chunk_staging WHERE created_at < %s",
                             (now - STAGING_MAX_AGE,))
            with conn.cursor() as cur:
                cur.executemany(sql.SQL("INSERT INTO chunk_staging ({}) VALUES ({})").format(
                    columns, sql.SQL(", ").join(sql.Placeholder() * (len(Q.WRITE_COLUMNS) + 2))),
                    rows)

    def commit_staged(self, collection: str, record: DocumentRecord, job: str,
                      count: int) -> int:
        """One transaction: the document's chunks replaced by the ``count`` chunks staged
        under ``job`` (all of them or nothing). Returns the number written."""
        coll = self._coll(collection)
        check_document(record)
        t = Q.chunk_table(coll.cid)
        columns = sql.SQL(", ").join(map(sql.Identifier, Q.WRITE_COLUMNS))
        with self._conn() as conn:
            conn.execute(self._UPSERT_DOC, self._doc_row(coll.cid, record))
            staged = conn.execute("SELECT count(*) FROM chunk_staging WHERE job = %s AND "
                                  "collection_id = %s AND doc_id = %s",
                                  (job, coll.cid, record.doc_id)).fetchone()[0]
            if staged != count:
                raise StoreError(f"document {record.doc_id!r}: {staged} of its {count} staged "
                                 "chunks are there (another writer of the same document "
                                 "cleared them?); nothing was changed")
            conn.execute(sql.SQL("DELETE FROM {} WHERE collection_id = %s AND doc_id = %s"
                                 ).format(t), (coll.cid, record.doc_id))
            conn.execute(sql.SQL("INSERT INTO {t} ({c}) SELECT {c} FROM chunk_staging "
                                 "WHERE job = %s ORDER BY chunk_index").format(t=t, c=columns),
                         (job,))
            conn.execute("DELETE FROM chunk_staging WHERE job = %s", (job,))
            conn.execute("UPDATE collections SET data_version = data_version + 1 "
                         "WHERE id = %s", (coll.cid,))
            drift = pg_bm25.write_chunks(conn, coll.cid, coll.info.config, [record.doc_id])
        self._after_write(coll, drift, count)
        return count

    def drop_staged(self, collection: str, job: str) -> None:
        """Forget what was staged under ``job`` (a large write that failed)."""
        with self._conn() as conn:
            conn.execute("DELETE FROM chunk_staging WHERE job = %s", (job,))

    def upsert_documents(self, collection: str,
                         items: Sequence[tuple[DocumentRecord, Sequence[Chunk], np.ndarray]]
                         ) -> int:
        """Bulk path: many documents in ONE transaction (all of them or none), chunks loaded
        with one binary COPY. Returns the number of chunks written."""
        coll = self._coll(collection)
        ids = [record.doc_id for record, _, _ in items]
        if len(set(ids)) != len(ids):
            raise UsageError("upsert_documents: a doc_id appears twice in one batch")
        checked = [(r, c, self._checked(coll, r, c, e)) for r, c, e in items]
        if not checked:
            return 0
        all_chunks = [c for _, chunks, _ in checked for c in chunks]
        check_chunks(all_chunks)
        t = Q.chunk_table(coll.cid)
        copy = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT BINARY)").format(
            t, sql.SQL(", ").join(map(sql.Identifier, Q.WRITE_COLUMNS)))
        docs = documents_json([r for r, _, _ in checked], _now())
        all_vectors = np.concatenate([vectors for _, _, vectors in checked])
        with self._conn() as conn:
            types = self._copy_types(conn, coll.cid)
            with conn.cursor() as cur:
                cur.execute(self._UPSERT_DOCS, (coll.cid, docs))
                cur.execute(sql.SQL("DELETE FROM {} WHERE collection_id = %s AND "
                                    "doc_id = ANY(%s::text[])").format(t), (coll.cid, ids))
                with cur.copy(copy) as out:
                    out.set_types(types)
                    for start in range(0, len(all_chunks), _COPY_SLICE):
                        part = slice(start, start + _COPY_SLICE)
                        for row in self._chunk_rows(coll.cid, all_chunks[part],
                                                    all_vectors[part]):
                            out.write_row(row)
                cur.execute("UPDATE collections SET data_version = data_version + 1 "
                            "WHERE id = %s", (coll.cid,))
            drift = pg_bm25.write_chunks(conn, coll.cid, coll.info.config, ids, all_chunks)
        self._after_write(coll, drift, len(all_chunks))
        return len(all_chunks)

    def _copy_types(self, conn: Any, cid: int) -> list[int]:
        """The type oids of :data:`~postgres_sql.WRITE_COLUMNS` in the collection's chunk
        table, read from the server (so no list of types is kept in step by hand)."""
        cache: dict[int, list[int]] = self.__dict__.setdefault("_copy_type_cache", {})
        if cid not in cache:
            found = dict(conn.execute(
                "SELECT attname, atttypid::int FROM pg_attribute WHERE attrelid = %s::regclass "
                "AND attnum > 0 AND NOT attisdropped",
                (Q.chunk_table(cid).as_string(conn),)).fetchall())
            cache[cid] = [found[name] for name in Q.WRITE_COLUMNS]
        return cache[cid]

    def delete_document(self, collection: str, doc_id: str) -> bool:
        cid = self._coll(collection).cid
        if holds_nul(doc_id):
            return False
        with self._conn() as conn:
            pg_bm25.lock(conn, cid)  # before the cascade's rows: as writes and reweights do
            cur = conn.execute("DELETE FROM documents WHERE collection_id = %s AND doc_id = %s",
                               (cid, doc_id))  # its chunks go by ON DELETE CASCADE
            found = cur.rowcount > 0
            if found:
                conn.execute("UPDATE collections SET data_version = data_version + 1 "
                             "WHERE id = %s", (cid,))
            drift = found and pg_bm25.drifted(conn, cid, self._coll(collection).info.config)
        self._after_write(self._coll(collection), drift)
        return found
