"""The embedded store: one SQLite file (stdlib sqlite3, WAL), FTS5 + exact numpy vectors.

Lexical search: a per-collection FTS5 table (porter stemming, unicode61,
diacritics folded) ranked by bm25. Vector search: float32 blobs, searched
exactly in memory by :class:`VectorCache`. A document is written in one
``BEGIN IMMEDIATE`` transaction: all its chunks or none.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from ..errors import EmbedModelMismatchError, StoreError, UnknownCollectionError, UsageError
from ..ids import canonical_json
from ..types import Chunk, Filters
from .base import CollectionInfo, DocumentRecord, Hit, Key, StoredChunk, rank_hits
from .vector_cache import Delta, VectorCache

SCHEMA_VERSION = 1
_CHUNK_COLUMNS = ("c.doc_id, c.chunk_index, c.chunk_id, c.section_id, c.parent_id, c.kind, "
                  "c.context, c.text, c.tags, c.metadata, c.tokens, c.start_offset, "
                  "c.end_offset, c.page")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _json_filter_value(value: Any) -> tuple[str, Any]:
    """(json_each type, json_each value) that a top-level metadata value has in SQLite."""
    if value is None:
        return "null", None
    if value is True:
        return "true", 1
    if value is False:
        return "false", 0
    if isinstance(value, int):
        return "integer", value
    if isinstance(value, float):
        return ("integer", int(value)) if value.is_integer() else ("real", value)
    if isinstance(value, str):
        return "text", value
    if isinstance(value, (list, tuple)):
        return "array", json.dumps(list(value), separators=(",", ":"), ensure_ascii=False)
    if isinstance(value, dict):
        return "object", json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    raise UsageError(f"metadata filter value {value!r} is not a JSON value")


def _filter_sql(filters: Filters, alias: str = "c") -> tuple[str, list[Any]]:
    """SQL conditions (joined by AND) and parameters for ``filters``; values are parameters only."""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.tags_any:
        marks = ",".join("?" * len(filters.tags_any))
        clauses.append(f"EXISTS (SELECT 1 FROM chunk_tags t WHERE t.chunk_rowid = {alias}.id "
                       f"AND t.tag IN ({marks}))")
        params.extend(filters.tags_any)
    if filters.tags_all:
        wanted = sorted(set(filters.tags_all))
        marks = ",".join("?" * len(wanted))
        clauses.append(f"(SELECT count(*) FROM chunk_tags t WHERE t.chunk_rowid = {alias}.id "
                       f"AND t.tag IN ({marks})) = ?")
        params.extend(wanted)
        params.append(len(wanted))
    for key in sorted(filters.metadata):
        kind, value = _json_filter_value(filters.metadata[key])
        test = "j.value IS NULL" if kind == "null" else "j.value = ?"
        clauses.append(f"EXISTS (SELECT 1 FROM json_each({alias}.metadata) j "
                       f"WHERE j.key = ? AND j.type = ? AND {test})")
        params.extend([key, kind] if kind == "null" else [key, kind, value])
    return " AND ".join(clauses), params


class SQLiteStore:
    """A ragd store in one SQLite file. Thread-safe through one lock per store."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.url = str(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(str(self.path), isolation_level=None,
                                         check_same_thread=False, timeout=30.0)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.execute("PRAGMA busy_timeout=30000")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open store {self.path}: {exc}") from exc
        self._lock = threading.RLock()
        self._caches: dict[int, VectorCache] = {}

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT; any failure rolls everything back."""
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

    # -- schema ---------------------------------------------------------------------
    def _migrate(self) -> None:
        row = None
        tables = {r[0] for r in self._conn.execute("SELECT name FROM sqlite_master")}
        if "ragd_meta" in tables:
            row = self._conn.execute(
                "SELECT value FROM ragd_meta WHERE key = 'schema_version'").fetchone()
        if row is not None and int(row[0]) > SCHEMA_VERSION:
            raise StoreError(f"store {self.path} has schema version {row[0]}; this ragd "
                             f"supports up to {SCHEMA_VERSION}: upgrade ragd")
        if row is None:
            sql = (resources.files("ragd.stores") / "schema_sqlite.sql").read_text("utf-8")
            self._conn.executescript("BEGIN;" + sql + "COMMIT;")
            self._conn.execute("INSERT OR REPLACE INTO ragd_meta VALUES ('schema_version', ?)",
                               (str(SCHEMA_VERSION),))

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
                if (info.embed_model, info.embed_dims) != (embed_model, int(embed_dims)):
                    raise EmbedModelMismatchError(
                        f"collection {name!r} is bound to embedding model {info.embed_model} "
                        f"({info.embed_dims} dims), not {embed_model} ({embed_dims} dims)")
                return info
            with self._transaction():
                cur = self._conn.execute(
                    "INSERT INTO collections (name, embed_model, embed_dims, config, created_at) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (name, embed_model, int(embed_dims), canonical_json(dict(config)), _now()))
                cid = int(cur.lastrowid)
                self._conn.execute(
                    f"CREATE VIRTUAL TABLE fts_{cid} USING fts5(context, text, content='chunks', "
                    "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')")
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
                self._conn.execute(f"DROP TABLE IF EXISTS fts_{cid}")
                self._conn.execute("DELETE FROM chunks WHERE collection_id = ?", (cid,))
                self._conn.execute("DELETE FROM documents WHERE collection_id = ?", (cid,))
                self._conn.execute("DELETE FROM collections WHERE id = ?", (cid,))
            self._caches.pop(cid, None)

    # -- documents -------------------------------------------------------------------
    @staticmethod
    def _record(row: tuple) -> DocumentRecord:
        return DocumentRecord(doc_id=row[0], title=row[1], source=row[2],
                              metadata=json.loads(row[3]), content_hash=row[4],
                              version=int(row[5]), ingested_at=row[6])

    _DOC_SQL = ("SELECT doc_id, title, source, metadata, content_hash, version, ingested_at "
                "FROM documents WHERE collection_id = ?")

    def get_document(self, collection: str, doc_id: str) -> DocumentRecord | None:
        with self._lock:
            row = self._conn.execute(self._DOC_SQL + " AND doc_id = ?",
                                     (self._cid(collection), doc_id)).fetchone()
        return self._record(row) if row else None

    def list_documents(self, collection: str) -> list[DocumentRecord]:
        with self._lock:
            rows = self._conn.execute(self._DOC_SQL + " ORDER BY doc_id",
                                      (self._cid(collection),)).fetchall()
        return [self._record(r) for r in rows]

    def upsert_document(self, collection: str, record: DocumentRecord,
                        chunks: Sequence[Chunk], embeddings: np.ndarray) -> None:
        with self._lock:
            cid, dims = self._cid(collection), self.get_collection(collection).embed_dims
            vectors = np.ascontiguousarray(embeddings, dtype=np.float32)
            if vectors.shape != (len(chunks), dims):
                raise UsageError(f"document {record.doc_id!r}: expected embeddings of shape "
                                 f"({len(chunks)}, {dims}), got {tuple(vectors.shape)}")
            if any(c.doc_id != record.doc_id for c in chunks):
                raise UsageError(f"document {record.doc_id!r}: a chunk belongs to another doc_id")
            if len({c.chunk_index for c in chunks}) != len(chunks):
                raise UsageError(f"document {record.doc_id!r}: duplicate chunk_index")
            conn = self._conn
            with self._transaction():
                removed = self._delete_rows(cid, record.doc_id)
                old = conn.execute("SELECT version FROM documents WHERE collection_id = ? AND "
                                   "doc_id = ?", (cid, record.doc_id)).fetchone()
                conn.execute(
                    "INSERT INTO documents (collection_id, doc_id, title, source, metadata, "
                    "content_hash, version, ingested_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (collection_id, doc_id) DO UPDATE SET title = excluded.title, "
                    "source = excluded.source, metadata = excluded.metadata, "
                    "content_hash = excluded.content_hash, version = excluded.version, "
                    "ingested_at = excluded.ingested_at",
                    (cid, record.doc_id, record.title, record.source,
                     canonical_json(dict(record.metadata)), record.content_hash,
                     (int(old[0]) + 1) if old else 1, record.ingested_at or _now()))
                added: list[int] = []
                for chunk, vector in zip(chunks, vectors):
                    cur = conn.execute(
                        "INSERT INTO chunks (collection_id, doc_id, chunk_index, chunk_id, "
                        "section_id, parent_id, kind, context, text, tags, metadata, tokens, "
                        "start_offset, end_offset, page, embedding) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (cid, chunk.doc_id, chunk.chunk_index, chunk.chunk_id, chunk.section_id,
                         chunk.parent_id, chunk.kind, chunk.context, chunk.text,
                         canonical_json(list(chunk.tags)), canonical_json(dict(chunk.metadata)),
                         chunk.tokens, chunk.start_offset, chunk.end_offset, chunk.page,
                         vector.tobytes()))
                    rowid = int(cur.lastrowid)
                    added.append(rowid)
                    conn.execute(f"INSERT INTO fts_{cid} (rowid, context, text) VALUES (?, ?, ?)",
                                 (rowid, chunk.context, chunk.text))
                    conn.executemany(
                        "INSERT OR IGNORE INTO chunk_tags (chunk_rowid, collection_id, tag) "
                        "VALUES (?, ?, ?)", [(rowid, cid, t) for t in chunk.tags])
                version = self._bump(cid)
            self._record_delta(cid, Delta(version, removed, np.array(added, dtype=np.int64),
                                          [c.key for c in chunks], vectors))

    def _delete_rows(self, cid: int, doc_id: str) -> np.ndarray:
        """Inside a transaction: remove a document's chunks and their FTS entries."""
        rows = self._conn.execute("SELECT id, context, text FROM chunks WHERE collection_id = ? "
                                  "AND doc_id = ?", (cid, doc_id)).fetchall()
        self._conn.executemany(
            f"INSERT INTO fts_{cid} (fts_{cid}, rowid, context, text) VALUES ('delete', ?, ?, ?)",
            rows)
        self._conn.execute("DELETE FROM chunks WHERE collection_id = ? AND doc_id = ?",
                           (cid, doc_id))
        return np.array([r[0] for r in rows], dtype=np.int64)

    def _bump(self, cid: int) -> int:
        self._conn.execute("UPDATE collections SET data_version = data_version + 1 WHERE id = ?",
                           (cid,))
        return int(self._conn.execute("SELECT data_version FROM collections WHERE id = ?",
                                      (cid,)).fetchone()[0])

    def _record_delta(self, cid: int, delta: Delta) -> None:
        cache = self._caches.get(cid)
        if cache is not None:
            cache.record(delta)

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
                self._record_delta(cid, Delta(version, removed, np.zeros(0, np.int64), [],
                                              np.zeros((0, self.get_collection(collection)
                                                        .embed_dims), np.float32)))
            return found

    # -- search ----------------------------------------------------------------------
    def _cache(self, cid: int, dims: int) -> VectorCache:
        cache = self._caches.setdefault(cid, VectorCache(dims))
        version = int(self._conn.execute("SELECT data_version FROM collections WHERE id = ?",
                                         (cid,)).fetchone()[0])
        if not cache.sync(version):
            rows = self._conn.execute(
                "SELECT id, doc_id, chunk_index, embedding FROM chunks WHERE collection_id = ? "
                "ORDER BY id", (cid,)).fetchall()
            matrix = (np.frombuffer(b"".join(r[3] for r in rows), dtype=np.float32)
                      .reshape(len(rows), dims).copy())
            cache.load(version, np.array([r[0] for r in rows], dtype=np.int64),
                       [(r[1], int(r[2])) for r in rows], matrix)
        return cache

    def vector_search(self, collection: str, query: np.ndarray, limit: int,
                      filters: Filters = Filters()) -> list[Hit]:
        with self._lock:
            info = self.get_collection(collection)
            cid = self._cid(collection)
            query = np.asarray(query, dtype=np.float32).reshape(-1)
            if query.shape[0] != info.embed_dims:
                raise UsageError(f"query vector has {query.shape[0]} dims; collection "
                                 f"{collection!r} has {info.embed_dims}")
            cache = self._cache(cid, info.embed_dims)
            allowed = None
            if filters:
                where, params = _filter_sql(filters)
                allowed = np.array([r[0] for r in self._conn.execute(
                    f"SELECT c.id FROM chunks c WHERE c.collection_id = ? AND {where}",
                    [cid, *params])], dtype=np.int64)
            return [Hit(k[0], k[1], s) for k, s in cache.top(query, limit, allowed)]

    def lexical_search(self, collection: str, terms: Sequence[str], limit: int,
                       filters: Filters = Filters()) -> list[Hit]:
        terms = [t for t in terms if t]
        if not terms or limit <= 0:
            return []
        # Each term is a quoted FTS5 string: operators and quotes in user text stay literal.
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        with self._lock:
            cid = self._cid(collection)
            where, params = _filter_sql(filters)
            sql = (f"SELECT c.doc_id, c.chunk_index, -bm25(fts_{cid}) AS score FROM fts_{cid} "
                   f"JOIN chunks c ON c.id = fts_{cid}.rowid WHERE fts_{cid} MATCH ? "
                   + (f"AND {where} " if where else "")
                   + "ORDER BY score DESC, c.doc_id, c.chunk_index LIMIT ?")
            try:
                rows = self._conn.execute(sql, [match, *params, limit]).fetchall()
            except sqlite3.OperationalError as exc:
                raise StoreError(f"lexical search failed: {exc}") from exc
        return rank_hits([Hit(r[0], int(r[1]), float(r[2])) for r in rows], limit)

    def find_sections(self, collection: str, section_ids: Sequence[str], limit: int,
                      filters: Filters = Filters()) -> list[Key]:
        wanted = list(dict.fromkeys(section_ids))
        if not wanted or limit <= 0:
            return []
        with self._lock:
            cid = self._cid(collection)
            where, params = _filter_sql(filters)
            rows = self._conn.execute(
                f"SELECT c.doc_id, c.chunk_index FROM chunks c WHERE c.collection_id = ? "
                f"AND c.section_id IN ({','.join('?' * len(wanted))}) "
                + (f"AND {where} " if where else "")
                + "ORDER BY c.doc_id, c.chunk_index LIMIT ?",
                [cid, *wanted, *params, limit]).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    # -- reading -----------------------------------------------------------------------
    @staticmethod
    def _chunk(row: Sequence[Any]) -> Chunk:
        return Chunk(doc_id=row[0], chunk_index=int(row[1]), chunk_id=row[2], section_id=row[3],
                     parent_id=row[4], kind=row[5], context=row[6], text=row[7],
                     tags=tuple(json.loads(row[8])), metadata=json.loads(row[9]),
                     tokens=int(row[10]), start_offset=row[11], end_offset=row[12], page=row[13])

    def get_chunks(self, collection: str, keys: Sequence[Key]) -> dict[Key, StoredChunk]:
        out: dict[Key, StoredChunk] = {}
        keys = list(dict.fromkeys(keys))
        with self._lock:
            cid = self._cid(collection)
            for start in range(0, len(keys), 400):
                part = keys[start:start + 400]
                values = ",".join("(?, ?)" for _ in part)
                rows = self._conn.execute(
                    f"SELECT {_CHUNK_COLUMNS}, d.title FROM chunks c JOIN documents d "
                    "ON d.collection_id = c.collection_id AND d.doc_id = c.doc_id "
                    f"WHERE c.collection_id = ? AND (c.doc_id, c.chunk_index) IN (VALUES {values})",
                    [cid, *[v for k in part for v in k]]).fetchall()
                for row in rows:
                    chunk = self._chunk(row)
                    out[chunk.key] = StoredChunk(chunk, row[14])
        return out

    def iter_chunks(self, collection: str) -> Iterator[tuple[Chunk, np.ndarray]]:
        with self._lock:
            cid = self._cid(collection)
            rows = self._conn.execute(
                f"SELECT {_CHUNK_COLUMNS}, c.embedding FROM chunks c WHERE c.collection_id = ? "
                "ORDER BY c.doc_id, c.chunk_index", (cid,)).fetchall()
        for row in rows:
            yield self._chunk(row), np.frombuffer(row[14], dtype=np.float32)

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
                "bytes": size, "created_at": info.created_at}

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            self._caches.clear()
