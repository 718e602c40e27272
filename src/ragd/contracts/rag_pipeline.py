"""The rag-pipeline contract (``rules`` profile): ``RAGPipeline.retrieve`` and ``ingest``.

The contract's types with its exact field names, built from the generic blocks:
``retrieve`` (the collection's profile plan), relevance as the cosine of chunk
and query clipped to [0, 1], the threshold rule of the profile, the store's
query cache and a deadline. UUIDs are deterministic (uuid5 of the collection,
document and chunk identity; a context's id also covers what it returned),
except ``query_id``, which names one call.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from ..collection import Collection, open_collection
from ..errors import (InvalidQueryError, RagdError, StoreError, UsageError,
                      VectorDBUnavailableError)
from ..ids import canonical_json, sha256_hex
from ..ingest.loaders import LoadOptions
from ..ingest.pipeline import IngestReport, ingest_documents
from ..profiles import Profile
from ..retrieval.cache import cache_key, cached
from ..retrieval.deadline import within
from ..retrieval.retrieve import retrieve as _retrieve
from ..retrieval.threshold import by_relevance, judge
from ..types import Document

__all__ = ["DocumentChunk", "IngestionResult", "NoDocumentsFoundError", "RAGContext",
           "RAGPipeline", "RetrieveRequest", "RuleDocument", "NAMESPACE"]

log = logging.getLogger("ragd.rag_pipeline")
NAMESPACE = uuid.UUID("0b9d3f6e-5d55-5a4c-8f1e-72616764c0de")


class NoDocumentsFoundError(RagdError):
    """The name of the outcome in which no chunk meets the threshold. It is never raised:
    ``retrieve`` returns a RAGContext with no chunks and ``meets_threshold`` false."""


@dataclass(frozen=True)
class RetrieveRequest:
    query: str
    context_key: str
    max_chunks: int = 5
    min_relevance: float = 0.6


@dataclass(frozen=True)
class DocumentChunk:
    chunk_id: uuid.UUID
    document_id: uuid.UUID
    text: str
    metadata: dict[str, Any]
    relevance_score: float
    position_in_doc: int

    def to_dict(self) -> dict[str, Any]:
        return {"chunk_id": str(self.chunk_id), "document_id": str(self.document_id),
                "text": self.text, "metadata": dict(self.metadata),
                "relevance_score": self.relevance_score, "position_in_doc": self.position_in_doc}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "DocumentChunk":
        return cls(uuid.UUID(d["chunk_id"]), uuid.UUID(d["document_id"]), d["text"],
                   dict(d["metadata"]), float(d["relevance_score"]), int(d["position_in_doc"]))


@dataclass(frozen=True)
class RAGContext:
    context_id: uuid.UUID
    query_id: uuid.UUID
    document_chunks: list[DocumentChunk]
    relevance_scores: list[float]
    total_chunks: int
    avg_relevance: float
    meets_threshold: bool

    @property
    def outcome(self) -> str | None:
        """``"NoDocumentsFoundError"`` when no chunk met the threshold, else None."""
        return None if self.meets_threshold else NoDocumentsFoundError.__name__

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with exactly the contract's field names."""
        return {"context_id": str(self.context_id), "query_id": str(self.query_id),
                "document_chunks": [c.to_dict() for c in self.document_chunks],
                "relevance_scores": list(self.relevance_scores),
                "total_chunks": self.total_chunks, "avg_relevance": self.avg_relevance,
                "meets_threshold": self.meets_threshold}


@dataclass(frozen=True)
class RuleDocument:
    document_id: uuid.UUID | str
    filename: str
    content: str
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class IngestionResult:
    job_id: uuid.UUID
    documents_processed: int
    documents_failed: int
    embedding_count: int
    errors: list[str]
    warnings: list[str]
    duration_seconds: float

    @classmethod
    def from_report(cls, report: IngestReport) -> "IngestionResult":
        d = report.as_ingestion_result()
        return cls(uuid.UUID(d["job_id"]), d["documents_processed"], d["documents_failed"],
                   d["embedding_count"], d["errors"], d["warnings"], d["duration_seconds"])

    def to_dict(self) -> dict[str, Any]:
        return {"job_id": str(self.job_id), "documents_processed": self.documents_processed,
                "documents_failed": self.documents_failed,
                "embedding_count": self.embedding_count, "errors": list(self.errors),
                "warnings": list(self.warnings), "duration_seconds": self.duration_seconds}


def document_uuid(collection: str, doc_id: str) -> uuid.UUID:
    """The document's UUID: its doc_id when that is a UUID, else uuid5 of collection + doc_id."""
    try:
        return uuid.UUID(doc_id)
    except ValueError:
        return uuid.uuid5(NAMESPACE, f"{collection}\x1f{doc_id}")


def chunk_uuid(collection: str, doc_id: str, chunk_index: int, chunk_id: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, f"{collection}\x1f{doc_id}\x1f{chunk_index}\x1f{chunk_id}")


class RAGPipeline:
    """The contract's pipeline over one collection (a handle, or a store location).

    ``clock`` (epoch seconds) is what the query cache's time to live is measured
    with; tests inject one.
    """

    def __init__(self, collection: Collection | str, *, name: str = "default",
                 profile: Profile | str | None = "rules", clock: Callable[[], float] = time.time,
                 create: bool = True, embedder: Any = None) -> None:
        if isinstance(collection, Collection):
            self.collection = collection
        else:
            try:
                self.collection = open_collection(collection, name, embedder, create=create,
                                                  profile=profile)
            except VectorDBUnavailableError:
                raise
            except StoreError as exc:
                log.error("vector store unavailable: %s", exc)
                raise VectorDBUnavailableError(str(exc)) from exc
        self.clock = clock

    @property
    def profile(self) -> Profile:
        return self.collection.profile

    def retrieve(self, query: str, context_key: str, max_chunks: int | None = None,
                 min_relevance: float | None = None) -> RAGContext:
        """Chunks relevant to ``query``, best first, or none when the evidence is below the
        threshold (NoDocumentsFoundError outcome). Raises InvalidQueryError (empty or over
        the profile's max_query_chars), RetrievalTimeoutError, VectorDBUnavailableError."""
        r = self.profile.retrieval
        request = RetrieveRequest(query, context_key,
                                  int(r["k"] if max_chunks is None else max_chunks),
                                  float(r["min_relevance"] if min_relevance is None
                                        else min_relevance))
        _check_request(request, int(r["max_query_chars"]))
        plan = self.collection.profile.plan(k=max(request.max_chunks, 1))
        key = cache_key({"query": request.query, "context_key": request.context_key,
                         "max_chunks": request.max_chunks, "min_relevance": request.min_relevance,
                         "plan": repr(plan), "profile": self.profile.content_hash,
                         "contract": "rag-pipeline/1"})

        def compute() -> str:
            return json.dumps(self._compute(request, plan, key))

        try:
            value, _ = within(float(r["timeout_seconds"]),
                              lambda: cached(self.collection, key,
                                             float(r["cache_ttl_seconds"]), compute, self.clock))
        except StoreError as exc:
            log.error("vector store unavailable: %s", exc)
            raise VectorDBUnavailableError(str(exc)) from exc
        data = json.loads(value)
        return RAGContext(
            context_id=uuid.UUID(data["context_id"]), query_id=uuid.uuid4(),
            document_chunks=[DocumentChunk.from_dict(d) for d in data["document_chunks"]],
            relevance_scores=[float(s) for s in data["relevance_scores"]],
            total_chunks=int(data["total_chunks"]), avg_relevance=float(data["avg_relevance"]),
            meets_threshold=bool(data["meets_threshold"]))

    def _compute(self, request: RetrieveRequest, plan: Any, key: str) -> dict[str, Any]:
        r = self.profile.retrieval
        coll = self.collection
        ranked = by_relevance(_retrieve(request.query, plan, coll), r["relevance"])
        verdict = judge([s for _, s in ranked], request.min_relevance, request.max_chunks,
                        r["threshold_rule"])
        extra = {"embedding_model": coll.info.embed_model}
        chunks = [DocumentChunk(chunk_uuid(coll.name, c.doc_id, c.chunk_index, c.chunk_id),
                                document_uuid(coll.name, c.doc_id), c.text,
                                {**extra, **dict(c.metadata)}, round(score, 6), c.chunk_index)
                  for c, score in ranked[:verdict.kept]]
        identity = sha256_hex(canonical_json([[c.chunk_id.hex, c.relevance_score]
                                              for c in chunks]))
        context_id = uuid.uuid5(NAMESPACE, f"{coll.name}\x1f{key}\x1f{identity}")
        return {"context_id": str(context_id), "document_chunks": [c.to_dict() for c in chunks],
                "relevance_scores": [c.relevance_score for c in chunks],
                "total_chunks": len(chunks), "avg_relevance": round(verdict.avg, 6),
                "meets_threshold": verdict.meets}

    def ingest(self, documents: Sequence[RuleDocument]) -> IngestionResult:
        """Upsert rule documents (by document_id): rejected ones are listed in ``errors``
        by filename and the job goes on; a store write failure raises VectorDBWriteError."""
        docs = []
        for d in documents:
            metadata = dict(d.metadata)
            docs.append(Document(doc_id=str(d.document_id), text=d.content,
                                 title=_title(d.content, d.filename), source=d.filename,
                                 format="markdown", metadata=_json_ready(metadata)))
        report = ingest_documents(docs, self.collection)
        return IngestionResult.from_report(report)

    def ingest_paths(self, paths: Sequence[str], options: LoadOptions = LoadOptions()
                     ) -> IngestionResult:
        """Ingest Markdown files and folders (document_id: the path under the root)."""
        from ..ingest.pipeline import ingest

        return IngestionResult.from_report(ingest(paths, self.collection, options=options))


def _check_request(request: RetrieveRequest, max_chars: int) -> None:
    if not isinstance(request.query, str) or not request.query.strip():
        raise InvalidQueryError("query is empty")
    if len(request.query) > max_chars:
        raise InvalidQueryError(f"query is {len(request.query)} characters long; the limit is "
                                f"{max_chars}")
    if not isinstance(request.context_key, str):
        raise UsageError("context_key must be a string")
    if request.max_chunks < 1:
        raise UsageError(f"max_chunks must be >= 1, got {request.max_chunks}")
    if not 0.0 <= request.min_relevance <= 1.0:
        raise UsageError(f"min_relevance must be between 0 and 1, got {request.min_relevance}")


def _title(content: str, filename: str) -> str:
    from ..ingest.frontmatter import markdown_title

    return markdown_title(content) or filename.rsplit("/", 1)[-1].rsplit(".", 1)[0]


def _json_ready(metadata: dict[str, Any]) -> dict[str, Any]:
    """Dates to ISO strings (as front matter gives them)."""
    import datetime as _dt

    return {k: v.isoformat() if isinstance(v, (_dt.date, _dt.datetime)) else v
            for k, v in metadata.items()}
