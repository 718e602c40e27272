"""The Store protocol: what every backend (SQLite, PostgreSQL) must do, and its records.

A store holds named collections. Each collection is bound to one embedding
model and dimension; documents are written whole (all chunks and embeddings
in one transaction) and searched by vector or by lexical terms. Rankings are
returned as :class:`Hit` lists ordered by score, ties by (doc_id, chunk_index).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import (Any, ContextManager, Iterator, Mapping, Protocol, Sequence,
                    runtime_checkable)

import numpy as np

from ..errors import StoreError, UsageError
from ..types import Chunk, Filters

Key = tuple[str, int]
NO_FILTERS = Filters()


class ReadOnlyStoreError(StoreError):
    """A write to a store that was opened read-only (a file this process cannot write)."""


@dataclass(frozen=True)
class CollectionInfo:
    """A collection and the model it is bound to."""

    name: str
    embed_model: str
    embed_dims: int
    config: Mapping[str, Any] = field(default_factory=dict)
    created_at: str = ""


@dataclass(frozen=True)
class DocumentRecord:
    """What the store keeps about a document besides its chunks.

    ``source`` is where it came from as the user named it (a path as given, ``file:LINE``);
    ``source_path`` the resolved path of its file (empty for a document given through the
    API): the document's identity on disk, which ingest checks doc_ids against."""

    doc_id: str
    content_hash: str
    title: str = ""
    source: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    version: int = 1
    ingested_at: str = ""
    source_path: str = ""


@dataclass(frozen=True)
class Hit:
    """One ranked result of a store search."""

    doc_id: str
    chunk_index: int
    score: float

    @property
    def key(self) -> Key:
        return (self.doc_id, self.chunk_index)


@dataclass(frozen=True)
class StoredChunk:
    """A chunk as read back, with its document's title."""

    chunk: Chunk
    title: str = ""


def rank_hits(hits: Sequence[Hit], limit: int) -> list[Hit]:
    """Best first; ties by (doc_id, chunk_index) ascending; at most ``limit``."""
    return sorted(hits, key=lambda h: (-h.score, h.doc_id, h.chunk_index))[:limit]


def checked_embeddings(record: DocumentRecord, chunks: Sequence[Chunk],
                       embeddings: np.ndarray, dims: int) -> np.ndarray:
    """A document's embeddings as contiguous float32 rows, after the checks every store
    makes before writing it: one row of ``dims`` per chunk, the chunks all its own, no
    chunk_index twice."""
    vectors = np.ascontiguousarray(embeddings, dtype=np.float32)
    if vectors.shape != (len(chunks), dims):
        raise UsageError(f"document {record.doc_id!r}: expected embeddings of shape "
                         f"({len(chunks)}, {dims}), got {tuple(vectors.shape)}")
    if any(c.doc_id != record.doc_id for c in chunks):
        raise UsageError(f"document {record.doc_id!r}: a chunk belongs to another doc_id")
    if len({c.chunk_index for c in chunks}) != len(chunks):
        raise UsageError(f"document {record.doc_id!r}: duplicate chunk_index")
    return vectors


class Snapshot(Protocol):
    """One collection as of one committed state: every read through it sees the same data,
    whatever is written meanwhile. Obtained from :meth:`Store.snapshot`; valid inside that
    block only. Thread-safe (the halves of a hybrid search may use it at once)."""

    collection: str
    data_version: int

    def vector_search(self, query: np.ndarray, limit: int, filters: Filters = NO_FILTERS, *,
                      exact: bool | None = None, ef_search: int | None = None
                      ) -> list[Hit]: ...

    def lexical_search(self, terms: Sequence[str], limit: int,
                       filters: Filters = NO_FILTERS) -> list[Hit]: ...

    def find_sections(self, section_ids: Sequence[str], limit: int,
                      filters: Filters = NO_FILTERS) -> list[Key]: ...

    def get_chunks(self, keys: Sequence[Key]) -> dict[Key, StoredChunk]: ...

    def cosines(self, query: np.ndarray, keys: Sequence[Key]) -> dict[Key, float]:
        """The cosine of ``query`` with each stored chunk of ``keys`` (missing keys left out):
        the similarity of a chunk that only the lexical search found."""
        ...


@runtime_checkable
class Store(Protocol):
    """A backend holding collections of chunks with embeddings and a lexical index."""

    url: str
    read_only: str
    """Why the store cannot be written (empty when it can)."""

    def snapshot(self, collection: str, *, parallel: bool = False
                 ) -> ContextManager[Snapshot]:
        """A read transaction on ``collection``: what :func:`ragd.retrieve` reads through,
        so one search never mixes two states (the single-call searches below are each a
        snapshot of their own). ``parallel``: two threads will search in it at once."""
        ...

    def create_collection(self, name: str, embed_model: str, embed_dims: int,
                          config: Mapping[str, Any]) -> CollectionInfo:
        """Create ``name``; an existing one is returned if bound to the same model, else
        EmbedModelMismatchError naming both."""
        ...

    def get_collection(self, name: str) -> CollectionInfo:
        """The collection, or UnknownCollectionError."""
        ...

    def list_collections(self) -> list[CollectionInfo]: ...

    def drop_collection(self, name: str) -> None: ...

    def get_document(self, collection: str, doc_id: str) -> DocumentRecord | None: ...

    def list_documents(self, collection: str) -> list[DocumentRecord]: ...

    def chunk_counts(self, collection: str) -> dict[str, int]:
        """Each document's number of chunks, by doc_id."""
        ...

    def document_chunks(self, collection: str, doc_id: str) -> list[StoredChunk]:
        """A document's chunks in chunk_index order (empty when it is not stored)."""
        ...

    def documents_from(self, collection: str, source_path: str) -> list[DocumentRecord]:
        """The documents loaded from the file at ``source_path`` (resolved), by doc_id."""
        ...

    def upsert_document(self, collection: str, record: DocumentRecord,
                        chunks: Sequence[Chunk], embeddings: np.ndarray) -> None:
        """Replace the document and all its chunks atomically (all or nothing)."""
        ...

    def upsert_documents(self, collection: str,
                         items: Sequence[tuple[DocumentRecord, Sequence[Chunk], np.ndarray]]
                         ) -> int:
        """The bulk path: :meth:`upsert_document` for many documents in one transaction (all
        of them or none; a doc_id twice is refused). Returns the number of chunks written."""
        ...

    def stage_chunks(self, collection: str, job: str, chunks: Sequence[Chunk],
                     embeddings: np.ndarray) -> None:
        """A large document's write, in batches: keep these chunks (all of one document)
        aside under ``job``, in a short transaction of their own; searches do not see them."""
        ...

    def commit_staged(self, collection: str, record: DocumentRecord, job: str,
                      count: int) -> int:
        """In one transaction, replace the document and all its chunks by the ``count``
        chunks staged under ``job`` (refused, changing nothing, when they are not all
        there). Returns the number of chunks written."""
        ...

    def drop_staged(self, collection: str, job: str) -> None:
        """Forget the chunks staged under ``job`` (its write failed or was abandoned; a
        crashed one's are cleared by the next staging of the same document, or after a
        day)."""
        ...

    def delete_document(self, collection: str, doc_id: str) -> bool:
        """Remove a document and its chunks; False when it was not there."""
        ...

    def vector_search(self, collection: str, query: np.ndarray, limit: int,
                      filters: Filters = Filters(), *, exact: bool | None = None,
                      ef_search: int | None = None) -> list[Hit]:
        """Top ``limit`` chunks by cosine similarity (score = cosine).

        ``exact``: True scans every vector (the exact ranking); False searches the
        collection's approximate index (HNSW) when it has one, never building it; None
        (default) lets the store choose: the approximate index when there is one (the
        embedded store builds it once a collection reaches its size threshold), else
        exact. A search that an index cannot answer in full (a selective filter) is exact.
        ``ef_search``: the index's candidate list for this query (more: better recall,
        slower); ignored by an exact search."""
        ...

    def build_vector_index(self, collection: str) -> None:
        """Build (or rebuild) the collection's approximate vector index, after which
        searches use it (and the store keeps it in step with writes)."""
        ...

    def drop_vector_index(self, collection: str) -> None:
        """Remove the approximate vector index: searches are exact until
        :meth:`build_vector_index` (before a large bulk load, building it once afterwards
        is much faster than keeping it up to date row by row)."""
        ...

    def lexical_search(self, collection: str, terms: Sequence[str], limit: int,
                       filters: Filters = Filters()) -> list[Hit]:
        """Top ``limit`` chunks matching any of ``terms`` (score: higher is better)."""
        ...

    def refresh_lexical(self, collection: str) -> None:
        """Bring the collection's lexical index up to date now (after a bulk load or many
        deletes) rather than when a search finds it stale: the embedded store rebuilds its
        BM25 postings and saves them beside the file; Postgres rewrites its BM25 weights
        with the current average chunk length. Searches are right without it; after it,
        scores are exactly BM25 over the collection as it is."""
        ...

    def find_sections(self, collection: str, section_ids: Sequence[str], limit: int,
                      filters: Filters = Filters()) -> list[Key]:
        """Keys of chunks whose ``section_id`` is one of ``section_ids`` (by key, at most
        ``limit``): how a query naming a section reaches exactly that section."""
        ...

    def get_chunks(self, collection: str, keys: Sequence[Key]) -> dict[Key, StoredChunk]: ...

    def iter_chunks(self, collection: str) -> Iterator[tuple[Chunk, np.ndarray]]:
        """Every chunk with its embedding, ordered by (doc_id, chunk_index)."""
        ...

    def stats(self, collection: str) -> dict[str, Any]: ...

    def data_version(self, collection: str) -> int:
        """A counter bumped by every committed write to the collection (a cache of its
        contents is good while this stays the same)."""
        ...

    def cache_get(self, collection: str, key: str, max_age: float, now: float) -> str | None:
        """A cached value stored under ``key`` at most ``max_age`` seconds before ``now``
        (epoch seconds) and since the collection's last write; else None."""
        ...

    def cache_put(self, collection: str, key: str, value: str, now: float) -> None:
        """Cache ``value`` under ``key`` (any later write to the collection invalidates it)."""
        ...

    def close(self) -> None: ...
