"""The entry points and types each contract defines, built from the generic blocks.

``rag_pipeline``: the rag-pipeline contract of the ``rules`` profile.
"""

from .rag_pipeline import (DocumentChunk, IngestionResult, NoDocumentsFoundError, RAGContext,
                           RAGPipeline, RetrieveRequest, RuleDocument)

__all__ = ["DocumentChunk", "IngestionResult", "NoDocumentsFoundError", "RAGContext",
           "RAGPipeline", "RetrieveRequest", "RuleDocument"]
