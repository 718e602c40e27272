"""ragd: a contract-driven retrieval engine (deterministic index, hybrid retrieval, citations).

The canonical API of the spec (§2.2) and its types, re-exported; nothing else.
"""

__version__ = "0.1.0"

import logging as _logging

# A library logs; the application decides where it goes (no output unless configured).
_logging.getLogger("ragd").addHandler(_logging.NullHandler())

from .chunking import chunk
from .collection import Collection, open_collection
from .embedding import Embedder, make_embedder
from .errors import (ConfigError, DocumentTooLargeError, EmbedderError, EmbedModelMismatchError,
                     InvalidDocumentError, InvalidQueryError, RagdError, StoreError,
                     UnknownCollectionError, UsageError)
from .ingest.index import index
from .ingest.pipeline import IngestReport, ingest
from .retrieval import compress, fuse, rerank, retrieve
from .stores import Store, open_store
from .types import Candidate, Chunk, ChunkPolicy, Document, Filters, Plan, Segment

__all__ = [
    "Candidate", "Chunk", "ChunkPolicy", "Collection", "ConfigError", "Document",
    "DocumentTooLargeError", "EmbedModelMismatchError", "Embedder", "EmbedderError", "Filters",
    "IngestReport", "InvalidDocumentError", "InvalidQueryError", "Plan", "RagdError", "Segment",
    "Store", "StoreError", "UnknownCollectionError", "UsageError", "chunk", "compress", "fuse",
    "index", "ingest", "make_embedder", "open_collection", "open_store", "rerank", "retrieve",
    "__version__",
]
