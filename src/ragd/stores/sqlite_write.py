"""Writes of the embedded store (a mixin of :class:`~ragd.stores.sqlite.SQLiteStore`).

A document is written in one ``BEGIN IMMEDIATE`` transaction: all its chunks or none. A
large one is staged in batches (``chunk_staging``, each batch its own transaction) and
swapped in by one. Each committed write bumps the collection's data version; the in-memory
indexes get the write as a delta once it is committed (a staged swap gives none: the next
search reloads them).
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Sequence

import numpy as np

from ..analysis import pack_terms
from ..errors import StoreError, UsageError
from ..ids import canonical_json
from ..types import Chunk
from .base import DocumentRecord, checked_embeddings
from .rows import check_chunks, check_document
from .lexical_index import LexicalDelta
from .sqlite_sql import CHUNK_WRITE_COLUMNS, chunk_row, clear_stale_staging
from .vector_cache import Delta


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class SQLiteWrites:
    """Document writes: upserts (one or many documents per transaction), staged large
    documents, deletes. Uses the store's write connection under its lock."""

    def upsert_document(self, collection: str, record: DocumentRecord,
                        chunks: Sequence[Chunk], embeddings: np.ndarray) -> None:
        self.upsert_documents(collection, [(record, chunks, embeddings)])

    def upsert_documents(self, collection: str,
                         items: Sequence[tuple[DocumentRecord, Sequence[Chunk], np.ndarray]]
                         ) -> int:
        """Many documents in ONE transaction (all of them or none); every check runs before
        anything is written. Returns the number of chunks written."""
        ids = [record.doc_id for record, _, _ in items]
        if len(set(ids)) != len(ids):
            raise UsageError("upsert_documents: a doc_id appears twice in one batch")
        with self._lock:
            cid, dims = self._cid(collection), self.get_collection(collection).embed_dims
            checked = [(record, chunks, checked_embeddings(record, chunks, embeddings, dims))
                       for record, chunks, embeddings in items]
            for record, chunks, _ in checked:  # what a row may hold: as PostgreSQL checks
                check_document(record)
                check_chunks(chunks)
            prepared = [(record, chunks, vectors, [pack_terms(c.index_text) for c in chunks])
                        for record, chunks, vectors in checked]
            deltas = []
            with self._transaction():
                for record, chunks, vectors, terms in prepared:
                    version, removed, added = self._write(cid, record, chunks, vectors, terms)
                    keys = [c.key for c in chunks]
                    deltas.append((Delta(version, removed, added, keys, vectors),
                                   LexicalDelta(version, removed, added, keys, terms)))
            for delta, lexical in deltas:  # only once committed
                self._record_delta(cid, delta, lexical)
        return sum(len(chunks) for _, chunks, _, _ in prepared)

    def _put_document(self, cid: int, record: DocumentRecord) -> None:
        """Inside a transaction: insert or update a document's row (its version + 1)."""
        self._conn.execute(
            "INSERT INTO documents (collection_id, doc_id, title, source, metadata, "
            "content_hash, version, ingested_at, source_path) "
            "VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?) "
            "ON CONFLICT (collection_id, doc_id) DO UPDATE SET title = excluded.title, "
            "source = excluded.source, metadata = excluded.metadata, "
            "content_hash = excluded.content_hash, version = documents.version + 1, "
            "ingested_at = excluded.ingested_at, source_path = excluded.source_path",
            (cid, record.doc_id, record.title, record.source,
             canonical_json(dict(record.metadata)), record.content_hash,
             record.ingested_at or _now(), record.source_path))

    def _write(self, cid: int, record: DocumentRecord, chunks: Sequence[Chunk],
               vectors: np.ndarray, terms: Sequence[bytes]
               ) -> tuple[int, np.ndarray, np.ndarray]:
        """Inside a transaction: replace one document's rows. Returns (data version,
        rowids removed, rowids added)."""
        conn = self._conn
        removed = self._delete_rows(cid, record.doc_id)
        self._put_document(cid, record)
        added: list[int] = []
        for chunk, vector, packed in zip(chunks, vectors, terms):
            cur = conn.execute(f"INSERT INTO chunks ({CHUNK_WRITE_COLUMNS}) "
                               f"VALUES ({', '.join('?' * 17)})",
                               chunk_row(cid, chunk, vector, packed))
            rowid = int(cur.lastrowid)
            added.append(rowid)
            conn.executemany(
                "INSERT OR IGNORE INTO chunk_tags (chunk_rowid, collection_id, tag) "
                "VALUES (?, ?, ?)", [(rowid, cid, t) for t in chunk.tags])
        return self._bump(cid), removed, np.array(added, dtype=np.int64)

    # -- large documents: staged in batches, swapped in at once ------------------------
    def stage_chunks(self, collection: str, job: str, chunks: Sequence[Chunk],
                     embeddings: np.ndarray) -> None:
        """Keep a batch of a large document's chunks aside (their own short transaction)
        until :meth:`commit_staged` moves them all in; nothing is visible before."""
        if not chunks:
            return
        with self._lock:
            cid, dims = self._cid(collection), self.get_collection(collection).embed_dims
            doc_id = chunks[0].doc_id
            vectors = checked_embeddings(DocumentRecord(doc_id, ""), chunks, embeddings, dims)
            check_chunks(chunks)
            rows = [(job, time.time(), *chunk_row(cid, c, v, pack_terms(c.index_text)))
                    for c, v in zip(chunks, vectors)]
            with self._transaction():
                if self._conn.execute("SELECT 1 FROM chunk_staging WHERE job = ? LIMIT 1",
                                      (job,)).fetchone() is None:
                    clear_stale_staging(self._conn, cid, doc_id, job, time.time())
                self._conn.executemany(
                    f"INSERT INTO chunk_staging (job, created_at, {CHUNK_WRITE_COLUMNS}) "
                    f"VALUES ({', '.join('?' * 19)})", rows)

    def commit_staged(self, collection: str, record: DocumentRecord, job: str,
                      count: int) -> int:
        """One transaction: the document's chunks replaced by the ``count`` chunks staged
        under ``job`` (all of them or nothing). Returns the number written."""
        check_document(record)
        with self._lock:
            cid = self._cid(collection)
            with self._transaction():
                staged = self._conn.execute(
                    "SELECT count(*) FROM chunk_staging WHERE job = ? AND collection_id = ? "
                    "AND doc_id = ?", (job, cid, record.doc_id)).fetchone()[0]
                if staged != count:
                    raise StoreError(f"document {record.doc_id!r}: {staged} of its {count} "
                                     "staged chunks are there (another writer of the same "
                                     "document cleared them?); nothing was changed")
                self._delete_rows(cid, record.doc_id)
                self._put_document(cid, record)
                self._conn.execute(
                    f"INSERT INTO chunks ({CHUNK_WRITE_COLUMNS}) SELECT {CHUNK_WRITE_COLUMNS} "
                    "FROM chunk_staging WHERE job = ? ORDER BY chunk_index", (job,))
                self._conn.execute(
                    "INSERT OR IGNORE INTO chunk_tags (chunk_rowid, collection_id, tag) "
                    "SELECT c.id, c.collection_id, j.value FROM chunks c, json_each(c.tags) j "
                    "WHERE c.collection_id = ? AND c.doc_id = ?", (cid, record.doc_id))
                self._conn.execute("DELETE FROM chunk_staging WHERE job = ?", (job,))
                self._bump(cid)
            # No delta for the in-memory indexes (the rows are not in memory): the version
            # they cannot explain makes the next search reload them.
        return count

    def drop_staged(self, collection: str, job: str) -> None:
        """Forget what was staged under ``job`` (a large write that failed)."""
        if self.read_only:
            return
        with self._lock, self._transaction():
            self._conn.execute("DELETE FROM chunk_staging WHERE job = ?", (job,))

    def _delete_rows(self, cid: int, doc_id: str) -> np.ndarray:
        """Inside a transaction: remove a document's chunks; returns their rowids."""
        rows = self._conn.execute("SELECT id FROM chunks WHERE collection_id = ? AND doc_id = ?",
                                  (cid, doc_id)).fetchall()
        self._conn.execute("DELETE FROM chunks WHERE collection_id = ? AND doc_id = ?",
                           (cid, doc_id))
        return np.array([r[0] for r in rows], dtype=np.int64)

    def _bump(self, cid: int) -> int:
        self._conn.execute("UPDATE collections SET data_version = data_version + 1 WHERE id = ?",
                           (cid,))
        return int(self._conn.execute("SELECT data_version FROM collections WHERE id = ?",
                                      (cid,)).fetchone()[0])

    def _record_delta(self, cid: int, delta: Delta, lexical: LexicalDelta) -> None:
        with self._cache_lock:
            if cid in self._caches:
                self._caches[cid].record(delta)
            if cid in self._lexical:
                self._lexical[cid].record(lexical)
            self._ann_record(cid, delta)

    def delete_document(self, collection: str, doc_id: str) -> bool:
        with self._lock:
            cid = self._cid(collection)
            with self._transaction():
                removed = self._delete_rows(cid, doc_id)
                cur = self._conn.execute(
                    "DELETE FROM documents WHERE collection_id = ? AND doc_id = ?", (cid, doc_id))
                found = cur.rowcount > 0
                version = self._bump(cid) if found else None
            if version is not None:
                none = np.zeros(0, np.int64)
                dims = self.get_collection(collection).embed_dims
                self._record_delta(cid, Delta(version, removed, none, [],
                                              np.zeros((0, dims), np.float32)),
                                   LexicalDelta(version, removed, none, [], []))
            return found
