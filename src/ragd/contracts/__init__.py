"""The entry points and types each contract defines, built from the generic blocks.

``rag_pipeline``: the rag-pipeline contract of the ``rules`` profile; ``legal``: the legal
contract's phases R1-R4 (``legal-in``).
"""

from .legal import (ContextResult, ContextStatus, LegalPipeline, RetrievedChunk,
                    ValidationResult, ValidationStatus)

from .rag_pipeline import (DocumentChunk, IngestionResult, NoDocumentsFoundError, RAGContext,
                           RAGPipeline, RetrieveRequest, RuleDocument)

__all__ = ["ContextResult", "ContextStatus", "LegalPipeline", "RetrievedChunk",
           "ValidationResult", "ValidationStatus", "DocumentChunk", "IngestionResult", "NoDocumentsFoundError", "RAGContext",
           "RAGPipeline", "RetrieveRequest", "RuleDocument"]
