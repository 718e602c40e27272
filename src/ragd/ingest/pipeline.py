"""The ingest pipeline: load → (identity, hash check) → chunk → embed → coll, per document.

Documents stream from the loaders with the file each came from; its doc_id is settled
against the collection first (:mod:`ragd.ingest.identity`: the same file keeps its doc_id,
another file under a stored doc_id is refused). An unchanged document (same content hash,
same file) costs one lookup and no chunking or embedding; a PDF (a loader that registers a
fingerprint) whose file, sidecar, place and run settings are those recorded for it is not
even read again (:func:`ingest`). Changed and new documents are
checked against the profile's metadata rules, chunked under its policy and gathered until a
batch is full, embedded together, and written one transaction each; a document larger than
a batch is embedded and written in batches and swapped in at once
(:func:`~ragd.ingest.index.write_staged`), so memory holds one batch whatever its size.
Bad documents are reported and skipped, never fatal; a batch whose embedding fails is
retried document by document (the profile's ``embedding_retries``), and a document that
still fails is skipped with an EmbeddingFailureError. A failed store write
(VectorDBWriteError) stops the job: documents written before it stay.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Sequence

from ..chunking import chunk_document, chunk_warnings
from ..chunking.dispatch import chunk_versions
from ..collection import Collection
from ..errors import EmbedderError, EmbeddingFailureError, InvalidDocumentError
from .. import __version__
from ..ids import canonical_json, sha256_hex
from ..stores import DocumentRecord
from ..stores.rows import check_chunks, check_document, check_text
from ..types import Chunk, ChunkPolicy, Document
from .base import LoadFailure, Origin
from .identity import Identities
from .index import write_documents, write_staged
from .base import FileRef
from .loaders import LoadOptions, count_files, fingerprint, iter_sourced
from .metadata_rules import check_metadata
from .report import JOB_NAMESPACE, IngestReport

__all__ = ["IngestReport", "JOB_NAMESPACE", "ProgressFn", "document_hash", "ingest",
           "ingest_documents"]

ProgressFn = Callable[[IngestReport], None]

SOURCE_KEY = "source_key"
"""Record metadata: digest of a whole-file document's file, sidecar, relative path and run
settings (chunk policy, tags, metadata, id prefix, ragd version) when it was stored."""


def document_hash(doc: Document, policy: ChunkPolicy) -> str:
    """Content hash of a document as it will be chunked: text, segments, title, tags,
    metadata, the chunk policy (a new policy re-chunks everything) and its chunker's
    version when past 1 (a new version re-chunks what that chunker made)."""
    segments = [[s.text, s.t_start, s.t_end] for s in doc.segments] if doc.segments else None
    payload = {"text": doc.text, "segments": segments, "title": doc.title, "format": doc.format,
               "tags": list(doc.tags), "metadata": dict(doc.metadata), "policy": policy.as_dict()}
    versions = chunk_versions(policy, "segments" if doc.segments is not None else doc.format)
    if versions:
        payload["chunkers"] = versions
    return sha256_hex(canonical_json(payload))


class _Files:
    """Progress by bytes: a file's size counts as done as its chunks get embedded."""

    def __init__(self, report: IngestReport) -> None:
        self.report = report
        self.path = ""
        self.size = 0
        self.finished = 0.0

    def start(self, origin: Origin | None) -> None:
        path = origin.path if origin else ""
        if path == self.path:
            return
        self.finish()
        self.path = path
        try:
            self.size = os.stat(path).st_size if path else 0
        except OSError:
            self.size = 0

    def part(self, fraction: float) -> None:
        self.report.bytes_done = self.finished + self.size * min(1.0, fraction)

    def finish(self) -> None:
        if self.path:
            self.finished += self.size
            self.report.files_done += 1
            self.report.bytes_done = self.finished
        self.path, self.size = "", 0


def ingest_documents(documents: Iterable[Document], coll: Collection, *,
                     policy: ChunkPolicy | None = None, batch_chunks: int = 1024,
                     report: IngestReport | None = None,
                     on_progress: ProgressFn | None = None) -> IngestReport:
    """Ingest already-loaded documents (any iterable) into ``coll`` under its profile
    (``policy``, when given, replaces the profile's chunk policy)."""
    return ingest_sourced(((doc, None) for doc in documents), coll, policy=policy,
                          batch_chunks=batch_chunks, report=report, on_progress=on_progress)


def ingest_sourced(items: Iterable[tuple[Document, Origin | None]], coll: Collection, *,
                   policy: ChunkPolicy | None = None, batch_chunks: int = 1024,
                   report: IngestReport | None = None, on_progress: ProgressFn | None = None,
                   replace_others: bool = False, identities: Identities | None = None,
                   source_keys: dict[str, str] | None = None) -> IngestReport:
    """:func:`ingest_documents` for documents with the file each came from (``None``: no
    file), whose doc_ids are checked against the collection (``replace_others``: a
    different file under a stored doc_id replaces it instead of being refused).
    ``source_keys`` (resolved path -> key) are recorded with the documents of those files
    (``metadata.source_key``: what :func:`ingest` compares to leave a file unread)."""
    report = report or IngestReport()
    policy = policy or coll.chunk_policy
    rules = coll.profile.ingest.get("metadata", {})
    retries = max(1, int(coll.profile.ingest.get("embedding_retries", 3)))
    counter = coll.embedder.count_tokens
    stamp = ({"embedding_model": coll.embedder.name,
              "embedding_version": str(getattr(coll.embedder, "version", coll.embedder.name))}
             if coll.profile.ingest.get("record_embedder") else {})
    identities = identities or Identities(coll, replace_others=replace_others)
    keys = source_keys if source_keys is not None else {}
    files = _Files(report)
    started = time.perf_counter()
    pending: list[tuple[DocumentRecord, list[Chunk], bool]] = []
    pending_chunks = 0

    def progress() -> None:
        if on_progress:
            on_progress(report)

    def embedded(n: int) -> None:
        report.embedded += n
        progress()

    def done(is_new: bool) -> None:
        if is_new:
            report.new += 1
        else:
            report.changed += 1

    def write(batch: list[tuple[DocumentRecord, list[Chunk], bool]]) -> None:
        report.chunks += write_documents(coll, [(rec, chunks) for rec, chunks, _ in batch],
                                         on_embedded=embedded)
        for _, _, is_new in batch:
            done(is_new)

    def failed(record: DocumentRecord, exc: Exception) -> None:
        report.add_failure(LoadFailure(record.source or record.doc_id, str(exc), "embedding"))

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
                            failed(item[0], EmbeddingFailureError(
                                f"embedding failed {retries} times: {exc}"))
        progress()

    for doc, origin in items:
        files.start(origin)
        try:  # an id no store holds is not even looked up
            check_text(f"document {doc.doc_id!r}", "doc_id", doc.doc_id)
        except InvalidDocumentError as exc:
            report.add_failure(LoadFailure(doc.source or doc.doc_id, exc.reason, "invalid"))
            progress()
            continue
        resolved = identities.resolve(doc, origin)
        if isinstance(resolved, LoadFailure):
            report.add_failure(resolved)
            progress()
            continue
        doc, old = resolved
        digest = document_hash(doc, policy)
        report.seen.append(f"{doc.doc_id}:{digest}")
        same_file = origin is None or (old is not None and old.source_path == origin.path)
        if old is not None and old.content_hash == digest and same_file:
            report.unchanged += 1
            progress()
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
            report.add_failure(LoadFailure(doc.source or doc.doc_id, exc.reason,
                                           "metadata" if exc.field else "invalid"))
            progress()
            continue
        meta = dict(doc.metadata)
        if origin is not None and origin.path in keys:
            meta[SOURCE_KEY] = keys[origin.path]
        record = DocumentRecord(doc_id=doc.doc_id, content_hash=digest, title=doc.title,
                                source=doc.source, metadata=meta,
                                source_path=origin.path if origin else "")
        try:  # what no store holds (a NUL in an id or metadata): refused here, on any backend
            check_document(record)
            check_chunks(chunks)
        except InvalidDocumentError as exc:
            report.add_failure(LoadFailure(doc.source or doc.doc_id, exc.reason, "invalid"))
            progress()
            continue
        if len(chunks) > batch_chunks:  # a large document: in batches, swapped in at once
            flush()
            del doc
            total, written = len(chunks), [0]

            def staged(n: int) -> None:
                written[0] += n
                files.part(written[0] / total)
                embedded(n)

            try:
                report.chunks += write_staged(coll, record, chunks, retries=retries,
                                              on_embedded=staged)
                done(old is None)
            except EmbeddingFailureError as exc:
                failed(record, exc)
            progress()
            continue
        pending.append((record, chunks, old is None))
        pending_chunks += len(chunks)
        if pending_chunks >= batch_chunks:
            flush()
    flush()
    files.finish()
    report.seconds += time.perf_counter() - started
    return report


def ingest(paths: Sequence[str | Path], coll: Collection, *,
           options: LoadOptions = LoadOptions(), policy: ChunkPolicy | None = None,
           batch_chunks: int = 1024, on_progress: ProgressFn | None = None,
           replace_others: bool = False) -> IngestReport:
    """Load every document under ``paths`` and ingest it; failures are reported, not raised
    (``report.exit_code`` says whether all went in). ``replace_others``: see
    :func:`ingest_sourced`."""
    report = IngestReport()
    started = time.perf_counter()
    identities = Identities(coll, replace_others=replace_others)
    keys: dict[str, str] = {}
    settings = {"policy": (policy or coll.chunk_policy).as_dict(), "tags": list(options.tags),
                "metadata": dict(options.metadata), "id_prefix": options.id_prefix,
                "ragd": __version__}
    versions = chunk_versions(policy or coll.chunk_policy)
    if versions:   # a new chunker version reads the files again (then re-chunks them)
        settings["chunkers"] = versions
    run = canonical_json(settings)

    def unchanged_file(ref: FileRef, path: str) -> bool:
        """A whole-file document stored from this very file, place and settings: counted
        unchanged without reading it (a PDF's extraction is most of a re-ingest)."""
        digest = fingerprint(ref)
        if digest is None:
            return False
        key = sha256_hex(canonical_json([digest, ref.rel, run]))
        keys[path] = key
        stored = coll.store.documents_from(coll.name, path)
        if len(stored) != 1 or stored[0].metadata.get(SOURCE_KEY) != key \
                or not identities.claim(ref.source, path, stored[0].doc_id):
            return False
        report.unchanged += 1
        report.files_done += 1
        report.seen.append(f"{stored[0].doc_id}:{stored[0].content_hash}")
        if on_progress:
            on_progress(report)
        return True

    items = iter_sourced(paths, options, on_failure=report.add_failure, skip=unchanged_file)
    if on_progress is not None:
        report.files_total, report.bytes_total = count_files(paths, options)
    ingest_sourced(items, coll, policy=policy, batch_chunks=batch_chunks, report=report,
                   on_progress=on_progress, replace_others=replace_others,
                   identities=identities, source_keys=keys)
    report.seconds = time.perf_counter() - started
    return report
