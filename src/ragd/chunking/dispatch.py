"""The chunking entry points: ``chunk`` (the spec's canonical API) and ``chunk_document``.

They look the policy's chunker up in the registry (``auto`` means ``markdown``
for Markdown input and ``canonical`` otherwise) and normalise the input (text
or timed segments). Sizes count words; only a policy with ``counter = "model"``
counts with the embedding model's tokenizer (``count_tokens``, by default the
bundled model's).
"""

from __future__ import annotations

from dataclasses import replace
from numbers import Real
from typing import Any, Iterable, Mapping, Sequence

from ..errors import InvalidDocumentError, UsageError
from ..types import Chunk, ChunkPolicy, Document, Segment
from .base import CHUNKERS, ChunkerSpec, check_options
from .packing import TokenCounter, word_counts

__all__ = ["chunk", "chunk_document", "chunk_versions", "chunk_warnings", "resolve_chunker"]

FORMATS = ("text", "markdown", "segments", "pdf")
AUTO = {"markdown": "markdown", "text": "canonical", "segments": "canonical",
        "pdf": "pdf_pages"}


def _counter(policy: ChunkPolicy, model_counter: TokenCounter | None) -> TokenCounter:
    """Words, or (``counter = "model"``) the given model counter or the bundled tokenizer."""
    if policy.counter == "words":
        return word_counts
    if model_counter is not None:
        return model_counter
    from ..embedding.tokenizer import count_tokens  # loads the tokenizer only when needed

    return count_tokens


def _chunker_name(policy: ChunkPolicy, fmt: str) -> str:
    """The chunker ``policy`` names for a document of format ``fmt`` (``auto``: by format)."""
    return AUTO.get(fmt, "canonical") if policy.chunker == "auto" else policy.chunker


def resolve_chunker(policy: ChunkPolicy, fmt: str) -> tuple[ChunkerSpec, ChunkPolicy]:
    """The registered chunker for a document of format ``fmt`` under ``policy``, and the
    policy it gets (under ``auto``, only the options that chunker takes)."""
    spec = CHUNKERS.get(_chunker_name(policy, fmt))
    if policy.chunker == "auto":
        known = {k for name in set(AUTO.values()) for k in CHUNKERS.get(name).options}
        unknown = sorted(set(policy.options) - known)
        if unknown:
            raise UsageError(f"no chunker chosen by 'auto' takes the option {unknown[0]!r}")
        mine = {k: v for k, v in policy.options.items() if k in spec.options}
        if mine != dict(policy.options):
            policy = replace(policy, options=mine)
    if fmt == "pdf" and fmt not in spec.formats and "text" in spec.formats:
        fmt = "text"  # a PDF's pages are text to a chunker that is not page-aware
    if fmt not in spec.formats:
        needs = "text" if "segments" not in spec.formats else " or ".join(sorted(spec.formats))
        raise UsageError(f"the {spec.name} chunker reads {needs}, not {fmt}")
    check_options(spec, policy.options)
    return spec, policy


def chunk_versions(policy: ChunkPolicy, fmt: str | None = None) -> dict[str, int]:
    """The versions past 1 of the chunkers ``policy`` uses for a document of ``fmt`` (any
    format when None): part of a stored document's hash, so that a new chunker version
    re-chunks it while a chunker still at version 1 leaves every stored hash as it was."""
    if fmt is None:
        names = set(AUTO.values()) if policy.chunker == "auto" else {policy.chunker}
    else:
        names = {_chunker_name(policy, fmt if fmt in FORMATS else "text")}
    specs = [CHUNKERS.get(n) for n in sorted(names) if n in CHUNKERS]
    return {s.name: s.version for s in specs if s.version != 1}


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
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    common = {"doc_id": doc_id, "title": context, "tags": tuple(tags),
              "metadata": metadata or {}}
    if isinstance(text_or_segments, str):
        if fmt == "segments":
            raise UsageError("format 'segments' needs a list of segments, not a string")
        doc = Document(text=text_or_segments, format=fmt or "text", **common)
    else:
        if isinstance(text_or_segments, (bytes, bytearray, Mapping)) or not isinstance(
                text_or_segments, Iterable):
            raise UsageError("chunk() needs text (str) or a list of segments, "
                             f"not {type(text_or_segments).__name__}")
        if fmt not in (None, "segments"):
            raise UsageError(f"format {fmt!r} needs a string, not a list of segments")
        segments = tuple(_as_segment(item, i, doc_id) for i, item in enumerate(text_or_segments))
        doc = Document(format="segments", segments=segments, **common)
    return _run(doc, policy or ChunkPolicy(), count_tokens)


def _run(doc: Document, policy: ChunkPolicy, count_tokens: TokenCounter | None) -> list[Chunk]:
    fmt = "segments" if doc.segments is not None else doc.format
    spec, policy = resolve_chunker(policy, fmt if fmt in FORMATS else "text")
    chunks = spec.chunk(doc, policy, _counter(policy, count_tokens))
    if doc.section_id is None:
        return chunks
    # A document that is one section (its loader says which) cites it from every chunk
    # the chunker did not place in a section of its own.
    return [c if c.section_id else replace(c, section_id=doc.section_id) for c in chunks]


def chunk_document(doc: Document, policy: ChunkPolicy | None = None,
                   count_tokens: TokenCounter | None = None) -> list[Chunk]:
    """Chunks of a loaded document, by its ``format`` (any format but markdown/segments is text)."""
    if doc.format == "segments" or doc.segments is not None:
        if doc.segments is None:
            raise InvalidDocumentError("format is 'segments' but the document has none",
                                       source=doc.source or doc.doc_id, field="segments")
        try:
            segments = tuple(_as_segment(s, i, doc.doc_id) for i, s in enumerate(doc.segments))
        except InvalidDocumentError as exc:
            raise InvalidDocumentError(exc.reason, source=doc.source or doc.doc_id,
                                       field=exc.field) from None
        doc = replace(doc, segments=segments)
    if doc.format == "prechunked":
        return [whole_chunk(doc)]
    return _run(doc, policy or ChunkPolicy(), count_tokens)


def chunk_warnings(doc: Document, policy: ChunkPolicy | None = None,
                   count_tokens: TokenCounter | None = None) -> list[str]:
    """What the document's chunker finds ambiguous about its structure (never fatal)."""
    if doc.format == "prechunked" or doc.segments is not None:
        return []
    policy = policy or ChunkPolicy()
    spec, policy = resolve_chunker(policy, doc.format if doc.format in FORMATS else "text")
    if spec.warnings is None:
        return []
    return spec.warnings(doc, policy, _counter(policy, count_tokens))


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
