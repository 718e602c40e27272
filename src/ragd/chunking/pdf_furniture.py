"""Page furniture of a PDF's text: running headers and footers, page numbers, boilerplate
and table-of-contents entries, found per document and dropped before chunking (see the
``pdf_pages`` module doc for the rules)."""

from __future__ import annotations

import re
from typing import Sequence

_PAGE_NUMBER = re.compile(
    r"^\s*(?:[-–—]\s*)?(?:page\s*)?\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?(?:\s*[-–—])?\s*$", re.I)
_BOILERPLATE = re.compile(
    r"all rights reserved|^\s*©|^\s*\(c\)\s*\d{4}|^\s*copyright\b|this document is (?:the )?"
    r"(?:property|copyright)|^\s*page\s+\d+\s*(?:of\s+\d+)?\b|\bpage\s+\d+\s+of\s+\d+\s*$",
    re.I)
_WORD = re.compile(r"[^\W\d_]+")
_LEADERS = re.compile(r"(?:\.\s*){4,}\d{1,4}\s*$|…{2,}\s*\d{1,4}\s*$")
_TOC_LINE = re.compile(r"^\S.{2,100}?\s\d{1,4}\s*$")


def _key(line: str) -> str:
    """A line's words without numbers or labels: what a running header keeps page to page."""
    return " ".join(w for w in _WORD.findall(line.lower()) if len(w) > 1)


def furniture(pages: Sequence[list[str]], edge: int, share: float) -> set[str]:
    """Keys of lines recurring at the top or bottom of pages: running headers and footers
    of the document (on ``share`` of its pages, and 3 or more) or of a part of it (on 3
    pages within 4 consecutive ones, as an annex's title over each of its pages)."""
    if len(pages) < 3:
        return set()
    where: dict[str, list[int]] = {}
    for number, lines in enumerate(pages):
        body = [ln for ln in lines if ln.strip()]
        for key in {_key(ln) for ln in body[:edge] + body[-edge:]}:
            if key:
                where.setdefault(key, []).append(number)
    need = max(3, share * len(pages))
    return {k for k, at in where.items()
            if len(at) >= need or any(at[i + 2] - at[i] <= 3 for i in range(len(at) - 2))}


def _drop(line: str) -> bool:
    text = line.strip()
    if not text:
        return False
    if _PAGE_NUMBER.match(text):
        return True
    return bool(_BOILERPLATE.search(text)) and len(text.split()) <= 16


def is_toc(lines: list[str]) -> bool:
    """A table-of-contents page: most lines are titles ending in a page number."""
    body = [ln.strip() for ln in lines if ln.strip()]
    hits = sum(bool(_LEADERS.search(ln) or _TOC_LINE.match(ln)) for ln in body)
    return hits >= 8 and hits >= 0.5 * len(body)


def clean_page(lines: list[str], furniture_keys: set[str], edge: int) -> list[str]:
    """A page's lines without its furniture (at the edges), page numbers, boilerplate and
    table-of-contents entries (dotted leaders; a whole contents page)."""
    if is_toc(lines):
        return []
    lines = [ln for ln in lines if not _LEADERS.search(ln)]
    body = [i for i, ln in enumerate(lines) if ln.strip()]
    edges = set(body[:edge] + body[-edge:])
    return [ln for i, ln in enumerate(lines)
            if ln.strip() and not _drop(ln)
            and not (i in edges and _key(ln) in furniture_keys)]
