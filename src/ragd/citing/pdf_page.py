"""The ``pdf_page`` scheme: passages of PDFs cited by file name and page, ``(name.pdf, p3)``.

A passage's fields are ``pdf`` (the file name, ``metadata.pdf``, else the last part of its
doc id), ``page`` (the page it lies on, as the PDF numbers it) and ``section`` (the
nearest heading, when the chunker found one). ``pdf`` and ``page`` with the chunk id key a
fact (the QA contract's ``(pdf, page, chunk_id)``). Queries name no sections this scheme
pins; an expected source is matched by its file name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .base import Cited, register_scheme


def pdf_name(passage: Cited) -> str:
    name = passage.metadata.get("pdf")
    if isinstance(name, str) and name.strip():
        return name
    return passage.doc_id.rsplit("/", 1)[-1]


def page_of(passage: Cited) -> int | None:
    page = getattr(passage, "page", None)
    if page is None:
        page = passage.metadata.get("page")
    return page if isinstance(page, int) and not isinstance(page, bool) else None


@dataclass(frozen=True)
class PdfPageScheme:
    name: str = "pdf_page"
    key_fields: tuple[str, ...] = ("pdf", "page")
    section_field: str = "metadata.section"

    def find_refs(self, query: str) -> list[str]:
        return []

    def normalize(self, ref: str) -> str:
        return " ".join(str(ref).split())

    def cite(self, passage: Cited, title: str = "") -> str:
        page = page_of(passage)
        return f"{pdf_name(passage)}, p{page}" if page is not None else pdf_name(passage)

    def fields(self, passage: Cited, title: str = "") -> dict[str, Any]:
        section = passage.metadata.get("section")
        return {"pdf": pdf_name(passage), "page": page_of(passage),
                "section": section if isinstance(section, str) and section else None}


PDF_PAGE = register_scheme(PdfPageScheme())
