"""The embedded store: one SQLite file (stdlib sqlite3, WAL), BM25 + exact numpy vectors.

Lexical search: each chunk's analysed terms are stored with it and scored by
BM25 in memory (:class:`LexicalIndex`; Snowball stems, stop words removed,
k1 1.2 and b 0.75, the classic defaults). Vector search: float32 blobs,
searched exactly in memory by :class:`VectorCache`, or (large collections) through an
HNSW graph saved beside the file (:mod:`~ragd.stores.sqlite_ann`). Both caches load on
first use and follow this process's writes by deltas. The BM25 postings are saved beside
the file (``<file>-c<collection id>.lexical``, :mod:`~ragd.stores.lexical_file`) when
built, and mapped by the next process instead of being rebuilt. Writes
(:mod:`~ragd.stores.sqlite_write`): a
document in one ``BEGIN IMMEDIATE`` transaction, all its chunks or none.

Reads go through :meth:`SQLiteStore.snapshot` (:mod:`ragd.stores.sqlite_read`): a read
transaction on a connection of its own, so one search sees one committed state while
writers go on. A store file this process cannot write is opened read-only (``mode=ro``;
``immutable=1`` when its WAL files cannot be created either): searches work, writes raise
:class:`~ragd.stores.base.ReadOnlyStoreError`.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping, Sequence
from urllib.parse import quote

import numpy as np

from ..errors import (EmbedModelMismatchError, StoreError, UnknownCollectionError, UsageError,
                      VectorDBUnavailableError)
from ..ids import canonical_json
from ..types import Chunk, Filters
from .base import CollectionInfo, DocumentRecord, Hit, Key, ReadOnlyStoreError, StoredChunk
from .lexical_file import segment_path
from .lexical_index import LexicalIndex, LexicalView
from .sqlite_ann import SQLiteVectorIndex
from .sqlite_read import NO_FILTERS, SQLiteSnapshot, lexical_hits, lexical_view, vector_view
from .sqlite_sql import CHUNK_COLUMNS, check_schema, chunk_from_row, migrate
from .sqlite_write import SQLiteWrites
from .vector_cache import VectorCache, VectorView

log = logging.getLogger("ragd.store")
_IDLE_READERS = 8  # read connections kept open between snapshots


@lru_cache(maxsize=64)
def _config(text: str) -> Mapping[str, Any]:
    """A collection's config as stored (JSON), parsed once, read-only."""
    return MappingProxyType(json.loads(text))


def _read_only_reason(path: Path) -> str:
    """Why this process cannot write the store at ``path`` (empty when it can): an existing
    file or its directory (where SQLite keeps the WAL files) without write permission."""
    if not path.exists():
        return ""
    if not os.access(path, os.W_OK):
        return "the file is not writable"
    if not os.access(path.parent, os.W_OK):
        return "its directory is not writable"
    return ""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class SQLiteStore(SQLiteWrites, SQLiteVectorIndex):
    """A ragd store in one SQLite file. Thread-safe through one lock per store."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.url = str(self.path)
        self.read_only = ""  # why the store is read-only; empty when it is writable
        try:
            self.read_only = _read_only_reason(self.path)
            if not self.read_only:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._uri = self._open_uri()
            self._conn = self._connect()
            if not self.read_only:
                self._conn.execute("PRAGMA journal_mode=WAL")
                migrate(self._conn, self.path)
            else:
                check_schema(self._conn, self.path)
        except (sqlite3.DatabaseError, OSError) as exc:
            log.error("cannot open store %s: %s", self.path, exc)
            raise VectorDBUnavailableError(f"cannot open store {self.path}: {exc}") from exc
        self._lock = threading.RLock()        # the write connection
        self._cache_lock = threading.Lock()   # the in-memory indexes
        self._pool_lock = threading.Lock()    # idle read connections
        self._idle: list[sqlite3.Connection] = []
        self._closed = False
        self._caches: dict[int, VectorCache] = {}
        self._lexical: dict[int, LexicalIndex] = {}
        self._anns = {}
        self._sizes = {}
        self._miss_version = threading.local()

    def _open_uri(self) -> str:
        """The URI to open: read-write; or ``mode=ro``, plus ``immutable=1`` when the WAL
        files cannot be created (nobody can write the store then)."""
        base = "file:" + quote(str(self.path.resolve() if self.read_only else self.path))
        if not self.read_only:
            return base
        try:
            probe = sqlite3.connect(base + "?mode=ro", uri=True, isolation_level=None)
            try:
                probe.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return base + "?mode=ro"
            finally:
                probe.close()
        except sqlite3.OperationalError:
            return base + "?mode=ro&immutable=1"

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._uri, uri=True, isolation_level=None,
                               check_same_thread=False, timeout=30.0)
        if not self.read_only:
            conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=30000")
        return conn

    def _writable(self) -> None:
        if self.read_only:
            raise ReadOnlyStoreError(f"store {self.url} is read-only ({self.read_only}): "
                                     "cannot write to it; searches still work")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT; any failure rolls everything back."""
        self._writable()
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except sqlite3.Error as exc:
            self._conn.execute("ROLLBACK")
            raise StoreError(f"store {self.url}: {exc}") from exc
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    # -- snapshots -------------------------------------------------------------------
    def _reader(self) -> sqlite3.Connection:
        with self._pool_lock:
            if self._closed:
                raise StoreError(f"store {self.url} is closed")
            if self._idle:
                return self._idle.pop()
        try:
            return self._connect()
        except sqlite3.Error as exc:
            raise VectorDBUnavailableError(f"cannot open store {self.path}: {exc}") from exc

    def _release(self, conn: sqlite3.Connection) -> None:
        with self._pool_lock:
            if not self._closed and len(self._idle) < _IDLE_READERS:
                self._idle.append(conn)
                return
        conn.close()

    @contextmanager
    def snapshot(self, collection: str, *, parallel: bool = False
                 ) -> Iterator[SQLiteSnapshot]:
        """``collection`` as of one committed state, for as long as the block runs (two
        threads may use it at once whatever ``parallel`` says: scoring runs outside SQL)."""
        conn = self._reader()
        try:
            conn.execute("BEGIN")
            row = conn.execute(
                "SELECT id, name, embed_model, embed_dims, config, created_at, data_version "
                "FROM collections WHERE name = ?", (collection,)).fetchone()
            if row is None:
                self._collection_row(collection)  # raises UnknownCollectionError
            yield SQLiteSnapshot(self, conn, int(row[0]), self._info(row), int(row[6]))
        except sqlite3.Error as exc:
            raise StoreError(f"store {self.url}: {exc}") from exc
        finally:
            try:
                if conn.in_transaction:
                    conn.execute("COMMIT")
                self._release(conn)
            except sqlite3.Error:
                conn.close()

    def _vector_view(self, cid: int, dims: int, version: int, rows: Any) -> VectorView:
        with self._cache_lock:
            cache = self._caches.get(cid)
            if cache is None:
                cache = self._caches[cid] = VectorCache(dims)
            return vector_view(cache, cid, dims, version, rows)

    def _lexical_view(self, cid: int, version: int, rows: Any, ident: dict) -> LexicalView:
        with self._cache_lock:
            index = self._lexical.get(cid)
            if index is None:
                index = self._lexical[cid] = LexicalIndex()
            return lexical_view(index, cid, version, rows, segment_path(self.path, cid), ident,
                                not self.read_only)

    def _index_files(self, cid: int) -> list[Path]:
        """The files of collection ``cid``'s persisted indexes (lexical, approximate)."""
        return sorted(self.path.parent.glob(f"{self.path.name}-c{cid}.*"))

    # -- query cache -----------------------------------------------------------------
    # A value is stored under the data version its computation saw. The store cannot see the
    # computation, only its ends: cache_get notes the version at a miss (per thread), and
    # cache_put stores nothing when a write has landed since, as the value may predate it.
    def cache_get(self, collection: str, key: str, max_age: float, now: float) -> str | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT c.data_version, q.value FROM collections c LEFT JOIN query_cache q "
                "ON q.collection_id = c.id AND q.key = ? AND q.data_version = c.data_version "
                "AND q.created_at >= ? AND q.created_at <= ? WHERE c.name = ?",
                (key, now - max_age, now, collection)).fetchone()
        if row is None:
            return None
        if row[1] is None:
            self._miss_version.value = (collection, key, int(row[0]))
        return row[1]

    def cache_put(self, collection: str, key: str, value: str, now: float) -> None:
        if self.read_only:
            return  # a cache is an optimisation: a read-only store goes without
        seen = getattr(self._miss_version, "value", None)
        self._miss_version.value = None
        with self._lock:
            cid = self._cid(collection)
            with self._transaction():
                version = self._data_version(cid)
                if seen is not None and seen[:2] == (collection, key) and seen[2] != version:
                    return
                self._conn.execute("DELETE FROM query_cache WHERE collection_id = ? AND "
                                   "data_version < ?", (cid, version))
                self._conn.execute(
                    "INSERT OR REPLACE INTO query_cache (collection_id, key, data_version, "
                    "created_at, value) VALUES (?, ?, ?, ?, ?)", (cid, key, version, now, value))

    # -- collections -----------------------------------------------------------------
    def _collection_row(self, name: str) -> tuple:
        row = self._conn.execute(
            "SELECT id, name, embed_model, embed_dims, config, created_at FROM collections "
            "WHERE name = ?", (name,)).fetchone()
        if row is None:
            known = [r[0] for r in self._conn.execute("SELECT name FROM collections ORDER BY name")]
            raise UnknownCollectionError(
                f"unknown collection {name!r} in store {self.url} "
                f"(collections: {', '.join(known) if known else 'none'})")
        return row

    @staticmethod
    def _info(row: tuple) -> CollectionInfo:
        return CollectionInfo(name=row[1], embed_model=row[2], embed_dims=int(row[3]),
                              config=json.loads(row[4]), created_at=row[5])

    def _cid(self, name: str) -> int:
        return int(self._collection_row(name)[0])

    def create_collection(self, name: str, embed_model: str, embed_dims: int,
                          config: Mapping[str, Any]) -> CollectionInfo:
        if not name or not name.strip():
            raise UsageError("collection name must not be empty")
        with self._lock:
            try:
                info = self._info(self._collection_row(name))
            except UnknownCollectionError:
                info = None
            if info is not None:
                EmbedModelMismatchError.check(name, (info.embed_model, info.embed_dims),
                                              (embed_model, embed_dims))
                return info
            with self._transaction():
                self._conn.execute(
                    "INSERT INTO collections (name, embed_model, embed_dims, config, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (name, embed_model, int(embed_dims), canonical_json(dict(config)), _now()))
            return self._info(self._collection_row(name))

    def get_collection(self, name: str) -> CollectionInfo:
        with self._lock:
            return self._info(self._collection_row(name))

    def list_collections(self) -> list[CollectionInfo]:
        with self._lock:
            rows = self._conn.execute(
                "SELECT id, name, embed_model, embed_dims, config, created_at FROM collections "
                "ORDER BY name").fetchall()
        return [self._info(r) for r in rows]

    def drop_collection(self, name: str) -> None:
        with self._lock:
            cid = self._cid(name)
            with self._transaction():
                self._conn.execute("DELETE FROM chunks WHERE collection_id = ?", (cid,))
                self._conn.execute("DELETE FROM documents WHERE collection_id = ?", (cid,))
                self._conn.execute("DELETE FROM collections WHERE id = ?", (cid,))
            with self._cache_lock:
                self._caches.pop(cid, None)
                self._lexical.pop(cid, None)
                self._anns.pop(cid, None)
                for path in self._index_files(cid):
                    path.unlink(missing_ok=True)

    # -- documents -------------------------------------------------------------------
    @staticmethod
    def _record(row: tuple) -> DocumentRecord:
        return DocumentRecord(doc_id=row[0], title=row[1], source=row[2],
                              metadata=json.loads(row[3]), content_hash=row[4],
                              version=int(row[5]), ingested_at=row[6], source_path=row[7])

    _DOC_SQL = ("SELECT doc_id, title, source, metadata, content_hash, version, ingested_at, "
                "source_path FROM documents WHERE collection_id = ?")

    def get_document(self, collection: str, doc_id: str) -> DocumentRecord | None:
        with self._lock:
            row = self._conn.execute(self._DOC_SQL + " AND doc_id = ?",
                                     (self._cid(collection), doc_id)).fetchone()
        return self._record(row) if row else None

    def list_documents(self, collection: str) -> list[DocumentRecord]:
        # read in a snapshot, as chunk_counts is: a listing does not wait behind a write
        # holding the write connection (an ingest batch), it sees the last committed state
        with self.snapshot(collection) as snap:
            rows = snap.iter_rows(self._DOC_SQL + " ORDER BY doc_id", (snap._cid,))
        return [self._record(r) for r in rows]

    def chunk_counts(self, collection: str) -> dict[str, int]:
        with self.snapshot(collection) as snap:
            rows = snap.iter_rows("SELECT doc_id, count(*) FROM chunks WHERE collection_id = ? "
                                  "GROUP BY doc_id", (snap._cid,))
        return {r[0]: int(r[1]) for r in rows}

    def document_chunks(self, collection: str, doc_id: str) -> list[StoredChunk]:
        with self.snapshot(collection) as snap:
            rows = snap.iter_rows(
                f"SELECT {CHUNK_COLUMNS}, d.title FROM chunks c JOIN documents d ON "
                "d.collection_id = c.collection_id AND d.doc_id = c.doc_id "
                "WHERE c.collection_id = ? AND c.doc_id = ? ORDER BY c.chunk_index",
                (snap._cid, doc_id))
        return [StoredChunk(chunk_from_row(r), r[14]) for r in rows]

    def documents_from(self, collection: str, source_path: str) -> list[DocumentRecord]:
        if not source_path:
            return []
        with self._lock:
            rows = self._conn.execute(self._DOC_SQL + " AND source_path = ? ORDER BY doc_id",
                                      (self._cid(collection), source_path)).fetchall()
        return [self._record(r) for r in rows]

    # -- reads (each one snapshot) --------------------------------------------------
    def _data_version(self, cid: int) -> int:
        return int(self._conn.execute("SELECT data_version FROM collections WHERE id = ?",
                                      (cid,)).fetchone()[0])

    def data_version(self, collection: str) -> int:
        """A counter bumped by every committed write to the collection."""
        with self.snapshot(collection) as snap:
            return snap.data_version

    def vector_search(self, collection: str, query: np.ndarray, limit: int,
                      filters: Filters = NO_FILTERS, *, exact: bool | None = None,
                      ef_search: int | None = None) -> list[Hit]:
        with self.snapshot(collection) as snap:
            return snap.vector_search(query, limit, filters, exact=exact, ef_search=ef_search)

    def lexical_search(self, collection: str, terms: Sequence[str], limit: int,
                       filters: Filters = NO_FILTERS) -> list[Hit]:
        if not filters:
            current = self._current_lexical(collection)
            if current is not None:
                return lexical_hits(current[0], terms, limit, None, current[1])
        with self.snapshot(collection) as snap:
            return snap.lexical_search(terms, limit, filters)

    def _current_lexical(self, collection: str) -> tuple[LexicalView, Mapping[str, Any]] | None:
        """The collection's BM25 view and settings when the index in memory is at the
        committed data version, read with one statement and no transaction: a version's
        view never changes, so an unfiltered search needs nothing else read with it (and
        skips the snapshot's BEGIN / COMMIT). None: take the snapshot's way."""
        conn = self._reader()
        try:
            row = conn.execute("SELECT id, config, data_version FROM collections WHERE name = ?",
                               (collection,)).fetchone()
        except sqlite3.Error:
            conn.close()
            return None
        self._release(conn)
        if row is None:
            return None
        with self._cache_lock:
            index = self._lexical.get(int(row[0]))
            view = index.view_at(int(row[2])) if index is not None else None
        return None if view is None else (view, _config(row[1]))

    def refresh_lexical(self, collection: str) -> None:
        with self.snapshot(collection) as snap:
            cid = snap.cid
            with self._cache_lock:
                self._lexical.pop(cid, None)
            if not self.read_only:
                segment_path(self.path, cid).unlink(missing_ok=True)
            snap.lexical_view()  # a full build from the rows, saved when writable

    def find_sections(self, collection: str, section_ids: Sequence[str], limit: int,
                      filters: Filters = NO_FILTERS) -> list[Key]:
        with self.snapshot(collection) as snap:
            return snap.find_sections(section_ids, limit, filters)

    def get_chunks(self, collection: str, keys: Sequence[Key]) -> dict[Key, StoredChunk]:
        with self.snapshot(collection) as snap:
            return snap.get_chunks(keys)

    def iter_chunks(self, collection: str) -> Iterator[tuple[Chunk, np.ndarray]]:
        with self.snapshot(collection) as snap:
            rows = snap.iter_rows(
                f"SELECT {CHUNK_COLUMNS}, c.embedding FROM chunks c WHERE c.collection_id = ? "
                "ORDER BY c.doc_id, c.chunk_index", (snap._cid,))
        for row in rows:
            yield chunk_from_row(row), np.frombuffer(row[14], dtype=np.float32)

    def stats(self, collection: str) -> dict[str, Any]:
        with self._lock:
            info = self.get_collection(collection)
            cid = self._cid(collection)
            docs = self._conn.execute("SELECT count(*) FROM documents WHERE collection_id = ?",
                                      (cid,)).fetchone()[0]
            chunks, tokens = self._conn.execute(
                "SELECT count(*), coalesce(sum(tokens), 0) FROM chunks WHERE collection_id = ?",
                (cid,)).fetchone()
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*")
                   if p.is_file())
        return {"store": self.url, "backend": "sqlite", "collection": info.name,
                "embed_model": info.embed_model, "embed_dims": info.embed_dims,
                "documents": int(docs), "chunks": int(chunks), "tokens": int(tokens),
                "bytes": size, "created_at": info.created_at,
                "vector_index": self._ann_stats(cid)}

    def close(self) -> None:
        with self._pool_lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()
        with self._lock:
            self._conn.close()
        with self._cache_lock:
            self._caches.clear()
            self._lexical.clear()
            self._ann_close()
