"""ragd: a contract-driven retrieval engine (deterministic index, hybrid retrieval, citations).

The canonical API of the spec (§2.2) and its types, re-exported; nothing else.
"""

__version__ = "0.1.0"

import logging as _logging

# A library logs; the application decides where it goes (no output unless configured).
_logging.getLogger("ragd").addHandler(_logging.NullHandler())

from .answer import Answer, answer
from .chunking import chunk
from .collection import Collection, open_collection
from .contracts import (DocumentChunk, IngestionResult, LegalPipeline, RAGContext, RAGPipeline,
                        RetrieveRequest, RuleDocument)
from .embedding import Embedder, make_embedder
from .errors import (ConfigError, DocumentTooLargeError, EmbedderError, EmbeddingFailureError,
                     EmbedModelMismatchError, InvalidDocumentError, InvalidQueryError,
                     ProfileMismatchError, RagdError, RetrievalTimeoutError, StoreError,
                     UnknownCollectionError, UsageError, VectorDBUnavailableError,
                     VectorDBWriteError)
from .ingest.index import index
from .ingest.pipeline import IngestReport, ingest
from .profiles import Profile, load_profile
from .retrieval import compress, fuse, rerank, retrieve, retrieve_many
from .stores import Store, open_store
from .types import Candidate, Chunk, ChunkPolicy, Document, Filters, Plan, Segment

__all__ = [
    "Answer", "Candidate", "DocumentChunk", "IngestionResult", "LegalPipeline", "RAGContext",
    "RAGPipeline", "RetrieveRequest", "RuleDocument", "Chunk", "ChunkPolicy", "Collection", "ConfigError", "Document",
    "DocumentTooLargeError", "EmbedModelMismatchError", "Embedder", "EmbedderError",
    "EmbeddingFailureError", "Filters", "IngestReport", "InvalidDocumentError",
    "InvalidQueryError", "Plan", "Profile", "ProfileMismatchError", "RagdError",
    "RetrievalTimeoutError", "Segment", "Store", "StoreError", "UnknownCollectionError",
    "UsageError", "VectorDBUnavailableError", "VectorDBWriteError", "answer", "chunk", "compress", "fuse",
    "index", "ingest", "load_profile", "make_embedder", "open_collection", "open_store", "rerank",
    "retrieve", "retrieve_many", "__version__",
]
