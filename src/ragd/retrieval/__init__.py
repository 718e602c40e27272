"""Retrieval blocks: retrieve (candidates + filters + fusion), fuse, rerank, compress."""

from .compress import compress
from .fusion import fuse
from .query import MAX_QUERY_CHARS, validate_query
from .rerank import rerank
from .batch import retrieve_many
from .retrieve import candidate_lists, retrieve

__all__ = ["MAX_QUERY_CHARS", "candidate_lists", "compress", "fuse", "rerank", "retrieve",
           "retrieve_many", "validate_query"]
