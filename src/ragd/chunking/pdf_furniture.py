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
_MONTHS = frozenset("jan feb mar apr may jun jul aug sep sept oct nov dec january february march april "
                    "june july august september october november december".split())
_CITED = re.compile(r"\b(?:19|20)\d\d\b|\d+\.\d+|\d\s?\([a-z0-9]{1,4}\)|\b\d{1,2}/\d{1,2}/\d{2,4}\b", re.I)
"""What makes a line a citation or a print date: a year, a dotted section number, a
paragraph reference (``211.180(f)``), a numeric date."""
_FUNCTION_WORDS = frozenset("a an and as at by for from in of on or see the to with".split())
CITATION_MAX_WORDS = 12
SANDWICH_MAX_WORDS = 12


def _key(line: str) -> str:
    """A line's words without numbers or labels: what a running header keeps page to page."""
    return " ".join(w for w in _WORD.findall(line.lower()) if len(w) > 1)


def furniture(pages: Sequence[list[str]], edge: int, share: float) -> set[str]:
    """Keys of lines recurring at the top or bottom of pages: running headers and footers
    of the document (on ``share`` of its pages, and 3 or more), of one side of a book
    (on ``share`` of its left or of its right pages, and 3 or more: a report printing its
    series on every left page, "338 WHO Technical Report Series, No. 1010, 2018", and
    the annex's title on every right one) or of a part of it (on 3 pages within 4
    consecutive ones, as an annex's title over each of its pages). In a document of 2
    pages, a line at the edges of both is one (a print's header or footer)."""
    if len(pages) < 2:
        return set()
    where: dict[str, list[int]] = {}
    for number, lines in enumerate(pages):
        body = [ln for ln in lines if ln.strip()]
        for key in {_key(ln) for ln in body[:edge] + body[-edge:]}:
            if key:
                where.setdefault(key, []).append(number)
    need = max(min(3, len(pages)), share * len(pages))
    side = [max(3, share * len(range(parity, len(pages), 2))) for parity in (0, 1)]

    def one_side(at: list[int]) -> bool:
        return any(sum(1 for n in at if n % 2 == parity) >= side[parity] for parity in (0, 1))

    return {k for k, at in where.items()
            if len(at) >= need or one_side(at)
            or any(at[i + 2] - at[i] <= 3 for i in range(len(at) - 2))}


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


def own_words(names: Sequence[str], furniture_keys: set[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The words a document calls itself by: of its names (file name, label, title), and
    those with the words of its running headers and footers."""
    named = frozenset(w for name in names for w in _WORD.findall(name.lower()) if len(w) > 1)
    return named, named | {w for key in furniture_keys for w in key.split()}


def is_self_citation(line: str, own: tuple[frozenset[str], frozenset[str]]) -> bool:
    """A line that only cites the document itself with a date or a paragraph reference
    (``21 CFR 211.180 (Feb. 12, 2026)``, ``21 CFR 211.180(f)``): its words (numbers and
    month names aside) are words of the document's names or running lines (``own``), one
    or more of them (not ``and``, ``of``) of its names, and after its first word it carries a year,
    a dotted section number, a paragraph reference or a date — so a heading (``5.1
    Quality Risk Management``, ``CHAPTER 4``) is not one."""
    words = [w for w in _WORD.findall(line.lower()) if len(w) > 1 and w not in _MONTHS]
    named, known = own
    if not words or len(words) > CITATION_MAX_WORDS or not set(words) <= known \
            or not named.intersection(words).difference(_FUNCTION_WORDS):
        return False
    first = _WORD.search(line)
    return first is not None and bool(_CITED.search(line, first.end()))


def clean_page(lines: list[str], furniture_keys: set[str], edge: int,
               own: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
               ) -> list[str]:
    """A page's lines without its furniture (at the edges: recurring lines, the document's
    citations of itself, a short line between two such in the same edge zone), page
    numbers, boilerplate and table-of-contents entries (dotted leaders; a contents page)."""
    if is_toc(lines):
        return []
    lines = [ln for ln in lines if not _LEADERS.search(ln)]
    body = [i for i, ln in enumerate(lines) if ln.strip()]
    zones = (body[:edge], body[-edge:])
    running = {i for i in set(zones[0] + zones[1])
               if _key(lines[i]) in furniture_keys or is_self_citation(lines[i], own)}
    for zone in zones:    # a print's title between its running lines (``General requirements.``)
        running |= {i for before, i, after in zip(zone, zone[1:], zone[2:])
                    if before in running and after in running
                    and len(lines[i].split()) <= SANDWICH_MAX_WORDS}
    return [lines[i] for i in body if i not in running and not _drop(lines[i])]
