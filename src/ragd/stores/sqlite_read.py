"""Reads of the embedded store, one committed state each (:class:`SQLiteSnapshot`).

A snapshot is a read transaction on a connection of its own (WAL: ``BEGIN`` and a first
``SELECT`` fix the state it sees until ``COMMIT``; writers go on meanwhile). Everything a
search reads goes through it: the collection's data version, filters, section lookups,
chunk texts, and the in-memory indexes, which are taken at exactly the version read in
this transaction: the current index when it is at that version, one brought forward by
this process's own deltas, one reloaded from this transaction's rows, or (when another
reader already moved the index past it) a recent view kept for the purpose, else a private
load. So a result never mixes two states of the store, and an index is never stamped with
a version its rows do not have.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from ..analysis import query_analyze, term_hash
from ..errors import StoreError, UsageError
from ..types import Filters, search_text
from .base import CollectionInfo, Hit, Key, StoredChunk
from . import lexical_file
from .lexical_index import DEFAULT_B, DEFAULT_K1, LexicalIndex, LexicalView
from .sqlite_sql import CHUNK_COLUMNS, chunk_from_row, filter_sql
from .vector_cache import VectorCache, VectorView

if TYPE_CHECKING:
    from .sqlite import SQLiteStore

NO_FILTERS = Filters()


class SQLiteSnapshot:
    """One collection as of one committed state. Thread-safe: the halves of a hybrid search
    may use it at once (SQL is serialised on its connection; scoring runs outside)."""

    def __init__(self, store: SQLiteStore, conn: sqlite3.Connection, cid: int,
                 info: CollectionInfo, version: int) -> None:
        self.store = store
        self.collection = info.name
        self.info = info
        self.data_version = version
        self._conn = conn
        self._cid = cid
        self._lock = threading.Lock()
        self._vectors: VectorView | None = None
        self._lexical: LexicalView | None = None

    def _rows(self, sql: str, params: Sequence[Any]) -> list[tuple]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"store {self.store.url}: {exc}") from exc

    def _allowed(self, filters: Filters) -> np.ndarray | None:
        """Rowids that pass ``filters`` (None when there are none)."""
        if not filters:
            return None
        where, params = filter_sql(filters)
        return np.array([r[0] for r in self._rows(
            f"SELECT c.id FROM chunks c WHERE c.collection_id = ? AND {where}",
            [self._cid, *params])], dtype=np.int64)

    def _query_vector(self, query: np.ndarray) -> np.ndarray:
        query = np.asarray(query, dtype=np.float32).reshape(-1)
        if query.shape[0] != self.info.embed_dims:
            raise UsageError(f"query vector has {query.shape[0]} dims; collection "
                             f"{self.collection!r} has {self.info.embed_dims}")
        return query

    # -- searches ----------------------------------------------------------------------
    def vector_search(self, query: np.ndarray, limit: int, filters: Filters = NO_FILTERS, *,
                      exact: bool | None = None, ef_search: int | None = None) -> list[Hit]:
        """Top ``limit`` by cosine: exactly, or through the collection's graph (see
        :mod:`ragd.stores.sqlite_ann` for which, and for ``exact`` and ``ef_search``)."""
        query = self._query_vector(query)
        if limit <= 0:
            return []
        if not filters and exact is not True:
            hits = self.store._ann_hits(self, query, limit, exact, ef_search)
            if hits is not None:
                return hits
        with self._lock:
            if self._vectors is None:
                self._vectors = self.store._vector_view(self._cid, self.info.embed_dims,
                                                        self.data_version, self._rows)
            view, allowed = self._vectors, self._allowed(filters)
        # The product over the whole matrix runs outside the locks (numpy releases the
        # GIL), so a hybrid search's lexical half can run beside it.
        return [Hit(k[0], k[1], s) for k, s in view.top(query, limit, allowed)]

    @property
    def cid(self) -> int:
        return self._cid

    def lexical_view(self) -> LexicalView:
        """The BM25 index as of this snapshot (built, loaded or synced on first use)."""
        with self._lock:
            if self._lexical is None:
                self._lexical = self.store._lexical_view(
                    self._cid, self.data_version, self._rows,
                    {"name": self.info.name, "created_at": self.info.created_at})
            return self._lexical

    def lexical_search(self, terms: Sequence[str], limit: int,
                       filters: Filters = NO_FILTERS) -> list[Hit]:
        if limit <= 0 or not terms:
            return []
        view = self.lexical_view()
        with self._lock:
            allowed = self._allowed(filters)
        return lexical_hits(view, terms, limit, allowed, self.info.config)

    def find_sections(self, section_ids: Sequence[str], limit: int,
                      filters: Filters = NO_FILTERS) -> list[Key]:
        wanted = list(dict.fromkeys(section_ids))
        if not wanted or limit <= 0:
            return []
        where, params = filter_sql(filters)
        with self._lock:
            rows = self._rows(
                f"SELECT c.doc_id, c.chunk_index FROM chunks c WHERE c.collection_id = ? "
                f"AND c.section_id IN ({','.join('?' * len(wanted))}) "
                + (f"AND {where} " if where else "")
                + "ORDER BY c.doc_id, c.chunk_index LIMIT ?",
                [self._cid, *wanted, *params, limit])
        return [(r[0], int(r[1])) for r in rows]

    # -- reading -----------------------------------------------------------------------
    def _keyed_rows(self, columns: str, keys: Sequence[Key], join: str = "") -> list[tuple]:
        """``columns`` of the chunks (alias ``c``, ``join`` added) whose keys are ``keys``."""
        ordered = sorted(set(keys))
        rows: list[tuple] = []
        with self._lock:
            for start in range(0, len(ordered), 400):
                part = ordered[start:start + 400]
                # The exact keys as a VALUES table joined on the unique (collection, doc_id,
                # chunk_index) index: one probe per key (two IN lists probed their product).
                rows += self._rows(
                    f"WITH k(doc_id, chunk_index) AS (VALUES {','.join(['(?, ?)'] * len(part))}) "
                    f"SELECT {columns} FROM k "
                    "JOIN chunks c ON c.collection_id = ? AND c.doc_id = k.doc_id "
                    f"AND c.chunk_index = k.chunk_index {join}",
                    [*(v for key in part for v in key), self._cid])
        return rows

    def get_chunks(self, keys: Sequence[Key]) -> dict[Key, StoredChunk]:
        out: dict[Key, StoredChunk] = {}
        for row in self._keyed_rows(
                f"{CHUNK_COLUMNS}, d.title", keys,
                "JOIN documents d ON d.collection_id = c.collection_id AND d.doc_id = c.doc_id"):
            chunk = chunk_from_row(row)
            out[chunk.key] = StoredChunk(chunk, row[14])
        return out

    def cosines(self, query: np.ndarray, keys: Sequence[Key]) -> dict[Key, float]:
        query = self._query_vector(query)
        return {(doc_id, int(index)): float(np.frombuffer(blob, dtype=np.float32) @ query)
                for doc_id, index, blob in self._keyed_rows(
                    "c.doc_id, c.chunk_index, c.embedding", keys)}

    def search_texts(self) -> list[str]:
        """Every chunk's text (context line, then text), in rowid order: what the
        collection's word vocabulary is read from (the BM25 postings hold term hashes
        only, so the words themselves are not in them)."""
        with self._lock:
            rows = self._rows("SELECT context, text FROM chunks WHERE collection_id = ? "
                              "ORDER BY id", (self._cid,))
        return [search_text(r[0] or "", r[1] or "") for r in rows]

    def iter_rows(self, sql: str, params: Sequence[Any]) -> list[tuple]:
        """Rows of any read in this snapshot (the store's listings use it)."""
        with self._lock:
            return self._rows(sql, params)


def vector_view(cache: VectorCache, cid: int, dims: int, version: int, rows: Any
                ) -> VectorView:
    """The cache's rows as of ``version``, loaded with ``rows(sql, params)`` (the reader's
    snapshot) when neither the cache nor its recent views nor its deltas give that version.
    The caller holds the store's cache lock."""
    view = cache.view_at(version)
    if view is not None:
        return view
    if cache.version < version and cache.sync(version):
        return cache.view()
    found = rows("SELECT id, doc_id, chunk_index, embedding FROM chunks WHERE collection_id = ? "
                 "ORDER BY id", (cid,))
    matrix = (np.frombuffer(b"".join(r[3] for r in found), dtype=np.float32)
              .reshape(len(found), dims).copy())
    rowids = np.array([r[0] for r in found], dtype=np.int64)
    keys = [(r[1], int(r[2])) for r in found]
    if cache.version < version:
        cache.load(version, rowids, keys, matrix)
        return cache.view()
    return VectorView(rowids, keys, matrix, version)  # older than the cache: private


def lexical_hits(view: LexicalView, terms: Sequence[str], limit: int,
                 allowed: np.ndarray | None, config: Mapping[str, Any]) -> list[Hit]:
    """The best ``limit`` rows of ``view`` by BM25 for query words ``terms`` (analysed as at
    ingest), with the collection's ``bm25_k1`` / ``bm25_b``, as hits."""
    hashes = [term_hash(t) for t in query_analyze(terms)]
    if not hashes or limit <= 0:
        return []
    k1 = float(config.get("bm25_k1", DEFAULT_K1))
    b = float(config.get("bm25_b", DEFAULT_B))
    return [Hit(k[0], k[1], s) for k, s in view.top(hashes, limit, allowed, k1, b)]


def lexical_view(index: LexicalIndex, cid: int, version: int, rows: Any,
                 saved: Path | None = None, ident: dict | None = None,
                 writable: bool = False) -> LexicalView:
    """:func:`vector_view` for the BM25 index, which is first looked for in the file
    ``saved`` (:mod:`ragd.stores.lexical_file`; ``ident`` names the collection it must be
    of), and saved there after a full build when ``writable``."""
    view = index.view_at(version)
    if view is not None:
        return view
    if index.version < version and index.sync(version):
        return index.view()
    if saved is not None:
        opened = lexical_file.open_view(saved, cid, version, ident or {}, rows)
        if opened is not None:
            if index.version < version:
                index.load_view(*opened)
                return index.view()
            return opened[0]
    found = rows("SELECT id, doc_id, chunk_index, terms FROM chunks WHERE collection_id = ? "
                 "ORDER BY id", (cid,))
    rowids = np.array([r[0] for r in found], dtype=np.int64)
    keys = [(r[1], int(r[2])) for r in found]
    terms = [r[3] for r in found]
    del found
    target = index if index.version < version else LexicalIndex()  # older: private
    target.load(version, rowids, keys, terms)
    del terms
    if saved is not None and writable and target is index:
        lexical_file.save_view(saved, index.view(), ident or {})
    return target.view()
