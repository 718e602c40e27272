"""The index block: chunks + embeddings into a coll, one atomic write per document.

``index`` is the canonical API (spec §2.2): it takes chunks, embeds what
changed and upserts it. ``write_documents`` is the primitive both it and the
ingest pipeline use: embed many documents' chunks in one batch (the model is
the bottleneck), then write each document in its own transaction.

A large document (more chunks than a batch) goes through ``write_staged`` instead: its
chunks are embedded and written a batch at a time into the store's staging area, each
batch in its own short transaction, and one last transaction swaps them in for the
document's old chunks. Memory holds one batch of vectors, not the document's; the document
is still replaced all at once (a crash leaves only staged rows, which no search sees and
the next write of the document clears).
"""

from __future__ import annotations

import uuid
from typing import Any, Callable, Sequence

import numpy as np

from ..collection import Collection
from ..errors import EmbedderError, EmbeddingFailureError, StoreError, VectorDBWriteError
from ..ids import canonical_json, sha256_hex
from ..stores import DocumentRecord
from ..types import Chunk


def chunks_hash(chunks: Sequence[Chunk]) -> str:
    """Content hash of a document's chunk list (ids, text, context, tags, metadata)."""
    return sha256_hex(canonical_json([
        [c.chunk_index, c.chunk_id, c.context, list(c.tags), dict(c.metadata), c.section_id,
         c.parent_id, c.kind, c.page] for c in chunks]))


def write_documents(coll: Collection,
                    items: Sequence[tuple[DocumentRecord, Sequence[Chunk]]], *,
                    embed_batch: int = 256,
                    on_embedded: Callable[[int], None] | None = None) -> int:
    """Embed the chunks of every item, then upsert each document atomically.

    All the items' chunks are ordered by length first and embedded in slices of
    ``embed_batch`` (``on_embedded(n)`` after each): the more chunks one call
    sees, the less the model pads, and the slices keep progress reports coming.
    Returns the number of chunks written.
    """
    flat = [c for _, chunks in items for c in chunks]
    texts = [c.search_text for c in flat]
    vectors = np.zeros((len(texts), coll.embedder.dims), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: (-flat[i].tokens, -len(texts[i]), i))
    for start in range(0, len(order), max(1, embed_batch)):
        idx = order[start:start + max(1, embed_batch)]
        vectors[idx] = coll.embedder.embed_documents([texts[i] for i in idx])
        if on_embedded:
            on_embedded(len(idx))
    offset = 0
    for record, chunks in items:
        try:
            coll.store.upsert_document(coll.name, record, chunks,
                                        vectors[offset:offset + len(chunks)])
        except VectorDBWriteError:
            raise
        except StoreError as exc:
            raise VectorDBWriteError(f"writing document {record.doc_id!r} failed: {exc}") \
                from exc
        offset += len(chunks)
    return offset


def write_staged(coll: Collection, record: DocumentRecord, chunks: list[Chunk], *,
                 batch: int = 256, retries: int = 1,
                 on_embedded: Callable[[int], None] | None = None) -> int:
    """Embed and write one large document ``batch`` chunks at a time, then swap it in
    atomically (see the module's text). A batch whose embedding fails is tried ``retries``
    times, then EmbeddingFailureError (nothing of the document changed). Entries of
    ``chunks`` are released as they are written. Returns the number of chunks written."""
    job = f"{uuid.uuid4().hex}"
    count, embedder = len(chunks), coll.embedder
    try:
        for start in range(0, count, max(1, batch)):
            part = chunks[start:start + max(1, batch)]
            for attempt in range(max(1, retries)):
                try:
                    vectors = embedder.embed_documents([c.search_text for c in part])
                    break
                except EmbedderError as exc:
                    if attempt == max(1, retries) - 1:
                        raise EmbeddingFailureError(
                            f"embedding failed {max(1, retries)} times: {exc}") from exc
            if on_embedded:
                on_embedded(len(part))
            _stored(record, lambda: coll.store.stage_chunks(coll.name, job, part, vectors))
            chunks[start:start + len(part)] = [None] * len(part)  # type: ignore[list-item]
        _stored(record, lambda: coll.store.commit_staged(coll.name, record, job, count))
    except BaseException:
        try:
            coll.store.drop_staged(coll.name, job)
        except StoreError:
            pass  # the next write of the document clears what is left
        raise
    return count


def _stored(record: DocumentRecord, write: Callable[[], Any]) -> None:
    try:
        write()
    except VectorDBWriteError:
        raise
    except StoreError as exc:
        raise VectorDBWriteError(f"writing document {record.doc_id!r} failed: {exc}") from exc


def index(chunks: Sequence[Chunk], coll: Collection) -> dict[str, Any]:
    """Upsert ``chunks`` (grouped by doc_id) with their embeddings; idempotent.

    A document whose chunks are unchanged since the last call is skipped.
    Returns counts: documents, chunks, written_documents, written_chunks, unchanged.
    """
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    todo: list[tuple[DocumentRecord, Sequence[Chunk]]] = []
    unchanged = 0
    for doc_id, doc_chunks in by_doc.items():
        doc_chunks.sort(key=lambda c: c.chunk_index)
        digest = chunks_hash(doc_chunks)
        old = coll.store.get_document(coll.name, doc_id)
        if old is not None and old.content_hash == digest:
            unchanged += 1
            continue
        todo.append((DocumentRecord(doc_id=doc_id, content_hash=digest), doc_chunks))
    written = write_documents(coll, todo)
    return {"documents": len(by_doc), "chunks": len(chunks), "written_documents": len(todo),
            "written_chunks": written, "unchanged": unchanged}
