"""Chunking: pure functions from text or timed segments to ``Chunk`` lists.

``chunk`` is the canonical API (``chunk(text_or_segments, policy)``);
``chunk_document`` chunks a loaded ``Document`` by its format. Chunkers are
registered by name in :data:`CHUNKERS` (one module each).
"""

from . import canonical as _canonical  # noqa: F401  (registers "canonical")
from . import markdown as _markdown  # noqa: F401  (registers "markdown")
from . import statute as _statute  # noqa: F401  (registers "statute", "caselaw", "legal")
from . import pdf_pages as _pdf_pages  # noqa: F401  (registers "pdf_pages")
from .base import CHUNKERS, ChunkerSpec, register_chunker
from .dispatch import chunk, chunk_document, chunk_warnings, resolve_chunker
from .sentences import split_sentences

__all__ = ["CHUNKERS", "ChunkerSpec", "chunk", "chunk_document", "chunk_warnings",
           "register_chunker", "resolve_chunker", "split_sentences"]
