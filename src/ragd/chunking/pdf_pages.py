"""The ``pdf_pages`` chunker: page-aware chunks of a PDF's text, never across a page.

Input: a document whose pages are separated by form feeds (``\\f``), as the PDF loader
makes them, with ``metadata.page_labels`` (the printed page numbers; else 1-based). Per
document, before chunking:

* **line numbers** — a draft printed with a number before each line (EMA consultation
  drafts, FDA and ICH drafts) has them dropped: a page is line-numbered when
  ``NUMBERING_MIN_LINES`` (10) or more of its lines start with numbers rising by one (a
  step of up to ``NUMBERING_STEP`` (3) where the extractor lost some) and they make
  ``NUMBERING_SHARE`` (0.4) of its lines — a list's items are a few lines apart, a line
  numbering is on nearly every line — and on a quarter or more of the pages; then a
  shorter run (3 lines, a third of the page; or one going on from the page before) on its
  other pages too. A chain's numbers are cut from its lines (a number-only line goes),
  and a number the extractor glued into a line (``stability291 indicating``) where the
  chain skips it;
* **page furniture** — a line in the top or bottom ``edge_lines`` (4) lines of a page that
  recurs (its words; numbers aside) on at least ``furniture_share`` of the pages (and on 3
  or more; on both pages of a 2-page document), on at least that share of its left pages
  or of its right pages (a book's running lines, one side each), or on 3 pages within 4
  consecutive ones (a part's running title), is a running header or footer and is dropped,
  as are page-number lines (``12``, ``- 12 -``, ``Page 3 of 17``) and boilerplate lines
  (``All rights reserved``, ``© ICH 2023``). So is an edge line citing the document itself with a date or
  a paragraph reference (``21 CFR 211.180 (Feb. 12, 2026)``, ``21 CFR 211.180(f)``: its
  words, numbers and months aside, are all words of the PDF's names or running lines), and
  a short line between two such edge lines (a print's title: ``General requirements.``) —
  what a 1- or 2-page print keeps, where nothing recurs 3 times (``pdf_furniture.py``);
* **hyphenated line breaks** are rejoined (``manufac-`` / ``turing`` → ``manufacturing``);
* **paragraphs**: wrapped lines are joined; a new paragraph starts after a line ending a
  sentence, at a numbered or bulleted item, and around a heading.

Each page's paragraphs are then cut by the canonical policy (the profile's
``target_tokens``, ``overlap_tokens``, ``max_chars``), so a chunk lies on one page: its
``page`` is that page's number. ``metadata.section`` is the nearest heading at or before
the chunk (a numbered heading such as ``7. Data Storage``, ``§ 11.10 Controls for closed
systems.``, ``CHAPTER 4``, an all-capitals line), carried across pages; ``metadata.pdf``
and ``metadata.authority`` come from the document. The chunk's context (embedded and
indexed with it) is the PDF's label (``metadata.label``: its name in words; else its
title) and the section.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from ..types import Chunk, ChunkPolicy, Document
from .base import register_chunker
from .canonical import chunk_text
from .packing import TokenCounter
from .pdf_furniture import clean_page, furniture, is_toc, own_words  # noqa: F401  (is_toc)

_ITEM = re.compile(
    r"^(?:§+\s*\d|\d{1,2}(?:\.\d{1,3})*\.?\s+\S|\(\s*[a-z0-9ivx]{1,4}\s*\)\s|[a-z]\)\s|"
    r"[a-zA-Z]\.\s+\S|[•■●▪◦·\-–—*]\s*\S|(?:chapter|annex|part|section|appendix|article)\s+"
    r"[0-9ivxlcA-Z]+\b)", re.I)
_SENTENCE_END = re.compile(r"[.:;!?]['\"”’)]?$")
_HEADING_NUMBERED = re.compile(r"^(?:§+\s*\d+(?:\.\d+)*|\d{1,2}(?:\.\d{1,3})*\.?|[IVX]{1,5}\.|"
                               r"(?:chapter|annex|part|section|appendix|article)\s+[0-9ivxlcA-Z]+"
                               r")\s*\S", re.I)


NUMBERING_MIN_LINES = 10
"""A line-numbered page has a run of this many lines (or more) with rising numbers ..."""
NUMBERING_SHARE = 0.4
"""... making this share of its lines or more (numbered lists and contents pages measured
in the PDFs measured by bench/pdf_line_numbers.py: runs of 9 at most, a fifth of their page; drafts: 20 to 46, 0.8)."""
NUMBERING_PAGES = 0.25
"""A document is line-numbered when this share of its pages with text are."""
NUMBERING_LOOSE = (3, 0.3)
"""Then its other pages with a run of 3 lines making 0.3 of the page are too."""
NUMBERING_STEP = 3
"""A run's numbers rise by one, or by up to this where the extractor lost or moved one."""
_LINE_NO = re.compile(r"\s*(\d{1,5})(?:\s+|$)")
_NOTE_MARK = re.compile(r"\s*\d{1,3}(?:,\d{1,3})*\s+(?=\d)")
_GLUED = re.compile(r"\s*(\d{2,6})(?=[.)]\s)")
_Link = tuple[int, int, int]   # (line index, printed number, where the number ends)


def split_pages(doc: Document) -> tuple[list[str], list[int]]:
    """The document's pages and their numbers (``metadata.page_labels``, else 1-based)."""
    pages = doc.text.split("\f")
    labels = doc.metadata.get("page_labels")
    if not isinstance(labels, (list, tuple)) or len(labels) != len(pages) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in labels):
        labels = list(range(1, len(pages) + 1))
    return pages, list(labels)


def _numbers(line: str) -> list[tuple[int, int]]:
    """``(number, end)`` of what may be a printed line number at the start of ``line``: a
    leading integer, one after a footnote mark (``14 267 Protocols``) or one glued to a
    list item's number (``1411. What`` → 141 before ``1.``)."""
    out = []
    plain = _LINE_NO.match(line)
    if plain:
        out.append((int(plain.group(1)), plain.end()))
    note = _NOTE_MARK.match(line)
    after = _LINE_NO.match(line, note.end()) if note else None
    if after:
        out.append((int(after.group(1)), after.end()))
    glued = _GLUED.match(line)
    if glued:
        digits = glued.group(1)
        out += [(int(digits[:cut]), glued.start(1) + cut)
                for cut in range(max(1, len(digits) - 2), len(digits))]
    return out


def numbering_chain(lines: Sequence[str]) -> list[_Link]:
    """The longest run of lines whose leading numbers rise by one (by up to
    ``NUMBERING_STEP`` where the extractor lost a number), other lines between allowed."""
    best: dict[int, tuple[int, tuple]] = {}      # number -> (length, linked list of links)
    top: tuple[int, tuple] = (0, ())
    for i, line in enumerate(lines):
        found = []
        for value, end in _numbers(line):
            prev = max((best[value - s] for s in range(1, NUMBERING_STEP + 1)
                        if value - s in best), key=lambda node: node[0], default=(0, ()))
            found.append((value, (prev[0] + 1, ((i, value, end), prev[1]))))
        for value, node in found:         # after all of the line's readings: one use a line
            if value not in best or best[value][0] <= node[0]:   # a tie: the later line
                best[value] = node
            if node[0] > top[0]:
                top = node
    chain, rest = [], top[1]
    while rest:
        chain.append(rest[0])
        rest = rest[1]
    return chain[::-1]


def _unglue(line: str, number: int) -> str:
    """``line`` without ``number`` where the extractor put it mid-line: in place of a
    line-end hyphen it lost (``stability291 indicating`` → ``stability-indicating``) or
    after a footnote mark (``validation5 20 data`` → ``validation5 data``)."""
    for pattern, by in ((rf"(?<=[a-z][a-z]){number}\s+(?=[a-z])", "-"),
                        (rf"(?<=[a-z]\d){number}(?=\s)", ""),
                        (rf"(?<=[a-z][.,;:)]\d) {number}(?=\s)", ""),
                        (rf"(?<=[a-z]\d) {number}(?=\s)", "")):
        cut = re.sub(pattern, by, line, count=1)
        if cut != line:
            return cut
    return line


def _is_numbered(chain: list[_Link], lines: Sequence[str], least: int, share: float) -> bool:
    body = sum(1 for ln in lines if ln.strip())
    return len(chain) >= least and len(chain) >= share * body


def strip_line_numbers(pages: Sequence[list[str]]) -> list[list[str]]:
    """The pages without their printed line numbers (see the module doc); pages of a
    document without line numbering come back as they are."""
    chains = [numbering_chain(lines) for lines in pages]
    numbered = [_is_numbered(c, lines, NUMBERING_MIN_LINES, NUMBERING_SHARE)
                for c, lines in zip(chains, pages)]
    texted = sum(1 for lines in pages if any(ln.strip() for ln in lines))
    if not any(numbered) or sum(numbered) < NUMBERING_PAGES * texted:
        return [list(lines) for lines in pages]
    out: list[list[str]] = []
    last: int | None = None
    for chain, lines, strict in zip(chains, pages, numbered):
        goes_on = bool(chain) and last is not None and 0 < chain[0][1] - last <= NUMBERING_STEP
        if not (strict or goes_on or _is_numbered(chain, lines, *NUMBERING_LOOSE)):
            out.append(list(lines))
            continue
        page = list(lines)
        for k, (i, value, end) in enumerate(chain):
            page[i] = page[i][end:]
            stop, upto = chain[k + 1][:2] if k + 1 < len(chain) else (i + 1, value + 1)
            for missing in range(value + 1, upto):      # numbers the chain skips
                for j in range(i, stop):
                    cut = _unglue(page[j], missing)
                    if cut != page[j]:
                        page[j] = cut
                        break
        out.append(page)
        last = chain[-1][1]
    return out


_JOINERS = frozenset("a an and as at by for from in of on or the to with".split())


_CROSS_REFERENCE = frozenset({"above", "below"})
# a footnote's text after its number: "12 See footnote 9.", "24 See id. at Section 3.37."
_FOOTNOTE = re.compile(r"(?:see|id|ibid|cf)\b", re.I)


def _not_a_title(text: str, start: int) -> bool:
    """Whether what follows a line's number (from ``start``) is a table's row or a range,
    not a heading's title: another figure after a space ("29 300 Not", "22 0.07” to"), a
    unit or a sign ("30 °C ± 2 °C", "64% to 150%"), a dash or slash glued to the number
    ("90–110% average recovery"). A figure glued to it is the number's own ("210.3
    Definitions", "Annex 17"); a dash after a space may open a title ("1 - Scope")."""
    first = text[start:start + 1]
    glued = start > 0 and not text[start - 1].isspace()
    return first in ("%", "±", "°") or (first.isdigit() and not glued) \
        or (first in ("–", "-", "/") and glued)


def _is_heading(line: str) -> bool:
    """A heading line: short, not a wrapped sentence; numbered (``7. Data Storage``,
    ``§ 11.10 Controls for closed systems.``, ``CHAPTER 4``) or in capitals. Not a
    footnote (``12 See footnote 9.``), a table's row (``29 300 Not``), a cross-reference
    (``Section V.A.1 above.``) nor the tail of a parenthesis (``Part I Section 5.34)``)."""
    text = line.strip()
    words = text.split()
    if not words or len(words) > 12 or len(text) > 90:
        return False
    if text.endswith((",", ";", "-")) or words[-1].lower() in _JOINERS \
            or words[-1].lower().rstrip(".") in _CROSS_REFERENCE \
            or text.count(")") > text.count("("):
        return False
    letters = [ch for ch in text if ch.isalpha()]
    if len(letters) < 3:
        return False
    numbered = _HEADING_NUMBERED.match(text)
    if numbered and text[0] not in "-–—•":
        rest = text[numbered.end() - 1:]
        if rest[:1].islower() or re.search(r"[a-z]\. +[A-Z]", rest) or (
                text.endswith(".") and len(words) > 8) or len(text) > 70 \
                or _not_a_title(text, numbered.end() - 1) or _FOOTNOTE.match(rest):
            return False
        return True
    caps = sum(ch.isupper() for ch in letters) / len(letters)
    return caps > 0.8 and len(letters) >= 4 and not text.endswith(".")


WRAPPED_WORDS = 6
"""A numbered line this long or longer, the next line going on in lower case, is the first
line of a numbered paragraph ("14.5 All materials and products should be stored under the
appropriate" / "conditions ..."), not a heading; a short one ("3. Glossary" over a glossary's
lower-case terms) is."""


def _wraps_on(line: str, after: list[str]) -> bool:
    """Whether ``line``, a numbered heading by its own look, is a paragraph's first line
    wrapped onto the next (:data:`WRAPPED_WORDS`)."""
    return bool(after) and after[0][:1].islower() and not _ITEM.match(after[0]) \
        and len(line.split()) >= WRAPPED_WORDS and bool(_HEADING_NUMBERED.match(line))


def paragraphs(lines: list[str]) -> list[tuple[str, bool]]:
    """``(paragraph, is_heading)``: wrapped lines joined, hyphenated breaks rejoined."""
    out: list[tuple[str, bool]] = []
    current = ""
    previous_ended = True

    def close() -> None:
        nonlocal current
        if current.strip():
            out.append((" ".join(current.split()), False))
        current = ""

    body = [raw.strip() for raw in lines if raw.strip()]
    for at, line in enumerate(body):
        heading = _is_heading(line) and not _wraps_on(line, body[at + 1:at + 2])
        starts_item = bool(_ITEM.match(line))
        if heading:
            close()
            out.append((" ".join(line.split()), True))
            previous_ended = True
            continue
        if current and (starts_item or (previous_ended and line[:1].isupper())):
            close()
        if current.endswith("-") and len(current) > 1 and current[-2].isalpha() \
                and line[:1].islower():
            current = current[:-1] + line
        else:
            current = f"{current} {line}" if current else line
        previous_ended = bool(_SENTENCE_END.search(line))
    close()
    return out


def _context(name: str, section: str | None) -> str:
    return f"{name} > {section}" if section and name else (section or name)


def chunk_pdf(doc: Document, policy: ChunkPolicy, count_tokens: TokenCounter) -> list[Chunk]:
    opts = policy.options
    edge = int(opts.get("edge_lines", 4))
    share = float(opts.get("furniture_share", 0.5))
    pages, labels = split_pages(doc)
    split = strip_line_numbers([p.split("\n") for p in pages])
    keys = furniture(split, edge, share)
    base = {k: v for k, v in doc.metadata.items() if k not in ("page_labels", "pages")}
    base.setdefault("pdf", doc.doc_id.rsplit("/", 1)[-1])
    name = str(doc.metadata.get("label") or doc.title)
    own = own_words([str(doc.metadata.get("label") or ""), doc.title, str(base["pdf"])], keys)
    section: str | None = None
    out: list[Chunk] = []
    for lines, number in zip(split, labels):
        paras = paragraphs(clean_page(lines, keys, edge, own))
        if not paras:
            continue
        # one canonical pass per run of paragraphs under the same heading
        runs: list[tuple[str | None, list[str]]] = []
        for text, heading in paras:
            if heading:
                section = text.rstrip(". ")
                runs.append((section, [text]))
            elif runs and runs[-1][0] == section:
                runs[-1][1].append(text)
            else:
                runs.append((section, [text]))
        merged: list[tuple[str | None, list[str]]] = []
        for sec, texts in runs:   # a heading alone joins the text under it
            if merged and len(" ".join(merged[-1][1]).split()) < 30 and merged[-1][0] != sec \
                    and all(_is_heading(t) for t in merged[-1][1]):
                merged[-1] = (sec, merged[-1][1] + texts)
            else:
                merged.append((sec, texts))
        for sec, texts in merged:
            for piece in chunk_text("\n\n".join(texts), policy, doc_id=doc.doc_id):
                meta: dict[str, Any] = {**base, "section": sec} if sec else dict(base)
                out.append(Chunk(doc_id=doc.doc_id, chunk_index=len(out), text=piece.text,
                                 context=_context(name, sec), tags=doc.tags,
                                 metadata=meta, tokens=piece.tokens, page=number))
    return out


VERSION = 5
"""The chunker's version (stores re-chunk what an older one made): 2 drops line numbers;
3 drops the furniture of 1- and 2-page prints (their self-citations, headers on both pages);
4 drops a book's running lines on one side only (every left page, or every right one);
5 reads no footnote, table row, cross-reference or wrapped first line as a heading."""

register_chunker("pdf_pages", chunk_pdf, formats=("pdf", "text"), version=VERSION,
                 options={"edge_lines": int, "furniture_share": float},
                 description="page-aware chunks of PDFs: never across a page, line numbers, "
                             "running headers, footers and boilerplate dropped, hyphenated "
                             "breaks rejoined")
