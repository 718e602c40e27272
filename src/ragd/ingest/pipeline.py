"""The ingest pipeline: load → (hash check) → chunk → embed → store, per document.

Documents stream from the loaders; an unchanged document (same content hash)
costs one lookup and no chunking or embedding. Changed and new documents are
chunked and gathered until a batch is full, embedded together, and written
one transaction each. Bad documents are reported and skipped, never fatal.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from ..chunking import chunk_document
from ..collection import Collection
from ..errors import InvalidDocumentError
from ..ids import canonical_json, sha256_hex
from ..stores import DocumentRecord
from ..types import Chunk, ChunkPolicy, Document
from .index import write_documents
from .loaders import LoadFailure, LoadOptions, iter_documents

ProgressFn = Callable[["IngestReport"], None]


@dataclass
class IngestReport:
    """What an ingest run did (the CLI prints it as its summary)."""

    new: int = 0
    changed: int = 0
    unchanged: int = 0
    failed: int = 0
    chunks: int = 0
    embedded: int = 0
    seconds: float = 0.0
    failures: list[LoadFailure] = field(default_factory=list)

    @property
    def documents(self) -> int:
        return self.new + self.changed + self.unchanged + self.failed

    def as_dict(self) -> dict:
        return {"documents": self.documents, "new": self.new, "changed": self.changed,
                "unchanged": self.unchanged, "failed": self.failed, "chunks": self.chunks,
                "seconds": round(self.seconds, 3),
                "failures": [{"source": f.source, "reason": f.reason} for f in self.failures]}


def document_hash(doc: Document, policy: ChunkPolicy) -> str:
    """Content hash of a document as it will be chunked: text, segments, title, tags,
    metadata and the chunk policy (a new policy re-chunks everything)."""
    segments = [[s.text, s.t_start, s.t_end] for s in doc.segments] if doc.segments else None
    return sha256_hex(canonical_json({
        "text": doc.text, "segments": segments, "title": doc.title, "format": doc.format,
        "tags": list(doc.tags), "metadata": dict(doc.metadata), "policy": policy.as_dict()}))


def ingest_documents(documents: Sequence[Document] | object, store: Collection, *,
                     policy: ChunkPolicy = ChunkPolicy(), batch_chunks: int = 1024,
                     report: IngestReport | None = None,
                     on_progress: ProgressFn | None = None) -> IngestReport:
    """Ingest already-loaded documents (any iterable) into ``store``."""
    report = report or IngestReport()
    started = time.perf_counter()
    pending: list[tuple[DocumentRecord, list[Chunk], bool]] = []
    pending_chunks = 0

    def embedded(n: int) -> None:
        report.embedded += n
        if on_progress:
            on_progress(report)

    def flush() -> None:
        nonlocal pending, pending_chunks
        if not pending:
            return
        report.chunks += write_documents(store, [(rec, chunks) for rec, chunks, _ in pending],
                                         on_embedded=embedded)
        for _, _, is_new in pending:
            if is_new:
                report.new += 1
            else:
                report.changed += 1
        pending, pending_chunks = [], 0
        if on_progress:
            on_progress(report)

    for doc in documents:  # type: ignore[attr-defined]
        digest = document_hash(doc, policy)
        old = store.store.get_document(store.name, doc.doc_id)
        if old is not None and old.content_hash == digest:
            report.unchanged += 1
            if on_progress:
                on_progress(report)
            continue
        try:
            chunks = chunk_document(doc, policy, count_tokens=store.embedder.count_tokens)
            if not chunks:
                raise InvalidDocumentError("no text to index", source=doc.source or doc.doc_id)
        except InvalidDocumentError as exc:
            report.failed += 1
            report.failures.append(LoadFailure(doc.source or doc.doc_id, exc.reason))
            continue
        record = DocumentRecord(doc_id=doc.doc_id, content_hash=digest, title=doc.title,
                                source=doc.source, metadata=dict(doc.metadata))
        pending.append((record, chunks, old is None))
        pending_chunks += len(chunks)
        if pending_chunks >= batch_chunks:
            flush()
    flush()
    report.seconds += time.perf_counter() - started
    return report


def ingest(paths: Sequence[str | Path], store: Collection, *,
           options: LoadOptions = LoadOptions(), policy: ChunkPolicy = ChunkPolicy(),
           batch_chunks: int = 1024, on_progress: ProgressFn | None = None) -> IngestReport:
    """Load every document under ``paths`` and ingest it; failures are reported, not raised."""
    report = IngestReport()

    def failed(failure: LoadFailure) -> None:
        report.failed += 1
        report.failures.append(failure)

    started = time.perf_counter()
    docs = iter_documents(paths, options, on_failure=failed)
    ingest_documents(docs, store, policy=policy, batch_chunks=batch_chunks, report=report,
                     on_progress=on_progress)
    report.seconds = time.perf_counter() - started
    return report
