"""The heading-aware Markdown policy.

A document that fits the limit (``target_tokens`` and ``max_chars``) is one
chunk. A longer one is cut at headings, one level at a time (``#``, then
``##`` down to ``######``), only where a part is still too long; a part that is
still too long without headings is cut between blocks (paragraphs, fenced code,
lists, tables), packed greedily. A block alone over the limit is cut at line
boundaries (a table repeats its header and separator rows on each piece) or,
for prose, by sentences. Headings inside fenced code are not headings.

Sizes are counted by ``count_tokens``: whitespace words by default, or the
embedding model's tokenizer when the policy says ``counter = "model"`` (to keep a
document whole up to the model's input limit). A chunk's ``tokens`` field is
its word count either way.

Every chunk's ``context`` is its heading path, "Title > Section > Sub", and
``metadata["section"]`` its own heading. Chunk text is the Markdown source and
its offsets point into it, except that a table piece with a repeated header
starts with that header, and (option ``heading_prefix``) a piece of a section
that does not start with the section's heading starts with it (their offsets
cover only their own source; ``metadata["table_header_repeated"]`` /
``["heading_repeated"]`` say so).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

from ..types import Chunk, ChunkPolicy, Document
from .base import register_chunker
from .packing import TokenCounter, Unit, build_units, make_chunks, pack, strip_span
from .sentences import split_sentences

__all__ = ["chunk_markdown", "structure_warnings"]

_HEADING = re.compile(r" {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_TABLE_SEP = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+•]|\d{1,9}[.)])(?:[ \t]|$)")


@dataclass(frozen=True)
class _Line:
    """One source line: span without its newline, heading level/title, fence membership."""

    start: int
    end: int
    level: int = 0
    title: str = ""
    blank: bool = False
    fence: int = -1


def _scan(text: str) -> list[_Line]:
    """Lines of ``text`` with ATX headings and fenced code blocks recognised."""
    lines: list[_Line] = []
    pos = 0
    fence_no, opener = -1, ""
    for raw in text.split("\n"):
        start, end = pos, pos + len(raw)
        pos = end + 1
        body = raw.rstrip("\r")
        if opener:
            m = _FENCE.fullmatch(body)
            if m and m.group(1)[0] == opener[0] and len(m.group(1)) >= len(opener) \
                    and not m.group(2).strip():
                opener = ""
            lines.append(_Line(start, end, blank=not body.strip(), fence=fence_no))
            continue
        m = _FENCE.fullmatch(body)
        if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
            fence_no, opener = fence_no + 1, m.group(1)
            lines.append(_Line(start, end, fence=fence_no))
            continue
        h = _HEADING.fullmatch(body)
        if h:
            title = (h.group(2) or "").strip()
            lines.append(_Line(start, end, len(h.group(1)), "" if set(title) <= {"#"} else title))
        else:
            lines.append(_Line(start, end, blank=not body.strip()))
    return lines


@dataclass(frozen=True)
class _Doc:
    """The scanned document and its per-line token prefix sums."""

    text: str
    lines: list[_Line]
    acc: list[int]
    policy: ChunkPolicy
    count_tokens: TokenCounter
    heading_prefix: bool = False
    heading_context: bool = True

    def span(self, lo: int, hi: int) -> tuple[int, int]:
        return strip_span(self.text, self.lines[lo].start, self.lines[hi - 1].end)

    def tokens(self, lo: int, hi: int) -> int:
        return self.acc[hi] - self.acc[lo]

    def fits(self, lo: int, hi: int) -> bool:
        s, e = self.span(lo, hi)
        return self.tokens(lo, hi) <= self.policy.target_tokens and e - s <= self.policy.char_limit

    def empty(self, lo: int, hi: int) -> bool:
        s, e = self.span(lo, hi)
        return s >= e

    def headings_only(self, lo: int, hi: int) -> bool:
        return all(ln.blank or (ln.level and ln.fence < 0) for ln in self.lines[lo:hi])


Piece = tuple[str, int, int, str, Mapping[str, Any]]


def _scanned(text: str, policy: ChunkPolicy, count_tokens: TokenCounter) -> _Doc:
    lines = _scan(text)
    acc = [0]
    for n in count_tokens([text[ln.start:ln.end] for ln in lines]):
        acc.append(acc[-1] + n)
    return _Doc(text, lines, acc, policy, count_tokens,
                bool(policy.options.get("heading_prefix", False)),
                bool(policy.options.get("heading_context", True)))


def chunk_markdown(text: str, policy: ChunkPolicy, count_tokens: TokenCounter, *,
                   doc_id: str = "", title: str = "", tags: Sequence[str] = (),
                   metadata: Mapping[str, Any] | None = None) -> list[Chunk]:
    """Heading-aware chunks of Markdown ``text``; ``title`` is used when there is no ``# `` H1."""
    if not text.strip():
        return []
    doc = _scanned(text, policy, count_tokens)
    if not doc.heading_context:  # the heading path stays in metadata, not in what is embedded
        return [replace(c, context="") for c in _chunks(doc, title, doc_id, tags, metadata)]
    return _chunks(doc, title, doc_id, tags, metadata)


def _chunks(doc: _Doc, title: str, doc_id: str, tags: Sequence[str],
            metadata: Mapping[str, Any] | None) -> list[Chunk]:
    lines = doc.lines
    h1 = next((ln.title for ln in lines if ln.level == 1 and ln.fence < 0 and ln.title), "")
    root = (h1 or title.strip(),)
    out: list[Piece] = []
    if doc.fits(0, len(lines)):
        _emit_whole(doc, 0, len(lines), root, 0, out)
    else:
        _split(doc, 0, len(lines), 1, root, 0, out)
    return make_chunks(doc_id, out, tags, metadata)


def _split(doc: _Doc, lo: int, hi: int, level: int, path: tuple[str, ...], depth: int,
           out: list[Piece]) -> None:
    """Cut lines ``[lo, hi)`` at headings of ``level`` (then deeper), or pack its blocks."""
    if doc.empty(lo, hi):
        return
    if doc.fits(lo, hi):
        _emit_whole(doc, lo, hi, path, depth, out)
        return
    if level > 6:
        _pack_blocks(doc, lo, hi, path, depth, out)
        return
    cuts = [k for k in range(lo, hi) if doc.lines[k].level == level and doc.lines[k].fence < 0]
    if not cuts:
        _split(doc, lo, hi, level + 1, path, depth, out)
        return
    first = lo  # a heading-only preamble joins the first section instead of standing alone
    if not doc.headings_only(lo, cuts[0]):
        _split(doc, lo, cuts[0], level + 1, path, depth, out)
        first = cuts[0]
    bounds = [first] + cuts[1:] + [hi]
    for a, b, head in zip(bounds, bounds[1:], cuts):
        name = doc.lines[head].title
        if level == 1:
            sub, sub_depth = (name or path[0],), 0
        else:
            sub, sub_depth = (path + (name,) if name else path), level
        _split(doc, a, b, level + 1, sub, sub_depth, out)


def _meta(path: tuple[str, ...], depth: int) -> tuple[str, dict[str, Any]]:
    context = " > ".join(p for p in path if p)
    own = next((p for p in reversed(path) if p), "")
    return context, {"heading_path": context, "heading_level": depth, "section": own}


def structure_warnings(text: str, policy: ChunkPolicy, count_tokens: TokenCounter) -> list[str]:
    """What is ambiguous about a document's structure: it must be split but has no
    headings (cut by paragraphs instead), or a heading skips levels (``#`` then ``###``)."""
    if not text.strip():
        return []
    doc = _scanned(text, policy, count_tokens)
    headings = [(k, ln.level) for k, ln in enumerate(doc.lines) if ln.level and ln.fence < 0]
    out: list[str] = []
    if not doc.fits(0, len(doc.lines)) and not headings:
        out.append("no headings in a document that must be split: cut between paragraphs")
    previous = 0
    for k, level in headings:
        if previous and level > previous + 1:
            out.append(f"line {k + 1}: heading level skips from H{previous} to H{level}")
        previous = level
    return out


def _emit_whole(doc: _Doc, lo: int, hi: int, path: tuple[str, ...], depth: int,
                out: list[Piece]) -> None:
    s, e = doc.span(lo, hi)
    if s < e:
        context, meta = _meta(path, depth)
        out.append((doc.text[s:e], s, e, context, meta))


def _blocks(doc: _Doc, lo: int, hi: int) -> list[tuple[int, int]]:
    """Line ranges of the blocks in ``[lo, hi)``: fenced code, heading, run of non-blank lines."""
    blocks: list[tuple[int, int]] = []
    lines, k = doc.lines, lo
    while k < hi:
        ln = lines[k]
        j = k + 1
        if ln.fence >= 0:
            while j < hi and lines[j].fence == ln.fence:
                j += 1
        elif ln.blank:
            k = j
            continue
        elif not ln.level:
            while j < hi and not (lines[j].blank or lines[j].level or lines[j].fence >= 0):
                j += 1
        blocks.append((k, j))
        k = j
    return blocks


def _pack_blocks(doc: _Doc, lo: int, hi: int, path: tuple[str, ...], depth: int,
                 out: list[Piece]) -> None:
    """Pack the blocks of a heading-less part greedily, cutting only over-long blocks.

    With ``heading_prefix`` every piece that does not start with the section's
    heading gets it in front (room for it is kept in each piece), and a piece
    holding nothing but headings is not emitted on its own.
    """
    units: list[Unit] = []
    for index, (a, b) in enumerate(_blocks(doc, lo, hi)):
        units.extend(_block_units(doc, a, b, index))
    policy = doc.policy
    context, meta = _meta(path, depth)
    heading = _heading_line(path, depth) if doc.heading_prefix else ""
    room_t = doc.count_tokens([heading])[0] if heading else 0
    room_c = len(heading) + 2 if heading else 0
    target = max(1, policy.target_tokens - room_t)
    limit = max(1, policy.char_limit - room_c)
    for i, j in pack(units, target, limit):
        s, e, head = units[i].start, units[j].end, units[i].prefix
        body = doc.text[s:e]
        if heading and _only_headings(body):
            continue
        extra = {"table_header_repeated": True} if head else {}
        text = f"{head}\n{body}" if head else body
        if heading and not _HEADING.fullmatch(body.lstrip().split("\n", 1)[0].rstrip("\r")):
            text, extra = f"{heading}\n\n{text}", {**extra, "heading_repeated": True}
        out.append((text, s, e, context, {**meta, **extra}))


def _heading_line(path: tuple[str, ...], depth: int) -> str:
    """The Markdown heading of the section at ``path`` (depth 0: the document's ``#``)."""
    own = next((p for p in reversed(path) if p), "")
    return f"{'#' * max(1, depth)} {own}" if own else ""


def _only_headings(body: str) -> bool:
    return all(not line.strip() or _HEADING.fullmatch(line.rstrip("\r"))
               for line in body.split("\n"))


def _block_units(doc: _Doc, lo: int, hi: int, index: int) -> list[Unit]:
    """One unit for a block that fits; else its lines/items/sentences as units."""
    if doc.fits(lo, hi):
        s, e = doc.span(lo, hi)
        return [Unit(s, e, doc.tokens(lo, hi), index)]

    def line(k: int) -> str:
        return doc.text[doc.lines[k].start:doc.lines[k].end].rstrip("\r")

    first, second = line(lo), (line(lo + 1) if hi - lo > 1 else "")
    prefix, prefix_tokens = "", 0
    if hi - lo > 2 and "|" in first and _TABLE_SEP.fullmatch(second):
        head = lo + 3 if doc.fits(lo, lo + 3) else lo + 2  # never a header without a row
        groups = [(lo, head)] + [(k, k + 1) for k in range(head, hi)]
        s, e = doc.span(lo, lo + 2)
        prefix, prefix_tokens = doc.text[s:e], doc.tokens(lo, lo + 2)
    elif _LIST_ITEM.match(first):
        starts = [k for k in range(lo, hi) if k == lo or _LIST_ITEM.match(line(k))]
        groups = list(zip(starts, starts[1:] + [hi]))
    elif doc.lines[lo].fence >= 0:
        groups = [(k, k + 1) for k in range(lo, hi)]
    else:
        return _sentence_units(doc, lo, hi, index)
    units: list[Unit] = []
    for g, (a, b) in enumerate(groups):
        if doc.empty(a, b):
            continue
        s, e = doc.span(a, b)
        n = doc.tokens(a, b)
        if prefix and g > 0 and _fits_with(doc, n, e - s, prefix, prefix_tokens):
            units.append(Unit(s, e, n, index, prefix, prefix_tokens))
        elif doc.fits(a, b):
            units.append(Unit(s, e, n, index))
        else:
            units.extend(_sentence_units(doc, a, b, index))
    return units


def _fits_with(doc: _Doc, tokens: int, chars: int, prefix: str, prefix_tokens: int) -> bool:
    policy = doc.policy
    return (tokens + prefix_tokens <= policy.target_tokens
            and chars + len(prefix) + 1 <= policy.char_limit)


def _sentence_units(doc: _Doc, lo: int, hi: int, index: int) -> list[Unit]:
    """Sentence units of lines ``[lo, hi)`` (long sentences cut as the canonical policy does)."""
    s, e = doc.span(lo, hi)
    spans = [(s + a, s + b) for a, b in split_sentences(doc.text[s:e])]
    return build_units(doc.text, spans, [index] * len(spans), doc.policy, doc.count_tokens)


def _chunk_document(doc: Document, policy: ChunkPolicy, count_tokens: TokenCounter) -> list[Chunk]:
    return chunk_markdown(doc.text, policy, count_tokens, doc_id=doc.doc_id, title=doc.title,
                          tags=doc.tags, metadata=doc.metadata)


def _warnings(doc: Document, policy: ChunkPolicy, count_tokens: TokenCounter) -> list[str]:
    return structure_warnings(doc.text, policy, count_tokens)


register_chunker("markdown", _chunk_document, formats=("text", "markdown"),
                 options={"heading_prefix": bool, "heading_context": bool}, warnings=_warnings,
                 description="whole up to the limit, else cut at headings (#, ##, ...), then "
                             "between blocks; heading path as context")
