"""Request and response models of the REST API and the MCP tools (pydantic).

Requests are validated here (types, sizes, unknown fields refused). Responses are the
library's own JSON (:mod:`ragd.service.ops`), sent as built; these models describe it in
the OpenAPI document and the MCP tools' output schemas, and the tests hold the JSON to them.
Open mappings (``metadata``, citation fields) stay open: a profile's citation scheme adds
its own fields (``section`` for the EAR, ``pdf``/``page``, ``act``/``section``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, RootModel

from ..retrieval.query import MAX_QUERY_CHARS
from ..types import MODES

Name = Annotated[str, Field(min_length=1, max_length=200)]
Tag = Annotated[str, Field(min_length=1, max_length=200)]
Mode = Literal[MODES]  # type: ignore[valid-type]
MAX_K = 200
MAX_INDEX = 2**31 - 1
MAX_FILTER_ITEMS = 64


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Open(BaseModel):
    """A response object that may carry more fields than those named (scheme fields)."""

    model_config = ConfigDict(extra="allow")


# -- requests -------------------------------------------------------------------------------


class SearchRequest(_Request):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, pattern=r"\S",
                       description="the query (1 to 2,000 characters, not only spaces)")
    k: int | None = Field(None, ge=1, le=MAX_K, description="number of results "
                          "(default: the profile's)")
    mode: Mode | None = Field(None, description="vector, lexical or hybrid")
    fusion: str | None = Field(None, min_length=1, max_length=64,
                               description="hybrid fusion method: rrf, weighted or zscore")
    tags_any: list[Tag] = Field(default_factory=list, max_length=MAX_FILTER_ITEMS,
                                description="keep chunks with any of these tags")
    tags_all: list[Tag] = Field(default_factory=list, max_length=MAX_FILTER_ITEMS,
                                description="keep chunks with all of these tags")
    metadata: dict[str, Any] = Field(default_factory=dict, max_length=MAX_FILTER_ITEMS,
                                     description="top-level metadata equality filter")
    collection: Name | None = Field(None, description="default: the server's collection")
    profile: Name | None = Field(None, description="must be the collection's own profile")
    context_key: str | None = Field(None, max_length=500,
                                    description="conversation key (the rules contract)")


class AskRequest(_Request):
    question: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, pattern=r"\S")
    collection: Name | None = None
    profile: Name | None = None
    llm: str | None = Field(None, max_length=2000, description="an OpenAI-compatible "
                            "endpoint (http://host:port/v1), or 'none'; default: the "
                            "server's (none: the offline extractive path)")
    model: str | None = Field(None, max_length=200, description="the model name to ask for")


class DocumentIn(BaseModel):
    """One document, as a line of a JSONL corpus: other fields go to its metadata."""

    model_config = ConfigDict(extra="allow")
    doc_id: Annotated[str, Field(min_length=1, max_length=1000)]
    text: str
    title: str | None = None
    tags: list[Tag] | None = None
    metadata: dict[str, Any] | None = None
    format: Literal["text", "markdown"] | None = None


class IngestRequest(_Request):
    documents: list[DocumentIn] = Field(min_length=1, max_length=10_000)
    collection: Name | None = None
    profile: Name | None = Field(None, description="the profile of a new collection")
    tags: list[Tag] = Field(default_factory=list, max_length=MAX_FILTER_ITEMS)
    metadata: dict[str, Any] = Field(default_factory=dict, max_length=MAX_FILTER_ITEMS)


# -- responses ------------------------------------------------------------------------------


class PlanOut(BaseModel):
    k: int
    mode: str
    fusion: str


class Passage(BaseModel):
    rank: int
    doc_id: str
    chunk_index: int
    chunk_id: str
    score: float
    vector_score: float | None
    vector_rank: int | None
    lexical_score: float | None
    lexical_rank: int | None
    pinned: bool
    title: str
    context: str
    section_id: str | None
    parent_id: str | None
    kind: str
    page: int | None
    tags: list[str]
    metadata: dict[str, Any]
    text: str
    citation: str


class SearchResults(BaseModel):
    """Ranked passages (``ragd search --json``)."""

    query: str
    profile: str
    plan: PlanOut
    results: list[Passage]


class ContextChunk(BaseModel):
    chunk_id: str
    document_id: str
    text: str
    metadata: dict[str, Any]
    relevance_score: float
    position_in_doc: int


class RAGContextOut(BaseModel):
    """The rules contract's RAGContext (profiles whose search output is ``rag-context``)."""

    context_id: str
    query_id: str
    document_chunks: list[ContextChunk]
    relevance_scores: list[float]
    total_chunks: int
    avg_relevance: float
    meets_threshold: bool


def _object_root(schema: dict[str, Any]) -> None:
    schema["type"] = "object"  # MCP output schemas are objects at the root


class SearchResponse(RootModel[Union[SearchResults, RAGContextOut]]):
    """Ranked passages, or the RAGContext under a profile that asks for it."""

    model_config = ConfigDict(json_schema_extra=_object_root)


class Citation(_Open):
    doc_id: str
    chunk_id: str
    section_id: str | None
    citation: str


class SentenceOut(BaseModel):
    text: str
    citations: list[Citation]


class EvidenceOut(_Open):
    key: str
    doc_id: str
    chunk_id: str
    section_id: str | None
    citation: str
    text: str
    score: float
    relevance: float


class AnswerResponse(BaseModel):
    """A cited answer or a refusal (``ragd ask --json``; ``trace.timings_ms`` varies)."""

    question: str
    profile: str
    status: Literal["answered", "refused"]
    refusal_reason: str | None
    answer: str
    sentences: list[SentenceOut]
    confidence: str
    evidence: list[EvidenceOut]
    trace: dict[str, Any]


class Failure(BaseModel):
    source: str
    reason: str


class IngestReportOut(BaseModel):
    documents: int
    new: int
    changed: int
    unchanged: int
    failed: int
    chunks: int
    seconds: float
    failures: list[Failure]
    warnings: list[str]


class IngestionResultOut(BaseModel):
    """The rules contract's IngestionResult."""

    job_id: str
    documents_processed: int
    documents_failed: int
    embedding_count: int
    errors: list[str]
    warnings: list[str]
    duration_seconds: float


class IngestResponse(RootModel[Union[IngestReportOut, IngestionResultOut]]):
    model_config = ConfigDict(json_schema_extra=_object_root)


class ChunkOut(BaseModel):
    doc_id: str
    chunk_index: int
    chunk_id: str
    title: str
    context: str
    section_id: str | None
    parent_id: str | None
    kind: str
    page: int | None
    tokens: int
    start_offset: int | None
    end_offset: int | None
    tags: list[str]
    metadata: dict[str, Any]
    text: str
    citation: str
    citation_fields: dict[str, Any]


class ChunkResponse(ChunkOut):
    collection: str


class DocumentResponse(BaseModel):
    collection: str
    profile: str
    doc_id: str
    title: str
    source: str
    metadata: dict[str, Any]
    content_hash: str
    version: int
    ingested_at: str
    chunks: list[ChunkOut]


class DocumentSummary(BaseModel):
    doc_id: str
    title: str
    source: str
    version: int
    ingested_at: str


class DocumentList(BaseModel):
    collection: str
    total: int
    documents: list[DocumentSummary]


class Deleted(BaseModel):
    deleted: str
    collection: str


class CollectionOut(BaseModel):
    name: str
    profile: str
    embed_model: str
    embed_dims: int
    documents: int
    chunks: int
    created_at: str


class CollectionsResponse(BaseModel):
    default: str
    collections: list[CollectionOut]


class StatsResponse(BaseModel):
    """``ragd stats --json``."""

    store: str
    collections: list[dict[str, Any]]


class ProfileOut(BaseModel):
    name: str
    description: str
    hash: str


class ProfilesResponse(RootModel[list[ProfileOut]]):
    pass


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    auth: bool = Field(description="whether /v1 needs an API key")
    mcp: bool = Field(description="whether MCP is served at /mcp")


class ErrorBody(BaseModel):
    type: str
    message: str


class ErrorResponse(BaseModel):
    error: ErrorBody


__all__ = [n for n in dir() if n[0].isupper() and n not in ("Any", "Annotated", "Literal",
                                                            "Union")]
