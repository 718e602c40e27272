"""Legal chunkers (the legal-in contract, phase R1): ``statute``, ``caselaw`` and ``legal``.

``statute``: one chunk per section of a bare act (``Section N. Title.`` headings); a
section's numbered sub-sections ``(1)``, ``(2)`` are separate chunks, and so is each
``Explanation`` and each ``Illustration``. Never by length, never two sections in one
chunk. ``caselaw``: numbered paragraphs (``12.``), a heading line (JUDGMENT, HELD, ORDER,
...) starting a new chunk, else blank-line paragraphs. ``legal`` picks one by the
document's ``doc_type`` (a bare act when it has ``Section N.`` headings) and checks the
contract's document rules first (``ragd.ingest.legal``).

Every chunk carries ``act``, ``section``, ``subsection``, ``doc_type``, ``citation``
("Section 420, IPC"), ``court``, ``year`` in its metadata, a ``section_id`` (``IPC-420``)
for citation by section, offsets into the document, and a 16-hex deterministic chunk_id.
A section whose text says it was repealed ("Rep. by ...") is marked ``repealed``.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Mapping

from ..types import Chunk, ChunkPolicy, Document
from .base import register_chunker
from .packing import TokenCounter, strip_span

_HEAD = re.compile(r"^[ \t]*Section[ \t]+(\d{1,4}[A-Z]{0,2})\.[ \t]*(.*)$", re.MULTILINE)
_MARK = r"^[ \t]*(?:\d+\[)?[ \t]*"  # an optional footnote marker such as "1["
_PART = re.compile(
    _MARK + r"(?:(?P<sub>\(\d{1,3}[A-Z]?\))(?=\s)"
    r"|(?P<exp>\[?Explanation\b[^\n.—-]*)"
    r"|(?P<ills>Illustrations?)\b)", re.MULTILINE)
_ITEM = re.compile(r"^[ \t]*\(([a-z]{1,3})\)[ \t]", re.MULTILINE)
_REPEALED = re.compile(r"^\W*(?:Rep\.|Repealed|Omitted)\b", re.IGNORECASE)
_CASE_HEAD = re.compile(r"^[ \t]*([A-Z][A-Z .&']{2,40})[ \t]*:?[ \t]*$", re.MULTILINE)
_CASE_PARA = re.compile(r"^[ \t]*(\d{1,4})\.[ \t]+\S", re.MULTILINE)


def legal_chunk_id(doc_id: str, index: int, text: str) -> str:
    return hashlib.sha256(f"{doc_id}\x1f{index}\x1f{text}".encode("utf-8")).hexdigest()[:16]


def _piece(doc: Document, start: int, end: int) -> tuple[int, int, str]:
    s, e = strip_span(doc.text, start, end)
    return s, e, doc.text[s:e]


def _section_parts(doc: Document, start: int, end: int) -> list[tuple[str, str | None, int, int]]:
    """(kind, subsection label, start, end) of one section's body ``[start, end)``."""
    marks = []
    for m in _PART.finditer(doc.text, start, end):
        if m.group("sub"):
            marks.append(("subsection", m.group("sub"), m.start()))
        elif m.group("exp"):
            label = " ".join(m.group("exp").strip("[] ").split())
            marks.append(("explanation", label, m.start()))
        else:
            marks.append(("illustrations", None, m.start()))
    parts: list[tuple[str, str | None, int, int]] = []
    bounds = [start] + [p for _, _, p in marks] + [end]
    lead_kind = ("section", None)
    kinds = [lead_kind] + [(k, label) for k, label, _ in marks]
    for (kind, label), a, b in zip(kinds, bounds, bounds[1:]):
        if kind == "illustrations":
            items = list(_ITEM.finditer(doc.text, a, b))
            if not items:
                parts.append(("illustration", "Illustration", a, b))
                continue
            edges = [i.start() for i in items] + [b]
            for item, x, y in zip(items, edges, edges[1:]):
                parts.append(("illustration", f"Illustration ({item.group(1)})", x, y))
        else:
            parts.append((kind, label, a, b))
    return parts


def chunk_statute(doc: Document, policy: ChunkPolicy, count_tokens: TokenCounter) -> list[Chunk]:
    meta: Mapping[str, Any] = doc.metadata
    act = meta.get("act")
    heads = list(_HEAD.finditer(doc.text))
    chunks: list[Chunk] = []
    for h, nxt in zip(heads, heads[1:] + [None]):
        number, title = h.group(1), h.group(2).strip().rstrip(".")
        end = nxt.start() if nxt else len(doc.text)
        body_start = h.end()
        repealed = bool(_REPEALED.match(doc.text[body_start:end].strip()))
        for kind, label, a, b in _section_parts(doc, body_start, end):
            s, e, text = _piece(doc, a if kind != "section" else h.start(), b)
            if kind == "section" and not doc.text[body_start:b].strip() and len(
                    _section_parts(doc, body_start, end)) > 1:
                continue  # a heading whose body is all sub-sections: they carry it
            if not text:
                continue
            citation = f"Section {number}, {act}" if act else f"Section {number}"
            extra = {"act": act, "section": number, "subsection": label,
                     "doc_type": meta.get("doc_type", "bare_act"), "citation": citation,
                     "court": None, "year": meta.get("year"), "section_title": title,
                     "kind": kind, **({"repealed": True} if repealed else {})}
            index = len(chunks)
            chunks.append(Chunk(
                doc_id=doc.doc_id, chunk_index=index, text=text,
                chunk_id=legal_chunk_id(doc.doc_id, index, text),
                context=f"{citation} — {title}" if title else citation, tags=doc.tags,
                metadata={**meta, **extra}, tokens=len(text.split()), start_offset=s,
                end_offset=e, section_id=f"{act}-{number}" if act else None,
                kind=kind))
    return chunks


def chunk_caselaw(doc: Document, policy: ChunkPolicy, count_tokens: TokenCounter) -> list[Chunk]:
    meta: Mapping[str, Any] = doc.metadata
    starts = sorted({m.start() for m in _CASE_PARA.finditer(doc.text)}
                    | {m.start() for m in _CASE_HEAD.finditer(doc.text)})
    if len(starts) < 2:  # no numbered paragraphs or headings: blank-line paragraphs
        starts = [0] + [m.end() for m in re.finditer(r"\n[ \t]*\n", doc.text)]
    starts = sorted(set([0] + starts))
    chunks: list[Chunk] = []
    citation = meta.get("citation") or doc.title
    heading = ""
    for a, b in zip(starts, starts[1:] + [len(doc.text)]):
        s, e, text = _piece(doc, a, b)
        if not text:
            continue
        if _CASE_HEAD.fullmatch(text):
            heading = text.strip(": ")
            continue
        para = _CASE_PARA.match(text)
        index = len(chunks)
        extra = {"act": meta.get("act"), "section": None, "subsection": None,
                 "doc_type": "case_law", "citation": citation, "court": meta.get("court"),
                 "year": meta.get("year"), "heading": heading or None,
                 "paragraph": int(para.group(1)) if para else None}
        chunks.append(Chunk(doc_id=doc.doc_id, chunk_index=index, text=text,
                            chunk_id=legal_chunk_id(doc.doc_id, index, text),
                            context=" — ".join(x for x in (doc.title, heading) if x),
                            tags=doc.tags, metadata={**meta, **extra},
                            tokens=len(text.split()), start_offset=s, end_offset=e,
                            kind="paragraph"))
    return chunks


def chunk_legal(doc: Document, policy: ChunkPolicy, count_tokens: TokenCounter) -> list[Chunk]:
    """Check the document against the contract's rules, then cut it as what it is."""
    from ..ingest.legal import from_metadata, validate

    legal = validate(from_metadata(doc.doc_id, doc.text, doc.title, doc.source, doc.metadata))
    meta = {**doc.metadata, "doc_type": legal.doc_type, "legal_doc_id": legal.doc_id}
    if legal.year is not None:
        meta["year"] = legal.year
    from dataclasses import replace

    doc = replace(doc, metadata=meta)
    if legal.doc_type == "case_law":
        return chunk_caselaw(doc, policy, count_tokens)
    return chunk_statute(doc, policy, count_tokens)


register_chunker("statute", chunk_statute, formats=("text", "markdown"),
                 description="a bare act: a chunk per section, sub-section, explanation and "
                             "illustration")
register_chunker("caselaw", chunk_caselaw, formats=("text", "markdown"),
                 description="a judgment: numbered paragraphs, headings start new chunks")
register_chunker("legal", chunk_legal, formats=("text", "markdown"),
                 description="statute or caselaw by the document's doc_type, after the legal "
                             "document rules")
