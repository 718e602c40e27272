"""The chunking entry points: ``chunk`` (the spec's canonical API) and ``chunk_document``.

They pick the policy (``policy.chunker``: ``auto`` means Markdown for Markdown
input, canonical otherwise) and normalise the input (text or timed segments).
Sizes count words; only a Markdown policy with ``counter = "model"`` counts
with the embedding model's tokenizer (``count_tokens``, by default the bundled
model's).
"""

from __future__ import annotations

from numbers import Real
from typing import Any, Iterable, Mapping, Sequence

from ..errors import InvalidDocumentError, UsageError
from ..types import Chunk, ChunkPolicy, Document, Segment
from .canonical import chunk_segments, chunk_text
from .markdown import chunk_markdown
from .packing import TokenCounter, word_counts

__all__ = ["chunk", "chunk_document"]

FORMATS = ("text", "markdown", "segments")


def _counter(policy: ChunkPolicy, model_counter: TokenCounter | None) -> TokenCounter:
    """Words, or (``counter = "model"``) the given model counter or the bundled tokenizer."""
    if policy.counter == "words":
        return word_counts
    if model_counter is not None:
        return model_counter
    from ..embedding.tokenizer import count_tokens  # loads the tokenizer only when needed

    return count_tokens


def _as_segment(item: Any, index: int, source: str) -> Segment:
    """A ``Segment`` from a Segment or a mapping ``{text, t_start, t_end}``."""
    if isinstance(item, Segment):
        seg = item
    elif isinstance(item, Mapping):
        missing = [k for k in ("text", "t_start", "t_end") if k not in item]
        if missing:
            raise InvalidDocumentError(f"segment {index} has no {missing[0]!r}",
                                       source=source or None, field=missing[0])
        seg = Segment(text=item["text"], t_start=item["t_start"], t_end=item["t_end"])
    else:
        raise InvalidDocumentError(
            f"segment {index} is a {type(item).__name__}, not a Segment or a mapping",
            source=source or None, field="segments")
    if not isinstance(seg.text, str):
        raise InvalidDocumentError(f"segment {index} text is not a string",
                                   source=source or None, field="text")
    for name in ("t_start", "t_end"):
        value = getattr(seg, name)
        if isinstance(value, bool) or not isinstance(value, Real):
            raise InvalidDocumentError(f"segment {index} {name} is not a number",
                                       source=source or None, field=name)
    return seg


def chunk(text_or_segments: str | Sequence[Segment] | Sequence[Mapping[str, Any]],
          policy: ChunkPolicy | None = None, *, doc_id: str = "", context: str = "",
          tags: Sequence[str] = (), metadata: Mapping[str, Any] | None = None,
          count_tokens: TokenCounter | None = None, fmt: str | None = None) -> list[Chunk]:
    """Cut text (``fmt`` "text" or "markdown") or timed segments into chunks.

    ``context`` is passed through to every chunk (for Markdown it is the title
    used when the document has no ``# `` heading, and each chunk's context is
    its heading path). ``metadata`` is merged under the chunker's own keys.
    ``count_tokens`` is the model's counter, used only under ``counter = "model"``.
    """
    policy = policy or ChunkPolicy()
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    common = {"doc_id": doc_id, "tags": tuple(tags), "metadata": metadata}
    if isinstance(text_or_segments, str):
        if fmt == "segments":
            raise UsageError("format 'segments' needs a list of segments, not a string")
        markdown = policy.chunker == "markdown" or (policy.chunker == "auto" and fmt == "markdown")
        if markdown:
            return chunk_markdown(text_or_segments, policy, _counter(policy, count_tokens),
                                  title=context, **common)
        return chunk_text(text_or_segments, policy, context=context, **common)
    if isinstance(text_or_segments, (bytes, bytearray, Mapping)) or not isinstance(
            text_or_segments, Iterable):
        raise UsageError("chunk() needs text (str) or a list of segments, "
                         f"not {type(text_or_segments).__name__}")
    if fmt not in (None, "segments"):
        raise UsageError(f"format {fmt!r} needs a string, not a list of segments")
    if policy.chunker == "markdown":
        raise UsageError("the markdown chunker needs text, not timed segments")
    segments = [_as_segment(item, i, doc_id) for i, item in enumerate(text_or_segments)]
    return chunk_segments(segments, policy, context=context, **common)


def chunk_document(doc: Document, policy: ChunkPolicy | None = None,
                   count_tokens: TokenCounter | None = None) -> list[Chunk]:
    """Chunks of a loaded document, by its ``format`` (any format but markdown/segments is text)."""
    common = {"doc_id": doc.doc_id, "context": doc.title, "tags": doc.tags,
              "metadata": doc.metadata, "count_tokens": count_tokens}
    if doc.format == "segments" or doc.segments is not None:
        if doc.segments is None:
            raise InvalidDocumentError("format is 'segments' but the document has none",
                                       source=doc.source or doc.doc_id, field="segments")
        try:
            return chunk(list(doc.segments), policy, fmt="segments", **common)
        except InvalidDocumentError as exc:
            raise InvalidDocumentError(exc.reason, source=doc.source or doc.doc_id,
                                       field=exc.field) from None
    if doc.format == "prechunked":
        return [whole_chunk(doc)]
    fmt = "markdown" if doc.format == "markdown" else "text"
    return chunk(doc.text, policy, fmt=fmt, **common)


def whole_chunk(doc: Document) -> Chunk:
    """A document that is already one retrieval unit (a corpus record) as its only chunk.

    Its text is kept whole (no policy applies: the corpus fixed the boundaries)
    and its section_id, parent_id and kind are carried over for citation.
    """
    if not doc.text.strip():
        raise InvalidDocumentError("empty text", source=doc.source or doc.doc_id, field="text")
    return Chunk(doc_id=doc.doc_id, chunk_index=0, text=doc.text, tags=doc.tags,
                 metadata=doc.metadata, tokens=len(doc.text.split()), start_offset=0,
                 end_offset=len(doc.text), section_id=doc.section_id, parent_id=doc.parent_id,
                 kind=doc.kind)
