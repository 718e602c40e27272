"""Legal documents (the legal-in contract, phase R0): the schema, its ids and its rules.

A :class:`LegalDocument` is an act, an amendment, a notification or a judgment. Its
``doc_id`` is 16 hex characters of a sha256 of its stable identity (type and act, or
court, year and title), so the same document gets the same id on every machine. A
document that breaks one of the contract's nine rules is rejected with an
InvalidDocumentError naming the rule; the legal chunker checks them before it cuts.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Mapping

from ..errors import InvalidDocumentError

_SECTION_HEAD = re.compile(r"^\s*Section\s+(\S+?)\.\s", re.MULTILINE)
_SECTION_OK = re.compile(r"\d{1,4}[A-Z]{0,2}")


class DocumentType(str, Enum):
    BARE_ACT = "bare_act"
    CASE_LAW = "case_law"
    AMENDMENT = "amendment"
    NOTIFICATION = "notification"


def legal_doc_id(doc_type: str, *identity: Any) -> str:
    """16 hex characters of a sha256 of the document's type and identity."""
    key = "|".join([str(doc_type)] + [str(x) for x in identity])
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class LegalDocument:
    doc_id: str
    title: str
    doc_type: str
    act: str | None
    court: str | None
    year: int | None
    citation: str | None
    raw_text: str
    source: str
    version: int = 1
    created_at: str = field(
        default_factory=lambda: _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))


def identity_id(doc_type: str, act: str | None, court: str | None, year: Any,
                title: str) -> str:
    if doc_type in (DocumentType.BARE_ACT.value, DocumentType.AMENDMENT.value) and act:
        return legal_doc_id(doc_type, act) if doc_type == "bare_act" else legal_doc_id(
            doc_type, act, year, title)
    return legal_doc_id(doc_type, court or "", year or "", title)


def from_metadata(doc_id: str, text: str, title: str, source: str,
                  metadata: Mapping[str, Any]) -> LegalDocument:
    """The LegalDocument of a loaded document (its type guessed from its text when its
    metadata does not say: ``Section N.`` headings make a bare act)."""
    doc_type = str(metadata.get("doc_type") or (
        "bare_act" if _SECTION_HEAD.search(text) else "case_law"))
    year = metadata.get("year")
    year = int(year) if isinstance(year, (int, str)) and str(year).isdigit() else year
    act, court = metadata.get("act"), metadata.get("court")
    legal_id = doc_id if re.fullmatch(r"[0-9a-f]{16}", doc_id) else identity_id(
        doc_type, act, court, year, title)
    return LegalDocument(legal_id, title, doc_type, act, court, year,
                         metadata.get("citation"), text, source)


def validate(doc: LegalDocument, today: _dt.date | None = None) -> LegalDocument:
    """The document, or InvalidDocumentError naming the first rule it breaks."""
    today = today or _dt.date.today()

    def refuse(rule: int, message: str, field_: str) -> InvalidDocumentError:
        return InvalidDocumentError(f"rule {rule}: {message}", source=doc.source or doc.doc_id,
                                    field=field_)

    if len(doc.raw_text.strip()) < 50:
        raise refuse(1, "raw_text is empty or under 50 characters", "raw_text")
    if not doc.title.strip():
        raise refuse(2, "title is empty", "title")
    if doc.doc_type not in {t.value for t in DocumentType}:
        raise refuse(3, f"unknown doc_type {doc.doc_type!r} (bare_act, case_law, amendment, "
                        "notification)", "doc_type")
    if doc.year is not None and (not isinstance(doc.year, int) or not
                                 1800 <= doc.year <= today.year):
        raise refuse(4, f"year {doc.year!r} is in the future or before 1800", "year")
    if not doc.source.strip():
        raise refuse(5, "source is empty", "source")
    if not re.fullmatch(r"[0-9a-f]{16}", doc.doc_id):
        raise refuse(6, f"doc_id {doc.doc_id!r} is not 16 hex characters", "doc_id")
    if doc.doc_type == DocumentType.BARE_ACT.value:
        bad = [m.group(1) for m in _SECTION_HEAD.finditer(doc.raw_text)
               if not _SECTION_OK.fullmatch(m.group(1))]
        if bad or not _SECTION_HEAD.search(doc.raw_text):
            raise refuse(7, f"malformed section number {bad[0]!r}" if bad else
                         "no 'Section N.' heading found", "section")
    if doc.doc_type == DocumentType.CASE_LAW.value and not doc.court:
        raise refuse(8, "court is missing (required for case_law)", "court")
    if doc.doc_type in (DocumentType.BARE_ACT.value, DocumentType.AMENDMENT.value) \
            and not doc.act:
        raise refuse(9, "act is missing (required for bare_act and amendment)", "act")
    return doc
