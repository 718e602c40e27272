"""Chunking: pure functions from text or timed segments to ``Chunk`` lists.

``chunk`` is the canonical API (``chunk(text_or_segments, policy)``);
``chunk_document`` chunks a loaded ``Document`` by its format.
"""

from .dispatch import chunk, chunk_document
from .sentences import split_sentences

__all__ = ["chunk", "chunk_document", "split_sentences"]
