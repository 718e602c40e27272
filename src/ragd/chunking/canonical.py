"""The canonical policy: paragraphs (or timed segments) packed up to a word target.

Counting is model-independent (a token is a whitespace-delimited word), so the
same policy cuts the same text the same way under any embedder and on any
platform. The pipeline is ``units -> pack -> chunks``:

* **Units.** Text: paragraphs (split on blank lines); a paragraph over
  ``max_unit_tokens`` words is cut into sentences. Timed segments: each
  non-empty segment. A unit still over ``max_unit_tokens`` words or
  ``max_chars`` characters is cut at word boundaries (a word longer than
  ``max_chars`` into character slices). Each unit keeps the index of the
  source unit it comes from (its ``origin``).
* **Packing.** Units are appended in order while the chunk stays within
  ``target_tokens`` words and ``max_chars`` characters. When a chunk closes,
  the next starts with the last ``overlap_tokens`` words of the closed chunk's
  text (dropped from the front until the next unit fits ``max_chars``), then
  continues with the next unit, which it always takes.
* **Chunks.** Text is the overlap words and the units joined by one space;
  ``start_offset``/``end_offset`` span the source from the first overlap word
  (or unit) to the end of the last unit; ``segment_start``/``segment_end`` are
  the origins of the first and last unit (the overlap carries none) and
  ``overlap_words`` how many leading words were carried over.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..types import Chunk, ChunkPolicy, Document, Segment
from .base import register_chunker
from .packing import TokenCounter, make_chunks, strip_span
from .sentences import split_sentences

__all__ = ["chunk_segments", "chunk_text", "paragraph_spans", "text_units"]

_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class _Unit:
    """A span ``[start, end)`` of the source that is never cut further, its word count and origin."""

    start: int
    end: int
    words: int
    origin: int


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    """Stripped, non-empty spans of the paragraphs of ``text`` (blank lines separate them)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _PARAGRAPH_BREAK.finditer(text):
        _add_stripped(text, start, m.start(), spans)
        start = m.end()
    _add_stripped(text, start, len(text), spans)
    return spans


def _add_stripped(text: str, start: int, end: int, out: list[tuple[int, int]]) -> None:
    start, end = strip_span(text, start, end)
    if start < end:
        out.append((start, end))


def _word_spans(text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [m.span() for m in _WORD.finditer(text, start, end)]


def _limited(text: str, start: int, end: int, origin: int, policy: ChunkPolicy) -> list[_Unit]:
    """The unit ``[start, end)``, cut at word boundaries if over either unit limit."""
    words = _word_spans(text, start, end)
    max_words, max_chars = policy.max_unit_tokens, policy.char_limit
    if len(words) <= max_words and end - start <= max_chars:
        return [_Unit(start, end, len(words), origin)]
    pieces: list[_Unit] = []
    first = None  # index into ``words`` of the open piece
    for k, (a, b) in enumerate(words):
        if b - a > max_chars:  # a word alone too long: close, then slice it
            if first is not None:
                pieces.append(_Unit(words[first][0], words[k - 1][1], k - first, origin))
                first = None
            pieces.extend(_Unit(c, min(c + max_chars, b), 1, origin)
                          for c in range(a, b, max_chars))
            continue
        if first is not None and (k - first + 1 > max_words or b - words[first][0] > max_chars):
            pieces.append(_Unit(words[first][0], words[k - 1][1], k - first, origin))
            first = None
        if first is None:
            first = k
    if first is not None:
        pieces.append(_Unit(words[first][0], words[-1][1], len(words) - first, origin))
    return pieces


def _sentences_at_spaces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Sentence spans of ``text[start:end]``, rejoined where a boundary falls inside a word.

    A full stop needs no space after it in CJK text ("。"); the canonical policy
    counts whitespace words, so it never cuts one.
    """
    out: list[tuple[int, int]] = []
    for a, b in split_sentences(text[start:end]):
        if out and out[-1][1] == start + a:
            out[-1] = (out[-1][0], start + b)
        else:
            out.append((start + a, start + b))
    return out


def text_units(text: str, policy: ChunkPolicy) -> list[_Unit]:
    """The units of plain text: paragraphs, or the sentences of a long paragraph."""
    units: list[_Unit] = []
    origin = 0
    for p_start, p_end in paragraph_spans(text):
        if len(text[p_start:p_end].split()) <= policy.max_unit_tokens:
            spans = [(p_start, p_end)]
        else:
            spans = _sentences_at_spaces(text, p_start, p_end)
        for s, e in spans:
            units.extend(_limited(text, s, e, origin, policy))
            origin += 1
    return units


@dataclass(frozen=True)
class _Packed:
    text: str
    start: int
    end: int
    first: int  # origin of the first unit
    last: int  # origin of the last unit
    overlap: int  # leading words carried from the previous chunk


def _pack(text: str, units: Sequence[_Unit], policy: ChunkPolicy) -> list[_Packed]:
    """Greedy packing with a tail-word overlap (see the module docstring)."""
    target, overlap, max_chars = policy.target_tokens, policy.overlap_tokens, policy.char_limit
    out: list[_Packed] = []
    parts: list[str] = []
    tail: deque[tuple[int, int]] = deque(maxlen=overlap or 1)  # spans of the last words
    words = length = carried = 0
    start = first = last = end = -1

    def close() -> None:
        out.append(_Packed(" ".join(parts), start, end, first, last, carried))

    for u in units:
        body = text[u.start:u.end]
        if parts and words + u.words <= target and length + 1 + len(body) <= max_chars:
            parts.append(body)
            words, length, last, end = words + u.words, length + 1 + len(body), u.origin, u.end
        else:
            carry: list[tuple[int, int]] = []
            if parts:
                close()
                carry = list(tail) if overlap else []
                size = sum(b - a + 1 for a, b in carry)  # each word and the space after it
                while carry and size + len(body) > max_chars:
                    a, b = carry.pop(0)
                    size -= b - a + 1
            parts = [" ".join(text[a:b] for a, b in carry)] if carry else []
            parts.append(body)
            carried, words = len(carry), len(carry) + u.words
            length = len(" ".join(parts))
            start = carry[0][0] if carry else u.start
            first, last, end = u.origin, u.origin, u.end
            tail.clear()
            tail.extend(carry)
        if overlap:
            for m in _last_words(text, u.start, u.end, overlap):
                tail.append(m)
    if parts:
        close()
    return out


def _last_words(text: str, start: int, end: int, n: int) -> list[tuple[int, int]]:
    """Spans of the last ``n`` words of ``text[start:end]``, scanning from the end."""
    spans: list[tuple[int, int]] = []
    pos = end
    while pos > start and len(spans) < n:
        while pos > start and text[pos - 1].isspace():
            pos -= 1
        stop = pos
        while pos > start and not text[pos - 1].isspace():
            pos -= 1
        if pos < stop:
            spans.append((pos, stop))
    spans.reverse()
    return spans


def chunk_text(text: str, policy: ChunkPolicy, *, doc_id: str = "", context: str = "",
               tags: Sequence[str] = (), metadata: Mapping[str, Any] | None = None) -> list[Chunk]:
    """Canonical chunks of plain text; ``segment_start``/``segment_end`` are unit indices."""
    packed = _pack(text, text_units(text, policy), policy)
    pieces = [(p.text, p.start, p.end, context,
               {"segment_start": p.first, "segment_end": p.last, "overlap_words": p.overlap})
              for p in packed]
    return make_chunks(doc_id, pieces, tags, metadata)


def chunk_segments(segments: Sequence[Segment], policy: ChunkPolicy, *, doc_id: str = "",
                   context: str = "", tags: Sequence[str] = (),
                   metadata: Mapping[str, Any] | None = None) -> list[Chunk]:
    """Canonical chunks of timed segments, each non-empty one a unit (a long one is cut).

    Segment texts are stripped and joined with one space; empty ones are skipped
    but keep their index. Offsets refer to the joined text.
    """
    parts: list[str] = []
    units: list[_Unit] = []
    pos = 0
    for index, seg in enumerate(segments):
        body = seg.text.strip()
        if not body:
            continue
        if parts:
            pos += 1
        parts.append(body)
        units.append(_Unit(pos, pos + len(body), 0, index))
        pos += len(body)
    joined = " ".join(parts)
    limited = [piece for u in units for piece in _limited(joined, u.start, u.end, u.origin, policy)]
    pieces = [(p.text, p.start, p.end, context,
               {"segment_start": p.first, "segment_end": p.last, "overlap_words": p.overlap,
                "t_start": segments[p.first].t_start, "t_end": segments[p.last].t_end})
              for p in _pack(joined, limited, policy)]
    return make_chunks(doc_id, pieces, tags, metadata)


def _chunk_document(doc: Document, policy: ChunkPolicy, count_tokens: TokenCounter) -> list[Chunk]:
    common = {"doc_id": doc.doc_id, "context": doc.title, "tags": doc.tags,
              "metadata": doc.metadata}
    if doc.segments is not None:
        return chunk_segments(doc.segments, policy, **common)
    return chunk_text(doc.text, policy, **common)


register_chunker("canonical", _chunk_document, formats=("text", "markdown", "segments"),
                 description="paragraphs or timed segments packed up to a word target, "
                             "tail-word overlap")
