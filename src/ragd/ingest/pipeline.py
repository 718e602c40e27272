"""The ingest pipeline: load → (hash check) → chunk → embed → store, per document.

Documents stream from the loaders; an unchanged document (same content hash)
costs one lookup and no chunking or embedding. Changed and new documents are
checked against the profile's metadata rules, chunked under its policy and
gathered until a batch is full, embedded together, and written one
transaction each. Bad documents are reported and skipped, never fatal; a
batch whose embedding fails is retried document by document (the profile's
``embedding_retries``), and a document that still fails is skipped with an
EmbeddingFailureError. A failed store write (VectorDBWriteError) stops the job:
documents written before it stay.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

from ..chunking import chunk_document, chunk_warnings
from ..collection import Collection
from ..errors import EmbedderError, EmbeddingFailureError, InvalidDocumentError
from ..ids import canonical_json, sha256_hex
from ..stores import DocumentRecord
from ..types import Chunk, ChunkPolicy, Document
from .index import write_documents
from .loaders import LoadFailure, LoadOptions, iter_documents
from .metadata_rules import check_metadata

JOB_NAMESPACE = uuid.UUID("6f1c2a52-3b0e-5d6e-9a51-72616764a0b1")

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
    warnings: list[str] = field(default_factory=list)
    seen: list[str] = field(default_factory=list)  # doc_id:content_hash of every document

    @property
    def documents(self) -> int:
        return self.new + self.changed + self.unchanged + self.failed

    @property
    def job_id(self) -> str:
        """A UUID derived from what the run saw (the same input gives the same id)."""
        return str(uuid.uuid5(JOB_NAMESPACE, "\n".join(sorted(self.seen))))

    def as_dict(self) -> dict:
        return {"documents": self.documents, "new": self.new, "changed": self.changed,
                "unchanged": self.unchanged, "failed": self.failed, "chunks": self.chunks,
                "seconds": round(self.seconds, 3),
                "failures": [{"source": f.source, "reason": f.reason} for f in self.failures],
                "warnings": list(self.warnings)}

    def as_ingestion_result(self) -> dict:
        """The rag-pipeline contract's IngestionResult (field names as the contract)."""
        return {"job_id": self.job_id, "documents_processed": self.documents - self.failed,
                "documents_failed": self.failed, "embedding_count": self.embedded,
                "errors": [f.source for f in self.failures], "warnings": list(self.warnings),
                "duration_seconds": round(self.seconds, 3)}


def document_hash(doc: Document, policy: ChunkPolicy) -> str:
    """Content hash of a document as it will be chunked: text, segments, title, tags,
    metadata and the chunk policy (a new policy re-chunks everything)."""
    segments = [[s.text, s.t_start, s.t_end] for s in doc.segments] if doc.segments else None
    return sha256_hex(canonical_json({
        "text": doc.text, "segments": segments, "title": doc.title, "format": doc.format,
        "tags": list(doc.tags), "metadata": dict(doc.metadata), "policy": policy.as_dict()}))


def ingest_documents(documents: Sequence[Document] | object, store: Collection, *,
                     policy: ChunkPolicy | None = None, batch_chunks: int = 1024,
                     report: IngestReport | None = None,
                     on_progress: ProgressFn | None = None) -> IngestReport:
    """Ingest already-loaded documents (any iterable) into ``store`` under its profile
    (``policy``, when given, replaces the profile's chunk policy)."""
    report = report or IngestReport()
    policy = policy or store.chunk_policy
    rules = store.profile.ingest.get("metadata", {})
    retries = max(1, int(store.profile.ingest.get("embedding_retries", 3)))
    counter = store.embedder.count_tokens
    stamp = ({"embedding_model": store.embedder.name,
              "embedding_version": str(getattr(store.embedder, "version", store.embedder.name))}
             if store.profile.ingest.get("record_embedder") else {})
    started = time.perf_counter()
    pending: list[tuple[DocumentRecord, list[Chunk], bool]] = []
    pending_chunks = 0

    def embedded(n: int) -> None:
        report.embedded += n
        if on_progress:
            on_progress(report)

    def write(batch: list[tuple[DocumentRecord, list[Chunk], bool]]) -> None:
        report.chunks += write_documents(store, [(rec, chunks) for rec, chunks, _ in batch],
                                         on_embedded=embedded)
        for _, _, is_new in batch:
            if is_new:
                report.new += 1
            else:
                report.changed += 1

    def flush() -> None:
        nonlocal pending, pending_chunks
        batch, pending, pending_chunks = pending, [], 0
        if not batch:
            return
        try:
            write(batch)
        except EmbedderError:
            for item in batch:  # retry one document at a time; skip those that keep failing
                for attempt in range(retries):
                    try:
                        write([item])
                        break
                    except EmbedderError as exc:
                        if attempt == retries - 1:
                            error = EmbeddingFailureError(
                                f"embedding failed {retries} times: {exc}")
                            report.failed += 1
                            report.failures.append(LoadFailure(item[0].source or item[0].doc_id,
                                                               str(error)))
        if on_progress:
            on_progress(report)

    for doc in documents:  # type: ignore[attr-defined]
        digest = document_hash(doc, policy)
        report.seen.append(f"{doc.doc_id}:{digest}")
        old = store.store.get_document(store.name, doc.doc_id)
        if old is not None and old.content_hash == digest:
            report.unchanged += 1
            if on_progress:
                on_progress(report)
            continue
        try:
            check_metadata(doc, rules)
            chunks = chunk_document(doc, policy, count_tokens=counter)
            if not chunks:
                raise InvalidDocumentError("no text to index", source=doc.source or doc.doc_id)
            if stamp:
                chunks = [replace(c, metadata={**c.metadata, **stamp}) for c in chunks]
            report.warnings.extend(f"{doc.source or doc.doc_id}: {w}"
                                   for w in chunk_warnings(doc, policy, counter))
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
           options: LoadOptions = LoadOptions(), policy: ChunkPolicy | None = None,
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
